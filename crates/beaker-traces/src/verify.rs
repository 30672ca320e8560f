//! `beaker verify`: re-runs every recorded call of a tool Beaker runs and compares the recorded result with
//! the real one ([`crate::compare`]); with `fix`, writes a copy whose mismatched results are replaced by
//! what Beaker renders for that call in the trace's own format.

use crate::compare::{compare, Mismatch, Tolerance};
use crate::lint::{qa_starters, svend_starters};
use crate::markers::{markers, Marker};
use crate::records::{read_line_capped, Records};
use crate::{Diagnostic, Kind, Registry, MAX_RECORD_BYTES};
use beaker_core::{Envelope, ToolCall};
use beaker_dialects::{render, Dialect};
use beaker_engine::Engine;
use serde_json::Value;
use std::io::{BufRead, Write};

/// Re-runs recorded calls on an engine.
pub struct Verifier<'a> {
    engine: &'a Engine,
    registry: &'a Registry,
    tolerance: Tolerance,
}

/// What verifying one file found.
#[derive(Debug, Default)]
pub struct Verification {
    /// Mismatches (`verify/mismatch`), calls that fail where the trace says they succeeded
    /// (`verify/failed`) and the reverse (`verify/succeeded`).
    pub diagnostics: Vec<Diagnostic>,
    /// Recorded calls re-run.
    pub checked: usize,
    /// Of those, the ones whose recorded result is what the tool gives.
    pub matched: usize,
    /// Recorded calls of tools Beaker does not run (not re-run).
    pub skipped: usize,
}

/// One recorded call and its recorded result.
struct Recorded {
    tool: String,
    params: Value,
    /// The recorded result as the trace wrote it (JSON when it parses, else a string).
    result: Value,
    /// Where the result is (line, column) for the report.
    pos: (usize, usize),
    /// Where in the line, for a JSONL trace (`messages[4] (tool_call_id c1)`).
    at: Option<String>,
}

impl<'a> Verifier<'a> {
    /// A verifier running calls on `engine`; `registry` says which tools it runs.
    pub fn new(engine: &'a Engine, registry: &'a Registry, tolerance: Tolerance) -> Self {
        Verifier {
            engine,
            registry,
            tolerance,
        }
    }

    /// Verifies a trace of `kind` read from `reader` (reported as `shown`). With `fix`, the corrected trace
    /// is written there (every record, fixed or not).
    pub fn verify(
        &self,
        shown: &str,
        kind: Kind,
        reader: impl BufRead,
        mut fix: Option<&mut dyn Write>,
    ) -> std::io::Result<Verification> {
        let mut v = Verification::default();
        match kind {
            Kind::Qa | Kind::Svend => self.text(shown, kind, reader, &mut v, &mut fix)?,
            Kind::Conversation => self.conversations(shown, reader, &mut v, &mut fix)?,
        }
        Ok(v)
    }

