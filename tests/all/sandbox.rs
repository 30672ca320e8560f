//! The WebAssembly sandbox over the public API: operator guest tools from a directory
//! (`tests/data/sandbox/guests/`, WebAssembly text), the example `echo` guest built from `guest-tools/`,
//! and each way a guest can misbehave. Every case asserts the error kind and that the engine still answers.

use crate::support::{ensure, root, Outcome};
use beaker::{Engine, LimitsRequest, ToolCall, Usage};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::OnceLock;

fn guests_dir() -> PathBuf {
    root().join("tests/data/sandbox/guests")
}

/// One engine with the test guests, shared by the cases (loading compiles each module once), and the guests
/// that failed to load.
fn loaded() -> Result<&'static (Engine, Vec<String>), String> {
    static E: OnceLock<Result<(Engine, Vec<String>), String>> = OnceLock::new();
    E.get_or_init(|| {
        let catalog = beaker::Catalog::builtin()
            .without("python")
            .guest_dir(guests_dir())
            .guest_dir(echo_dir());
        let mut loaded = catalog.load().map_err(|e| e.to_string())?;
        let errors = std::mem::take(&mut loaded.load_errors);
        let engine = loaded.engine_builder().build().map_err(|e| e.to_string())?;
        Ok((engine, errors.iter().map(|e| e.to_string()).collect()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn engine() -> Result<&'static Engine, String> {
    Ok(&loaded()?.0)
}

/// A directory holding the built `echo.wasm` and its manifest from `guest-tools/examples/`.
fn echo_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("beaker-echo-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let built = PathBuf::from(beaker_python::GUEST_BUILD_DIR).join("echo.wasm");
    let _ = std::fs::copy(built, dir.join("echo.wasm"));
    let _ = std::fs::copy(
        root().join("guest-tools/examples/echo.toml"),
        dir.join("echo.toml"),
    );
    dir
}

fn call(tool: &str, limits: Value) -> Result<Value, String> {
    let limits: LimitsRequest = serde_json::from_value(limits).map_err(|e| e.to_string())?;
    let env = engine()?.call(ToolCall::new(tool, json!({"n": 1})).with_limits(limits));
    serde_json::to_value(env).map_err(|e| e.to_string())
}

fn still_serves() -> Outcome {
    let e = engine()?;
    let ok = e.call(ToolCall::new("calculator", json!({"expression": "1+1"})));
    ensure(ok.success, || "the engine stopped answering".into())?;
    let echo = e.call(ToolCall::new("echo", json!({"x": 1})));
    ensure(echo.result == Some(json!({"echo": {"x": 1}})), || {
        format!("echo after the case: {echo:?}")
    })
}

fn expect_kind(tool: &str, limits: Value, kind: &str, needle: &str) -> Outcome {
    let env = call(tool, limits)?;
    ensure(env["error_kind"] == kind, || {
        format!("expected {kind}, got {env}")
    })?;
    let msg = env["error"].as_str().unwrap_or("");
    ensure(msg.contains(needle), || {
        format!("message {msg:?} lacks {needle:?}")
    })?;
    still_serves()
}

fn bad_modules_are_reported_and_the_rest_load() -> Outcome {
    let (e, errors) = loaded()?;
    for (file, needle) in [
        ("nothing.wat", "exports no `_start`"),
        ("notwasm.wasm", "cannot load guest"),
        ("badmanifest.toml", "unknown field `timeout`"),
    ] {
        ensure(
            errors
                .iter()
                .any(|m| m.contains(file) && m.contains(needle)),
            || format!("no error naming {file} ({needle}) in {errors:#?}"),
        )?;
    }
    ensure(errors.len() == 3, || format!("{errors:#?}"))?;
    let mut names = e.sandboxed_tools();
    names.sort();
    ensure(
        names
            == [
                "echo",
                "envprobe",
                // Not a guest: the native sandbox's tool, in the same pool.
                "execute_code",
                "exit3",
                "flood",
                // Not guests: they wait on the image provider, which may take seconds, so they wait in the
                // sandbox pool, never before a cheap native call.
                "generate_gif",
                "generate_image",
                "grow",
                "recurse",
                "spin",
                "trap",
                // Not a guest either: it routes questions to symbolic_math, so it waits in the same pool.
                "wolfram",
            ],
        || format!("{names:?}"),
    )
}

fn echo_round_trips_with_usage_and_identical_fuel() -> Outcome {
    let e = engine()?;
    let params = json!({"text": "héllo", "n": [1, 2.5, null], "deep": {"a": {"b": true}}});
    let a = e.call(ToolCall::new("echo", params.clone()));
    let b = e.call(ToolCall::new("echo", params.clone()));
    ensure(a.result == Some(json!({ "echo": params })), || {
        format!("{a:?}")
    })?;
    let (ua, ub) = (a.usage.unwrap_or_default(), b.usage.unwrap_or_default());
    ensure(
        ua.fuel > 0 && ua.peak_memory_bytes > 0 && ua.output_bytes > 0,
        || format!("{ua:?}"),
    )?;
    ensure(ua.fuel == ub.fuel, || {
        format!("fuel differs between identical calls: {ua:?} {ub:?}")
    })
}

fn guest_sees_no_environment_no_files_and_a_virtual_clock() -> Outcome {
    let env = call("envprobe", json!({}))?;
    // 8 is WASI's EBADF: there is no preopened directory. The wall clock starts at 2000-01-01 and
    // advances 1 µs per read.
    ensure(
        env["result"] == json!({"env": 0, "preopen": 8, "clock_ns": 946_684_800_000_001_000u64}),
        || format!("{env}"),
    )
}

fn cancelling_a_running_guest_frees_its_worker() -> Outcome {
    let e = engine()?;
    let limits = LimitsRequest {
        timeout_ms: Some(60_000),
        max_fuel: Some(1_000_000_000_000),
        ..Default::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = e.submit(
        ToolCall::new("spin", json!({})).with_limits(limits),
        move |env| {
            let _ = tx.send(env);
        },
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    ensure(handle.cancel(), || {
        "the call finished before it was cancelled".into()
    })?;
    let env = rx
        .recv_timeout(std::time::Duration::from_secs(5))
        .map_err(|e| e.to_string())?;
    ensure(env.error_kind == Some(beaker::ErrorKind::Cancelled), || {
        format!("{env:?}")
    })?;
    // Every worker still answers: the cancelled guest stopped at its next epoch check.
    for _ in 0..e.config().workers * 2 {
        still_serves()?;
    }
    Ok(())
}

fn pool_exhaustion_queues_instead_of_failing() -> Outcome {
    use beaker_sandbox::{Run, Sandbox, SandboxConfig};
    let sandbox = Sandbox::new(SandboxConfig {
        pool_size: 2,
        max_sessions: 0,
        ..Default::default()
    })
    .map_err(|e| e.to_string())?;
    let wasm = std::fs::read(PathBuf::from(beaker_python::GUEST_BUILD_DIR).join("echo.wasm"))
        .map_err(|e| e.to_string())?;
    let guest = sandbox
        .load("echo", &wasm, false)
        .map_err(|e| e.to_string())?;
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let guest = guest.clone();
            std::thread::spawn(move || {
                let input = format!("{{\"i\": {i}}}");
                (0..20).all(|_| {
                    guest
                        .run(&Run::new(input.as_bytes(), beaker::Limits::default()))
                        .is_ok_and(|o| {
                            o.stdout
                                == format!("{{\"echo\":{input}}}")
                                    .replace(' ', "")
                                    .into_bytes()
                        })
                })
            })
        })
        .collect();
    for t in threads {
        ensure(t.join().unwrap_or(false), || {
            "a run beyond the pool size failed instead of waiting".into()
        })?;
    }
    Ok(())
}

fn resident_memory_kb() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4)
}

/// 1,000 sequential guest calls leave resident memory within 64 MiB of where it was after a warm-up:
/// instances, stores and captured output are all released.
fn thousand_calls_do_not_grow_memory() -> Outcome {
    let e = engine()?;
    let run = |n: usize| -> Outcome {
        for i in 0..n {
            let env = e.call(ToolCall::new(
                "echo",
                json!({"i": i, "pad": "x".repeat(4096)}),
            ));
            ensure(env.success, || format!("{env:?}"))?;
        }
        Ok(())
    };
    run(100)?;
    let before = resident_memory_kb();
    run(1_000)?;
    let after = resident_memory_kb();
    ensure(after <= before + 64 * 1024, || {
        format!("resident memory grew from {before} KiB to {after} KiB over 1,000 calls")
    })
}

fn usage_is_reported_on_failure() -> Outcome {
    let env = call("spin", json!({"max_fuel": 1_000_000}))?;
    let usage: Usage = serde_json::from_value(env["usage"].clone()).map_err(|e| e.to_string())?;
    ensure(usage.fuel == 1_000_000, || format!("{env}"))
}

/// `beaker tools --guest-dir` lists the loaded guests and names the broken files on stderr (exit 0);
/// `beaker compile` loads the same and exits 1 because some failed.
fn cli_lists_guest_tools_and_reports_broken_ones() -> Outcome {
    let dir = guests_dir();
    let out = crate::support::beaker()
        .args(["tools", "--no-python", "--guest-dir"])
        .arg(&dir)
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure(out.status.success(), || {
        format!("{:?} {stderr}", out.status)
    })?;
    ensure(stdout.lines().any(|l| l.starts_with("trap ")), || {
        stdout.to_string()
    })?;
    // Other tools' descriptions may name it (write_file's workspace is execute_python's folder); no line lists it.
    ensure(
        !stdout.lines().any(|l| l.starts_with("execute_python")),
        || "--no-python still listed Python".into(),
    )?;
    ensure(
        stderr.contains("nothing.wat")
            && stderr.contains("notwasm.wasm")
            && stderr.contains("badmanifest.toml"),
        || stderr.to_string(),
    )?;
    let out = crate::support::beaker()
        .args(["compile", "--no-python", "--guest-dir"])
        .arg(&dir)
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure(
        out.status.code() == Some(1) && stdout.contains("11 sandboxed tools"),
        || format!("{:?} {stdout}", out.status),
    )
}

/// `beaker compile` says whether the interpreter it compiled answers: exit 0 and one call's word on it when the
/// runtime is there; exit 1 naming why when it is not (it once listed execute_python as compiled, exit 0, with
/// only a log line saying the snapshot had failed).
fn compile_says_whether_python_answers() -> Outcome {
    let out = crate::support::beaker()
        .arg("compile")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure(
        out.status.success() && stdout.contains("execute_python: the CPython snapshot answers"),
        || format!("{:?} {stdout} {stderr}", out.status),
    )?;
    let empty = std::env::temp_dir().join(format!("beaker-no-python-{}", std::process::id()));
    std::fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
    let out = crate::support::beaker()
        .arg("compile")
        .env("BEAKER_PYTHON_DIR", &empty)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&empty);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure(
        out.status.code() == Some(1) && stderr.contains("error: execute_python is unavailable"),
        || format!("{:?} {stderr}", out.status),
    )
}

