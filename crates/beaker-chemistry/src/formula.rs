//! Chemical formulas: `H2O`, `Ca3(PO4)2`, `K4[Fe(CN)6]`, `CuSO4·5H2O`, `SO4^2-`, `Fe³⁺`, `NaCl(aq)`, `e-`.

use super::elements::{self, Element};
use beaker_core::ToolError;
use std::collections::BTreeMap;

/// Longest formula, in characters.
pub(crate) const MAX_FORMULA_LEN: usize = 1000;
/// Deepest bracket nesting.
const MAX_DEPTH: usize = 32;
/// Largest count of one element in a formula (keeps every sum exact in an i64 and physically meaningful).
const MAX_COUNT: i64 = 1_000_000_000_000;

/// A parsed species: element counts by atomic number, charge, and how it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Species {
    /// The species as written, without a leading coefficient (`SO4^2-(aq)`).
    pub text: String,
    /// Element counts keyed by atomic number.
    pub counts: BTreeMap<u32, i64>,
    pub charge: i64,
    /// A leading coefficient the text carried (`2 H2O`), if any.
    pub coefficient: Option<i64>,
    /// How an ambiguous spelling was read (`NH4+` as `NH4^+`).
    pub notes: Vec<String>,
}

impl Species {
    /// Whether this is the electron of a half-reaction (`e-`).
    pub(crate) fn is_electron(&self) -> bool {
        self.counts.is_empty() && self.charge == -1
    }

    /// Molar mass in g/mol, summed exactly from the table's decimals and rounded once (electrons count as
    /// nothing: their mass is below the weights' precision).
    pub(crate) fn molar_mass(&self) -> f64 {
        let mut sum = rug::Rational::new();
        for (z, n) in &self.counts {
            if let Some(e) = elements::by_number(u64::from(*z)) {
                sum += rug::Rational::from(&e.weight_exact * *n);
            }
        }
        // Round to nearest (a `Rational`'s own conversion truncates).
        rug::Float::with_val(53, &sum).to_f64()
    }

    /// The elements in Hill order: C, then H, then the rest alphabetically (all alphabetical without carbon).
    pub(crate) fn hill(&self) -> Vec<(&'static Element, i64)> {
        let mut v: Vec<(&'static Element, i64)> = self
            .counts
            .iter()
            .filter_map(|(z, n)| elements::by_number(u64::from(*z)).map(|e| (e, *n)))
            .collect();
        let has_c = v.iter().any(|(e, _)| e.symbol == "C");
        v.sort_by_key(|(e, _)| match (has_c, e.symbol) {
            (true, "C") => (0, ""),
            (true, "H") => (1, ""),
            (_, s) => (2, s),
        });
        v
    }

    /// The Hill formula (`C6H12O6`), without charge.
    pub(crate) fn hill_formula(&self) -> String {
        self.hill()
            .iter()
            .map(|(e, n)| {
                if *n == 1 {
                    e.symbol.to_string()
                } else {
                    format!("{}{n}", e.symbol)
                }
            })
            .collect()
    }
}

fn err(text: &str, msg: impl std::fmt::Display) -> ToolError {
    ToolError::invalid_params(format!("formula `{text}`: {msg}"))
}

const SUBSCRIPTS: [char; 10] = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];
const SUPERSCRIPTS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// Subscript digits become ASCII digits; superscript charges become `^…`; other spellings are normalised.
fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_sup = false;
    for c in s.chars() {
        if let Some(d) = SUBSCRIPTS.iter().position(|&x| x == c) {
            out.push(char::from(b'0' + d as u8));
            in_sup = false;
        } else if let Some(d) = SUPERSCRIPTS.iter().position(|&x| x == c) {
            if !in_sup {
                out.push('^');
                in_sup = true;
            }
            out.push(char::from(b'0' + d as u8));
        } else if c == '⁺' || c == '⁻' {
            if !in_sup {
                out.push('^');
                in_sup = true;
            }
            out.push(if c == '⁺' { '+' } else { '-' });
        } else {
            in_sup = false;
            out.push(match c {
                '−' | '–' => '-',
                '·' | '•' | '∙' | '⋅' | '*' => '.',
                c => c,
            });
        }
    }
    out
}

/// Physical states a species may end in; kept in its text, ignored in its composition.
const STATES: [&str; 4] = ["(s)", "(l)", "(g)", "(aq)"];

