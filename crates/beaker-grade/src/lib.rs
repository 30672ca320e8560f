//! `grade`: is a model's final answer equal to a reference? Extraction from model text, then exact,
//! numeric, symbolic-identity, structural, unit-aware, choice or text comparison. See `grade.md`.

mod compare;
mod extract;
mod read;
mod spec;
#[cfg(test)]
mod tests;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use beaker_expr::Num;
use beaker_units::expr::{decimal, parse_unit, Quantity};
use beaker_units::quantity::split_number;
use compare::{literal, Comparer, Settings, Verdict};
use extract::From;
use read::Shape;
use rug::float::Constant;
use rug::{Float, Rational};
use serde_json::{json, Map, Value};

/// Default relative tolerance: none beyond exact equality (and roundings, see `rounded_digits`).
pub const DEFAULT_REL_TOL: f64 = 0.0;
/// Default number of significant digits from which a written decimal is accepted as a rounding.
pub const DEFAULT_ROUNDED_DIGITS: u32 = 6;
/// Largest `rounded_digits`.
pub const MAX_ROUNDED_DIGITS: u64 = 50;
/// Longest extracted answer or reference the comparison reads, in bytes (model text may be longer: only
/// the extracted part is read).
pub const MAX_ANSWER_LEN: usize = 4096;

/// The `grade` tool.
pub struct Grade {
    spec: ToolSpec,
}

impl Default for Grade {
    fn default() -> Self {
        Self::new()
    }
}

impl Grade {
    /// The tool with its spec.
    pub fn new() -> Self {
        Grade { spec: spec::spec() }
    }
}

/// How to compare, from the `kind` param.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Auto,
    Math,
    Choice,
    Units,
    Text,
}

/// What a grade found, before it is written as JSON.
struct Outcome {
    verdict: Verdict,
    extracted: String,
    from: From,
    normalized: Option<(String, String)>,
}

impl Tool for Grade {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let answer = text_param(params, "answer")?;
        let reference = text_param(params, "reference")?;
        let kind = match params.get("kind").and_then(Value::as_str).unwrap_or("auto") {
            "auto" => Kind::Auto,
            "math" => Kind::Math,
            "choice" => Kind::Choice,
            "units" => Kind::Units,
            "text" => Kind::Text,
            other => {
                return Err(ToolError::invalid_params(format!(
                    "`kind` must be auto, math, choice, units or text, got `{other}`"
                )))
            }
        };
        let settings = Settings {
            rel_tol: tolerance(params, "rel_tol", DEFAULT_REL_TOL)?,
            abs_tol: tolerance(params, "abs_tol", 0.0)?,
            rounded_digits: match params.get("rounded_digits") {
                None | Some(Value::Null) => DEFAULT_ROUNDED_DIGITS,
                Some(v) => v
                    .as_u64()
                    .filter(|&n| n <= MAX_ROUNDED_DIGITS)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| {
                        ToolError::invalid_params(format!(
                            "`rounded_digits` must be an integer from 0 to {MAX_ROUNDED_DIGITS}, got {v}"
                        ))
                    })?,
            },
        };
        let comparer = Comparer {
            ctx,
            settings,
            budget: std::cell::Cell::new(compare::MAX_COMPARISONS),
        };
        let out = grade(&comparer, &answer, &reference, kind)?;
        let mut result = Map::new();
        result.insert("correct".into(), json!(out.verdict.equal));
        result.insert("method".into(), json!(out.verdict.method));
        result.insert("extracted".into(), json!(out.extracted));
        result.insert("extracted_from".into(), json!(out.from.name()));
        if let Some((a, r)) = out.normalized {
            result.insert("normalized".into(), json!({"answer": a, "reference": r}));
        }
        if let Some(why) = out.verdict.why.filter(|_| !out.verdict.equal) {
            result.insert("why".into(), json!(why));
        }
        Ok(Value::Object(result))
    }
}

