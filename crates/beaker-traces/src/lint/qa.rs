//! Seed 001's Q:/A: training files.

use super::Cx;
use crate::markers::{markers, Marker};
use crate::records::{Record, Records};
use serde_json::Value;
use std::io::BufRead;

/// Lines that start an example (the deprecated spellings too, so each is reported in its own example).
pub(crate) const STARTERS: &[&str] = &["Q:", "User:", "Human:"];

/// Deprecated turn prefixes and what replaces them.
pub(crate) const ROLES: [(&str, &str); 4] = [
    ("User:", "Q:"),
    ("Human:", "Q:"),
    ("Assistant:", "A:"),
    ("AI:", "A:"),
];

pub(super) fn lint(cx: &mut Cx, reader: impl BufRead) -> Result<usize, (usize, std::io::Error)> {
    let mut records = Records::new(reader, STARTERS);
    let mut first = true;
    loop {
        let rec = match records.next_record() {
            Ok(Some(r)) => r,
            Ok(None) => break,
            Err(e) => return Err((records.lines_read(), e)),
        };
        cx.record_basics(&rec);
        if first {
            header(cx, Some(&rec));
            first = false;
        }
        roles(cx, &rec);
        if !rec.preamble {
            example(cx, &rec);
        }
    }
    if first {
        header(cx, None);
    }
    Ok(records.lines_read())
}

/// The `"""` docstring a training file opens with.
fn header(cx: &mut Cx, first: Option<&Record>) {
    let Some(rec) = first.filter(|r| r.preamble) else {
        cx.at(
            1,
            1,
            "qa/header",
            "the file has no header: start it with a `\"\"\"` docstring saying what it teaches and its format".into(),
        );
        return;
    };
    let body = rec.text.trim_start();
    let start = rec.text.len() - body.len();
    if !body.starts_with("\"\"\"") {
        cx.rec(
            rec,
            start,
            "qa/header",
            "the file does not start with a `\"\"\"` docstring header".into(),
        );
    } else if !body[3..].contains("\"\"\"") {
        cx.rec(
            rec,
            start,
            "qa/header",
            "the header docstring is not closed with `\"\"\"` before the first `Q:`".into(),
        );
    }
}

fn roles(cx: &mut Cx, rec: &Record) {
    for (line, _, text) in rec.lines() {
        if let Some((old, new)) = ROLES.iter().find(|(old, _)| text.starts_with(old)) {
            cx.at(
                line,
                1,
                "qa/role",
                format!("`{old}` turn: write `{new}` (`beaker migrate` rewrites it)"),
            );
        }
    }
}

/// The byte just after the `A:` (or deprecated answer prefix) of the record's first answer line.
fn answer_start(rec: &Record) -> Option<usize> {
    rec.lines().find_map(|(_, at, text)| {
        ["A:", "Assistant:", "AI:"]
            .iter()
            .find(|p| text.starts_with(*p))
            .map(|p| at + p.len())
    })
}

/// Where the body starting at `from` closes with `close`: right after the JSON value it holds (so tags inside
/// its strings are text), else at the first `close` that comes before any of `opens`.
pub(crate) fn closing(
    text: &str,
    from: usize,
    close: &str,
    opens: &[&str],
) -> Option<(usize, usize)> {
    let body = &text[from..];
    let lead = body.len() - body.trim_start().len();
    if body[lead..].starts_with(['{', '[']) {
        let mut values =
            serde_json::Deserializer::from_str(&body[lead..]).into_iter::<serde::de::IgnoredAny>();
        if let Some(Ok(_)) = values.next() {
            let after = from + lead + values.byte_offset();
            let gap = text[after..].len() - text[after..].trim_start().len();
            if text[after + gap..].starts_with(close) {
                return Some((after + gap, after + gap + close.len()));
            }
        }
    }
    first_closing(text, from, close, opens)
}

/// The end of the first `close` after `from`, if it comes before any of `opens`.
pub(crate) fn first_closing(
    text: &str,
    from: usize,
    close: &str,
    opens: &[&str],
) -> Option<(usize, usize)> {
    let at = text[from..].find(close)? + from;
    let reopened = opens
        .iter()
        .filter_map(|o| text[from..].find(o).map(|i| i + from))
        .any(|i| i < at);
    (!reopened).then_some((at, at + close.len()))
}

const OPENS: [&str; 2] = ["<tool_call>", "<tool_result>"];

