//! How a program's output is compared with a test's expected output, as competitive-programming judges do.

use serde::Deserialize;

/// A comparison of output with expected output.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Compare {
    /// Byte for byte.
    Exact,
    /// Line by line, ignoring trailing whitespace on each line and trailing blank lines (most judges' default
    /// for text).
    Lines,
    /// Whitespace-separated tokens, equal as text, or as numbers within the tolerance when both are numbers
    /// (testlib's `wcmp`, and `rcmp` with a tolerance).
    #[default]
    Tokens,
}

/// Whether `got` matches `want` under `compare`; numbers within `tolerance` (absolute or relative, as
/// testlib's `doubleCompare`) when tokens are compared and a tolerance is given.
pub(crate) fn matches(compare: Compare, got: &str, want: &str, tolerance: Option<f64>) -> bool {
    match compare {
        Compare::Exact => got == want,
        Compare::Lines => lines(got) == lines(want),
        Compare::Tokens => {
            let mut g = got.split_whitespace();
            let mut w = want.split_whitespace();
            loop {
                match (g.next(), w.next()) {
                    (None, None) => return true,
                    (Some(a), Some(b)) if a == b => {}
                    (Some(a), Some(b)) => match (tolerance, a.parse::<f64>(), b.parse::<f64>()) {
                        (Some(tol), Ok(x), Ok(y)) if close(x, y, tol) => {}
                        _ => return false,
                    },
                    _ => return false,
                }
            }
        }
    }
}

/// The lines of `s` without trailing whitespace, trailing blank lines dropped.
fn lines(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().map(str::trim_end).collect();
    while v.last() == Some(&"") {
        v.pop();
    }
    v
}

/// testlib's `doubleCompare`: equal within `tol` absolutely or relatively; NaN only matches NaN.
fn close(x: f64, y: f64, tol: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x.is_infinite() || y.is_infinite() {
        return x == y;
    }
    (x - y).abs() <= tol || (x - y).abs() <= tol * y.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_comparison_forgives_what_judges_forgive_and_nothing_more() {
        assert!(matches(Compare::Exact, "1 2\n", "1 2\n", None));
        assert!(!matches(Compare::Exact, "1 2", "1 2\n", None));
        assert!(matches(Compare::Lines, "1 2  \n3\n\n", "1 2\n3", None));
        assert!(!matches(Compare::Lines, "1  2\n", "1 2\n", None));
        assert!(matches(Compare::Tokens, "1  2\n\n3", "1 2 3\n", None));
        assert!(!matches(Compare::Tokens, "1 2", "1 2 3", None));
        assert!(!matches(Compare::Tokens, "0.3333333", "0.333333333", None));
        assert!(matches(
            Compare::Tokens,
            "0.3333333",
            "0.333333333",
            Some(1e-6)
        ));
        assert!(!matches(
            Compare::Tokens,
            "0.334",
            "0.333333333",
            Some(1e-6)
        ));
        assert!(matches(
            Compare::Tokens,
            "1000000.5",
            "1000000.0",
            Some(1e-6)
        ));
        assert!(!matches(Compare::Tokens, "YES", "yes", Some(1e-6)));
        assert!(!matches(Compare::Tokens, "nan", "1", Some(1e-6)));
    }
}
