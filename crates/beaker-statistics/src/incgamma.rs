//! The regularised incomplete gamma functions `P(a, x)` and `Q(a, x) = 1 - P(a, x)`, each to full relative
//! precision for any shape: the gamma, chi-square and Poisson distributions rest on them.
//!
//! The method is the one of R's `pgamma` (Morten Welinder, 2005), written here from its description. Every
//! branch multiplies a sum by `x^a e^{-x} / Γ(a+1)`, the Poisson probability of `a` at mean `x`, computed by
//! Loader's saddle-point form (`stirlerr` and `bd0`), which keeps full precision where `a ln x - x - ln Γ(a+1)`
//! would cancel (statrs' form loses `a·ε`: 2.6e-6 relative at a = 1e9):
//! - `x < 1`: the power series of `P` (Abramowitz & Stegun 6.5.29);
//! - `x` well below `a`: the series `Σ xⁿ/((a+1)…(a+n))` for the lower tail;
//! - `x` well above `a`: the series `Σ (a-1)(a-2)…/xⁿ` with a continued fraction for its tail;
//! - `x` near a large `a`: Temme's uniform asymptotic expansion around the normal cdf of
//!   `±sqrt(2a(x/a - 1 - ln(x/a)))`, seven terms.
//!
//! The tail that is small is computed directly and the other as one minus it, so both `P` and `Q` keep their
//! relative precision down to the smallest doubles.

use crate::special::{bd0, log1pmx, stirlerr};
use libm::lgamma as ln_gamma;
use std::f64::consts::{LN_2, PI};

const EPS: f64 = f64::EPSILON;
/// 2^256: the continued fraction's convergents are rescaled by it before they overflow.
const SCALE: f64 = 1.157_920_892_373_162e77;
/// Above `|a| · CUTOFF` a value of `x` makes `x^a` meaningless next to `e^-x`.
const CUTOFF: f64 = LN_2 * f64::MAX_EXP as f64 / EPS;
/// Most continued-fraction steps; convergence takes a few dozen where the fraction is used.
const MAX_STEPS: usize = 200_000;

/// `(P(a, x), Q(a, x))` for `a > 0`, `x >= 0` (NaN for other arguments).
pub(crate) fn gamma_pq(a: f64, x: f64) -> (f64, f64) {
    if a.is_nan() || x.is_nan() || a <= 0.0 || x < 0.0 {
        return (f64::NAN, f64::NAN);
    }
    if x == 0.0 {
        return (0.0, 1.0);
    }
    if x.is_infinite() {
        return (1.0, 0.0);
    }
    if x < 1.0 {
        return small_x(a, x);
    }
    if x <= a - 1.0 && x < 0.8 * (a + 50.0) {
        // The lower tail is the small one.
        let p = upper_series(x, a) * poisson_shifted(a, x);
        return (p, 1.0 - p);
    }
    if a - 1.0 < x && a < 0.8 * (x + 50.0) {
        // The upper tail is the small one.
        let d = poisson_shifted(a, x);
        let sum = if a < 1.0 {
            if x * EPS > 1.0 - a {
                1.0
            } else {
                lower_fraction(a, x - (a - 1.0)) * x / a
            }
        } else {
            1.0 + lower_series(x, a - 1.0)
        };
        let q = sum * d;
        return (1.0 - q, q);
    }
    (asymptotic(a - 1.0, x, true), asymptotic(a - 1.0, x, false))
}

