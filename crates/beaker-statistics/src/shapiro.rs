//! `shapiro`: the Shapiro–Wilk W test by Royston's algorithm AS R94 (1995), the one SciPy runs: Blom
//! scores corrected by Royston's polynomials for the coefficients, and his normalising transformations of
//! W for the p-value (exact for n = 3).

use crate::distributions::norm_ppf;
use crate::input::{at_least, num, test_result, Args};
use crate::sums::{sorted, ss, sum};
use beaker_core::ToolError;
use serde_json::{json, Value};

/// Largest sample AS R94 is calibrated for.
const MAX_N: usize = 5000;

/// `c[0] + c[1]·x + c[2]·x² + …`
fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

pub(crate) fn shapiro(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let x = args.sample("sample1")?;
    at_least(&x, 3, "data")?;
    let n = x.len();
    let s = sorted(&x);
    let range = s[n - 1] - s[0];
    if range == 0.0 {
        // As SciPy: identical values give W = 1 and p = 1 (with a warning there, a note here).
        let mut out = test_result("Shapiro-Wilk test", 1.0, 1.0, alpha, None);
        out.insert("w_statistic".into(), num(1.0));
        out.insert("n".into(), json!(n));
        out.insert(
            "warning".into(),
            json!("all values are identical (range zero): W = 1 says nothing about normality"),
        );
        return Ok(Value::Object(out));
    }
    args.ctx.checkpoint()?;
    let nn2 = n / 2;
    let an = n as f64;
    // Coefficients a[0..nn2] for the lower half (the upper half is antisymmetric).
    let mut a = vec![0.0f64; nn2];
    if n == 3 {
        a[0] = std::f64::consts::FRAC_1_SQRT_2;
    } else {
        const C1: [f64; 6] = [0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056];
        const C2: [f64; 6] = [0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633];
        let an25 = an + 0.25;
        let m: Vec<f64> = (1..=nn2)
            .map(|i| norm_ppf((i as f64 - 0.375) / an25))
            .collect();
        let summ2 = 2.0 * sum(m.iter().map(|v| v * v));
        let ssumm2 = summ2.sqrt();
        let rsn = 1.0 / an.sqrt();
        let a1 = poly(&C1, rsn) - m[0] / ssumm2;
        let (i1, fac) = if n > 5 {
            let a2 = -m[1] / ssumm2 + poly(&C2, rsn);
            a[1] = a2;
            (
                2,
                ((summ2 - 2.0 * m[0] * m[0] - 2.0 * m[1] * m[1])
                    / (1.0 - 2.0 * a1 * a1 - 2.0 * a2 * a2))
                    .sqrt(),
            )
        } else {
            (
                1,
                ((summ2 - 2.0 * m[0] * m[0]) / (1.0 - 2.0 * a1 * a1)).sqrt(),
            )
        };
        a[0] = a1;
        for i in i1..nn2 {
            a[i] = -m[i] / fac;
        }
    }
    // W = (Σ a_i (x_(n+1-i) - x_(i)))² / Σ(x - x̄)², on data scaled by its range as AS R94 does.
    let xs: Vec<f64> = s.iter().map(|v| v / range).collect();
    let num_ = sum((0..nn2).map(|i| a[i] * (xs[n - 1 - i] - xs[i])));
    let w = (num_ * num_ / ss(&xs)).min(1.0);
    let p = if n == 3 {
        // Exact for n = 3: p = (6/π)(asin √W - π/3).
        let pi = std::f64::consts::PI;
        (6.0 / pi * (w.sqrt().asin() - std::f64::consts::FRAC_PI_3)).max(0.0)
    } else {
        let w1 = 1.0 - w;
        let y = w1.ln();
        let xx = an.ln();
        if n <= 11 {
            const G: [f64; 2] = [-2.273, 0.459];
            const C3: [f64; 4] = [0.5440, -0.39978, 0.025054, -6.714e-4];
            const C4: [f64; 4] = [1.3822, -0.77857, 0.062767, -0.0020322];
            let gamma = poly(&G, an);
            if y >= gamma {
                1e-99
            } else {
                let y = -(gamma - y).ln();
                let m = poly(&C3, an);
                let s = poly(&C4, an).exp();
                crate::normal::sf((y - m) / s)
            }
        } else {
            const C5: [f64; 4] = [-1.5861, -0.31082, -0.083751, 0.0038915];
            const C6: [f64; 3] = [-0.4803, -0.082676, 0.0030302];
            let m = poly(&C5, xx);
            let s = poly(&C6, xx).exp();
            crate::normal::sf((y - m) / s)
        }
    };
    let mut out = test_result("Shapiro-Wilk test", w, p.min(1.0), alpha, None);
    out.insert("w_statistic".into(), num(w));
    out.insert("n".into(), json!(n));
    if n > MAX_N {
        out.insert(
            "warning".into(),
            json!(format!(
                "AS R94 is calibrated for n <= {MAX_N}; the p-value for n = {n} may be inaccurate"
            )),
        );
    }
    Ok(Value::Object(out))
}
