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

/// The length in bytes of `values` written as a JSON array of numbers by serde_json (a non-finite value as `null`),
/// computed without building the array: a tool checks a large numeric result against `max_output_bytes` before it
/// turns it into JSON values (each of which, with exact numbers kept as text, weighs tens of bytes more).
pub fn floats_json_len(values: &[f64]) -> u64 {
    /// Counts what serde_json writes, keeping none of it.
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(2 + values.len().saturating_sub(1) as u64);
    for x in values {
        if !x.is_finite() || serde_json::to_writer(&mut count, x).is_err() {
            count.0 += 4;
        }
    }
    count.0
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

    #[test]
    fn floats_are_counted_as_serde_json_writes_them() {
        let xs = [
            0.0,
            -1.5,
            1e-300,
            3.0,
            f64::NAN,
            123_456_789.125,
            f64::INFINITY,
            0.1,
        ];
        let written = serde_json::to_string(&serde_json::json!(xs)).unwrap_or_default();
        assert_eq!(floats_json_len(&xs), written.len() as u64, "{written}");
        assert_eq!(floats_json_len(&[]), 2);
    }
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
