//! Cross-checking two servers' answers to the same request: `--compare` fails on a wrong number, not only on a
//! slow one.

use serde::Serialize;
use serde_json::Value;

/// How close two answers' numbers must be: the tolerance `beaker verify` compares traces with (1e-9 relative by
/// default: two libraries computing the same double rarely agree to the last bit, SciPy's t distribution and ours
/// differ in the 15th digit, and 1e-9 still catches any wrong formula or off-by-one).
pub use beaker_traces::compare::Tolerance;

/// Where two answers to one request differ.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// The scenario entry's label.
    pub label: String,
    /// The request, as sent (with the id of the first server's copy).
    pub request: String,
    /// The JSON path of the first difference (`result.x[1]`, `success`, `error_kind`).
    pub path: String,
    /// The first server's value there.
    pub a: String,
    /// The second server's value there.
    pub b: String,
}

/// The first difference between answers `a` and `b` to one request, as (path, a's value, b's value), or `None`
/// when they agree. Outcomes must match (`success`, and `error_kind` for two failures, since error messages are
/// each server's own words); results are compared on the fields both carry, since a peer need not compute every
/// extra a tool reports (`dimension`, `method`), but at least one field must be shared.
pub fn differ(a: &Value, b: &Value, tol: Tolerance) -> Option<(String, String, String)> {
    let ok_a = a.get("success").and_then(Value::as_bool);
    let ok_b = b.get("success").and_then(Value::as_bool);
    if ok_a != ok_b {
        return Some(("success".into(), outcome(a), outcome(b)));
    }
    if ok_a != Some(true) {
        let (ka, kb) = (a.get("error_kind"), b.get("error_kind"));
        return (ka != kb).then(|| ("error_kind".into(), outcome(a), outcome(b)));
    }
    let mut path = String::from("result");
    value_differs(
        a.get("result").unwrap_or(&Value::Null),
        b.get("result").unwrap_or(&Value::Null),
        tol,
        &mut path,
    )
    .map(|(x, y)| (path, x, y))
}

fn outcome(v: &Value) -> String {
    match v.get("success").and_then(Value::as_bool) {
        Some(true) => "success".into(),
        Some(false) => format!(
            "{}: {}",
            v.get("error_kind").and_then(Value::as_str).unwrap_or("?"),
            v.get("error").and_then(Value::as_str).unwrap_or("")
        ),
        None => "no outcome".into(),
    }
}

/// A PNG's base64 always starts so; two renderers never draw the same pixels, so pictures are compared by kind.
const PNG_BASE64: &str = "iVBORw0KGgo";

fn value_differs(
    a: &Value,
    b: &Value,
    tol: Tolerance,
    path: &mut String,
) -> Option<(String, String)> {
    let shown = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 80 {
            format!("{}…", s.chars().take(80).collect::<String>())
        } else {
            s
        }
    };
    let mismatch = || Some((shown(a), shown(b)));
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut shared = 0;
            for (k, va) in x {
                let Some(vb) = y.get(k) else { continue };
                shared += 1;
                let len = path.len();
                path.push('.');
                path.push_str(k);
                if let Some(d) = value_differs(va, vb, tol, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            if shared == 0 && !(x.is_empty() && y.is_empty()) {
                return Some((
                    format!("keys {:?}", x.keys().collect::<Vec<_>>()),
                    format!("keys {:?}", y.keys().collect::<Vec<_>>()),
                ));
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some((format!("{} items", x.len()), format!("{} items", y.len())));
            }
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                if let Some(d) = value_differs(va, vb, tol, path) {
                    return Some(d);
                }
                path.truncate(len);
            }
            None
        }
        (Value::String(x), Value::String(y)) if x.starts_with(PNG_BASE64) => {
            (!y.starts_with(PNG_BASE64)).then(|| (shown(a), shown(b)))
        }
        (Value::String(x), Value::String(y)) if x == y => None,
        // Printed output (`stdout`) holds numbers too: the same words with numbers that agree is the same text,
        // since two builds of one library may differ in a double's last digit.
        (Value::String(x), Value::String(y)) if number(a).is_none() || number(b).is_none() => {
            (!texts_agree(x, y, tol)).then(|| around_first_difference(x, y))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => (!numbers_agree(&x, &y, tol)).then(|| (shown(a), shown(b))),
            _ if a == b => None,
            _ => mismatch(),
        },
    }
}

