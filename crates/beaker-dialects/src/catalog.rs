//! The tool list for a system prompt, in each dialect (what seed 002 calls `formatToolsForPrompt`), and as the
//! JSON tool lists of the OpenAI chat API and of MCP's `tools/list`.

use crate::{render, Dialect};
use beaker_core::{Envelope, ToolSpec};
use serde_json::{json, Value};
use std::fmt::Write;

/// The specs as OpenAI `tools` entries (`{"type": "function", "function": {name, description, parameters}}`).
pub fn openai_tools(specs: &[ToolSpec]) -> Value {
    Value::Array(
        specs
            .iter()
            .map(|s| {
                json!({"type": "function", "function": {
                    "name": s.name, "description": s.description, "parameters": s.params_schema}})
            })
            .collect(),
    )
}

/// The specs as the result of MCP's `tools/list` (`{"tools": [{name, description, inputSchema, outputSchema}]}`).
pub fn mcp_tools(specs: &[ToolSpec]) -> Value {
    json!({"tools": specs
        .iter()
        .map(|s| json!({
            "name": s.name,
            "description": s.description,
            "inputSchema": s.params_schema,
            "outputSchema": s.result_schema,
        }))
        .collect::<Vec<_>>()})
}

/// How to call a tool and what comes back, in the dialect's own words.
fn how_to_call(d: Dialect) -> &'static str {
    match d {
        Dialect::Svend => "To call a tool, write\n<|tool_call|><|tool_name|>NAME<|tool_args|>{JSON arguments}<|/tool_call|>\nand stop. The result comes back as <|tool_result|>...<|/tool_result|>; an error comes back as {\"error\": ..., \"error_kind\": ...}.",
        Dialect::Tagged => "To call a tool, write\n<tool_call>{\"tool\": \"NAME\", \"params\": {JSON arguments}}</tool_call>\nand stop. The result comes back as <tool_result>{\"tool\": ..., \"success\": true, \"result\": ...}</tool_result>, or with \"success\": false and an \"error\".",
        Dialect::Hermes => "For each function call, return a JSON object with the function name and arguments within <tool_call></tool_call> tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>\nThe result comes back within <tool_response></tool_response> tags.",
        Dialect::Fenced => "When a question needs a tool, respond with a tool call in this format:\n```json\n{\"tool\": \"NAME\", \"params\": {JSON arguments}}\n```\nand stop. The result comes back as a ```json block with \"success\" and \"result\" (or \"error\").",
        Dialect::Openai => "Call tools with the `tools` of the chat API.",
        Dialect::Mistral => "To call tools, write\n[TOOL_CALLS][{\"name\": \"NAME\", \"arguments\": {JSON arguments}}]\nand stop (several calls go in the one list). Each result comes back as [TOOL_RESULTS]{\"content\": ...}[/TOOL_RESULTS]; an error's content is {\"error\": ..., \"error_kind\": ...}.",
        Dialect::Deepseek => "To call a tool, write\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{JSON arguments}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\nand stop (several calls go between the one pair of outer markers). Each result comes back as <｜tool▁output▁begin｜>...<｜tool▁output▁end｜>; an error as {\"error\": ..., \"error_kind\": ...}.",
    }
}

/// A system-prompt section listing the tools in a dialect: for each tool its description, its parameters'
/// JSON Schema and one worked example (a call and its result) written in that dialect. `openai` gives the
/// chat API's `tools` array as JSON.
pub fn prompt(dialect: Dialect, specs: &[ToolSpec]) -> String {
    if dialect == Dialect::Openai {
        return serde_json::to_string_pretty(&openai_tools(specs)).unwrap_or_default() + "\n";
    }
    let mut out = String::from("# Tools\n\n");
    if dialect == Dialect::Hermes {
        out.push_str("You may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n");
        for s in specs {
            let f = json!({"type": "function", "function": {
                "name": s.name, "description": s.description, "parameters": s.params_schema}});
            let _ = writeln!(out, "{}", render::python_json(&f));
        }
        out.push_str("</tools>\n\n");
    }
    let _ = writeln!(out, "{}\n", how_to_call(dialect));
    for s in specs {
        // Hermes already carries each description in <tools>.
        if dialect == Dialect::Hermes {
            let _ = write!(out, "## {}\n\n", s.name);
        } else {
            let _ = write!(out, "## {}\n\n{}\n\n", s.name, s.description);
        }
        if dialect != Dialect::Hermes {
            let _ = write!(
                out,
                "Parameters (JSON Schema):\n```json\n{}\n```\n\n",
                serde_json::to_string_pretty(&s.params_schema).unwrap_or_default()
            );
        }
        if let Some(ex) = s.examples.first() {
            let env = Envelope::success(None, s.name.clone(), ex.result.clone());
            let _ = write!(
                out,
                "Example:\n{}\n{}\n\n",
                render::call(dialect, &s.name, &ex.params, None),
                render::result(dialect, &s.name, &env)
            );
        }
    }
    out
}
