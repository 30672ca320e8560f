//! The unit engine, and the `unit_converter` tool over it: unit expressions parsed at run time, converted
//! exactly, with dimensional analysis. The domain tools (`chemistry`, `physics`, `grade`) read quantities with
//! their units through [`quantity`].
//!
//! Every factor is an exact rational (times a power of π for angles), so a conversion is exact until a
//! rounding is asked for; temperatures on shifted scales (°C, °F) convert affinely. See `units.md`.

pub mod expr;
pub mod quantity;
mod spec;
pub mod table;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use beaker_expr::pow10;
use expr::{parse_unit, product, Quantity, UnitError};
use rug::float::Constant;
use rug::{Float, Integer, Rational};
use serde_json::{json, Value};
use table::Dims;
use table::{BASE, NAMED, TEMP};

/// Significant digits of a value that is not an exact terminating decimal, when no `precision` is given:
/// what a double shows, so a non-exact answer never claims more than it must.
pub const DEFAULT_SIGNIFICANT_DIGITS: u32 = 15;
/// Most significant digits a call may ask for.
pub const MAX_SIGNIFICANT_DIGITS: u64 = 1000;
/// Most values in one call (an array `value`).
pub const MAX_VALUES: usize = 100_000;
/// Largest decimal exponent of an input value (`1e1000`); keeps every exact number small.
const MAX_EXPONENT: i64 = 1000;

/// The `unit_converter` tool.
pub struct UnitConverter {
    spec: ToolSpec,
}

impl Default for UnitConverter {
    fn default() -> Self {
        Self::new()
    }
}

impl UnitConverter {
    /// The tool with its spec.
    pub fn new() -> Self {
        UnitConverter { spec: spec::spec() }
    }
}

/// The dimension in words: a name when it has one, else its base dimensions (`length^2 / time`).
fn dimension_name(q: &Quantity) -> String {
    dims_name(&q.dims)
}

fn dims_name(dims: &[i32; 9]) -> String {
    let small: Option<Dims> = dims
        .iter()
        .map(|d| i8::try_from(*d).ok())
        .collect::<Option<Vec<i8>>>()
        .and_then(|v| v.try_into().ok());
    if let Some(d) = small {
        if let Some((_, name)) = NAMED.iter().find(|(n, _)| *n == d) {
            return (*name).to_string();
        }
    }
    let part = |pos: bool| -> Vec<String> {
        BASE.iter()
            .zip(*dims)
            .filter(|(_, e)| if pos { *e > 0 } else { *e < 0 })
            .map(|((name, _), e)| match e.abs() {
                1 => (*name).to_string(),
                n => format!("{name}^{n}"),
            })
            .collect()
    };
    let (num, den) = (part(true), part(false));
    let num = if num.is_empty() {
        "1".to_string()
    } else {
        num.join(" * ")
    };
    if den.is_empty() {
        num
    } else {
        format!("{num} / {}", den.join(" / "))
    }
}

fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unit_error(which: &str, unit: &str, e: UnitError) -> ToolError {
    match e {
        UnitError::Unknown {
            name, suggestions, ..
        } if suggestions.is_empty() => {
            ToolError::invalid_params(format!("{which}: unknown unit `{name}` in `{unit}`"))
        }
        UnitError::Unknown {
            name,
            suggestions,
            examples_of: Some(dim),
        } => ToolError::invalid_params(format!(
            "{which}: unknown unit `{name}` in `{unit}`; units of {dim} include {}",
            quoted(&suggestions)
        )),
        UnitError::Unknown {
            name, suggestions, ..
        } => ToolError::invalid_params(format!(
            "{which}: unknown unit `{name}` in `{unit}`; did you mean {}?",
            quoted(&suggestions)
        )),
        UnitError::Ambiguous { name, candidates } => ToolError::invalid_params(format!(
            "{which}: `{name}` in `{unit}` is not a unit symbol, and ignoring case it could be {}; symbols are \
             case-sensitive: write the one you mean",
            quoted(&candidates)
        )),
        UnitError::Syntax(m) => ToolError::invalid_params(format!("{which} `{unit}`: {m}")),
        UnitError::TooLarge(m) => ToolError::limit(format!("{which} `{unit}`: {m}")),
    }
}

