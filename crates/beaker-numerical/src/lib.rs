//! Beaker's `numerical` tool: linear algebra, optimisation, ODEs, interpolation, FFT and quadrature on f64,
//! at SciPy quality. Functions are expressions in Beaker's one grammar (`beaker-expr`), compiled once to the
//! fast f64 evaluator.
//!
//! The tool never performs IO and never panics on user input; every size is checked against
//! [`beaker_core::Limits`] before any work, and long loops poll [`beaker_core::CallContext::checkpoint`].
#![deny(missing_docs)]

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use serde_json::{json, Value};
use std::sync::Arc;

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
        let spec = ToolSpec {
            name: "numerical".into(),
            description: "Numerical computation (SciPy-style).".into(),
            params_schema: json!({
                "type": "object",
                "properties": {
                    "operation": {"type": "string"},
                    "data": {"type": "object"},
                    "options": {"type": "object"}
                },
                "required": ["operation"],
                "additionalProperties": false
            }),
            result_schema: json!({"type": "object"}),
            examples: vec![],
            notes: String::new(),
        };
        Numerical { spec, stats: None }
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
        match op {
            "stats" => match &self.stats {
                Some(s) => s.call(
                    &json!({"operation": "distribution", "data": params["data"], "options": params["options"]}),
                    ctx,
                ),
                None => Err(ToolError::invalid_params("`stats` is not available here")),
            },
            other => Err(ToolError::invalid_params(format!("unknown operation `{other}`"))),
        }
    }
}
