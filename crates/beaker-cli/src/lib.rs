//! The command line behind the `beaker` binary: a thin front end over the protocol's `Dispatcher`.
//! Exit codes are decided here only: 0 success, 1 a call that failed, 2 a usage or start-up error.
#![deny(missing_docs)]

mod config;
mod lines;
mod serve;
mod traces;

use anyhow::Context;
use beaker_core::{Envelope, ErrorKind, ToolCall, ToolError};
use beaker_protocol::dialects::Dialect;
use beaker_protocol::{listing, Dispatcher};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{Read, Write};
use std::path::PathBuf;
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
    Call {
        /// The tool to call, e.g. `calculator`.
        tool: String,
        /// The params as a JSON object, or `-` to read them from stdin.
        #[arg(default_value = "{}")]
        params: String,
        /// Limits for this call as JSON, e.g. '{"timeout_ms": 500}'.
        #[arg(long)]
        limits: Option<String>,
        /// Pretty-print the envelope.
        #[arg(long)]
        pretty: bool,
        #[command(flatten)]
        engine: config::EngineArgs,
    },
    /// Run every tool call in a model's text (read from stdin) and print the results to append, rendered in
    /// the text's dialect. Stdin may also be an OpenAI conversation (`{"messages": [...]}`): its last
    /// assistant message's tool calls run and the `tool` messages are printed. Exit 0 when every call
    /// succeeded (or there was none), 1 otherwise, 2 on a usage error.
    RunText {
        /// The dialect to read and render (auto, svend, tagged, hermes, fenced, openai, mistral, deepseek).
        #[arg(long, default_value = "auto")]
        dialect: String,
        /// Repair trailing commas, single quotes, unquoted keys and Python literals in the calls' JSON.
        #[arg(long)]
        lenient: bool,
        /// Also run calls inside `<think>…</think>` blocks (skipped by default: they are reasoning).
        #[arg(long)]
        include_think: bool,
        /// Print the whole reply as JSON (`{"dialect", "calls", "text" | "messages"}`) instead of the text.
        #[arg(long)]
        json: bool,
        /// Most calls to run from the text (default 64, at most 4096); calls after it stay text.
        #[arg(long)]
        max_calls: Option<u64>,
        /// Limits for every call as JSON, e.g. '{"timeout_ms": 500}'.
        #[arg(long)]
        limits: Option<String>,
        /// Print the observation instead: the text to append after the model's output, rendered with this
        /// built-in chat template (qwen2.5, qwen3, llama3.1, llama3.2, mistral, hermes2pro, deepseek-r1,
        /// deepseek-v3), byte for byte, with no newline added.
        #[arg(long, conflicts_with = "chat_template")]
        template: Option<String>,
        /// As --template, with a model's own Jinja chat template read from this file.
        #[arg(long, value_name = "FILE")]
        chat_template: Option<PathBuf>,
        /// Extra template variables as a JSON object, e.g. '{"enable_thinking": false}' (`bos_token` and
        /// `eos_token` for --chat-template).
        #[arg(long, value_name = "JSON")]
        template_kwargs: Option<String>,
        #[command(flatten)]
        engine: config::EngineArgs,
    },
    /// List the tools and their schemas.
    Tools {
        /// Output format.
        #[arg(long, value_enum, default_value_t = ToolsFormat::Text)]
        format: ToolsFormat,
        #[command(flatten)]
        engine: config::EngineArgs,
    },
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
    RunPlan {
        /// The plan's file, or `-`.
        file: PathBuf,
        /// Limits for every step as JSON, e.g. '{"timeout_ms": 500}' (a plan's own limits win).
        #[arg(long)]
        limits: Option<String>,
        /// Pretty-print the report.
        #[arg(long)]
        pretty: bool,
        #[command(flatten)]
        engine: config::EngineArgs,
    },
    /// Load a JSON Lines tool server with a scenario (a JSONL file of weighted requests; see
    /// `benches/scenarios/`) and report calls/s, latency percentiles per tool, failures by kind and fault, and
    /// the server's peak RSS and CPU time. Every answer is checked (ids answered exactly once, envelopes well
    /// formed); a lost answer fails the run (exit 1). Arguments after `--` go to the default server, `beaker
    /// serve` (e.g. `-- --no-python`).
    Bench {
        /// The scenario file.
        scenario: PathBuf,
        /// Another server to drive, as a shell command speaking the same protocol (default: this binary's
        /// `serve`).
        #[arg(long)]
        server: Option<String>,
        /// Requests in flight at once (default 8); with --rate, the most in flight.
        #[arg(long, short = 'c')]
        concurrency: Option<usize>,
        /// Requests to measure in total (default 1000 when no --duration is given; with --compare, split across
        /// the rounds of each server); with --duration, whichever ends first.
        #[arg(long, short = 'n')]
        calls: Option<u64>,
        /// Seconds to measure.
        #[arg(long, short = 'd')]
        duration: Option<f64>,
        /// Requests sent first and not measured.
        #[arg(long, default_value_t = 50)]
        warmup: u64,
        /// The seed that picks the requests.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Open loop: requests per second at Poisson-distributed times (closed loop by default).
        #[arg(long)]
        rate: Option<f64>,
        /// Bursts: send this many requests at once and the next wave when all are answered (the wave is the
        /// concurrency).
        #[arg(long, conflicts_with_all = ["rate", "concurrency"])]
        burst: Option<usize>,
        /// How requests travel: JSON Lines on stdio, MCP on stdio (the default server gets `--mcp`), or HTTP
        /// `POST /v1/call` (the default server gets `--http 127.0.0.1:0`; another must print `http://HOST:PORT`
        /// on stderr).
        #[arg(long, value_enum, default_value_t = BenchTransport::Jsonl)]
        transport: BenchTransport,
        /// A second server (a shell command) to run the same scenario against, in alternating rounds; prints
        /// both, each figure's ratio, and the requests whose answers differ (exit 1 if any do).
        #[arg(long, value_name = "CMD")]
        compare: Option<String>,
        /// With --compare: measured rounds per server.
        #[arg(long, default_value_t = 4, requires = "compare")]
        rounds: usize,
        /// With --compare: the relative tolerance for numbers in the cross-check (integers must be equal).
        #[arg(long, default_value_t = 1e-9, requires = "compare")]
        tolerance: f64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Print the report as a Markdown table.
        #[arg(long, conflicts_with = "json")]
        markdown: bool,
        /// No progress line on stderr.
        #[arg(long)]
        quiet: bool,
        /// Seconds to wait for the last answers before the run fails as having lost them.
        #[arg(long, default_value_t = 60.0)]
        drain: f64,
        /// Arguments for the default server (not with --server, whose command holds its own).
        #[arg(last = true)]
        server_args: Vec<String>,
    },
    /// Compile the sandboxed guests (the Python interpreter's snapshot, and any `--guest-dir` tools) into
    /// the module cache, so the first call of a server does not wait for it. Prints what it loaded.
    Compile {
        #[command(flatten)]
        engine: config::EngineArgs,
    },
}