/// Closes the gaps people leave in two places: around a hydrate's dot (`MgSO4 · 7 H2O` is `MgSO4.7H2O`) and
/// before a trailing charge (`SO4 2-` is `SO4^2-`). Any other space stays, and is refused later.
fn spaced(s: &str) -> String {
    let mut parts = s.split('.').map(str::trim);
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        let digits = part.bytes().take_while(u8::is_ascii_digit).count();
        out.push('.');
        out.push_str(&part[..digits]);
        out.push_str(part[digits..].trim_start());
    }
    if let Some((head, tail)) = out.rsplit_once(' ') {
        let sign = tail.strip_suffix(['+', '-']);
        let head_ok = head.ends_with(|c: char| c.is_ascii_alphanumeric() || c == ')' || c == ']');
        // `2 H2O` keeps its space: only a sign with optional digits after a formula is a charge.
        if sign.is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
            && head_ok
            && !head.bytes().all(|b| b.is_ascii_digit())
        {
            out = format!("{head}^{tail}");
        }
    }
    out
}

/// Parses one species, possibly with a leading coefficient (`2 H2O`, `3Fe`).
pub(crate) fn parse_species(text: &str) -> Result<Species, ToolError> {
    let shown = text.trim();
    if shown.chars().count() > MAX_FORMULA_LEN {
        return Err(ToolError::limit(format!(
            "a formula is longer than {MAX_FORMULA_LEN} characters"
        )));
    }
    if shown.is_empty() {
        return Err(ToolError::invalid_params("an empty formula"));
    }
    let mut s = spaced(&normalise(shown));
    // A leading coefficient: digits then an element or bracket (`2H2O`, `2 H2O`, `1/2 O2` is refused).
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let mut coefficient = None;
    if digits > 0 && digits < s.len() {
        let c: i64 = s[..digits]
            .parse()
            .map_err(|_| err(shown, "the coefficient is too large"))?;
        coefficient = Some(c);
        s = s[digits..].trim_start().to_string();
    }
    let text_no_coef = if coefficient.is_some() {
        shown
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim_start()
            .to_string()
    } else {
        shown.to_string()
    };
    let mut body = s.trim().to_string();
    // A gas's ↑ and a precipitate's ↓ say what a state would; they are dropped like one.
    body = body.trim_end_matches(['↑', '↓']).trim_end().to_string();
    for st in STATES {
        if let Some(b) = body.strip_suffix(st) {
            body = b.trim_end().to_string();
            break;
        }
    }
    let mut notes = Vec::new();
    let (body, charge) = split_charge(&body, shown, &mut notes)?;
    if body == "e" {
        if charge != -1 {
            return Err(err(shown, "an electron is written `e-`"));
        }
        return Ok(Species {
            text: text_no_coef,
            counts: BTreeMap::new(),
            charge: -1,
            coefficient,
            notes,
        });
    }
    let mut counts = BTreeMap::new();
    for (i, part) in body.split('.').enumerate() {
        let part = part.trim();
        if part.is_empty() {
            return Err(err(shown, "an empty part around `·`"));
        }
        let lead = part.bytes().take_while(u8::is_ascii_digit).count();
        let mult: i64 = if lead > 0 && i > 0 {
            part[..lead]
                .parse()
                .map_err(|_| err(shown, "a hydrate count is too large"))?
        } else {
            1
        };
        if lead > 0 && i == 0 {
            return Err(err(shown, "a formula does not start with a number"));
        }
        let mut p = Parser {
            chars: part[if i > 0 { lead } else { 0 }..].chars().collect(),
            at: 0,
            shown,
        };
        let group = p.group(0)?;
        if p.at < p.chars.len() {
            return Err(err(
                shown,
                format!(
                    "unexpected `{}`",
                    p.chars[p.at..].iter().collect::<String>()
                ),
            ));
        }
        add_scaled(&mut counts, group, mult, shown)?;
    }
    if counts.is_empty() {
        return Err(err(shown, "no elements"));
    }
    Ok(Species {
        text: text_no_coef,
        counts,
        charge,
        coefficient,
        notes,
    })
}

