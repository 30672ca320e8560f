//! Chat templates: the exact text a model sees after its tool calls.
//!
//! A rollout worker appends, after the model's output, the end of the assistant's turn, the tool results as the
//! model's chat template wraps them, and the opening of the next assistant turn. A byte off and the policy trains
//! on text it will never see again. [`ChatTemplate::observation`] renders that continuation with the model's own
//! Jinja template (the `chat_template` of its `tokenizer_config.json`) through MiniJinja, configured as
//! transformers' `apply_chat_template` configures Jinja2 (trimmed blocks, `tojson` as Python's `json.dumps`,
//! `raise_exception`, Python string methods), so the observation is the whole conversation rendered minus the
//! prefix the model has already seen.
//!
//! Built-in templates ([`BUILTINS`]) are compiled once; a template given as source is compiled and kept in a
//! small cache keyed by its text.
#![deny(missing_docs)]

mod json;

use minijinja::value::{Kwargs, Value as Mj};
use minijinja::{Environment, ErrorKind};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A chat template shipped with Beaker, with the special tokens its model's tokenizer gives it.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    /// Its name in requests (`"template": "qwen2.5"`).
    pub name: &'static str,
    /// The model whose `tokenizer_config.json` it comes from (`templates/SOURCES.md`).
    pub model: &'static str,
    /// `bos_token` as the template reads it.
    pub bos_token: &'static str,
    /// `eos_token` as the template reads it.
    pub eos_token: &'static str,
    /// Every token the model ends a turn with (its generation config's `eos_token_id`s).
    pub stop_tokens: &'static [&'static str],
    source: &'static str,
}

/// Every built-in template.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "qwen2.5",
        model: "Qwen/Qwen2.5-7B-Instruct",
        bos_token: "",
        eos_token: "<|im_end|>",
        stop_tokens: &["<|im_end|>", "<|endoftext|>"],
        source: include_str!("../templates/qwen2.5.jinja"),
    },
    Builtin {
        name: "qwen3",
        model: "Qwen/Qwen3-0.6B",
        bos_token: "",
        eos_token: "<|im_end|>",
        stop_tokens: &["<|im_end|>", "<|endoftext|>"],
        source: include_str!("../templates/qwen3.jinja"),
    },
    Builtin {
        name: "llama3.1",
        model: "meta-llama/Llama-3.1-8B-Instruct",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|eot_id|>",
        stop_tokens: &["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"],
        source: include_str!("../templates/llama3.1.jinja"),
    },
    Builtin {
        name: "llama3.2",
        model: "meta-llama/Llama-3.2-3B-Instruct",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|eot_id|>",
        stop_tokens: &["<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"],
        source: include_str!("../templates/llama3.2.jinja"),
    },
    Builtin {
        name: "mistral",
        model: "mistralai/Mistral-Nemo-Instruct-2407",
        bos_token: "<s>",
        eos_token: "</s>",
        stop_tokens: &["</s>"],
        source: include_str!("../templates/mistral.jinja"),
    },
    Builtin {
        name: "hermes2pro",
        model: "NousResearch/Hermes-2-Pro-Llama-3-8B (tool_use)",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|im_end|>",
        stop_tokens: &["<|im_end|>", "<|end_of_text|>"],
        source: include_str!("../templates/hermes2pro.jinja"),
    },
    Builtin {
        name: "deepseek-r1",
        model: "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        bos_token: "<｜begin▁of▁sentence｜>",
        eos_token: "<｜end▁of▁sentence｜>",
        stop_tokens: &["<｜end▁of▁sentence｜>"],
        source: include_str!("../templates/deepseek-r1.jinja"),
    },
    Builtin {
        name: "deepseek-v3",
        model: "deepseek-ai/DeepSeek-V3.1",
        bos_token: "<｜begin▁of▁sentence｜>",
        eos_token: "<｜end▁of▁sentence｜>",
        stop_tokens: &["<｜end▁of▁sentence｜>"],
        source: include_str!("../templates/deepseek-v3.jinja"),
    },
];

