//! `calculator`: exact arithmetic on the shared expression language.

mod spec;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use beaker_expr::{eval_decimal, parse, ParseLimits};
use serde_json::{json, Value};

/// `precision` when a call gives none (the Svend spec's default): 10 decimal places and at least 10 significant digits.
pub const DEFAULT_PRECISION: u64 = 10;

/// The `calculator` tool.
pub struct Calculator {
    spec: ToolSpec,
}

impl Default for Calculator {
    fn default() -> Self {
        Self::new()
    }
}

impl Calculator {
    /// The tool with its spec.
    pub fn new() -> Self {
        Calculator { spec: spec::spec() }
    }
}

impl Tool for Calculator {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let expression = params
            .get("expression")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::invalid_params("`expression` must be a string"))?;
        let precision = match params.get("precision") {
            None | Some(Value::Null) => DEFAULT_PRECISION,
            Some(v) => integer_param(v).ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "`precision` must be a non-negative integer, got {v}"
                ))
            })?,
        };
        if precision > ctx.limits.max_precision {
            return Err(ToolError::limit(format!(
                "precision {precision} is above the limit of {} digits",
                ctx.limits.max_precision
            )));
        }
        let limits = ParseLimits {
            max_len: ctx.limits.max_expression_len,
            max_depth: ctx.limits.max_depth,
        };
        let expr = parse(expression, limits)?;
        expr.require_closed()?;
        let places =
            u32::try_from(precision).map_err(|_| ToolError::limit("precision is too large"))?;
        let d = eval_decimal(&expr, places, ctx.limits.max_digits, Some(ctx))?;
        let mut out = json!({"value": d.value, "exact": d.exact});
        if let Some(f) = d.fraction {
            out["fraction"] = Value::String(f);
        }
        Ok(out)
    }
}

/// A JSON number that is a non-negative integer (`15` or `15.0`).
fn integer_param(v: &Value) -> Option<u64> {
    // An integral float beyond u64 (1e300) is still an integer: saturate so the limit check refuses it.
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| *f >= 0.0 && f.fract() == 0.0)
            .map(|f| if f < 1.8e19 { f as u64 } else { u64::MAX })
    })
}

#[cfg(test)]
mod tests;
