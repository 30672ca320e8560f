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
/// overflow the stack.
pub fn json_len(v: &Value) -> u64 {
    let mut n = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += match v {
            Value::Null => 4,
            Value::Bool(b) => 4 + u64::from(!b),
            Value::Number(x) => {
                let mut c = Count(0);
                let _ = std::fmt::Write::write_fmt(&mut c, format_args!("{x}"));
                c.0
            }
            Value::String(s) => string_len(s),
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len().saturating_sub(1) as u64
            }
            Value::Object(m) => {
                stack.extend(m.values());
                // Braces, a colon per member, commas between members, and the quoted keys.
                2 + m.len() as u64
                    + m.len().saturating_sub(1) as u64
                    + m.keys().map(|k| string_len(k)).sum::<u64>()
            }
        };
    }
    n
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

/// Counts the bytes a `Display` writes.
struct Count(u64);

impl std::fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len() as u64;
        Ok(())
    }
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
