//! Tool calls inside model-written text: find them, in batch or while tokens stream, and render results back.
//!
//! Models write calls in several dialects ([`Dialect`]): Svend tokens, tagged JSON, Hermes/Qwen tags,
//! markdown fences, OpenAI `tool_calls`, Mistral's `[TOOL_CALLS]` and DeepSeek's call tokens. [`parse`] reads a whole text into [`Item`]s (text, calls, bad
//! calls); [`StreamParser`] does the same chunk by chunk and reports a call as soon as its name is known.
//! [`render`] writes results (and calls) back in a dialect; [`catalog`] renders the tool list for a prompt.
//! The contract (what is a call, what is text, what a bad call becomes) is `docs/DIALECTS.md`.
//!
//! This crate never runs a tool, never performs IO, and never guesses silently: a call it cannot read is
//! reported as a [`BadCall`] with the reason, next to the good calls around it.
//!
//! ```
//! use beaker_dialects::{parse, Dialect, Item, ParseOptions};
//! let text = "Let me compute.\n<|tool_call|><|tool_name|>calculator<|tool_args|>{\"expression\": \"7 * 8\"}<|/tool_call|>";
//! let parsed = parse(text, &ParseOptions::default());
//! assert_eq!(parsed.dialect, Some(Dialect::Svend));
//! let Item::Call(call) = &parsed.items[1] else { panic!() };
//! assert_eq!((call.tool.as_str(), &call.params), ("calculator", &serde_json::json!({"expression": "7 * 8"})));
//! ```
#![deny(missing_docs)]

pub mod catalog;
mod extract;
mod lenient;
pub mod render;
mod scan;
mod stream;

pub use extract::openai_calls;
pub use stream::StreamParser;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::ops::Range;

/// A way of writing tool calls in text (and results back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// Seed 003: `<|tool_call|><|tool_name|>NAME<|tool_args|>{…}<|/tool_call|>`.
    Svend,
    /// Seed 001: `<tool_call>{"tool": NAME, "params": {…}}</tool_call>`.
    Tagged,
    /// Hermes/Qwen: `<tool_call>{"name": NAME, "arguments": {…}}</tool_call>`.
    Hermes,
    /// Seed 002: a ```` ```json ```` block (or a whole reply) holding `{"tool": …, "params": …}`.
    Fenced,
    /// Seed 004: an assistant message's `tool_calls`, answered by `tool` messages.
    Openai,
    /// Mistral: `[TOOL_CALLS][{"name": NAME, "arguments": {…}, "id": …}]` (v3 tokenizers) or
    /// `[TOOL_CALLS]NAME[ARGS]{…}` (v11); results as `[TOOL_RESULTS]…[/TOOL_RESULTS]`.
    Mistral,
    /// DeepSeek V3 and R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>[function<｜tool▁sep｜>]NAME…{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>`;
    /// results as `<｜tool▁output▁begin｜>…<｜tool▁output▁end｜>`.
    Deepseek,
}

impl Dialect {
    /// Every dialect, in documentation order.
    pub const ALL: [Dialect; 7] = [
        Dialect::Svend,
        Dialect::Tagged,
        Dialect::Hermes,
        Dialect::Fenced,
        Dialect::Openai,
        Dialect::Mistral,
        Dialect::Deepseek,
    ];

    /// The dialect's name as written in requests (`"svend"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Svend => "svend",
            Dialect::Tagged => "tagged",
            Dialect::Hermes => "hermes",
            Dialect::Fenced => "fenced",
            Dialect::Openai => "openai",
            Dialect::Mistral => "mistral",
            Dialect::Deepseek => "deepseek",
        }
    }

    /// The dialect named `s`, or `None` (`"auto"` is not a dialect: it is the absence of one).
    pub fn from_name(s: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.as_str() == s)
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How to read a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseOptions {
    /// Only this dialect's markers (`None`: auto, every marker).
    pub dialect: Option<Dialect>,
    /// Repair trailing commas, single quotes, unquoted keys and Python literals (marking the call repaired).
    pub lenient: bool,
    /// Longest call body read before the call is declared malformed, in bytes: bounds what streaming holds back.
    pub max_call_bytes: usize,
    /// Most calls (good or bad) read from one text; after that, markers are plain text and the parse is
    /// marked `capped`. Bounds the work and the answer a degenerate, repeating generation can cause.
    pub max_calls: usize,
    /// Read calls inside `<think>…</think>` blocks too. Off by default: a reasoning model drafts and rejects
    /// calls while it thinks, and only what it writes after the block is meant to run.
    pub include_think: bool,
}

/// Default `max_call_bytes`: the same as `beaker serve`'s request-line cap, so any call a client could send
/// as JSON it can also send as text.
pub const DEFAULT_MAX_CALL_BYTES: usize = 16 << 20;

/// Default `max_calls`: far above the parallel calls one turn makes (a handful), far below what a
/// looping generation emits (a 12 MB text of `<tool_call>{` holds a million).
pub const DEFAULT_MAX_CALLS: usize = 64;

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            dialect: None,
            lenient: false,
            max_call_bytes: DEFAULT_MAX_CALL_BYTES,
            max_calls: DEFAULT_MAX_CALLS,
            include_think: false,
        }
    }
}

/// One tool call found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Position among the text's calls and bad calls, from 0.
    pub index: usize,
    /// The dialect the call was written in.
    pub dialect: Dialect,
    /// The tool's name.
    pub tool: String,
    /// The tool's params (always an object).
    pub params: Value,
    /// The call's own id (`tool_call_id` in OpenAI, an `"id"` key elsewhere), if it had one.
    pub id: Option<String>,
    /// Whether lenient mode had to repair the JSON.
    pub repaired: bool,
    /// Byte range of the call in the text (start marker through close marker).
    pub span: Range<usize>,
}

