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
    "####",
    "final answer is",
    "final answer:",
    "final answer",
    "the answer is",
    "answer is",
    "answer:",
    // A running total's stated result (`First 5, then 7 more, so the total is 12.`).
    "the total is",
    "total is",
    "in total,",
    "total:",
];

/// The content of the last `\boxed{…}` or `\fbox{…}` to close (so the outermost of nested boxes), nested boxes
/// unwrapped; `None` when there is none whose braces close. One pass over the text, whatever it holds.
pub(super) fn boxed(text: &str) -> Option<&str> {
    let spans = box_spans(text);
    let &(open, close) = spans.last()?;
    Some(unbox(&text[open + 1..close]))
}

/// The final answer's boxes: the last box, or every box on its line when there are several there (`The roots
/// are \boxed{2} and \boxed{3}.` is the list `2, 3`), unless the text between them corrects itself (`First
/// \boxed{3}, then correcting: \boxed{4}`, `\boxed{5}... wait, actually \boxed{6}`): then the last box, as graders
/// used in RL take it.
pub(super) fn boxes(text: &str) -> Option<String> {
    let spans = box_spans(text);
    let &(open, close) = spans.last()?;
    let line_start = text[..open].rfind('\n').map_or(0, |i| i + 1);
    let line_spans: Vec<(usize, usize)> = spans
        .iter()
        .copied()
        .filter(|(o, _)| *o >= line_start)
        .collect();
    let corrected = line_spans
        .windows(2)
        .any(|w| corrects(&text[w[0].1 + 1..w[1].0]));
    let on_line: Vec<&str> = line_spans
        .iter()
        .map(|&(o, c)| unbox(&text[o + 1..c]))
        .collect();
    Some(if on_line.len() > 1 && !corrected {
        on_line.join(", ")
    } else {
        unbox(&text[open + 1..close]).to_string()
    })
}

/// Words by which a model takes back what it wrote before them.
const CORRECTIONS: &[&str] = &[
    "correct",
    "actually",
    "wait",
    "instead",
    "mistake",
    "oops",
    "sorry",
    "rather",
    "wrong",
    "error",
    "recheck",
    "re-check",
    "recalculat",
    "recomput",
    "redo",
    "revis",
    "hmm",
    "scratch that",
    "i mean",
    "make that",
    "no,",
];

/// Whether the text between two boxes takes back the first (`, then correcting:`, `... wait, actually`).
fn corrects(between: &str) -> bool {
    let lower = between.to_lowercase();
    CORRECTIONS.iter().any(|w| lower.contains(w))
}

/// `\boxed{\boxed{3}}`: a box that holds only a box is that box.
fn unbox(inner: &str) -> &str {
    let mut inner = inner.trim();
    while let Some(rest) = inner
        .strip_prefix("\\boxed")
        .or_else(|| inner.strip_prefix("\\fbox"))
    {
        let rest = rest.trim_start();
        match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(r) if beaker_expr::latex::matching_brace(rest, 0) == Some(rest.len() - 1) => {
                inner = r.trim()
            }
            _ => break,
        }
    }
    inner
}

/// The brace spans (`{` to `}`) of the boxes not inside another box, in text order; one pass over the text.
fn box_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    // For every open brace: whether it opens a box, and where.
    let mut stack: Vec<(bool, usize)> = Vec::new();
    let mut spans = Vec::new();
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
                    if is_box && !stack.iter().any(|(boxed, _)| *boxed) {
                        spans.push((open, i));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    spans
}

/// The text after the last answer phrase, up to the end of its line, without a closing full stop.
pub(super) fn after_phrase(text: &str) -> Option<&str> {
    let lower = text.to_ascii_lowercase();
    let (at, len) = PHRASES
        .iter()
        .filter_map(|p| lower.rfind(p).map(|i| (i, p.len())))
        .max_by_key(|&(i, len)| (i + len, len))?;
    // `**Final Answer:** 72`, `**Final Answer**` and the answer on a later line.
    let rest = text[at + len..].trim_start_matches([':', ' ', '\t', '*', '\r', '\n']);
    let line = rest.lines().next().unwrap_or("").trim();
    // `12, since 3*4 = 12`, `1/4 (0.25)`: what follows is the reason or a restatement.
    let cut = [
        " because",
        ", because",
        " since",
        ", since",
        ", which",
        " which",
        ", so ",
        "; ",
        " (",
    ]
    .iter()
    .filter_map(|c| line.find(c).filter(|&i| *c != " (" || restatement(line, i)))
    .filter(|&i| i > 0)
    .min()
    .unwrap_or(line.len());
    let line = strip_sentence_end(line[..cut].trim_end_matches([',', ' ']));
    let line = line.trim_matches('*').trim();
    (!line.is_empty()).then_some(line)
}

