//! Lenient mode: turns the JSON slips models make into JSON.
//!
//! Repairs, and only these: trailing commas before `}`/`]`, single-quoted strings, unquoted keys,
//! Python's `True`/`False`/`None`, and raw control characters inside strings. Everything else is copied as
//! it is, so what is still not JSON afterwards fails in serde with serde's message.

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-' | b'$')
}

fn next_non_ws(b: &[u8], mut i: usize) -> Option<u8> {
    while i < b.len() {
        if !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            return Some(b[i]);
        }
        i += 1;
    }
    None
}

/// Copies a string starting at the quote `b[i]` as a double-quoted JSON string; returns the index after it.
fn copy_string(b: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    let quote = b[i];
    i += 1;
    out.push(b'"');
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' if i + 1 < b.len() => {
                let n = b[i + 1];
                if n == b'\'' {
                    out.push(b'\'');
                } else {
                    out.extend_from_slice(&[b'\\', n]);
                }
                i += 2;
                continue;
            }
            _ if c == quote => {
                out.push(b'"');
                return i + 1;
            }
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => out.extend_from_slice(format!("\\u{c:04x}").as_bytes()),
            _ => out.push(c),
        }
        i += 1;
    }
    // Unterminated: leave it unterminated so serde reports it.
    i
}

/// The repaired text, or `None` when nothing needed repairing.
pub(crate) fn repair(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() + 16);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' | b'\'' => i = copy_string(b, i, &mut out),
            b',' => {
                if !matches!(next_non_ws(b, i + 1), Some(b'}' | b']')) {
                    out.push(b',');
                }
                i += 1;
            }
            _ if is_word(c) => {
                let start = i;
                while i < b.len() && is_word(b[i]) {
                    i += 1;
                }
                let word = &b[start..i];
                if next_non_ws(b, i) == Some(b':') {
                    out.push(b'"');
                    out.extend_from_slice(word);
                    out.push(b'"');
                } else {
                    out.extend_from_slice(match word {
                        b"True" => b"true",
                        b"False" => b"false",
                        b"None" => b"null",
                        w => w,
                    });
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    let repaired = String::from_utf8(out).ok()?;
    (repaired != s).then_some(repaired)
}

#[cfg(test)]
mod tests {
    use super::repair;
    use serde_json::{json, Value};

    fn fixed(s: &str) -> Value {
        serde_json::from_str(&repair(s).unwrap()).unwrap()
    }

    #[test]
    fn repairs_each_slip() {
        assert_eq!(fixed(r#"{"a": [1, 2,],}"#), json!({"a": [1, 2]}));
        assert_eq!(
            fixed(r#"{'a': 'say "hi"', 'b': 'it\'s'}"#),
            json!({"a": "say \"hi\"", "b": "it's"})
        );
        let v = fixed(r#"{tool: "calculator", params: {x: 1.5e3}}"#);
        assert_eq!(v["tool"], "calculator");
        // Numbers are kept as written (serde_json's arbitrary_precision); their value is 1500.
        assert_eq!(v["params"]["x"].as_f64(), Some(1500.0));
        assert_eq!(
            fixed(r#"{"a": True, "b": False, "c": None}"#),
            json!({"a": true, "b": false, "c": null})
        );
        assert_eq!(fixed("{\"a\": \"two\nlines\"}"), json!({"a": "two\nlines"}));
    }

    #[test]
    fn leaves_valid_json_and_string_contents_alone() {
        assert_eq!(repair(r#"{"a": "True, None,]"}"#), None);
        assert_eq!(repair(r#"{"π": "µ"}"#), None);
    }
}