    /// Runs one recorded call and compares; returns the real envelope when the recorded result is wrong.
    fn check(&self, shown: &str, rec: &Recorded, v: &mut Verification) -> Option<Envelope> {
        if !self.registry.runs(&rec.tool) {
            v.skipped += 1;
            return None;
        }
        v.checked += 1;
        let env = self
            .engine
            .call(ToolCall::new(rec.tool.clone(), rec.params.clone()));
        let said_success = match &rec.result {
            Value::Object(o) => o.get("success").and_then(Value::as_bool).unwrap_or(true),
            _ => true,
        };
        let report = |rule: &'static str, message: String| Diagnostic {
            path: shown.to_string(),
            line: rec.pos.0,
            col: rec.pos.1,
            rule,
            message,
        };
        let tool = match &rec.at {
            Some(at) => format!("{at}: `{}`", rec.tool),
            None => format!("`{}`", rec.tool),
        };
        match (said_success, env.success) {
            (true, false) => {
                v.diagnostics.push(report(
                    "verify/failed",
                    format!(
                        "{tool}: the trace records a result, but the call fails: {}",
                        env.error.as_deref().unwrap_or("")
                    ),
                ));
                Some(env)
            }
            (false, true) => {
                v.diagnostics.push(report(
                    "verify/succeeded",
                    format!(
                        "{tool}: the trace records a failure, but the call succeeds with {}",
                        short(env.result.as_ref().unwrap_or(&Value::Null))
                    ),
                ));
                Some(env)
            }
            (false, false) => {
                v.matched += 1;
                None
            }
            (true, true) => {
                let real = env.result.clone().unwrap_or(Value::Null);
                let mut wrong = Vec::new();
                for r in recorded_value(&rec.result) {
                    if let Err(m) = compare(&r, &real, self.tolerance) {
                        wrong.extend(m);
                    }
                }
                if wrong.is_empty() {
                    v.matched += 1;
                    return None;
                }
                for Mismatch {
                    path,
                    recorded,
                    real,
                    why,
                } in wrong
                {
                    let at = if path.is_empty() {
                        String::new()
                    } else {
                        format!(" at `{path}`")
                    };
                    v.diagnostics.push(report(
                        "verify/mismatch",
                        format!(
                            "{tool}: recorded {}{at}, the tool gives {} ({why})",
                            short(&recorded),
                            short(&real)
                        ),
                    ));
                }
                Some(env)
            }
        }
    }

    fn text(
        &self,
        shown: &str,
        kind: Kind,
        reader: impl BufRead,
        v: &mut Verification,
        fix: &mut Option<&mut dyn Write>,
    ) -> std::io::Result<()> {
        let starters = if kind == Kind::Qa {
            qa_starters()
        } else {
            svend_starters()
        };
        let dialect = if kind == Kind::Qa {
            Dialect::Tagged
        } else {
            Dialect::Svend
        };
        let mut records = Records::new(reader, starters);
        while let Some(rec) = records.next_record()? {
            let text = rec.text.as_str();
            let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
            if !rec.preamble {
                for (call, result_span, body) in pairs(text, kind) {
                    let Some((tool, params)) = call else { continue };
                    let recorded = Recorded {
                        tool,
                        params,
                        result: parse_result(body),
                        pos: rec.pos(result_span.start),
                        at: None,
                    };
                    if let Some(env) = self.check(shown, &recorded, v) {
                        edits.push((result_span, render::result(dialect, &recorded.tool, &env)));
                    }
                }
            }
            if let Some(out) = fix.as_mut() {
                let mut copied = 0;
                for (range, new) in edits {
                    out.write_all(&text.as_bytes()[copied..range.start])?;
                    out.write_all(new.as_bytes())?;
                    copied = range.end;
                }
                out.write_all(&text.as_bytes()[copied..])?;
            }
        }
        Ok(())
    }

    fn conversations(
        &self,
        shown: &str,
        mut reader: impl BufRead,
        v: &mut Verification,
        fix: &mut Option<&mut dyn Write>,
    ) -> std::io::Result<()> {
        let mut buf = Vec::new();
        let mut line = 0;
        loop {
            let (n, cut) = read_line_capped(&mut reader, &mut buf, MAX_RECORD_BYTES)?;
            if n == 0 {
                return Ok(());
            }
            line += 1;
            let parsed = if cut {
                None
            } else {
                serde_json::from_slice::<Value>(&buf).ok()
            };
            let Some(mut conv) = parsed else {
                if let Some(out) = fix.as_mut() {
                    out.write_all(&buf)?;
                }
                continue;
            };
            let mut changed = false;
            let mut calls: std::collections::HashMap<String, (String, Value)> = Default::default();
            if let Some(messages) = conv.get_mut("messages").and_then(Value::as_array_mut) {
                for (i, m) in messages.iter_mut().enumerate() {
                    for c in m
                        .get("tool_calls")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        let id = c.get("id").and_then(Value::as_str);
                        let name = c.pointer("/function/name").and_then(Value::as_str);
                        let args = c
                            .pointer("/function/arguments")
                            .and_then(Value::as_str)
                            .and_then(|s| serde_json::from_str::<Value>(s).ok());
                        if let (Some(id), Some(name), Some(args)) = (id, name, args) {
                            calls.insert(id.to_string(), (name.to_string(), args));
                        }
                    }
                    if m.get("role").and_then(Value::as_str) != Some("tool") {
                        continue;
                    }
                    let Some(id) = m.get("tool_call_id").and_then(Value::as_str) else {
                        continue;
                    };
                    let Some((tool, params)) = calls.get(id).cloned() else {
                        continue;
                    };
                    let content = m.get("content").and_then(Value::as_str).unwrap_or("");
                    let recorded = Recorded {
                        tool,
                        params,
                        result: parse_result(content),
                        pos: (line, 1),
                        at: Some(format!("messages[{i}] (tool_call_id `{id}`)")),
                    };
                    if let Some(env) = self.check(shown, &recorded, v) {
                        let id = id.to_string();
                        let message = render::openai_tool_message(&id, &env);
                        if let (Some(obj), Some(content)) =
                            (m.as_object_mut(), message.get("content"))
                        {
                            obj.insert("content".into(), content.clone());
                            changed = true;
                        }
                    }
                }
            }
            if let Some(out) = fix.as_mut() {
                if changed {
                    serde_json::to_writer(&mut **out, &conv)?;
                    out.write_all(b"\n")?;
                } else {
                    out.write_all(&buf)?;
                }
            }
        }
    }
}

