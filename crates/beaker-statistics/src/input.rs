//! Reading params: samples of finite numbers within the limits, options with their defaults, and the
//! pieces every hypothesis test shares (alternative, alpha, the result's common keys).

use beaker_core::{CallContext, ToolError};
use serde_json::{Map, Value};

/// What one call reads from: `data`, `options` and the call's context.
pub(crate) struct Args<'a> {
    pub data: &'a Value,
    pub options: &'a Value,
    pub ctx: &'a CallContext,
}

impl<'a> Args<'a> {
    /// `data[key]`, or `invalid_params` naming it when absent.
    pub fn field(&self, key: &str) -> Result<&'a Value, ToolError> {
        match self.data.get(key) {
            Some(v) if !v.is_null() => Ok(v),
            _ => Err(ToolError::invalid_params(format!(
                "`data.{key}` is required"
            ))),
        }
    }

    /// A sample at `data[key]`, or `data` itself when it is an array and `key` is the main sample.
    pub fn sample(&self, key: &str) -> Result<Vec<f64>, ToolError> {
        if let (Some(_), true) = (self.data.as_array(), key == "sample1") {
            return sample_values(self.data, "data", self.ctx);
        }
        sample_values(self.field(key)?, &format!("data.{key}"), self.ctx)
    }

    /// `options[key]` as a number, `default` when absent.
    pub fn opt_f64(&self, key: &str, default: f64) -> Result<f64, ToolError> {
        match self.options.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => finite(v, &format!("options.{key}")),
        }
    }

    /// `options[key]` as a boolean, `default` when absent.
    pub fn opt_bool(&self, key: &str, default: bool) -> Result<bool, ToolError> {
        match self.options.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(ToolError::invalid_params(format!(
                "`options.{key}` must be true or false, not {v}"
            ))),
        }
    }

    /// `options[key]` as one of `allowed` (the first is the default).
    pub fn opt_choice(
        &self,
        key: &str,
        allowed: &[&'static str],
    ) -> Result<&'static str, ToolError> {
        match self.options.get(key) {
            None | Some(Value::Null) => Ok(allowed[0]),
            Some(Value::String(s)) => allowed
                .iter()
                .find(|a| a.eq_ignore_ascii_case(s) || a.replace('-', "_").eq_ignore_ascii_case(s))
                .copied()
                .ok_or_else(|| {
                    ToolError::invalid_params(format!(
                        "`options.{key}` must be one of {}, not \"{s}\"",
                        quoted(allowed)
                    ))
                }),
            Some(v) => Err(ToolError::invalid_params(format!(
                "`options.{key}` must be one of {}, not {v}",
                quoted(allowed)
            ))),
        }
    }

    /// `options[key]` as a probability strictly inside (0, 1), `default` when absent.
    fn opt_open_unit(&self, key: &str, default: f64) -> Result<f64, ToolError> {
        let v = self.opt_f64(key, default)?;
        if v <= 0.0 || v >= 1.0 {
            return Err(ToolError::invalid_params(format!(
                "`options.{key}` must be in (0, 1), not {v}"
            )));
        }
        Ok(v)
    }

    /// `options.alpha`, in (0, 1), default 0.05.
    pub fn alpha(&self) -> Result<f64, ToolError> {
        self.opt_open_unit("alpha", 0.05)
    }

    /// `options.level` (confidence level), in (0, 1), default 0.95.
    pub fn level(&self) -> Result<f64, ToolError> {
        self.opt_open_unit("level", 0.95)
    }

    /// `options.alternative`.
    pub fn alternative(&self) -> Result<Alternative, ToolError> {
        Ok(
            match self.opt_choice("alternative", &["two-sided", "less", "greater"])? {
                "less" => Alternative::Less,
                "greater" => Alternative::Greater,
                _ => Alternative::TwoSided,
            },
        )
    }
}

