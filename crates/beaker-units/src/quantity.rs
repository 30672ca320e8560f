//! Quantity params of the domain tools (`chemistry`, `physics`): a number in a stated unit, or a string
//! `"20 m/s"` read by the unit engine, checked against the dimension the param needs and brought to SI.

use super::expr::{parse_unit, Quantity};
use super::table::{Dims, ANGLE, ANGULAR_SPEED, FREQ, TEMP};
use super::{dims_name, unit_error};
use beaker_core::ToolError;
use rug::{Float, Rational};
use serde_json::Value;

/// Largest decimal exponent of a quantity's number (`1e300 m`); SI values must still fit a double.
const MAX_EXPONENT: i64 = 400;
/// Working precision of the conversion to SI, in bits: the factor is exact, so this only has to round once.
const BITS: u32 = 128;

/// What a quantity param is: its dimension, the unit of a bare number, and how temperatures read.
#[derive(Clone, Copy, Debug)]
pub struct Kind {
    /// The dimension the param must have.
    pub dims: Dims,
    /// The unit a bare number is in (`"g"`, `"L"`, `"deg"`).
    pub bare_unit: &'static str,
    /// A temperature difference: °C and °F read as kelvin steps, and negative values are allowed.
    pub difference: bool,
}

impl Kind {
    /// A quantity of `dims` whose bare numbers are in `bare_unit`.
    pub const fn new(dims: Dims, bare_unit: &'static str) -> Kind {
        Kind {
            dims,
            bare_unit,
            difference: false,
        }
    }
}

/// Splits `"20 m/s"` into its number and unit; a string that is only a number has an empty unit.
pub fn split_number(s: &str) -> (&str, &str) {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    // An exponent only when digits follow it: `2e3 m` is 2000 m, `2 eV` is two electronvolts.
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > digits {
            i = j;
        }
    }
    (s[..i].trim(), s[i..].trim())
}

/// One quantity (a number or a string with a unit) in SI units.
pub fn read_value(v: &Value, key: &str, kind: Kind) -> Result<f64, ToolError> {
    let q = read_si(v, key, kind)?;
    let out = if q.pi == 0 {
        nearest(&q.exact)
    } else {
        let mut si = Float::with_val(BITS, &q.exact);
        let pi = Float::with_val(BITS, rug::float::Constant::Pi);
        si *= rug::ops::Pow::pow(pi, q.pi);
        si.to_f64()
    };
    if !out.is_finite() || (out == 0.0 && q.exact != 0) {
        return Err(ToolError::limit(format!(
            "`{key}`: {} {} is outside the range of a double in SI units",
            q.number, q.unit
        )));
    }
    Ok(out)
}

/// The double nearest `x`, rounded once (`Rational::to_f64` truncates towards zero: 10 uF would read
/// 9.999999999999999e-6).
pub fn nearest(x: &Rational) -> f64 {
    Float::with_val(f64::MANTISSA_DIGITS, x).to_f64()
}

/// One quantity in SI units as an exact rational (`"2.2 kohm"` is exactly 2200), for tools that compute in
/// rationals. A unit whose factor has π in it (`rpm`) is read through the double.
pub fn read_rational(v: &Value, key: &str, kind: Kind) -> Result<Rational, ToolError> {
    let q = read_si(v, key, kind)?;
    if q.pi == 0 {
        // Still refuse what a double cannot hold, so that exact and float paths agree on what is too big.
        read_value(v, key, kind)?;
        return Ok(q.exact);
    }
    let x = read_value(v, key, kind)?;
    Rational::from_f64(x).ok_or_else(|| ToolError::limit(format!("`{key}` is not finite")))
}

/// One quantity in SI units at `bits` of precision, for closed forms evaluated past a double's precision
/// so that exact-looking answers come out exact (cos 60° is 0.5, not 0.5000000000000001).
pub fn read_float(v: &Value, key: &str, kind: Kind, bits: u32) -> Result<Float, ToolError> {
    // The double check keeps the same range limits as `read_value`.
    read_value(v, key, kind)?;
    let q = read_si(v, key, kind)?;
    let mut x = Float::with_val(bits, &q.exact);
    if q.pi != 0 {
        let pi = Float::with_val(bits, rug::float::Constant::Pi);
        x *= rug::ops::Pow::pow(pi, q.pi);
    }
    Ok(x)
}