/// Why a template could not be used or rendered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TemplateError {
    /// No built-in template has that name.
    #[error("unknown template `{0}`; the built-in templates are {names}", names = builtin_names())]
    Unknown(String),
    /// The template's source is not valid Jinja (or is too long).
    #[error("the chat template does not compile: {0}")]
    Compile(String),
    /// The template itself refused the conversation (`raise_exception`).
    #[error("the chat template refused the conversation: {0}")]
    Raised(String),
    /// Rendering failed (an undefined function, a type error).
    #[error("the chat template failed: {0}")]
    Render(String),
    /// The model's turn end cannot be told: the rendered turn holds no known end-of-turn token.
    #[error("the chat template's end of turn is unknown: {0}")]
    NoTurnEnd(String),
    /// The template renders the earlier turns differently once tool results follow them, so no text appended
    /// after the model's output reproduces the whole conversation.
    #[error("the chat template is not incremental: {0}")]
    NotIncremental(String),
}

fn builtin_names() -> String {
    BUILTINS
        .iter()
        .map(|b| b.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// MiniJinja instructions one rendering may run: the built-in templates need a few thousand per conversation.
pub const FUEL: u64 = 5_000_000;

/// The longest rendering accepted: a conversation's prompt is far smaller; a template writing more is refused.
pub const MAX_RENDER_BYTES: usize = 16 << 20;

/// A `Write` that keeps up to [`MAX_RENDER_BYTES`] and then fails, stopping the render.
#[derive(Default)]
struct CappedWriter {
    bytes: Vec<u8>,
    over: bool,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_RENDER_BYTES {
            self.over = true;
            return Err(std::io::Error::other("the rendering is too long"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The longest template source accepted (the largest Hub templates are about 20 KB).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;

/// A compiled chat template and the special tokens it reads.
pub struct ChatTemplate {
    env: Environment<'static>,
    name: String,
    bos_token: String,
    eos_token: String,
    /// The model's end-of-turn tokens besides `eos_token` (a built-in's, from its generation config).
    stop_tokens: Vec<String>,
    /// Its source when a caller gave it (not built in): such a template renders in a worker process, or here on a
    /// thread of its own (see [`ChatTemplate::render`]).
    source: Option<String>,
}

/// The stack of a thread rendering a template given as source: room for the deepest values its fuel can build.
const UNTRUSTED_STACK_BYTES: usize = 1 << 30;

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// What a span of an observation is, for loss masks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartRole {
    /// The end of the model's own turn (`<|im_end|>\n`, `<|eom_id|>`) that its output lacked: the model should
    /// have written it, so trainers usually keep it in the loss.
    AssistantEnd,
    /// The tool turn(s): environment text, excluded from the loss.
    Tool,
    /// The opening of the next assistant turn (`<|im_start|>assistant\n`): template text, excluded from the loss.
    GenerationPrompt,
}

impl PartRole {
    /// The role named `name` in the protocol.
    pub fn from_name(name: &str) -> Option<PartRole> {
        [
            PartRole::AssistantEnd,
            PartRole::Tool,
            PartRole::GenerationPrompt,
        ]
        .into_iter()
        .find(|r| r.as_str() == name)
    }

    /// Its name in the protocol.
    pub fn as_str(self) -> &'static str {
        match self {
            PartRole::AssistantEnd => "assistant_end",
            PartRole::Tool => "tool",
            PartRole::GenerationPrompt => "generation_prompt",
        }
    }
}

/// One span of an observation.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// What it is.
    pub role: PartRole,
    /// Its text.
    pub text: String,
}

/// The text to append after the model's output, and its spans (their texts concatenated are `text`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Observation {
    /// The whole continuation.
    pub text: String,
    /// Its spans, in order; empty spans are left out.
    pub parts: Vec<Part>,
}

/// The conversation an observation continues.
#[derive(Debug, Clone, Copy)]
pub struct Turn<'a> {
    /// The messages before the assistant turn that made the calls.
    pub history: &'a [Value],
    /// That assistant message, with its `tool_calls` (arguments as objects).
    pub assistant: &'a Value,
    /// One `tool` message per call, in order.
    pub tool_messages: &'a [Value],
    /// The tools offered (OpenAI `tools` entries); the templates put them in the system prompt.
    pub tools: &'a [Value],
    /// The model's raw output, when the observation follows it (text mode): the observation then starts by
    /// closing the assistant turn the output left open. `None` when the assistant turn is complete as the
    /// template renders it (a `messages` request).
    pub model_output: Option<&'a str>,
    /// Extra template variables (`enable_thinking`, `date_string`, ...).
    pub kwargs: &'a Map<String, Value>,
}

impl ChatTemplate {
    /// The built-in template `name`, compiled once per process.
    pub fn builtin(name: &str) -> Result<Arc<ChatTemplate>, TemplateError> {
        static COMPILED: OnceLock<Mutex<HashMap<&'static str, Arc<ChatTemplate>>>> =
            OnceLock::new();
        let b = BUILTINS
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| TemplateError::Unknown(name.to_string()))?;
        let mut cache = COMPILED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(t) = cache.get(b.name) {
            return Ok(t.clone());
        }
        let t = Arc::new(ChatTemplate::compile(
            b.name,
            b.source,
            b.bos_token,
            b.eos_token,
            b.stop_tokens,
        )?);
        cache.insert(b.name, t.clone());
        Ok(t)
    }

    /// A template from its Jinja source (a model's `chat_template`), with the special tokens it reads; the
    /// last 32 compiled are kept, so a rollout sending the same source every turn compiles it once.
    pub fn from_source(
        source: &str,
        bos_token: &str,
        eos_token: &str,
    ) -> Result<Arc<ChatTemplate>, TemplateError> {
        type Cache = Mutex<Vec<((String, String, String), Arc<ChatTemplate>)>>;
        static RECENT: OnceLock<Cache> = OnceLock::new();
        if source.len() > MAX_SOURCE_BYTES {
            return Err(TemplateError::Compile(format!(
                "the source is {} bytes; the limit is {MAX_SOURCE_BYTES}",
                source.len()
            )));
        }
        let key = (
            source.to_string(),
            bos_token.to_string(),
            eos_token.to_string(),
        );
        let recent = RECENT.get_or_init(Default::default);
        {
            let mut r = recent.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = r.iter().position(|(k, _)| *k == key) {
                let hit = r.remove(i);
                let t = hit.1.clone();
                r.push(hit);
                return Ok(t);
            }
        }
        let t = Arc::new(ChatTemplate::compile(
            "chat_template",
            source,
            bos_token,
            eos_token,
            &[],
        )?);
        let mut r = recent.lock().unwrap_or_else(|p| p.into_inner());
        if r.len() >= 32 {
            r.remove(0);
        }
        r.push((key, t.clone()));
        Ok(t)
    }

    fn compile(
        name: &str,
        source: &str,
        bos_token: &str,
        eos_token: &str,
        stop_tokens: &[&str],
    ) -> Result<ChatTemplate, TemplateError> {
        let mut env = Environment::new();
        // What transformers' `_compile_jinja_template` sets on its Jinja2 environment.
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        env.add_function("strftime_now", strftime_now);
        // Rendering is bounded: a template is code from a model repository.
        env.set_fuel(Some(FUEL));
        env.set_recursion_limit(100);
        env.add_template_owned("chat", without_generation_tags(source))
            .map_err(|e| TemplateError::Compile(describe(&e)))?;
        Ok(ChatTemplate {
            env,
            name: name.to_string(),
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
            stop_tokens: stop_tokens.iter().map(|s| s.to_string()).collect(),
            source: (name == "chat_template").then(|| source.to_string()),
        })
    }

    /// The template's name (a built-in's, or `chat_template`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renders `messages` as `apply_chat_template(messages, tools=tools or None, add_generation_prompt=...,
    /// **kwargs)` does.
    pub fn render(
        &self,
        messages: &[Value],
        tools: &[Value],
        add_generation_prompt: bool,
        kwargs: &Map<String, Value>,
    ) -> Result<String, TemplateError> {
        if self.source.is_none() {
            return self.render_here(messages, tools, add_generation_prompt, kwargs);
        }
        // A template given as source can build values nested as deep as its fuel allows, and rendering and
        // dropping them recurses: it runs on a thread of its own with a stack that cannot overflow first (the
        // space is reserved, not used), so a hostile template fails alone instead of aborting the process.
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("chat-template".into())
                .stack_size(UNTRUSTED_STACK_BYTES)
                .spawn_scoped(scope, || {
                    self.render_here(messages, tools, add_generation_prompt, kwargs)
                })
                .map_err(|e| {
                    TemplateError::Render(format!("cannot start a rendering thread: {e}"))
                })?
                .join()
                .unwrap_or_else(|_| {
                    Err(TemplateError::Render("the template engine panicked".into()))
                })
        })
    }

    fn render_here(
        &self,
        messages: &[Value],
        tools: &[Value],
        add_generation_prompt: bool,
        kwargs: &Map<String, Value>,
    ) -> Result<String, TemplateError> {
        let t = self
            .env
            .get_template("chat")
            .map_err(|e| TemplateError::Render(describe(&e)))?;
        let mut ctx: Vec<(String, Mj)> = vec![
            ("bos_token".into(), Mj::from(self.bos_token.as_str())),
            ("eos_token".into(), Mj::from(self.eos_token.as_str())),
        ];
        // Caller kwargs come first, then the fixed variables override them, as in transformers.
        for (k, v) in kwargs {
            ctx.push((k.clone(), json::to_jinja(v)));
        }
        let messages: Vec<Mj> = messages.iter().map(reasoning_aliases).collect();
        ctx.push(("messages".into(), Mj::from(messages)));
        ctx.push((
            "tools".into(),
            if tools.is_empty() {
                Mj::from(())
            } else {
                Mj::from(tools.iter().map(json::to_jinja).collect::<Vec<_>>())
            },
        ));
        ctx.push((
            "add_generation_prompt".into(),
            Mj::from(add_generation_prompt),
        ));
        let ctx: Mj = ctx.into_iter().collect();
        let mut out = CappedWriter::default();
        let rendered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            t.render_captured_to(ctx, &mut out).map(|_| ())
        }))
        .map_err(|_| TemplateError::Render("the template engine panicked".into()))?;
        if out.over {
            return Err(TemplateError::Render(format!(
                "the rendering is over {MAX_RENDER_BYTES} bytes"
            )));
        }
        rendered
            .map(|()| String::from_utf8_lossy(&out.bytes).into_owned())
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidOperation
                    if e.detail().is_some_and(|d| d.starts_with(RAISED)) =>
                {
                    TemplateError::Raised(
                        e.detail()
                            .unwrap_or_default()
                            .trim_start_matches(RAISED)
                            .to_string(),
                    )
                }
                _ => TemplateError::Render(describe(&e)),
            })
    }

    /// The text to append after the assistant turn of `turn` so the whole reads as the template renders the
    /// conversation with the tool messages and the next assistant turn's opening: the end of the assistant
    /// turn (text mode only), the tool turn(s), the generation prompt.
    pub fn observation(&self, turn: &Turn<'_>) -> Result<Observation, TemplateError> {
        let assistant = null_content_as_empty(turn.assistant);
        let mut with_assistant = turn.history.to_vec();
        with_assistant.push(assistant);
        let mut whole = with_assistant.clone();
        whole.extend_from_slice(turn.tool_messages);
        let before = self.render(&with_assistant, turn.tools, false, turn.kwargs)?;
        let after = self.render(&whole, turn.tools, false, turn.kwargs)?;
        let prompted = self.render(&whole, turn.tools, true, turn.kwargs)?;
        let tool_start = assistant_turn_end(&before, &after)?;
        // Where the generation prompt starts: after `after`, unless the template ends a conversation that has
        // no generation prompt with something of its own (Phi-3 writes `eos_token` there), which the prompt
        // replaces.
        let prompt_start = if prompted.starts_with(&after) {
            after.len()
        } else {
            token_boundary(&after, common_prefix(&after, &prompted))
        };
        if prompt_start < tool_start {
            return Err(TemplateError::NotIncremental(
                "the generation prompt changes the tool turn before it".into(),
            ));
        }
        let tool = &after[tool_start..prompt_start];
        let prompt = &prompted[prompt_start..];
        let end = match turn.model_output {
            None => String::new(),
            Some(out) => {
                // The assistant turn as the full conversation renders it, from where the model's prompt ends
                // (DeepSeek R1's prompt ends in `<think>`, which the rendered history drops: the shared part).
                let opened = self.render(turn.history, turn.tools, true, turn.kwargs)?;
                let from = common_prefix(&opened, &after).min(tool_start);
                self.turn_end(&after[from..tool_start], out)?.to_string()
            }
        };
        let parts: Vec<Part> = [
            (PartRole::AssistantEnd, end),
            (PartRole::Tool, tool.to_string()),
            (PartRole::GenerationPrompt, prompt.to_string()),
        ]
        .into_iter()
        .filter(|(_, t)| !t.is_empty())
        .map(|(role, text)| Part { role, text })
        .collect();
        Ok(Observation {
            text: parts.iter().map(|p| p.text.as_str()).collect(),
            parts,
        })
    }

    /// What the template writes after the model's output to end its turn: the rendered assistant turn
    /// (`rendered`) from its last end-of-turn token (the template's `eos_token`, its model's stop tokens, or
    /// one of those common to chat models), less what of it the output already wrote (a kept `<|im_end|>`, a
    /// trailing newline). Text the model wrote after its calls does not change it: the turn ends as the
    /// template ends it.
    fn turn_end<'a>(&self, rendered: &'a str, output: &str) -> Result<&'a str, TemplateError> {
        let stop_at = self
            .stops()
            .filter_map(|s| rendered.rfind(s).map(|at| (at, s)))
            .max_by_key(|(at, s)| (*at, s.len()));
        let Some((at, _)) = stop_at else {
            return Err(TemplateError::NoTurnEnd(
                "the assistant turn holds none of the end-of-turn tokens known (give the template's own as `eos_token` in `template_kwargs`)".into(),
            ));
        };
        let mut end = &rendered[at..];
        let trimmed = output.trim_end();
        // A stop token the output kept is not written again; only a whole one counts.
        if let Some(kept) = self
            .stops()
            .filter(|s| end.starts_with(s) && trimmed.ends_with(s))
            .max_by_key(|s| s.len())
        {
            end = &end[kept.len()..];
        }
        let trailing = &output[trimmed.len()..];
        Ok(end.strip_prefix(trailing).unwrap_or(end))
    }

    /// The end-of-turn tokens looked for: the template's `eos_token` and its model's stop tokens, then those
    /// common to chat models.
    fn stops(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.eos_token.as_str())
            .chain(self.stop_tokens.iter().map(String::as_str))
            .chain(COMMON_STOPS.iter().copied())
            .filter(|s| !s.is_empty())
    }
}

