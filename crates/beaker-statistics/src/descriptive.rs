//! `descriptive`: the summary of one sample, with NumPy's and SciPy's conventions.

use crate::input::{at_least, finite, num, nums, Args};
use crate::sums::{central_moment, deviations, mean, quantile_sorted, sorted, sum};
use beaker_core::ToolError;
use serde_json::{json, Value};

pub(crate) fn descriptive(args: &Args) -> Result<Value, ToolError> {
    let x = args.sample("sample1")?;
    let ddof = args.opt_f64("ddof", 1.0)?;
    if ddof < 0.0 || ddof.fract() != 0.0 {
        return Err(ToolError::invalid_params(format!(
            "`options.ddof` must be a non-negative integer, not {ddof}"
        )));
    }
    let bias = args.opt_bool("bias", true)?;
    at_least(&x, 1, "data")?;
    let n = x.len();
    let nf = n as f64;
    if nf <= ddof {
        return Err(ToolError::invalid_params(format!(
            "std and var with ddof = {ddof} need more than {ddof} values, got {n}"
        )));
    }
    args.ctx.checkpoint()?;
    let s = sorted(&x);
    let m = mean(&x);
    let dev = deviations(&x);
    let ssd = sum(dev.iter().map(|d| d * d));
    let var = ssd / (nf - ddof);
    let std = var.sqrt();
    let m2 = ssd / nf;
    // SciPy returns NaN for the shape of constant data; we return null (documented). The threshold is
    // SciPy's: the variance is zero to rounding of the mean.
    let constant = m2 <= (1e-15 * m.abs()).powi(2);
    let (skew, kurt) = if constant {
        (f64::NAN, f64::NAN)
    } else {
        let m3 = central_moment(&dev, 3);
        let m4 = central_moment(&dev, 4);
        let g1 = m3 / m2.powf(1.5);
        let g2 = m4 / (m2 * m2) - 3.0;
        if bias {
            (g1, g2)
        } else {
            // The adjusted Fisher–Pearson estimators, as scipy.stats.skew/kurtosis(bias=False); below 3
            // and 4 values SciPy keeps the biased value, and so do we.
            let skew = if n > 2 {
                (nf * (nf - 1.0)).sqrt() / (nf - 2.0) * g1
            } else {
                g1
            };
            let kurt = if n > 3 {
                ((nf * nf - 1.0) * m4 / (m2 * m2) - 3.0 * (nf - 1.0).powi(2))
                    / ((nf - 2.0) * (nf - 3.0))
            } else {
                g2
            };
            (skew, kurt)
        }
    };
    let q1 = quantile_sorted(&s, 0.25);
    let q3 = quantile_sorted(&s, 0.75);
    let mut out = json!({
        "n": n,
        "mean": num(m),
        "median": num(quantile_sorted(&s, 0.5)),
        "mode": num(mode(&s)),
        "std": num(std),
        "var": num(var),
        "min": num(s[0]),
        "max": num(s[n - 1]),
        "range": num(s[n - 1] - s[0]),
        "sum": num(sum(x.iter().copied())),
        "q1": num(q1),
        "q3": num(q3),
        "iqr": num(q3 - q1),
        "skew": num(skew),
        "kurtosis": num(kurt),
        "sem": num(std / nf.sqrt()),
    });
    if let Some(p) = args.options.get("percentiles").filter(|p| !p.is_null()) {
        let ps = p.as_array().ok_or_else(|| {
            ToolError::invalid_params("`options.percentiles` must be a list of numbers in [0, 100]")
        })?;
        crate::input::check_len(ps.len(), "options.percentiles", args.ctx)?;
        let mut vals = Vec::with_capacity(ps.len());
        for (i, p) in ps.iter().enumerate() {
            let q = finite(p, &format!("options.percentiles[{i}]"))?;
            if !(0.0..=100.0).contains(&q) {
                return Err(ToolError::invalid_params(format!(
                    "`options.percentiles[{i}]` must be in [0, 100], not {q}"
                )));
            }
            vals.push(quantile_sorted(&s, q / 100.0));
        }
        out["percentiles"] = nums(&vals);
    }
    Ok(out)
}

/// The most frequent value of sorted data; the smallest of them on a tie (as `scipy.stats.mode`).
fn mode(s: &[f64]) -> f64 {
    let (mut best, mut best_n) = (s[0], 0usize);
    let mut i = 0;
    while i < s.len() {
        let mut j = i + 1;
        while j < s.len() && s[j] == s[i] {
            j += 1;
        }
        if j - i > best_n {
            best = s[i];
            best_n = j - i;
        }
        i = j;
    }
    best
}