/// A quantity read and checked: its SI value is `exact · π^pi`.
struct Si {
    exact: Rational,
    pi: i32,
    number: String,
    unit: String,
}

fn read_si(v: &Value, key: &str, kind: Kind) -> Result<Si, ToolError> {
    let (number, unit) = match v {
        Value::Number(n) => (n.to_string(), kind.bare_unit.to_string()),
        Value::String(s) => {
            let (n, u) = split_number(s.trim());
            if n.is_empty() || n == "+" || n == "-" {
                return Err(ToolError::invalid_params(format!(
                    "`{key}`: `{s}` does not start with a number (write e.g. \"20 m/s\")"
                )));
            }
            let u = if u.is_empty() { kind.bare_unit } else { u };
            (n.to_string(), u.to_string())
        }
        other => {
            return Err(ToolError::invalid_params(format!(
                "`{key}` must be a number or a string with a unit, got {other}"
            )))
        }
    };
    let x = super::expr::decimal(&number, MAX_EXPONENT).ok_or_else(|| {
        ToolError::invalid_params(format!("`{key}`: `{number}` is not a decimal number"))
    })?;
    let q = unit_for(&unit, kind).map_err(|e| unit_error(key, &unit, e))?;
    let given = q.dims8();
    let is_hertz = unit.to_ascii_lowercase().contains("hz");
    if kind.dims == ANGULAR_SPEED && is_hertz {
        return Err(ToolError::invalid_params(format!(
            "`{key}`: {number} {unit} is a frequency (cycles per second), not an angular velocity; write \"{number} rev/s\" (= 2π·{number} rad/s) or give the value in rad/s"
        )));
    }
    let (mut exact_factor, mut pi_power) = (q.factor.clone(), q.pi);
    if kind.dims == FREQ && given == Some(ANGULAR_SPEED) {
        // A cycle rate from an angular one: ω = 2π f, so `120 rpm` is 2 Hz and `12.566 rad/s` is 2 Hz.
        exact_factor /= 2;
        pi_power -= 1;
    }
    let fits = given == Some(kind.dims)
        || (kind.dims == FREQ && given == Some(ANGULAR_SPEED))
        // A radian is a plain number in SI: `1/s` is accepted for an angular speed and `rad` where a plain
        // number is wanted, never the other way round for degrees.
        || given.is_some_and(|g| without_angle(g) == kind.dims && g[8] != 0 && q.pi == 0 && q.factor == 1)
        || given.is_some_and(|g| g[8] == 0 && without_angle(kind.dims) == g && kind.dims[8] == 1);
    if !fits {
        return Err(ToolError::invalid_params(format!(
            "`{key}`: {number} {unit} is {}, but `{key}` needs {} (e.g. {})",
            with_article(&dims_name(&q.dims)),
            dims_name(&kind.dims.map(i32::from)),
            if kind.bare_unit.is_empty() {
                "a plain number"
            } else {
                kind.bare_unit
            }
        )));
    }
    let offset = if kind.difference {
        Rational::new()
    } else {
        q.offset.clone().unwrap_or_default()
    };
    let exact = Rational::from(&x + &offset) * &exact_factor;
    if kind.dims == TEMP && !kind.difference && exact < 0 {
        return Err(ToolError::domain(format!(
            "`{key}`: {number} {unit} is below absolute zero (0 K)"
        )));
    }
    Ok(Si {
        exact,
        pi: pi_power,
        number,
        unit,
    })
}

/// `a length quantity`, `an angular speed quantity`.
fn with_article(name: &str) -> String {
    let vowel = name.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {name} quantity", if vowel { "an" } else { "a" })
}

fn without_angle(mut d: Dims) -> Dims {
    d[8] = 0;
    d
}

/// `C` and `F` alone are °C and °F where a temperature is wanted (elsewhere the coulomb and the farad).
fn unit_for(unit: &str, kind: Kind) -> Result<Quantity, super::expr::UnitError> {
    let unit = match unit.trim() {
        "C" if kind.dims == TEMP => "degC",
        "F" if kind.dims == TEMP => "degF",
        "°" if kind.dims == ANGLE => "deg",
        u => u,
    };
    parse_unit(unit)
}