/// End-of-turn tokens of common chat models, looked for when a template's own are not known.
const COMMON_STOPS: &[&str] = &[
    "<|im_end|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end|>",
    "<end_of_turn>",
    "</s>",
    "<｜end▁of▁sentence｜>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|return|>",
    "<|call|>",
];

/// An assistant message whose `content` is `null` (the OpenAI shape of a turn that only calls tools) with `""`
/// instead, as vLLM passes it to templates (Qwen3's template cannot test `null` for `</think>`).
fn null_content_as_empty(m: &Value) -> Value {
    let mut m = m.clone();
    if let Some(c) = m.get_mut("content") {
        if c.is_null() {
            *c = Value::String(String::new());
        }
    }
    m
}

/// Where the assistant turn ends in `after` (the conversation with the tool messages): right after `before`
/// (the conversation ending with the assistant turn) when the template renders incrementally. Otherwise the two
/// part somewhere: when what `before` has left is a short trailer the template writes after the last message
/// (Phi-3's `eos_token`), where they part; when the turn itself renders differently (Qwen3 shows an empty
/// `<think>` block only on the last message), after the longest tail of the turn found past that point, which
/// must be substantial (16 bytes, or the whole rest) to be trusted.
fn assistant_turn_end(before: &str, after: &str) -> Result<usize, TemplateError> {
    if after.starts_with(before) {
        return Ok(before.len());
    }
    let parted = token_boundary(before, common_prefix(before, after));
    let tail = &before[parted..];
    const TRAILER: usize = 16;
    if tail.len() <= TRAILER {
        return Ok(parted);
    }
    match longest_suffix(tail, |s| after[parted..].find(s).map(|i| i + parted)) {
        Some((at, len)) if len >= TRAILER => Ok(at + len),
        _ => Err(TemplateError::NotIncremental(format!(
            "with the tool results after it, the assistant turn renders differently (from byte {parted}) and its end cannot be found"
        ))),
    }
}

