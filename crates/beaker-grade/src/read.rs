//! Reading an answer: LaTeX and plain text cleaned, split into its shape (a set, a tuple or interval, a
//! list, an equation, a percentage, a scalar), and each scalar translated to the expression language
//! (`\frac{1}{2}` → `(1)/(2)`, `2\sqrt{2}` → `2*sqrt(2)`, `\sin^2 x` → `sin(x)^2`, implicit products made
//! explicit).

use beaker_expr::latex::{self, Target};

/// Deepest nesting of groups the translator follows; answers are shallow, and this keeps its recursion small.
pub(super) const MAX_NESTING: usize = latex::MAX_NESTING;
/// Most items in one set, tuple or list.
pub(super) const MAX_ITEMS: usize = 1000;

/// An answer's structure.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    /// One value (an expression, or ±∞), as cleaned text.
    Scalar(String),
    /// `25\%`: the number of percent.
    Percent(String),
    /// `lhs = rhs`.
    Equation(String, String),
    /// `\{1, 2\}`: order and repetition do not matter.
    Set(Vec<Shape>),
    /// `(1, 2]`, `[0, 1]`, `(2, 3)`: a tuple or an interval, with its brackets.
    Seq(char, char, Vec<Shape>),
    /// `1, 2, 3` without brackets.
    List(Vec<Shape>),
}

/// Strips math delimiters, layout commands and text wrappers, and a sentence's closing full stop.
pub(super) fn clean(s: &str) -> String {
    let mut t = latex::strip_delimiters(s).to_string();
    // Unicode a model may write: superscript powers, vulgar fractions, `40 percent`.
    if !t.is_ascii() {
        // After a digit a vulgar fraction is a mixed number's (`2½` is 5/2, read as `2 1/2`).
        for (from, to) in [
            ("½", "1/2"),
            ("¼", "1/4"),
            ("¾", "3/4"),
            ("⅓", "1/3"),
            ("⅔", "2/3"),
        ] {
            for d in '0'..='9' {
                let pat = format!("{d}{from}");
                if t.contains(&pat) {
                    t = t.replace(&pat, &format!("{d} {to}"));
                }
            }
        }
        for (from, to) in [
            ("²", "^2"),
            ("³", "^3"),
            ("½", "(1/2)"),
            ("¼", "(1/4)"),
            ("¾", "(3/4)"),
            ("⅓", "(1/3)"),
            ("⅔", "(2/3)"),
        ] {
            if t.contains(from) {
                t = t.replace(from, to);
            }
        }
    }
    // Most answers are plain (`18`, `3/4`): only text with a backslash, brace or tilde has anything to rewrite.
    if t.contains(['\\', '{', '~']) {
        t = latex::normalize(t);
        if t.contains("e^{") {
            t = euler(&t);
        }
    }
    // `40 percent`, `40 \text{ percent}`: a percentage.
    if let Some(p) = t.trim_end().strip_suffix("percent") {
        if p.ends_with(char::is_whitespace) {
            t = format!("{}%", p.trim_end());
        }
    }
    // A dollar amount (`$72`, `-$25`, `\$18.90`): one dollar sign before a number is currency, not math.
    if t.matches('$').count() == 1 {
        if let Some(at) = t.find('$') {
            let before = t[..at].trim();
            let after_digit = t[at + 1..]
                .trim_start()
                .starts_with(|c: char| c.is_ascii_digit() || c == '.');
            if after_digit && (before.is_empty() || before == "-" || before == "−") {
                t.remove(at);
            }
        }
    }
    let t = t.trim();
    t.strip_suffix('.').unwrap_or(t).trim().to_string()
}

