//! `beaker call`: one call, its envelope printed.

use crate::config;
use beaker_core::{Envelope, ErrorKind, ToolCall, ToolError};
use std::process::ExitCode;

/// The arguments of `beaker call` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct CallArgs {
    /// The tool to call, e.g. `calculator`.
    pub(crate) tool: String,
    /// The params as a JSON object, or `-` to read them from stdin.
    #[arg(default_value = "{}")]
    pub(crate) params: String,
    /// Limits for this call as JSON, e.g. '{"timeout_ms": 500}'.
    #[arg(long)]
    pub(crate) limits: Option<String>,
    /// Pretty-print the envelope.
    #[arg(long)]
    pub(crate) pretty: bool,
    #[command(flatten)]
    pub(crate) engine: config::EngineArgs,
}

/// Runs the command.
pub(crate) fn run(args: CallArgs) -> anyhow::Result<ExitCode> {
    let CallArgs {
        tool,
        params,
        limits,
        pretty,
        engine,
    } = args;
    let settings = config::Settings::load_engine(&engine)?;
    let params = if params == "-" {
        crate::stdin_text("params")?
    } else {
        params
    };
    let mut call = ToolCall::new(tool.clone(), serde_json::Value::Null);
    let parsed = serde_json::from_str(&params)
        .map_err(|e| format!("params are not valid JSON: {e}"))
        .and_then(|p| {
            call.params = p;
            match &limits {
                Some(l) => serde_json::from_str(l).map_err(|e| format!("invalid --limits: {e}")),
                None => Ok(Default::default()),
            }
        });
    let env = match parsed {
        Ok(l) => {
            call.limits = l;
            if tool == "pubchem" {
                // On a machine's first use its lookup is compiled (seconds): before the call, not within its
                // deadline. A failure is the call's to report.
                let _ = beaker_catalog::pubchem::open(&settings.pubchem.0);
            }
            settings.engine_for(&tool)?.call(call)
        }
        Err(msg) => {
            crate::print_envelope(
                &Envelope::failure(None, tool, ToolError::new(ErrorKind::ParseError, msg)),
                pretty,
            )?;
            return Ok(ExitCode::from(2));
        }
    };
    crate::print_envelope(&env, pretty)?;
    Ok(if env.success {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
