//! Seed 003's Svend traces.

use super::qa::first_closing;
use super::Cx;
use crate::markers::{markers, Marker};
use crate::records::{Record, Records};
use serde_json::Value;
use std::io::BufRead;

/// Lines that start an example.
pub(crate) const STARTERS: &[&str] = &["User:", "Q:"];

/// The blocks that open and close (`<|think|>` … `<|/think|>`), besides calls and results.
const BLOCKS: [&str; 4] = ["think", "answer", "clarification", "cannot_solve"];

pub(super) fn lint(cx: &mut Cx, reader: impl BufRead) -> Result<usize, (usize, std::io::Error)> {
    let mut records = Records::new(reader, STARTERS);
    loop {
        match records.next_record() {
            Ok(Some(rec)) => {
                cx.record_basics(&rec);
                if !rec.too_long {
                    example(cx, &rec);
                }
            }
            Ok(None) => break,
            Err(e) => return Err((records.lines_read(), e)),
        }
    }
    Ok(records.lines_read())
}

/// A call read from between `<|tool_call|>` and `<|/tool_call|>`: `<|tool_name|>NAME<|tool_args|>{…}`.
pub(crate) fn read_call(body: &str) -> Result<(String, Value), String> {
    let rest = body
        .trim_start()
        .strip_prefix("<|tool_name|>")
        .ok_or("a call must start with `<|tool_name|>`")?;
    let (name, args) = rest
        .split_once("<|tool_args|>")
        .ok_or("the tool's name must be followed by `<|tool_args|>`")?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    {
        return Err(format!("`{name}` is not a tool name"));
    }
    let params: Value = serde_json::from_str(args.trim())
        .map_err(|e| format!("the arguments of `{name}` are not JSON: {e}"))?;
    if !params.is_object() {
        return Err(format!(
            "the arguments of `{name}` must be a JSON object, not {}",
            beaker_core::json_type(&params)
        ));
    }
    Ok((name.to_string(), params))
}

