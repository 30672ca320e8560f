//! Workspaces over `beaker serve`: seed 001's file conversations replayed turn by turn in one trajectory (the
//! observation Beaker renders, byte for byte), a trajectory's files private to it and freed when it closes, and the
//! same files `execute_python`'s working folder and the plotter's `save_as`.

use crate::support::{ensure, jsonl, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("workspace::seed_001_file_conversations", seed_001),
        Trial::test(
            "workspace::private_to_a_trajectory_and_freed_by_close",
            private_and_freed,
        ),
        Trial::test(
            "workspace::execute_python_and_the_plotter_share_it",
            shared_with_python_and_plots,
        ),
        Trial::test(
            "workspace::native_execute_python_shares_it",
            shared_with_native_python,
        ),
    ]
}

fn seed_001() -> Outcome {
    let mut s = Server::start(&["--no-python"]);
    for (i, turn) in jsonl("tests/data/files/seed_001.jsonl").iter().enumerate() {
        s.send(&json!({"id": i, "text": turn["turn"], "tag": "seed-001"}));
        let a = s.recv();
        ensure(a["text"] == turn["observation"], || {
            format!(
                "turn {i}:\n got {}\nwant {}",
                a["text"], turn["observation"]
            )
        })?;
    }
    Ok(())
}

fn call(s: &mut Server, tool: &str, tag: Option<&str>, params: Value) -> Value {
    let mut req = json!({"id": 0, "tool": tool, "params": params});
    if let Some(t) = tag {
        req["tag"] = json!(t);
    }
    s.send(&req);
    s.recv()
}

fn private_and_freed() -> Outcome {
    let mut s = Server::start(&["--no-python"]);
    let w = call(
        &mut s,
        "write_file",
        Some("a"),
        json!({"path": "d/x.txt", "content": "12345"}),
    );
    ensure(w["success"] == true, || w.to_string())?;
    for (tag, why) in [
        (Some("b"), "another trajectory"),
        (None, "an untagged call"),
    ] {
        let r = call(&mut s, "read_file", tag, json!({"path": "d/x.txt"}));
        ensure(r["error"] == "File not found: d/x.txt", || {
            format!("{why}: {r}")
        })?;
    }
    s.send(&json!({"id": 1, "stats": "a"}));
    let st = s.recv();
    ensure(
        st["stats"]["workspace"] == json!({"files": 1, "bytes": 5}),
        || st.to_string(),
    )?;
    s.send(&json!({"id": 2, "close": "a"}));
    let closed = s.recv();
    ensure(closed["stats"]["workspace"]["files"] == 1, || {
        closed.to_string()
    })?;
    let r = call(&mut s, "read_file", Some("a"), json!({"path": "d/x.txt"}));
    ensure(r["error"] == "File not found: d/x.txt", || {
        format!("after close: {r}")
    })?;
    Ok(())
}

/// A trajectory's files are `execute_python`'s working folder (given in, written and deleted files come back)
/// and the plotter saves into them; an untagged call's code sees none of them.
fn shared_with_python_and_plots() -> Outcome {
    let mut s = Server::start(&[]);
    let t = Some("analysis");
    python_shares_it(&mut s, t, None)?;
    // The plotter saves into the workspace; edit_image and the code read it there.
    let p = call(
        &mut s,
        "plotter",
        t,
        json!({"plot_type": "function", "data": {"functions": ["x**2"], "x_range": [0, 1]},
        "options": {"width": 200, "height": 150}, "save_as": "plots/square.png"}),
    );
    ensure(p["result"]["output_path"] == "plots/square.png", || {
        p.to_string()
    })?;
    let e = call(
        &mut s,
        "edit_image",
        t,
        json!({"image_path": "plots/square.png", "edit_type": "resize", "width": 100}),
    );
    ensure(
        e["result"]["output_path"] == "plots/square_resize.png" && e["result"]["height"] == 75,
        || e.to_string(),
    )?;
    let r = call(
        &mut s,
        "execute_python",
        t,
        json!({"code": "open('plots/square_resize.png', 'rb').read()[:4]"}),
    );
    ensure(
        r["result"]["result"] == "b'\\x89PNG'" && r["result"].get("workspace").is_none(),
        || r.to_string(),
    )
}