/// How far a redundant input may be from the value the others imply and still be used: textbook data are
/// rounded (22.4 L, 1 atm, 0 °C and 1 mol disagree by 0.06 %), so up to 0.1 % is answered with a note.
pub const ROUNDED_RTOL: f64 = 1e-3;
/// Below this a redundant input simply agrees (float rounding), with no note.
pub const EXACT_RTOL: f64 = 1e-9;

/// The relative gap between a redundant input `given` and the value `implied` by the others, measured against
/// `scale` as well (for values near zero).
pub fn gap(given: f64, implied: f64, scale: f64) -> f64 {
    let size = given.abs().max(implied.abs()).max(scale.abs());
    if size == 0.0 {
        0.0
    } else {
        (given - implied).abs() / size
    }
}

/// The one rule for a redundant input, in `physics` and `chemistry` alike: `None` when it agrees, a note when it
/// is off by rounding (up to 0.1 %), an error naming it and the value the others imply when it is further off.
pub fn agreement(
    key: &str,
    given: f64,
    implied: f64,
    unit: &str,
    from: &str,
) -> Result<Option<String>, ToolError> {
    let g = gap(given, implied, 0.0);
    if g <= EXACT_RTOL {
        return Ok(None);
    }
    if g <= ROUNDED_RTOL {
        return Ok(Some(format!(
            "`{key}` = {} {unit} differs by {:.2} % from the {} {unit} that {from} give; the answer uses {from}",
            show_number(given),
            100.0 * g,
            show_number(implied)
        )));
    }
    Err(ToolError::invalid_params(format!(
        "`{key}` = {} {unit} disagrees with {from}, which give {} {unit} ({:.2} % apart; rounded data may differ by up to 0.1 %); give one fewer value",
        show_number(given),
        show_number(implied),
        100.0 * g
    )))
}

/// A number as JSON writes it (the shortest form that reads back the same).
fn show_number(x: f64) -> String {
    Value::from(x).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{SPEED, VOLUME};
    use serde_json::json;

    #[test]
    fn reads_numbers_and_strings() {
        let speed = Kind::new(SPEED, "m/s");
        assert_eq!(read_value(&json!(3), "v", speed).ok(), Some(3.0));
        let kmh = read_value(&json!("72 km/h"), "v", speed).ok();
        assert_eq!(kmh, Some(20.0));
        let litre = read_value(&json!("500 mL"), "v", Kind::new(VOLUME, "L")).ok();
        assert_eq!(litre, Some(5e-4));
        let bare = read_value(&json!(2), "v", Kind::new(VOLUME, "L")).ok();
        assert_eq!(bare, Some(2e-3));
        let ev = read_value(&json!("2 eV"), "e", Kind::new(crate::table::ENERGY, "J"));
        assert!(ev.is_ok_and(|e| (e - 3.204353268e-19).abs() < 1e-30));
    }

    #[test]
    fn temperatures_and_differences() {
        let t = read_value(&json!("25 C"), "t", Kind::new(TEMP, "K")).ok();
        assert_eq!(t, Some(298.15));
        let step = Kind {
            difference: true,
            ..Kind::new(TEMP, "K")
        };
        assert_eq!(read_value(&json!("10 degC"), "dt", step).ok(), Some(10.0));
        let cold = read_value(&json!("-300 degC"), "t", Kind::new(TEMP, "K"));
        assert!(cold.is_err_and(|e| e.message.contains("absolute zero")));
    }

    #[test]
    fn wrong_dimension_names_the_param() {
        let e = read_value(&json!("5 kg"), "velocity", Kind::new(SPEED, "m/s"));
        assert!(e.is_err_and(|e| e.message.contains("`velocity`") && e.message.contains("mass")));
        let e = read_value(&json!("fast"), "velocity", Kind::new(SPEED, "m/s"));
        assert!(e.is_err());
        let e = read_value(&json!([1]), "velocity", Kind::new(SPEED, "m/s"));
        assert!(e.is_err());
    }

    #[test]
    fn angles_in_degrees_by_default() {
        let a = read_value(&json!(90), "angle", Kind::new(ANGLE, "deg")).ok();
        assert_eq!(a, Some(std::f64::consts::FRAC_PI_2));
        let r = read_value(&json!("1 rad"), "angle", Kind::new(ANGLE, "deg")).ok();
        assert_eq!(r, Some(1.0));
    }
}