/// A string param, or a JSON number as the text it was written as (`"reference": 42`).
fn text_param(params: &Value, key: &str) -> Result<String, ToolError> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) => Ok(n.to_string()),
        Some(other) => Err(ToolError::invalid_params(format!(
            "`{key}` must be a string or a number, got {}",
            beaker_core::json_type(other)
        ))),
        None => Err(ToolError::invalid_params(format!("`{key}` is required"))),
    }
}

fn tolerance(params: &Value, key: &str, default: f64) -> Result<f64, ToolError> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_f64()
            .filter(|t| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| {
                ToolError::invalid_params(format!("`{key}` must be a non-negative number, got {v}"))
            }),
    }
}

fn grade(c: &Comparer, answer: &str, reference: &str, kind: Kind) -> Result<Outcome, ToolError> {
    let reference = reference_part(reference);
    let letter = extract::choice_label(reference);
    if kind == Kind::Choice || (kind == Kind::Auto && letter.is_some()) {
        let Some(want) = letter else {
            return Err(ToolError::invalid_params(format!(
                "`kind` is choice, but the reference `{}` is not a choice letter (A to J)",
                shorten(reference)
            )));
        };
        return Ok(match extract::choice_in(answer) {
            Some((got, from)) => Outcome {
                verdict: if got == want {
                    Verdict {
                        equal: true,
                        method: "choice",
                        why: None,
                    }
                } else {
                    Verdict {
                        equal: false,
                        method: "choice",
                        why: Some(format!("{got} against {want}")),
                    }
                },
                extracted: got.to_string(),
                from,
                normalized: Some((got.to_string(), want.to_string())),
            },
            None => Outcome {
                verdict: Verdict {
                    equal: false,
                    method: "choice",
                    why: Some("the answer names no choice letter".into()),
                },
                extracted: String::new(),
                from: From::Whole,
                normalized: None,
            },
        });
    }
    if kind == Kind::Text || (kind == Kind::Auto && is_words(reference)) {
        let boxes = extract::boxes(answer);
        let (got, from) = match boxes.as_deref() {
            Some(b) => (b, From::Boxed),
            None => match extract::after_phrase(answer) {
                Some(p) => (p, From::Phrase),
                None => (answer, From::Whole),
            },
        };
        let (mut a, r) = (words(got), words(reference));
        // `Yes, it is possible.` against `yes`: a yes/no answer is its first word, unless it says both.
        let says = |w: &str| a.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
        if matches!(r.as_str(), "yes" | "no") && says("yes") && says("no") {
            a = "yes and no".into();
        } else if matches!(r.as_str(), "yes" | "no" | "true" | "false") {
            a = a
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("")
                .to_string();
        }
        return Ok(Outcome {
            verdict: if a == r {
                Verdict {
                    equal: true,
                    method: "text",
                    why: None,
                }
            } else {
                Verdict {
                    equal: false,
                    method: "text",
                    why: Some("the words differ".into()),
                }
            },
            extracted: got.trim().to_string(),
            from,
            normalized: Some((a, r)),
        });
    }
    let ref_qty = quantity(reference);
    let units_wanted = kind == Kind::Units || (kind == Kind::Auto && ref_qty.is_some());
    let (mut got, mut from) = extract::answer(answer, |s| {
        has_words(s) && !(units_wanted && quantity(s).is_some())
    });
    if units_wanted && matches!(from, From::LastNumber | From::Whole) {
        // `The speed is 9.81 m/s^2.`: the quantity that ends the text.
        if let Some(q) = quantity_at_end(answer) {
            (got, from) = (q.to_string(), From::LastNumber);
        }
    }
    let extracted = got.trim().to_string();
    let too_long = |side: &str, n: usize| Verdict {
        equal: false,
        method: "none",
        why: Some(format!(
            "the {side} is {n} bytes long; the most read is {MAX_ANSWER_LEN}"
        )),
    };
    if extracted.len() > MAX_ANSWER_LEN {
        return Ok(Outcome {
            verdict: too_long("answer", extracted.len()),
            extracted: shorten(&extracted),
            from,
            normalized: None,
        });
    }
    if reference.len() > MAX_ANSWER_LEN {
        return Ok(Outcome {
            verdict: too_long("reference", reference.len()),
            extracted,
            from,
            normalized: None,
        });
    }
    if units_wanted {
        let Some(r) = &ref_qty else {
            return Err(ToolError::invalid_params(format!(
                "`kind` is units, but the reference `{}` is not a number with a unit",
                shorten(reference)
            )));
        };
        let verdict = match quantity(&extracted) {
            Some(a) => units(c, &a, r),
            // A bare number is read in the reference's unit.
            None => match c.scalars(&read::clean(&extracted), &r.number)? {
                v if v.equal => Verdict {
                    equal: true,
                    method: "number_in_reference_unit",
                    why: None,
                },
                v => Verdict {
                    method: "units",
                    ..v
                },
            },
        };
        return Ok(Outcome {
            verdict,
            normalized: Some((read::clean(&extracted), format!("{} {}", r.number, r.unit))),
            extracted,
            from,
        });
    }
    let (a, b) = (read::clean(&extracted), read::clean(reference));
    // `5 \text{ cm}`, `64\pi \text{ cm}^3` against a plain value: an answer with a unit is its value.
    if let Some(number) = without_unit(&a) {
        if ref_qty.is_none() && matches!(read::shape(&b, 0), Ok(Shape::Scalar(_))) {
            let v = c.scalars(number, &b)?;
            if v.equal {
                return Ok(Outcome {
                    verdict: Verdict {
                        method: "number_without_unit",
                        ..v
                    },
                    normalized: Some((number.to_string(), b.clone())),
                    extracted,
                    from,
                });
            }
        }
    }
    // `72 clips`, `1,250 people`: words after a number name what it counts.
    let (a, b) = (without_counted_words(&a), without_counted_words(&b));
    let shapes = (read::shape(&a, 0), read::shape(&b, 0));
    let (sa, sb) = match shapes {
        (Ok(sa), Ok(sb)) => (sa, sb),
        (Err(e), _) => {
            return Ok(Outcome {
                verdict: Verdict {
                    equal: false,
                    method: "none",
                    why: Some(format!("the answer does not read: {e}")),
                },
                extracted,
                from,
                normalized: None,
            })
        }
        (_, Err(e)) => {
            return Ok(Outcome {
                verdict: Verdict {
                    equal: false,
                    method: "reference_unreadable",
                    why: Some(format!("the reference does not read: {e}")),
                },
                extracted,
                from,
                normalized: None,
            })
        }
    };
    let mut verdict = c.shapes(&sa, &sb)?;
    // `\frac{\pi}{4}` against `45^\circ`: an angle in degrees is also the same angle in radians.
    if !verdict.equal {
        if let (Shape::Scalar(x), Shape::Scalar(y)) = (&sa, &sb) {
            let radians = |d: &str| {
                d.strip_suffix('°')
                    .filter(|n| !n.contains('°'))
                    .map(|n| format!("({})*\\pi/180", n.trim()))
            };
            let converted = match (radians(x), radians(y)) {
                (Some(rx), None) => Some((rx, y.clone())),
                (None, Some(ry)) => Some((x.clone(), ry)),
                _ => None,
            };
            if let Some((x, y)) = converted {
                let v = c.scalars(&x, &y)?;
                if v.equal {
                    verdict = Verdict {
                        method: "degrees_as_radians",
                        ..v
                    };
                }
            }
        }
    }
    Ok(Outcome {
        verdict,
        normalized: Some((read::render(&sa), read::render(&sb))),
        extracted,
        from,
    })
}