/// Whether the marker at `start..end` is quoted in backticks (`` `<tool_call>` ``): prose about the format.
pub(crate) fn quoted(text: &str, start: usize, end: usize) -> bool {
    text[..start].ends_with('`') && text[end..].starts_with('`')
}

fn example(cx: &mut Cx, rec: &Record) {
    let text = rec.text.as_str();
    if rec.too_long {
        // Only part of the example was read: its structure cannot be judged.
        return;
    }
    let answer = answer_start(rec);
    if answer.is_none() {
        cx.rec(
            rec,
            0,
            "qa/turn",
            "the question has no answer: an `A:` line must follow it".into(),
        );
    }
    for (line, _, l) in rec.lines().filter(|(_, _, l)| l.starts_with("A:")).skip(1) {
        let _ = l;
        cx.at(
            line,
            1,
            "qa/turn",
            "a second `A:` in one example: one question, one answer".into(),
        );
    }
    let mut pos = 0;
    let mut pending: Option<(String, usize)> = None;
    let mut calls = 0usize;
    let mut last_result_end = None;
    for m in markers(text, 0) {
        if m.start < pos || quoted(text, m.start, m.end) {
            continue;
        }
        pos = m.end;
        match m.marker {
            Marker::Tag {
                name: "tool_call",
                close: false,
            } => {
                let Some((close, end)) = closing(text, m.end, "</tool_call>", &OPENS) else {
                    cx.rec(
                        rec,
                        m.start,
                        "qa/unclosed",
                        "`<tool_call>` is not closed by `</tool_call>` before the next tag".into(),
                    );
                    continue;
                };
                pos = end;
                if let Some((tool, at)) = pending.take() {
                    missing_result(cx, rec, at, &tool);
                }
                if calls == 0 {
                    if let Some(a) = answer.filter(|&a| a <= m.start) {
                        if text[a..m.start].trim().is_empty() {
                            cx.rec(
                                rec,
                                m.start,
                                "qa/acknowledge",
                                "the answer opens with a call: acknowledge the request first"
                                    .into(),
                            );
                        }
                    }
                }
                calls += 1;
                let tool = call(cx, rec, m.start, &text[m.end..close]);
                pending = Some((tool.unwrap_or_default(), m.start));
            }
            Marker::Tag {
                name: "tool_result",
                close: false,
            } => {
                let Some((close, end)) = closing(text, m.end, "</tool_result>", &OPENS) else {
                    cx.rec(
                        rec,
                        m.start,
                        "qa/unclosed",
                        "`<tool_result>` is not closed by `</tool_result>` before the next tag"
                            .into(),
                    );
                    continue;
                };
                pos = end;
                last_result_end = Some(end);
                match pending.take() {
                    Some((tool, _)) => result(cx, rec, m.start, &text[m.end..close], Some(&tool)),
                    None => {
                        cx.rec(
                            rec,
                            m.start,
                            "qa/orphan-result",
                            "a `<tool_result>` without a call before it".into(),
                        );
                        result(cx, rec, m.start, &text[m.end..close], None);
                    }
                }
            }
            Marker::Tag { name, close: true } => {
                cx.rec(
                    rec,
                    m.start,
                    "qa/stray-close",
                    format!("`</{name}>` without its `<{name}>`"),
                );
            }
            Marker::Token("tool_call") => {
                let name: String = text[m.end..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                cx.rec(rec, m.start, "qa/deprecated", format!("deprecated call `<|tool_call|>{name}(...)<|tool_end|>`: write `<tool_call>{{\"tool\": \"{name}\", \"params\": {{...}}}}</tool_call>` (`beaker migrate` rewrites it)"));
                if let Some((tool, at)) = pending.take() {
                    missing_result(cx, rec, at, &tool);
                }
                calls += 1;
                pending = Some((name, m.start));
            }
            Marker::Token("tool_result") => {
                cx.rec(rec, m.start, "qa/deprecated", "deprecated result `<|tool_result|>…<|tool_result_end|>`: write `<tool_result>{\"success\": …, \"result\": …}</tool_result>` (`beaker migrate` rewrites it)".into());
                if pending.take().is_none() {
                    cx.rec(
                        rec,
                        m.start,
                        "qa/orphan-result",
                        "a result without a call before it".into(),
                    );
                }
                last_result_end = Some(
                    text[m.end..]
                        .find("<|tool_result_end|>")
                        .map_or(m.end, |i| m.end + i + "<|tool_result_end|>".len()),
                );
                pos = last_result_end.unwrap_or(m.end);
            }
            _ => {}
        }
    }
    if let Some((tool, at)) = pending {
        missing_result(cx, rec, at, &tool);
    }
    if let Some(end) = last_result_end {
        if text[end..].trim().is_empty() {
            cx.rec(
                rec,
                end.saturating_sub(1),
                "qa/explain",
                "the answer ends at a tool result: say what it means after it".into(),
            );
        }
    }
}

fn missing_result(cx: &mut Cx, rec: &Record, at: usize, tool: &str) {
    cx.rec(
        rec,
        at,
        "qa/missing-result",
        format!("the call to `{tool}` is not followed by its `<tool_result>`"),
    );
}

/// Checks a `<tool_call>` body; returns the tool's name when it could be read.
fn call(cx: &mut Cx, rec: &Record, at: usize, body: &str) -> Option<String> {
    if body.trim().is_empty() {
        cx.rec(
            rec,
            at,
            "qa/call",
            "the call is empty: write `{\"tool\": …, \"params\": {…}}` in it".into(),
        );
        return None;
    }
    let v: Value = match serde_json::from_str(body.trim()) {
        Ok(v) => v,
        Err(e) => {
            cx.rec(rec, at, "qa/call", format!("the call is not JSON: {e}"));
            return None;
        }
    };
    let Some(o) = v.as_object() else {
        cx.rec(
            rec,
            at,
            "qa/call",
            format!("the call is {}, not an object", beaker_core::json_type(&v)),
        );
        return None;
    };
    let tool = match o.get("tool") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => {
            cx.rec(
                rec,
                at,
                "qa/call",
                format!(
                    "`tool` must be a string, not {}",
                    beaker_core::json_type(other)
                ),
            );
            None
        }
        None => {
            cx.rec(rec, at, "qa/call", "the call has no `tool`".into());
            None
        }
    };
    for k in o
        .keys()
        .filter(|k| !["tool", "params", "id"].contains(&k.as_str()))
    {
        cx.rec(
            rec,
            at,
            "qa/call",
            format!("unexpected key `{k}` in the call (only `tool` and `params`)"),
        );
    }
    match (o.get("params"), &tool) {
        (Some(p @ Value::Object(_)), Some(t)) => {
            if let Some((rule, msg)) = cx.tool_call(t, p) {
                cx.rec(rec, at, rule, msg);
            }
        }
        (Some(Value::Object(_)), None) => {}
        (Some(other), _) => cx.rec(
            rec,
            at,
            "qa/call",
            format!(
                "`params` must be an object, not {}",
                beaker_core::json_type(other)
            ),
        ),
        (None, _) => cx.rec(rec, at, "qa/call", "the call has no `params` object".into()),
    }
    tool
}

