//! What the tools with an `operation` param (`chemistry`, `physics`) share: a table of each operation's keys,
//! checked before the operation runs, and the shape of their examples.

use beaker_core::{Example, ToolError};
use serde_json::Value;

/// Each operation's name and the keys it reads (besides `operation`).
pub(crate) type Keys = &'static [(&'static str, &'static [&'static str])];

/// The call's operation, once every key it carries is one that operation reads: a key of another operation
/// is refused, never ignored.
pub(crate) fn select(params: &Value, table: Keys) -> Result<&str, ToolError> {
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
pub(crate) fn example(params: Value, result: Value) -> Example {
    Example {
        params,
        result,
        elided: Vec::new(),
    }
}

/// Fails unless every operation of `table` has an example in `examples`.
#[cfg(test)]
pub(crate) fn assert_every_operation_has_an_example(examples: &[Example], table: Keys) {
    for (op, _) in table {
        assert!(
            examples.iter().any(|e| e.params["operation"] == *op),
            "{op} has no example"
        );
    }
}
