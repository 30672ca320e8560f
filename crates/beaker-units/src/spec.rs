//! The `unit_converter`'s `ToolSpec`: params and result schemas, examples, and the notes in `units.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The unit converter's spec.
pub(super) fn spec() -> ToolSpec {
    let value_item = json!({"type": ["number", "string"]});
    ToolSpec {
        name: "unit_converter".into(),
        description: "Convert a value between units with dimensional analysis. Units are expressions parsed at \
            run time: SI prefixes (k, M, µ or u, ...), products and quotients (km/h, kg*m/s^2, N·m, kWh, J/(kg*K)), \
            powers (m^3, m**3, m³, m2), long names and plurals (kilometers per hour, square feet), temperatures \
            (K, degC or °C, degF or °F, R; delta_degC for differences), ratios (%, ppm) and data (Mb/s, MB, KiB). \
            Symbols are case-sensitive as in SI (mS is millisiemens, ms milliseconds). Conversions are exact \
            (rational factors) until rounded; a dimension mismatch is an error naming both dimensions."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "value": {
                    "description": "The value: a number, a decimal string (\"0.1\", \"1.5e-3\") or fraction (\"1/3\"), read exactly; or an array of them (converted element-wise).",
                    "anyOf": [value_item, {"type": "array", "items": value_item}]
                },
                "from_unit": {"type": "string", "description": "The unit of `value`, e.g. \"km/h\"."},
                "to_unit": {"type": "string", "description": "The unit to convert to, e.g. \"m/s\"."},
                "precision": {"type": "integer", "minimum": 1, "description": "Significant digits to round to (default: exact decimals in full, others to 15 significant digits)."}
            },
            "required": ["value", "from_unit", "to_unit"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "value": {"description": "The converted value as a decimal string (an array of them for an array input).", "type": ["string", "array"]},
                "unit": {"type": "string", "description": "`to_unit`, as given."},
                "from_unit": {"type": "string", "description": "`from_unit`, as given."},
                "dimension": {"type": "string", "description": "What is converted: a name (\"speed\") or the base dimensions (\"length^2 / time\")."},
                "exact": {"type": "boolean", "description": "True when `value` is exactly the converted value (no rounding, no π)."},
                "fraction": {"type": "string", "description": "The exact value as p/q when it is a rational without a finite decimal form."},
                "notes": {"type": "array", "items": {"type": "string"}, "description": "Assumptions made for ambiguous units (hp, ton, gal, cal, C, F, ...)."}
            },
            "required": ["value", "unit", "from_unit", "dimension", "exact"],
            "additionalProperties": false
        }),
        examples: vec![
            Example {
                params: json!({"value": 100, "from_unit": "km/h", "to_unit": "m/s"}),
                result: json!({"value": "27.7777777777778", "unit": "m/s", "from_unit": "km/h", "dimension": "speed", "exact": false, "fraction": "250/9"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"value": 100, "from_unit": "degC", "to_unit": "degF"}),
                result: json!({"value": "212", "unit": "degF", "from_unit": "degC", "dimension": "temperature", "exact": true}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"value": "1", "from_unit": "lb", "to_unit": "kg"}),
                result: json!({"value": "0.45359237", "unit": "kg", "from_unit": "lb", "dimension": "mass", "exact": true}), elided: Vec::new(), workspace: Default::default(), dataset: None },
        ],
        notes: include_str!("units.md").into(),
    }
}
