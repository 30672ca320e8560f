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
    source: &'static str,
}

/// Every built-in template.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "qwen2.5",
        model: "Qwen/Qwen2.5-7B-Instruct",
        bos_token: "",
        eos_token: "<|im_end|>",
        source: include_str!("../templates/qwen2.5.jinja"),
    },
    Builtin {
        name: "qwen3",
        model: "Qwen/Qwen3-0.6B",
        bos_token: "",
        eos_token: "<|im_end|>",
        source: include_str!("../templates/qwen3.jinja"),
    },
    Builtin {
        name: "llama3.1",
        model: "meta-llama/Llama-3.1-8B-Instruct",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|eot_id|>",
        source: include_str!("../templates/llama3.1.jinja"),
    },
    Builtin {
        name: "llama3.2",
        model: "meta-llama/Llama-3.2-3B-Instruct",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|eot_id|>",
        source: include_str!("../templates/llama3.2.jinja"),
    },
    Builtin {
        name: "mistral",
        model: "mistralai/Mistral-Nemo-Instruct-2407",
        bos_token: "<s>",
        eos_token: "</s>",
        source: include_str!("../templates/mistral.jinja"),
    },
    Builtin {
        name: "hermes2pro",
        model: "NousResearch/Hermes-2-Pro-Llama-3-8B (tool_use)",
        bos_token: "<|begin_of_text|>",
        eos_token: "<|im_end|>",
        source: include_str!("../templates/hermes2pro.jinja"),
    },
    Builtin {
        name: "deepseek-r1",
        model: "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        bos_token: "<｜begin▁of▁sentence｜>",
        eos_token: "<｜end▁of▁sentence｜>",
        source: include_str!("../templates/deepseek-r1.jinja"),
    },
    Builtin {
        name: "deepseek-v3",
        model: "deepseek-ai/DeepSeek-V3.1",
        bos_token: "<｜begin▁of▁sentence｜>",
        eos_token: "<｜end▁of▁sentence｜>",
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

/// The longest template source accepted (the largest Hub templates are about 20 KB).
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;

/// A compiled chat template and the special tokens it reads.
pub struct ChatTemplate {
    env: Environment<'static>,
    name: String,
    bos_token: String,
    eos_token: String,
}

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
    ) -> Result<ChatTemplate, TemplateError> {
        let mut env = Environment::new();
        // What transformers' `_compile_jinja_template` sets on its Jinja2 environment.
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", tojson);
        env.add_function("raise_exception", raise_exception);
        // Rendering is bounded: a template is code from a model repository.
        env.set_fuel(Some(50_000_000));
        env.set_recursion_limit(100);
        env.add_template_owned("chat", source.to_string())
            .map_err(|e| TemplateError::Compile(describe(&e)))?;
        Ok(ChatTemplate {
            env,
            name: name.to_string(),
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
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
        t.render(ctx).map_err(|e| match e.kind() {
            ErrorKind::InvalidOperation if e.detail().is_some_and(|d| d.starts_with(RAISED)) => {
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
        let mut with_assistant = turn.history.to_vec();
        with_assistant.push(turn.assistant.clone());
        let mut whole = with_assistant.clone();
        whole.extend_from_slice(turn.tool_messages);
        let before = self.render(&with_assistant, turn.tools, false, turn.kwargs)?;
        let after = self.render(&whole, turn.tools, false, turn.kwargs)?;
        let prompted = self.render(&whole, turn.tools, true, turn.kwargs)?;
        // Where the assistant turn ends once the tool messages follow it: right after `before` when the template
        // renders incrementally; otherwise (Qwen3 drops an empty `<think>` block from a turn that is no longer
        // the last) after the longest tail of the rendered turn found past the point where the two part.
        let tool_start = if after.starts_with(&before) {
            before.len()
        } else {
            let parted = common_prefix(&before, &after);
            let tail = &before[parted..];
            longest_suffix(tail, |s| after[parted..].find(s).map(|i| i + parted))
                .map(|(at, len)| at + len)
                .ok_or_else(|| {
                    TemplateError::NotIncremental(format!(
                        "with the tool results after it, the assistant turn renders differently (from byte {parted}) and its end cannot be found"
                    ))
                })?
        };
        let tool = &after[tool_start..];
        let prompt = prompted.strip_prefix(&after).ok_or_else(|| {
            TemplateError::NotIncremental("the generation prompt changes the text before it".into())
        })?;
        let end = match turn.model_output {
            None => String::new(),
            Some(out) => {
                let opened = self.render(turn.history, turn.tools, true, turn.kwargs)?;
                let assistant_turn = before.strip_prefix(&opened).unwrap_or(&before);
                turn_end(assistant_turn, out).to_string()
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
}

/// What the template writes after the model's output to end its turn: the rendered assistant turn
/// (`rendered`) after the longest end of `output` found in it. When the output is what the template renders
/// (the usual case), that is its stop token and what follows (`<|im_end|>\n`); when the output already carries
/// the stop token, only what follows it; when the output strayed from the template's format, whatever follows
/// its last recognisable piece.
fn turn_end<'a>(rendered: &'a str, output: &str) -> &'a str {
    // Matched without the output's trailing whitespace: a tail such as `tool_call>\n` would also match the
    // opening tag. What the output already wrote of that whitespace is then not written again.
    let trimmed = output.trim_end();
    let trailing = &output[trimmed.len()..];
    match longest_suffix(trimmed, |s| rendered.rfind(s)) {
        Some((at, len)) => {
            let end = &rendered[at + len..];
            end.strip_prefix(trailing).unwrap_or(end)
        }
        None => "",
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

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
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
                .unwrap_or(0),
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
    Ok(Mj::from(json::dumps(
        &v,
        &json::Dumps {
            indent,
            separators,
            ensure_ascii: ensure_ascii.unwrap_or(false),
            sort_keys: sort_keys.unwrap_or(false),
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