/// `e^{i\pi}`, `e^{2\pi i}`, `e^{-i\pi}`: Euler's formula at a whole multiple of π is ±1, so these complex
/// constants are the real numbers they equal (`e^{i\pi/2}` is `i` and is left as written).
fn euler(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(at) = rest.find("e^{") {
        let standalone = !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '\\');
        let open = at + 2;
        let close = latex::matching_brace(rest, open);
        let k = close.filter(|_| standalone).and_then(|close| {
            let e: String = rest[open + 1..close]
                .replace("\\cdot", "")
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '*')
                .collect();
            let e = e.replacen("\\pi", "", 1).replacen('π', "", 1);
            (e.matches('i').count() == 1 && !e.contains(['\\', 'π']))
                .then(|| e.replacen('i', "", 1))
                .and_then(|k| match k.as_str() {
                    "" | "+" => Some(1i64),
                    "-" => Some(-1),
                    k => k.parse().ok(),
                })
        });
        match (k, close) {
            (Some(k), Some(close)) => {
                out.push_str(&rest[..at]);
                out.push_str(if k % 2 == 0 { "(1)" } else { "(-1)" });
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `1,000,000` and `1,234.5`: a number with thousands separators.
fn thousands(s: &str) -> Option<String> {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    let groups: Vec<&str> = int.split(',').collect();
    let ok = groups.len() > 1
        && (1..=3).contains(&groups[0].len())
        && groups[1..].iter().all(|g| g.len() == 3)
        && groups.iter().all(|g| g.bytes().all(|c| c.is_ascii_digit()))
        && frac.bytes().all(|c| c.is_ascii_digit());
    ok.then(|| s.replace(',', ""))
}

/// Splits at top-level occurrences of `sep` (outside brackets and braces).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut buf = [0u8; 4];
    split_top_str(s, sep.encode_utf8(&mut buf))
}

/// Splits at top-level occurrences of `pat` (outside brackets, braces and `\{…\}`).
fn split_top_str<'a>(s: &'a str, pat: &str) -> Vec<&'a str> {
    let found = top_level(s, |rest| rest.starts_with(pat).then_some((pat.len(), ())));
    pieces(s, &found)
}

/// The top-level places (outside brackets, braces and `\{…\}`) where `at` recognizes something in the rest of
/// `s`: each one's start, its length and what `at` made of it. Splitting at a separator and finding an
/// inequality's signs both read `s` this way.
fn top_level<T>(s: &str, at: impl Fn(&str) -> Option<(usize, T)>) -> Vec<(usize, usize, T)> {
    let mut out = Vec::new();
    let mut depth = 0i64;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !s.is_char_boundary(i) {
            i += 1;
            continue;
        }
        if depth == 0 {
            if let Some((len, what)) = at(&s[i..]) {
                out.push((i, len, what));
                i += len;
                continue;
            }
        }
        match b[i] {
            b'\\' => {
                // `\{` and `\}` are brackets; any other escaped character is skipped.
                match b.get(i + 1) {
                    Some(b'{') => depth += 1,
                    Some(b'}') => depth -= 1,
                    _ => {}
                }
                i += 2;
                while i < b.len() && !s.is_char_boundary(i) {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    out
}

/// The pieces of `s` between the places `top_level` found.
fn pieces<'a, T>(s: &'a str, found: &[(usize, usize, T)]) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(found.len() + 1);
    let mut start = 0;
    for &(at, len, _) in found {
        out.push(&s[start..at]);
        start = at + len;
    }
    out.push(&s[start..]);
    out
}

/// Whether the bracket opening `s` is closed by its last character (any of `([` against any of `)]`).
fn wraps(s: &str) -> bool {
    let mut depth = 0i64;
    let n = s.chars().count();
    for (k, c) in s.chars().enumerate() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    return k + 1 == n;
                }
            }
            _ => {}
        }
    }
    false
}

