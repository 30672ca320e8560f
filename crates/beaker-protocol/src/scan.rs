//! A quick pass over a request line before (or instead of) parsing it: the exact text of the top-level `id`,
//! so even a line that cannot be parsed is answered under its id, and the first key an object repeats, which
//! a JSON parser would silently let the last one win.

use std::borrow::Cow;
use std::collections::HashSet;

/// What the pass found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// The top-level `id` value as written (a string with its quotes, or a number), when it is one of those.
    pub(crate) id: Option<String>,
    /// The first key that appears twice in one object.
    pub(crate) duplicate: Option<String>,
}

/// An open container; an object keeps the keys seen so far, borrowed from the line unless they had escapes (a
/// request line's keys cost no allocation of their own).
enum Frame<'a> {
    Object {
        keys: HashSet<Cow<'a, [u8]>>,
        want_key: bool,
    },
    Array,
}

/// Scans `line` (any bytes: invalid UTF-8 or a cut-off line are fine); linear in its length, no recursion.
pub(crate) fn scan(line: &[u8]) -> Scan {
    let mut out = Scan::default();
    let mut stack: Vec<Frame<'_>> = Vec::with_capacity(4);
    let mut id_next = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        match b {
            b'{' => {
                id_next = false;
                stack.push(Frame::Object {
                    keys: HashSet::new(),
                    want_key: true,
                });
            }
            b'[' => {
                id_next = false;
                stack.push(Frame::Array);
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = true;
                }
            }
            b':' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = false;
                }
            }
            b'"' => {
                let end = string_end(line, i);
                let token = &line[i..end.min(line.len())];
                let depth = stack.len();
                match stack.last_mut() {
                    Some(Frame::Object {
                        keys,
                        want_key: true,
                    }) => {
                        let key = decode(token);
                        id_next = depth == 1 && *key == *b"id";
                        if out.duplicate.is_none() && keys.contains(&key) {
                            out.duplicate = Some(String::from_utf8_lossy(&key).into_owned());
                        } else if out.duplicate.is_none() {
                            keys.insert(key);
                        }
                    }
                    _ => {
                        if id_next && depth == 1 && end <= line.len() {
                            out.id = std::str::from_utf8(token).ok().map(String::from);
                        }
                        id_next = false;
                    }
                }
                i = end;
                continue;
            }
            b if b.is_ascii_whitespace() => {}
            _ => {
                // A number or a literal: up to the next delimiter.
                let start = i;
                while i < line.len()
                    && !matches!(line[i], b',' | b'}' | b']' | b':')
                    && !line[i].is_ascii_whitespace()
                {
                    i += 1;
                }
                let token = &line[start..i];
                if id_next
                    && stack.len() == 1
                    && token
                        .first()
                        .is_some_and(|c| *c == b'-' || c.is_ascii_digit())
                {
                    out.id = std::str::from_utf8(token).ok().map(String::from);
                }
                id_next = false;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The index just past the string token that starts at `start` (its closing quote), or past the end when the
/// string is not closed.
fn string_end(line: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    line.len() + 1
}

/// A key's bytes between the quotes, unescaped when it has escapes (so `"\u0069d"` is `id`): borrowed from the
/// line unless it had any.
fn decode(token: &[u8]) -> Cow<'_, [u8]> {
    if token.contains(&b'\\') {
        if let Ok(s) = serde_json::from_slice::<String>(token) {
            return Cow::Owned(s.into_bytes());
        }
    }
    let inner = token
        .strip_prefix(b"\"")
        .and_then(|t| t.strip_suffix(b"\""))
        .unwrap_or(token);
    Cow::Borrowed(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &str) -> Option<String> {
        scan(line.as_bytes()).id
    }

    fn dup(line: &str) -> Option<String> {
        scan(line.as_bytes()).duplicate
    }

    #[test]
    fn the_top_level_id_is_found_as_written() {
        assert_eq!(id(r#"{"id": 1e2, "tool": "x"}"#).as_deref(), Some("1e2"));
        assert_eq!(id(r#"{"tool": "x", "id":-0}"#).as_deref(), Some("-0"));
        assert_eq!(id(r#"{"id": "a\"b", "x": }"#).as_deref(), Some(r#""a\"b""#));
        assert_eq!(id(r#"{"\u0069d": 7}"#).as_deref(), Some("7"));
        // Nested ids and bad ids are not the request's id.
        assert_eq!(id(r#"{"params": {"id": 3}, "tool": "x"}"#), None);
        assert_eq!(id(r#"{"id": [1], "tool": "x"}"#), None);
        assert_eq!(id(r#"{"id": true}"#), None);
        // Broken lines: invalid UTF-8 elsewhere, cut off, a lone surrogate.
        let mut bad = br#"{"id": 5, "params": {"expression": ""#.to_vec();
        bad.extend([0xff, 0xfe]);
        assert_eq!(scan(&bad).id.as_deref(), Some("5"));
        assert_eq!(id(r#"{"id": "abc"#), None);
        assert_eq!(
            id(r#"{"id": 12, "params": {"e": "\ud800"}}"#).as_deref(),
            Some("12")
        );
    }

    #[test]
    fn repeated_keys_are_found_at_any_depth() {
        assert_eq!(
            dup(r#"{"tool": "a", "tool": "b"}"#).as_deref(),
            Some("tool")
        );
        assert_eq!(
            dup(r#"{"params": {"data": {"x": 1, "y": [{"k": 1, "k": 2}]}}}"#).as_deref(),
            Some("k")
        );
        assert_eq!(dup(r#"{"a": 1, "\u0061": 2}"#).as_deref(), Some("a"));
        assert_eq!(dup(r#"{"a": {"b": 1}, "b": {"a": 1}, "s": "a,a:a"}"#), None);
        assert_eq!(dup(r#"[{"a": 1}, {"a": 2}]"#), None);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let line = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
        assert_eq!(scan(line.as_bytes()), Scan::default());
    }
}
