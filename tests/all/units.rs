//! `unit_converter` against Pint: `tests/data/units/reference.jsonl`, written by
//! `tests/data/gen/units_reference.py` from Pint's own definitions with exact arithmetic. Each conversion
//! runs through the engine at 30 significant digits and must agree to 1e-20 relative (or the line's own
//! `tolerance`, for the few values Pint could only give as floats); error lines must fail with
//! `invalid_params`, and so must the `quirk` lines, where Pint's dimensionless radians make 60 rpm = 2π Hz.

use crate::support::{ensure, jsonl, Outcome};
use libtest_mimic::Trial;
use rug::Rational;
use serde_json::{json, Value};

/// An exact rational from a decimal string such as `-2.5e-3`.
fn rational(s: &str) -> Option<Rational> {
    let s = s.trim();
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
        None => (s, 0),
    };
    let neg = mantissa.starts_with('-');
    let m = mantissa.trim_start_matches(['-', '+']);
    let (int, frac) = m.split_once('.').unwrap_or((m, ""));
    let digits: rug::Integer = format!("{int}{frac}").parse().ok()?;
    let scale = exp - frac.len() as i32;
    let ten = Rational::from(10);
    let mut q = Rational::from(digits) * rug::ops::Pow::pow(ten, scale);
    if neg {
        q = -q;
    }
    Some(q)
}

fn reference() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let cases = jsonl("tests/data/units/reference.jsonl");
    ensure(cases.len() >= 300, || {
        format!("only {} reference cases", cases.len())
    })?;
    let mut failures = Vec::new();
    for c in &cases {
        let params = json!({
            "value": c["value"], "from_unit": c["from_unit"], "to_unit": c["to_unit"], "precision": 30
        });
        let env = engine.call(beaker::ToolCall::new("unit_converter", params));
        let label = format!("{} {} -> {}", c["value"], c["from_unit"], c["to_unit"]);
        // Pint's radians are dimensionless (60 rpm = 2π Hz, 1 B = 8 rad); angle is a dimension here, so
        // these are mismatches by design (docs/TOOLS.md).
        if c.get("error").is_some() || c["category"] == "quirk" {
            if env.error_kind != Some(beaker::ErrorKind::InvalidParams) {
                failures.push(format!(
                    "{label}: expected invalid_params, got {:?}",
                    env.result
                ));
            }
            continue;
        }
        let Some(got) = env
            .result
            .as_ref()
            .and_then(|r| r["value"].as_str())
            .and_then(rational)
        else {
            failures.push(format!("{label}: {}", env.error.unwrap_or_default()));
            continue;
        };
        let want = c["expected"]
            .as_str()
            .and_then(rational)
            .ok_or(format!("{label}: bad expected"))?;
        let tol = c.get("tolerance").and_then(Value::as_f64).unwrap_or(1e-20);
        let err = Rational::from(&got - &want).abs();
        let scale = Rational::from(want.abs_ref()).max(Rational::from((1, 1_000_000_000_000u64)));
        let bound = scale * Rational::from_f64(tol).unwrap_or_default();
        if err > bound && want != 0 || (want == 0 && got != 0) {
            failures.push(format!("{label}: got {got:?}, Pint {}", c["expected"]));
        }
    }
    ensure(failures.is_empty(), || {
        format!(
            "{} of {} conversions disagree with Pint:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        )
    })
}

pub fn trials() -> Vec<Trial> {
    vec![Trial::test("units::reference_against_pint", reference)]
}