fn example(cx: &mut Cx, rec: &Record) {
    let text = rec.text.as_str();
    let mut pos = 0;
    let mut stack: Vec<(&str, usize)> = Vec::new();
    let mut pending: Option<(String, usize)> = None;
    let mut routing: Option<(String, usize)> = None;
    let mut answered = false;
    let mut answers = 0;
    for m in markers(text, 0) {
        if m.start < pos || crate::lint::qa::quoted(text, m.start, m.end) {
            continue;
        }
        pos = m.end;
        let Marker::Token(token) = m.marker else {
            continue;
        };
        match token {
            "tool_call" => {
                let Some((close, end)) =
                    first_closing(text, m.end, "<|/tool_call|>", &["<|tool_call|>"])
                else {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/block",
                        "`<|tool_call|>` is not closed by `<|/tool_call|>` before the next call"
                            .into(),
                    );
                    continue;
                };
                pos = end;
                if let Some((block, _)) = stack.last() {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/nesting",
                        format!("a call inside `<|{block}|>`: calls go between blocks"),
                    );
                }
                if answered {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/order",
                        "a call after the answer".into(),
                    );
                }
                if let Some((tool, at)) = pending.take() {
                    missing_result(cx, rec, at, &tool);
                }
                match read_call(&text[m.end..close]) {
                    Ok((tool, params)) => {
                        if let Some((routed, at)) = routing.take() {
                            if routed != tool {
                                cx.rec(
                                    rec,
                                    at,
                                    "svend/routing",
                                    format!(
                                        "`<|tool:{routed}|>` is followed by a call to `{tool}`"
                                    ),
                                );
                            }
                        }
                        if let Some((rule, msg)) = cx.tool_call(&tool, &params) {
                            cx.rec(rec, m.start, rule, msg);
                        }
                        pending = Some((tool, m.start));
                    }
                    Err(msg) => {
                        routing = None;
                        cx.rec(rec, m.start, "svend/call", msg);
                        pending = Some((String::from("?"), m.start));
                    }
                }
            }
            "tool_result" => {
                let Some((_, end)) =
                    first_closing(text, m.end, "<|/tool_result|>", &["<|tool_result|>"])
                else {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/block",
                        "`<|tool_result|>` is not closed by `<|/tool_result|>`".into(),
                    );
                    continue;
                };
                pos = end;
                if let Some((block, _)) = stack.last() {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/nesting",
                        format!("a result inside `<|{block}|>`"),
                    );
                }
                if pending.take().is_none() {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/orphan-result",
                        "a `<|tool_result|>` without a call before it".into(),
                    );
                }
            }
            "tool_name" | "tool_args" => {
                cx.rec(
                    rec,
                    m.start,
                    "svend/call",
                    format!("`<|{token}|>` outside `<|tool_call|>` … `<|/tool_call|>`"),
                );
            }
            "/tool_call" | "/tool_result" => {
                cx.rec(
                    rec,
                    m.start,
                    "svend/block",
                    format!("`<|{token}|>` without its opening token"),
                );
            }
            t if BLOCKS.contains(&t) => {
                if let Some((block, _)) = stack.last() {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/nesting",
                        format!("`<|{t}|>` opened inside `<|{block}|>`"),
                    );
                }
                if t == "answer" {
                    answers += 1;
                    if answers > 1 {
                        cx.rec(
                            rec,
                            m.start,
                            "svend/order",
                            "a second `<|answer|>`: an example has one answer".into(),
                        );
                    }
                    if let Some((tool, at)) = pending.take() {
                        missing_result(cx, rec, at, &tool);
                    }
                } else if t == "think" && answered {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/order",
                        "thinking after the answer".into(),
                    );
                }
                stack.push((t, m.start));
            }
            t if t.starts_with('/') && BLOCKS.contains(&&t[1..]) => {
                let name = &t[1..];
                match stack.iter().rposition(|(b, _)| *b == name) {
                    Some(i) => {
                        for (b, at) in stack.drain(i + 1..).collect::<Vec<_>>() {
                            cx.rec(
                                rec,
                                at,
                                "svend/block",
                                format!("`<|{b}|>` is not closed before `<|/{name}|>`"),
                            );
                        }
                        stack.pop();
                        if name == "answer" {
                            answered = true;
                        }
                    }
                    None => cx.rec(
                        rec,
                        m.start,
                        "svend/block",
                        format!("`<|/{name}|>` without its `<|{name}|>`"),
                    ),
                }
            }
            t if t.starts_with("tool:") => {
                let name = &t["tool:".len()..];
                if let Some((prev, at)) = routing.take() {
                    cx.rec(
                        rec,
                        at,
                        "svend/routing",
                        format!("`<|tool:{prev}|>` is not followed by a call"),
                    );
                }
                if !cx.linter.registry.knows(name) {
                    cx.rec(
                        rec,
                        m.start,
                        "svend/routing",
                        format!("`<|tool:{name}|>` routes to an unknown tool"),
                    );
                }
                routing = Some((name.to_string(), m.start));
            }
            other => {
                cx.rec(
                    rec,
                    m.start,
                    "svend/token",
                    format!("`<|{other}|>` is not a special token of the Svend format"),
                );
            }
        }
    }
    if answers == 0 && !rec.preamble {
        cx.rec(
            rec,
            0,
            "svend/answer",
            "the example has no `<|answer|>`: a trace ends with the final answer".into(),
        );
    }
    for (b, at) in stack {
        cx.rec(rec, at, "svend/block", format!("`<|{b}|>` is never closed"));
    }
    if let Some((tool, at)) = pending {
        missing_result(cx, rec, at, &tool);
    }
    if let Some((name, at)) = routing {
        cx.rec(
            rec,
            at,
            "svend/routing",
            format!("`<|tool:{name}|>` is not followed by a call"),
        );
    }
}

fn missing_result(cx: &mut Cx, rec: &Record, at: usize, tool: &str) {
    cx.rec(
        rec,
        at,
        "svend/missing-result",
        format!("the call to `{tool}` is not followed by its `<|tool_result|>`"),
    );
}
