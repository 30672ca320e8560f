//! Beaker's `numerical` tool: linear algebra, optimisation, ODEs, interpolation, FFT and quadrature on f64,
//! at SciPy quality. Functions are expressions in Beaker's one grammar (`beaker-expr`), compiled once to the
//! fast f64 evaluator.
//!
//! Main type: [`Numerical`], a [`Tool`]. Each operation lives in a module: `linalg` (nalgebra), `optimize`
//! (Nelder–Mead after SciPy, argmin's BFGS/L-BFGS, Brent, MINPACK Levenberg–Marquardt), `ode` (RK45, DOP853,
//! Radau after SciPy's `solve_ivp`), `interp`, `fft` (rustfft/realfft) and `quad` (QUADPACK's QAGS/QAGI).
//!
//! The tool never performs IO and never panics on user input; every size is checked against
//! [`beaker_core::Limits`] before any work (`max_array_len`, `max_matrix_dim`), user functions are counted
//! against `max_evaluations`, iterative methods against `max_iterations`, and long loops poll
//! [`beaker_core::CallContext::checkpoint`]. A result never carries NaN or ±inf: such a value is a
//! `domain_error` naming where it appeared. The same call gives the same bytes.
//!
//! ```
//! use beaker_core::{CallContext, Limits, Tool};
//! let tool = beaker_numerical::Numerical::new();
//! let params = serde_json::json!({"operation": "solve_linear", "data": {"A": [[3, 1], [1, 2]], "b": [9, 8]}});
//! let r = tool.call(&params, &CallContext::new(Limits::default())).unwrap();
//! assert_eq!(r["x"], serde_json::json!([2.0, 3.0]));
//! ```
#![deny(missing_docs)]

mod dense;
mod dop853;
mod fft;
mod input;
mod interp;
mod linalg;
mod ode;
mod offload;
mod optimize;
mod quad;
mod spec;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use serde_json::{json, Value};
use std::sync::Arc;

/// Every operation, in the order the docs list them.
pub const OPERATIONS: &[&str] = &[
    "determinant",
    "inverse",
    "eigenvalues",
    "svd",
    "solve_linear",
    "rank",
    "norm",
    "qr",
    "cholesky",
    "condition_number",
    "matmul",
    "minimize",
    "root_find",
    "curve_fit",
    "ode",
    "interpolate",
    "fft",
    "ifft",
    "rfft",
    "irfft",
    "fftfreq",
    "power_spectrum",
    "integrate_numeric",
    "stats",
];

/// The `numerical` tool.
pub struct Numerical {
    spec: ToolSpec,
    /// The `statistics` tool, which answers the `stats` operation (distributions and sampling live there once).
    stats: Option<Arc<dyn Tool>>,
}

impl Default for Numerical {
    fn default() -> Self {
        Self::new()
    }
}

impl Numerical {
    /// The tool with its spec and no `stats` delegate.
    pub fn new() -> Self {
        Numerical {
            spec: spec::spec(),
            stats: None,
        }
    }

    /// The tool with `stats` answered by `statistics` (its `distribution` operation).
    pub fn with_stats(mut self, statistics: Arc<dyn Tool>) -> Self {
        self.stats = Some(statistics);
        self
    }
}

impl Tool for Numerical {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let op = params["operation"].as_str().unwrap_or_default();
        let (data, options) = (&params["data"], &params["options"]);
        let result = match op {
            "determinant" | "inverse" | "eigenvalues" | "svd" | "solve_linear" | "rank" | "norm"
            | "qr" | "cholesky" | "condition_number" | "matmul" => {
                linalg::run(op, data, options, ctx)
            }
            "minimize" => optimize::minimize(data, options, ctx),
            "root_find" => optimize::root_find(data, options, ctx),
            "curve_fit" => optimize::curve_fit(data, options, ctx),
            "ode" => ode::solve(data, options, ctx),
            "interpolate" => interp::run(data, options, ctx),
            "fft" | "ifft" | "rfft" | "irfft" | "fftfreq" | "power_spectrum" => {
                fft::run(op, data, options, ctx)
            }
            "integrate_numeric" => quad::run(data, options, ctx),
            "stats" => {
                return match &self.stats {
                    Some(s) => s.call(
                        &json!({"operation": "distribution", "data": params["data"], "options": params["options"]}),
                        ctx,
                    ),
                    None => Err(ToolError::invalid_params("`stats` is not available here")),
                }
            }
            other => Err(ToolError::invalid_params(format!(
                "unknown operation `{other}`; operations are: {}",
                OPERATIONS.join(", ")
            ))),
        }?;
        if let Some(path) = input::first_null(&result) {
            return Err(input::not_finite(format!(
                "`result{path}` (the computation overflowed or hit an undefined value)"
            )));
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests;