/// Whether the bracket at `line[i + 1]` restates what comes before it (` (0.25)`, ` (about 0.25)`), rather than
/// multiplying it (`2 (x+1)`, `9x + (4)`).
fn restatement(line: &str, i: usize) -> bool {
    let before = line[..i].trim_end();
    let inside = line[i + 2..].split(')').next().unwrap_or("");
    !before.ends_with(['+', '-', '*', '/', '^', '=', '(', '\\'])
        && ((inside.contains('.') && inside.trim().parse::<f64>().is_ok())
            || inside
                .split_whitespace()
                .any(|w| w.len() >= 3 && w.chars().all(char::is_alphabetic)))
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
    // `$10 per hour … $40`: dollar signs around prose are amounts of money, not a math span.
    if let Some(&(s, e)) = spans
        .iter()
        .rev()
        .find(|&&(s, e)| !super::has_words(&text[s..e]))
    {
        consider(e, &text[s..e]);
    }
    best.map(|(_, inner)| inner.trim())
        .filter(|s| !s.is_empty())
}

/// The last number in the text (`-3`, `1,000`, `2.5`), thousands separators kept for the reader to drop.
pub(super) fn last_number(text: &str) -> Option<String> {
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
    // A percent sign, plain or LaTeX, belongs to the number (`0.75%` is not 0.75).
    let percent = if text[end..].starts_with('%') || text[end..].starts_with("\\%") {
        "%"
    } else {
        ""
    };
    // The sign: `-3`, `−5` (a Unicode minus), `-$25` (a dollar amount).
    let before = text[..start].strip_suffix('$').unwrap_or(&text[..start]);
    let signed = (before.ends_with('-') || before.ends_with('−')) && {
        let b2 = before.trim_end_matches(['-', '−']);
        !b2.ends_with(|c: char| c.is_ascii_alphanumeric())
    };
    let sign = if signed { "-" } else { "" };
    Some(format!("{sign}{}{percent}", &text[start..end]))
}

/// The answer part of model text and where it was found; `whole_reads` says whether a candidate reads as an
/// answer on its own (used for the whole text before falling back to its last number).
/// How many separate numbers a text holds (`1,250` and `2.5` are one each).
fn count_numbers(text: &str) -> usize {
    let b = text.as_bytes();
    (0..b.len())
        .filter(|&i| {
            b[i].is_ascii_digit()
                && (i == 0
                    || !(b[i - 1].is_ascii_digit()
                        || ((b[i - 1] == b'.' || b[i - 1] == b',')
                            && i >= 2
                            && b[i - 2].is_ascii_digit())))
        })
        .count()
}

/// The answer part of model text and where it was found. `is_sentence` says whether the text is prose: then
/// its last number is its answer; otherwise the whole text is (mathematics that does not read is graded as it
/// is, never by a number picked out of it: `x \geq 2` is not 2).
pub(super) fn answer(text: &str, is_sentence: impl Fn(&str) -> bool) -> (String, From) {
    if let Some(b) = boxes(text) {
        return (b, From::Boxed);
    }
    if let Some(p) = after_phrase(text) {
        let p = last_math(p).unwrap_or(p);
        // `## Final Answer` then `The total is 12 apples.`: prose after the phrase gives its number, when it holds
        // one and nothing that changes it (`either 12 or 13`, `not 12`, `at least 12`, `3 million`).
        if is_sentence(p)
            && count_numbers(p) == 1
            && plain_prose(p)
            && !p.contains(['\\', '(', '+', '*', '/', '=', '!'])
        {
            if let Some(n) = last_number(p) {
                return (n, From::Phrase);
            }
        }
        return (p.to_string(), From::Phrase);
    }
    if let Some(m) = last_math(text) {
        return (m.to_string(), From::Math);
    }
    let whole = strip_sentence_end(text);
    if !is_sentence(whole) {
        return (whole.to_string(), From::Whole);
    }
    // The last sentence's last number, unless that sentence changes or doubts it (`x > 3`, `7 or maybe 8`,
    // `3.2 billion`, `7, which is wrong`).
    let last_sentence = whole.rsplit(". ").next().unwrap_or(whole);
    match last_number(text).filter(|_| plain_prose(last_sentence)) {
        Some(n) => (n, From::LastNumber),
        None => (whole.to_string(), From::Whole),
    }
}

