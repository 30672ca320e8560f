//! An incremental JSON structure scanner.
//!
//! It reads bytes as they arrive and says where a JSON object or array ends, or where it stops being JSON.
//! It tracks containers, strings (so `"}"` and `"</tool_call>"` inside strings end nothing), numbers and
//! literals; it does not decode escapes or check control characters (serde does that once the value is
//! delimited). Its state survives between chunks, so every byte is looked at once, whatever the chunking.
//! In lenient mode it also accepts single-quoted strings, unquoted words as keys and values, and trailing
//! commas: the shapes `lenient::repair` turns into JSON.
//!
//! While scanning a top-level object it captures the keys and the name value the dialects care about
//! (`tool`/`name`, `params`/`arguments`/`parameters`), so a caller learns the tool's name as soon as its
//! string closes.

use memchr::memchr2;

/// How deep containers may nest: serde_json's own recursion limit, so a call fails with one message, at the
/// point where it goes too deep, whichever of the two would have noticed first.
const MAX_DEPTH: usize = 128;
/// Longest key or name the scanner captures; longer ones are not names a tool could have.
const MAX_CAPTURE: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Obj {
    KeyOrEnd,
    Key,
    Colon,
    Value,
    CommaOrEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arr {
    ValueOrEnd,
    Value,
    CommaOrEnd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    Obj(Obj),
    Arr(Arr),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    None,
    Str { quote: u8, escaped: bool },
    Num(Num),
    Lit { word: &'static [u8], at: usize },
    Bare,
}

/// What a call object's key means to the dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyRole {
    /// `"tool"` (true) or `"name"` (false).
    Name(bool),
    Args,
    Other,
}

/// The outcome of feeding bytes to the scanner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scan {
    /// Everything was consumed and the value is not complete yet.
    More,
    /// The value ended just before this index.
    Done(usize),
    /// The byte at this index cannot continue the value.
    Error(usize, String),
}

/// Incremental scanner state for one JSON value that starts with `{` or `[`.
#[derive(Debug, Clone)]
pub(crate) struct Scanner {
    lenient: bool,
    stack: Vec<Frame>,
    scalar: Scalar,
    capture: Option<Vec<u8>>,
    capturing: bool,
    key_role: KeyRole,
    /// The tool name read from the first top-level `"tool"` or `"name"` key, once its string closed. The
    /// first wins so that the name announced while streaming never depends on where chunks end.
    pub(crate) name: Option<String>,
    /// Whether `name` came from a `"tool"` key (tagged) rather than `"name"` (hermes).
    pub(crate) name_from_tool: bool,
    /// Whether a top-level arguments key (`params`, `arguments`, `parameters`) has been read.
    pub(crate) saw_args: bool,
    /// Whether the value is complete.
    pub(crate) done: bool,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_bare(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-' | b'$')
}

fn show(c: u8) -> String {
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else {
        format!("byte 0x{c:02x}")
    }
}

impl Scanner {
    /// A scanner for strict JSON, or for the lenient superset.
    pub(crate) fn new(lenient: bool) -> Self {
        Scanner {
            lenient,
            stack: Vec::new(),
            scalar: Scalar::None,
            capture: None,
            capturing: false,
            key_role: KeyRole::Other,
            name: None,
            name_from_tool: false,
            saw_args: false,
            done: false,
        }
    }

    /// Whether the value is a top-level object (the call shape), as far as has been read.
    fn at_call_depth(&self) -> bool {
        self.stack.len() == 1 && matches!(self.stack[0], Frame::Obj(_))
    }