/// `at` moved back to the start of a special token it falls inside (`<|im_end|>`, `[INST]`, `<｜…｜>`), so a
/// difference that starts inside one splits before it.
fn token_boundary(text: &str, at: usize) -> usize {
    let head = &text[..at];
    let open = head.rfind(['<', '[']);
    let close = head.rfind(['>', ']']);
    match (open, close) {
        (Some(o), Some(c)) if o > c => o,
        (Some(o), None) => o,
        _ => at,
    }
}

/// The longest non-empty suffix of `text` that `find` locates, as (where `find` put it, its length). A suffix
/// found has every shorter suffix found too (it is part of it), so the longest is found by bisection over where
/// it starts: O(log n) searches.
fn longest_suffix(text: &str, find: impl Fn(&str) -> Option<usize>) -> Option<(usize, usize)> {
    if text.is_empty() {
        return None;
    }
    let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let found = |k: usize| find(&text[starts[k]..]);
    let (mut lo, mut hi) = (0, starts.len() - 1);
    found(hi)?;
    while lo < hi {
        let mid = (lo + hi) / 2;
        if found(mid).is_some() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    found(lo).map(|at| (at, text.len() - starts[lo]))
}

/// The length in bytes of the longest common prefix of `a` and `b`, at a char boundary of both (`é` and `è`
/// share their first byte; slicing between would panic).
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !(a.is_char_boundary(n) && b.is_char_boundary(n)) {
        n -= 1;
    }
    n
}

