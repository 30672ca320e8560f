//! Beaker's `statistics` tool: descriptive statistics, distributions, hypothesis tests, regression,
//! correlation and confidence intervals, checked against scipy.stats and statsmodels.
//!
//! statrs provides the distributions; the tests, regressions and intervals are written here from their
//! textbook definitions, following SciPy's conventions (which tail, which tie correction, when a test is
//! exact) so a result can be compared with SciPy's to 1e-9. See `statistics.md` for the contract.
//!
//! The tool never performs IO and never panics on user input: every array is checked against
//! `max_array_len` before it is read, exact null distributions are sized before they are built, and long
//! loops poll [`beaker_core::CallContext::checkpoint`].
//!
//! ```
//! use beaker_core::{CallContext, Limits, Tool};
//! let stats = beaker_statistics::Statistics::new();
//! let params = serde_json::json!({"operation": "descriptive", "data": [1, 2, 3, 4]});
//! let out = stats.call(&params, &CallContext::new(Limits::default())).unwrap();
//! assert_eq!(out["median"], 2.5);
//! ```
#![deny(missing_docs)]

mod correlation;
mod descriptive;
pub mod distributions;
mod exact;
mod hypothesis;
mod incgamma;
mod input;
mod intervals;
mod keys;
mod ks;
mod normal;
mod regression;
mod shapiro;
mod special;
mod sums;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use input::Args;
use serde_json::{json, Value};

/// Every operation, in the order the docs list them.
pub const OPERATIONS: &[&str] = &[
    "descriptive",
    "distribution",
    "t_test",
    "chi_square",
    "anova",
    "mann_whitney",
    "wilcoxon",
    "kruskal",
    "ks_test",
    "shapiro",
    "fisher_exact",
    "regression",
    "correlation",
    "confidence_interval",
];

/// The `statistics` tool.
pub struct Statistics {
    spec: ToolSpec,
}

impl Default for Statistics {
    fn default() -> Self {
        Self::new()
    }
}

impl Statistics {
    /// The tool with its spec.
    pub fn new() -> Self {
        Statistics { spec: spec::spec() }
    }
}

impl Tool for Statistics {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let op = params["operation"].as_str().unwrap_or_default();
        let empty = json!({});
        let options = match params.get("options") {
            None | Some(Value::Null) => &empty,
            Some(o) if o.is_object() => o,
            Some(_) => return Err(ToolError::invalid_params("`options` must be an object")),
        };
        let args = Args {
            data: &params["data"],
            options,
            ctx,
        };
        if op == "descriptive" && !args.data.is_array() {
            return Err(ToolError::invalid_params(
                "`data` must be the sample itself (an array of numbers) for `descriptive`",
            ));
        }
        keys::check(op, args.data, options)?;
        let needs_object = !matches!(op, "descriptive" | "shapiro" | "confidence_interval");
        if needs_object && !args.data.is_object() {
            return Err(ToolError::invalid_params(format!(
                "`data` must be an object for `{op}`"
            )));
        }
        match op {
            "descriptive" => descriptive::descriptive(&args),
            "distribution" => distributions::distribution(&args),
            "t_test" => hypothesis::t_test(&args),
            "chi_square" => hypothesis::chi_square(&args),
            "anova" => hypothesis::anova(&args),
            "mann_whitney" => hypothesis::mann_whitney(&args),
            "wilcoxon" => hypothesis::wilcoxon(&args),
            "kruskal" => hypothesis::kruskal(&args),
            "fisher_exact" => hypothesis::fisher_exact(&args),
            "ks_test" => ks::ks_test(&args),
            "shapiro" => shapiro::shapiro(&args),
            "regression" => regression::regression(&args),
            "correlation" => correlation::correlation(&args),
            "confidence_interval" => intervals::confidence_interval(&args),
            other => Err(ToolError::invalid_params(format!(
                "unknown operation `{other}`; known: {}",
                OPERATIONS.join(", ")
            ))),
        }
    }
}

mod spec;

#[cfg(test)]
mod proptests;