    fn in_key_position(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame::Obj(Obj::KeyOrEnd | Obj::Key))
        )
    }

    fn start_capture(&mut self, is_key: bool) {
        let wanted = self.at_call_depth() && (is_key || matches!(self.key_role, KeyRole::Name(_)));
        self.capturing = wanted;
        self.capture = wanted.then(Vec::new);
    }

    fn push_capture(&mut self, bytes: &[u8]) {
        if let Some(c) = &mut self.capture {
            if c.len() + bytes.len() > MAX_CAPTURE {
                self.capture = None;
            } else {
                c.extend_from_slice(bytes);
            }
        }
    }

    /// A string or bare word ended: record a key's role or a name's value.
    fn end_capture(&mut self, was_key: bool) {
        if !self.capturing {
            if was_key && self.at_call_depth() {
                self.key_role = KeyRole::Other;
            }
            return;
        }
        self.capturing = false;
        let text = self.capture.take().and_then(|c| String::from_utf8(c).ok());
        if was_key {
            self.key_role = match text.as_deref() {
                Some("tool") => KeyRole::Name(true),
                Some("name") => KeyRole::Name(false),
                Some("params" | "arguments" | "parameters") => {
                    self.saw_args = true;
                    KeyRole::Args
                }
                _ => KeyRole::Other,
            };
        } else if let (KeyRole::Name(is_tool), Some(name)) = (self.key_role, text) {
            if self.name.is_none() {
                self.name = Some(name);
                self.name_from_tool = is_tool;
            }
        }
    }

    /// A value (scalar or container) just ended; returns true when it was the top-level value.
    fn value_done(&mut self) -> bool {
        match self.stack.last_mut() {
            None => {
                self.done = true;
                true
            }
            Some(Frame::Obj(st)) => {
                *st = Obj::CommaOrEnd;
                false
            }
            Some(Frame::Arr(st)) => {
                *st = Arr::CommaOrEnd;
                false
            }
        }
    }

    fn push(&mut self, f: Frame, at: usize) -> Result<(), Scan> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Scan::Error(
                at,
                format!("the JSON nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.stack.push(f);
        Ok(())
    }

    /// Starts a value at `b[i]`; returns the index to continue from.
    fn start_value(&mut self, b: &[u8], i: usize) -> Result<usize, Scan> {
        let c = b[i];
        match c {
            b'{' => self.push(Frame::Obj(Obj::KeyOrEnd), i)?,
            b'[' => self.push(Frame::Arr(Arr::ValueOrEnd), i)?,
            b'"' => {
                self.start_capture(false);
                self.scalar = Scalar::Str {
                    quote: c,
                    escaped: false,
                };
            }
            b'\'' if self.lenient => {
                self.start_capture(false);
                self.scalar = Scalar::Str {
                    quote: c,
                    escaped: false,
                };
            }
            _ if self.lenient && is_bare(c) => {
                self.start_capture(false);
                self.scalar = Scalar::Bare;
                return Ok(i);
            }
            b'-' => self.scalar = Scalar::Num(Num::Minus),
            b'0' => self.scalar = Scalar::Num(Num::Zero),
            b'1'..=b'9' => self.scalar = Scalar::Num(Num::Int),
            b't' => {
                self.scalar = Scalar::Lit {
                    word: b"true",
                    at: 1,
                }
            }
            b'f' => {
                self.scalar = Scalar::Lit {
                    word: b"false",
                    at: 1,
                }
            }
            b'n' => {
                self.scalar = Scalar::Lit {
                    word: b"null",
                    at: 1,
                }
            }
            _ => {
                return Err(Scan::Error(
                    i,
                    format!("expected a JSON value, found {}", show(c)),
                ))
            }
        }
        Ok(i + 1)
    }

    /// Feeds `b[i..]`; returns where scanning stopped and why. Call again with more bytes after `More`.
    pub(crate) fn feed(&mut self, b: &[u8], mut i: usize) -> (usize, Scan) {
        while i < b.len() {
            match self.scalar {
                Scalar::Str { quote, escaped } => {
                    if escaped {
                        let mapped: Option<u8> = match b[i] {
                            c @ (b'"' | b'\\' | b'/' | b'\'') => Some(c),
                            _ => None,
                        };
                        match mapped {
                            Some(c) => self.push_capture(&[c]),
                            None => self.capture = None,
                        }
                        self.scalar = Scalar::Str {
                            quote,
                            escaped: false,
                        };
                        i += 1;
                        continue;
                    }
                    let rest = &b[i..];
                    match memchr2(quote, b'\\', rest) {
                        None => {
                            self.push_capture(rest);
                            i = b.len();
                        }
                        Some(k) => {
                            self.push_capture(&rest[..k]);
                            i += k;
                            if b[i] == b'\\' {
                                self.scalar = Scalar::Str {
                                    quote,
                                    escaped: true,
                                };
                                i += 1;
                            } else {
                                i += 1;
                                self.scalar = Scalar::None;
                                if self.end_word() {
                                    return (i, Scan::Done(i));
                                }
                            }
                        }
                    }
                }
                Scalar::Num(st) => {
                    let c = b[i];
                    let next = match (st, c) {
                        (Num::Minus, b'0') => Some(Num::Zero),
                        (Num::Minus, b'1'..=b'9') => Some(Num::Int),
                        (Num::Int, b'0'..=b'9') => Some(Num::Int),
                        (Num::Zero | Num::Int, b'.') => Some(Num::Dot),
                        (Num::Dot | Num::Frac, b'0'..=b'9') => Some(Num::Frac),
                        (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Some(Num::E),
                        (Num::E, b'+' | b'-') => Some(Num::ESign),
                        (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Some(Num::Exp),
                        _ => None,
                    };
                    match next {
                        Some(n) => {
                            self.scalar = Scalar::Num(n);
                            i += 1;
                        }
                        None if matches!(st, Num::Zero | Num::Int | Num::Frac | Num::Exp) => {
                            // The number ended; `c` belongs to the container.
                            self.scalar = Scalar::None;
                            self.value_done();
                        }
                        None => {
                            return (
                                i,
                                Scan::Error(i, format!("invalid number before {}", show(c))),
                            )
                        }
                    }
                }
                Scalar::Lit { word, at } => {
                    if b[i] != word[at] {
                        return (
                            i,
                            Scan::Error(i, format!("expected a JSON value, found {}", show(b[i]))),
                        );
                    }
                    i += 1;
                    if at + 1 == word.len() {
                        self.scalar = Scalar::None;
                        self.value_done();
                    } else {
                        self.scalar = Scalar::Lit { word, at: at + 1 };
                    }
                }
                Scalar::Bare => {
                    let start = i;
                    while i < b.len() && is_bare(b[i]) {
                        i += 1;
                    }
                    self.push_capture(&b[start..i]);
                    if i < b.len() {
                        self.scalar = Scalar::None;
                        if self.end_word() {
                            return (i, Scan::Done(i));
                        }
                    }
                }
                Scalar::None => match self.structural(b, i) {
                    Ok(next) => {
                        i = next;
                        if self.done {
                            return (i, Scan::Done(i));
                        }
                    }
                    Err(e) => return (i, e),
                },
            }
        }
        (i, Scan::More)
    }

    /// A string or bare word ended: it was a key (expect `:`) or a value. Returns true at the top level.
    fn end_word(&mut self) -> bool {
        if self.in_key_position() {
            self.end_capture(true);
            if let Some(Frame::Obj(st)) = self.stack.last_mut() {
                *st = Obj::Colon;
            }
            false
        } else {
            self.end_capture(false);
            self.value_done()
        }
    }

    /// One structural byte at `b[i]` (outside any scalar); returns the next index.
    fn structural(&mut self, b: &[u8], mut i: usize) -> Result<usize, Scan> {
        let c = b[i];
        if is_ws(c) {
            while i < b.len() && is_ws(b[i]) {
                i += 1;
            }
            return Ok(i);
        }
        let top = self.stack.last().copied();
        let err = |what: &str| {
            Err(Scan::Error(
                i,
                format!("expected {what}, found {}", show(c)),
            ))
        };
        match top {
            None => match c {
                b'{' | b'[' => self.start_value(b, i),
                _ => err("'{' or '['"),
            },
            Some(Frame::Obj(st)) => match (st, c) {
                (Obj::KeyOrEnd, b'}') | (Obj::CommaOrEnd, b'}') => self.close(i),
                (Obj::Key, b'}') if self.lenient => self.close(i),
                (Obj::KeyOrEnd | Obj::Key, b'"') => {
                    self.start_capture(true);
                    self.scalar = Scalar::Str {
                        quote: c,
                        escaped: false,
                    };
                    Ok(i + 1)
                }
                (Obj::KeyOrEnd | Obj::Key, b'\'') if self.lenient => {
                    self.start_capture(true);
                    self.scalar = Scalar::Str {
                        quote: c,
                        escaped: false,
                    };
                    Ok(i + 1)
                }
                (Obj::KeyOrEnd | Obj::Key, _) if self.lenient && is_bare(c) => {
                    self.start_capture(true);
                    self.scalar = Scalar::Bare;
                    Ok(i)
                }
                (Obj::KeyOrEnd, _) => err("a string key or '}'"),
                (Obj::Key, _) => err("a string key"),
                (Obj::Colon, b':') => {
                    self.stack.pop();
                    self.stack.push(Frame::Obj(Obj::Value));
                    Ok(i + 1)
                }
                (Obj::Colon, _) => err("':'"),
                (Obj::Value, _) => self.start_value(b, i),
                (Obj::CommaOrEnd, b',') => {
                    self.stack.pop();
                    self.stack.push(Frame::Obj(Obj::Key));
                    if self.at_call_depth() {
                        self.key_role = KeyRole::Other;
                    }
                    Ok(i + 1)
                }
                (Obj::CommaOrEnd, _) => err("',' or '}'"),
            },
            Some(Frame::Arr(st)) => match (st, c) {
                (Arr::ValueOrEnd, b']') | (Arr::CommaOrEnd, b']') => self.close(i),
                (Arr::Value, b']') if self.lenient => self.close(i),
                (Arr::ValueOrEnd | Arr::Value, _) => self.start_value(b, i),
                (Arr::CommaOrEnd, b',') => {
                    self.stack.pop();
                    self.stack.push(Frame::Arr(Arr::Value));
                    Ok(i + 1)
                }
                (Arr::CommaOrEnd, _) => err("',' or ']'"),
            },
        }
    }

    fn close(&mut self, i: usize) -> Result<usize, Scan> {
        self.stack.pop();
        self.value_done();
        Ok(i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_all(s: &str, lenient: bool) -> Scan {
        let mut sc = Scanner::new(lenient);
        sc.feed(s.as_bytes(), 0).1
    }

    fn scan_bytewise(s: &str, lenient: bool) -> Scan {
        let mut sc = Scanner::new(lenient);
        let b = s.as_bytes();
        let mut i = 0;
        for end in 1..=b.len() {
            let (next, r) = sc.feed(&b[..end], i);
            i = next;
            if r != Scan::More {
                return r;
            }
        }
        Scan::More
    }

    #[test]
    fn finds_the_end_of_an_object_past_braces_and_tags_in_strings() {
        let s = r#"{"a": "}</tool_call>", "b": [1, -2.5e3, true, null, {"c": "\"}"}]} tail"#;
        let end = s.find(" tail").unwrap();
        assert_eq!(scan_all(s, false), Scan::Done(end));
        assert_eq!(scan_bytewise(s, false), Scan::Done(end));
    }

    #[test]
    fn reports_where_strict_json_breaks() {
        for (s, at) in [
            (r#"{"a": 1,}"#, 8),
            (r#"{'a': 1}"#, 1),
            (r#"{a: 1}"#, 1),
            (r#"{"a": True}"#, 6),
            (r#"{"a": 01}"#, 7),
            (r#"{"a" 1}"#, 5),
            (r#"[1 2]"#, 3),
        ] {
            match scan_all(s, false) {
                Scan::Error(i, _) => assert_eq!(i, at, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
            assert!(matches!(scan_bytewise(s, false), Scan::Error(i, _) if i == at));
        }
    }

    #[test]
    fn lenient_accepts_the_common_slips() {
        for s in [
            r#"{"a": 1,}"#,
            r#"{'a': 'it\'s'}"#,
            r#"{a: True, b: None, c: [1, 2,],}"#,
        ] {
            assert_eq!(scan_all(s, true), Scan::Done(s.len()), "{s}");
            assert_eq!(scan_bytewise(s, true), Scan::Done(s.len()), "{s}");
        }
    }

    #[test]
    fn captures_the_name_and_the_arguments_key() {
        let mut sc = Scanner::new(false);
        let s = r#"{"params": {"tool": "inner", "name": "x"}, "name": "n", "tool": "calculator"}"#;
        assert_eq!(sc.feed(s.as_bytes(), 0).1, Scan::Done(s.len()));
        assert_eq!(sc.name.as_deref(), Some("n"));
        assert!(!sc.name_from_tool);
        assert!(sc.saw_args);
        let mut sc = Scanner::new(false);
        let s = r#"{"name": "get_weather", "arguments": "{}"}"#;
        sc.feed(s.as_bytes(), 0);
        assert_eq!(sc.name.as_deref(), Some("get_weather"));
    }

    #[test]
    fn a_number_at_the_end_of_a_chunk_waits_for_the_next_byte() {
        let mut sc = Scanner::new(false);
        assert_eq!(sc.feed(b"[12", 0), (3, Scan::More));
        assert_eq!(sc.feed(b"[123]", 3), (5, Scan::Done(5)));
    }
}
