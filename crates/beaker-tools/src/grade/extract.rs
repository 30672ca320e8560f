//! Finding the final answer in model text: the last `\boxed{…}`, a "final answer" phrase, the last inline
//! math span, the whole text, or the last number; and a choice letter for multiple-choice references.

/// Where an answer was found, reported as the result's `extracted_from`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum From {
    /// The last `\boxed{…}` or `\fbox{…}` (nested boxes unwrapped).
    Boxed,
    /// After the last "final answer", "the answer is" or "answer:".
    Phrase,
    /// The last inline math span (`$…$`, `\(…\)`).
    Math,
    /// The whole text.
    Whole,
    /// The last number in the text.
    LastNumber,
}

impl From {
    /// The name reported in results.
    pub(super) fn name(self) -> &'static str {
        match self {
            From::Boxed => "boxed",
            From::Phrase => "phrase",
            From::Math => "math",
            From::Whole => "whole",
            From::LastNumber => "last_number",
        }
    }
}

/// Phrases after which the final answer follows, longest first, matched case-insensitively.
const PHRASES: &[&str] = &[
    "final answer is",
    "final answer:",
    "final answer",
    "the answer is",
    "answer is",
    "answer:",
];

/// The content of the last `\boxed{…}` or `\fbox{…}` to close (so the outermost of nested boxes), nested boxes
/// unwrapped; `None` when there is none whose braces close. One pass over the text, whatever it holds.
pub(super) fn boxed(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    // For every open brace: whether it opens a box, and where.
    let mut stack: Vec<(bool, usize)> = Vec::new();
    let mut best: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'{' => {
                let before = text[..i].trim_end();
                stack.push((before.ends_with("\\boxed") || before.ends_with("\\fbox"), i));
            }
            b'}' => {
                if let Some((is_box, open)) = stack.pop() {
                    if is_box {
                        best = Some((open, i));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let (open, close) = best?;
    let mut inner = text[open + 1..close].trim();
    // `\boxed{\boxed{3}}`: a box that holds only a box.
    while let Some(rest) = inner
        .strip_prefix("\\boxed")
        .or_else(|| inner.strip_prefix("\\fbox"))
    {
        let rest = rest.trim_start();
        match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(r) if matching_brace(rest, 0) == Some(rest.len() - 1) => inner = r.trim(),
            _ => break,
        }
    }
    Some(inner)
}

/// The byte index of the `}` that closes the `{` at `open` (a `\{` or `\}` does not count).
pub(super) fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The text after the last answer phrase, up to the end of its line, without a closing full stop.
pub(super) fn after_phrase(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let (at, len) = PHRASES
        .iter()
        .filter_map(|p| lower.rfind(p).map(|i| (i, p.len())))
        .max_by_key(|&(i, len)| (i + len, len))?;
    let rest = &text[at + len..];
    let rest = rest.trim_start_matches([':', ' ', '\t']);
    let line = rest.lines().next().unwrap_or("").trim();
    let line = strip_sentence_end(line);
    (!line.is_empty()).then_some(line)
}

/// A sentence's closing full stop, and a closing `$`-span, are not part of the answer (`$42$.` is 42).
fn strip_sentence_end(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let t = s.trim_end_matches(['.', ';']).trim_end();
        // `3.` is three and `3.5` keeps its point (only trailing points go); `5!` keeps its factorial.
        if t.len() == s.len() {
            return s;
        }
        s = t;
    }
}

/// The content of the last inline math span: `$…$`, `$$…$$`, `\(…\)` or `\[…\]`.
pub(super) fn last_math<'a>(text: &'a str) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    let mut consider = |at: usize, inner: &'a str| {
        if best.is_none_or(|(b, _)| at > b) {
            best = Some((at, inner));
        }
    };
    for (open, close) in [("\\(", "\\)"), ("\\[", "\\]")] {
        if let Some(end) = text.rfind(close) {
            if let Some(start) = text[..end].rfind(open) {
                consider(end, &text[start + open.len()..end]);
            }
        }
    }
    // Dollar spans pair up from the left; `\$` is a literal dollar sign.
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut open: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == b'$' {
            let width = if b.get(i + 1) == Some(&b'$') { 2 } else { 1 };
            match open {
                None => open = Some(i + width),
                Some(s) => {
                    spans.push((s, i));
                    open = None;
                }
            }
            i += width;
            continue;
        }
        i += 1;
    }
    if let Some(&(s, e)) = spans.last() {
        consider(e, &text[s..e]);
    }
    best.map(|(_, inner)| inner.trim())
        .filter(|s| !s.is_empty())
}