/// A unit that did not parse, read again knowing the dimension the other side asks for. A spelling that
/// matches several units ignoring case (`Kg`: kg, kG) is read as the one of that dimension if only one fits;
/// otherwise the suggestions are narrowed to that dimension: a typo in `km/hrz` next to `m/s` is offered units
/// of time, never a name that is merely spelled alike.
fn with_dimension(e: UnitError, unit: &str, other: &str) -> Result<Quantity, UnitError> {
    let Ok(other) = parse_unit(other) else {
        return Err(e);
    };
    let name = match &e {
        UnitError::Unknown { name, .. } | UnitError::Ambiguous { name, .. } => name.clone(),
        _ => return Err(e),
    };
    let Some(want) = expr::required_dims(unit, &name, &other.dims) else {
        return Err(e);
    };
    Err(match e {
        UnitError::Unknown { .. } => {
            let suggestions = expr::suggestions(&name, Some(&want));
            if suggestions.is_empty() {
                let examples = expr::examples(&want);
                let examples_of = (!examples.is_empty()).then(|| dims_name(&want.map(i32::from)));
                UnitError::Unknown {
                    name,
                    suggestions: examples,
                    examples_of,
                }
            } else {
                UnitError::Unknown {
                    name,
                    suggestions,
                    examples_of: None,
                }
            }
        }
        UnitError::Ambiguous { candidates, .. } => {
            let fits: Vec<(String, Quantity)> = candidates
                .iter()
                .filter_map(|c| parse_unit(c).ok().map(|q| (c.clone(), q)))
                .filter(|(_, q)| q.dims8() == Some(want))
                .collect();
            if let [(c, q)] = fits.as_slice() {
                let mut q = q.clone();
                q.notes.push(format!(
                    "{name} is read as {c}: symbols are case-sensitive, and ignoring case {} match, of which only \
                     {c} has the dimension of the other side",
                    quoted(&candidates)
                ));
                return expr::parse_with(unit, &name, q);
            }
            UnitError::Ambiguous {
                name,
                candidates: if fits.is_empty() {
                    candidates
                } else {
                    fits.into_iter().map(|(c, _)| c).collect()
                },
            }
        }
        e => e,
    })
}

/// Reads a unit; `C` and `F` alone are coulomb and farad unless the other side is a temperature.
fn read_units(from: &str, to: &str) -> Result<(Quantity, Quantity), ToolError> {
    let parse = |which: &str, u: &str| {
        let other = if which == "from_unit" { to } else { from };
        parse_unit(u)
            .or_else(|e| with_dimension(e, u, other))
            .map_err(|e| unit_error(which, u, e))
    };
    let as_temp = |u: &str| match u.trim() {
        "C" => Some("degC"),
        "F" => Some("degF"),
        _ => None,
    };
    let other_is_temp = |u: &str| {
        parse_unit(u)
            .ok()
            .and_then(|q| q.dims8())
            .is_some_and(|d| d == TEMP)
    };
    let side = |which: &str, u: &str, other: &str| -> Result<Quantity, ToolError> {
        match as_temp(u) {
            Some(t) if other_is_temp(other) || as_temp(other).is_some() => {
                let mut q = parse(which, t)?;
                q.notes.push(
                    if t == "degC" {
                        "C next to a temperature is read as degrees Celsius (alone, C is the coulomb)"
                    } else {
                        "F next to a temperature is read as degrees Fahrenheit (alone, F is the farad)"
                    }
                    .into(),
                );
                Ok(q)
            }
            _ => parse(which, u),
        }
    };
    Ok((side("from_unit", from, to)?, side("to_unit", to, from)?))
}

/// A value param as an exact rational: numbers as written, decimal strings, or `p/q`.
fn read_value(v: &Value) -> Result<Rational, ToolError> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.trim().to_string(),
        other => {
            return Err(ToolError::invalid_params(format!(
                "a value must be a number or a decimal string, got {other}"
            )))
        }
    };
    product(&text, MAX_EXPONENT).ok_or_else(|| match decimal_exponent(&text) {
        Some(e) if e.abs() > MAX_EXPONENT => ToolError::limit(format!(
            "the value {text} has a decimal exponent beyond ±{MAX_EXPONENT}"
        )),
        _ => ToolError::invalid_params(format!(
            "`{text}` is not a decimal number (like 12, -0.5, 1.5e-3) or a fraction p/q"
        )),
    })
}

