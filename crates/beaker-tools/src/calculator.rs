//! `calculator`: exact arithmetic on the shared expression language.

use beaker_core::{CallContext, Example, Tool, ToolError, ToolSpec};
use beaker_expr::{eval_decimal, parse, ParseLimits};
use serde_json::{json, Value};

/// Decimal places when a call gives no `precision` (the Svend spec's default).
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
        let spec = ToolSpec {
            name: "calculator".into(),
            description: "Exact arithmetic. Rational arithmetic is exact (0.1 + 0.2 = 0.3, 1/3 + 1/6 = 1/2, 2**100 in \
                full); irrational functions and constants are correctly rounded to `precision` decimal places. \
                Operators + - * / // % ** (or ^), unary minus, postfix !, parentheses; constants pi e tau; functions \
                sqrt cbrt abs factorial gcd lcm exp ln log log10 log2 sin cos tan asin acos atan atan2 sinh cosh tanh \
                floor ceil round min max comb perm. // and % follow Python's floor semantics; angles are in radians."
                .into(),
            params_schema: json!({
                "type": "object",
                "properties": {
                    "expression": {"type": "string", "description": "The expression, e.g. \"sqrt(2) * 3\"."},
                    "precision": {"type": "integer", "minimum": 0, "description": "Decimal places for non-integer results (default 10)."}
                },
                "required": ["expression"],
                "additionalProperties": false
            }),
            result_schema: json!({
                "type": "object",
                "properties": {
                    "value": {"type": "string", "description": "The result as a decimal string: integers in full, other values rounded half-to-even to `precision` places, trailing zeros removed."},
                    "exact": {"type": "boolean", "description": "True when the result is an exact rational (no irrational function or constant was involved)."},
                    "fraction": {"type": "string", "description": "The exact value as p/q, for exact non-integer results."}
                },
                "required": ["value", "exact"],
                "additionalProperties": false
            }),
            examples: vec![
                Example { params: json!({"expression": "7 * 8"}), result: json!({"value": "56", "exact": true}), elided: Vec::new() },
                Example {
                    params: json!({"expression": "sqrt(2)", "precision": 15}),
                    result: json!({"value": "1.414213562373095", "exact": false}), elided: Vec::new() },
                Example {
                    params: json!({"expression": "1/3 + 1/6"}),
                    result: json!({"value": "0.5", "exact": true, "fraction": "1/2"}), elided: Vec::new() },
            ],
            notes: include_str!("calculator.md").into(),
        };
        Calculator { spec }
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
                "precision {precision} is above the limit of {} decimal places",
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
mod tests {
    use super::*;
    use beaker_core::{CancelReason, ErrorKind, Limits};

    fn run(params: Value) -> Result<Value, ToolError> {
        Calculator::new().call(&params, &CallContext::new(Limits::default()))
    }

    #[test]
    fn examples_in_the_spec_hold() {
        let calc = Calculator::new();
        for ex in &calc.spec().examples {
            assert_eq!(run(ex.params.clone()).unwrap(), ex.result, "{}", ex.params);
        }
    }

    #[test]
    fn precision_is_capped_by_limits() {
        let err = run(json!({"expression": "pi", "precision": 5000})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::LimitExceeded);
        assert_eq!(
            run(json!({"expression": "1/4", "precision": 1.0})).unwrap()["value"],
            "0.2"
        );
    }

    #[test]
    fn cancellation_is_observed() {
        let ctx = CallContext::new(Limits::default());
        ctx.cancel.cancel(CancelReason::Timeout);
        let err = Calculator::new()
            .call(&json!({"expression": "1+1"}), &ctx)
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::Timeout);
    }

    #[test]
    fn variables_are_not_allowed() {
        let err = run(json!({"expression": "x + 1"})).unwrap_err();
        assert_eq!(err.kind, ErrorKind::ParseError);
        assert!(err.message.contains("unknown name `x`"), "{}", err.message);
    }
}
