use crate::{CallContext, LimitsRequest, ToolError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One worked example of a tool: params in, result out (used in docs and prompt catalogs, and tested).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// The params of the call.
    pub params: Value,
    /// The `result` the call returns, without the keys in `elided`.
    pub result: Value,
    /// Result keys the call returns but the example leaves out, too long to show (a plot's image bytes).
    /// The conformance suite checks that they are there and that everything else is `result` exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elided: Vec<String>,
    /// Files in the call's workspace before it runs (path -> text, or `{"base64": …}`): an example of a tool
    /// that reads files (`read_file`, `edit_image`) starts from these, written by `write_file` in its trajectory.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub workspace: serde_json::Map<String, Value>,
    /// The dataset the call reads (the health tools' examples read `example`: the synthetic export in
    /// tests/data/health/, which the conformance suite imports under that name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
}

impl Example {
    /// The examples of `tool` in a family's examples file (`{"TOOL": [example, ...], ...}`), empty when the file
    /// or the tool's entry does not read (the conformance suite then reports a tool without examples).
    pub fn of_tool(examples_json: &str, tool: &str) -> Vec<Example> {
        serde_json::from_str::<serde_json::Map<String, Value>>(examples_json)
            .ok()
            .and_then(|all| all.get(tool).cloned())
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }
}

/// What a tool is: its name, what it is for, and the JSON Schemas of its params and result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name calls use (`"calculator"`).
    pub name: String,
    /// What the tool does, written for a model choosing a tool.
    pub description: String,
    /// JSON Schema (draft 2020-12) the params must satisfy before the tool runs.
    pub params_schema: Value,
    /// JSON Schema of the tool's `result`.
    pub result_schema: Value,
    /// Worked examples, each checked by the test suite.
    #[serde(default)]
    pub examples: Vec<Example>,
    /// Longer Markdown documentation for docs/TOOLS.md (semantics, errors); not sent to models.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
}

/// A tool the engine can run. Implementations must be deterministic and bounded by construction:
/// estimate the cost of work before doing it and refuse with `limit_exceeded`, and call
/// [`CallContext::checkpoint`] in loops that may run long.
pub trait Tool: Send + Sync {
    /// The tool's spec; params are validated against its schema before [`Tool::call`] runs.
    fn spec(&self) -> &ToolSpec;

    /// Runs one call with schema-valid `params`, returning the tool's structured `result`.
    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError>;

    /// This tool's own default limits, between the server's defaults and what a call asks for (a guest
    /// tool's manifest sets them). The server's maxima still clamp them.
    fn default_limits(&self) -> LimitsRequest {
        LimitsRequest::default()
    }

    /// Which of the engine's worker pools runs this tool's calls: untrusted code in the sandbox has a pool of
    /// its own, so a cheap native call never waits behind it.
    fn pool(&self) -> Pool {
        Pool::Native
    }

    /// Hands a tool that answers through other tools (`wolfram`) the engine's whole list, once, after the catalog
    /// has built every tool: it keeps the ones it routes to. Other tools ignore it.
    fn bind(&self, _tools: &[std::sync::Arc<dyn Tool>]) {}

    /// Gets ready for the calls to come (starts what a first call would otherwise wait for) without waiting for
    /// it; a server calls it once, on a thread of its own, when it starts serving.
    fn warm_up(&self) {}
}

/// A pool of the engine's worker threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pool {
    /// Native, trusted, in-process tools.
    Native,
    /// Tools that run untrusted code in a sandbox (Python and operator guests in WebAssembly, `execute_code`'s
    /// programs in the native one): their own pool, and a longer grace past the deadline for their own answer.
    Sandboxed,
}
