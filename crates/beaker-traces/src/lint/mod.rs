//! `beaker lint`: the rules of seeds 001, 003 and 004, checked while a file streams past.

mod conversation;
pub(crate) mod qa;
mod svend;

use crate::records::Record;
use crate::{Diagnostic, Kind, Registry};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::Path;

/// Every rule: its name (what `--disable` takes and diagnostics print) and what it checks.
pub const RULES: &[(&str, &str)] = &[
    ("trace/read", "the file can be read"),
    ("trace/utf8", "every line is valid UTF-8"),
    ("trace/too-long", "no record (example, JSONL line) is longer than 64 MiB"),
    ("tool/unknown", "every call names a tool of the catalog or of a `--tools` registry"),
    ("tool/params", "every call's params satisfy its tool's schema"),
    ("qa/header", "a Q:/A: file starts with its `\"\"\"` docstring header (seed 001, File Headers)"),
    ("qa/role", "turns are `Q:`/`A:`, never `User:`/`Assistant:`/`Human:`/`AI:`"),
    ("qa/turn", "every `Q:` is answered by one `A:`, and no `A:` comes without a `Q:`"),
    ("qa/deprecated", "no `<|tool_call|>NAME(...)<|tool_end|>` calls or `<|tool_result|>…<|tool_result_end|>` results"),
    ("qa/call", "a `<tool_call>` holds one JSON object with a string `tool` and an object `params`"),
    ("qa/unclosed", "every `<tool_call>`/`<tool_result>` is closed before the next marker"),
    ("qa/stray-close", "no `</tool_call>`/`</tool_result>` without its opening tag"),
    ("qa/missing-result", "every call is followed by its `<tool_result>`"),
    ("qa/orphan-result", "every `<tool_result>` answers a call"),
    ("qa/result", "a result is a JSON object with a boolean `success`, `result` on success, `error` on failure"),
    ("qa/result-tool", "a result's `tool`, when given, is the tool of the call it answers"),
    ("qa/acknowledge", "the answer says something before its first call (seed 001, Best Practices 1)"),
    ("qa/explain", "the answer explains the last result after it (seed 001, Best Practices 1)"),
    ("svend/block", "`<|think|>`, `<|answer|>`, `<|tool_call|>`, `<|tool_result|>` (and the meta-cognitive blocks) are closed, and closed in order"),
    ("svend/nesting", "no block opens inside another block"),
    ("svend/order", "one `<|answer|>`, last: no thinking or calls after it"),
    ("svend/call", "a call is `<|tool_name|>NAME<|tool_args|>{JSON object}` between its tokens"),
    ("svend/routing", "a `<|tool:NAME|>` routing token names a known tool and the call that follows it"),
    ("svend/missing-result", "every call is followed by its `<|tool_result|>` block"),
    ("svend/orphan-result", "every `<|tool_result|>` block answers a call"),
    ("svend/token", "every `<|…|>` token is one of the special tokens of seed 003"),
    ("svend/answer", "every example ends with its `<|answer|>` (seed 003's trace format: analysis, calls, interpretation, final answer)"),
    ("conv/json", "every line is one JSON object"),
    ("conv/shape", "a conversation has a string `conversation_id` and a `messages` array"),
    ("conv/duplicate-id", "conversation ids are unique in a file"),
    ("conv/metadata", "`metadata` has `intents` (strings), `decision_category` and `difficulty` from their sets, the category matching the number of intents"),
    ("msg/role", "every message is an object whose `role` is system, user, assistant or tool"),
    ("msg/content", "system and user messages have string `content`; content, when present, is a string"),
    ("msg/fields", "only assistant messages carry `reasoning`, `tool_plan` or `tool_calls`"),
    ("assistant/reasoning", "every assistant turn has `reasoning` with a known `stage`, `focus_intents` and a `summary`"),
    ("assistant/focus-intents", "`focus_intents` ⊆ `metadata.intents`"),
    ("assistant/tool-plan", "every assistant turn has a `tool_plan` with a `strategy` and well-formed `steps`"),
    ("plan/stage", "the steps' phases align with `reasoning.stage`: one step is in the turn's stage, none in an earlier one"),
    ("plan/intents", "a step's `intent_ids` ⊆ `metadata.intents`"),
    ("plan/step-id", "step ids are unique within a plan"),
    ("plan/keys", "steps use only the keys plans know (`step_id`, `tool`, `task`, `intent_ids`, `phase`, `slots_used`, `order`, `parallel_group`, `depends_on`, `params`, `arguments`, `limits`)"),
    ("plan/depends-on", "`depends_on` names steps of the same plan, each once"),
    ("plan/cycle", "`depends_on` has no cycle"),
    ("plan/order", "a step's `order` is greater than the order of every step it depends on"),
    ("calls/shape", "a `tool_calls` entry has an `id`, `type` \"function\", `function.name` and `function.arguments` as a JSON string of an object"),
    ("calls/duplicate-id", "tool call ids are unique in a conversation"),
    ("calls/unanswered", "every tool call is answered by a later `tool` message with its `tool_call_id`"),
    ("calls/orphan", "every `tool` message answers an earlier, unanswered tool call"),
];

/// A rule name that is not in [`RULES`].
#[derive(Debug, thiserror::Error)]
#[error("no lint rule `{0}` (see `beaker lint --list-rules`)")]
pub struct UnknownRule(pub String);

/// What to check and against which tools.
#[derive(Debug)]
pub struct Linter {
    registry: Registry,
    disabled: BTreeSet<&'static str>,
    kind: Option<Kind>,
}