/// The recorded result's values to compare with the real result: a tagged result's `result`, and its
/// other non-meta keys; a Svend or OpenAI result as it is (meta keys are skipped by the comparison).
fn recorded_value(r: &Value) -> Vec<Value> {
    match r {
        Value::Object(o) if o.contains_key("result") => {
            let mut rest = o.clone();
            let inner = rest.remove("result").unwrap_or(Value::Null);
            let mut out = vec![inner];
            if rest
                .keys()
                .any(|k| !["tool", "success", "output_path", "error"].contains(&k.as_str()))
            {
                out.push(Value::Object(rest));
            }
            out
        }
        other => vec![other.clone()],
    }
}

/// A recorded result's text as JSON when it is JSON, else as a string.
fn parse_result(body: &str) -> Value {
    let t = body.trim();
    serde_json::from_str(t).unwrap_or_else(|_| Value::String(t.to_string()))
}

/// A value for a message, cut to 200 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

/// A call (tool and params, when readable), the span of the result answering it, and the result's body.
type Pair<'t> = (Option<(String, Value)>, std::ops::Range<usize>, &'t str);

/// The calls of a record with the results right after them.
fn pairs(text: &str, kind: Kind) -> Vec<Pair<'_>> {
    let (call_open, call_close, res_open, res_close) = match kind {
        Kind::Qa => (
            "<tool_call>",
            "</tool_call>",
            "<tool_result>",
            "</tool_result>",
        ),
        _ => (
            "<|tool_call|>",
            "<|/tool_call|>",
            "<|tool_result|>",
            "<|/tool_result|>",
        ),
    };
    // Where a call or result closes, found as lint finds it: a tagged body ends after its JSON value (tags
    // inside its strings are text), a Svend block at its closing token unless its opening one comes first.
    let close = |from: usize, open: &str, close: &str| match kind {
        Kind::Qa => crate::lint::qa::closing(text, from, close, &[call_open, res_open]),
        _ => crate::lint::qa::first_closing(text, from, close, &[open]),
    };
    let mut out = Vec::new();
    let mut pos = 0;
    let mut call: Option<Option<(String, Value)>> = None;
    for m in markers(text, 0) {
        if m.start < pos {
            continue;
        }
        let open = &text[m.start..m.end];
        let is_call = matches!(
            m.marker,
            Marker::Tag {
                name: "tool_call",
                close: false
            } | Marker::Token("tool_call")
        ) && open == call_open;
        let is_result = matches!(
            m.marker,
            Marker::Tag {
                name: "tool_result",
                close: false
            } | Marker::Token("tool_result")
        ) && open == res_open;
        if is_call {
            let Some((at, end)) = close(m.end, call_open, call_close) else {
                break;
            };
            let body = &text[m.end..at];
            pos = end;
            call = Some(match kind {
                Kind::Qa => serde_json::from_str::<Value>(body.trim())
                    .ok()
                    .and_then(|v| {
                        let tool = v.get("tool")?.as_str()?.to_string();
                        let params = v.get("params")?.clone();
                        Some((tool, params))
                    }),
                _ => crate::lint::svend_call(body).ok(),
            });
        } else if is_result {
            let Some((at, end)) = close(m.end, res_open, res_close) else {
                break;
            };
            let body = &text[m.end..at];
            pos = end;
            if let Some(c) = call.take() {
                out.push((c, m.start..pos, body));
            }
        }
    }
    out
}
