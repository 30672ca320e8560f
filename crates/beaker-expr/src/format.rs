//! Rationals to decimal strings, rounded half-to-even.

use rug::{Integer, Rational};

/// The integer nearest to `q`, ties to even (Python's `round`).
pub fn round_half_even(q: &Rational) -> Integer {
    let floor = Integer::from(q.floor_ref());
    let frac = Rational::from(q - &floor);
    let half = Rational::from((1, 2));
    match frac.cmp(&half) {
        std::cmp::Ordering::Less => floor,
        std::cmp::Ordering::Greater => floor + 1u32,
        std::cmp::Ordering::Equal => {
            if floor.is_even() {
                floor
            } else {
                floor + 1u32
            }
        }
    }
}

/// `q` rounded half-to-even to `places` decimals, without trailing zeros; integers print in full and
/// `-0` prints as `0`.
pub fn format_fixed(q: &Rational, places: u32) -> String {
    if *q.denom() == 1 {
        return q.numer().to_string();
    }
    let scale = Integer::from(Integer::u_pow_u(10, places));
    let scaled = round_half_even(&Rational::from(q * &scale));
    if scaled == 0 {
        return "0".to_string();
    }
    let negative = scaled < 0;
    let digits = scaled.abs().to_string();
    let places = places as usize;
    let (int_part, frac_part) = if digits.len() > places {
        let (i, f) = digits.split_at(digits.len() - places);
        (i.to_string(), f.to_string())
    } else {
        (
            "0".to_string(),
            format!("{}{}", "0".repeat(places - digits.len()), digits),
        )
    };
    let frac_part = frac_part.trim_end_matches('0');
    let sign = if negative { "-" } else { "" };
    if frac_part.is_empty() {
        format!("{sign}{int_part}")
    } else {
        format!("{sign}{int_part}.{frac_part}")
    }
}

/// Below this decimal exponent a result is written in scientific notation (`1e-7`, not `0.0000001`).
pub const SCIENTIFIC_BELOW: i64 = -6;
/// From this decimal exponent up a non-integer or approximate result is written in scientific notation.
pub const SCIENTIFIC_FROM: i64 = 21;

/// `q` as the calculator writes it at `precision`: at least `precision` decimal places and at least
/// `precision` significant digits (so a small value never rounds to 0), half-to-even, trailing zeros removed;
/// scientific notation (`3.9756e-19`, `2.6881171418e+43`, `precision` significant digits) when the decimal
/// exponent is below [`SCIENTIFIC_BELOW`] or from [`SCIENTIFIC_FROM`] up. Integers print in full when
/// `integer_in_full`; precision 0 rounds to an integer, written in full.
pub fn format_significant(q: &Rational, precision: u32, integer_in_full: bool) -> String {
    if *q == 0 {
        return "0".to_string();
    }
    if integer_in_full && *q.denom() == 1 {
        return q.numer().to_string();
    }
    if precision == 0 {
        return format_fixed(q, 0);
    }
    let sig = precision;
    let magnitude = Rational::from(q.abs_ref());
    let mut e = decimal_exponent(&magnitude);
    let mut n = round_half_even(&(magnitude * pow10(i64::from(sig) - 1 - e)));
    if n == Integer::from(Integer::u_pow_u(10, sig)) {
        e += 1;
        n /= 10u32;
    }
    if (SCIENTIFIC_BELOW..SCIENTIFIC_FROM).contains(&e) {
        let places = i64::from(precision).max(i64::from(sig) - 1 - e);
        return format_fixed(q, places as u32);
    }
    let digits = n.to_string();
    let (lead, rest) = digits.split_at(1);
    let rest = rest.trim_end_matches('0');
    let sign = if *q < 0 { "-" } else { "" };
    let dot = if rest.is_empty() { "" } else { "." };
    let esign = if e < 0 { '-' } else { '+' };
    format!("{sign}{lead}{dot}{rest}e{esign}{}", e.unsigned_abs())
}

/// `10^e` as a rational, for any sign of `e`.
pub fn pow10(e: i64) -> Rational {
    let p = Rational::from(Integer::from(Integer::u_pow_u(10, e.unsigned_abs() as u32)));
    if e < 0 {
        p.recip()
    } else {
        p
    }
}

/// The `e` with `10^e <= x < 10^(e+1)`, for `x > 0`.
pub fn decimal_exponent(x: &Rational) -> i64 {
    let log2 = i64::from(x.numer().significant_bits()) - i64::from(x.denom().significant_bits());
    let mut e = (log2 as f64 * std::f64::consts::LOG10_2).floor() as i64;
    // The estimate is within one of the answer; step to it exactly.
    while *x < pow10(e) {
        e -= 1;
    }
    while *x >= pow10(e + 1) {
        e += 1;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::ops::Pow;

    fn q(n: i64, d: i64) -> Rational {
        Rational::from((n, d))
    }

    #[test]
    fn ties_go_to_even() {
        assert_eq!(format_fixed(&q(1, 8), 2), "0.12");
        assert_eq!(format_fixed(&q(3, 8), 2), "0.38");
        assert_eq!(format_fixed(&q(5, 2), 0), "2");
        assert_eq!(format_fixed(&q(7, 2), 0), "4");
        assert_eq!(format_fixed(&q(-5, 2), 0), "-2");
    }

    #[test]
    fn significant_digits_and_scientific_notation() {
        let sig = |n: i64, d: i64, p: u32| format_significant(&q(n, d), p, true);
        assert_eq!(sig(1, 3, 10), "0.3333333333");
        assert_eq!(sig(1, 3000, 10), "0.0003333333333");
        assert_eq!(sig(1, 3_000_000, 10), "3.333333333e-7");
        assert_eq!(sig(-1, 3_000_000, 3), "-3.33e-7");
        assert_eq!(sig(1, 1_000_000, 10), "0.000001");
        assert_eq!(sig(1, 10_000_000, 10), "1e-7");
        assert_eq!(sig(9999999999, 10_i64.pow(17), 10), "9.999999999e-8");
        assert_eq!(sig(99999999999, 10_i64.pow(18), 10), "1e-7");
        assert_eq!(sig(123456789, 1000, 2), "123456.79");
        assert_eq!(sig(7, 2, 0), "4");
        assert_eq!(sig(1, 30, 0), "0");
        assert_eq!(sig(1, 30, 1), "0.03");
        assert_eq!(sig(10_i64.pow(18), 1, 10), "1000000000000000000");
        assert_eq!(
            format_significant(&q(10_i64.pow(18), 1), 10, false),
            "1000000000000000000"
        );
        let big = Rational::from((Integer::from(10).pow(30) + 1u32, Integer::from(7)));
        assert_eq!(format_significant(&big, 10, true), "1.428571429e+29");
        let integer = Rational::from(Integer::from(10).pow(25));
        assert_eq!(
            format_significant(&integer, 10, true),
            "10000000000000000000000000"
        );
        assert_eq!(format_significant(&integer, 10, false), "1e+25");
        assert_eq!(sig(0, 1, 10), "0");
    }

    #[test]
    fn formatting() {
        assert_eq!(format_fixed(&q(1, 3), 10), "0.3333333333");
        assert_eq!(format_fixed(&q(-1, 3), 3), "-0.333");
        assert_eq!(format_fixed(&q(-1, 3000), 2), "0");
        assert_eq!(format_fixed(&q(1, 2), 10), "0.5");
        assert_eq!(format_fixed(&q(1, 100), 2), "0.01");
        assert_eq!(format_fixed(&q(12345, 1), 2), "12345");
        assert_eq!(format_fixed(&q(1999, 1000), 2), "2");
    }
}
