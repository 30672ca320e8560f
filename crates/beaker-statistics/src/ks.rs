//! `ks_test`: Kolmogorov–Smirnov, one sample against a named distribution or two samples, with exact
//! p-values where SciPy's `method="auto"` computes them exactly.
//!
//! One sample, two-sided: `P(D_n ≥ d)` from the Durbin matrix (Marsaglia, Tsang & Wang 2003, exact) where
//! SciPy uses Durbin or Pomeranz (both exact), and `2·P(D⁺_n ≥ d)` (Smirnov's exact one-sided formula)
//! where SciPy uses it; for very large n in the middle range, where SciPy uses the Pelz–Good series, the
//! limiting Kolmogorov distribution (documented tolerance). One-sided: Smirnov's formula.
//! Two samples: the probability that a random lattice path leaves the band |i/n1 - j/n2| < d, computed
//! as probabilities along the path (no overflow), as SciPy's exact method; asymptotic above 10,000.

use crate::distributions::Dist;
use crate::input::{at_least, num, test_result, Alternative, Args};
use crate::sums::sorted;
use beaker_core::{CallContext, ToolError};
use serde_json::{json, Value};
use statrs::function::gamma::ln_gamma;

/// Sizes above which SciPy's `auto` switches the two-sample test to the asymptotic distribution.
const MAX_AUTO_N: usize = 10_000;

pub(crate) fn ks_test(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let alt = args.alternative()?;
    let x = args.sample("sample1")?;
    at_least(&x, 1, "data.sample1")?;
    let two = matches!(args.data.get("sample2"), Some(v) if !v.is_null());
    if two && args.data.get("distribution").is_some() {
        return Err(ToolError::invalid_params(
            "give `data.sample2` (two-sample test) or `data.distribution` (one sample against it), not both",
        ));
    }
    if two {
        let y = args.sample("sample2")?;
        at_least(&y, 1, "data.sample2")?;
        return two_sample(&x, &y, alt, alpha, args);
    }
    let dist = Dist::from_data(args.data).map_err(|e| {
        if args.data.get("distribution").is_none() {
            ToolError::invalid_params(
                "ks_test needs `data.sample2` (two samples) or `data.distribution` (one sample against it)",
            )
        } else {
            e
        }
    })?;
    let s = sorted(&x);
    let n = s.len();
    let nf = n as f64;
    let (mut dplus, mut dminus) = (0.0f64, 0.0f64);
    for (i, &v) in s.iter().enumerate() {
        let c = dist.cdf(v);
        dplus = dplus.max((i + 1) as f64 / nf - c);
        dminus = dminus.max(c - i as f64 / nf);
    }
    let (d, p, method) = match alt {
        Alternative::Greater => (dplus, smirnov(n, dplus), "exact"),
        Alternative::Less => (dminus, smirnov(n, dminus), "exact"),
        Alternative::TwoSided => {
            let d = dplus.max(dminus);
            let (p, m) = kolmogorov_sf(n, d, args.ctx)?;
            (d, p, m)
        }
    };
    let mut m = test_result("one-sample Kolmogorov-Smirnov test", d, p, alpha, Some(alt));
    m.insert("d_plus".into(), num(dplus));
    m.insert("d_minus".into(), num(dminus));
    m.insert("n".into(), json!(n));
    m.insert("method".into(), json!(method));
    Ok(Value::Object(m))
}

/// `P(D⁺_n ≥ d)`: Smirnov's exact one-sided tail (Birnbaum & Tingey 1951), summed in logs.
pub(crate) fn smirnov(n: usize, d: f64) -> f64 {
    if d <= 0.0 {
        return 1.0;
    }
    if d >= 1.0 {
        return 0.0;
    }
    let nf = n as f64;
    let jmax = (nf * (1.0 - d)).floor() as usize;
    let ln_n1 = ln_gamma(nf + 1.0);
    let mut total = 0.0;
    for j in 0..=jmax.min(n) {
        let jf = j as f64;
        let a = 1.0 - d - jf / nf;
        let b = d + jf / nf;
        if a <= 0.0 {
            // Only j = n(1-d) exactly: the term is 0 unless n - j = 0.
            if n == j {
                total += (ln_n1 - ln_gamma(jf + 1.0) - ln_gamma(nf - jf + 1.0)
                    + (jf - 1.0) * b.ln())
                .exp();
            }
            continue;
        }
        let ln_term = ln_n1 - ln_gamma(jf + 1.0) - ln_gamma(nf - jf + 1.0)
            + (nf - jf) * a.ln()
            + (jf - 1.0) * b.ln();
        total += ln_term.exp();
    }
    (d * total).clamp(0.0, 1.0)
}

