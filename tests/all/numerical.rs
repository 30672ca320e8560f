//! `numerical` against SciPy/NumPy: `tests/data/numerical/reference.jsonl`, written by
//! `tests/data/gen/numerical_reference.py` (its docstring explains the comparison keys), one trial per case,
//! each through the engine. Also determinism; hostile input and the spec's examples are in the conformance suite.

use crate::support::{compare, ensure, jsonl, Outcome};
use beaker::{Engine, LimitsRequest, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    (got - want).abs() <= atol + rtol * want.abs()
}

fn negate(v: &Value) -> Value {
    match v {
        Value::Number(n) => json!(-n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => Value::Array(a.iter().map(negate).collect()),
        other => other.clone(),
    }
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Complex vector ([re, im] pairs) rotated by the unit factor that best aligns it with `want`.
fn align_phase(got: &Value, want: &Value) -> Value {
    let pairs = |v: &Value| -> Vec<(f64, f64)> {
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|p| (p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (g, w) = (pairs(got), pairs(want));
    // c = <g, w> = Σ conj(g) w; rotate g by c/|c|.
    let (mut re, mut im) = (0.0, 0.0);
    for ((gr, gi), (wr, wi)) in g.iter().zip(&w) {
        re += gr * wr + gi * wi;
        im += gr * wi - gi * wr;
    }
    let n = (re * re + im * im).sqrt();
    let (cr, ci) = if n > 0.0 {
        (re / n, im / n)
    } else {
        (1.0, 0.0)
    };
    Value::Array(
        g.iter()
            .map(|(a, b)| json!([a * cr - b * ci, a * ci + b * cr]))
            .collect(),
    )
}

/// `data.A` of the params as rows, and its Frobenius norm.
fn matrix_and_norm(params: &Value) -> (Vec<Vec<f64>>, f64) {
    let a: Vec<Vec<f64>> = params["data"]["A"]
        .as_array()
        .map(|r| r.iter().map(floats).collect())
        .unwrap_or_default();
    let norm = a.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    (a, norm)
}

/// The test generator of `numerical_reference.py`: `rows × cols` entries `((s >> 11) / 2⁵³)·2 − 1` of a 64-bit
/// LCG (exact doubles in [-1, 1)), row by row.
fn lcg(rows: u64, cols: u64, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..rows * cols.max(1))
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Params with the generated matrices written out: `{"$lcg": [rows, cols, seed]}` (cols 0: a vector) and
/// `{"$lcg_sym": [n, seed]}` (B + Bᵀ for B = the n×n `$lcg`), as the generator script defines them.
fn expand(v: &Value) -> Value {
    let ints = |spec: &Value| -> Vec<u64> {
        spec.as_array()
            .map(|a| a.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default()
    };
    match v {
        Value::Object(m) if m.len() == 1 && m.contains_key("$lcg") => {
            let p = ints(&m["$lcg"]);
            let (rows, cols, seed) = (p[0], p[1], p[2]);
            let x = lcg(rows, cols, seed);
            if cols == 0 {
                json!(x)
            } else {
                Value::Array(x.chunks(cols as usize).map(|r| json!(r)).collect())
            }
        }
        Value::Object(m) if m.len() == 1 && m.contains_key("$lcg_sym") => {
            let p = ints(&m["$lcg_sym"]);
            let (n, seed) = (p[0] as usize, p[1]);
            let b = lcg(n as u64, n as u64, seed);
            Value::Array(
                (0..n)
                    .map(|i| {
                        json!((0..n)
                            .map(|j| b[i * n + j] + b[j * n + i])
                            .collect::<Vec<_>>())
                    })
                    .collect(),
            )
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), expand(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(expand).collect()),
        other => other.clone(),
    }
}

fn check_reference(engine: &Engine, case: &Value) -> Outcome {
    let limits: LimitsRequest =
        serde_json::from_value(case.get("limits").cloned().unwrap_or(json!({})))
            .map_err(|e| e.to_string())?;
    let params = expand(&case["params"]);
    let env = engine.call(ToolCall::new("numerical", params.clone()).with_limits(limits));
    let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
    if let Some(kind) = case.get("error_kind") {
        ensure(env["error_kind"] == *kind, || {
            format!("expected {kind}, got {env}")
        })?;
        if let Some(needle) = case.get("message_contains").and_then(Value::as_str) {
            let msg = env["error"].as_str().unwrap_or("");
            ensure(msg.contains(needle), || {
                format!("message {msg:?} lacks {needle:?}")
            })?;
        }
        return Ok(());
    }
    let got = env
        .get("result")
        .filter(|r| !r.is_null())
        .ok_or(format!("the call failed: {env}"))?
        .clone();
    let want = case["expected"].clone();
    let rtol = case["rtol"].as_f64().unwrap_or(1e-9);
    let atol = case["atol"].as_f64().unwrap_or(0.0);
    let list = |k: &str| -> Vec<String> {
        case.get(k)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (exact, up_to_sign, columns, phase) = (
        list("exact"),
        list("up_to_sign"),
        list("columns_up_to_sign"),
        list("up_to_phase"),
    );
    let counts = case.get("count_rtol").cloned().unwrap_or(json!({}));
    let key_rtol = case.get("key_rtol").cloned().unwrap_or(json!({}));
    let abs_error_rtol = case.get("abs_error_rtol").and_then(Value::as_f64);
    let Value::Object(wmap) = &want else {
        return Err("expected must be an object".into());
    };
    for (k, w) in wmap {
        let g = got.get(k).ok_or(format!("result lacks `{k}`: {got}"))?;
        let rtol = key_rtol.get(k).and_then(Value::as_f64).unwrap_or(rtol);
        if exact.contains(k) {
            ensure(g == w, || format!("{k}: got {g}, want exactly {w}"))?;
        } else if let Some(r) = counts.get(k).and_then(Value::as_f64) {
            let (gi, wi) = (g.as_f64().unwrap_or(-1.0), w.as_f64().unwrap_or(0.0));
            ensure(close(gi, wi, r, 0.0), || {
                format!("{k}: got {gi}, want {wi} ± {}%", r * 100.0)
            })?;
        } else if k == "abs_error" && abs_error_rtol.is_some() {
            compare(g, w, abs_error_rtol.unwrap_or(0.0), 1e-15, k)?;
        } else if up_to_sign.contains(k) || phase.contains(k) {
            let (ga, wa) = (
                g.as_array().ok_or(format!("{k} is not a list"))?,
                w.as_array().ok_or(format!("{k} is not a list"))?,
            );
            ensure(ga.len() == wa.len(), || {
                format!("{k}: got {} vectors, want {}", ga.len(), wa.len())
            })?;
            for (i, (gv, wv)) in ga.iter().zip(wa).enumerate() {
                let path = format!("{k}[{i}]");
                if phase.contains(k) {
                    compare(&align_phase(gv, wv), wv, rtol, atol, &path)?;
                } else if compare(gv, wv, rtol, atol, &path).is_err() {
                    compare(&negate(gv), wv, rtol, atol, &format!("{path} (negated)"))?;
                }
            }
        } else if columns.contains(k) {
            let (ga, wa) = (
                g.as_array().ok_or(format!("{k} is not a matrix"))?,
                w.as_array().ok_or(format!("{k} is not a matrix"))?,
            );
            ensure(ga.len() == wa.len(), || format!("{k}: row count differs"))?;
            let ncols = wa.first().and_then(Value::as_array).map_or(0, Vec::len);
            for c in 0..ncols {
                let col = |m: &Vec<Value>| Value::Array(m.iter().map(|r| r[c].clone()).collect());
                let (gc, wc) = (col(ga), col(wa));
                let path = format!("{k}[:, {c}]");
                if compare(&gc, &wc, rtol, atol, &path).is_err() {
                    compare(&negate(&gc), &wc, rtol, atol, &format!("{path} (negated)"))?;
                }
            }
        } else {
            compare(g, w, rtol, atol, k)?;
        }
    }
    // Symmetric eigenproblems: every (real) pair satisfies A v = λ v and v has unit norm.
    if let Some(tol) = case.get("real_residual").and_then(Value::as_f64) {
        let (a, anorm) = matrix_and_norm(&params);
        let vals = floats(&got["eigenvalues"]);
        let vecs = got["eigenvectors"].as_array().cloned().unwrap_or_default();
        ensure(vecs.len() == a.len(), || {
            format!("{} eigenvectors", vecs.len())
        })?;
        for (k, (l, v)) in vals.iter().zip(&vecs).enumerate() {
            let v = floats(v);
            let res: f64 = a
                .iter()
                .enumerate()
                .map(|(i, row)| {
                    let av: f64 = row.iter().zip(&v).map(|(x, y)| x * y).sum();
                    (av - l * v[i]).powi(2)
                })
                .sum::<f64>()
                .sqrt();
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            ensure(res <= tol * anorm && (norm - 1.0).abs() < 1e-12, || {
                format!("eigenpair {k}: ||A v - λ v|| = {res:e}, ||v|| = {norm}")
            })?;
        }
    }
    // General eigenproblems: every pair satisfies A v = λ v.
    if let Some(tol) = case.get("residual").and_then(Value::as_f64) {
        let (a, anorm) = matrix_and_norm(&params);
        let vals = got["eigenvalues"].as_array().cloned().unwrap_or_default();
        let vecs = got["eigenvectors"].as_array().cloned().unwrap_or_default();
        for (k, (l, v)) in vals.iter().zip(&vecs).enumerate() {
            let (lr, li) = (l[0].as_f64().unwrap_or(0.0), l[1].as_f64().unwrap_or(0.0));
            let v: Vec<(f64, f64)> = v
                .as_array()
                .map(|p| {
                    p.iter()
                        .map(|c| (c[0].as_f64().unwrap_or(0.0), c[1].as_f64().unwrap_or(0.0)))
                        .collect()
                })
                .unwrap_or_default();
            let mut res = 0.0;
            for (i, row) in a.iter().enumerate() {
                let (mut sr, mut si) = (0.0, 0.0);
                for (j, aij) in row.iter().enumerate() {
                    sr += aij * v[j].0;
                    si += aij * v[j].1;
                }
                sr -= lr * v[i].0 - li * v[i].1;
                si -= lr * v[i].1 + li * v[i].0;
                res += sr * sr + si * si;
            }
            ensure(res.sqrt() <= tol * anorm, || {
                format!("eigenpair {k}: ||A v - λ v|| = {:e}", res.sqrt())
            })?;
        }
    }
    Ok(())
}

/// The same call twice gives the same bytes, for one call of each kind.
fn determinism() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let cases = jsonl("tests/data/numerical/reference.jsonl");
    let mut seen = std::collections::BTreeSet::new();
    for c in cases.iter().filter(|c| c.get("expected").is_some()) {
        let op = c["params"]["operation"].as_str().unwrap_or("").to_string();
        if !seen.insert(op) {
            continue;
        }
        let run = || {
            let env = engine.call(ToolCall::new("numerical", expand(&c["params"])));
            serde_json::to_vec(&env.result).unwrap_or_default()
        };
        let (a, b) = (run(), run());
        ensure(a == b, || format!("{} is not deterministic", c["name"]))?;
    }
    ensure(seen.len() >= 15, || {
        format!("only {} operations covered", seen.len())
    })
}

/// Every operation of the tool appears in the reference data.
fn every_operation_is_covered() -> Outcome {
    let cases = jsonl("tests/data/numerical/reference.jsonl");
    let ops = beaker_numerical_ops();
    ensure(ops.len() >= 24, || {
        format!("only {} operations in the schema", ops.len())
    })?;
    for op in ops {
        ensure(cases.iter().any(|c| c["params"]["operation"] == op), || {
            format!("no reference case for `{op}`")
        })?;
    }
    Ok(())
}

fn beaker_numerical_ops() -> Vec<String> {
    let engine = beaker::engine().ok();
    engine
        .and_then(|e| {
            let s = e.spec("numerical")?;
            s.params_schema["properties"]["operation"]["enum"]
                .as_array()
                .cloned()
        })
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test("numerical::determinism", determinism),
        Trial::test(
            "numerical::every_operation_is_covered",
            every_operation_is_covered,
        ),
    ];
    for case in jsonl("tests/data/numerical/reference.jsonl") {
        let name = format!("numerical::scipy::{}", case["name"].as_str().unwrap_or("?"));
        trials.push(Trial::test(name, move || {
            let engine = beaker::engine().map_err(|e| e.to_string())?;
            check_reference(&engine, &case)
        }));
    }
    trials
}
