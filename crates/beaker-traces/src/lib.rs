//! Training traces: check them ([`lint`]), bring old formats up to date ([`migrate`]) and re-run their
//! recorded tool calls to catch invented results ([`verify`]).
//!
//! Three kinds of file ([`Kind`]):
//! - **Q:/A: text** (seed 001): `Q:`/`A:` turns with `<tool_call>{"tool", "params"}</tool_call>` calls, each
//!   answered by a `<tool_result>{"success", "result" | "error"}</tool_result>`, under a `"""` header.
//! - **Svend traces** (seed 003): `<|think|>`, `<|answer|>` and `<|tool_call|><|tool_name|>NAME<|tool_args|>{…}
//!   <|/tool_call|>` tokens, results in `<|tool_result|>…<|/tool_result|>`, per-tool routing tokens.
//! - **Conversation JSONL** (seed 004): one OpenAI-style conversation per line, with `reasoning`,
//!   `tool_plan` and `tool_calls` on assistant turns.
//!
//! Every reader streams: a text file is read one record (a `Q:`/`User:` example) at a time, a JSONL file one
//! line at a time, so a file's size never decides the memory used. The rules are listed in [`lint::RULES`]
//! and documented in `docs/TRACES.md`.
#![deny(missing_docs)]

pub mod compare;
pub mod lint;
mod markers;
pub mod migrate;
mod records;
mod registry;
pub mod verify;

pub use registry::{Registry, RegistryError};

use serde::Serialize;
use std::path::Path;

/// What a trace file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Seed 001: `Q:`/`A:` turns with `<tool_call>`/`<tool_result>` tags.
    Qa,
    /// Seed 003: Svend tokens (`<|think|>`, `<|tool_call|>`, `<|answer|>`).
    Svend,
    /// Seed 004: one conversation (OpenAI messages) per line.
    Conversation,
}

impl Kind {
    /// The kind's name as flags and reports write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Qa => "qa",
            Kind::Svend => "svend",
            Kind::Conversation => "conversation",
        }
    }

    /// The kind named `s` (`qa`, `svend`, `conversation`).
    pub fn from_name(s: &str) -> Option<Kind> {
        [Kind::Qa, Kind::Svend, Kind::Conversation]
            .into_iter()
            .find(|k| k.as_str() == s)
    }

    /// The kind of a file, from its name and its first bytes: `.jsonl`/`.json` (or a first `{`) is a
    /// conversation file; text with Svend-only tokens (`<|think|>`, `<|answer|>`, `<|tool_name|>`,
    /// `<|/tool_call|>`) is a Svend trace; other text is Q:/A:.
    pub fn detect(path: &Path, head: &[u8]) -> Kind {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let head = head
            .strip_prefix(b"\xef\xbb\xbf".as_slice())
            .unwrap_or(head);
        let first = head.iter().find(|b| !b.is_ascii_whitespace());
        if ext == "jsonl" || ext == "json" || first == Some(&b'{') {
            return Kind::Conversation;
        }
        const SVEND: [&[u8]; 4] = [
            b"<|think|>",
            b"<|answer|>",
            b"<|tool_name|>",
            b"<|/tool_call|>",
        ];
        if SVEND
            .iter()
            .any(|m| memchr::memmem::find(head, m).is_some())
        {
            Kind::Svend
        } else {
            Kind::Qa
        }
    }
}

/// One problem found in a trace, at a place in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// The file, as given.
    pub path: String,
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
    /// The rule broken (`qa/role`), one of [`lint::RULES`].
    pub rule: &'static str,
    /// What is wrong, and what to write instead when that is known.
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}: {}",
            self.path, self.line, self.col, self.rule, self.message
        )
    }
}

/// The longest record (one example of a text trace, or one JSONL line) read; a longer one is reported
/// (`trace/too-long`) and skipped, so a file without line breaks cannot take the memory.
pub const MAX_RECORD_BYTES: usize = 64 << 20;