/// Words that change a number or doubt it; prose holding one gives no number.
const CHANGES: &[&str] = &[
    "not",
    "no",
    "never",
    "cannot",
    "can't",
    "isn't",
    "than",
    "least",
    "most",
    "twice",
    "half",
    "double",
    "triple",
    "minus",
    "negative",
    "root",
    "squared",
    "cubed",
    "factorial",
    "hundred",
    "thousand",
    "million",
    "billion",
    "trillion",
    "dozen",
    "percent",
    "tenths",
    "hundredths",
    "thirds",
    "quarters",
    "inverse",
    "less",
    "more",
    "below",
    "above",
    "times",
    "plus",
    "or",
    "either",
    "maybe",
    "wrong",
    "incorrect",
    "about",
    "approximately",
    "around",
    "nearly",
    "almost",
    "impossible",
    "undefined",
    "unknown",
];

/// Whether prose states its number plainly: no word of [`CHANGES`], no comparison (`>`, `\geq`, `≠`), no power
/// or subscript.
pub(super) fn plain_prose(p: &str) -> bool {
    let lower = p.to_lowercase();
    let words = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .any(|w| CHANGES.contains(&w.replace('’', "'").as_str()));
    let compares = [
        "<", ">", "≤", "≥", "≠", "\\ge", "\\le", "\\ne", "\\approx", "≈", "^", "_",
    ]
    .iter()
    .any(|c| p.contains(c));
    !words && !compares
}

/// A multiple-choice label as a reference states it: `B`, `(B)`, `B)`, `\text{B}`, `\boxed{B}`.
pub(super) fn choice_label(reference: &str) -> Option<char> {
    let r = boxed(reference).unwrap_or(reference);
    let r = unwrap_text(r.trim().trim_matches('$').trim());
    // `(A) 12`: the option with its text.
    let b = r.as_bytes();
    if b.len() > 4
        && b[0] == b'('
        && b[2] == b')'
        && b[3] == b' '
        && b[1].is_ascii_uppercase()
        && b[1] <= b'J'
    {
        return Some(char::from(b[1]));
    }
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

/// Phrases after which a choice letter follows, besides the answer phrases.
const CHOICE_PHRASES: &[&str] = &[
    "correct option is",
    "option is",
    "choice is",
    "i choose",
    "i pick",
    "select",
];

/// The choice letter a model's text gives: in its last box (`\boxed{B}`, `\boxed{\textbf{(C)}\ 14}`), after its
/// last answer phrase (`The answer is (B)`, `Answer: **B**`, `The correct option is B.`), or as the whole text
/// (`B`, `(b)`, `b)`). A letter merely mentioned in running text (`(A) is too small`) is not an answer.
pub(super) fn choice_in(text: &str) -> Option<(char, From)> {
    if let Some(b) = boxes(text) {
        let b = super::read::clean(&b);
        // `\boxed{B, C}`, `\boxed{A} or \boxed{B}`: more than one letter is no answer.
        if letters(&b) > 1 {
            return None;
        }
        return lone_letter(&b, true)
            .or_else(|| leading_letter(&b, true))
            .map(|c| (c, From::Boxed));
    }
    let lower = text.to_ascii_lowercase();
    let choice_phrase = CHOICE_PHRASES
        .iter()
        .filter_map(|p| lower.rfind(p).map(|i| i + p.len()))
        .max();
    let phrase = after_phrase(text);
    let answer_phrase = phrase.map(|p| p.as_ptr() as usize - text.as_ptr() as usize);
    let after = match (answer_phrase, choice_phrase) {
        (Some(a), Some(c)) if c > a => Some(&text[c..]),
        (Some(_), _) => phrase,
        (None, Some(c)) => Some(&text[c..]),
        (None, None) => None,
    };
    if let Some(p) = after {
        let p = super::read::clean(p.trim_start_matches([':', ' ', '*']));
        // `(B) is wrong, it is (C)`, `B. Wait, no, E.`, `not (B)`: a phrase that names several letters, or
        // denies one, is no answer.
        let lower = p.to_lowercase();
        let denies = lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| matches!(w, "not" | "wrong" | "incorrect" | "wait" | "no" | "isn"));
        if letters(&p) > 1 || denies {
            return None;
        }
        let lower = p.to_ascii_lowercase();
        let p = ["option ", "choice "]
            .iter()
            .find(|w| lower.starts_with(*w))
            .map_or(p.as_str(), |w| p[w.len()..].trim_start());
        // `Answer: It is (B).`: a bracketed letter in the phrase, when it does not open with one.
        let bracketed = || {
            let b = p.as_bytes();
            (0..b.len().saturating_sub(2)).rev().find_map(|i| {
                (b[i] == b'('
                    && b[i + 2] == b')'
                    && b[i + 1].is_ascii_uppercase()
                    && b[i + 1] <= b'J')
                    .then(|| char::from(b[i + 1]))
            })
        };
        return leading_letter(p, false)
            .or_else(bracketed)
            .map(|c| (c, From::Phrase));
    }
    lone_letter(strip_sentence_end(text), false).map(|c| (c, From::Whole))
}

