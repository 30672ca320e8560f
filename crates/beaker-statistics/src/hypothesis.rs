//! Hypothesis tests: each returns `statistic`, `p_value`, `significant`, `conclusion` (plus `df` where it
//! is defined and its own fields), following SciPy's definitions of the statistic, the tails and the
//! choice between exact and asymptotic p-values.

use crate::distributions::t_cdf;
use crate::exact;
use crate::input::{
    at_least, count, differences, groups, num, nums, test_result, Alternative, Args,
};
use crate::sums::{mean, rank, ss, sum, tie_term, two_sample, var, TwoSample};
use beaker_core::ToolError;
use serde_json::{json, Map, Value};
use statrs::distribution::StudentsT;
use statrs::function::gamma::ln_gamma;

fn t_dist(df: f64) -> Result<StudentsT, ToolError> {
    StudentsT::new(0.0, 1.0, df)
        .map_err(|e| ToolError::domain(format!("no t distribution with df = {df}: {e}")))
}

fn chi2_sf(x: f64, df: f64) -> Result<f64, ToolError> {
    if !(df > 0.0 && df.is_finite()) {
        return Err(ToolError::domain(format!(
            "no chi-square distribution with df = {df}"
        )));
    }
    Ok(if x <= 0.0 {
        1.0
    } else {
        crate::incgamma::gamma_pq(df / 2.0, x / 2.0).1
    })
}

fn norm_p(z: f64, alt: Alternative) -> f64 {
    alt.p_value(crate::normal::cdf(z), crate::normal::sf(z))
}

fn zero_variance(what: &str) -> ToolError {
    ToolError::domain(format!(
        "{what} has zero variance (all values equal): the statistic is undefined"
    ))
}

fn finish(m: Map<String, Value>) -> Result<Value, ToolError> {
    Ok(Value::Object(m))
}

/// `t_test`: one-sample (`data.mu`), two-sample (pooled or Welch) or paired.
pub(crate) fn t_test(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let alt = args.alternative()?;
    let x = args.sample("sample1")?;
    let paired = args.opt_bool("paired", false)?;
    let y = match args.data.get("sample2") {
        Some(v) if !v.is_null() => Some(args.sample("sample2")?),
        _ => None,
    };
    let mu = match args.data.get("mu") {
        Some(v) if !v.is_null() => {
            crate::input::sample_values(&json!([v]), "data.mu", args.ctx)?[0]
        }
        _ => args.opt_f64("mu", 0.0)?,
    };
    let (test, t, df, diff, se, extra) = match y {
        None if paired => {
            return Err(ToolError::invalid_params(
                "a paired t-test needs `data.sample2`",
            ))
        }
        Some(y) if !paired => {
            if args.data.get("mu").is_some_and(|v| !v.is_null()) || args.options.get("mu").is_some()
            {
                return Err(ToolError::invalid_params(
                    "`mu` applies to one-sample and paired t-tests; a two-sample test compares the means \
                     (set `options.paired` for paired differences)",
                ));
            }
            let equal_var = args.opt_bool("equal_var", true)?;
            // Pooled: one value in a sample is enough when the other has two (df = n1 + n2 - 2 > 0), as
            // in SciPy; Welch needs a variance from each.
            let need = if equal_var { 1 } else { 2 };
            at_least(&x, need, "data.sample1")?;
            at_least(&y, need, "data.sample2")?;
            if x.len() + y.len() < 3 {
                return Err(ToolError::invalid_params(
                    "a two-sample t-test needs at least three values in all",
                ));
            }
            let TwoSample { diff, se, df } = two_sample(&x, &y, equal_var);
            if se == 0.0 {
                return Err(zero_variance("both samples"));
            }
            let test = if equal_var {
                "two-sample t-test (pooled variance)"
            } else {
                "Welch's two-sample t-test"
            };
            let t = diff / se;
            let (m1, m2) = (mean(&x), mean(&y));
            (
                test,
                t,
                df,
                diff,
                se,
                json!({"mean1": num(m1), "mean2": num(m2), "n1": x.len(), "n2": y.len()}),
            )
        }
        y => {
            let (d, test) = match y {
                Some(y) => (differences(&x, &y, "a paired t-test")?, "paired t-test"),
                None => (x, "one-sample t-test"),
            };
            at_least(&d, 2, "data.sample1")?;
            let n = d.len() as f64;
            let m = mean(&d);
            // The mean difference from mu, computed on the shifted values so it keeps its digits.
            let shifted: Vec<f64> = d.iter().map(|v| v - mu).collect();
            let diff = mean(&shifted);
            let sd = var(&d, 1.0).sqrt();
            if sd == 0.0 {
                return Err(zero_variance("the sample"));
            }
            let se = sd / n.sqrt();
            let t = diff / se;
            (
                test,
                t,
                n - 1.0,
                diff,
                se,
                json!({"mean": num(m), "mu": num(mu), "n": d.len()}),
            )
        }
    };
    t_dist(df)?;
    let p = alt.p_value(t_cdf(df, t), t_cdf(df, -t));
    let tq = |q: f64| crate::distributions::t_ppf(df, q);
    let mut m = test_result(test, t, p, alpha, Some(alt));
    m.insert("t_statistic".into(), num(t));
    m.insert("df".into(), num(df));
    m.insert("mean_difference".into(), num(diff));
    m.insert("std_error".into(), num(se));
    // The 1 - alpha confidence interval for the mean (difference), open on one side for one-sided tests.
    let ci = match alt {
        Alternative::TwoSided => {
            let q = tq(1.0 - alpha / 2.0)?;
            [num(diff + mu - q * se), num(diff + mu + q * se)]
        }
        Alternative::Less => [Value::Null, num(diff + mu + tq(1.0 - alpha)? * se)],
        Alternative::Greater => [num(diff + mu - tq(1.0 - alpha)? * se), Value::Null],
    };
    m.insert("confidence_interval".into(), json!(ci));
    if let Value::Object(e) = extra {
        m.extend(e);
    }
    finish(m)
}

