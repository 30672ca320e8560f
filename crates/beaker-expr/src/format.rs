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

#[cfg(test)]
mod tests {
    use super::*;

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
