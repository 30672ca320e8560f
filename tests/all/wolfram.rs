//! `wolfram`: every question of tests/data/wolfram/questions.jsonl (written by tests/data/gen/
//! wolfram_reference.py from mpmath, SymPy, Pint, scipy.constants, astropy, ERFA and chemicals) answered within
//! the case's tolerance through the whole engine; questions it cannot read refused with what it can answer;
//! and the WolframAlpha LLM API as the live provider, against a local server speaking its format, over the
//! binary.

use crate::support::{beaker, ensure, json_server, jsonl, Outcome};
use beaker::{Catalog, Engine, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::sync::OnceLock;

pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test("wolfram::unread_questions_list_what_it_answers", unread),
        Trial::test(
            "wolfram::the_live_provider_answers_what_no_route_reads",
            live,
        ),
        Trial::test(
            "wolfram::without_symbolic_math_calculus_is_refused_by_name",
            no_python,
        ),
    ];
    for case in jsonl("tests/data/wolfram/questions.jsonl") {
        let name = format!(
            "wolfram::questions::{}",
            case["query"].as_str().unwrap_or("?")
        );
        trials.push(Trial::test(name, move || question(&case)));
    }
    trials
}

/// One engine with every built-in tool, shared by the questions.
fn engine() -> Result<&'static Engine, String> {
    static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| Catalog::builtin().engine().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(Clone::clone)
}

fn call(tool: &str, params: Value) -> Result<Value, String> {
    let env = engine()?.call(ToolCall::new(tool, params.clone()));
    match env.result {
        Some(r) => Ok(r),
        None => Err(format!("{tool} {params}: {:?}", env.error)),
    }
}

fn close(got: f64, want: f64, rtol: f64) -> bool {
    got == want || (got - want).abs() <= rtol * want.abs()
}

/// `expression` evaluated at `variable = point` by symbolic_math (to 20 digits).
fn at(expression: &str, variable: &str, point: f64) -> Result<f64, String> {
    let mut params = json!({"operation": "evaluate", "expression": expression, "precision": 20});
    // A constant (a solution, `1`) has no variable to substitute.
    if expression.contains(variable) {
        params["substitutions"] = json!({variable: point});
    }
    let r = call("symbolic_math", params)?;
    let text = r["decimal"].as_str().or(r["result"].as_str()).unwrap_or("");
    text.parse::<f64>()
        .map_err(|e| format!("{expression} at {variable}={point}: {r} ({e})"))
}

fn question(case: &Value) -> Outcome {
    let mut params = json!({"query": case["query"]});
    if let Some(f) = case.get("format") {
        params["format"] = f.clone();
    }
    let r = call("wolfram", params)?;
    let rtol = case["rtol"].as_f64().unwrap_or(0.0);
    if let Some(want) = case["number"].as_f64() {
        let got = r["number"]
            .as_f64()
            .ok_or_else(|| format!("no number: {r}"))?;
        ensure(close(got, want, rtol), || {
            format!("{got} != {want} (rtol {rtol}): {r}")
        })?;
    }
    if let Some(unit) = case["unit"].as_str() {
        ensure(r["unit"] == unit, || format!("unit: {r}"))?;
    }
    if let Some(text) = case["text"].as_str() {
        ensure(r["value"] == text, || format!("want {text:?}: {r}"))?;
    }
    if let Some(want) = case["solutions"].as_array() {
        let value = r["value"].as_str().unwrap_or("");
        let mut got = Vec::new();
        for s in value.split(", ").filter(|s| !s.is_empty()) {
            got.push(at(s, "x", 0.0)?);
        }
        got.sort_by(f64::total_cmp);
        let want: Vec<f64> = want.iter().filter_map(Value::as_f64).collect();
        ensure(
            got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(g, w)| close(*g, *w, rtol) || (g - w).abs() < 1e-15),
            || format!("solutions {got:?} != {want:?}: {r}"),
        )?;
    }
    if let Some(s) = case.get("samples") {
        let v = s["variable"].as_str().unwrap_or("x");
        let expression = r["value"]
            .as_str()
            .ok_or_else(|| format!("no value: {r}"))?;
        let points: Vec<f64> = s["points"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        let want: Vec<f64> = s["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_f64)
            .collect();
        let mut got = Vec::new();
        for p in &points {
            got.push(at(expression, v, *p)?);
        }
        // An antiderivative is one up to a constant: its differences from the first point are compared.
        let (got, want): (Vec<f64>, Vec<f64>) = if s["up_to_constant"] == true {
            (
                got.iter().map(|g| g - got[0]).skip(1).collect(),
                want.iter().map(|w| w - want[0]).skip(1).collect(),
            )
        } else {
            (got, want)
        };
        ensure(
            got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| close(*g, *w, rtol)),
            || format!("{expression}: {got:?} != {want:?}"),
        )?;
    }
    if let Some(n) = case["steps"].as_u64() {
        let steps = r["steps"].as_array().map_or(0, Vec::len) as u64;
        ensure(steps == n, || format!("{steps} steps, want {n}: {r}"))?;
    }
    for want in case["steps_contain"].as_array().into_iter().flatten() {
        let want = want.as_str().unwrap_or("");
        let has = (r["steps"].as_array().into_iter().flatten())
            .any(|s| s.as_str().is_some_and(|s| s.contains(want)));
        ensure(has, || format!("no step with {want:?}: {}", r["steps"]))?;
    }
    if let Some(n) = case["calls"].as_u64() {
        let calls = r["calls"].as_array().map_or(0, Vec::len) as u64;
        ensure(calls == n, || format!("{calls} calls, want {n}: {r}"))?;
    }
    ensure(r["source"].as_str().is_some_and(|s| !s.is_empty()), || {
        format!("no source: {r}")
    })
}