/// A 2-D table of non-negative numbers (`data.observed` / `data.table`), rectangular.
fn table(v: &Value, what: &str, args: &Args) -> Result<Vec<Vec<f64>>, ToolError> {
    let rows = v.as_array().ok_or_else(|| {
        ToolError::invalid_params(format!("`{what}` must be a table (list of rows)"))
    })?;
    let cells: usize = rows.iter().map(|r| r.as_array().map_or(0, Vec::len)).sum();
    crate::input::check_len(cells, what, args.ctx)?;
    let t = rows
        .iter()
        .enumerate()
        .map(|(i, r)| crate::input::sample_values(r, &format!("{what}[{i}]"), args.ctx))
        .collect::<Result<Vec<_>, _>>()?;
    let w = t.first().map_or(0, Vec::len);
    if t.is_empty() || w == 0 || t.iter().any(|r| r.len() != w) {
        return Err(ToolError::invalid_params(format!(
            "`{what}` must be a non-empty rectangular table (rows of equal length)"
        )));
    }
    if t.iter().flatten().any(|&c| c < 0.0) {
        return Err(ToolError::invalid_params(format!(
            "`{what}` has a negative count"
        )));
    }
    Ok(t)
}

/// `chi_square`: goodness of fit (1-D `observed`, optional `expected`) or independence (2-D table).
pub(crate) fn chi_square(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let obs = args.field("observed")?;
    let is_2d = obs
        .as_array()
        .and_then(|a| a.first())
        .is_some_and(Value::is_array);
    if is_2d {
        if args.data.get("expected").is_some() || args.options.get("ddof").is_some() {
            return Err(ToolError::invalid_params(
                "a 2-D `data.observed` is a contingency table: its expected counts come from the margins, so \
                 `data.expected` and `options.ddof` apply only to a 1-D goodness-of-fit test",
            ));
        }
        let t = table(obs, "data.observed", args)?;
        let correction = args.opt_bool("correction", true)?;
        let (r, c) = (t.len(), t[0].len());
        let rows: Vec<f64> = t.iter().map(|r| sum(r.iter().copied())).collect();
        let cols: Vec<f64> = (0..c).map(|j| sum(t.iter().map(|r| r[j]))).collect();
        let total = sum(rows.iter().copied());
        if rows.iter().chain(&cols).any(|&s| s == 0.0) {
            return Err(ToolError::domain(
                "a row or column of the table sums to zero, so an expected frequency is zero",
            ));
        }
        let expected: Vec<Vec<f64>> = rows
            .iter()
            .map(|ri| cols.iter().map(|cj| ri * cj / total).collect())
            .collect();
        let df = ((r - 1) * (c - 1)) as f64;
        let yates = correction && df == 1.0;
        let (stat, p) = if df == 0.0 {
            (0.0, 1.0)
        } else {
            let mut terms = Vec::with_capacity(r * c);
            for i in 0..r {
                for j in 0..c {
                    let (o, e) = (t[i][j], expected[i][j]);
                    // SciPy's Yates correction: move each observation 0.5 (or less) toward its expectation.
                    let o = if yates {
                        let d = e - o;
                        o + d.signum() * d.abs().min(0.5)
                    } else {
                        o
                    };
                    terms.push((o - e) * (o - e) / e);
                }
            }
            let s = sum(terms);
            (s, chi2_sf(s, df)?)
        };
        let mut m = test_result("chi-square test of independence", stat, p, alpha, None);
        m.insert("df".into(), num(df));
        m.insert(
            "expected".into(),
            Value::Array(expected.iter().map(|r| nums(r)).collect()),
        );
        m.insert("correction".into(), Value::Bool(yates));
        return finish(m);
    }
    let o = crate::input::sample_values(obs, "data.observed", args.ctx)?;
    at_least(&o, 2, "data.observed")?;
    if o.iter().any(|&x| x < 0.0) {
        return Err(ToolError::invalid_params(
            "`data.observed` has a negative count",
        ));
    }
    let total = sum(o.iter().copied());
    let e = match args.data.get("expected") {
        Some(v) if !v.is_null() => {
            let e = crate::input::sample_values(v, "data.expected", args.ctx)?;
            if e.len() != o.len() {
                return Err(ToolError::invalid_params(format!(
                    "`data.expected` has {} values but `data.observed` has {}",
                    e.len(),
                    o.len()
                )));
            }
            if e.iter().any(|&x| x <= 0.0) {
                return Err(ToolError::invalid_params(
                    "every expected frequency must be positive",
                ));
            }
            let te = sum(e.iter().copied());
            // SciPy refuses expectations that do not sum to the observed total (relative 1e-8).
            if (te - total).abs() > 1e-8 * total.max(te) {
                return Err(ToolError::invalid_params(format!(
                    "`data.expected` sums to {te} but `data.observed` sums to {total}; they must agree"
                )));
            }
            e
        }
        _ => vec![total / o.len() as f64; o.len()],
    };
    if total == 0.0 {
        return Err(ToolError::domain("every observed count is zero"));
    }
    let ddof = args.opt_f64("ddof", 0.0)?;
    let df = o.len() as f64 - 1.0 - ddof;
    if df <= 0.0 {
        return Err(ToolError::invalid_params(format!(
            "{} categories with ddof = {ddof} leave no degrees of freedom",
            o.len()
        )));
    }
    let s = sum(o.iter().zip(&e).map(|(o, e)| (o - e) * (o - e) / e));
    let mut m = test_result(
        "chi-square goodness-of-fit test",
        s,
        chi2_sf(s, df)?,
        alpha,
        None,
    );
    m.insert("df".into(), num(df));
    m.insert("expected".into(), nums(&e));
    finish(m)
}