/// Reads a cleaned answer's shape.
pub(super) fn shape(s: &str, depth: usize) -> Result<Shape, String> {
    if depth > MAX_NESTING {
        return Err(format!("nested more than {MAX_NESTING} deep"));
    }
    let s = s.trim();
    if s.is_empty() {
        return Err("the answer is empty".into());
    }
    if let Some(t) = thousands(s) {
        return Ok(Shape::Scalar(t));
    }
    if matches!(
        s,
        "\\emptyset" | "\\varnothing" | "∅" | "\\{\\}" | "\\{ \\}" | "{}"
    ) {
        return Ok(Shape::Set(Vec::new()));
    }
    // `(-\infty, 1) \cup (2, \infty)`: a union is the set of its parts; `x = 2 or x = 3`, `2 and 3`: a list.
    for (pat, union) in [
        ("\\cup", true),
        ("∪", true),
        (" or ", false),
        ("\\lor", false),
        (" and ", false),
    ] {
        let parts = split_top_str(s, pat);
        if parts.len() > 1 {
            if parts.len() > MAX_ITEMS {
                return Err(format!("more than {MAX_ITEMS} items"));
            }
            let items = parts
                .into_iter()
                .map(|p| shape(p, depth + 1))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(if union {
                Shape::Set(items)
            } else {
                Shape::List(items)
            });
        }
    }
    // `x \approx 2.5` is 2.5; `\frac{\sqrt{3}}{2} \approx 0.866` is the exact value before the rounding.
    for approx in ["\\approx", "≈"] {
        let parts = split_top_str(s, approx);
        if parts.len() == 2 {
            let (l, r) = (parts[0].trim(), parts[1].trim());
            let kept = if l.is_empty() || is_target(l) { r } else { l };
            return shape(kept, depth + 1);
        }
    }
    // `1 \pm \sqrt{2}`: both values.
    for pm in ["\\pm", "±"] {
        // One `\pm`, wherever it stands (`\frac{-1 \pm \sqrt{5}}{2}`), is two answers.
        let parts: Vec<&str> = s.split(pm).collect();
        if parts.len() == 2 {
            let plus = format!("{}+{}", parts[0], parts[1]);
            let minus = format!("{}-{}", parts[0], parts[1]);
            return Ok(Shape::List(vec![
                shape(&plus, depth + 1)?,
                shape(&minus, depth + 1)?,
            ]));
        }
    }
    // `x ∈ [0, 1]` is the set it names.
    for sign in ["∈", "\\in"] {
        if let Some((var, set)) = s.split_once(sign) {
            if is_name(var.trim()) && !set.starts_with(|c: char| c.is_ascii_alphabetic()) {
                return shape(set, depth + 1);
            }
        }
    }
    let items = |inner: &str| -> Result<Vec<Shape>, String> {
        let parts = split_top(inner, ',');
        if parts.len() > MAX_ITEMS {
            return Err(format!("more than {MAX_ITEMS} items"));
        }
        parts.into_iter().map(|p| shape(p, depth + 1)).collect()
    };
    if let Some(inner) = s.strip_prefix("\\{").and_then(|r| r.strip_suffix("\\}")) {
        return Ok(Shape::Set(items(inner)?));
    }
    if s.starts_with('{')
        && latex::matching_brace(s, 0) == Some(s.len() - 1)
        && split_top(&s[1..s.len() - 1], ',').len() > 1
    {
        return Ok(Shape::Set(items(&s[1..s.len() - 1])?));
    }
    let first = s.chars().next().unwrap_or(' ');
    let last = s.chars().last().unwrap_or(' ');
    if matches!(first, '(' | '[') && matches!(last, ')' | ']') && wraps(s) {
        let inner = &s[1..s.len() - 1];
        if split_top(inner, ',').len() > 1 {
            return Ok(Shape::Seq(first, last, items(inner)?));
        }
    }
    if split_top(s, ',').len() > 1 {
        return Ok(Shape::List(items(s)?));
    }
    if let Some((open, lo, hi, close)) = inequality(s) {
        return Ok(Shape::Seq(
            open,
            close,
            vec![shape(&lo, depth + 1)?, shape(&hi, depth + 1)?],
        ));
    }
    let sides = split_top(s, '=');
    if sides.len() > 1 {
        // A chain (`x = 2 + 3 = 5`, `12 = 2 \cdot 6 = 13`) is judged by its last step.
        let n = sides.len();
        let (l, r) = if n > 2 {
            (sides[n - 2].trim(), sides[n - 1].trim())
        } else {
            (sides[0].trim(), sides[1].trim())
        };
        if l.is_empty() || r.is_empty() {
            return Err("an equation needs both sides".into());
        }
        return Ok(Shape::Equation(l.to_string(), r.to_string()));
    }
    if let Some(p) = s.strip_suffix("\\%").or_else(|| s.strip_suffix('%')) {
        return Ok(Shape::Percent(p.trim().to_string()));
    }
    Ok(Shape::Scalar(s.to_string()))
}

/// The comparison signs an inequality may use, longest first: each with whether it is `<`-like and strict.
const COMPARISONS: &[(&str, bool, bool)] = &[
    ("\\leqslant", true, false),
    ("\\geqslant", false, false),
    ("\\leq", true, false),
    ("\\geq", false, false),
    ("\\le", true, false),
    ("\\ge", false, false),
    ("\\lt", true, true),
    ("\\gt", false, true),
    ("<=", true, false),
    (">=", false, false),
    ("≤", true, false),
    ("≥", false, false),
    ("<", true, true),
    (">", false, true),
];