fn quoted(allowed: &[&str]) -> String {
    allowed
        .iter()
        .map(|a| format!("\"{a}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A finite number, or `invalid_params` naming `what`.
pub(crate) fn finite(v: &Value, what: &str) -> Result<f64, ToolError> {
    finite_at(v, || what.to_string())
}

/// [`finite`] for elements of large arrays: the name is built only on error (a million `format!`s would
/// cost more than the statistics).
pub(crate) fn finite_at(v: &Value, what: impl FnOnce() -> String) -> Result<f64, ToolError> {
    let x = v.as_f64();
    if let Some(x) = x.filter(|x| x.is_finite()) {
        return Ok(x);
    }
    let what = what();
    Err(ToolError::invalid_params(match x {
        Some(_) => format!("`{what}` is not a finite number (it overflows a double)"),
        None if v.is_number() => {
            format!("`{what}` = {v} is not a finite number (it overflows a double)")
        }
        None => format!("`{what}` must be a number, not {}", short(v)),
    }))
}

/// A non-negative integer-valued number (counts, sizes), or `invalid_params`.
pub(crate) fn count(v: &Value, what: &str) -> Result<u64, ToolError> {
    let x = finite(v, what)?;
    if x < 0.0 || x.fract() != 0.0 || x > 9.0e15 {
        return Err(ToolError::invalid_params(format!(
            "`{what}` must be a non-negative integer, not {x}"
        )));
    }
    Ok(x as u64)
}

/// A JSON value shortened for an error message.
pub(crate) fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 40 {
        let cut = (0..=40).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
        format!("{}…", &s[..cut])
    } else {
        s
    }
}

/// An array of finite numbers, at most `max_array_len` long (checked before reading it).
pub(crate) fn numbers(v: &Value, what: &str, ctx: &CallContext) -> Result<Vec<f64>, ToolError> {
    let arr = v.as_array().ok_or_else(|| {
        ToolError::invalid_params(format!(
            "`{what}` must be an array of numbers, not {}",
            short(v)
        ))
    })?;
    check_len(arr.len(), what, ctx)?;
    arr.iter()
        .enumerate()
        .map(|(i, x)| finite_at(x, || format!("{what}[{i}]")))
        .collect()
}

/// Largest magnitude of a data value: beyond it sums of squares (and cubes, for skew) overflow a double.
pub(crate) const MAX_MAGNITUDE: f64 = 1e100;

/// Data values (a sample, a table, regression data): finite numbers of magnitude at most
/// [`MAX_MAGNITUDE`], so every sum of powers the statistics take stays finite.
pub(crate) fn sample_values(
    v: &Value,
    what: &str,
    ctx: &CallContext,
) -> Result<Vec<f64>, ToolError> {
    let xs = numbers(v, what, ctx)?;
    if let Some(i) = xs.iter().position(|x| x.abs() > MAX_MAGNITUDE) {
        return Err(ToolError::limit(format!(
            "`{what}[{i}]` = {:e} is beyond ±1e100, where sums of squares and cubes overflow a double; \
             rescale the data",
            xs[i]
        )));
    }
    Ok(xs)
}

/// `limit_exceeded` when `n` elements are more than `max_array_len`.
pub(crate) fn check_len(n: usize, what: &str, ctx: &CallContext) -> Result<(), ToolError> {
    if n as u64 > ctx.limits.max_array_len {
        return Err(ToolError::limit(format!(
            "`{what}` has {n} elements; the limit is {} (max_array_len)",
            ctx.limits.max_array_len
        )));
    }
    Ok(())
}

/// A list of samples (`data.groups`), at least `min` of them, each non-empty; the total is bounded too.
pub(crate) fn groups(args: &Args, min: usize) -> Result<Vec<Vec<f64>>, ToolError> {
    let v = args.field("groups")?;
    let arr = v.as_array().ok_or_else(|| {
        ToolError::invalid_params("`data.groups` must be a list of samples (lists of numbers)")
    })?;
    if arr.len() < min {
        return Err(ToolError::invalid_params(format!(
            "`data.groups` needs at least {min} groups, got {}",
            arr.len()
        )));
    }
    let total: usize = arr.iter().map(|g| g.as_array().map_or(0, Vec::len)).sum();
    check_len(total, "data.groups (all groups together)", args.ctx)?;
    let out = arr
        .iter()
        .enumerate()
        .map(|(i, g)| sample_values(g, &format!("data.groups[{i}]"), args.ctx))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(i) = out.iter().position(Vec::is_empty) {
        return Err(ToolError::invalid_params(format!(
            "`data.groups[{i}]` is empty"
        )));
    }
    Ok(out)
}

/// Paired differences `x - y`, or `invalid_params` naming `test` when the samples differ in length.
pub(crate) fn differences(x: &[f64], y: &[f64], test: &str) -> Result<Vec<f64>, ToolError> {
    if x.len() != y.len() {
        return Err(ToolError::invalid_params(format!(
            "{test} needs samples of equal length, got {} and {}",
            x.len(),
            y.len()
        )));
    }
    Ok(x.iter().zip(y).map(|(a, b)| a - b).collect())
}

/// A sample with at least `min` values.
pub(crate) fn at_least(x: &[f64], min: usize, what: &str) -> Result<(), ToolError> {
    if x.len() < min {
        return Err(ToolError::invalid_params(format!(
            "`{what}` needs at least {min} values, got {}",
            x.len()
        )));
    }
    Ok(())
}

/// Which way a test looks, as SciPy's `alternative`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alternative {
    TwoSided,
    Less,
    Greater,
}

impl Alternative {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Alternative::TwoSided => "two-sided",
            Alternative::Less => "less",
            Alternative::Greater => "greater",
        }
    }

    /// The p-value of a statistic whose null distribution has the given `cdf(s)` and `sf(s)`; two-sided is
    /// twice the smaller tail, capped at 1 (a symmetric null distribution).
    pub fn p_value(self, cdf: f64, sf: f64) -> f64 {
        match self {
            Alternative::Less => cdf,
            Alternative::Greater => sf,
            Alternative::TwoSided => (2.0 * cdf.min(sf)).min(1.0),
        }
    }
}