/// The gamma density `x^{a-1} e^{-x} / Γ(a)` at `x > 0`, with the precision of [`gamma_pq`] at any shape.
pub(crate) fn gamma_density(a: f64, x: f64) -> f64 {
    if x <= 0.0 || x.is_infinite() {
        return if x == 0.0 && a == 1.0 {
            1.0
        } else if x == 0.0 && a < 1.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    poisson_shifted(a, x)
}

/// `x^a e^{-x} / Γ(a+1)` for real `a >= 0` (R's `dpois_raw`).
fn poisson(a: f64, lambda: f64) -> f64 {
    if a <= lambda * f64::MIN_POSITIVE {
        return (-lambda).exp();
    }
    if lambda < a * f64::MIN_POSITIVE {
        return (-lambda + a * lambda.ln() - ln_gamma(a + 1.0)).exp();
    }
    (-stirlerr(a) - bd0(a, lambda)).exp() / (2.0 * PI * a).sqrt()
}

/// `x^{a-1} e^{-x} / Γ(a)`: [`poisson`] at `a - 1`, also for `a <= 1`.
fn poisson_shifted(a: f64, x: f64) -> f64 {
    if a > 1.0 {
        return poisson(a - 1.0, x);
    }
    if x > (a - 1.0).abs() * CUTOFF {
        return (-x - ln_gamma(a)).exp();
    }
    poisson(a, x) * (a / x)
}

/// `(P, Q)` for `x < 1` by the power series `P = x^a/Γ(a+1) · (1 + Σ aₙ)` with
/// `aₙ = a·(-x)ⁿ / (n!·(a+n))`.
fn small_x(a: f64, x: f64) -> (f64, f64) {
    let mut sum = 0.0;
    let mut c = a;
    let mut n = 0.0;
    loop {
        n += 1.0;
        c *= -x / n;
        let term = c / (a + n);
        sum += term;
        if term.abs() <= EPS * sum.abs() {
            break;
        }
    }
    let ln_f2 = a * x.ln() - ln_gamma_1p(a);
    let p = if a > 1.0 {
        (1.0 + sum) * poisson(a, x) * x.exp()
    } else {
        (1.0 + sum) * ln_f2.exp()
    };
    // Q = 1 - (1 + sum)·e^{ln_f2}, written so that it keeps its precision when both are near 0.
    let f2m1 = ln_f2.exp_m1();
    let q = -(sum + f2m1 + sum * f2m1);
    (p, q)
}

/// `ln Γ(1 + a)`, without the rounding of `1 + a` mattering for small `a`.
fn ln_gamma_1p(a: f64) -> f64 {
    if a.abs() >= 0.5 {
        return ln_gamma(a + 1.0);
    }
    // ln Γ(1+a) = ln Γ(2+a) - ln(1+a), and ln Γ(2+a) has no cancellation near a = 0.
    ln_gamma(a + 2.0) - a.ln_1p()
}

/// `Σ_{n>=0} x^{n+1} / (y(y+1)…(y+n))`.
fn upper_series(x: f64, mut y: f64) -> f64 {
    let mut term = x / y;
    let mut sum = term;
    loop {
        y += 1.0;
        term *= x / y;
        sum += term;
        if term <= sum * EPS {
            return sum;
        }
    }
}

/// The continued fraction `y/(d + (1-y)·1/(d+2 + (2-y)·2/(d+4 + …)))` behind the lower series' tail.
fn lower_fraction(y: f64, d: f64) -> f64 {
    if y == 0.0 {
        return 0.0;
    }
    let f0 = y / d;
    if (y - 1.0).abs() < d.abs() * EPS {
        return f0;
    }
    let f0 = f0.min(1.0);
    let (mut c2, mut c4) = (y, d);
    let (mut a1, mut b1, mut a2, mut b2) = (0.0, 1.0, y, d);
    while b2 > SCALE {
        a1 /= SCALE;
        b1 /= SCALE;
        a2 /= SCALE;
        b2 /= SCALE;
    }
    let mut i = 0.0;
    let mut previous = -1.0;
    let mut f = f0;
    for _ in 0..MAX_STEPS {
        i += 1.0;
        c2 -= 1.0;
        let c3 = i * c2;
        c4 += 2.0;
        a1 = c4 * a2 + c3 * a1;
        b1 = c4 * b2 + c3 * b1;
        i += 1.0;
        c2 -= 1.0;
        let c3 = i * c2;
        c4 += 2.0;
        a2 = c4 * a1 + c3 * a2;
        b2 = c4 * b1 + c3 * b2;
        if b2 > SCALE {
            a1 /= SCALE;
            b1 /= SCALE;
            a2 /= SCALE;
            b2 /= SCALE;
        }
        if b2 != 0.0 {
            f = a2 / b2;
            if (f - previous).abs() <= EPS * f0.max(f.abs()) {
                return f;
            }
            previous = f;
        }
    }
    f
}

/// `Σ_{n>=0} y(y-1)…(y-n) / λ^{n+1}`, finished by [`lower_fraction`] when `y` is not an integer.
fn lower_series(lambda: f64, mut y: f64) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    while y >= 1.0 && term > sum * EPS {
        term *= y / lambda;
        sum += term;
        y -= 1.0;
    }
    if y != y.floor() {
        sum += term * lower_fraction(y, lambda + 1.0 - y);
    }
    sum
}