/// `P(D_n ≥ d)` for the two-sided one-sample statistic, with the method used.
fn kolmogorov_sf(n: usize, d: f64, ctx: &CallContext) -> Result<(f64, &'static str), ToolError> {
    let nf = n as f64;
    if d >= 1.0 {
        return Ok((0.0, "exact"));
    }
    let t = nf * d;
    if t <= 0.5 {
        return Ok((1.0, "exact"));
    }
    if t <= 1.0 {
        // Ruben & Gambino: P(D ≤ d) = n!/n^n (2t - 1)^n for 1/2n ≤ d ≤ 1/n.
        let ln_cdf = ln_gamma(nf + 1.0) - nf * nf.ln() + nf * (2.0 * t - 1.0).ln();
        return Ok((-(ln_cdf.exp_m1()), "exact"));
    }
    if t >= nf - 1.0 {
        return Ok(((2.0 * (1.0 - d).powf(nf)).min(1.0), "exact"));
    }
    if d >= 0.5 {
        return Ok(((2.0 * smirnov(n, d)).min(1.0), "exact"));
    }
    let nx2 = t * d;
    if n <= 140 {
        if nx2 <= 4.0 {
            return Ok(((1.0 - durbin_cdf(n, d, ctx)?).clamp(0.0, 1.0), "exact"));
        }
        return Ok(((2.0 * smirnov(n, d)).min(1.0), "exact"));
    }
    if nx2 >= 370.0 {
        return Ok((0.0, "exact"));
    }
    if nx2 >= 2.2 {
        return Ok(((2.0 * smirnov(n, d)).min(1.0), "exact"));
    }
    let k = t.ceil();
    if n <= 100_000 && 2.0 * k - 1.0 <= 400.0 {
        return Ok(((1.0 - durbin_cdf(n, d, ctx)?).clamp(0.0, 1.0), "exact"));
    }
    Ok((kolmogorov_limit_sf(nf.sqrt() * d), "asymptotic"))
}

/// The limiting Kolmogorov distribution's tail, `2 Σ (-1)^{k-1} e^{-2k²x²}`.
fn kolmogorov_limit_sf(x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    if x < 1.0 {
        // The series in its other form converges faster here: cdf = √(2π)/x Σ e^{-(2k-1)²π²/(8x²)}.
        let c = (2.0 * std::f64::consts::PI).sqrt() / x;
        let mut s = 0.0;
        for k in 1..50 {
            let kk = (2 * k - 1) as f64;
            s += (-kk * kk * std::f64::consts::PI.powi(2) / (8.0 * x * x)).exp();
        }
        return (1.0 - c * s).clamp(0.0, 1.0);
    }
    let mut s = 0.0;
    for k in 1..100 {
        let kf = k as f64;
        let term = (-2.0 * kf * kf * x * x).exp();
        s += if k % 2 == 1 { term } else { -term };
        if term < 1e-300 {
            break;
        }
    }
    (2.0 * s).clamp(0.0, 1.0)
}