/// A message for the template, with `reasoning_content`, `thinking` and `reasoning` filled from whichever the
/// caller gave, as transformers does before rendering.
fn reasoning_aliases(m: &Value) -> Mj {
    const FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];
    let Value::Object(obj) = m else {
        return json::to_jinja(m);
    };
    let Some(r) = FIELDS
        .iter()
        .find_map(|f| obj.get(*f).filter(|v| !v.is_null()))
    else {
        return json::to_jinja(m);
    };
    let mut out = Map::new();
    out.insert("thinking".into(), r.clone());
    for (k, v) in obj {
        out.insert(k.clone(), v.clone());
    }
    out.insert("reasoning_content".into(), r.clone());
    json::to_jinja(&Value::Object(out))
}

const RAISED: &str = "raise_exception: ";

/// transformers' `{% generation %}…{% endgeneration %}` (it marks the assistant's tokens for a loss mask and
/// renders its body unchanged) as an `if` that is always true, whitespace control kept.
fn without_generation_tags(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("{%") {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        // Searched after `{%`, so `{%}` is not read as an opening and a closing at once.
        let Some(close) = tag[2..].find("%}").map(|i| i + 2) else {
            out.push_str(tag);
            return out;
        };
        let inner = &tag[2..close];
        let (lead, body) = inner.strip_prefix('-').map_or(("", inner), |b| ("-", b));
        let (body, trail) = body.strip_suffix('-').map_or((body, ""), |b| (b, "-"));
        match body.trim() {
            "generation" => out.push_str(&format!("{{%{lead} if true {trail}%}}")),
            "endgeneration" => out.push_str(&format!("{{%{lead} endif {trail}%}}")),
            _ => out.push_str(&tag[..close + 2]),
        }
        rest = &tag[close + 2..];
    }
    out.push_str(rest);
    out
}

