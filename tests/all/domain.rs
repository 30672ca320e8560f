//! The domain tools against `tests/data/FAMILY/reference.jsonl`: values from independent
//! references (molmass, mendeleev, chempy, mpmath closed forms, Pint for unit strings), written by the
//! generators in `tests/data/gen/`, each case with its own `rtol`/`atol`, compared by `support::compare`.

use crate::conformance::engine;
use crate::support::{compare, jsonl};
use beaker::ToolCall;
use libtest_mimic::{Failed, Trial};
use serde_json::Value;

fn case(c: &Value) -> Result<(), Failed> {
    let tool = c["tool"].as_str().ok_or("a case without `tool`")?;
    let env = engine()?.call(ToolCall::new(tool, c["params"].clone()));
    let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
    if let Some(kind) = c["error_kind"].as_str() {
        if env["success"] == true || env["error_kind"] != kind {
            return Err(format!("want error_kind {kind}, got {env}").into());
        }
        return Ok(());
    }
    if env["success"] != true {
        return Err(format!("the call failed: {env}").into());
    }
    let rtol = c["rtol"].as_f64().unwrap_or(0.0);
    let atol = c["atol"].as_f64().unwrap_or(0.0);
    compare(&env["result"], &c["expected"], rtol, atol, "result").map_err(|e| {
        Failed::from(format!(
            "{e}\n  params: {}\n  source: {}",
            c["params"], c["source"]
        ))
    })
}

/// One trial per reference case of each family.
pub fn trials() -> Vec<Trial> {
    ["chemistry", "physics"]
        .into_iter()
        .flat_map(|family| {
            jsonl(&format!("tests/data/{family}/reference.jsonl"))
                .into_iter()
                .map(move |c| {
                    let name = format!(
                        "{family}::reference::{}",
                        c["name"].as_str().unwrap_or("unnamed")
                    );
                    Trial::test(name, move || case(&c))
                })
        })
        .collect()
}