/// `64\pi cm^3` → `64\pi`: the value before a trailing unit (a unit the unit converter reads, with a letter in it).
fn without_unit(s: &str) -> Option<&str> {
    let t = s.trim();
    t.char_indices()
        .filter(|&(i, c)| c.is_whitespace() && i > 0)
        .map(|(i, _)| (t[..i].trim(), t[i..].trim()))
        .find(|(value, unit)| {
            !value.is_empty()
                && !matches!(*unit, "k" | "K" | "M" | "B" | "G" | "T" | "b" | "m")
                && unit.chars().next().is_some_and(char::is_alphabetic)
                && parse_unit(&unit.replace('{', "(").replace('}', ")"))
                    .is_ok_and(|q| q.dims != [0; 9])
        })
        .map(|(value, _)| value)
}

/// `72 clips` → `72`: a number followed only by words (three letters or more, no digits or operators).
fn without_counted_words(s: &str) -> String {
    let t = s.trim();
    let Some(space) = t.find(char::is_whitespace) else {
        return t.to_string();
    };
    let (number, rest) = (&t[..space], t[space..].trim());
    let is_number = number
        .trim_start_matches(['-', '+'])
        .starts_with(|c: char| c.is_ascii_digit())
        && number
            .chars()
            .all(|c| c.is_ascii_digit() || ",.-+/".contains(c));
    let words = !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_alphabetic() || c.is_whitespace() || c == '-' || c == '.')
        && has_long_words(rest)
        && extract::plain_prose(rest);
    if is_number && words {
        number.trim_end_matches('.').to_string()
    } else {
        t.to_string()
    }
}