fn decimal_exponent(s: &str) -> Option<i64> {
    s.find(['e', 'E']).and_then(|i| s[i + 1..].parse().ok())
}

/// A temperature below 0 K does not exist: a `domain_error` rather than a number.
fn above_absolute_zero(v: &Rational, from: &Quantity, unit: &str) -> Result<(), ToolError> {
    let kelvin =
        Rational::from(v + from.offset.as_ref().unwrap_or(&Rational::new())) * &from.factor;
    if kelvin < 0 {
        return Err(ToolError::domain(format!(
            "{v} {unit} is below absolute zero (0 K); for a temperature difference write delta_degC or delta_degF"
        )));
    }
    Ok(())
}

/// Whether `q` has a finite decimal expansion.
fn terminates(q: &Rational) -> bool {
    let mut d = q.denom().clone();
    for p in [2u32, 5] {
        while d.is_divisible_u(p) {
            d /= p;
        }
    }
    d == 1
}

/// The exact decimal of a terminating rational.
fn exact_decimal(q: &Rational) -> String {
    let mut places = 0u32;
    let mut x = q.clone();
    while *x.denom() != 1 {
        x *= 10;
        places += 1;
    }
    beaker_expr::format_fixed(q, places)
}

/// `q` rounded half-to-even to `digits` significant digits: plain decimals for moderate magnitudes,
/// scientific notation (`2.5e-33`) beyond.
pub(crate) fn significant(q: &Rational, digits: u32) -> String {
    if *q == 0 {
        return "0".into();
    }
    let abs = Rational::from(q.abs_ref());
    let mut e = beaker_expr::decimal_exponent(&abs);
    let scaled = Rational::from(&abs * &pow10(i64::from(digits) - 1 - e));
    let mut m = beaker_expr::round_half_even(&scaled);
    if m.to_string().len() > digits as usize {
        m /= 10;
        e += 1;
    }
    let sign = if *q < 0 { "-" } else { "" };
    let ds = m.to_string();
    let ds = ds.trim_end_matches('0');
    let ds = if ds.is_empty() { "0" } else { ds };
    if (-7..21).contains(&e) {
        let value = Rational::from((m, Integer::from(1))) * pow10(e - i64::from(digits) + 1);
        format!("{sign}{}", exact_decimal(&value))
    } else {
        let (first, rest) = ds.split_at(1);
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        format!("{sign}{first}{frac}e{e}")
    }
}

/// One converted value: its text, whether it is exact, and its fraction when that says more.
fn convert(
    v: &Rational,
    from: &Quantity,
    to: &Quantity,
    precision: Option<u32>,
) -> (String, bool, Option<String>) {
    let offset_from = from.offset.clone().unwrap_or_default();
    let offset_to = to.offset.clone().unwrap_or_default();
    let ratio = Rational::from(&from.factor / &to.factor);
    let pi = from.pi - to.pi;
    if pi == 0 {
        let x = (Rational::from(v + &offset_from) * ratio) - offset_to;
        return match precision {
            Some(p) => {
                // Rounding lost nothing when the rounded text is the exact decimal itself.
                let text = significant(&x, p);
                let exact = terminates(&x) && text == exact_decimal(&x);
                (text, exact, None)
            }
            None if terminates(&x) => (exact_decimal(&x), true, None),
            None => {
                let frac = format!("{}/{}", x.numer(), x.denom());
                (
                    significant(&x, DEFAULT_SIGNIFICANT_DIGITS),
                    false,
                    Some(frac),
                )
            }
        };
    }
    let digits = precision.unwrap_or(DEFAULT_SIGNIFICANT_DIGITS);
    // Enough bits that the rounding to `digits` significant digits is right (π^k is irrational, so no tie).
    let bits = digits * 4 + 64 + 8 * pi.unsigned_abs();
    let exact_part = Rational::from(v + &offset_from) * ratio;
    let mut x = Float::with_val(bits, &exact_part);
    let p = Float::with_val(bits, Constant::Pi);
    x *= Float::with_val(bits, rug::ops::Pow::pow(&p, pi));
    x -= Float::with_val(bits, &offset_to);
    let q = x.to_rational().unwrap_or_default();
    (significant(&q, digits), false, None)
}

