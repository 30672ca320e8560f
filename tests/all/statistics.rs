//! `statistics` against scipy.stats and statsmodels: `tests/data/statistics/reference.jsonl`, written by
//! `tests/data/gen/statistics_reference.py`. Each case runs through the engine; every key of `expected`
//! must match (numbers to the case's `rtol`, default 1e-9, plus its `atol`, default 0; arrays element by
//! element; strings and booleans exactly), and error cases must fail with their `error_kind`. Also: seeded
//! sampling is reproducible and has the right moments, and every operation is deterministic.

use crate::support::{compare, ensure, jsonl, Outcome};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn reference() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let cases = jsonl("tests/data/statistics/reference.jsonl");
    ensure(cases.len() >= 300, || {
        format!("only {} reference cases", cases.len())
    })?;
    let mut failures = Vec::new();
    for c in &cases {
        let name = c["name"].as_str().unwrap_or("?");
        let env = engine.call(beaker::ToolCall::new("statistics", c["params"].clone()));
        let env = serde_json::to_value(&env).map_err(|e| e.to_string())?;
        if let Some(kind) = c.get("error_kind") {
            if env["error_kind"] != *kind {
                failures.push(format!(
                    "{name}: expected {kind}, got {}",
                    env.to_string().chars().take(300).collect::<String>()
                ));
            }
            continue;
        }
        if env["success"] != json!(true) {
            failures.push(format!("{name}: {} ({})", env["error"], env["error_kind"]));
            continue;
        }
        let rtol = c.get("rtol").and_then(Value::as_f64).unwrap_or(1e-9);
        let atol = c.get("atol").and_then(Value::as_f64).unwrap_or(0.0);
        if let Err(d) = compare(&env["result"], &c["expected"], rtol, atol, "") {
            failures.push(format!("{name}: {d}"));
        }
    }
    ensure(failures.is_empty(), || {
        format!(
            "{} of {} cases disagree with SciPy/statsmodels:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        )
    })
}

/// Seeded samples: the same seed gives the same draws, another seed others, and 20,000 normal draws have
/// mean and std within 5 standard errors of the truth.
fn sampling() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let draw = |seed: u64, n: u64| {
        let p = json!({"operation": "distribution",
            "data": {"distribution": "normal", "function": "sample", "loc": 10, "scale": 2},
            "options": {"n": n, "seed": seed}});
        let env = engine.call(beaker::ToolCall::new("statistics", p));
        env.result.unwrap_or_default()["value"].clone()
    };
    let a = draw(7, 20_000);
    ensure(a == draw(7, 20_000), || "same seed, different draws".into())?;
    ensure(a != draw(8, 20_000), || {
        "different seeds, same draws".into()
    })?;
    let xs: Vec<f64> = a
        .as_array()
        .ok_or("no draws")?
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    ensure(xs.len() == 20_000, || format!("{} draws", xs.len()))?;
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt();
    ensure((m - 10.0).abs() < 5.0 * 2.0 / n.sqrt(), || {
        format!("sample mean {m}")
    })?;
    ensure((sd - 2.0).abs() < 5.0 * 2.0 / (2.0 * n).sqrt(), || {
        format!("sample std {sd}")
    })?;
    // Every distribution samples within its support.
    for (dist, extra) in [
        ("binomial", json!({"n": 10, "p": 0.3})),
        ("poisson", json!({"mu": 3.5})),
        ("geometric", json!({"p": 0.2})),
        ("hypergeometric", json!({"M": 20, "n": 7, "N": 12})),
        ("negative_binomial", json!({"n": 3, "p": 0.4})),
        ("beta", json!({"a": 2, "b": 3})),
        ("uniform", json!({"loc": -1, "scale": 2})),
        ("chi2", json!({"df": 3})),
        ("gamma", json!({"a": 2})),
        ("weibull", json!({"c": 1.5})),
        ("lognormal", json!({"s": 0.5})),
        ("exponential", json!({})),
        ("t", json!({"df": 4})),
        ("f", json!({"dfn": 3, "dfd": 7})),
        ("cauchy", json!({})),
    ] {
        let mut data = extra.clone();
        data["distribution"] = json!(dist);
        data["function"] = json!("sample");
        let env = engine.call(beaker::ToolCall::new(
            "statistics",
            json!({"operation": "distribution", "data": data, "options": {"n": 500, "seed": 1}}),
        ));
        let xs = env.result.clone().unwrap_or_default()["value"].clone();
        let xs: Vec<f64> = xs
            .as_array()
            .ok_or(format!("{dist}: {env:?}"))?
            .iter()
            .filter_map(Value::as_f64)
            .collect();
        ensure(xs.len() == 500, || format!("{dist}: {} draws", xs.len()))?;
        let discrete = [
            "binomial",
            "poisson",
            "geometric",
            "hypergeometric",
            "negative_binomial",
        ];
        if discrete.contains(&dist) {
            ensure(xs.iter().all(|x| x.fract() == 0.0 && *x >= 0.0), || {
                format!("{dist}: a draw off the integers")
            })?;
        }
        if ["beta"].contains(&dist) {
            ensure(xs.iter().all(|x| (0.0..=1.0).contains(x)), || {
                format!("{dist}: a draw outside [0, 1]")
            })?;
        }
    }
    Ok(())
}

/// The same call twice gives the same bytes, for every case of the reference file.
fn deterministic() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    for c in jsonl("tests/data/statistics/reference.jsonl")
        .iter()
        .step_by(7)
    {
        let call = || {
            let env = engine.call(beaker::ToolCall::new("statistics", c["params"].clone()));
            serde_json::to_string(&(env.result, env.error)).unwrap_or_default()
        };
        let (a, b) = (call(), call());
        ensure(a == b, || format!("{}: {a} vs {b}", c["name"]))?;
    }
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("statistics::reference_against_scipy", reference),
        Trial::test("statistics::seeded_sampling", sampling),
        Trial::test("statistics::deterministic", deterministic),
    ]
}