/// A reference's answer: its box if it has one, else all of it.
fn reference_part(reference: &str) -> &str {
    extract::boxed(reference).unwrap_or(reference.trim())
}

/// Short English words that open or join a sentence ("So 17 * 23 = 391."): whole whitespace-separated tokens,
/// never read as products of one-letter variables.
const SHORT_WORDS: &[&str] = &[
    "so", "is", "it", "we", "be", "to", "of", "as", "at", "by", "an", "if", "my", "me",
];

/// A run of three or more letters that is not a LaTeX command or a known function or constant name, or a short
/// English word standing alone.
fn has_words(s: &str) -> bool {
    let short = s
        .split(|c: char| c.is_whitespace() || ",.:;!?".contains(c))
        .any(|t| {
            let lower = t.to_ascii_lowercase();
            SHORT_WORDS.contains(&lower.as_str())
        });
    short || has_long_words(s)
}

fn has_long_words(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            let word = &s[start..i];
            // `\sqrt`, and `{pmatrix}` or `{apples}` after a command: LaTeX's own words.
            let command = start > 0
                && (b[start - 1] == b'\\' || (b[start - 1] == b'{' && b.get(i) == Some(&b'}')));
            let lower = word.to_ascii_lowercase();
            let name = read::is_function(&lower)
                || matches!(lower.as_str(), "inf" | "infinity" | "and" | "mod");
            if word.len() >= 3 && !command && !name {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

/// Whether a reference is words (`yes`, `even`, `Paris`), compared as text rather than read as a product of
/// one-letter variables.
fn is_words(reference: &str) -> bool {
    let t = read::clean(reference);
    let t = t.trim_end_matches(['.', '!']);
    if t.is_empty()
        || !t
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\'')
    {
        return false;
    }
    matches!(t.to_lowercase().as_str(), "yes" | "no" | "true" | "false") || has_words(t)
}

/// Text compared as words: lower case, text commands and math delimiters gone, closing punctuation dropped.
fn words(s: &str) -> String {
    let t = read::clean(s).replace('$', " ");
    let t = t
        .trim()
        .trim_end_matches(['.', '!', '?', ';', ','])
        .to_lowercase();
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(s: &str) -> String {
    if s.len() <= 80 {
        return s.to_string();
    }
    let mut end = 77;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

/// A number with a unit, read by the unit engine.
struct Qty {
    number: String,
    unit: String,
    value: Rational,
    q: Quantity,
}

/// `1 km`, `9.81 m/s^2`, `100 \text{ J}`, `0 \degree C`: a decimal number then a unit. A single letter joined to
/// the number (`2e`, `3x`) is a product, not a unit.
fn quantity(text: &str) -> Option<Qty> {
    let t = scientific(&read::clean(text).replace("\\%", "%"));
    let t = t
        .replace("° C", "°C")
        .replace("° F", "°F")
        .replace("\\mu ", "µ")
        .replace("\\mu", "µ");
    let (number, unit) = split_number(t.trim());
    let unit = unit.trim().trim_start_matches(['*', '·']).trim();
    if number.is_empty() || unit.is_empty() || unit == "%" {
        return None;
    }
    let joined = t.trim()[number.len()..].starts_with(|c: char| !c.is_whitespace());
    if joined && unit.chars().count() == 1 {
        return None;
    }
    let value = decimal(number, 400)?;
    let q = parse_unit(&unit.replace('{', "(").replace('}', ")")).ok()?;
    Some(Qty {
        number: number.to_string(),
        unit: unit.to_string(),
        value,
        q,
    })
}

/// `The speed is 9.81 m/s^2.`: the quantity that ends the text, found from the first number in its last 256
/// bytes that starts one.
fn quantity_at_end(text: &str) -> Option<&str> {
    let text = text.trim().trim_end_matches(['.', ';']);
    let mut from = text.len().saturating_sub(256);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let b = text.as_bytes();
    (from..b.len())
        .filter(|&i| {
            b[i].is_ascii_digit()
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'.')
        })
        .map(|i| if i > 0 && b[i - 1] == b'-' { i - 1 } else { i })
        .find(|&i| quantity(&text[i..]).is_some())
        .map(|i| &text[i..])
}

/// `1.5 \times 10^{3} J` → `1.5e3 J`: a number in scientific notation as the unit reader takes it.
fn scientific(t: &str) -> String {
    for times in ["\\times", "\\cdot", "×", "·", "*"] {
        let Some(at) = t.find(times) else { continue };
        let (mantissa, rest) = (t[..at].trim(), t[at + times.len()..].trim_start());
        let Some(rest) = rest.strip_prefix("10^") else {
            continue;
        };
        let (exp, tail) = match rest.strip_prefix('{') {
            Some(r) => match r.find('}') {
                Some(close) => (&r[..close], &r[close + 1..]),
                None => continue,
            },
            None => {
                let end = rest
                    .char_indices()
                    .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
                    .map_or(rest.len(), |(i, _)| i);
                (&rest[..end], &rest[end..])
            }
        };
        let exp = exp.trim();
        if decimal(mantissa, 400).is_some()
            && exp
                .trim_start_matches(['-', '+'])
                .bytes()
                .all(|b| b.is_ascii_digit())
            && !exp.is_empty()
        {
            return format!("{mantissa}e{exp} {}", tail.trim());
        }
    }
    t.to_string()
}

/// Two quantities: the same dimension, and the answer's value in the reference's unit equal to the reference
/// (exactly, as a rounding of either side as written, or within the tolerances).
fn units(c: &Comparer, a: &Qty, r: &Qty) -> Verdict {
    if a.q.dims != r.q.dims {
        return Verdict {
            equal: false,
            method: "units",
            why: Some(format!(
                "{} and {} are different kinds of quantity",
                a.unit, r.unit
            )),
        };
    }
    let a_in_r = convert(&a.value, &a.q, &r.q);
    let r_value = Num::Exact(r.value.clone());
    let v = c.numbers(&a_in_r, None, &r_value, literal(&r.number));
    if v.equal {
        return Verdict {
            method: "units",
            ..v
        };
    }
    let r_in_a = convert(&r.value, &r.q, &a.q);
    let back = c.numbers(
        &Num::Exact(a.value.clone()),
        literal(&a.number),
        &r_in_a,
        None,
    );
    if back.equal {
        return Verdict {
            method: "units",
            ..back
        };
    }
    Verdict {
        method: "units",
        ..v
    }
}

/// `value` in unit `from`, expressed in unit `to` (affine for °C and °F); exact unless π is involved.
fn convert(value: &Rational, from: &Quantity, to: &Quantity) -> Num {
    let zero = Rational::new();
    let si = Rational::from(value + from.offset.as_ref().unwrap_or(&zero)) * &from.factor;
    let pi = from.pi - to.pi;
    let scaled = Rational::from(&si / &to.factor);
    if pi == 0 {
        return Num::Exact(scaled - to.offset.as_ref().unwrap_or(&zero));
    }
    let mut f = Float::with_val(256, &scaled);
    f *= rug::ops::Pow::pow(Float::with_val(256, Constant::Pi), pi);
    f -= to.offset.as_ref().unwrap_or(&zero);
    Num::Approx(f)
}
