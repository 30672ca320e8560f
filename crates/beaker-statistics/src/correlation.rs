//! `correlation`: Pearson (with a Fisher-z confidence interval), Spearman and Kendall's tau-b, with
//! SciPy's p-values.

use crate::exact;
use crate::input::{at_least, num, Alternative, Args};
use crate::sums::{deviations, rank, sum};
use beaker_core::ToolError;
use serde_json::{json, Value};

pub(crate) fn correlation(args: &Args) -> Result<Value, ToolError> {
    let x = crate::input::sample_values(args.field("x")?, "data.x", args.ctx)?;
    let y = crate::input::sample_values(args.field("y")?, "data.y", args.ctx)?;
    if x.len() != y.len() {
        return Err(ToolError::invalid_params(format!(
            "`data.x` and `data.y` must have the same length, got {} and {}",
            x.len(),
            y.len()
        )));
    }
    at_least(&x, 2, "data.x")?;
    let alt = args.alternative()?;
    let method = args.opt_choice("method", &["pearson", "spearman", "kendall"])?;
    let n = x.len();
    let mut out = match method {
        "pearson" => pearson(&x, &y, alt, args)?,
        "spearman" => {
            let (rx, _) = rank(&x);
            let (ry, _) = rank(&y);
            let r = r_of(&rx, &ry)?;
            let df = n as f64 - 2.0;
            let p = if df <= 0.0 {
                1.0
            } else if r.abs() >= 1.0 {
                // SciPy's t is infinite here; the p-value is 0 on the matching side.
                alt.p_value(
                    if r < 0.0 { 0.0 } else { 1.0 },
                    if r > 0.0 { 0.0 } else { 1.0 },
                )
            } else {
                let t = r * (df / ((r + 1.0) * (1.0 - r))).max(0.0).sqrt();
                let t_cdf = crate::distributions::t_cdf;
                alt.p_value(t_cdf(df, t), t_cdf(df, -t))
            };
            json!({"coefficient": num(r), "p_value": num(p)})
        }
        _ => kendall(&x, &y, alt, args)?,
    };
    let alpha = args.alpha()?;
    let p = out["p_value"].as_f64().unwrap_or(1.0);
    out["significant"] = json!(p < alpha);
    out["alpha"] = num(alpha);
    out["method"] = json!(method);
    out["n"] = json!(n);
    out["alternative"] = json!(alt.as_str());
    Ok(out)
}

/// The Pearson coefficient of two equal-length samples; `domain_error` when either is constant.
fn r_of(x: &[f64], y: &[f64]) -> Result<f64, ToolError> {
    let (dx, dy) = (deviations(x), deviations(y));
    let sxy = sum(dx.iter().zip(&dy).map(|(a, b)| a * b));
    let sxx = sum(dx.iter().map(|a| a * a));
    let syy = sum(dy.iter().map(|b| b * b));
    if sxx == 0.0 || syy == 0.0 {
        return Err(ToolError::domain(
            "an input is constant (zero variance): the correlation coefficient is undefined",
        ));
    }
    Ok((sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0))
}

fn pearson(x: &[f64], y: &[f64], alt: Alternative, args: &Args) -> Result<Value, ToolError> {
    let r = r_of(x, y)?;
    let n = x.len() as f64;
    let level = args.level()?;
    // Under the null r follows Beta(n/2 - 1, n/2 - 1) on [-1, 1] (SciPy's formulation); its tails are
    // regularised incomplete beta functions, computed on each side without cancellation.
    let p = if n <= 2.0 {
        1.0
    } else {
        let ab = n / 2.0 - 1.0;
        let (cdf, sf) = crate::special::beta_reg_pair(
            ab,
            ab,
            ((1.0 + r) / 2.0).clamp(0.0, 1.0),
            ((1.0 - r) / 2.0).clamp(0.0, 1.0),
        );
        alt.p_value(cdf, sf)
    };
    let mut out = json!({"coefficient": num(r), "p_value": num(p)});
    // Fisher's z interval, as SciPy's `confidence_interval()`; for n <= 3 the standard error is
    // infinite and SciPy reports [-1, 1].
    if n <= 3.0 {
        out["confidence_interval"] = json!([-1.0, 1.0]);
        out["level"] = num(level);
    } else {
        let z = r.atanh();
        let se = 1.0 / (n - 3.0).sqrt();
        let (lo, hi) = match alt {
            Alternative::TwoSided => {
                let h = crate::distributions::norm_ppf(1.0 - (1.0 - level) / 2.0) * se;
                ((z - h).tanh(), (z + h).tanh())
            }
            Alternative::Less => (
                -1.0,
                (z + crate::distributions::norm_ppf(level) * se).tanh(),
            ),
            Alternative::Greater => ((z - crate::distributions::norm_ppf(level) * se).tanh(), 1.0),
        };
        out["confidence_interval"] = json!([num(lo), num(hi)]);
        out["level"] = num(level);
    }
    Ok(out)
}

/// Dense ranks (0, 1, 2, ...) of `v` in sorted order of `v`.
fn dense(v: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0; v.len()];
    let mut r = 0;
    for w in 0..idx.len() {
        if w > 0 && v[idx[w]] != v[idx[w - 1]] {
            r += 1;
        }
        out[idx[w]] = r;
    }
    out
}

