//! The calculator against independent references (`tests/data/calculator/reference.jsonl`, written by
//! `tests/data/gen/calculator_reference.py` with Python's fractions/decimal and mpmath), through every
//! backend: the exact evaluator via the embedding API, the f64 evaluator, and `beaker serve`.

use crate::support::{ensure, jsonl, Outcome, Server};
use beaker::{Engine, ToolCall};
use beaker_expr::{parse, ParseLimits};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::sync::OnceLock;

const REFERENCE: &str = "tests/data/calculator/reference.jsonl";

/// f64 evaluator tolerance: relative 1e-12 (absolute near zero); Python's libm and Rust's may differ by ulps.
const F64_TOL: f64 = 1e-12;

fn engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| beaker::engine().expect("engine"))
}

fn params(case: &Value) -> Value {
    let mut p = json!({"expression": case["expression"]});
    if !case["precision"].is_null() {
        p["precision"] = case["precision"].clone();
    }
    p
}

/// Compares one envelope with the reference case.
fn check(case: &Value, env: &Value) -> Outcome {
    let label = || format!("{} (precision {})", case["expression"], case["precision"]);
    if let Some(kind) = case.get("error_kind") {
        return ensure(
            env["success"] == false && env["error_kind"] == *kind,
            || format!("{}: expected error {kind}, got {env}", label()),
        );
    }
    let r = &env["result"];
    ensure(env["success"] == true, || {
        format!("{}: expected success, got {env}", label())
    })?;
    ensure(r["value"] == case["value"], || {
        format!(
            "{}: value {} != reference {}",
            label(),
            r["value"],
            case["value"]
        )
    })?;
    ensure(r["exact"] == case["exact"], || {
        format!(
            "{}: exact {} != reference {}",
            label(),
            r["exact"],
            case["exact"]
        )
    })?;
    let fraction = r.get("fraction").cloned().unwrap_or(Value::Null);
    ensure(fraction == case["fraction"], || {
        format!(
            "{}: fraction {fraction} != reference {}",
            label(),
            case["fraction"]
        )
    })
}

fn check_f64(case: &Value, expected: f64) -> Outcome {
    let src = case["expression"].as_str().unwrap_or_default();
    let compiled = parse(src, ParseLimits::default())
        .and_then(|e| e.compile_f64(&[]))
        .map_err(|e| format!("{src}: {e}"))?;
    let got = compiled.eval(&[]);
    let err = (got - expected).abs() / expected.abs().max(1.0);
    ensure(err <= F64_TOL, || {
        format!("{src}: f64 evaluator gave {got:e}, Python float gives {expected:e}")
    })
}

pub fn trials() -> Vec<Trial> {
    let cases = jsonl(REFERENCE);
    let mut trials = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = format!(
            "calculator::reference::{i:03}_{}",
            case["expression"].as_str().unwrap_or("?")
        );
        let c = case.clone();
        trials.push(Trial::test(name.clone(), move || {
            let env = engine().call(ToolCall::new("calculator", params(&c)));
            check(&c, &serde_json::to_value(env).map_err(|e| e.to_string())?)
        }));
        if let Some(x) = case.get("f64").and_then(Value::as_f64) {
            let c = case.clone();
            trials.push(Trial::test(format!("{name}::f64"), move || {
                check_f64(&c, x)
            }));
        }
    }
    trials.push(Trial::test(
        "calculator::reference_through_serve_concurrently",
        move || {
            // Every case at once through `beaker serve`: answers come back out of order, matched by id.
            let mut server = Server::start(&[]);
            for (i, case) in cases.iter().enumerate() {
                server.send(&json!({"id": i, "tool": "calculator", "params": params(case)}));
            }
            let (responses, status) = server.finish();
            ensure(status.success(), || format!("serve exited with {status}"))?;
            ensure(responses.len() == cases.len(), || {
                format!("{} responses for {} requests", responses.len(), cases.len())
            })?;
            let mut seen = vec![false; cases.len()];
            for env in &responses {
                let i = env["id"].as_u64().ok_or("response without a numeric id")? as usize;
                ensure(!seen[i], || format!("two responses for id {i}"))?;
                seen[i] = true;
                check(&cases[i], env)?;
            }
            Ok(())
        },
    ));
    trials.push(Trial::test("calculator::covers_the_svend_examples", || {
        let cases = jsonl(REFERENCE);
        for (expr, precision) in [("7 * 8", Value::Null), ("sqrt(2)", json!(15))] {
            ensure(
                cases
                    .iter()
                    .any(|c| c["expression"] == expr && c["precision"] == precision),
                || format!("the reference data lacks the seed example {expr}"),
            )?;
        }
        ensure(cases.len() >= 300, || {
            format!("only {} reference cases", cases.len())
        })
    }));
    trials
}