/// Checks a `<tool_result>` body against the call it answers.
fn result(cx: &mut Cx, rec: &Record, at: usize, body: &str, tool: Option<&str>) {
    let v: Value = match serde_json::from_str(body.trim()) {
        Ok(v) => v,
        Err(e) => {
            cx.rec(rec, at, "qa/result", format!("the result is not JSON: {e}"));
            return;
        }
    };
    let Some(o) = v.as_object() else {
        cx.rec(
            rec,
            at,
            "qa/result",
            format!(
                "the result is {}, not an object",
                beaker_core::json_type(&v)
            ),
        );
        return;
    };
    match o.get("success") {
        Some(Value::Bool(true)) if !o.contains_key("result") => cx.rec(
            rec,
            at,
            "qa/result",
            "a successful result has no `result`".into(),
        ),
        Some(Value::Bool(false)) if !o.contains_key("error") => cx.rec(
            rec,
            at,
            "qa/result",
            "a failed result (`success: false`) has no `error`".into(),
        ),
        Some(Value::Bool(_)) => {}
        Some(other) => cx.rec(
            rec,
            at,
            "qa/result",
            format!(
                "`success` must be true or false, not {}",
                beaker_core::json_type(other)
            ),
        ),
        None => cx.rec(rec, at, "qa/result", "the result has no `success`".into()),
    }
    if let (Some(Value::String(said)), Some(tool)) = (o.get("tool"), tool) {
        if !tool.is_empty() && said != tool {
            cx.rec(
                rec,
                at,
                "qa/result-tool",
                format!("the result says `{said}` but answers a call to `{tool}`"),
            );
        }
    }
}