impl Tool for UnitConverter {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let from_unit = params["from_unit"].as_str().unwrap_or_default();
        let to_unit = params["to_unit"].as_str().unwrap_or_default();
        let precision = match params.get("precision") {
            None | Some(Value::Null) => None,
            Some(v) => {
                let p = v.as_u64().filter(|p| *p >= 1).ok_or_else(|| {
                    ToolError::invalid_params(
                        "`precision` must be a positive integer (significant digits)",
                    )
                })?;
                if p > MAX_SIGNIFICANT_DIGITS.min(ctx.limits.max_precision) {
                    return Err(ToolError::limit(format!(
                        "precision {p} is above the limit of {} significant digits",
                        MAX_SIGNIFICANT_DIGITS.min(ctx.limits.max_precision)
                    )));
                }
                Some(p as u32)
            }
        };
        let (from, to) = read_units(from_unit, to_unit)?;
        if from.dims != to.dims {
            return Err(ToolError::invalid_params(format!(
                "cannot convert {} ({from_unit}) to {} ({to_unit})",
                dimension_name(&from),
                dimension_name(&to)
            )));
        }
        // A temperature on a shifted scale is a point; a delta unit is a difference: they do not convert.
        let is_delta = |u: &str| u.contains("delta") || u.contains('Δ');
        if (from.offset.is_some() && is_delta(to_unit))
            || (to.offset.is_some() && is_delta(from_unit))
        {
            return Err(ToolError::invalid_params(format!(
                "{from_unit} and {to_unit}: one is a temperature and the other a temperature difference; \
                 convert temperatures to temperatures (degC, degF, K) and differences to differences (delta_degC, delta_degF, K)"
            )));
        }
        let absolute = from.dims8() == Some(TEMP) && !is_delta(from_unit) && !is_delta(to_unit);
        let mut notes: Vec<&str> = from
            .notes
            .iter()
            .chain(&to.notes)
            .map(String::as_str)
            .collect();
        notes.sort_unstable();
        notes.dedup();
        let mut out = serde_json::Map::new();
        match &params["value"] {
            Value::Array(items) => {
                if items.len() > MAX_VALUES {
                    return Err(ToolError::limit(format!(
                        "{} values in one call; the limit is {MAX_VALUES}",
                        items.len()
                    )));
                }
                let mut values = Vec::with_capacity(items.len());
                let mut all_exact = true;
                for (i, item) in items.iter().enumerate() {
                    if i % 1024 == 0 {
                        ctx.checkpoint()?;
                    }
                    let v = read_value(item)?;
                    if absolute {
                        above_absolute_zero(&v, &from, from_unit)?;
                    }
                    let (s, exact, _) = convert(&v, &from, &to, precision);
                    all_exact &= exact;
                    values.push(Value::String(s));
                }
                out.insert("value".into(), Value::Array(values));
                out.insert("unit".into(), json!(to_unit));
                out.insert("from_unit".into(), json!(from_unit));
                out.insert("dimension".into(), json!(dimension_name(&from)));
                out.insert("exact".into(), json!(all_exact));
            }
            v => {
                let v = read_value(v)?;
                if absolute {
                    above_absolute_zero(&v, &from, from_unit)?;
                }
                let (s, exact, fraction) = convert(&v, &from, &to, precision);
                out.insert("value".into(), json!(s));
                out.insert("unit".into(), json!(to_unit));
                out.insert("from_unit".into(), json!(from_unit));
                out.insert("dimension".into(), json!(dimension_name(&from)));
                out.insert("exact".into(), json!(exact));
                if let Some(f) = fraction {
                    out.insert("fraction".into(), json!(f));
                }
            }
        }
        if !notes.is_empty() {
            out.insert("notes".into(), json!(notes));
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests;