/// A JSON number; JSON has no infinities or NaN, so an infinite value is the string `"inf"` or `"-inf"`
/// (as the parameter conventions in docs/TOOLS.md let callers write bounds) and an undefined one is `null` (the docs say which keys).
pub(crate) fn num(x: f64) -> Value {
    match serde_json::Number::from_f64(x) {
        Some(n) => Value::Number(n),
        None if x == f64::INFINITY => Value::String("inf".into()),
        None if x == f64::NEG_INFINITY => Value::String("-inf".into()),
        None => Value::Null,
    }
}

/// A JSON array of numbers (see [`num`]).
pub(crate) fn nums(xs: &[f64]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

/// The keys every hypothesis test returns: `statistic`, `p_value`, `significant`, `conclusion`,
/// `alternative`, `alpha` and `test`; callers add `df` and their own fields.
pub(crate) fn test_result(
    test: &str,
    statistic: f64,
    p_value: f64,
    alpha: f64,
    alternative: Option<Alternative>,
) -> Map<String, Value> {
    let p = p_value.clamp(0.0, 1.0);
    let significant = p < alpha;
    let conclusion = if significant {
        format!(
            "Reject the null hypothesis at alpha = {alpha} (p = {})",
            fmt_p(p)
        )
    } else {
        format!(
            "Fail to reject the null hypothesis at alpha = {alpha} (p = {})",
            fmt_p(p)
        )
    };
    let mut m = Map::new();
    m.insert("test".into(), Value::String(test.into()));
    m.insert("statistic".into(), num(statistic));
    m.insert("p_value".into(), num(p));
    m.insert("significant".into(), Value::Bool(significant));
    m.insert("conclusion".into(), Value::String(conclusion));
    if let Some(a) = alternative {
        m.insert("alternative".into(), Value::String(a.as_str().into()));
    }
    m.insert("alpha".into(), num(alpha));
    m
}

/// A p-value in four significant digits for the conclusion sentence.
fn fmt_p(p: f64) -> String {
    if p == 0.0 {
        "0".into()
    } else if p >= 1e-4 {
        let s = format!("{p:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{p:.3e}")
    }
}