fn unread() -> Outcome {
    for q in [
        "who won the 1998 world cup",
        "population of France",
        "factor 360",
        "what is love",
    ] {
        let env = engine()?.call(ToolCall::new("wolfram", json!({"query": q})));
        let kind = env.error_kind.map(|k| k.as_str());
        let e = env
            .error
            .ok_or_else(|| format!("{q}: answered {:?}", env.result))?;
        let listed =
            e.contains("It answers arithmetic") || q == "factor 360" && e.contains("factorint");
        ensure(kind == Some("invalid_params") && listed, || {
            format!("{q}: {e}")
        })?;
    }
    Ok(())
}

/// What the WolframAlpha LLM API answers (its documented plain-text form), by its `input`.
fn fake_llm_api(request: &str) -> (u16, String) {
    if !request.contains("appid=TEST-APPID") {
        return (403, "Error 1: Invalid appid".into());
    }
    if request.contains("input=population+of+France")
        || request.contains("input=population%20of%20France")
    {
        return (
            200,
            "Query:\n\"population of France\"\n\nInput interpretation:\nFrance | population\n\nResult:\n68.4 million people (world rank: 21st) (2024 estimate)\n\nWolfram|Alpha website result for \"population of France\":\nhttps://www.wolframalpha.com/input?i=population+of+France\n".into(),
        );
    }
    (
        501,
        "Wolfram|Alpha did not understand your input\n\nThings to try instead:\nfrance".into(),
    )
}

fn live() -> Outcome {
    let url = json_server(fake_llm_api)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let run = |appid: &str, params: &str| -> Result<Value, String> {
        let config = dir.path().join(format!("{appid}.toml"));
        std::fs::write(
            &config,
            format!(
                "[wolfram.provider]\nappid = \"{appid}\"\nurl = \"{url}\"\ntimeout_ms = 5000\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let out = beaker()
            .args(["call", "--config"])
            .arg(&config)
            .args(["wolfram", params])
            .output()
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))
    };
    let r = run("TEST-APPID", r#"{"query": "population of France"}"#)?;
    ensure(
        r["result"]["value"] == "68.4 million people (world rank: 21st) (2024 estimate)"
            && r["result"]["route"] == "wolframalpha"
            && r["result"]["interpretation"] == "France | population"
            && r["result"].get("text").is_none(),
        || format!("{r}"),
    )?;
    let full = run(
        "TEST-APPID",
        r#"{"query": "population of France", "format": "full"}"#,
    )?;
    ensure(
        full["result"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Wolfram|Alpha website result")),
        || format!("{full}"),
    )?;
    // What the offline routes read is answered offline, without asking.
    let offline = run("TEST-APPID", r#"{"query": "60 mph to km/h"}"#)?;
    ensure(offline["result"]["route"] == "unit_converter", || {
        format!("{offline}")
    })?;
    let not_understood = run("TEST-APPID", r#"{"query": "frobnicate the flux"}"#)?;
    ensure(
        not_understood["error_kind"] == "invalid_params"
            && not_understood["error"]
                .as_str()
                .is_some_and(|e| e.contains("did not understand")),
        || format!("{not_understood}"),
    )?;
    let refused = run("WRONG", r#"{"query": "population of France"}"#)?;
    ensure(
        refused["error_kind"] == "tool_error"
            && refused["error"].as_str().is_some_and(|e| e.contains("403")),
        || format!("{refused}"),
    )
}

fn no_python() -> Outcome {
    let e = Catalog::builtin()
        .without("python")
        .engine()
        .map_err(|e| e.to_string())?;
    let env = e.call(ToolCall::new(
        "wolfram",
        json!({"query": "integral of x^2 from 0 to 1"}),
    ));
    let err = env
        .error
        .ok_or_else(|| format!("answered {:?}", env.result))?;
    ensure(err.contains("symbolic_math"), || err.clone())?;
    // The rest still answers.
    let env = e.call(ToolCall::new("wolfram", json!({"query": "speed of light"})));
    ensure(
        env.result
            .is_some_and(|r| r["number"] == json!(299792458.0)),
        || "speed of light".into(),
    )
}
