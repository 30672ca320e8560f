//! Recorded tool results against real ones: numbers within a tolerance or the rounding the trace shows,
//! strings exactly, objects by the keys the trace recorded.

use serde_json::Value;

/// How close a recorded number must be to the real one (besides the rounding its digits show).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rel: f64,
    /// Absolute tolerance.
    pub abs: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            rel: 1e-9,
            abs: 1e-12,
        }
    }
}

/// Where a recorded result and the real one part.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    /// The path in the recorded result (`result.value`, `roots[1]`); empty for the whole result.
    pub path: String,
    /// What the trace recorded there.
    pub recorded: Value,
    /// What the tool gives there (`null` when the key is missing).
    pub real: Value,
    /// Why they differ, in words.
    pub why: String,
}

/// Keys of a recorded result object that describe the call rather than its value.
const META: [&str; 4] = ["tool", "success", "output_path", "error"];

/// Fields of a real result that hold its main value, tried in order when the trace recorded a bare value.
const PRIMARY: [&str; 6] = ["value", "result", "stdout", "answer", "display", "fraction"];

/// Most mismatches reported for one result.
const MAX_MISMATCHES: usize = 20;

/// Compares a recorded result with the real one; `Err` lists where they differ (at most 20 places).
pub fn compare(recorded: &Value, real: &Value, tol: Tolerance) -> Result<(), Vec<Mismatch>> {
    let mut found = Vec::new();
    at("", recorded, real, tol, &mut found);
    if found.is_empty() {
        Ok(())
    } else {
        Err(found)
    }
}

/// Collects the mismatches between `r` and `v` into `found`.
fn at(path: &str, r: &Value, v: &Value, tol: Tolerance, found: &mut Vec<Mismatch>) {
    if found.len() < MAX_MISMATCHES {
        if let Err(e) = first(path, r, v, tol, found) {
            found.push(*e);
        }
    }
}