/// `beaker serve --guest-dir`: a trapping guest answers tool_error and the server keeps serving.
fn serve_with_guest_dir() -> Outcome {
    let dir = guests_dir();
    let dir = dir.to_string_lossy();
    let mut server = crate::support::Server::start(&["--no-python", "--guest-dir", &dir]);
    server.send(&json!({"id": 1, "tool": "trap", "params": {}}));
    let r = server.recv();
    ensure(
        r["error_kind"] == "tool_error" && r["usage"]["fuel"].is_u64(),
        || format!("{r}"),
    )?;
    server.send(&json!({"id": 2, "tool": "envprobe", "params": {}}));
    let r = server.recv();
    ensure(r["result"]["env"] == 0, || format!("{r}"))?;
    let (rest, status) = server.finish();
    ensure(rest.is_empty() && status.success(), || {
        format!("{rest:?} {status:?}")
    })
}

pub fn trials() -> Vec<Trial> {
    let kinds: Vec<(&str, &str, Value, &str, &str)> = vec![
        ("trap", "trap", json!({}), "tool_error", "unreachable"),
        (
            "exit_status_and_stderr",
            "exit3",
            json!({}),
            "tool_error",
            "bad request",
        ),
        (
            "infinite_loop_on_fuel",
            "spin",
            json!({"max_fuel": 1_000_000}),
            "limit_exceeded",
            "max_fuel",
        ),
        (
            "infinite_loop_on_deadline",
            "spin",
            json!({"max_fuel": 1_000_000_000_000u64, "timeout_ms": 100}),
            "timeout",
            "100 ms",
        ),
        (
            "memory_growth",
            "grow",
            json!({"max_memory_bytes": 16 << 20}),
            "limit_exceeded",
            "max_memory_bytes",
        ),
        (
            "stack_overflow",
            "recurse",
            json!({}),
            "limit_exceeded",
            "stack",
        ),
        (
            "output_flood_is_capped_then_ends_on_fuel",
            "flood",
            json!({"max_fuel": 50_000_000}),
            "limit_exceeded",
            "fuel",
        ),
    ];
    let mut trials: Vec<Trial> = kinds
        .into_iter()
        .map(|(name, tool, limits, kind, needle)| {
            Trial::test(format!("sandbox::{name}"), move || {
                expect_kind(tool, limits.clone(), kind, needle)
            })
        })
        .collect();
    trials.extend([
        Trial::test(
            "sandbox::bad_modules_are_reported_and_the_rest_load",
            bad_modules_are_reported_and_the_rest_load,
        ),
        Trial::test(
            "sandbox::echo_round_trips_with_usage_and_identical_fuel",
            echo_round_trips_with_usage_and_identical_fuel,
        ),
        Trial::test(
            "sandbox::guest_sees_no_environment_no_files_and_a_virtual_clock",
            guest_sees_no_environment_no_files_and_a_virtual_clock,
        ),
        Trial::test(
            "sandbox::cancelling_a_running_guest_frees_its_worker",
            cancelling_a_running_guest_frees_its_worker,
        ),
        Trial::test(
            "sandbox::pool_exhaustion_queues_instead_of_failing",
            pool_exhaustion_queues_instead_of_failing,
        ),
        Trial::test(
            "sandbox::thousand_calls_do_not_grow_memory",
            thousand_calls_do_not_grow_memory,
        ),
        Trial::test(
            "sandbox::usage_is_reported_on_failure",
            usage_is_reported_on_failure,
        ),
        Trial::test(
            "sandbox::cli_lists_guest_tools_and_reports_broken_ones",
            cli_lists_guest_tools_and_reports_broken_ones,
        ),
        Trial::test("sandbox::serve_with_guest_dir", serve_with_guest_dir),
        Trial::test(
            "sandbox::compile_says_whether_python_answers",
            compile_says_whether_python_answers,
        ),
    ]);
    trials
}