/// transformers' `strftime_now(format)`: the current UTC time formatted (`%Y %m %d %H %M %S %y %b %B %a %A %j
/// %%`). Only the system prompt shows it (Llama's date line), which the observation leaves out.
fn strftime_now(format: String) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const DAYS: [&str; 7] = [
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
    ];
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let before_month = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
        [(month - 1) as usize]
        + i64::from(leap && month > 2);
    let mname = MONTHS[(month - 1) as usize];
    let dname = DAYS[days.rem_euclid(7) as usize];
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('Y') => out.push_str(&year.to_string()),
            Some('y') => out.push_str(&format!("{:02}", year.rem_euclid(100))),
            Some('m') => out.push_str(&format!("{month:02}")),
            Some('d') => out.push_str(&format!("{day:02}")),
            Some('H') => out.push_str(&format!("{:02}", rem / 3600)),
            Some('M') => out.push_str(&format!("{:02}", rem / 60 % 60)),
            Some('S') => out.push_str(&format!("{:02}", rem % 60)),
            Some('b') => out.push_str(&mname[..3]),
            Some('B') => out.push_str(mname),
            Some('a') => out.push_str(&dname[..3]),
            Some('A') => out.push_str(dname),
            Some('j') => out.push_str(&format!("{:03}", before_month + day)),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out
}

