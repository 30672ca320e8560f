//! `execute_python` and `code_test`:
//! - `tests/data/python/programs/*.py` against what CPython printed and returned
//!   (`tests/data/python/expected.jsonl`, written by `tests/data/gen/python_reference.py`);
//! - `tests/data/python/adversarial.jsonl`: hostile code, each with its error kind or the result fields it
//!   must have, and the engine answering afterwards;
//! - determinism: the same call gives the same bytes, a different seed different random numbers.

use crate::support::{ensure, jsonl, root, Outcome};
use beaker::{Engine, LimitsRequest, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::sync::OnceLock;

fn engine() -> Result<&'static Engine, String> {
    static E: OnceLock<Result<Engine, String>> = OnceLock::new();
    E.get_or_init(|| Engine::new().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

fn run(tool: &str, params: Value, limits: Value) -> Result<Value, String> {
    let limits: LimitsRequest = serde_json::from_value(limits).map_err(|e| e.to_string())?;
    let env = engine()?.call(ToolCall::new(tool, params).with_limits(limits));
    serde_json::to_value(env).map_err(|e| e.to_string())
}

/// Exception messages RustPython words differently from CPython (the type and line still match); also listed
/// in `crates/beaker-python/src/execute_python.md`.
const KNOWN_MESSAGE_DIFFERENCES: &[(&str, &str)] = &[(
    "zero_division_nested",
    "`10 // 0`: RustPython says `division by zero`, CPython `integer division or modulo by zero`",
)];

/// Programs CPython 3 ran; RustPython must print and return the same.
fn program(case: &Value) -> Outcome {
    let name = case["name"].as_str().unwrap_or_default();
    let code =
        std::fs::read_to_string(root().join(format!("tests/data/python/programs/{name}.py")))
            .map_err(|e| e.to_string())?;
    let env = run(
        "execute_python",
        json!({"code": code, "stdin": case["stdin"]}),
        json!({}),
    )?;
    ensure(env["success"] == true, || format!("{env}"))?;
    let r = &env["result"];
    for key in ["stdout", "stderr", "result"] {
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
            let known = KNOWN_MESSAGE_DIFFERENCES.iter().any(|(n, _)| *n == name);
            if let Some(m) = want.get("message").filter(|_| !known) {
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

/// A hostile or careless call: its error kind, or fields its result must have; then the engine answers.
fn adversarial(case: &Value) -> Outcome {
    let mut params = case["params"].clone();
    if let Some(g) = case.get("generate") {
        let n = g["repeat"].as_u64().unwrap_or(0) as usize;
        let field = g["field"].as_str().unwrap_or("code");
        params[field] = Value::String(g["text"].as_str().unwrap_or("").repeat(n));
    }
    if let Some(g) = case.get("generate_array") {
        let n = g["repeat"].as_u64().unwrap_or(0) as usize;
        let field = g["field"].as_str().unwrap_or("tests");
        params[field] = Value::Array(vec![g["item"].clone(); n]);
    }
    let tool = case["tool"].as_str().unwrap_or("execute_python");
    let env = run(
        tool,
        params,
        case.get("limits").cloned().unwrap_or(json!({})),
    )?;
    match case.get("error_kind") {
        Some(kind) => ensure(env["error_kind"] == *kind, || {
            format!("expected {kind}, got {env}")
        })?,
        None => ensure(env["success"] == true, || {
            format!("expected success, got {env}")
        })?,
    }
    if let Some(needle) = case.get("message_contains").and_then(Value::as_str) {
        let msg = env["error"].as_str().unwrap_or("");
        ensure(msg.contains(needle), || {
            format!("message {msg:?} lacks {needle:?}")
        })?;
    }
    // `result`: JSON pointers into the result and the values they must have.
    if let Some(Value::Object(want)) = case.get("result") {
        for (ptr, v) in want {
            let got = env["result"].pointer(ptr).cloned().unwrap_or(Value::Null);
            ensure(got == *v, || {
                format!("result{ptr}: expected {v}, got {got} (in {env})")
            })?;
        }
    }
    // `exception_in`: the uncaught exception's type is one of these.
    if let Some(Value::Array(types)) = case.get("exception_in") {
        let got = &env["result"]["exception"]["type"];
        ensure(types.contains(got), || {
            format!("exception {got} not in {types:?} ({env})")
        })?;
    }
    let ok = run("execute_python", json!({"code": "6 * 7"}), json!({}))?;
    ensure(ok["result"]["result"] == "42", || {
        format!("the Python tool stopped answering: {ok}")
    })?;
    let calc = engine()?.call(ToolCall::new("calculator", json!({"expression": "1+1"})));
    ensure(calc.success, || "the engine stopped answering".into())
}

fn same_call_same_bytes_and_seeds_matter() -> Outcome {
    let e = engine()?;
    let code = "import random, time\n[random.random() for _ in range(3)], time.time(), hash('abc') == hash('abc')";
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
    ensure(a.result != c.result, || {
        format!("seeds 1 and 2 gave the same random numbers: {a:?}")
    })
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
    let mut trials: Vec<Trial> = jsonl("tests/data/python/expected.jsonl")
        .into_iter()
        .map(|case| {
            let name = format!("python::program::{}", case["name"].as_str().unwrap_or("?"));
            Trial::test(name, move || program(&case))
        })
        .collect();
    trials.extend(
        jsonl("tests/data/python/adversarial.jsonl")
            .into_iter()
            .map(|case| {
                let name = format!(
                    "python::adversarial::{}",
                    case["name"].as_str().unwrap_or("?")
                );
                Trial::test(name, move || adversarial(&case))
            }),
    );
    trials.extend([
        Trial::test(
            "python::same_call_same_bytes_and_seeds_matter",
            same_call_same_bytes_and_seeds_matter,
        ),
        Trial::test("python::code_test_isolates_tests", code_test_isolates_tests),
        Trial::test(
            "python::code_test_reports_broken_code_on_every_test",
            code_test_reports_broken_code_on_every_test,
        ),
    ]);
    trials
}
