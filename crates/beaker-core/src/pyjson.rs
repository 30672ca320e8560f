//! Python's `json.dumps`, byte for byte: what a model saw in training when its tool results or its chat
//! template's `tojson` were written by Python (`", "` and `": "` separators, floats as `repr`, non-ASCII as is
//! unless `ensure_ascii`). The one implementation: dialects render results with it, templates' `tojson` is it.

use serde_json::{Number, Value};

/// `json.dumps`' options (`Dumps::default()` is Python's defaults but `ensure_ascii=False`, as models' templates
/// and tool results are written).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dumps {
    /// `indent`: each level's indentation (`None`: one line).
    pub indent: Option<String>,
    /// `separators`: between items and between a key and its value (`None`: Python's default for the indent).
    pub separators: Option<(String, String)>,
    /// `ensure_ascii`: escape every non-ASCII character as `\uXXXX`.
    pub ensure_ascii: bool,
    /// `sort_keys`: objects' keys in sorted order.
    pub sort_keys: bool,
    /// Write each number as the value holds it (serde_json's text: what the tool produced) instead of as
    /// Python's `repr` of the float it reads as. Rendering a result keeps its numbers byte for byte; a template's
    /// `tojson` is Python's.
    pub numbers_as_held: bool,
}

/// Python's `json.dumps(v, ...)`, byte for byte: `", "` and `": "` (`","` with an indent), floats as `repr`,
/// `NaN`/`Infinity` for non-finite numbers.
pub fn dumps(v: &Value, o: &Dumps) -> String {
    let (item, key) = match (&o.separators, &o.indent) {
        (Some((i, k)), _) => (i.clone(), k.clone()),
        (None, Some(_)) => (",".into(), ": ".into()),
        (None, None) => (", ".into(), ": ".into()),
    };
    let mut out = String::new();
    write(v, o, &item, &key, 0, &mut out);
    out
}

fn newline(o: &Dumps, depth: usize, out: &mut String) {
    if let Some(ind) = &o.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

fn write(v: &Value, o: &Dumps, item: &str, key: &str, depth: usize, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if o.numbers_as_held => out.push_str(&n.to_string()),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => string(s, o.ensure_ascii, out),
        Value::Array(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(item);
                }
                newline(o, depth + 1, out);
                write(x, o, item, key, depth + 1, out);
            }
            newline(o, depth, out);
            out.push(']');
        }
        Value::Object(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            if o.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push('{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(item);
                }
                newline(o, depth + 1, out);
                string(k, o.ensure_ascii, out);
                out.push_str(key);
                write(x, o, item, key, depth + 1, out);
            }
            newline(o, depth, out);
            out.push('}');
        }
    }
}

/// An integer as is; a float as Python's `repr`.
fn number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let text = n.to_string();
    if !text.contains(['.', 'e', 'E']) {
        // An integer beyond 64 bits, kept as written (Python ints are unbounded).
        return text;
    }
    py_float(n.as_f64().unwrap_or(f64::NAN))
}

/// Python's `repr(float)`: the shortest digits that round-trip, fixed notation for exponents from -4 to 15,
/// otherwise `d.ddde+XX`.
pub fn py_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // `{:e}` gives the shortest round-trip digits (`-1.2345e-7`); Python breaks a tie between two shortest
    // candidates to the even one, which `{:e}` does not always do.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    let digits = even_tie(
        mantissa.chars().filter(char::is_ascii_digit).collect(),
        f.abs(),
        exp,
    );
    if (-4..16).contains(&exp) {
        let point = exp + 1;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let rest = &digits[1..];
        let m = if rest.is_empty() {
            digits[..1].to_string()
        } else {
            format!("{}.{rest}", &digits[..1])
        };
        format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        )
    }
}

