//! Which keys of `data` and `options` each operation reads. A key no operation reads is refused with
//! `invalid_params`, because a misspelt option (`alternatve`) or a parameter under another name (`mu`
//! and `sigma` for a normal) would otherwise be ignored and the answer silently be for other inputs.

use crate::distributions::{canonical_name, param_keys};
use beaker_core::ToolError;
use serde_json::Value;

/// Keys every hypothesis test takes in `options`.
const TEST: &[&str] = &["alpha", "alternative"];

/// `(data keys, option keys)` of an operation; `None` data keys when `data` is the sample itself.
fn allowed(op: &str) -> (&'static [&'static str], Vec<&'static str>) {
    let with = |extra: &[&'static str]| TEST.iter().chain(extra).copied().collect::<Vec<_>>();
    match op {
        "descriptive" => (&["sample1"], vec!["ddof", "bias", "percentiles"]),
        "distribution" => (&["distribution", "function", "x"], vec!["n", "seed"]),
        "t_test" => (
            &["sample1", "sample2", "mu"],
            with(&["equal_var", "paired", "mu"]),
        ),
        "chi_square" => (
            &["observed", "expected"],
            vec!["alpha", "correction", "ddof"],
        ),
        "anova" | "kruskal" => (&["groups"], vec!["alpha"]),
        "mann_whitney" => (&["sample1", "sample2"], with(&["method", "use_continuity"])),
        "wilcoxon" => (
            &["sample1", "sample2"],
            with(&["method", "correction", "zero_method"]),
        ),
        "ks_test" => (&["sample1", "sample2", "distribution"], with(&["method"])),
        "shapiro" => (&["sample1"], vec!["alpha"]),
        "fisher_exact" => (&["table", "observed"], with(&[])),
        "regression" => (&["x", "y"], vec!["type", "degree"]),
        "correlation" => (&["x", "y"], with(&["method", "level", "kendall_method"])),
        "confidence_interval" => (
            &["sample1", "sample2", "successes", "n"],
            vec!["type", "level", "method", "equal_var"],
        ),
        _ => (&[], vec![]),
    }
}

/// `invalid_params` naming the first key `op` does not read, with what it does read.
pub(crate) fn check(op: &str, data: &Value, options: &Value) -> Result<(), ToolError> {
    let (data_keys, option_keys) = allowed(op);
    if let Some(obj) = options.as_object() {
        if let Some(k) = obj.keys().find(|k| !option_keys.contains(&k.as_str())) {
            return Err(ToolError::invalid_params(format!(
                "`{op}` has no option `{k}`; its options are: {}",
                list(&option_keys)
            )));
        }
    }
    let Some(obj) = data.as_object() else {
        return Ok(());
    };
    // Distribution parameters are data keys of `distribution` and of a one-sample `ks_test`.
    let mut keys: Vec<&str> = data_keys.to_vec();
    let mut hint = "";
    if matches!(op, "distribution" | "ks_test") {
        if let Some(Value::String(name)) = obj.get("distribution") {
            let canonical = canonical_name(name)?;
            let (params, h) = param_keys(canonical);
            keys.extend_from_slice(params);
            hint = h;
        }
    }
    if let Some(k) = obj.keys().find(|k| !keys.contains(&k.as_str())) {
        let extra = if hint.is_empty() {
            String::new()
        } else {
            format!(" ({hint})")
        };
        return Err(ToolError::invalid_params(format!(
            "`{op}` does not read `data.{k}`; its data keys are: {}{extra}",
            list(&keys)
        )));
    }
    Ok(())
}

fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
