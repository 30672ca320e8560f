//! `beaker bench`: load a server with a scenario and report, or compare two servers.

use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `beaker bench` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct BenchArgs {
    /// The scenario file.
    pub(crate) scenario: PathBuf,
    /// Another server to drive, as a shell command speaking the same protocol (default: this binary's
    /// `serve`).
    #[arg(long)]
    pub(crate) server: Option<String>,
    /// Requests in flight at once (default 8); with --rate, the most in flight.
    #[arg(long, short = 'c')]
    pub(crate) concurrency: Option<usize>,
    /// Requests to measure in total (default 1000 when no --duration is given; with --compare, split across
    /// the rounds of each server); with --duration, whichever ends first.
    #[arg(long, short = 'n')]
    pub(crate) calls: Option<u64>,
    /// Seconds to measure.
    #[arg(long, short = 'd')]
    pub(crate) duration: Option<f64>,
    /// Requests sent first and not measured.
    #[arg(long, default_value_t = 50)]
    pub(crate) warmup: u64,
    /// The seed that picks the requests.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Open loop: requests per second at Poisson-distributed times (closed loop by default).
    #[arg(long)]
    pub(crate) rate: Option<f64>,
    /// Bursts: send this many requests at once and the next wave when all are answered (the wave is the
    /// concurrency).
    #[arg(long, conflicts_with_all = ["rate", "concurrency"])]
    pub(crate) burst: Option<usize>,
    /// How requests travel: JSON Lines on stdio, MCP on stdio (the default server gets `--mcp`), or HTTP
    /// `POST /v1/call` (the default server gets `--http 127.0.0.1:0`; another must print `http://HOST:PORT`
    /// on stderr).
    #[arg(long, value_enum, default_value_t = BenchTransport::Jsonl)]
    pub(crate) transport: BenchTransport,
    /// A second server (a shell command) to run the same scenario against, in alternating rounds; prints
    /// both, each figure's ratio, and the requests whose answers differ (exit 1 if any do).
    #[arg(long, value_name = "CMD")]
    pub(crate) compare: Option<String>,
    /// With --compare: measured rounds per server.
    #[arg(long, default_value_t = 4, requires = "compare")]
    pub(crate) rounds: usize,
    /// With --compare: the relative tolerance for numbers in the cross-check (integers must be equal).
    #[arg(long, default_value_t = 1e-9, requires = "compare")]
    pub(crate) tolerance: f64,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print the report as a Markdown table.
    #[arg(long, conflicts_with = "json")]
    pub(crate) markdown: bool,
    /// No progress line on stderr.
    #[arg(long)]
    pub(crate) quiet: bool,
    /// Seconds to wait for the last answers before the run fails as having lost them.
    #[arg(long, default_value_t = 60.0)]
    pub(crate) drain: f64,
    /// Arguments for the default server (not with --server, whose command holds its own).
    #[arg(last = true)]
    pub(crate) server_args: Vec<String>,
}

/// Runs the command.
pub(crate) fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let BenchArgs {
        scenario,
        server,
        concurrency,
        calls,
        duration,
        warmup,
        seed,
        rate,
        burst,
        transport,
        compare,
        rounds,
        tolerance,
        json,
        markdown,
        quiet,
        drain,
        server_args,
    } = args;
    let scenario = beaker_bench::Scenario::load(&scenario)?;
    let shell = |cmd: &str| vec!["sh".into(), "-c".into(), format!("exec {cmd}")];
    let transport = match transport {
        BenchTransport::Jsonl => beaker_bench::Transport::Lines,
        BenchTransport::Mcp => beaker_bench::Transport::Mcp,
        BenchTransport::Http => beaker_bench::Transport::Http,
    };
    if server.is_some() && !server_args.is_empty() {
        eprintln!(
            "beaker: arguments after `--` go to the default server; with --server, put them in its command"
        );
        return Ok(ExitCode::from(2));
    }
    let server = match server {
        Some(cmd) => shell(&cmd),
        None => {
            let exe = std::env::current_exe().context("locating this binary")?;
            let mut v = vec![exe.display().to_string(), "serve".into()];
            match transport {
                beaker_bench::Transport::Lines => {}
                beaker_bench::Transport::Mcp => v.push("--mcp".into()),
                beaker_bench::Transport::Http => {
                    v.extend(["--http".into(), "127.0.0.1:0".into()]);
                }
            }
            v.extend(server_args);
            v
        }
    };
    let opts = beaker_bench::Options {
        server,
        transport,
        burst,
        concurrency: concurrency.unwrap_or(8),
        calls: calls.or(if duration.is_none() { Some(1000) } else { None }),
        duration: duration.map(std::time::Duration::from_secs_f64),
        warmup,
        seed,
        rate,
        progress: !quiet,
        drain: std::time::Duration::from_secs_f64(drain.max(0.0)),
    };
    if let Some(peer) = compare {
        let tol = beaker_bench::Tolerance {
            rel: tolerance,
            ..beaker_bench::Tolerance::default()
        };
        let c = match beaker_bench::compare(&scenario, &opts, &shell(&peer), rounds, tol) {
            Ok(c) => c,
            Err(e) => return Ok(bench_failed(&e)),
        };
        let mut out = std::io::stdout().lock();
        if json {
            writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
        } else if markdown {
            write!(out, "{}", c.to_markdown())?;
        } else {
            write!(out, "{}", c.to_text())?;
        }
        return Ok(if c.agree() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let report = match beaker_bench::run(&scenario, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(bench_failed(&e)),
    };
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else if markdown {
        write!(out, "{}", report.to_markdown())?;
    } else {
        write!(out, "{}", report.to_text())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Reports a run that failed: exit 2 for a mistake in the options, 1 for a run that could not vouch for its
/// numbers (lost answers, a broken server).
fn bench_failed(e: &beaker_bench::BenchError) -> ExitCode {
    eprintln!("beaker: {e}");
    ExitCode::from(if e.is_usage() { 2 } else { 1 })
}

/// How `beaker bench` talks to the server.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum BenchTransport {
    /// JSON Lines on stdio (docs/PROTOCOL.md).
    Jsonl,
    /// MCP JSON-RPC on stdio (docs/MCP.md).
    Mcp,
    /// HTTP `POST /v1/call` (docs/HTTP.md).
    Http,
}