/// `anova`: one-way analysis of variance on `data.groups`.
pub(crate) fn anova(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let g = groups(args, 2)?;
    // Shift every value by one data point first (exact for nearby values), as SciPy subtracts the
    // grand mean: NIST's SmLs07-09 (values 1e12 + 0.1k) keep their digits.
    let c = g[0][0];
    let g: Vec<Vec<f64>> = g
        .iter()
        .map(|x| x.iter().map(|v| v - c).collect())
        .collect();
    let all: Vec<f64> = g.iter().flatten().copied().collect();
    let n = all.len() as f64;
    let k = g.len() as f64;
    if n <= k {
        return Err(ToolError::invalid_params(format!(
            "anova needs more values ({n}) than groups ({k})"
        )));
    }
    let grand = mean(&all);
    let means: Vec<f64> = g.iter().map(|x| mean(x)).collect();
    let ss_within = sum(g.iter().map(|x| ss(x)));
    let ss_between = sum(g
        .iter()
        .zip(&means)
        .map(|(x, &m)| x.len() as f64 * (m - grand) * (m - grand)));
    let (dfb, dfw) = (k - 1.0, n - k);
    if ss_within == 0.0 {
        return Err(zero_variance("every group"));
    }
    let f = (ss_between / dfb) / (ss_within / dfw);
    let p = crate::distributions::f_cdf_sf(dfb, dfw, f).1;
    let mut m = test_result("one-way ANOVA", f, p, alpha, None);
    m.insert("df".into(), json!([num(dfb), num(dfw)]));
    m.insert("df_between".into(), num(dfb));
    m.insert("df_within".into(), num(dfw));
    m.insert("ss_between".into(), num(ss_between));
    m.insert("ss_within".into(), num(ss_within));
    m.insert("ms_between".into(), num(ss_between / dfb));
    m.insert("ms_within".into(), num(ss_within / dfw));
    finish(m)
}