fn raise_exception(message: String) -> Result<Mj, minijinja::Error> {
    Err(minijinja::Error::new(
        ErrorKind::InvalidOperation,
        format!("{RAISED}{message}"),
    ))
}

/// transformers' `tojson`: `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
fn tojson(value: Mj, kwargs: Kwargs) -> Result<Mj, minijinja::Error> {
    let indent: Option<Mj> = kwargs.get("indent")?;
    let ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let separators: Option<Mj> = kwargs.get("separators")?;
    kwargs.assert_all_used()?;
    let indent = match indent {
        None => None,
        Some(i) if i.is_none() => None,
        Some(i) => Some(match i.as_str() {
            Some(s) => s.to_string(),
            None => " ".repeat(
                usize::try_from(i64::try_from(i.clone()).map_err(|_| {
                    minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        "indent must be an integer or a string",
                    )
                })?)
                .unwrap_or(0)
                .min(64),
            ),
        }),
    };
    let separators = match separators {
        None => None,
        Some(s) if s.is_none() => None,
        Some(s) => {
            let items: Vec<Mj> = s.try_iter()?.collect();
            match items.as_slice() {
                [a, b] => Some((
                    a.as_str().unwrap_or(",").to_string(),
                    b.as_str().unwrap_or(":").to_string(),
                )),
                _ => {
                    return Err(minijinja::Error::new(
                        ErrorKind::InvalidOperation,
                        "separators must be a pair of strings",
                    ))
                }
            }
        }
    };
    let v = json::from_jinja(&value)?;
    Ok(Mj::from(beaker_core::pyjson::dumps(
        &v,
        &beaker_core::pyjson::Dumps {
            indent,
            separators,
            ensure_ascii: ensure_ascii.unwrap_or(false),
            sort_keys: sort_keys.unwrap_or(false),
            numbers_as_held: false,
        },
    )))
}

