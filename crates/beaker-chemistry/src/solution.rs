//! Acid–base equilibria by the exact charge balance, water's autoionisation included: no textbook shortcut
//! decides a digit (`1e-8 M HCl` is pH 6.98, not 8).

use beaker_core::ToolError;

/// Range of the Harned–Owen fit for Kw(T), in kelvin (0–60 °C).
pub(crate) const KW_RANGE: (f64, f64) = (273.15, 333.15);

/// pKw at `temperature` (K): 14 exactly when none is given (the textbook convention at 25 °C), else
/// Harned and Owen's fit pKw = 4470.99/T − 6.0875 + 0.01706·T.
pub(crate) fn pkw(temperature: Option<f64>) -> Result<f64, ToolError> {
    match temperature {
        None => Ok(14.0),
        Some(t) if (KW_RANGE.0..=KW_RANGE.1).contains(&t) => Ok(4470.99 / t - 6.0875 + 0.01706 * t),
        Some(t) => Err(ToolError::domain(format!(
            "Kw is known here for 273.15–333.15 K (0–60 °C), not at {t} K"
        ))),
    }
}

/// The root of an increasing function `f` of ln h, by bisection down to adjacent doubles.
fn root_ln(f: impl Fn(f64) -> f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..400 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Fractions α₀…αₙ of an n-protic acid at [H⁺] = e^`ln_h` (computed in logs: Ka products span 10⁻⁵⁰…10³).
fn alphas(ln_h: f64, ka: &[f64]) -> Vec<f64> {
    let mut logs = Vec::with_capacity(ka.len() + 1);
    let mut acc = 0.0;
    logs.push(0.0);
    for (i, k) in ka.iter().enumerate() {
        acc += k.ln();
        logs.push(acc - (i as f64 + 1.0) * ln_h);
    }
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = logs.iter().map(|l| (l - top).exp()).collect();
    let sum: f64 = w.iter().sum();
    w.into_iter().map(|x| x / sum).collect()
}

/// The concentration of the ion an acid gives (H⁺) or a base gives (OH⁻) at equilibrium: the root of
/// x = C·Σ i·αᵢ(x) + Kw/x, with `k` the acid (or base) constants in order (empty: strong, `equivalents` per unit).
pub(crate) fn ion_concentration(c: f64, k: &[f64], equivalents: f64, kw: f64) -> f64 {
    if k.is_empty() {
        let a = c * equivalents;
        // x² − a x − Kw = 0, in the form without cancellation.
        return 0.5 * (a + (a * a + 4.0 * kw).sqrt());
    }
    let f = |ln_x: f64| {
        let x = ln_x.exp();
        let al = alphas(ln_x, k);
        let bound: f64 = al.iter().enumerate().map(|(i, a)| i as f64 * a).sum();
        x - c * bound - kw / x
    };
    let hi = (c * k.len() as f64 + kw.sqrt()).ln() + 1.0;
    let lo = (kw.sqrt()).ln() - 1.0;
    root_ln(f, lo, hi).exp()
}

/// The fraction of an acid (or base) that has given up its first proton (or taken up one) at `ln_x`.
pub(crate) fn ionised_fraction(x: f64, k: &[f64]) -> f64 {
    1.0 - alphas(x.ln(), k)[0]
}

/// [H⁺] of a buffer: a weak acid (Ka) at `ca` with its conjugate base as a sodium salt at `cb`:
/// h + Cb = Kw/h + (Ca + Cb)·Ka/(h + Ka).
pub(crate) fn buffer_h(ca: f64, cb: f64, ka: f64, kw: f64) -> f64 {
    let f = |ln_h: f64| {
        let h = ln_h.exp();
        h + cb - kw / h - (ca + cb) * ka / (h + ka)
    };
    let lo = (kw / (ca + cb + 1.0)).ln() - 5.0;
    let hi = (ca + kw.sqrt() + 1.0).ln() + 1.0;
    root_ln(f, lo, hi).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dilute_strong_acid_is_not_basic() {
        let h = ion_concentration(1e-8, &[], 1.0, 1e-14);
        let ph = -h.log10();
        assert!((ph - 6.978_294_313_542_888).abs() < 1e-12, "{ph}");
    }

    #[test]
    fn weak_acid_exact() {
        // 0.1 M acetic acid: the cubic's root (h² + Ka h − Ka C = 0 dominates).
        let h = ion_concentration(0.1, &[1.8e-5], 1.0, 1e-14);
        let quad = 0.5 * (-1.8e-5 + (1.8e-5f64 * 1.8e-5 + 4.0 * 1.8e-5 * 0.1).sqrt());
        assert!((h - quad).abs() / quad < 1e-6);
    }
}