/// `x` and `y` are the same words and punctuation, with numbers in the same places that agree.
fn texts_agree(x: &str, y: &str, tol: Tolerance) -> bool {
    let (tx, ty) = (tokens(x), tokens(y));
    tx.len() == ty.len()
        && tx.iter().zip(&ty).all(|(a, b)| match (a, b) {
            (Token::Num(a), Token::Num(b)) => {
                match (number(&Value::from(*a)), number(&Value::from(*b))) {
                    (Some(p), Some(q)) => numbers_agree(&p, &q, tol),
                    _ => a == b,
                }
            }
            (Token::Text(a), Token::Text(b)) => a == b,
            _ => false,
        })
}

#[derive(Debug, PartialEq)]
enum Token<'a> {
    Num(&'a str),
    Text(&'a str),
}

/// `s` cut into decimal numbers (`-5.2e-3`, `42`) and the text between them.
fn tokens(s: &str) -> Vec<Token<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut text_from) = (0, 0);
    while i < b.len() {
        let starts_number = b[i].is_ascii_digit()
            || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
            || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit));
        // A digit inside a word (`float64`, `x2`) is part of the word.
        let in_word = i > 0 && (b[i - 1].is_ascii_alphabetic() || b[i - 1] == b'_');
        if !starts_number || in_word {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
            i += 1;
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
                j += 1;
            }
            if j < b.len() && b[j].is_ascii_digit() {
                i = j;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
        }
        if text_from < start {
            out.push(Token::Text(&s[text_from..start]));
        }
        out.push(Token::Num(&s[start..i]));
        text_from = i;
    }
    if text_from < s.len() {
        out.push(Token::Text(&s[text_from..]));
    }
    out
}

/// Both strings shown from a little before where they first differ, so a long output's difference is visible.
fn around_first_difference(x: &str, y: &str) -> (String, String) {
    let at = x
        .char_indices()
        .zip(y.chars())
        .find(|((_, a), b)| a != b)
        .map_or(x.len().min(y.len()), |((i, _), _)| i);
    let show = |s: &str| {
        let from = s[..at.min(s.len())]
            .char_indices()
            .rev()
            .nth(30)
            .map_or(0, |(i, _)| i);
        let tail: String = s[from..].chars().take(80).collect();
        format!("{}{tail:?}", if from > 0 { "…" } else { "" })
    };
    (show(x), show(y))
}

/// A number as written: an integer's digits (compared exactly, however long) or a double.
enum Num {
    Int(String),
    Float(f64),
}

/// `v` as a number, whether a JSON number or a decimal string (`"56"`, `"1.414213562373095"`), as calculators
/// give exact values as strings.
fn number(v: &Value) -> Option<Num> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        _ => return None,
    };
    let digits = text.strip_prefix('-').unwrap_or(&text);
    if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
        return Some(Num::Int(text));
    }
    text.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .map(Num::Float)
}