/// Temme's coefficients of the correction term, and Stirling's series for Γ, as in R's `ppois_asymp`.
const COEF_A: [f64; 7] = [
    2.0 / 3.0,
    -4.0 / 135.0,
    8.0 / 2835.0,
    16.0 / 8505.0,
    -8992.0 / 12_629_925.0,
    -334_144.0 / 492_567_075.0,
    698_752.0 / 1_477_701_225.0,
];
const COEF_B: [f64; 7] = [
    1.0 / 12.0,
    1.0 / 288.0,
    -139.0 / 51840.0,
    -571.0 / 2_488_320.0,
    163_879.0 / 209_018_880.0,
    5_246_819.0 / 75_246_796_800.0,
    -534_703_531.0 / 902_961_561_600.0,
];

/// `P(y + 1, λ)` (`lower`) or `Q(y + 1, λ)` for `λ` near a large `y + 1`: the Poisson cdf at `y` with mean
/// `λ` (upper) and its complement, by the normal cdf at `s = ±sqrt(2y·(−ln(1+d) + d))`, `d = (λ−y)/y`, plus a
/// correction in powers of `1/y`.
fn asymptotic(y: f64, lambda: f64, lower: bool) -> f64 {
    let dfm = lambda - y;
    let pt = -log1pmx(dfm / y);
    let mut s2pt = (2.0 * y * pt).sqrt();
    if dfm < 0.0 {
        s2pt = -s2pt;
    }
    let mut res12 = 0.0;
    let mut res1_term = y.sqrt();
    let mut res1_ig = res1_term;
    let mut res2_term = s2pt;
    let mut res2_ig = res2_term;
    for i in 1..8 {
        res12 += res1_ig * COEF_A[i - 1];
        res12 += res2_ig * COEF_B[i - 1];
        res1_term *= pt / i as f64;
        res2_term *= 2.0 * pt / (2 * i + 1) as f64;
        res1_ig = res1_ig / y + res1_term;
        res2_ig = res2_ig / y + res2_term;
    }
    let mut elfb = y;
    let mut elfb_term = 1.0;
    for b in COEF_B {
        elfb += elfb_term * b;
        elfb_term /= y;
    }
    // The expansion is of the Poisson cdf at y (= Q(y+1, λ)), so `lower` here is its upper tail.
    if lower {
        elfb = -elfb;
    }
    let f = res12 / elfb;
    let np = if lower {
        crate::normal::cdf(s2pt)
    } else {
        crate::normal::sf(s2pt)
    };
    np + f * crate::normal::pdf(s2pt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_edges() {
        // P(1, x) = 1 - e^{-x}; P(1/2, x) = erf(sqrt(x)).
        for x in [1e-5, 0.3, 1.0, 2.5, 10.0, 40.0] {
            let (p, q) = gamma_pq(1.0, x);
            assert!((p - -(-x).exp_m1()).abs() <= 1e-15 * p, "P(1, {x}) = {p}");
            assert!((q - (-x).exp()).abs() <= 1e-14 * q, "Q(1, {x}) = {q}");
        }
        assert_eq!(gamma_pq(3.0, 0.0), (0.0, 1.0));
        assert_eq!(gamma_pq(3.0, f64::INFINITY), (1.0, 0.0));
        assert!(gamma_pq(0.0, 1.0).0.is_nan());
        assert!(gamma_pq(1.0, -1.0).1.is_nan());
    }

    #[test]
    fn the_tails_add_to_one_across_the_branches() {
        for a in [1e-3f64, 0.5, 1.0, 7.5, 100.0, 1e4, 1e7, 1e12] {
            for k in [-8.0, -3.0, -1.0, 0.0, 0.5, 2.0, 6.0] {
                let x = (a + k * a.sqrt()).max(1e-3);
                let (p, q) = gamma_pq(a, x);
                assert!((p + q - 1.0).abs() < 1e-14, "a={a} x={x}: {p} + {q}");
                assert!((0.0..=1.0).contains(&p) && (0.0..=1.0).contains(&q));
            }
        }
    }

    #[test]
    fn log1pmx_is_accurate_near_zero() {
        for t in [1e-10f64, -1e-6, 0.003, -0.3, 0.9] {
            let naive = t.ln_1p() - t;
            let err = (log1pmx(t) - naive).abs() / naive.abs();
            // The naive form is itself good away from 0; near 0 compare with the series' first terms.
            if t.abs() > 0.1 {
                assert!(err < 1e-14, "{t}: {err}");
            } else {
                // ln(1+t) - t = Σ_{k>=2} (-1)^{k+1} t^k / k, summed smallest terms first.
                let series: f64 = (2..40).rev().map(|k| -(-t).powi(k) / f64::from(k)).sum();
                assert!(
                    (log1pmx(t) - series).abs() <= 1e-12 * series.abs() + 1e-30,
                    "{t}"
                );
            }
        }
    }
}