/// `-2 < x < 3`, `3 \ge x > -2`, `x \geq 2`, `5 > x`: an inequality on one variable is the interval of its values,
/// `(open, low, high, close)` (`(-2, 3)`, `(-2, 3]`, `[2, \infty)`, `(-\infty, 5)`). `None` for anything else: a
/// chain whose signs point both ways, two variables, a sign inside brackets.
fn inequality(s: &str) -> Option<(char, String, String, char)> {
    // Top-level signs, each as (is `<`-like, is strict); a command sign must not run into a longer command
    // (`\left`, `\gets`).
    let signs = top_level(s, |rest| {
        COMPARISONS
            .iter()
            .find(|(p, _, _)| {
                rest.starts_with(p)
                    && !(p.starts_with('\\')
                        && rest[p.len()..].starts_with(|c: char| c.is_ascii_alphabetic()))
            })
            .map(|&(p, less, strict)| (p.len(), (less, strict)))
    });
    if signs.is_empty() || signs.len() > 2 {
        return None;
    }
    let parts: Vec<&str> = pieces(s, &signs).into_iter().map(str::trim).collect();
    if parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let bracket = |strict: bool, low: bool| match (strict, low) {
        (true, true) => '(',
        (false, true) => '[',
        (true, false) => ')',
        (false, false) => ']',
    };
    match (signs.as_slice(), parts.as_slice()) {
        // `a < x < b` (or `b > x > a`): both signs one way, the variable between.
        ([(_, _, (l1, s1)), (_, _, (l2, s2))], [a, x, b])
            if l1 == l2 && is_name(x) && !is_name(a) && !is_name(b) =>
        {
            let ((lo, lo_strict), (hi, hi_strict)) = if *l1 {
                ((a, *s1), (b, *s2))
            } else {
                ((b, *s2), (a, *s1))
            };
            Some((
                bracket(lo_strict, true),
                lo.to_string(),
                hi.to_string(),
                bracket(hi_strict, false),
            ))
        }
        // `x > a`, `a < x`: a half-line.
        ([(_, _, (less, strict))], [l, r]) if is_name(l) != is_name(r) => {
            let (bound, below) = if is_name(l) { (r, *less) } else { (l, !*less) };
            Some(if below {
                (
                    '(',
                    "-\\infty".to_string(),
                    bound.to_string(),
                    bracket(*strict, false),
                )
            } else {
                (
                    bracket(*strict, true),
                    bound.to_string(),
                    "\\infty".to_string(),
                    ')',
                )
            })
        }
        _ => None,
    }
}

/// A shape written back in the expression language: what `normalized` shows, and equal renderings are equal
/// answers.
pub(super) fn render(s: &Shape) -> String {
    let scalar = |x: &str| to_expression(x).unwrap_or_else(|_| x.to_string());
    let list = |items: &[Shape]| items.iter().map(render).collect::<Vec<_>>().join(", ");
    match s {
        Shape::Scalar(x) => {
            if let Some(neg) = infinity(x) {
                return (if neg { "-oo" } else { "oo" }).into();
            }
            scalar(x)
        }
        Shape::Percent(p) => format!("{}%", scalar(p)),
        Shape::Equation(l, r) => format!("{} = {}", scalar(l), scalar(r)),
        Shape::Set(items) => format!("{{{}}}", list(items)),
        Shape::Seq(o, c, items) => format!("{o}{}{c}", list(items)),
        Shape::List(items) => list(items),
    }
}

/// A single variable name: `x`, `y_1`, `\theta`.
pub(super) fn is_name(s: &str) -> bool {
    let s = s.strip_prefix('\\').unwrap_or(s);
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic())
        && (s.chars().count() == 1
            || latex::is_greek(s)
            || s.split_once('_').is_some_and(|(a, b)| {
                a.chars().count() == 1
                    && !b.is_empty()
                    && b.chars().all(|c| c.is_alphanumeric() || "{}".contains(c))
            }))
}

/// What an assignment assigns to: a name (`x`, `\theta`), or a function of names as answers write them
/// (`f(x)`, `P(A)`, `f^{-1}(x)`).
pub(super) fn is_target(s: &str) -> bool {
    let s = s.trim();
    // `e` is Euler's number: `e = 3` is a false equation, not an assignment.
    if matches!(s, "e" | "\\pi" | "π") {
        return false;
    }
    if is_name(s) {
        return true;
    }
    let Some(open) = s.find('(') else {
        return false;
    };
    let (head, args) = (&s[..open], &s[open..]);
    let head = head.strip_suffix("^{-1}").unwrap_or(head);
    is_name(head.trim())
        && args.ends_with(')')
        && args[1..args.len() - 1]
            .split(',')
            .all(|a| is_name(a.trim()))
}

/// Infinity as answers write it.
pub(super) fn infinity(s: &str) -> Option<bool> {
    match s.trim() {
        "\\infty" | "+\\infty" | "∞" | "+∞" | "oo" | "inf" | "infinity" | "\\infinity" => {
            Some(false)
        }
        "-\\infty" | "-∞" | "-oo" | "-inf" | "-infinity" => Some(true),
        _ => None,
    }
}

/// Translates one scalar (LaTeX or plain text) to the expression language.
pub(super) fn to_expression(s: &str) -> Result<String, String> {
    latex::to_expression(s, Target::Expr).map_err(|e| e.0)
}

/// Whether `name` is a function the reader knows by name (`sin`, `arctan`, `gcd`, …).
pub(super) fn is_function(name: &str) -> bool {
    latex::is_function(name)
}