/// Splits a trailing charge off: `^2-`, `^+`, `^-2`, `+`, `-`, `++`, `+3` (after a letter or bracket), and the
/// ambiguous `Fe3+`/`NH4+`/`SO42-`, read only where one reading is plausible.
fn split_charge(
    body: &str,
    shown: &str,
    notes: &mut Vec<String>,
) -> Result<(String, i64), ToolError> {
    let signs = |s: &str| -> Option<i64> {
        if !s.is_empty() && s.chars().all(|c| c == '+') {
            Some(s.len() as i64)
        } else if !s.is_empty() && s.chars().all(|c| c == '-') {
            Some(-(s.len() as i64))
        } else {
            None
        }
    };
    let magnitude = |d: &str| -> Result<i64, ToolError> {
        d.parse::<i64>()
            .ok()
            .filter(|m| (1..=1000).contains(m))
            .ok_or_else(|| err(shown, format!("`{d}` is not a charge")))
    };
    if let Some((b, c)) = body.rsplit_once('^') {
        let c = c.trim();
        let bad = || err(shown, format!("`^{c}` is not a charge (write `^2-`, `^+`)"));
        let charge = if let Some(s) = signs(c) {
            s
        } else if let Some(d) = c.strip_suffix(['+', '-']) {
            let sign = if c.ends_with('+') { 1 } else { -1 };
            if !d.bytes().all(|x| x.is_ascii_digit()) || d.is_empty() {
                return Err(bad());
            }
            sign * magnitude(d)?
        } else if let Some(d) = c.strip_prefix(['+', '-']) {
            let sign = if c.starts_with('+') { 1 } else { -1 };
            if !d.bytes().all(|x| x.is_ascii_digit()) || d.is_empty() {
                return Err(bad());
            }
            sign * magnitude(d)?
        } else {
            return Err(bad());
        };
        return Ok((b.trim_end().to_string(), charge));
    }
    // Trailing signs.
    let trimmed = body.trim_end_matches(['+', '-']);
    let sign_text = &body[trimmed.len()..];
    if !sign_text.is_empty() {
        let sign =
            signs(sign_text).ok_or_else(|| err(shown, format!("`{sign_text}` is not a charge")))?;
        let before = trimmed.trim_end_matches(|c: char| c.is_ascii_digit());
        let run = &trimmed[before.len()..];
        if run.is_empty() || sign.abs() > 1 {
            if !run.is_empty() {
                return Err(err(
                    shown,
                    format!("write the charge as `{trimmed}^{}`", sign_text),
                ));
            }
            return Ok((trimmed.to_string(), sign));
        }
        let polarity = if sign > 0 { "+" } else { "-" };
        if before.ends_with([')', '}']) {
            return Err(err(
                shown,
                format!(
                    "`{trimmed}{sign_text}` is ambiguous: write `{before}^{run}{polarity}` for a charge of {run}{polarity}, or `{trimmed}^{polarity}`"
                ),
            ));
        }
        // `Fe3+` (one element: nobody writes an Fe₃ cluster so) and `[Cu(NH3)4]2+` (a complex's square
        // bracket): the digits are the charge.
        let single_element = {
            let letters: Vec<char> = before.chars().collect();
            !letters.is_empty()
                && letters[0].is_ascii_uppercase()
                && letters[1..].iter().all(char::is_ascii_lowercase)
        };
        if single_element || before.ends_with(']') {
            let m = magnitude(run)?;
            notes.push(format!(
                "`{trimmed}{sign_text}` is read as {before}^{m}{polarity} (charge {m}{polarity})"
            ));
            return Ok((before.to_string(), sign * m));
        }
        // `NH4+`, `NO3-`: one digit is the last count, the charge is one.
        if run.len() == 1 {
            notes.push(format!(
                "`{trimmed}{sign_text}` is read as {trimmed}^{polarity} (charge 1{polarity})"
            ));
            return Ok((trimmed.to_string(), sign));
        }
        return Err(err(
            shown,
            format!(
                "`{trimmed}{sign_text}` is ambiguous: write `{}^{}{polarity}` for a charge of {}{polarity}, or `{trimmed}^{polarity}`",
                &trimmed[..trimmed.len() - 1],
                &run[run.len() - 1..],
                &run[run.len() - 1..]
            ),
        ));
    }
    // `Fe+3`, `SO4-2` (chempy's spelling): a sign then digits at the end, after a letter or bracket.
    let digits_at_end = body.trim_end_matches(|c: char| c.is_ascii_digit());
    if digits_at_end.len() < body.len() {
        if let Some(b) = digits_at_end.strip_suffix(['+', '-']) {
            if b.ends_with(|c: char| c.is_ascii_alphabetic() || matches!(c, ')' | ']' | '}')) {
                let m = magnitude(&body[digits_at_end.len()..])?;
                let sign = if digits_at_end.ends_with('+') { 1 } else { -1 };
                return Ok((b.to_string(), sign * m));
            }
        }
    }
    Ok((body.to_string(), 0))
}