/// Reports a run that failed: exit 2 for a mistake in the options, 1 for a run that could not vouch for its
/// numbers (lost answers, a broken server).
fn bench_failed(e: &beaker_bench::BenchError) -> ExitCode {
    eprintln!("beaker: {e}");
    ExitCode::from(if e.is_usage() { 2 } else { 1 })
}

/// How `beaker bench` talks to the server.
#[derive(Clone, Copy, ValueEnum)]
enum BenchTransport {
    /// JSON Lines on stdio (docs/PROTOCOL.md).
    Jsonl,
    /// MCP JSON-RPC on stdio (docs/MCP.md).
    Mcp,
    /// HTTP `POST /v1/call` (docs/HTTP.md).
    Http,
}

#[derive(Clone, Copy, ValueEnum)]
enum ToolsFormat {
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
        Command::Call {
            tool,
            params,
            limits,
            pretty,
            engine,
        } => {
            let settings = config::Settings::load_engine(&engine)?;
            let params = if params == "-" {
                stdin_text("params")?
            } else {
                params
            };
            let mut call = ToolCall::new(tool.clone(), serde_json::Value::Null);
            let parsed = serde_json::from_str(&params)
                .map_err(|e| format!("params are not valid JSON: {e}"))
                .and_then(|p| {
                    call.params = p;
                    match &limits {
                        Some(l) => {
                            serde_json::from_str(l).map_err(|e| format!("invalid --limits: {e}"))
                        }
                        None => Ok(Default::default()),
                    }
                });
            let env = match parsed {
                Ok(l) => {
                    call.limits = l;
                    settings.engine_for(&tool)?.call(call)
                }
                Err(msg) => {
                    print_envelope(
                        &Envelope::failure(None, tool, ToolError::new(ErrorKind::ParseError, msg)),
                        pretty,
                    )?;
                    return Ok(ExitCode::from(2));
                }
            };
            print_envelope(&env, pretty)?;
            Ok(if env.success {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
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
        Command::RunPlan {
            file,
            limits,
            pretty,
            engine,
        } => {
            let text = if file.as_os_str() == "-" {
                stdin_text("the plan")?
            } else {
                std::fs::read_to_string(&file)
                    .with_context(|| format!("cannot read {}", file.display()))?
            };
            let v: serde_json::Value =
                serde_json::from_str(&text).context("the plan is not JSON")?;
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
            let plan = match beaker_protocol::Request::from_json(serde_json::Value::Object(request))
            {
                Ok(beaker_protocol::Request::Plan { plan, .. }) => plan,
                Ok(_) => anyhow::bail!("not a plan"),
                Err(refusal) => {
                    print_envelope(&refusal.envelope(), pretty)?;
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
        Command::Bench {
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
        } => {
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
        Command::Compile { engine } => {
            let settings = config::Settings::load_engine(&engine)?;
            let started = std::time::Instant::now();
            let (engine, load_errors) = settings.engine_and_load_errors()?;
            let guests = engine.sandboxed_tools();
            println!(
                "compiled or loaded {} sandboxed tools in {:.1} s: {}",
                guests.len(),
                started.elapsed().as_secs_f64(),
                guests.join(", ")
            );
            Ok(if load_errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Tools { format, engine } => {
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
                ToolsFormat::Mistral => {
                    write!(out, "{}", listing::prompt(Dialect::Mistral, specs))?
                }
                ToolsFormat::Deepseek => {
                    write!(out, "{}", listing::prompt(Dialect::Deepseek, specs))?
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::RunText {
            dialect,
            lenient,
            include_think,
            json,
            max_calls,
            limits,
            template,
            chat_template,
            template_kwargs,
            engine,
        } => {
            let mut fields = serde_json::Map::new();
            if let Some(t) = template {
                fields.insert("template".into(), t.into());
            }
            if let Some(path) = &chat_template {
                let source = std::fs::read_to_string(path)
                    .with_context(|| format!("reading {}", path.display()))?;
                fields.insert("chat_template".into(), source.into());
            }
            if let Some(k) = &template_kwargs {
                let v: serde_json::Value =
                    serde_json::from_str(k).context("invalid --template-kwargs")?;
                fields.insert("template_kwargs".into(), v);
            }
            let template = beaker_protocol::template_option(&fields).map_err(anyhow::Error::msg)?;
            let mut raw = Vec::new();
            std::io::stdin()
                .read_to_end(&mut raw)
                .context("reading the text from stdin")?;
            // A generation cut off inside a multi-byte character is still a text to run.
            let input = String::from_utf8_lossy(&raw).into_owned();
            let limits = match &limits {
                Some(l) => serde_json::from_str(l).context("invalid --limits")?,
                None => Default::default(),
            };
            let req = beaker_protocol::TextOptions {
                dialect: Some(dialect.clone()),
                lenient,
                include_think,
                max_calls,
                limits,
                tag: None,
                seed: None,
                template,
            }
            .into_request(String::new())
            .map_err(anyhow::Error::msg)?;
            let templated = req.template.is_some();
            let dispatcher = Dispatcher::new(config::Settings::load_engine(&engine)?.engine()?);
            // An OpenAI conversation is a JSON object with `messages`; anything else is model text.
            let conversation = serde_json::from_str::<serde_json::Value>(&input)
                .ok()
                .and_then(|v| v.get("messages").and_then(|m| m.as_array().cloned()));
            let reply = match conversation {
                Some(_) if !matches!(dialect.as_str(), "auto" | "openai") => {
                    anyhow::bail!(
                        "stdin is an OpenAI conversation; --dialect {dialect} does not apply to it"
                    )
                }
                Some(messages) => dispatcher.run_messages(&messages, &req)?,
                None => dispatcher.run_text(beaker_protocol::TextRequest { text: input, ..req }),
            };
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string(&reply.to_json())?)?;
            } else if templated {
                match &reply.observation {
                    Some(Ok(o)) => write!(out, "{}", o.text)?,
                    Some(Err(e)) => {
                        eprintln!("beaker: {e}");
                        return Ok(ExitCode::from(1));
                    }
                    None => eprintln!("beaker: no call ran, so there is no observation"),
                }
            } else if reply.dialect == Some(Dialect::Openai) {
                for m in &reply.messages {
                    writeln!(out, "{}", serde_json::to_string(m)?)?;
                }
            } else if !reply.text.is_empty() {
                writeln!(out, "{}", reply.text)?;
            }
            Ok(if reply.all_succeeded() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
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
