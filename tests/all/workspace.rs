//! Workspaces over `beaker serve`: seed 001's file conversations replayed turn by turn in one trajectory (the
//! observation Beaker renders, byte for byte), a trajectory's files private to it and freed when it closes.

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
