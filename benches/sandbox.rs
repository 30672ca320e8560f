//! Sandbox cost per call, and throughput:
//! - `empty_guest`: instantiate + run + tear down a WebAssembly module whose `_start` returns at once;
//! - `echo_guest`: the Rust `echo` guest from `guest-tools/` (params JSON in, result JSON out);
//! - `execute_python_*`: through the `execute_python` tool (a fresh instance of the snapshotted CPython per
//!   call): `print(2**100)`, a numpy 2×2 solve, sympy's `integrate(x**2*sin(x), x)`, 29 `Fraction`s; and
//!   `execute_python_session_turn`, a numpy solve as one turn of a `session` (the same interpreter across calls);
//! - `python3_*`: the same programs in a fresh native process, `$BEAKER_BENCH_PYTHON -c ...` (default
//!   `python3`; it needs numpy and sympy for the last two, else they are skipped), which is what
//!   SandboxFusion does per request, measured in the same run;
//! - after criterion: calls per second of `execute_python` and of `echo` through the engine with every core
//!   busy. Figures in docs/PERFORMANCE.md.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Engine, Limits, ToolCall};
use beaker_sandbox::{declare_thread_stack, Run, Sandbox};
use criterion::Criterion;
use serde_json::json;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The programs timed in the sandbox and natively (each prints or ends in the value it computes).
const PROGRAMS: [(&str, &str); 4] = [
    ("print", "print(2**100)"),
    (
        "numpy_solve",
        "import numpy as np\nprint(np.linalg.solve([[3, 1], [1, 2]], [9, 8]))",
    ),
    (
        "sympy_integrate",
        "import sympy as sp\nx = sp.symbols('x')\nprint(sp.integrate(x**2 * sp.sin(x), x))",
    ),
    (
        "fractions",
        "from fractions import Fraction\nprint(sum(Fraction(1, n) for n in range(1, 30)))",
    ),
];

const EMPTY: &str = r#"(module (func (export "_start")) (memory (export "memory") 1))"#;

fn bench(c: &mut Criterion) {
    let sandbox = Sandbox::shared().expect("sandbox");
    let limits = Limits::default();
    let mut g = c.benchmark_group("sandbox");

    let empty = sandbox
        .load("empty", EMPTY.as_bytes(), false)
        .expect("empty guest");
    g.bench_function("empty_guest", |b| {
        b.iter(|| empty.run(&Run::new(black_box(b""), limits)).expect("run"))
    });

    let wasm = std::fs::read(PathBuf::from(beaker_python::GUEST_BUILD_DIR).join("echo.wasm"))
        .expect("echo.wasm");
    let echo = sandbox.load("echo", &wasm, false).expect("echo guest");
    let input = br#"{"x": 1, "text": "hello"}"#;
    g.bench_function("echo_guest", |b| {
        b.iter(|| echo.run(&Run::new(black_box(input), limits)).expect("run"))
    });

    let tools = beaker_python::tools(&sandbox).expect("python tools");
    let py = &tools[0];
    let ctx = CallContext::new(limits);
    g.sample_size(50);
    for (name, code) in PROGRAMS {
        let params = json!({ "code": code });
        assert!(
            py.call(&params, &ctx).is_ok(),
            "{name}: execute_python failed"
        );
        g.bench_function(format!("execute_python_{name}"), |b| {
            b.iter(|| py.call(black_box(&params), &ctx).expect("call"))
        });
    }
    // A session turn: the same interpreter across calls (variables carry over), against a fresh one per call.
    let first = json!({"code": "import numpy as np\nn = 0", "session": "bench"});
    assert!(py.call(&first, &ctx).is_ok(), "a session opens");
    let turn =
        json!({"code": "n += 1\nnp.linalg.solve([[3, 1], [1, 2]], [9, n])", "session": "bench"});
    assert!(
        py.call(&turn, &ctx).is_ok(),
        "session_turn: execute_python failed"
    );
    g.bench_function("execute_python_session_turn", |b| {
        b.iter(|| py.call(black_box(&turn), &ctx).expect("call"))
    });
    g.sample_size(10);
    let python = std::env::var("BEAKER_BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
    for (name, code) in PROGRAMS {
        let native = |code: &str| {
            std::process::Command::new(&python)
                .args(["-c", code])
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        };
        if !native(code) {
            eprintln!("skipping python3_{name}: `{python} -c` cannot run it");
            continue;
        }
        g.bench_function(format!("python3_{name}"), |b| {
            b.iter(|| native(black_box(code)))
        });
    }
    g.finish();
}

/// Calls per second through the engine with one client thread per worker, for `secs` seconds.
fn throughput(engine: &Engine, tool: &str, params: serde_json::Value, secs: u64) -> f64 {
    let threads = engine.config().workers * 2;
    let deadline = Instant::now() + Duration::from_secs(secs);
    let started = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let engine = engine.clone();
            let params = params.clone();
            let tool = tool.to_string();
            std::thread::spawn(move || {
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let env = engine.call(ToolCall::new(tool.as_str(), params.clone()));
                    assert!(env.success, "{env:?}");
                    n += 1;
                }
                n
            })
        })
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
    total as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    // Guests run on the calling thread when it declares enough stack (criterion's main thread does not).
    let runner = std::thread::Builder::new()
        .stack_size(32 << 20)
        .spawn(|| {
            declare_thread_stack(32 << 20);
            let mut c = Criterion::default().configure_from_args();
            bench(&mut c);
            c.final_summary();
        })
        .expect("thread");
    runner.join().expect("bench thread");
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let dir = std::env::temp_dir().join("beaker-bench-guests");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::copy(
        PathBuf::from(beaker_python::GUEST_BUILD_DIR).join("echo.wasm"),
        dir.join("echo.wasm"),
    )
    .expect("copy echo");
    std::fs::copy("guest-tools/examples/echo.toml", dir.join("echo.toml")).expect("copy manifest");
    let engine = beaker::Catalog::builtin()
        .guest_dir(&dir)
        .engine()
        .expect("engine");
    let workers = engine.config().workers;
    let py = throughput(
        &engine,
        "execute_python",
        json!({"code": "print(2**100)"}),
        5,
    );
    let echo = throughput(&engine, "echo", json!({"x": 1}), 5);
    println!(
        "throughput ({workers} workers, {} client threads, 5 s each):",
        workers * 2
    );
    println!("  execute_python print(2**100): {py:.0} calls/s");
    println!("  echo guest:                   {echo:.0} calls/s");
}
