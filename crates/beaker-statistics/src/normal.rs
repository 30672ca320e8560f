//! The standard normal distribution to full double precision: Φ, its complement, ln Φ, the density and
//! the quantile, in both tails down to 1e-300.
//!
//! statrs' `Normal` loses about five digits (its `erfc` is good to ~1e-11 relative, and `ppf(0.975)` was
//! off by 1e-11), and `0.5·erfc(-x/√2)` alone loses `x²·ε` in the far tail because `x/√2` is rounded.
//! Here `erfc` is musl's (the `libm` crate, under 1 ulp), the rounding error of `x/√2` is computed
//! exactly with a fused multiply-add and corrected to first order, and the quantile is Wichura's AS241
//! (PPND16, relative error about 1e-16) polished by one Newton step on that cdf.

use std::f64::consts::FRAC_1_SQRT_2;

/// `1/√2 - FRAC_1_SQRT_2`, the part of 1/√2 a double cannot hold (mpmath, 50 digits).
const FRAC_1_SQRT_2_LO: f64 = -4.833_646_656_726_457e-17;
/// 1/√π.
const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;
/// 1/√(2π).
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// Φ(x), the standard normal cdf, with full relative precision in the lower tail.
pub(crate) fn cdf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    // Φ(x) = ½·erfc(w) with w = -x/√2 = hi + lo exactly (hi the rounded product).
    let hi = -x * FRAC_1_SQRT_2;
    let lo = (-x).mul_add(FRAC_1_SQRT_2, -hi) + -x * FRAC_1_SQRT_2_LO;
    let e = libm::erfc(hi);
    // erfc(hi + lo) = erfc(hi) - lo·(2/√π)·e^{-hi²} + O(lo²).
    if hi.abs() > 27.3 {
        // e^{-hi²} underflows here; so does the value.
        return 0.5 * e;
    }
    0.5 * e - lo * FRAC_1_SQRT_PI * (-hi * hi).exp()
}

/// 1 - Φ(x) without cancellation.
pub(crate) fn sf(x: f64) -> f64 {
    cdf(-x)
}

/// The standard normal density, `e^{-x²/2}/√(2π)` with `x²` carried to twice double precision (the
/// naive form loses `x²/2·ε` relative, 7e-14 at x = 37).
pub(crate) fn pdf(x: f64) -> f64 {
    let h = x * x;
    if !h.is_finite() {
        return if x.is_nan() { f64::NAN } else { 0.0 };
    }
    let l = x.mul_add(x, -h);
    FRAC_1_SQRT_2PI * (-0.5 * h).exp() * (-0.5 * l).exp()
}

/// ln φ(x).
pub(crate) fn ln_pdf(x: f64) -> f64 {
    -0.5 * x * x - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

/// ln Φ(z), accurate far into the lower tail where Φ underflows (an asymptotic series below -20).
pub(crate) fn ln_cdf(z: f64) -> f64 {
    if z > 6.0 {
        (-sf(z)).ln_1p()
    } else if z > -20.0 {
        cdf(z).ln()
    } else {
        // ln Φ(z) = -z²/2 - ln(-z) - ln√(2π) + ln(1 - 1/z² + 3/z⁴ - 15/z⁶ + ...)
        let z2 = z * z;
        let (mut term, mut series) = (1.0f64, 1.0f64);
        for k in 1..12 {
            term *= -((2 * k - 1) as f64) / z2;
            series += term;
        }
        -0.5 * z2 - (-z).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln() + series.ln()
    }
}

/// The x with `Φ(x) = lower` and `1 - Φ(x) = upper` (`lower + upper = 1`; the smaller one is the one
/// given exactly and the one inverted, so both tails keep their relative precision).
pub(crate) fn quantile(lower: f64, upper: f64) -> f64 {
    if lower.is_nan() || upper.is_nan() {
        return f64::NAN;
    }
    if lower <= upper {
        lower_quantile(lower)
    } else {
        -lower_quantile(upper)
    }
}

/// Φ⁻¹(p) for p ≤ ½ (so x ≤ 0).
fn lower_quantile(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 0.5 {
        return 0.0;
    }
    let x = as241(p);
    // One Newton step on Φ(x) = p. AS241 is already within ~1e-16; the step absorbs the last ulps and
    // carries the result below 1e-300, where AS241 is outside its fitted range.
    let d = pdf(x);
    if d > 0.0 && d.is_finite() {
        let step = (cdf(x) - p) / d;
        if step.is_finite() {
            return x - step;
        }
    }
    x
}

/// Wichura's AS241 (PPND16): Φ⁻¹(p) for 0 < p ≤ ½, relative error about 1e-16 for p ≥ 1e-300.
fn as241(p: f64) -> f64 {
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q * poly(&A, r) / poly(&B, r);
    }
    let r = (-p.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        poly(&C, r) / poly(&D, r)
    } else {
        let r = r - 5.0;
        poly(&E, r) / poly(&F, r)
    };
    -x
}