/// The last number in the text (`-3`, `1,000`, `2.5`), thousands separators kept for the reader to drop.
pub(super) fn last_number(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let mut end = b.len();
    while end > 0 && !b[end - 1].is_ascii_digit() {
        end -= 1;
    }
    if end == 0 {
        return None;
    }
    let mut start = end;
    while start > 0 {
        let c = b[start - 1];
        let inner_sep = (c == b',' || c == b'.')
            && start >= 2
            && b[start - 2].is_ascii_digit()
            && b.get(start).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_digit() || inner_sep {
            start -= 1;
        } else {
            break;
        }
    }
    if start > 0 && b[start - 1] == b'-' && (start < 2 || !b[start - 2].is_ascii_alphanumeric()) {
        start -= 1;
    }
    Some(&text[start..end])
}

/// The answer part of model text and where it was found; `whole_reads` says whether a candidate reads as an
/// answer on its own (used for the whole text before falling back to its last number).
pub(super) fn answer(text: &str, whole_reads: impl Fn(&str) -> bool) -> (&str, From) {
    if let Some(b) = boxed(text) {
        return (b, From::Boxed);
    }
    if let Some(p) = after_phrase(text) {
        return (last_math(p).unwrap_or(p), From::Phrase);
    }
    if let Some(m) = last_math(text) {
        return (m, From::Math);
    }
    let whole = strip_sentence_end(text);
    if whole_reads(whole) {
        return (whole, From::Whole);
    }
    match last_number(text) {
        Some(n) => (n, From::LastNumber),
        None => (whole, From::Whole),
    }
}

/// A multiple-choice label as a reference states it: `B`, `(B)`, `B)`, `\text{B}`, `\boxed{B}`.
pub(super) fn choice_label(reference: &str) -> Option<char> {
    let r = boxed(reference).unwrap_or(reference);
    let r = unwrap_text(r.trim().trim_matches('$').trim());
    let inner = r
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .or_else(|| r.strip_suffix(')'))
        .or_else(|| r.strip_suffix('.'))
        .unwrap_or(r)
        .trim();
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() && c <= 'J' => Some(c),
        _ => None,
    }
}

/// `\text{B}`, `\textbf{B}`, `\mathrm{B}` → `B`.
fn unwrap_text(s: &str) -> &str {
    for cmd in ["\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{"] {
        if let Some(rest) = s.strip_prefix(cmd) {
            if let Some(inner) = rest.strip_suffix('}') {
                return inner.trim();
            }
        }
    }
    s
}

/// The choice letter a model's text gives: in its last box, after its last answer phrase (`The answer is
/// (B)`, `Answer: B`), as the whole text (`B`, `(b)`, `b)`), or as its last parenthesised letter.
pub(super) fn choice_in(text: &str) -> Option<(char, From)> {
    if let Some(b) = boxed(text) {
        return lone_letter(b, true).map(|c| (c, From::Boxed));
    }
    if let Some(p) = after_phrase(text) {
        if let Some(c) = leading_letter(p) {
            return Some((c, From::Phrase));
        }
    }
    if let Some(c) = lone_letter(strip_sentence_end(text), false) {
        return Some((c, From::Whole));
    }
    // The last `(X)` in running text.
    let b = text.as_bytes();
    (0..b.len().saturating_sub(2)).rev().find_map(|i| {
        (b[i] == b'('
            && b[i + 2] == b')'
            && b[i + 1].is_ascii_alphabetic()
            && b[i + 1].to_ascii_uppercase() <= b'J')
            .then(|| (char::from(b[i + 1].to_ascii_uppercase()), From::Whole))
    })
}

/// `B`, `(B)`, `B)`, `\text{B}`; a lowercase letter only with a bracket (`b)`, `(b)`), or anywhere when
/// `any_case` (inside a box, where no article can stand).
fn lone_letter(s: &str, any_case: bool) -> Option<char> {
    let s = unwrap_text(s.trim().trim_matches('$').trim());
    let (inner, bracketed) = match s.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        Some(r) => (r.trim(), true),
        None => match s.strip_suffix(')') {
            Some(r) => (r.trim(), true),
            None => (s, false),
        },
    };
    let inner = unwrap_text(inner);
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() && c.to_ascii_uppercase() <= 'J' => {
            (c.is_ascii_uppercase() || bracketed || any_case).then(|| c.to_ascii_uppercase())
        }
        _ => None,
    }
}

/// The letter that opens a phrase's answer: `(B).`, `B`, `\boxed{B}`, `B) 42`.
fn leading_letter(s: &str) -> Option<char> {
    let s = s.trim().trim_start_matches('$');
    let s = s.strip_prefix("\\text{").unwrap_or(s);
    let s = s.strip_prefix('(').unwrap_or(s);
    let mut chars = s.chars();
    let c = chars.next()?;
    let next = chars.next();
    let ends = next.is_none_or(|n| !n.is_ascii_alphanumeric());
    (c.is_ascii_alphabetic()
        && c.to_ascii_uppercase() <= 'J'
        && ends
        && (c.is_ascii_uppercase() || next == Some(')')))
    .then(|| c.to_ascii_uppercase())
}
