//! Hostile and careless input to every native tool (`tests/data/{calculator,units,plotter,statistics}/adversarial.jsonl`):
//! each gives its exact `error_kind` (or its result), and the engine keeps serving afterwards.

use crate::support::{ensure, jsonl, Outcome};
use beaker::{Engine, LimitsRequest, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn run(engine: &Engine, case: &Value) -> Outcome {
    let mut params = case["params"].clone();
    // Generated inputs too long to keep literally in the data file.
    if let Some(g) = case.get("generate") {
        let n = g["repeat"].as_u64().unwrap_or(0) as usize;
        let s = format!(
            "{}{}{}",
            g["prefix"].as_str().unwrap_or("").repeat(n),
            g["middle"].as_str().unwrap_or(""),
            g["suffix"].as_str().unwrap_or("").repeat(n)
        );
        let field = g["field"].as_str().unwrap_or("expression");
        params[field] = Value::String(s);
    }
    // Generated arrays: `{"path": "/data/y", "repeat": n, "item": v}` puts n copies of v at path
    // (`generate_arrays` holds several).
    let mut gens: Vec<&Value> = case.get("generate_array").into_iter().collect();
    if let Some(Value::Array(more)) = case.get("generate_arrays") {
        gens.extend(more);
    }
    for a in gens {
        let n = a["repeat"].as_u64().unwrap_or(0) as usize;
        let items = Value::Array(vec![a["item"].clone(); n]);
        let path = a["path"].as_str().unwrap_or("");
        *params
            .pointer_mut(path)
            .ok_or(format!("no {path} in params"))? = items;
    }
    let limits: LimitsRequest =
        serde_json::from_value(case.get("limits").cloned().unwrap_or(json!({})))
            .map_err(|e| format!("bad limits in case: {e}"))?;
    let tool = case["tool"].as_str().unwrap_or("calculator");
    let env = engine.call(ToolCall::new(tool, params).with_limits(limits));
    let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
    match case.get("error_kind") {
        Some(kind) => ensure(env["error_kind"] == *kind, || {
            format!("expected {kind}, got {env}")
        })?,
        None if case.get("value_check") == Some(&json!("array")) => {
            ensure(env["result"]["value"].is_array(), || {
                format!("expected an array, got {}", env["error"])
            })?
        }
        None if case.get("result_keys").is_some() => {
            let keys = case["result_keys"].as_array().cloned().unwrap_or_default();
            for k in keys {
                let k = k.as_str().unwrap_or_default();
                ensure(env["result"].get(k).is_some(), || {
                    format!("expected `{k}` in the result, got {}", env["error"])
                })?;
            }
        }
        None => ensure(env["result"]["value"] == case["value"], || {
            format!("expected {}, got {env}", case["value"])
        })?,
    }
    if let Some(needle) = case.get("message_contains").and_then(Value::as_str) {
        let msg = env["error"].as_str().unwrap_or("");
        ensure(msg.contains(needle), || {
            format!("message {msg:?} lacks {needle:?}")
        })?;
    }
    // The engine still answers.
    let ok = engine.call(ToolCall::new("calculator", json!({"expression": "1+1"})));
    ensure(ok.success, || "the engine stopped answering".into())
}

pub fn trials() -> Vec<Trial> {
    [
        "tests/data/calculator/adversarial.jsonl",
        "tests/data/units/adversarial.jsonl",
        "tests/data/plotter/adversarial.jsonl",
        "tests/data/statistics/adversarial.jsonl",
    ]
    .into_iter()
    .flat_map(jsonl)
    .map(|case| {
        let name = format!("adversarial::{}", case["name"].as_str().unwrap_or("?"));
        Trial::test(name, move || {
            let engine = Engine::new().map_err(|e| e.to_string())?;
            run(&engine, &case)
        })
    })
    .collect()
}
