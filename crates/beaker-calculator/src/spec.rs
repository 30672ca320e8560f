//! The calculator's `ToolSpec`: params and result schemas, examples, and the notes in `calculator.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The calculator's spec.
pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "calculator".into(),
        description: "Exact arithmetic. Rational arithmetic is exact (0.1 + 0.2 = 0.3, 1/3 + 1/6 = 1/2, 2**100 in \
            full); irrational functions and constants are correctly rounded. Results keep `precision` decimal places and at \
            least `precision` significant digits (6.626e-34*3e8/500e-9 = 3.9756e-19, never 0), in scientific notation \
            below 1e-6 and from 1e21 up. sin, cos and tan of rational multiples of pi are reduced exactly (sin(pi) = \
            0, tan(pi/2) is a pole and an error). \
            Operators + - * / // % ** (or ^), unary minus, postfix !, parentheses; constants pi e tau; functions \
            sqrt cbrt abs factorial gcd lcm exp ln log log10 log2 sin cos tan asin acos atan atan2 sinh cosh tanh \
            floor ceil round min max comb perm. // and % follow Python's floor semantics; angles are in radians."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "expression": {"type": "string", "description": "The expression, e.g. \"sqrt(2) * 3\"."},
                "precision": {"type": "integer", "minimum": 0, "description": "Digits for non-integer results (default 10): that many decimal places, and at least that many significant digits for values below 1; 0 rounds to an integer."}
            },
            "required": ["expression"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "value": {"type": "string", "description": "The result as a decimal string: exact integers in full; other values rounded half-to-even to `precision` decimal places and at least `precision` significant digits, trailing zeros removed; scientific notation (3.9756e-19, 2.688117142e+43) below 1e-6 and from 1e21 up."},
                "exact": {"type": "boolean", "description": "True when the result is an exact rational: every step was rational, or a trigonometric function of a rational multiple of pi had a rational value (sin(pi/6) = 1/2)."},
                "fraction": {"type": "string", "description": "The exact value as p/q, for exact non-integer results."}
            },
            "required": ["value", "exact"],
            "additionalProperties": false
        }),
        examples: vec![
            Example { params: json!({"expression": "7 * 8"}), result: json!({"value": "56", "exact": true}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"expression": "sqrt(2)", "precision": 15}),
                result: json!({"value": "1.414213562373095", "exact": false}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"expression": "1/3 + 1/6"}),
                result: json!({"value": "0.5", "exact": true, "fraction": "1/2"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
        ],
        notes: include_str!("calculator.md").into(),
    }
}
