//! The markers of text traces: seed 001's `<tool_call>`/`<tool_result>` tags and seed 003's `<|name|>`
//! tokens, found in one pass.

/// A marker in a text trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker<'a> {
    /// `<tool_call>`, `</tool_call>`, `<tool_result>` or `</tool_result>`: the name and whether it closes.
    Tag { name: &'a str, close: bool },
    /// A `<|name|>` token (`think`, `/think`, `tool:calculator`, `tool_end`).
    Token(&'a str),
}

/// A marker and where it is: `start..end` bytes of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Found<'a> {
    pub start: usize,
    pub end: usize,
    pub marker: Marker<'a>,
}

/// Longest token name read as a token (`<|…|>`); longer runs are text.
const MAX_TOKEN: usize = 64;

/// The markers of `text` from byte `from` on, in order.
pub(crate) fn markers(text: &str, from: usize) -> impl Iterator<Item = Found<'_>> + '_ {
    let bytes = text.as_bytes();
    memchr::memchr_iter(b'<', &bytes[from.min(bytes.len())..])
        .map(move |i| i + from)
        .filter_map(move |i| read_marker(text, i))
}

/// The marker starting at byte `i` (a `<`), if there is one.
pub(crate) fn read_marker(text: &str, i: usize) -> Option<Found<'_>> {
    let rest = &text[i..];
    for (tag, name, close) in [
        ("<tool_call>", "tool_call", false),
        ("</tool_call>", "tool_call", true),
        ("<tool_result>", "tool_result", false),
        ("</tool_result>", "tool_result", true),
    ] {
        if rest.starts_with(tag) {
            return Some(Found {
                start: i,
                end: i + tag.len(),
                marker: Marker::Tag { name, close },
            });
        }
    }
    let inner = rest.strip_prefix("<|")?;
    let len = inner
        .bytes()
        .take(MAX_TOKEN + 1)
        .take_while(|b| b.is_ascii_alphanumeric() || b"_/:.-".contains(b))
        .count();
    if len == 0 || len > MAX_TOKEN || !inner[len..].starts_with("|>") {
        return None;
    }
    Some(Found {
        start: i,
        end: i + 2 + len + 2,
        marker: Marker::Token(&inner[..len]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_tags_and_tokens_only() {
        let t = "a <b> <tool_call>{}</tool_call> <|think|> <|tool:calculator|> <| x |> <|/answer|>";
        let found: Vec<Marker> = markers(t, 0).map(|f| f.marker).collect();
        assert_eq!(
            found,
            vec![
                Marker::Tag {
                    name: "tool_call",
                    close: false
                },
                Marker::Tag {
                    name: "tool_call",
                    close: true
                },
                Marker::Token("think"),
                Marker::Token("tool:calculator"),
                Marker::Token("/answer"),
            ]
        );
    }
}