/// `mann_whitney`: the Mann–Whitney U test; U of sample1, exact or normal with tie and continuity
/// corrections, chosen as SciPy's `method="auto"` does.
pub(crate) fn mann_whitney(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let alt = args.alternative()?;
    let x = args.sample("sample1")?;
    let y = args.sample("sample2")?;
    at_least(&x, 1, "data.sample1")?;
    at_least(&y, 1, "data.sample2")?;
    let continuity = args.opt_bool("use_continuity", true)?;
    let method = args.opt_choice("method", &["auto", "exact", "asymptotic"])?;
    let (n1, n2) = (x.len(), y.len());
    let all: Vec<f64> = x.iter().chain(&y).copied().collect();
    let (ranks, ties) = rank(&all);
    let r1 = sum(ranks[..n1].iter().copied());
    let u1 = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let u2 = (n1 * n2) as f64 - u1;
    let (u, factor) = match alt {
        Alternative::Greater => (u1, 1.0),
        Alternative::Less => (u2, 1.0),
        Alternative::TwoSided => (u1.max(u2), 2.0),
    };
    let method = match method {
        "auto" if (n1 > 8 && n2 > 8) || !ties.is_empty() => "asymptotic",
        "auto" => "exact",
        m => m,
    };
    let p = if method == "exact" {
        // P(U >= u); with ties (only when asked for) U may be a half-integer, truncated as SciPy does.
        let pmf = exact::mann_whitney_pmf(n1, n2, args.ctx)?;
        let k = u.floor() as usize;
        sum(pmf.iter().skip(k).copied())
    } else {
        let nf = (n1 + n2) as f64;
        let s =
            ((n1 * n2) as f64 / 12.0 * ((nf + 1.0) - tie_term(&ties) / (nf * (nf - 1.0)))).sqrt();
        if s == 0.0 {
            // Every value tied: z is -inf in SciPy (after the continuity correction) and p is 1.
            return finish_mw(alpha, alt, u1, u2, 1.0, method, n1, n2);
        }
        let mut numer = u - (n1 * n2) as f64 / 2.0;
        if continuity {
            numer -= 0.5;
        }
        crate::normal::sf(numer / s)
    };
    finish_mw(alpha, alt, u1, u2, (p * factor).min(1.0), method, n1, n2)
}

#[allow(
    clippy::too_many_arguments,
    reason = "the fields of one result, named at the call sites"
)]
fn finish_mw(
    alpha: f64,
    alt: Alternative,
    u1: f64,
    u2: f64,
    p: f64,
    method: &str,
    n1: usize,
    n2: usize,
) -> Result<Value, ToolError> {
    let mut m = test_result("Mann-Whitney U test", u1, p, alpha, Some(alt));
    m.insert("u_statistic".into(), num(u1));
    m.insert("u2".into(), num(u2));
    m.insert("method".into(), Value::String(method.into()));
    m.insert("n1".into(), json!(n1));
    m.insert("n2".into(), json!(n2));
    finish(m)
}