/// Adds `times` × `from` into `into`, refusing a count above [`MAX_COUNT`] (brackets, hydrates and single
/// elements all go through here).
fn add_scaled(
    into: &mut BTreeMap<u32, i64>,
    from: impl IntoIterator<Item = (u32, i64)>,
    times: i64,
    shown: &str,
) -> Result<(), ToolError> {
    for (z, n) in from {
        let total = n
            .checked_mul(times)
            .and_then(|k| into.get(&z).copied().unwrap_or(0).checked_add(k))
            .filter(|v| *v <= MAX_COUNT)
            .ok_or_else(|| {
                ToolError::limit(format!(
                    "formula `{shown}`: an element count above {MAX_COUNT}"
                ))
            })?;
        into.insert(z, total);
    }
    Ok(())
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    shown: &'a str,
}

impl Parser<'_> {
    fn count(&mut self) -> Result<i64, ToolError> {
        let start = self.at;
        while self.at < self.chars.len() && self.chars[self.at].is_ascii_digit() {
            self.at += 1;
        }
        if start == self.at {
            return Ok(1);
        }
        let text: String = self.chars[start..self.at].iter().collect();
        let n: i64 = text
            .parse()
            .ok()
            .filter(|n| *n <= MAX_COUNT)
            .ok_or_else(|| {
                ToolError::limit(format!(
                    "formula `{}`: the count {text} is too large",
                    self.shown
                ))
            })?;
        if n == 0 {
            return Err(err(self.shown, "a count of 0"));
        }
        Ok(n)
    }

    fn group(&mut self, depth: usize) -> Result<BTreeMap<u32, i64>, ToolError> {
        if depth > MAX_DEPTH {
            return Err(ToolError::limit(format!(
                "formula `{}`: brackets nested deeper than {MAX_DEPTH}",
                self.shown
            )));
        }
        let mut counts: BTreeMap<u32, i64> = BTreeMap::new();
        while self.at < self.chars.len() {
            let c = self.chars[self.at];
            match c {
                '(' | '[' | '{' => {
                    let close = match c {
                        '(' => ')',
                        '[' => ']',
                        _ => '}',
                    };
                    self.at += 1;
                    let inner = self.group(depth + 1)?;
                    if self.chars.get(self.at) != Some(&close) {
                        return Err(err(self.shown, format!("`{c}` is not closed by `{close}`")));
                    }
                    self.at += 1;
                    let n = self.count()?;
                    if inner.is_empty() {
                        return Err(err(self.shown, format!("an empty `{c}{close}`")));
                    }
                    add_scaled(&mut counts, inner, n, self.shown)?;
                }
                ')' | ']' | '}' => {
                    if depth == 0 {
                        return Err(err(self.shown, format!("`{c}` closes nothing")));
                    }
                    return Ok(counts);
                }
                c if c.is_ascii_uppercase() => {
                    let e = self.element()?;
                    let n = self.count()?;
                    add_scaled(&mut counts, [(e.number, n)], 1, self.shown)?;
                }
                c if c.is_whitespace() => {
                    return Err(err(self.shown, "a space inside a formula"));
                }
                c if c.is_ascii_lowercase() => {
                    return Err(err(
                        self.shown,
                        format!("`{c}` does not start an element symbol (symbols start with a capital: `Co`, not `co`)"),
                    ));
                }
                c => return Err(err(self.shown, format!("unexpected `{c}`"))),
            }
        }
        if depth > 0 {
            return Err(err(self.shown, "a bracket is not closed"));
        }
        Ok(counts)
    }

    /// The longest element symbol here: `Co` (cobalt) before `C`, then `o` would not start one anyway.
    fn element(&mut self) -> Result<&'static Element, ToolError> {
        let mut end = self.at + 1;
        while end < self.chars.len() && end - self.at < 3 && self.chars[end].is_ascii_lowercase() {
            end += 1;
        }
        for stop in (self.at + 1..=end).rev() {
            let sym: String = self.chars[self.at..stop].iter().collect();
            if let Some(e) = elements::by_symbol(&sym) {
                self.at = stop;
                return Ok(e);
            }
        }
        let sym: String = self.chars[self.at..end].iter().collect();
        Err(err(self.shown, format!("unknown element `{sym}`")))
    }
}
