//! `beaker run-plan`: a tool plan from a file, its report printed.

use crate::config;
use anyhow::Context;
use beaker_protocol::Dispatcher;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `beaker run-plan` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct RunPlanArgs {
    /// The plan's file, or `-`.
    pub(crate) file: PathBuf,
    /// Limits for every step as JSON, e.g. '{"timeout_ms": 500}' (a plan's own limits win).
    #[arg(long)]
    pub(crate) limits: Option<String>,
    /// Pretty-print the report.
    #[arg(long)]
    pub(crate) pretty: bool,
    #[command(flatten)]
    pub(crate) engine: config::EngineArgs,
}

/// Runs the command.
pub(crate) fn run(args: RunPlanArgs) -> anyhow::Result<ExitCode> {
    let RunPlanArgs {
        file,
        limits,
        pretty,
        engine,
    } = args;
    let text = if file.as_os_str() == "-" {
        crate::stdin_text("the plan")?
    } else {
        std::fs::read_to_string(&file).with_context(|| format!("cannot read {}", file.display()))?
    };
    let v: serde_json::Value = serde_json::from_str(&text).context("the plan is not JSON")?;
    let mut request = match v {
        serde_json::Value::Object(o) if o.contains_key("plan") => o,
        other => {
            let mut o = serde_json::Map::new();
            o.insert("plan".into(), other);
            o
        }
    };
    if let Some(l) = &limits {
        let l: serde_json::Value = serde_json::from_str(l).context("invalid --limits")?;
        request.insert("limits".into(), l);
    }
    let plan = match beaker_protocol::Request::from_json(serde_json::Value::Object(request)) {
        Ok(beaker_protocol::Request::Plan { plan, .. }) => plan,
        Ok(_) => anyhow::bail!("not a plan"),
        Err(refusal) => {
            crate::print_envelope(&refusal.envelope(), pretty)?;
            return Ok(ExitCode::from(2));
        }
    };
    let engine = config::Settings::load_engine(&engine)?.engine()?;
    let report = Dispatcher::new(engine).run_plan(plan);
    let json = report.to_json();
    let s = if pretty {
        serde_json::to_string_pretty(&json)?
    } else {
        serde_json::to_string(&json)?
    };
    writeln!(std::io::stdout().lock(), "{s}")?;
    Ok(if report.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