fn numbers_agree(a: &Num, b: &Num, tol: Tolerance) -> bool {
    let f = |n: &Num| match n {
        Num::Int(s) => s.parse::<f64>().unwrap_or(f64::NAN),
        Num::Float(x) => *x,
    };
    match (a, b) {
        // Integers are exact on both sides: 2**100 must agree to its last digit.
        (Num::Int(x), Num::Int(y)) => {
            let norm = |s: &str| {
                let (neg, d) = s.strip_prefix('-').map_or((false, s), |d| (true, d));
                let d = d.trim_start_matches('0');
                (neg && !d.is_empty(), d.to_string())
            };
            norm(x) == norm(y)
        }
        _ => {
            let (x, y) = (f(a), f(b));
            (x - y).abs() <= tol.abs.max(tol.rel * x.abs().max(y.abs()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(a: Value, b: Value) -> Option<String> {
        differ(&a, &b, Tolerance::default()).map(|(p, _, _)| p)
    }

    #[test]
    fn outcomes_must_match() {
        let ok = json!({"success": true, "result": {"value": "56"}});
        let failed = json!({"success": false, "error_kind": "timeout", "error": "slow"});
        assert_eq!(
            check(ok.clone(), failed.clone()).as_deref(),
            Some("success")
        );
        let other = json!({"success": false, "error_kind": "limit_exceeded", "error": "big"});
        assert_eq!(check(failed.clone(), other).as_deref(), Some("error_kind"));
        let reworded = json!({"success": false, "error_kind": "timeout", "error": "ran past 5 s"});
        assert_eq!(check(failed, reworded), None);
    }

    #[test]
    fn numbers_agree_within_tolerance_and_integers_exactly() {
        let r = |v: Value| json!({"success": true, "result": {"value": v}});
        assert_eq!(check(r(json!("1")), r(json!("1.0000000000"))), None);
        assert_eq!(
            check(r(json!("27.7777777777778")), r(json!(27.77777777777778))),
            None
        );
        assert_eq!(
            check(r(json!(0.0008138621117322)), r(json!(0.0008138621117323))),
            None
        );
        assert_eq!(
            check(
                r(json!("1267650600228229401496703205376")),
                r(json!("1267650600228229401496703205377"))
            )
            .as_deref(),
            Some("result.value")
        );
        assert_eq!(
            check(r(json!(0.5)), r(json!(0.5001))).as_deref(),
            Some("result.value")
        );
        assert_eq!(check(r(json!("-0")), r(json!("0"))), None);
    }

    #[test]
    fn shared_fields_are_compared_and_one_must_be_shared() {
        let a = json!({"success": true, "result": {"x": [2.0, 3.0], "method": "LU"}});
        assert_eq!(
            check(
                a.clone(),
                json!({"success": true, "result": {"x": [2.0, 3.0]}})
            ),
            None
        );
        assert_eq!(
            check(
                a.clone(),
                json!({"success": true, "result": {"x": [2.0, 3.5]}})
            )
            .as_deref(),
            Some("result.x[1]")
        );
        assert_eq!(
            check(a.clone(), json!({"success": true, "result": {"x": [2.0]}})).as_deref(),
            Some("result.x")
        );
        assert_eq!(
            check(a, json!({"success": true, "result": {"y": 1}})).as_deref(),
            Some("result")
        );
    }

    #[test]
    fn pictures_are_compared_by_kind_and_text_exactly() {
        let png = |s: &str| json!({"success": true, "result": {"image": s, "stdout": "[2. 3.]\n"}});
        assert_eq!(check(png("iVBORw0KGgoAAA"), png("iVBORw0KGgoBBB")), None);
        assert!(check(png("iVBORw0KGgoAAA"), png("PHN2Zz4=")).is_some());
        let out = |s: &str| json!({"success": true, "result": {"stdout": s}});
        assert_eq!(
            check(out("[2. 3.]\n"), out("[2. 3.]")).as_deref(),
            Some("result.stdout")
        );
        // Numbers inside printed text agree within the tolerance; the words around them must be the same.
        let t = |p: &str| {
            out(&format!(
                "TtestResult(statistic=np.float64(-5.2085), pvalue=np.float64({p}))"
            ))
        };
        assert_eq!(
            check(t("0.0008138621117322102"), t("0.0008138621117322101")),
            None
        );
        assert!(check(t("0.0008138621117322102"), t("0.0009")).is_some());
        assert!(check(out("x = 5 m"), out("x = 5 s")).is_some());
        assert!(check(out("[2, 3]"), out("[2, 3, 4]")).is_some());
        assert!(check(out("float64(1)"), out("float32(1)")).is_some());
        assert_eq!(check(out("1e-3 and -2.5E+2"), out("0.001 and -250")), None);
    }
}
