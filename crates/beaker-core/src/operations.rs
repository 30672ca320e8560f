//! What tools with an `operation` param (`chemistry`, `physics`) share: a table of each operation's keys,
//! checked before the operation runs, and the shape of their examples.

use crate::{Example, ToolError};
use serde_json::Value;

/// Each operation's name and the keys it reads (besides `operation`).
pub type Keys = &'static [(&'static str, &'static [&'static str])];

/// The call's operation, once every key it carries is one that operation reads: a key of another operation
/// is refused, never ignored.
pub fn select(params: &Value, table: Keys) -> Result<&str, ToolError> {
    let op = params["operation"].as_str().unwrap_or_default();
    let Some((_, keys)) = table.iter().find(|(name, _)| *name == op) else {
        return Err(ToolError::invalid_params(format!(
            "unknown operation `{op}` (one of: {})",
            table.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )));
    };
    if let Some(obj) = params.as_object() {
        for k in obj.keys() {
            if k != "operation" && !keys.contains(&k.as_str()) {
                return Err(ToolError::invalid_params(format!(
                    "`{k}` is not a key of operation `{op}` (its keys: {})",
                    keys.join(", ")
                )));
            }
        }
    }
    Ok(op)
}

/// A worked example whose every key is checked by the conformance suite.
pub fn example(params: Value, result: Value) -> Example {
    Example {
        params,
        result,
        elided: Vec::new(),
        workspace: Default::default(),
        dataset: None,
    }
}

/// The operations of `table` that no example in `examples` shows (a tool's tests hold this empty).
pub fn without_example(examples: &[Example], table: Keys) -> Vec<&'static str> {
    table
        .iter()
        .map(|(op, _)| *op)
        .filter(|op| !examples.iter().any(|e| e.params["operation"] == *op))
        .collect()
}