/// Tie statistics of dense ranks: (Σ t(t-1)/2, Σ t(t-1)(t-2), Σ t(t-1)(2t+5)).
fn tie_stats(r: &[usize]) -> (f64, f64, f64) {
    let mut cnt = vec![0u64; r.iter().max().map_or(0, |m| m + 1)];
    for &v in r {
        cnt[v] += 1;
    }
    cnt.iter()
        .filter(|&&t| t > 1)
        .map(|&t| t as f64)
        .fold((0.0, 0.0, 0.0), |(a, b, c), t| {
            (
                a + t * (t - 1.0) / 2.0,
                b + t * (t - 1.0) * (t - 2.0),
                c + t * (t - 1.0) * (2.0 * t + 5.0),
            )
        })
}

/// Pairs out of order (`a[i] > a[j]` for i < j), by merge sort: O(n log n).
fn inversions(a: &mut [usize], buf: &mut [usize]) -> u64 {
    let n = a.len();
    if n < 2 {
        return 0;
    }
    let mid = n / 2;
    let mut inv = {
        let (l, r) = a.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        inversions(l, bl) + inversions(r, br)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if a[i] <= a[j] {
            buf[k] = a[i];
            i += 1;
        } else {
            buf[k] = a[j];
            inv += (mid - i) as u64;
            j += 1;
        }
        k += 1;
    }
    buf[k..k + mid - i].copy_from_slice(&a[i..mid]);
    let k2 = k + mid - i;
    buf[k2..n].copy_from_slice(&a[j..n]);
    a.copy_from_slice(&buf[..n]);
    inv
}

fn kendall(x: &[f64], y: &[f64], alt: Alternative, args: &Args) -> Result<Value, ToolError> {
    let n = x.len();
    let method = args.opt_choice("kendall_method", &["auto", "exact", "asymptotic"])?;
    let (dx, dy) = (dense(x), dense(y));
    // Order by (x, y); discordant pairs are then the inversions of the y ranks.
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&i| (dx[i], dy[i]));
    let mut ys: Vec<usize> = idx.iter().map(|&i| dy[i]).collect();
    let mut buf = vec![0; n];
    args.ctx.checkpoint()?;
    let dis = inversions(&mut ys, &mut buf) as f64;
    // Pairs tied in both x and y.
    let mut ntie = 0.0;
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n && dx[idx[e]] == dx[idx[s]] && dy[idx[e]] == dy[idx[s]] {
            e += 1;
        }
        let t = (e - s) as f64;
        ntie += t * (t - 1.0) / 2.0;
        s = e;
    }
    let (xtie, x0, x1) = tie_stats(&dx);
    let (ytie, y0, y1) = tie_stats(&dy);
    let nf = n as f64;
    let tot = nf * (nf - 1.0) / 2.0;
    if xtie == tot || ytie == tot {
        return Err(ToolError::domain(
            "an input is constant: Kendall's tau is undefined",
        ));
    }
    let con_minus_dis = tot - xtie - ytie + ntie - 2.0 * dis;
    let tau = (con_minus_dis / (tot - xtie).sqrt() / (tot - ytie).sqrt()).clamp(-1.0, 1.0);
    let untied = xtie == 0.0 && ytie == 0.0;
    let method =
        match method {
            "exact" if !untied => return Err(ToolError::invalid_params(
                "the exact Kendall test needs data without ties; use \"auto\" or \"asymptotic\"",
            )),
            "auto" if untied && (n <= 33 || dis.min(tot - dis) <= 1.0) => "exact",
            "auto" => "asymptotic",
            m => m,
        };
    let p = if method == "exact" {
        // SciPy's _kendall_p_exact with c = concordant pairs.
        let c_conc = (tot - dis) as usize;
        let half = (n * (n - 1)) / 2;
        let in_right_tail = c_conc >= half - c_conc;
        let c = c_conc.min(half - c_conc);
        let (prob, mass) = match n {
            1 => (1.0, 1.0),
            2 => (1.0, 0.5),
            _ if 4 * c == n * (n - 1) && alt == Alternative::TwoSided => (1.0, 0.0),
            _ => exact::kendall_lower(n, c, args.ctx)?,
        };
        let p = match alt {
            Alternative::TwoSided => prob,
            _ if in_right_tail == (alt == Alternative::Greater) => prob / 2.0,
            _ => 1.0 - prob / 2.0 + mass,
        };
        p.clamp(0.0, 1.0)
    } else {
        let m = nf * (nf - 1.0);
        let var = (m * (2.0 * nf + 5.0) - x1 - y1) / 18.0
            + (2.0 * xtie * ytie) / m
            + x0 * y0 / (9.0 * m * (nf - 2.0));
        let z = con_minus_dis / var.sqrt();
        alt.p_value(crate::normal::cdf(z), crate::normal::sf(z))
    };
    Ok(json!({"coefficient": num(tau), "p_value": num(p), "test_method": method}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inversions_count_strict_pairs() {
        let mut a = vec![3, 1, 2, 2, 0];
        let mut b = vec![0; 5];
        // (3,1) (3,2) (3,2) (3,0) (1,0) (2,0) (2,0) = 7
        assert_eq!(inversions(&mut a, &mut b), 7);
        assert_eq!(a, vec![0, 1, 2, 2, 3]);
    }
}