/// What linting one file found.
#[derive(Debug, Default)]
pub struct FileReport {
    /// The problems, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Lines read.
    pub lines: usize,
    /// The file's kind (as detected or forced).
    pub kind: Option<Kind>,
}

impl Linter {
    /// A linter checking calls against `registry`, every rule on, the kind of each file detected.
    pub fn new(registry: Registry) -> Linter {
        Linter {
            registry,
            disabled: BTreeSet::new(),
            kind: None,
        }
    }

    /// Switches a rule off (or a family: `qa/` or `qa` switches off every `qa/…` rule).
    pub fn disable(&mut self, rule: &str) -> Result<(), UnknownRule> {
        let family = rule.trim_end_matches('/');
        let mut any = false;
        for (name, _) in RULES {
            if *name == rule || name.split('/').next() == Some(family) {
                self.disabled.insert(name);
                any = true;
            }
        }
        if any {
            Ok(())
        } else {
            Err(UnknownRule(rule.into()))
        }
    }

    /// Reads every file as this kind instead of detecting it.
    pub fn force_kind(&mut self, kind: Kind) {
        self.kind = Some(kind);
    }

    /// The registry calls are checked against.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Lints the file at `path`.
    pub fn lint_path(&self, path: &Path) -> FileReport {
        let shown = path.display().to_string();
        match std::fs::File::open(path) {
            Ok(f) => self.lint_reader(&shown, path, std::io::BufReader::with_capacity(1 << 16, f)),
            Err(e) => FileReport {
                diagnostics: vec![Diagnostic {
                    path: shown,
                    line: 1,
                    col: 1,
                    rule: "trace/read",
                    message: format!("cannot open: {e}"),
                }],
                ..FileReport::default()
            },
        }
    }

    /// Lints what `reader` holds, reporting it as `shown` (its kind detected from `path` and its first bytes).
    pub fn lint_reader(&self, shown: &str, path: &Path, mut reader: impl BufRead) -> FileReport {
        let kind = match self.kind {
            Some(k) => k,
            None => {
                let head = reader.fill_buf().map(|b| b.to_vec()).unwrap_or_default();
                Kind::detect(path, &head)
            }
        };
        let mut cx = Cx {
            path: shown,
            linter: self,
            out: Vec::new(),
        };
        let lines = match kind {
            Kind::Qa => qa::lint(&mut cx, reader),
            Kind::Svend => svend::lint(&mut cx, reader),
            Kind::Conversation => conversation::lint(&mut cx, reader),
        };
        let lines = match lines {
            Ok(n) => n,
            Err((n, e)) => {
                cx.at(n.max(1), 1, "trace/read", format!("read error: {e}"));
                n
            }
        };
        // Some rules report when an example or line ends (a call never answered): file order for the reader.
        cx.out.sort_by_key(|d| (d.line, d.col));
        FileReport {
            diagnostics: cx.out,
            lines,
            kind: Some(kind),
        }
    }
}

/// Where a lint of one file reports.
pub(crate) struct Cx<'a> {
    path: &'a str,
    linter: &'a Linter,
    out: Vec<Diagnostic>,
}

/// Most diagnostics kept per file: a generated file broken on every line still gets a bounded report.
const MAX_DIAGNOSTICS: usize = 100_000;

impl Cx<'_> {
    /// Reports at a line and column.
    fn at(&mut self, line: usize, col: usize, rule: &'static str, message: String) {
        debug_assert!(RULES.iter().any(|(r, _)| *r == rule), "{rule}");
        if self.linter.disabled.contains(rule) || self.out.len() >= MAX_DIAGNOSTICS {
            return;
        }
        self.out.push(Diagnostic {
            path: self.path.to_string(),
            line,
            col,
            rule,
            message,
        });
    }

    /// Reports at byte `at` of a record.
    fn rec(&mut self, rec: &Record, at: usize, rule: &'static str, message: String) {
        let (line, col) = rec.pos(at);
        self.at(line, col, rule, message);
    }

    /// The record-level problems every text record can have.
    fn record_basics(&mut self, rec: &Record) {
        for &line in &rec.bad_utf8 {
            self.at(line, 1, "trace/utf8", "the line is not valid UTF-8".into());
        }
        if rec.too_long {
            self.at(
                rec.first_line,
                1,
                "trace/too-long",
                "the record is longer than 64 MiB; the rest of it was skipped".into(),
            );
        }
    }

    /// Checks a call's tool and params against the registry; `at` reports where.
    fn tool_call(&mut self, tool: &str, params: &Value) -> Option<(&'static str, String)> {
        if !self.linter.registry.knows(tool) {
            return Some((
                "tool/unknown",
                format!("unknown tool `{tool}` (give its registry with --tools FILE)"),
            ));
        }
        self.linter
            .registry
            .check(tool, params)
            .err()
            .map(|m| ("tool/params", format!("`{tool}`: {m}")))
    }
}

/// Seed 001's deprecated turn prefixes and what replaces them.
pub(crate) fn qa_roles() -> &'static [(&'static str, &'static str)] {
    &qa::ROLES
}

/// The lines that start an example of a Q:/A: file.
pub(crate) fn qa_starters() -> &'static [&'static str] {
    qa::STARTERS
}

/// The lines that start an example of a Svend trace.
pub(crate) fn svend_starters() -> &'static [&'static str] {
    svend::STARTERS
}

/// A Svend call's tool and params, from between its tokens.
pub(crate) fn svend_call(body: &str) -> Result<(String, Value), String> {
    svend::read_call(body)
}

#[cfg(test)]
mod tests;