/// `wilcoxon`: the Wilcoxon signed-rank test on `sample1` (or `sample1 - sample2`), zeros dropped
/// (`zero_method = "wilcox"`); exact, exact over the tied ranks (SciPy's permutation test for n ≤ 13),
/// or normal, chosen as SciPy's `method="auto"` does.
pub(crate) fn wilcoxon(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let alt = args.alternative()?;
    let x = args.sample("sample1")?;
    let d: Vec<f64> = match args.data.get("sample2") {
        Some(v) if !v.is_null() => differences(&x, &args.sample("sample2")?, "the Wilcoxon test")?,
        _ => x,
    };
    at_least(&d, 1, "data.sample1")?;
    args.opt_choice("zero_method", &["wilcox"])?;
    let correction = args.opt_bool("correction", false)?;
    let method = args.opt_choice("method", &["auto", "exact", "asymptotic"])?;
    let n_all = d.len();
    let nz: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
    let zeros = n_all - nz.len();
    if nz.is_empty() {
        // Every difference is zero: no evidence either way; SciPy reports statistic 0 and p = 1.
        let mut m = test_result("Wilcoxon signed-rank test", 0.0, 1.0, alpha, Some(alt));
        m.insert("r_plus".into(), num(0.0));
        m.insert("r_minus".into(), num(0.0));
        m.insert("n".into(), json!(0));
        m.insert("zeros_dropped".into(), json!(n_all));
        return finish(m);
    }
    let abs: Vec<f64> = nz.iter().map(|v| v.abs()).collect();
    let (r, ties) = rank(&abs);
    let r_plus = sum(nz
        .iter()
        .zip(&r)
        .filter(|(v, _)| **v > 0.0)
        .map(|(_, r)| *r));
    let r_minus = sum(nz
        .iter()
        .zip(&r)
        .filter(|(v, _)| **v < 0.0)
        .map(|(_, r)| *r));
    let count = nz.len() as f64;
    let method = match method {
        "auto" if n_all > 50 => "asymptotic",
        "auto" if ties.is_empty() && zeros == 0 => "exact",
        "auto" if n_all <= 13 => "permutation",
        "auto" => "asymptotic",
        m => m,
    };
    let statistic = if alt == Alternative::TwoSided {
        r_plus.min(r_minus)
    } else {
        r_plus
    };
    let mut z_out = None;
    let p = match method {
        "exact" | "permutation" => {
            // "exact" is SciPy's: the untied distribution of ranks 1..n, compared with ceil(r+) and
            // floor(r+); the permutation test uses the observed (tied) ranks. Doubled ranks are
            // integers in both cases (average ranks are multiples of 1/2).
            let r2: Vec<u64> = if method == "exact" {
                (1..=nz.len() as u64).map(|i| 2 * i).collect()
            } else {
                r.iter().map(|x| (2.0 * x).round() as u64).collect()
            };
            let pmf = exact::signed_rank_pmf(&r2, args.ctx)?;
            let (lo2, hi2) = if method == "exact" {
                (2 * r_plus.ceil() as usize, 2 * r_plus.floor() as usize)
            } else {
                let t = (2.0 * r_plus).round() as usize;
                (t, t)
            };
            // P(T ≤ t) and P(T ≥ t) (SciPy's exact test compares ceil(r+) and floor(r+), the same
            // values when r+ is an integer; with ties, its permutation test counts the tied statistic).
            let cdf = sum(pmf.iter().take(lo2 + 1).copied());
            let sf = sum(pmf.iter().skip(hi2).copied());
            alt.p_value(cdf, sf)
        }
        _ => {
            let mn = count * (count + 1.0) * 0.25;
            let se = ((count * (count + 1.0) * (2.0 * count + 1.0) - tie_term(&ties) / 2.0) / 24.0)
                .sqrt();
            let mut z = (r_plus - mn) / se;
            if correction {
                let sign = match alt {
                    Alternative::Greater => 1.0,
                    Alternative::Less => -1.0,
                    Alternative::TwoSided => z.signum(),
                };
                z -= sign * 0.5 / se;
            }
            z_out = Some(if alt == Alternative::TwoSided {
                -z.abs()
            } else {
                z
            });
            norm_p(z, alt)
        }
    };
    let mut m = test_result("Wilcoxon signed-rank test", statistic, p, alpha, Some(alt));
    m.insert("r_plus".into(), num(r_plus));
    m.insert("r_minus".into(), num(r_minus));
    m.insert("n".into(), json!(nz.len()));
    m.insert("zeros_dropped".into(), json!(zeros));
    m.insert(
        "method".into(),
        Value::String(
            if method == "permutation" {
                "exact (tied ranks)"
            } else {
                method
            }
            .into(),
        ),
    );
    if let Some(z) = z_out {
        m.insert("z_statistic".into(), num(z));
    }
    finish(m)
}