/// `c[0] + c[1]·x + … + c[7]·x⁷` by Horner's rule.
fn poly(c: &[f64; 8], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

// AS241's coefficients (Wichura 1988, Applied Statistics 37(3), 477-484).
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const A: [f64; 8] = [
    3.387_132_872_796_366_608,
    1.331_416_678_917_843_774_5e2,
    1.971_590_950_306_551_442_7e3,
    1.373_169_376_550_946_112_5e4,
    4.592_195_393_154_987_145_7e4,
    6.726_577_092_700_870_085_3e4,
    3.343_057_558_358_812_810_5e4,
    2.509_080_928_730_122_672_7e3,
];
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const B: [f64; 8] = [
    1.0,
    4.231_333_070_160_091_125_2e1,
    6.871_870_074_920_579_083_0e2,
    5.394_196_021_424_751_107_7e3,
    2.121_379_430_158_659_586_7e4,
    3.930_789_580_009_271_061_0e4,
    2.872_908_573_572_194_267_4e4,
    5.226_495_278_852_854_561_0e3,
];
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const C: [f64; 8] = [
    1.423_437_110_749_683_577_34,
    4.630_337_846_156_545_295_90,
    5.769_497_221_460_691_405_50,
    3.647_848_324_763_204_605_04,
    1.270_458_252_452_368_382_58,
    2.417_807_251_774_506_117_70e-1,
    2.272_384_498_926_918_458_33e-2,
    7.745_450_142_783_414_076_40e-4,
];
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const D: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_821_87,
    1.676_384_830_183_803_849_40,
    6.897_673_349_851_000_045_50e-1,
    1.481_039_764_274_800_745_90e-1,
    1.519_866_656_361_645_719_66e-2,
    5.475_938_084_995_344_946_00e-4,
    1.050_750_071_644_416_843_24e-9,
];
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const E: [f64; 8] = [
    6.657_904_643_501_103_777_20,
    5.463_784_911_164_114_369_90,
    1.784_826_539_917_291_335_80,
    2.965_605_718_285_048_912_30e-1,
    2.653_218_952_657_612_309_30e-2,
    1.242_660_947_388_078_438_60e-3,
    2.711_555_568_743_487_578_15e-5,
    2.010_334_399_292_288_132_65e-7,
];
#[allow(clippy::excessive_precision)] // the coefficients as Wichura published them
const F: [f64; 8] = [
    1.0,
    5.998_322_065_558_879_376_90e-1,
    1.369_298_809_227_358_053_10e-1,
    1.487_536_129_085_061_485_25e-2,
    7.868_691_311_456_132_591_00e-4,
    1.846_318_317_510_054_681_80e-5,
    1.421_511_758_316_445_888_70e-7,
    2.044_263_103_389_939_785_64e-15,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_inverts_the_cdf_in_both_tails() {
        for &p in &[1e-300, 1e-100, 1e-20, 1e-5, 0.01, 0.2, 0.4999] {
            let x = quantile(p, 1.0 - p);
            // One ulp of x moves Φ(x) by |x|·ulp(x) relative (2.6e-13 at x = -37).
            let tol = 4e-15_f64.max(4.0 * x * x * f64::EPSILON);
            assert!(((cdf(x) - p) / p).abs() < tol, "p = {p}: x = {x}");
            assert_eq!(quantile(1.0 - p, p), -x, "p = {p}");
        }
        assert_eq!(quantile(0.5, 0.5), 0.0);
        assert_eq!(quantile(0.0, 1.0), f64::NEG_INFINITY);
    }

    #[test]
    fn density_in_the_far_tail_keeps_its_digits() {
        // mpmath: φ(37) = 2.12000655152460562685e-298.
        let v = pdf(37.0);
        assert!(
            (v / 2.120_006_551_524_605_6e-298 - 1.0).abs() < 1e-13,
            "{v:e}"
        );
    }
}