/// `P(D_n < d)` by the Durbin matrix: the (k, k) entry of Hⁿ times n!/nⁿ, with H's powers rescaled by
/// powers of two so nothing overflows (Marsaglia, Tsang & Wang 2003).
fn durbin_cdf(n: usize, d: f64, ctx: &CallContext) -> Result<f64, ToolError> {
    let nd = n as f64 * d;
    let k = nd.ceil() as usize;
    let h = k as f64 - nd;
    let m = 2 * k - 1;
    let mut hm = vec![0.0f64; m * m];
    let mut v = vec![0.0f64; m];
    let mut w = vec![0.0f64; m];
    let mut fac = 1.0f64;
    for j in 1..=m {
        w[j - 1] = fac;
        fac /= j as f64;
        v[j - 1] = (1.0 - h.powi(j as i32)) * fac;
    }
    let tt = (2.0 * h - 1.0).max(0.0).powi(m as i32) - 2.0 * h.powi(m as i32);
    v[m - 1] = (1.0 + tt) * fac;
    for i in 1..m {
        for r in (i - 1)..m {
            hm[r * m + i] = w[r - (i - 1)];
        }
    }
    for r in 0..m {
        hm[r * m] = v[r];
    }
    for c in 0..m {
        hm[(m - 1) * m + c] = v[m - 1 - c];
    }
    let mul = |a: &[f64], b: &[f64]| -> Vec<f64> {
        let mut out = vec![0.0; m * m];
        for i in 0..m {
            for l in 0..m {
                let x = a[i * m + l];
                if x == 0.0 {
                    continue;
                }
                for j in 0..m {
                    out[i * m + j] += x * b[l * m + j];
                }
            }
        }
        out
    };
    let mut pw = vec![0.0f64; m * m];
    for i in 0..m {
        pw[i * m + i] = 1.0;
    }
    let (mut expnt, mut hexp) = (0i32, 0i32);
    let mut nn = n;
    while nn > 0 {
        ctx.checkpoint()?;
        if nn % 2 == 1 {
            pw = mul(&pw, &hm);
            expnt += hexp;
        }
        hm = mul(&hm, &hm);
        hexp *= 2;
        if hm[(k - 1) * m + (k - 1)].abs() > 2f64.powi(128) {
            for x in hm.iter_mut() {
                *x /= 2f64.powi(128);
            }
            hexp += 128;
        }
        nn /= 2;
    }
    let mut p = pw[(k - 1) * m + (k - 1)];
    for i in 1..=n {
        p = i as f64 * p / n as f64;
        if p.abs() < 2f64.powi(-128) {
            p *= 2f64.powi(128);
            expnt -= 128;
        }
    }
    Ok(p * 2f64.powi(expnt))
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn two_sample(
    x: &[f64],
    y: &[f64],
    alt: Alternative,
    alpha: f64,
    args: &Args,
) -> Result<Value, ToolError> {
    let (a, b) = (sorted(x), sorted(y));
    let (n1, n2) = (a.len(), b.len());
    // The largest differences of the two empirical cdfs, over every data point.
    let (mut max_s, mut min_s) = (f64::NEG_INFINITY, f64::INFINITY);
    let (mut i, mut j) = (0, 0);
    while i < n1 || j < n2 {
        let v = match (a.get(i), b.get(j)) {
            (Some(&p), Some(&q)) => p.min(q),
            (Some(&p), None) => p,
            (None, Some(&q)) => q,
            (None, None) => break,
        };
        while i < n1 && a[i] <= v {
            i += 1;
        }
        while j < n2 && b[j] <= v {
            j += 1;
        }
        let diff = i as f64 / n1 as f64 - j as f64 / n2 as f64;
        max_s = max_s.max(diff);
        min_s = min_s.min(diff);
    }
    let min_s = (-min_s).clamp(0.0, 1.0);
    let d = if alt == Alternative::Less || (alt == Alternative::TwoSided && min_s > max_s) {
        min_s
    } else {
        max_s
    };
    let method = args.opt_choice("method", &["auto", "exact", "asymptotic"])?;
    let exact = match method {
        "auto" => n1.max(n2) <= MAX_AUTO_N,
        m => m == "exact",
    };
    let g = gcd(n1, n2);
    let lcm = (n1 / g) * n2;
    let (p, used) = if exact {
        let h = (d * lcm as f64).round() as u64;
        (lattice_sf(n1, n2, g, h, alt, args.ctx)?, "exact")
    } else {
        let (m, n) = (n1.max(n2) as f64, n1.min(n2) as f64);
        let en = m * n / (m + n);
        let p = if alt == Alternative::TwoSided {
            let (p, _) = kolmogorov_sf(en.round() as usize, d, args.ctx)?;
            p
        } else {
            let z = en.sqrt() * d;
            (-2.0 * z * z - 2.0 * z * (m + 2.0 * n) / (m * n * (m + n)).sqrt() / 3.0).exp()
        };
        (p, "asymptotic")
    };
    let mut m = test_result(
        "two-sample Kolmogorov-Smirnov test",
        d,
        p.clamp(0.0, 1.0),
        alpha,
        Some(alt),
    );
    m.insert("n1".into(), json!(n1));
    m.insert("n2".into(), json!(n2));
    m.insert("method".into(), json!(used));
    Ok(Value::Object(m))
}

/// The probability that a uniformly random monotone lattice path from (0,0) to (n1,n2) reaches
/// |i·n2 - j·n1|/g ≥ h (two-sided) or (i·n2 - j·n1)/g ≥ h ("greater"; "less" mirrors it).
fn lattice_sf(
    n1: usize,
    n2: usize,
    g: usize,
    h: u64,
    alt: Alternative,
    ctx: &CallContext,
) -> Result<f64, ToolError> {
    if h == 0 {
        return Ok(1.0);
    }
    let work = (n1 as u64 + 1) * (n2 as u64 + 1);
    let cap = ctx
        .limits
        .max_evaluations
        .saturating_mul(40)
        .min(400_000_000);
    if work > cap {
        return Err(ToolError::limit(format!(
            "the exact two-sample KS distribution needs {work} steps; the limit is {cap} (use method \"asymptotic\")"
        )));
    }
    let hit = |i: usize, j: usize| -> bool {
        let s = (i * n2) as i128 - (j * n1) as i128;
        let s = s / g as i128;
        match alt {
            Alternative::TwoSided => s.unsigned_abs() >= u128::from(h),
            Alternative::Greater => s >= h as i128,
            Alternative::Less => -s >= h as i128,
        }
    };
    // q[j]: probability of being at (i, j) without having hit the boundary yet.
    let mut q = vec![0.0f64; n2 + 1];
    let mut escaped = 0.0f64;
    q[0] = 1.0;
    for i in 0..=n1 {
        ctx.checkpoint()?;
        for j in 0..=n2 {
            if i == 0 && j == 0 {
                continue;
            }
            // Arrive from (i-1, j) by an x step or from (i, j-1) by a y step; each step's probability
            // is the share of the remaining x or y items.
            let mut v = 0.0;
            if i > 0 {
                let rem = (n1 + n2 - (i - 1) - j) as f64;
                v += q[j] * (n1 - (i - 1)) as f64 / rem;
            }
            if j > 0 {
                let rem = (n1 + n2 - i - (j - 1)) as f64;
                v += q[j - 1] * (n2 - (j - 1)) as f64 / rem;
            }
            if hit(i, j) {
                escaped += v;
                q[j] = 0.0;
            } else {
                q[j] = v;
            }
        }
    }
    Ok(escaped.min(1.0))
}
