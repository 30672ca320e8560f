//! The tool's spec: JSON Schemas, description, examples and notes.

use beaker_core::{Example, ToolSpec};
use serde_json::json;

pub(crate) fn spec() -> ToolSpec {
    ToolSpec {
        name: "statistics".into(),
        description: "Statistics as in scipy.stats.".into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": crate::OPERATIONS},
                "data": {"type": ["array", "object"]},
                "options": {"type": "object"}
            },
            "required": ["operation", "data"],
            "additionalProperties": false
        }),
        result_schema: json!({"type": "object"}),
        examples: Vec::<Example>::new(),
        notes: String::new(),
    }
}