/// An error with its cause chain and, where known, the template line.
fn describe(e: &minijinja::Error) -> String {
    let mut s = match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.kind().to_string(),
    };
    if let Some(line) = e.line() {
        s.push_str(&format!(" (line {line})"));
    }
    s
}

#[cfg(test)]
mod tests;

/// Chat templates given as source, rendered in a worker process (`beaker-worker`): MiniJinja's fuel counts
/// instructions, not bytes, so `{% set a = 'x' * 100000000 %}{{ ([a] * 30) | join }}` builds gigabytes in a few
/// instructions, and nothing in the engine can stop a rendering midway. A worker renders under an
/// address-space limit ([`worker::MEMORY`] above what it had at start) and is killed at its deadline.
pub mod worker {
    use super::{ChatTemplate, Observation, Part, PartRole, TemplateError, Turn};
    use serde_json::{json, Map, Value};

    /// The argument that makes Beaker's executable a template worker (`beaker __template-worker`).
    pub const WORKER_ARG: &str = "__template-worker";

    /// Address space a rendering may use beyond what the worker had mapped at start: far above what any real
    /// conversation needs (its output is at most [`super::MAX_RENDER_BYTES`]).
    pub const MEMORY: u64 = 1 << 30;

    /// How long one observation (its three or four renderings) may take in a worker before it is stopped.
    pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    impl ChatTemplate {
        /// For a template given as source, the request a worker answers with this turn's observation; `None`
        /// for a built-in template (trusted: rendered in-process).
        pub fn observation_request(&self, turn: &Turn<'_>) -> Option<Value> {
            let source = self.source.as_ref()?;
            Some(json!({
                "source": source,
                "bos_token": self.bos_token,
                "eos_token": self.eos_token,
                "history": turn.history,
                "assistant": turn.assistant,
                "tool_messages": turn.tool_messages,
                "tools": turn.tools,
                "model_output": turn.model_output,
                "kwargs": turn.kwargs,
            }))
        }
    }

    /// Answers one worker request (in the worker): compiles the source and renders the observation here, the
    /// process being the isolation. Returns what [`beaker_worker::serve`] writes back.
    pub fn answer(req: &Value) -> Result<Value, TemplateError> {
        let text = |k: &str| req[k].as_str().unwrap_or("");
        let list = |k: &str| req[k].as_array().cloned().unwrap_or_default();
        let mut t = ChatTemplate::compile(
            "chat_template",
            text("source"),
            text("bos_token"),
            text("eos_token"),
            &[],
        )?;
        // The worker process is the isolation: render here, on this thread.
        t.source = None;
        let (history, tool_messages, tools) =
            (list("history"), list("tool_messages"), list("tools"));
        let kwargs: Map<String, Value> = req["kwargs"].as_object().cloned().unwrap_or_default();
        let turn = Turn {
            history: &history,
            assistant: &req["assistant"],
            tool_messages: &tool_messages,
            tools: &tools,
            model_output: req["model_output"].as_str(),
            kwargs: &kwargs,
        };
        let o = t.observation(&turn)?;
        let parts: Vec<Value> = o
            .parts
            .iter()
            .map(|p| json!({"role": p.role.as_str(), "text": p.text}))
            .collect();
        Ok(json!({"text": o.text, "parts": parts}))
    }

    /// An observation a worker answered.
    pub fn observation_from(v: &Value) -> Result<Observation, TemplateError> {
        let bad = || {
            TemplateError::Render("the template worker answered an unreadable observation".into())
        };
        let text = v["text"].as_str().ok_or_else(bad)?.to_string();
        let parts = v["parts"]
            .as_array()
            .ok_or_else(bad)?
            .iter()
            .map(|p| {
                Some(Part {
                    role: PartRole::from_name(p["role"].as_str()?)?,
                    text: p["text"].as_str()?.to_string(),
                })
            })
            .collect::<Option<Vec<Part>>>()
            .ok_or_else(bad)?;
        Ok(Observation { text, parts })
    }
}