/// `kruskal`: the Kruskal–Wallis H test with the tie correction.
pub(crate) fn kruskal(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let g = groups(args, 2)?;
    let all: Vec<f64> = g.iter().flatten().copied().collect();
    let n = all.len() as f64;
    let (ranks, ties) = rank(&all);
    let correction = 1.0 - tie_term(&ties) / (n * n * n - n);
    if correction <= 0.0 {
        return Err(ToolError::domain(
            "all values are identical: the Kruskal-Wallis statistic is undefined",
        ));
    }
    let mut start = 0;
    let mut terms = Vec::with_capacity(g.len());
    for x in &g {
        let r = sum(ranks[start..start + x.len()].iter().copied());
        terms.push(r * r / x.len() as f64);
        start += x.len();
    }
    let h = (12.0 / (n * (n + 1.0)) * sum(terms) - 3.0 * (n + 1.0)) / correction;
    let df = g.len() as f64 - 1.0;
    let mut m = test_result("Kruskal-Wallis H test", h, chi2_sf(h, df)?, alpha, None);
    m.insert("df".into(), num(df));
    finish(m)
}

/// `fisher_exact`: Fisher's exact test on a 2×2 table; the statistic is the sample odds ratio.
pub(crate) fn fisher_exact(args: &Args) -> Result<Value, ToolError> {
    let alpha = args.alpha()?;
    let alt = args.alternative()?;
    let v = match args.data.get("table") {
        Some(v) if !v.is_null() => v,
        _ => args.field("observed").map_err(|_| {
            ToolError::invalid_params("`data.table` (a 2×2 table of counts) is required")
        })?,
    };
    let t = table(v, "data.table", args)?;
    if t.len() != 2 || t[0].len() != 2 {
        return Err(ToolError::invalid_params("`data.table` must be 2×2"));
    }
    let c = |i: usize, j: usize| count(&json!(t[i][j]), &format!("data.table[{i}][{j}]"));
    let (a, b, cc, d) = (c(0, 0)?, c(0, 1)?, c(1, 0)?, c(1, 1)?);
    if a + b == 0 || cc + d == 0 || a + cc == 0 || b + d == 0 {
        // A zero margin leaves one possible table: SciPy reports an undefined odds ratio and p = 1.
        let mut m = test_result("Fisher's exact test", f64::NAN, 1.0, alpha, Some(alt));
        m.insert("odds_ratio".into(), Value::Null);
        return finish(m);
    }
    let odds = if b == 0 || cc == 0 {
        f64::INFINITY
    } else {
        (a as f64 * d as f64) / (b as f64 * cc as f64)
    };
    // X = table[0][0] ~ hypergeom(M = total, n = row 0, N = column 0).
    let (n1, n2, ncol) = (a + b, cc + d, a + cc);
    let total = n1 + n2;
    crate::input::check_len(
        usize::try_from(ncol.min(n1) + 1).unwrap_or(usize::MAX),
        "the support of the table's hypergeometric distribution",
        args.ctx,
    )?;
    let lo = ncol.saturating_sub(n2);
    let hi = ncol.min(n1);
    let ln_choose = |n: u64, k: u64| {
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
    };
    let ln_pmf = |k: u64| ln_choose(n1, k) + ln_choose(n2, ncol - k) - ln_choose(total, ncol);
    let pmf: Vec<f64> = (lo..=hi).map(|k| ln_pmf(k).exp()).collect();
    let at = (a - lo) as usize;
    let p = match alt {
        Alternative::Less => sum(pmf[..=at].iter().copied()),
        Alternative::Greater => sum(pmf[at..].iter().copied()),
        Alternative::TwoSided => {
            // Tables at most as likely as the observed one (with SciPy's relative tolerance 1e-7).
            let cut = pmf[at] * (1.0 + 1e-7);
            sum(pmf.iter().copied().filter(|&q| q <= cut))
        }
    };
    let mut m = test_result("Fisher's exact test", odds, p.min(1.0), alpha, Some(alt));
    m.insert("odds_ratio".into(), num(odds));
    finish(m)
}