/// Steps every backend of `execute_python` answers alike: a trajectory's files are the code's working folder,
/// written, deleted, renamed and moved files come back to the workspace. `backend`: the calls' `backend`.
fn python_shares_it(s: &mut Server, t: Option<&str>, backend: Option<&str>) -> Outcome {
    let python = |code: &str| {
        let mut p = json!({"code": code});
        if let Some(b) = backend {
            p["backend"] = json!(b);
        }
        p
    };
    let w = call(
        s,
        "write_file",
        t,
        json!({"path": "data/values.csv", "content": "x\n1\n2\n3\n"}),
    );
    ensure(w["success"] == true, || w.to_string())?;
    let code = "import os\nvals = [int(v) for v in open('data/values.csv').read().split()[1:]]\n\
                open('total.txt', 'w').write(str(sum(vals)))\nos.remove('data/values.csv')\n\
                open('bytes.bin', 'wb').write(bytes(range(256)))\nprint(sorted(os.listdir('.')))";
    let r = call(s, "execute_python", t, python(code));
    ensure(
        r["success"] == true && r["result"]["exception"].is_null(),
        || r.to_string(),
    )?;
    ensure(
        r["result"]["workspace"]
            == json!({"written": [{"path": "bytes.bin", "size": 256}, {"path": "total.txt", "size": 1}],
                      "deleted": ["data/values.csv"], "refused": []}),
        || r.to_string(),
    )?;
    let r = call(s, "read_file", t, json!({"path": "total.txt"}));
    ensure(r["result"]["content"] == "6", || r.to_string())?;
    // Renames and moves (os.rename, shutil.move) are a write at the new path and a deletion at the old.
    let code = "import os, shutil\nos.rename('total.txt', 'sum.txt')\nos.makedirs('bin')\nshutil.move('bytes.bin', 'bin/bytes.bin')";
    let r = call(s, "execute_python", t, python(code));
    ensure(
        r["result"]["exception"].is_null()
            && r["result"]["workspace"]
                == json!({"written": [{"path": "bin/bytes.bin", "size": 256}, {"path": "sum.txt", "size": 1}],
                          "deleted": ["bytes.bin", "total.txt"], "refused": []}),
        || r.to_string(),
    )?;
    let r = call(s, "read_file", t, json!({"path": "data/values.csv"}));
    ensure(r["error"] == "File not found: data/values.csv", || {
        r.to_string()
    })?;
    // Reading without writing changes nothing, and the answer says nothing about the folder.
    let r = call(
        s,
        "execute_python",
        t,
        python("open('bin/bytes.bin', 'rb').read()[:3]"),
    );
    ensure(
        r["result"]["result"] == "b'\\x00\\x01\\x02'" && r["result"].get("workspace").is_none(),
        || r.to_string(),
    )?;
    // Untagged: the code's folder is empty and nothing is reported.
    let r = call(
        s,
        "execute_python",
        None,
        python("import os; os.listdir('.')"),
    );
    ensure(
        r["result"]["result"] == "[]" && r["result"].get("workspace").is_none(),
        || r.to_string(),
    )
}

/// The same steps on the native backend (`backend: "native"`: CPython in the bubblewrap sandbox). It once ran
/// the code in an empty folder, so a trajectory's files were not found and what the code wrote was lost.
fn shared_with_native_python() -> Outcome {
    let mut s = Server::start(&[]);
    let s = &mut s;
    let t = Some("native-analysis");
    python_shares_it(s, t, Some("native"))?;
    let python = |code: &str| json!({"code": code, "backend": "native"});
    // A flood of files (the WebAssembly backend's scratch folder stops the code at 255; a native folder does not):
    // the workspace takes what its file cap allows, and the answer lists 16 refusals at most, the last counting
    // the rest (it once listed every one: 277 kB for 3,000 files).
    let flood = "for i in range(300): open(f'flood{i:03}.txt', 'w').write('x')";
    let r = call(s, "execute_python", t, python(flood));
    let ws = &r["result"]["workspace"];
    let refused = ws["refused"].as_array().map_or(0, Vec::len);
    ensure(
        ws["written"].as_array().map_or(0, Vec::len) == 254
            && refused == 16
            && ws["refused"][15] == json!({"path": "*", "why": "31 more files refused"}),
        || format!("{r}"),
    )?;
    let r = call(
        s,
        "execute_python",
        t,
        python("import glob, os\nfor f in glob.glob('flood*'): os.remove(f)"),
    );
    ensure(
        r["result"]["workspace"]["deleted"]
            .as_array()
            .map_or(0, Vec::len)
            == 254,
        || format!("{r}"),
    )?;
    Ok(())
}
