//! The command line behind the `beaker` binary: a thin front end over the protocol's `Dispatcher`.
//! Exit codes are decided here only: 0 success, 1 a call that failed, 2 a usage or start-up error.
#![deny(missing_docs)]

mod commands;
mod config;
mod lines;
mod serve;
mod traces;

use anyhow::Context;
use beaker_core::Envelope;
use clap::{Parser, Subcommand};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Beaker: a sandboxed scientific tool-execution runtime for language models.
#[derive(Parser)]
#[command(name = "beaker", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve tool calls as JSON Lines on stdin/stdout (one request per line, one response per line).
    Serve(config::ServeArgs),
    /// Run one call and print its envelope (exit 0 on success, 1 on a failed call, 2 on a usage error).
    Call(commands::call::CallArgs),
    /// Run every tool call in a model's text (read from stdin) and print the results to append, rendered in
    /// the text's dialect. Stdin may also be an OpenAI conversation (`{"messages": [...]}`): its last
    /// assistant message's tool calls run and the `tool` messages are printed. Exit 0 when every call
    /// succeeded (or there was none), 1 otherwise, 2 on a usage error.
    RunText(commands::run_text::RunTextArgs),
    /// List the tools and their schemas.
    Tools(commands::tools::ToolsArgs),
    /// Check training traces (seed 001 Q:/A: files, seed 003 Svend traces, seed 004 conversation JSONL)
    /// against their formats' rules and the tools' schemas; prints `file:line:col: rule: message` and exits
    /// 1 when anything is wrong. `--list-rules` lists the rules.
    Lint {
        #[command(flatten)]
        traces: traces::TraceArgs,
        /// Switch a rule off (`qa/explain`), or a family (`qa`). Repeatable, or comma-separated.
        #[arg(long, value_delimiter = ',')]
        disable: Vec<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = traces::Format::Text)]
        format: traces::Format,
        /// List the rules and exit.
        #[arg(long = "list-rules")]
        list_rules: bool,
    },
    /// Rewrite deprecated Q:/A: files to the current format (`User:`/`Assistant:` turns to `Q:`/`A:`,
    /// `<|tool_call|>NAME(ARGS)<|tool_end|>` calls and `<|tool_result|>` results to tagged JSON), in place,
    /// keeping every other byte. Exit 1 when something could not be rewritten (or, with --check, needs it).
    Migrate {
        #[command(flatten)]
        traces: traces::TraceArgs,
        /// Report what would change, write nothing; exit 1 when a file needs migrating.
        #[arg(long)]
        check: bool,
        /// Write the migrated files to stdout instead of in place.
        #[arg(long)]
        stdout: bool,
    },
    /// Re-run every recorded call of a tool Beaker runs and compare the recorded result with the real one
    /// (numbers within --rel-tol or the rounding the trace shows, strings exactly, objects by the recorded
    /// keys). Exit 1 when a recorded result is wrong.
    Verify {
        #[command(flatten)]
        traces: traces::TraceArgs,
        /// Write a copy of each wrong file (`NAME.fixed.EXT`) with the results Beaker gives, rendered in the
        /// trace's format.
        #[arg(long)]
        fix: bool,
        /// Relative tolerance for numbers (besides the rounding the recorded number shows).
        #[arg(long, default_value_t = 1e-9)]
        rel_tol: f64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = traces::Format::Text)]
        format: traces::Format,
    },
    /// Execute a tool plan (seed 004's `tool_plan`) from a JSON file (or `-` for stdin): the plan itself
    /// (`{"strategy", "steps"}`), an assistant message holding it (`tool_plan`), or a plan request
    /// (`{"plan", "limits"?, "tag"?, "seed"?}`). Steps run as soon as the steps they depend on have
    /// succeeded; prints the report (`{"success", "order", "steps"}`); exit 0 when every step succeeded,
    /// 1 otherwise, 2 on a usage error.
    RunPlan(commands::run_plan::RunPlanArgs),
    /// Load a JSON Lines tool server with a scenario (a JSONL file of weighted requests; see
    /// `benches/scenarios/`) and report calls/s, latency percentiles per tool, failures by kind and fault, and
    /// the server's peak RSS and CPU time. Every answer is checked (ids answered exactly once, envelopes well
    /// formed); a lost answer fails the run (exit 1). Arguments after `--` go to the default server, `beaker
    /// serve` (e.g. `-- --no-python`).
    Bench(commands::bench::BenchArgs),
    /// Compile the sandboxed guests (the Python interpreter's snapshot, and any `--guest-dir` tools) into
    /// the module cache, so the first call of a server does not wait for it. Prints what it loaded.
    Compile(commands::compile::CompileArgs),
    /// Build and describe `web_search`'s BM25 indexes (`beaker index build CORPUS --out DIR`, `beaker index
    /// info DIR`); serve one with `beaker serve --index NAME=DIR`.
    Index(commands::index::IndexArgs),
    /// Seed 002's health datasets: `beaker data import --data DIR --dataset NAME FILE...` reads Apple Health's
    /// export.xml (streamed), CGM and generic CSV, and JSON reports into a dataset; `beaker data list --data DIR`
    /// lists the datasets. Serve them with `beaker serve --data DIR`.
    Data(commands::data::DataArgs),
}

/// Runs the `beaker` command line with the process's arguments.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(code) =
        beaker_catalog::run_worker(&args).or_else(|| beaker_protocol::run_worker(&args))
    {
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("BEAKER_LOG")
        // rmcp warns of every JSON-RPC error it sends (an unknown tool, a bad method): the client's to read,
        // not the operator's, and they may quote a client's input.
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp::service=error"));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
    match run(cli) {
        Ok(code) => code,
        // A reader that went away (`beaker call ... | head`) is not an error worth a message.
        Err(e)
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("beaker: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(args) => {
            let settings = config::Settings::load(&args)?;
            match args.http {
                Some(addr) => serve::serve_http(settings, addr, args.http_tokens.as_deref())?,
                None if args.mcp => serve::serve_mcp(settings)?,
                None => serve::serve(settings)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Call(args) => commands::call::run(args),
        Command::Lint {
            traces,
            disable,
            format,
            list_rules,
        } => traces::lint(&traces, &disable, format, list_rules),
        Command::Migrate {
            traces,
            check,
            stdout,
        } => traces::migrate(&traces, check, stdout),
        Command::Verify {
            traces,
            fix,
            rel_tol,
            format,
        } => traces::verify(&traces, fix, rel_tol, format),
        Command::RunPlan(args) => commands::run_plan::run(args),
        Command::Bench(args) => commands::bench::run(args),
        Command::Compile(args) => commands::compile::run(args),
        Command::Index(args) => commands::index::run(args),
        Command::Data(args) => commands::data::run(args),
        Command::Tools(args) => commands::tools::run(args),
        Command::RunText(args) => commands::run_text::run(args),
    }
}

/// All of stdin as text (`what` names it in the error).
fn stdin_text(what: &str) -> anyhow::Result<String> {
    let mut s = String::new();
    std::io::stdin()
        .read_to_string(&mut s)
        .with_context(|| format!("reading {what} from stdin"))?;
    Ok(s)
}

fn print_envelope(env: &Envelope, pretty: bool) -> anyhow::Result<()> {
    let s = if pretty {
        serde_json::to_string_pretty(env)?
    } else {
        serde_json::to_string(env)?
    };
    writeln!(std::io::stdout().lock(), "{s}")?;
    Ok(())
}
