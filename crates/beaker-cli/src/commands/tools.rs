//! `beaker tools`: the catalog, as text, JSON, OpenAI or MCP lists, Markdown or a dialect's prompt section.

use crate::config;
use beaker_protocol::dialects::Dialect;
use beaker_protocol::listing;
use std::io::Write;
use std::process::ExitCode;

/// The arguments of `beaker tools` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct ToolsArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ToolsFormat::Text)]
    pub(crate) format: ToolsFormat,
    #[command(flatten)]
    pub(crate) engine: config::EngineArgs,
}

/// Runs the command.
pub(crate) fn run(args: ToolsArgs) -> anyhow::Result<ExitCode> {
    let ToolsArgs { format, engine } = args;
    let engine = config::Settings::load_engine(&engine)?.engine()?;
    let specs = engine.specs();
    let mut out = std::io::stdout().lock();
    match format {
        ToolsFormat::Text => {
            for s in specs {
                let first = s.description.split(". ").next().unwrap_or("");
                writeln!(out, "{:<16} {first}", s.name)?;
            }
        }
        ToolsFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(specs)?)?,
        ToolsFormat::Openai => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&listing::openai_tools(specs))?
        )?,
        ToolsFormat::Mcp => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&listing::mcp_tools(specs))?
        )?,
        ToolsFormat::Markdown => write!(out, "{}", listing::markdown(specs))?,
        ToolsFormat::Svend => write!(out, "{}", listing::prompt(Dialect::Svend, specs))?,
        ToolsFormat::Tagged => write!(out, "{}", listing::prompt(Dialect::Tagged, specs))?,
        ToolsFormat::Hermes => write!(out, "{}", listing::prompt(Dialect::Hermes, specs))?,
        ToolsFormat::Fenced => write!(out, "{}", listing::prompt(Dialect::Fenced, specs))?,
        ToolsFormat::Mistral => write!(out, "{}", listing::prompt(Dialect::Mistral, specs))?,
        ToolsFormat::Deepseek => write!(out, "{}", listing::prompt(Dialect::Deepseek, specs))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// What `beaker tools` prints.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ToolsFormat {
    /// One line per tool: name and description.
    Text,
    /// The full specs (name, description, params and result JSON Schemas, examples).
    Json,
    /// OpenAI `tools` entries (the chat API's `tools` array).
    Openai,
    /// MCP `tools/list` result (`{"tools": [{name, description, inputSchema, outputSchema}]}`).
    Mcp,
    /// The Markdown of docs/TOOLS.md.
    Markdown,
    /// A system-prompt catalog with Svend-token examples (seed 003).
    Svend,
    /// A system-prompt catalog with `<tool_call>{"tool", "params"}` examples (seed 001).
    Tagged,
    /// A system-prompt catalog in the Hermes/Qwen style (`<tools>`, `<tool_call>{"name", "arguments"}`).
    Hermes,
    /// A system-prompt catalog with markdown ```json examples (seed 002's formatToolsForPrompt).
    Fenced,
    /// A system-prompt catalog with Mistral `[TOOL_CALLS]` examples.
    Mistral,
    /// A system-prompt catalog with DeepSeek call-token examples.
    Deepseek,
}