fn mismatch(path: &str, recorded: &Value, real: &Value, why: impl Into<String>) -> Box<Mismatch> {
    Box::new(Mismatch {
        path: path.to_string(),
        recorded: recorded.clone(),
        real: real.clone(),
        why: why.into(),
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The mismatch of `r` and `v` themselves (`Err`), after collecting those of their members into `found`.
fn first(
    path: &str,
    r: &Value,
    v: &Value,
    tol: Tolerance,
    found: &mut Vec<Mismatch>,
) -> Result<(), Box<Mismatch>> {
    if let (Some(a), Some(b)) = (number(r), number(v)) {
        return if close(&a, &b, tol) {
            Ok(())
        } else {
            Err(mismatch(path, r, v, "the numbers differ"))
        };
    }
    match (r, v) {
        (Value::Object(ro), Value::Object(vo)) => {
            if !ro.keys().any(|k| !META.contains(&k.as_str())) && !vo.is_empty() {
                return Err(mismatch(
                    path,
                    r,
                    v,
                    "nothing was recorded of the tool's result",
                ));
            }
            for (k, rv) in ro {
                if META.contains(&k.as_str()) {
                    continue;
                }
                match vo.get(k) {
                    Some(vv) => at(&join(path, k), rv, vv, tol, found),
                    None => found.push(*mismatch(
                        &join(path, k),
                        rv,
                        &Value::Null,
                        format!("the tool's result has no `{k}`"),
                    )),
                }
            }
            Ok(())
        }
        (Value::Array(ra), Value::Array(va)) => {
            if ra.len() != va.len() {
                return Err(mismatch(
                    path,
                    r,
                    v,
                    format!("{} items recorded, the tool gives {}", ra.len(), va.len()),
                ));
            }
            for (i, (a, b)) in ra.iter().zip(va).enumerate() {
                at(&format!("{path}[{i}]"), a, b, tol, found);
            }
            Ok(())
        }
        (Value::Object(_) | Value::Array(_), _) => Err(mismatch(path, r, v, "the shapes differ")),
        (_, Value::Object(vo)) => {
            // A bare recorded value against a structured result: its main field.
            let mut closest = None;
            for k in PRIMARY {
                if let Some(vv) = vo.get(k) {
                    let mut inner = Vec::new();
                    at(&join(path, k), r, vv, tol, &mut inner);
                    if inner.is_empty() {
                        return Ok(());
                    }
                    if closest.is_none() {
                        closest = inner.into_iter().next();
                    }
                }
            }
            Err(closest.map(Box::new).unwrap_or_else(|| mismatch(path, r, v, "a bare value was recorded; the tool's result has no main value to compare it with")))
        }
        (Value::String(a), Value::String(b)) => {
            if a.trim() == b.trim() {
                Ok(())
            } else {
                Err(mismatch(path, r, v, "the texts differ"))
            }
        }
        _ if r == v => Ok(()),
        _ => Err(mismatch(path, r, v, "the values differ")),
    }
}

/// A number as written (a JSON number, or a string that is one), with the place of its last digit.
#[derive(Debug)]
struct Number {
    value: f64,
    /// Exactly what was written: (negative, significant digits without leading or trailing zeros, power of
    /// ten of the last of them); zero is `(false, "", 0)`.
    exact: (bool, String, i64),
    /// Written as an integer (digits only, no point or exponent).
    integer: bool,
    /// The power of ten of the last digit written (`27.778` → -3, `56` → 0, `6.0e23` → 22).
    last_place: i32,
}

fn number(v: &Value) -> Option<Number> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    let value: f64 = text.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let (mantissa, exp) = match lower.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().ok()?),
        None => (lower.as_str(), 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len() as i32);
    let (negative, unsigned) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let digits: String = unsigned.chars().filter(char::is_ascii_digit).collect();
    let mut place = i64::from(exp) - i64::from(decimals);
    let trimmed = digits.trim_start_matches('0');
    let significant = trimmed.trim_end_matches('0');
    place += (trimmed.len() - significant.len()) as i64;
    let exact = if significant.is_empty() {
        (false, String::new(), 0)
    } else {
        (negative, significant.to_string(), place)
    };
    Some(Number {
        value,
        exact,
        integer: !lower.contains(['.', 'e']),
        last_place: exp - decimals,
    })
}

/// Equal once the real value is rounded as the recorded one is written (when it shows fewer digits), equal
/// exactly when the tool's answer is an integer (an exact answer: a digit off is wrong however long the
/// number), else equal within the tolerance.
fn close(recorded: &Number, real: &Number, tol: Tolerance) -> bool {
    if real.integer && recorded.last_place <= real.last_place {
        return recorded.exact == real.exact;
    }
    let (a, b) = (recorded.value, real.value);
    let diff = (a - b).abs();
    if diff <= tol.abs.max(tol.rel * b.abs().max(a.abs())) {
        return true;
    }
    // The recorded number shows fewer digits than the real one: half a unit of its last digit.
    recorded.last_place > real.last_place
        && diff <= 0.5 * 10f64.powi(recorded.last_place) * (1.0 + 1e-12)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok(r: Value, v: Value) -> bool {
        compare(&r, &v, Tolerance::default()).is_ok()
    }

    #[test]
    fn numbers_match_within_their_shown_rounding() {
        assert!(ok(json!(27.778), json!(27.77777777777778)));
        assert!(ok(
            json!("27.778"),
            json!({"value": 27.77777777777778, "unit": "m/s"})
        ));
        assert!(!ok(json!(27.77), json!(27.77777777777778)));
        assert!(ok(
            json!("1.414213562373095"),
            json!("1.41421356237309504880")
        ));
        assert!(ok(json!("1.4142"), json!("1.41421356237309504880")));
        assert!(!ok(json!("1.4143"), json!("1.41421356237309504880")));
        assert!(ok(json!(56), json!("56")));
        assert!(!ok(json!(57), json!("56")));
        // An integer answer is exact: a digit off is wrong, however long the number.
        assert!(!ok(
            json!("1267650600228229401496703205377"),
            json!("1267650600228229401496703205376")
        ));
        assert!(!ok(json!("1000000000000"), json!("1000000000001")));
        assert!(!ok(json!("56.00000001"), json!("56")));
        assert!(ok(json!("56.000"), json!("56")));
        assert!(ok(
            json!("1.2676506e30"),
            json!("1267650600228229401496703205376")
        ));
        assert!(!ok(json!(true), json!({"value": "56", "exact": true})));
        assert!(ok(
            json!("1/3"),
            json!({"value": "0.3333333333", "fraction": "1/3"})
        ));
        assert!(!ok(json!({}), json!({"value": "56"})));
        assert!(ok(json!("-0.0"), json!("0")));
        assert!(ok(json!("6.0e23"), json!(6.02214076e23)));
        assert!(!ok(json!("6.1e23"), json!(6.02214076e23)));
        // More digits recorded than the tool gives: the tool's own rounding decides, within rel 1e-9.
        assert!(!ok(json!(2.0001), json!(2)));
    }

    #[test]
    fn objects_compare_by_the_recorded_keys() {
        assert!(ok(
            json!({"success": true, "pH": 2.0}),
            json!({"pH": 2.0, "pOH": 12.0})
        ));
        let e = compare(
            &json!({"pH": 2.0, "H+": 0.01}),
            &json!({"pH": 2.0}),
            Tolerance::default(),
        )
        .expect_err("missing key");
        assert_eq!(e[0].path, "H+");
        let e = compare(
            &json!({"roots": [1, 2, 4]}),
            &json!({"roots": [1, 3, 5]}),
            Tolerance::default(),
        )
        .expect_err("differs");
        let paths: Vec<&str> = e.iter().map(|m| m.path.as_str()).collect();
        assert_eq!(paths, ["roots[1]", "roots[2]"]);
        assert!(!ok(json!("abc"), json!("abd")));
        assert!(ok(json!(" abc\n"), json!("abc")));
        assert!(!ok(json!([1]), json!([1, 2])));
        assert!(!ok(json!(true), json!(false)));
    }
}