/// Why a call could not be run.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// The call started but is not valid: the reason, written for the model.
    Malformed(String),
    /// The text ended inside the call (a generation cut off).
    Incomplete,
    /// The old seed-001 form `<|tool_call|>NAME(ARGS)<|tool_end|>`, with its arguments read.
    Deprecated {
        /// Positional arguments, in order.
        args: Vec<Value>,
        /// `key=value` arguments.
        kwargs: Map<String, Value>,
    },
}

/// A call that was found but cannot be run.
#[derive(Debug, Clone, PartialEq)]
pub struct BadCall {
    /// Position among the text's calls and bad calls, from 0.
    pub index: usize,
    /// The dialect the call seems to be written in.
    pub dialect: Dialect,
    /// The tool's name, when it could be read.
    pub tool: Option<String>,
    /// The call's own id (OpenAI `tool_call_id`), when it could be read: its answer must carry it.
    pub id: Option<String>,
    /// What is wrong with it.
    pub problem: Problem,
    /// Byte range of the bad call in the text.
    pub span: Range<usize>,
}

impl BadCall {
    /// The error message for the model (a deprecated call's message lacks the suggestion: see
    /// [`render::deprecated_suggestion`]).
    pub fn message(&self) -> String {
        match &self.problem {
            Problem::Malformed(reason) => format!("malformed tool call: {reason}"),
            Problem::Incomplete => "incomplete tool call: the text ended inside the call".into(),
            Problem::Deprecated { .. } => format!(
                "deprecated tool-call format `{}(...)`",
                self.tool.as_deref().unwrap_or("")
            ),
        }
    }
}

/// What the streaming parser reports, in text order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Plain text (may come in several pieces; adjacent pieces belong together).
    Text(String),
    /// A call's name is known (it is not complete yet): a server may stop generating here.
    CallStarted {
        /// The call's index (its `Call` or `BadCall` follows with the same index).
        index: usize,
        /// The tool's name.
        tool: String,
    },
    /// A complete call.
    Call(Call),
    /// A call that cannot be run.
    Bad(BadCall),
}

/// A piece of a parsed text.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Plain text between calls.
    Text(String),
    /// A call to run.
    Call(Call),
    /// A call that cannot be run.
    Bad(BadCall),
}

/// A whole text, parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    /// The text's dialect: the explicit one, else that of its first call (good or bad), else `None`.
    pub dialect: Option<Dialect>,
    /// Text, calls and bad calls in text order; adjacent text is merged.
    pub items: Vec<Item>,
    /// Whether `max_calls` was reached and a start marker after it was left as text.
    pub capped: bool,
}

impl Parsed {
    /// The calls to run, in order.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.items.iter().filter_map(|i| match i {
            Item::Call(c) => Some(c),
            _ => None,
        })
    }

    /// Builds a parse from stream events: drops `CallStarted`, merges text, detects the dialect.
    pub fn from_events(
        events: impl IntoIterator<Item = Event>,
        explicit: Option<Dialect>,
    ) -> Parsed {
        let mut items: Vec<Item> = Vec::new();
        for e in events {
            match e {
                Event::Text(t) => match items.last_mut() {
                    Some(Item::Text(prev)) => prev.push_str(&t),
                    _ if t.is_empty() => {}
                    _ => items.push(Item::Text(t)),
                },
                Event::CallStarted { .. } => {}
                Event::Call(c) => items.push(Item::Call(c)),
                Event::Bad(b) => items.push(Item::Bad(b)),
            }
        }
        // The first good call decides: a broken first call may have been read before its shape was known.
        let detected = items
            .iter()
            .find_map(|i| match i {
                Item::Call(c) => Some(c.dialect),
                _ => None,
            })
            .or_else(|| {
                items.iter().find_map(|i| match i {
                    Item::Bad(b) => Some(b.dialect),
                    _ => None,
                })
            });
        Parsed {
            dialect: explicit.or(detected),
            items,
            capped: false,
        }
    }
}

/// Events with adjacent text merged and empty text dropped: how a stream's events compare with another
/// chunking's (chunks may split text anywhere).
pub fn merge_text(events: impl IntoIterator<Item = Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (_, Event::Text(t)) if t.is_empty() => {}
            (Some(Event::Text(prev)), Event::Text(t)) => prev.push_str(&t),
            (_, e) => out.push(e),
        }
    }
    out
}

/// The events of streaming `text` in chunks of `chunk` bytes (each cut moved forward to a character
/// boundary), text merged: what a server feeding tokens would see, for tests and benches.
pub fn stream_events(text: &str, chunk: usize, options: &ParseOptions) -> Vec<Event> {
    let mut p = StreamParser::new(options.clone());
    let mut events = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let mut j = i.saturating_add(chunk.max(1)).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        events.extend(p.push(&text[i..j]));
        i = j;
    }
    events.extend(p.finish());
    merge_text(events)
}

/// Parses a whole text: the streaming parser fed in one chunk, so batch and streaming cannot disagree.
pub fn parse(text: &str, options: &ParseOptions) -> Parsed {
    let mut p = StreamParser::new(options.clone());
    let mut events = p.push(text);
    events.extend(p.finish_in_place());
    let mut parsed = Parsed::from_events(events, options.dialect);
    parsed.capped = p.capped();
    parsed
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