/// `digits`, the shortest digits of `x` (positive), or the other shortest candidate when `x` lies exactly
/// halfway between the two and that one ends in an even digit (Python's round-half-even).
fn even_tie(digits: String, x: f64, exp: i32) -> String {
    let n = digits.len();
    let last = digits.as_bytes()[n - 1] - b'0';
    if last.is_multiple_of(2) {
        return digits;
    }
    // `x` exactly, to 30 digits past the shortest form: a tie is the shorter digits, a 5, then zeros.
    let exact = format!("{:.*e}", n + 29, x);
    let exact: String = exact
        .split('e')
        .next()
        .unwrap_or("")
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let (head, tail) = exact.split_at(n.min(exact.len()));
    if !(tail.starts_with('5') && tail[1..].bytes().all(|c| c == b'0')) {
        return digits;
    }
    // The tie is between `head` and `head + 1` (in the last digit); `digits` is one of them.
    let other = if head == digits {
        bump(head, 1)
    } else {
        Some(head.to_string())
    };
    // Taken only when it reads back as `x` (a tie across a power of ten is left alone).
    let reads_back = |d: &str| format!("{}.{}e{exp}", &d[..1], &d[1..]).parse::<f64>() == Ok(x);
    match other {
        Some(o) if (o.as_bytes()[n - 1] - b'0').is_multiple_of(2) && reads_back(&o) => o,
        _ => digits,
    }
}

/// `digits` with `by` added to its last digit, when that needs no carry.
fn bump(digits: &str, by: u8) -> Option<String> {
    let mut b = digits.as_bytes().to_vec();
    let last = b.last_mut()?;
    if *last + by > b'9' {
        return None;
    }
    *last += by;
    String::from_utf8(b).ok()
}

/// A JSON string as Python writes it.
fn string(s: &str, ensure_ascii: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ensure_ascii && (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plain(v: &Value) -> String {
        dumps(
            v,
            &Dumps {
                indent: None,
                separators: None,
                ensure_ascii: false,
                sort_keys: false,
                numbers_as_held: false,
            },
        )
    }

    /// Every double of `pyjson_repr.tsv` (written by `tests/data/gen/pyjson_repr.py` with CPython's `repr`)
    /// prints exactly as CPython prints it: ties between two shortest forms, subnormals, both notations.
    #[test]
    fn floats_print_as_cpython_repr_of_each_reference_double() {
        let mut checked = 0;
        for line in include_str!("pyjson_repr.tsv").lines() {
            if line.starts_with('#') {
                continue;
            }
            let (hex, want) = line.split_once('\t').expect("a tab");
            let x = f64::from_bits(u64::from_str_radix(hex, 16).expect("hex bits"));
            assert_eq!(py_float(x), want, "{hex}");
            checked += 1;
        }
        assert!(checked > 500, "{checked} cases");
    }

    #[test]
    fn floats_print_as_python_repr() {
        // Expected strings are CPython 3.11's repr of the same doubles.
        for (f, want) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1500.0, "1500.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e100, "1e+100"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
        ] {
            assert_eq!(py_float(f), want, "{f}");
        }
    }

    #[test]
    fn dumps_matches_json_dumps() {
        // json.dumps({"b": [1, 2.5, None, True], "a": "é\n\"<"}) and with indent=2, sort_keys, ensure_ascii.
        let v = json!({"b": [1, 2.5, null, true], "a": "é\n\"<", "c": {}});
        assert_eq!(
            plain(&v),
            r#"{"b": [1, 2.5, null, true], "a": "é\n\"<", "c": {}}"#
        );
        let o = Dumps {
            indent: Some("  ".into()),
            separators: None,
            ensure_ascii: true,
            sort_keys: true,
            numbers_as_held: false,
        };
        assert_eq!(
            dumps(&v, &o),
            "{\n  \"a\": \"\\u00e9\\n\\\"<\",\n  \"b\": [\n    1,\n    2.5,\n    null,\n    true\n  ],\n  \"c\": {}\n}"
        );
        assert_eq!(plain(&json!("😀")), "\"😀\"");
        let o = Dumps {
            ensure_ascii: true,
            ..o
        };
        assert_eq!(dumps(&json!("😀"), &o), r#""\ud83d\ude00""#);
    }
}