/// How many different choice letters a text names: bracketed (`(B)`), in bold (`**B**`), or standing alone
/// before punctuation or the end (`B.`, `B,`, `B`); `I am` and `A and` are words, not letters.
fn letters(s: &str) -> usize {
    let b = s.as_bytes();
    let mut seen = [false; 10];
    for i in 0..b.len() {
        let c = b[i];
        if !(b'A'..=b'J').contains(&c) {
            continue;
        }
        let before = if i == 0 { b' ' } else { b[i - 1] };
        let after = b.get(i + 1).copied().unwrap_or(b' ');
        let bracketed = before == b'(' && after == b')';
        let alone = !before.is_ascii_alphanumeric()
            && !after.is_ascii_alphanumeric()
            && (matches!(after, b'.' | b',' | b')' | b'*' | b'}' | b';' | b'&')
                || i + 1 == b.len()
                || (after == b' ' && !b.get(i + 2).is_some_and(u8::is_ascii_lowercase)));
        if bracketed || alone {
            seen[usize::from(c - b'A')] = true;
        }
    }
    seen.iter().filter(|&&x| x).count()
}

/// `B`, `(B)`, `B)`, `\text{B}`; a lowercase letter only with a bracket (`b)`, `(b)`), or anywhere when
/// `any_case` (inside a box, where no article can stand).
fn lone_letter(s: &str, any_case: bool) -> Option<char> {
    let s = unwrap_text(s.trim().trim_matches(['$', '*']).trim());
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

/// The letter that opens an answer: `(B).`, `B`, `**B**`, `B) 42`, `C. 12`, `(C) 14`. Not `I believe…` or `A and
/// C`: a bare letter followed by a lower-case word is a word of a sentence.
fn leading_letter(s: &str, any_case: bool) -> Option<char> {
    let s = s.trim().trim_start_matches(['$', '*', ' ']);
    let s = s.strip_prefix("\\text{").unwrap_or(s);
    let s = s.strip_prefix('(').unwrap_or(s);
    let mut chars = s.chars();
    let c = chars.next()?;
    let rest = chars.as_str();
    let next = rest.chars().next();
    let closes = next.is_some_and(|n| matches!(n, ')' | '.' | ',' | ':' | '*' | '}' | ';'));
    let ends = next.is_none() || closes;
    let then_word = rest
        .trim_start()
        .starts_with(|n: char| n.is_ascii_lowercase());
    let spaced = next.is_some_and(char::is_whitespace) && !then_word;
    let upper_ok = c.is_ascii_uppercase() || any_case || next == Some(')');
    (c.is_ascii_alphabetic() && c.to_ascii_uppercase() <= 'J' && upper_ok && (ends || spaced))
        .then(|| c.to_ascii_uppercase())
}
