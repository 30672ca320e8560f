//! Tools for testing front ends, registered only on request (`beaker serve --test-tools`).
//! They make "a call still in flight" deterministic without sleeps in tests.

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use serde_json::{json, Value};

/// `_block`: runs until its deadline or a cancel, polling its checkpoint every millisecond.
pub struct Block {
    spec: ToolSpec,
}

impl Default for Block {
    fn default() -> Self {
        Self::new()
    }
}

impl Block {
    /// The tool with its spec.
    pub fn new() -> Self {
        Block {
            spec: ToolSpec {
                name: "_block".into(),
                description: "Testing only: never returns on its own; ends by timeout or cancel."
                    .into(),
                params_schema: json!({"type": "object", "additionalProperties": false}),
                result_schema: json!({}),
                examples: vec![],
                notes: String::new(),
            },
        }
    }
}

impl Tool for Block {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, _params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        loop {
            ctx.checkpoint()?;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
