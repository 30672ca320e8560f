//! `execute_code` (issue 40): the stdin/stdout problems of `tests/data/code/problems.jsonl` solved in every
//! language, judged against outputs a Python reference computed (`tests/data/gen/code_problems.py`), and the
//! build cache over the binary; and the traps of a 32-bit Python that the native one must answer as a 64-bit
//! CPython does (`tests/data/code/python64.jsonl`, from `tests/data/gen/code_python64.py`).

use crate::support::{ensure, jsonl, Outcome, Server};
use beaker::Engine;
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::sync::OnceLock;
use std::time::Duration;

fn engine() -> Result<&'static Engine, String> {
    static E: OnceLock<Result<Engine, String>> = OnceLock::new();
    E.get_or_init(|| {
        let loaded = beaker::Catalog::builtin()
            .without("python")
            .load()
            .map_err(|e| e.to_string())?;
        loaded.engine_builder().build().map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// One solution judged on its problem's tests: every test passes.
fn problem(case: Value) -> Outcome {
    let mut params =
        json!({"language": case["language"], "code": case["code"], "tests": case["tests"]});
    if !case["tolerance"].is_null() {
        params["tolerance"] = case["tolerance"].clone();
    }
    let mut call = beaker::ToolCall::new("execute_code", params);
    call.limits.timeout_ms = Some(60_000);
    let env = engine()?.call(call);
    let r = env.result.unwrap_or(Value::Null);
    ensure(
        r["status"] == "accepted"
            && r["passed"] == r["total"]
            && r["total"] == case["tests"].as_array().map_or(0, Vec::len),
        || format!("{}: {r} {:?}", case["name"], env.error),
    )
}

/// The same source run twice with other stdin is compiled once (one build in the cache); another source is
/// another build.
fn builds_are_cached_by_source() -> Outcome {
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    // Runs have a user of their own when the tests run as root: the cache must let it through.
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(cache.path(), std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
    }
    let mut s = Server::start_with_env(
        &["--no-python"],
        &[("BEAKER_CACHE_DIR", cache.path().as_os_str())],
    );
    let code =
        "#include <cstdio>\nint main(){int x;std::scanf(\"%d\",&x);std::printf(\"%d\\n\",x*x);}";
    for (id, stdin, want) in [(1, "3", "9\n"), (2, "12", "144\n")] {
        s.send(&json!({"id": id, "tool": "execute_code",
            "params": {"language": "cpp", "code": code, "stdin": stdin}}));
        let r = s.recv();
        ensure(r["result"]["stdout"] == want, || r.to_string())?;
    }
    let builds = |dir: &std::path::Path| {
        std::fs::read_dir(dir.join("builds"))
            .map(|d| {
                d.filter_map(Result::ok)
                    .filter(|e| e.file_name() != "tmp")
                    .count()
            })
            .unwrap_or(0)
    };
    ensure(builds(cache.path()) == 1, || {
        format!("{} builds", builds(cache.path()))
    })?;
    s.send(&json!({"id": 3, "tool": "execute_code",
        "params": {"language": "cpp", "code": format!("{code}\n// another source")}}));
    let _ = s.recv();
    ensure(builds(cache.path()) == 2, || {
        format!("{} builds", builds(cache.path()))
    })
}

/// `BEAKER_PYTHON_BACKEND=native` makes the native backend `execute_python`'s default (a call naming
/// `backend: "wasm"` still gets WebAssembly, whose `sys.maxsize` is 32-bit).
fn the_server_default_backend_is_configured_by_the_environment() -> Outcome {
    let code = "import sys\nsys.maxsize";
    let mut server = Server::start_with_env(
        &[],
        &[("BEAKER_PYTHON_BACKEND", std::ffi::OsStr::new("native"))],
    );
    server.send(&json!({"id": 1, "tool": "execute_python", "params": {"code": code}}));
    server.send(
        &json!({"id": 2, "tool": "execute_python", "params": {"code": code, "backend": "wasm"}}),
    );
    let (answers, _) = server.finish();
    let result = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .map(|a| a["result"]["result"].clone())
            .unwrap_or(Value::Null)
    };
    ensure(
        result(1) == json!("9223372036854775807") && result(2) == json!("2147483647"),
        || format!("{answers:?}"),
    )
}

/// The bubblewrap processes (warm launchers' sandboxes) among the children of process `pid`'s threads.
fn bwrap_children(pid: u32) -> usize {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| c.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/comm"))
                .is_ok_and(|c| c.trim() == "bwrap")
        })
        .count()
}

