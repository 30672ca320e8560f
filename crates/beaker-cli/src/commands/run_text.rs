//! `beaker run-text`: every call in a model's text (or an OpenAI conversation) on stdin, the results printed in its dialect.

use crate::config;
use anyhow::Context;
use beaker_protocol::dialects::Dialect;
use beaker_protocol::Dispatcher;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `beaker run-text` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct RunTextArgs {
    /// The dialect to read and render (auto, svend, tagged, hermes, fenced, openai, mistral, deepseek).
    #[arg(long, default_value = "auto")]
    pub(crate) dialect: String,
    /// Repair trailing commas, single quotes, unquoted keys and Python literals in the calls' JSON.
    #[arg(long)]
    pub(crate) lenient: bool,
    /// Also run calls inside `<think>…</think>` blocks (skipped by default: they are reasoning).
    #[arg(long)]
    pub(crate) include_think: bool,
    /// Print the whole reply as JSON (`{"dialect", "calls", "text" | "messages"}`) instead of the text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Most calls to run from the text (default 64, at most 4096); calls after it stay text.
    #[arg(long)]
    pub(crate) max_calls: Option<u64>,
    /// Limits for every call as JSON, e.g. '{"timeout_ms": 500}'.
    #[arg(long)]
    pub(crate) limits: Option<String>,
    /// Print the observation instead: the text to append after the model's output, rendered with this
    /// built-in chat template (qwen2.5, qwen3, llama3.1, llama3.2, mistral, hermes2pro, deepseek-r1,
    /// deepseek-v3), byte for byte, with no newline added.
    #[arg(long, conflicts_with = "chat_template")]
    pub(crate) template: Option<String>,
    /// As --template, with a model's own Jinja chat template read from this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) chat_template: Option<PathBuf>,
    /// Extra template variables as a JSON object, e.g. '{"enable_thinking": false}' (`bos_token` and
    /// `eos_token` for --chat-template).
    #[arg(long, value_name = "JSON")]
    pub(crate) template_kwargs: Option<String>,
    #[command(flatten)]
    pub(crate) engine: config::EngineArgs,
}

/// Runs the command.
pub(crate) fn run(args: RunTextArgs) -> anyhow::Result<ExitCode> {
    let RunTextArgs {
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
    } = args;
    let mut fields = serde_json::Map::new();
    if let Some(t) = template {
        fields.insert("template".into(), t.into());
    }
    if let Some(path) = &chat_template {
        let source =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        fields.insert("chat_template".into(), source.into());
    }
    if let Some(k) = &template_kwargs {
        let v: serde_json::Value = serde_json::from_str(k).context("invalid --template-kwargs")?;
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
        // `--dataset` binds the engine's tenant: every call reads it.
        dataset: None,
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
