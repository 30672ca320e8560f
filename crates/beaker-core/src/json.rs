//! Facts about JSON values that messages and limits need without serializing them.

use serde_json::Value;

/// A JSON value's type in words (`"an array"`, `"null"`), for error messages that say what was given.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The length in bytes of `v` serialized compactly by `serde_json::to_string`, computed without writing it
/// (the engine bounds results with it; the front end serializes once). Iterative: no nesting depth can
/// overflow the stack. Numbers are kept as written (`arbitrary_precision`), so a number's length is its text's.
pub fn json_len(v: &Value) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += match v {
            Value::Array(a) => {
                let mut len = 2 + a.len().saturating_sub(1) as u64;
                for item in a {
                    len += scalar_len(item).unwrap_or_else(|| {
                        stack.push(item);
                        0
                    });
                }
                len
            }
            Value::Object(m) => {
                // Braces, a colon per member, commas between members, and the quoted keys.
                let mut len = 2 + m.len() as u64 + m.len().saturating_sub(1) as u64;
                for (k, item) in m {
                    len += string_len(k)
                        + scalar_len(item).unwrap_or_else(|| {
                            stack.push(item);
                            0
                        });
                }
                len
            }
            scalar => scalar_len(scalar).unwrap_or(0),
        };
    }
    n
}

/// The serialized length of a scalar; `None` for an array or object.
fn scalar_len(v: &Value) -> Option<u64> {
    Some(match v {
        Value::Null => 4,
        Value::Bool(b) => 4 + u64::from(!b),
        Value::Number(x) => x.as_str().len() as u64,
        Value::String(s) => string_len(s),
        Value::Array(_) | Value::Object(_) => return None,
    })
}

/// A string's length as serde_json writes it: quotes, two-byte escapes for `"`, `\` and the usual control
/// characters, `\u00XX` for the other control characters, everything else as its UTF-8 bytes.
fn string_len(s: &str) -> u64 {
    let mut n = 2 + s.len() as u64;
    for &b in s.as_bytes() {
        n += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0x00..=0x1f => 5,
            _ => 0,
        };
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_len_is_the_serialized_length() {
        let cases = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-12.5e-300),
            serde_json::from_str::<Value>("1e400").unwrap_or_default(),
            json!(12345678901234567890123u128),
            json!(""),
            json!("plain"),
            json!("quote \" backslash \\ newline \n tab \t cr \r bs \u{8} ff \u{c}"),
            json!("nul \u{0} unit sep \u{1f} del \u{7f} é ∑ 🦀 \u{2028}"),
            json!([]),
            json!([1, [2, [3, []]], {}]),
            json!({}),
            json!({"a": 1, "b\n": [true, null, "x"], "é": {"nested": {"deep": [1.5, -0.0]}}}),
        ];
        for v in cases {
            let want = serde_json::to_string(&v).map(|s| s.len() as u64).ok();
            assert_eq!(Some(json_len(&v)), want, "{v}");
        }
    }

    #[test]
    fn json_len_survives_deep_nesting() {
        let mut v = json!(1);
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(json_len(&v), 200_001);
        // Dropping a deeply nested Value recurses; unwind it by hand.
        let mut v = v;
        while let Value::Array(mut a) = v {
            v = a.pop().unwrap_or(Value::Null);
        }
    }
}