/// A server starts the launchers of the commonest runs (Python, Python with numpy, C/C++/Rust) before its first
/// call, so that call does not wait for them; `BEAKER_PRESTART=0` starts none.
fn a_server_starts_the_common_launchers_ahead() -> Outcome {
    let on = [("BEAKER_PRESTART", std::ffi::OsStr::new("1"))];
    let mut warm = Server::start_with_env(&["--no-python"], &on);
    let cold = Server::start_with_env(&["--no-python"], &[]);
    let until = std::time::Instant::now() + Duration::from_secs(120);
    let mut seen = 0;
    while seen < 3 && std::time::Instant::now() < until {
        std::thread::sleep(Duration::from_millis(200));
        seen = bwrap_children(warm.child.id());
    }
    let cold_seen = bwrap_children(cold.child.id());
    warm.send(&json!({"id": 1, "tool": "execute_code", "params": {"language": "python", "code": "print(6 * 7)"}}));
    let answer = warm.recv();
    let (answers, _) = cold.finish();
    ensure(
        seen == 3 && cold_seen == 0 && answer["result"]["stdout"] == "42\n" && answers.is_empty(),
        || format!("prestarted {seen}, without prestart {cold_seen}: {answer}"),
    )
}

/// numpy's global generator is seeded afresh for every run, as at a first import (runs are forks of one
/// launcher that imported numpy: unseeded, every run would draw the launcher's numbers).
fn numpy_draws_afresh_in_every_run() -> Outcome {
    let draw = || {
        let call = beaker::ToolCall::new(
            "execute_code",
            json!({"language": "python", "code": "import numpy as np\nprint(np.random.rand(), np.random.randint(1 << 62))"}),
        );
        engine().map(|e| e.call(call).result.unwrap_or(Value::Null)["stdout"].clone())
    };
    let draws = [draw()?, draw()?, draw()?];
    ensure(
        draws
            .iter()
            .all(|d| d.as_str().is_some_and(|s| !s.is_empty()))
            && draws[0] != draws[1]
            && draws[1] != draws[2]
            && draws[0] != draws[2],
        || format!("{draws:?}"),
    )
}

/// One case of the hostile-program matrix: its verdict one of those listed, its stdout the one given.
fn matrix_case(case: Value) -> Outcome {
    let mut params = json!({"language": case["language"], "code": case["code"]});
    if let Some(ms) = case["run_timeout_ms"].as_u64() {
        params["run_timeout_ms"] = json!(ms);
    }
    let mut call = beaker::ToolCall::new("execute_code", params);
    call.limits.timeout_ms = Some(60_000);
    call.limits.max_memory_bytes = case["max_memory_bytes"].as_u64();
    call.limits.max_output_bytes = case["max_output_bytes"].as_u64();
    let env = engine()?.call(call);
    let r = env.result.unwrap_or(Value::Null);
    let verdict_ok = (case["status"].as_array().into_iter().flatten()).any(|s| *s == r["status"]);
    let stdout_ok = case["stdout"].is_null() || case["stdout"] == r["stdout"];
    // Whole output written just before an exit or a spin (Node queues what a full pipe does not take).
    let bytes_ok = ["stdout", "stderr"].iter().all(|k| {
        let want = &case[format!("{k}_bytes")];
        want.is_null() || r[*k].as_str().map(str::len) == want.as_u64().map(|n| n as usize)
    });
    ensure(verdict_ok && stdout_ok && bytes_ok, || {
        format!("{}: {r} {:?}", case["name"], env.error)
    })
}

/// Whether `language`'s toolchain is on this machine (go is optional: docs/TOOLS.md).
fn installed(language: &str) -> bool {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
    };
    language != "go" || on_path("go")
}

/// The trials.
pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test(
            "code::builds_are_cached_by_source",
            builds_are_cached_by_source,
        ),
        Trial::test(
            "code::numpy_draws_afresh_in_every_run",
            numpy_draws_afresh_in_every_run,
        ),
        Trial::test(
            "code::a_server_starts_the_common_launchers_ahead",
            a_server_starts_the_common_launchers_ahead,
        ),
        Trial::test(
            "code::the_server_default_backend_is_configured_by_the_environment",
            the_server_default_backend_is_configured_by_the_environment,
        ),
    ];
    for case in jsonl("tests/data/code/matrix.jsonl") {
        let name = format!("code::matrix::{}", case["name"].as_str().unwrap_or("?"));
        let missing = !installed(case["language"].as_str().unwrap_or(""));
        trials.push(Trial::test(name, move || matrix_case(case)).with_ignored_flag(missing));
    }
    for (suite, file) in [
        ("problems", "tests/data/code/problems.jsonl"),
        ("python64", "tests/data/code/python64.jsonl"),
    ] {
        for case in jsonl(file) {
            let name = format!("code::{suite}::{}", case["name"].as_str().unwrap_or("?"));
            trials.push(Trial::test(name, move || problem(case)));
        }
    }
    trials
}
