//! `confidence_interval`: for a mean (t), a proportion (Wilson or Clopper–Pearson) and a difference of
//! means (Welch or pooled).

use crate::input::{at_least, count, num, Args};
use crate::sums::{mean, ss, two_sample, TwoSample};
use beaker_core::ToolError;
use serde_json::{json, Value};

fn t_quantile(p: f64, df: f64) -> Result<f64, ToolError> {
    crate::distributions::t_ppf(df, p)
}

pub(crate) fn confidence_interval(args: &Args) -> Result<Value, ToolError> {
    let level = args.level()?;
    // Without `options.type` the data says which interval is meant.
    let kind = match args.options.get("type") {
        Some(v) if !v.is_null() => {
            args.opt_choice("type", &["mean", "proportion", "difference"])?
        }
        _ if args.data.get("successes").is_some() => "proportion",
        _ if args.data.get("sample2").is_some() => "difference",
        _ => "mean",
    };
    let tail = 1.0 - (1.0 - level) / 2.0;
    let (lo, hi, est, method) = match kind {
        "mean" => {
            let x = args.sample("sample1")?;
            at_least(&x, 2, "data")?;
            let n = x.len() as f64;
            let m = mean(&x);
            let se = (ss(&x) / (n - 1.0)).sqrt() / n.sqrt();
            let h = t_quantile(tail, n - 1.0)? * se;
            (m - h, m + h, m, "t")
        }
        "proportion" => {
            let k = count(args.field("successes")?, "data.successes")? as f64;
            let n = count(args.field("n")?, "data.n")? as f64;
            if n == 0.0 || k > n {
                return Err(ToolError::invalid_params(format!(
                    "need 0 <= successes <= n and n >= 1, got successes = {k}, n = {n}"
                )));
            }
            let p = k / n;
            match args.opt_choice("method", &["wilson", "clopper_pearson"])? {
                "wilson" => {
                    let z = crate::distributions::norm_ppf(tail);
                    let z2 = z * z;
                    let denom = 1.0 + z2 / n;
                    let center = (p + z2 / (2.0 * n)) / denom;
                    let h = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
                    (center - h, center + h, p, "wilson")
                }
                _ => {
                    let a = 1.0 - level;
                    let lo = if k == 0.0 {
                        0.0
                    } else {
                        crate::distributions::beta_ppf(k, n - k + 1.0, a / 2.0)?
                    };
                    let hi = if k == n {
                        1.0
                    } else {
                        crate::distributions::beta_ppf(k + 1.0, n - k, 1.0 - a / 2.0)?
                    };
                    (lo, hi, p, "clopper_pearson")
                }
            }
        }
        _ => {
            let x = args.sample("sample1")?;
            let y = args.sample("sample2")?;
            at_least(&x, 2, "data.sample1")?;
            at_least(&y, 2, "data.sample2")?;
            let equal_var = args.opt_bool("equal_var", false)?;
            let TwoSample { diff, se, df } = two_sample(&x, &y, equal_var);
            if !equal_var && se == 0.0 {
                return Err(ToolError::domain(
                    "both samples are constant: the Welch interval is undefined",
                ));
            }
            let h = t_quantile(tail, df)? * se;
            (
                diff - h,
                diff + h,
                diff,
                if equal_var { "pooled t" } else { "welch" },
            )
        }
    };
    Ok(json!({
        "lower": num(lo), "upper": num(hi), "level": num(level), "estimate": num(est),
        "method": method, "type": kind,
    }))
}
