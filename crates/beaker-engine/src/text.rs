//! Text mode: run every call a model wrote in its text, and render the results back in its dialect.
//!
//! The calls of one text run concurrently (each is an ordinary [`Engine::submit`]); the reply lists their
//! envelopes in call order and the rendered text to append to the model's context. Bad calls (malformed,
//! deprecated) are answered with a `parse_error` the model can read; incomplete calls (cut off at the end
//! of the text) are reported but neither run nor rendered.

use crate::{CallHandle, Engine};
use beaker_core::{stable_hash, Envelope, ErrorKind, LimitsRequest, ToolCall, ToolError};
use beaker_dialects::{parse, render, BadCall, Call, Dialect, ParseOptions, Problem};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// A model's text to run, and how to read it.
#[derive(Debug, Clone, Default)]
pub struct TextRequest {
    /// The model's output.
    pub text: String,
    /// The dialect (`None`: detect it), lenient mode, size bounds.
    pub options: ParseOptions,
    /// Limits for every call in the text.
    pub limits: LimitsRequest,
    /// A group name (a trajectory): cancels the calls with `cancel_tag` and feeds their seeds.
    pub tag: Option<String>,
    /// The seed the calls' seeds derive from (otherwise derived from `tag` and `key`).
    pub seed: Option<u64>,
    /// The request's own id as text (e.g. the JSON Lines `id`), mixed into derived seeds.
    pub key: String,
}

/// The outcome of one call found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextCallResult {
    /// The call's position in the text, from 0.
    pub index: usize,
    /// The call's own id (OpenAI `tool_call_id`), if it had one.
    pub call_id: Option<String>,
    /// Whether lenient mode repaired the call's JSON.
    pub repaired: bool,
    /// Whether the call was cut off at the end of the text (not run, not rendered).
    pub incomplete: bool,
    /// The envelope; its `id` is the call's id, else its index.
    pub envelope: Envelope,
}

impl TextCallResult {
    /// The envelope as JSON, with `repaired`/`incomplete` added when true.
    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(&self.envelope).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            if self.repaired {
                m.insert("repaired".into(), json!(true));
            }
            if self.incomplete {
                m.insert("incomplete".into(), json!(true));
            }
        }
        v
    }
}

/// What running a text gives back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextReply {
    /// The dialect the results are rendered in (explicit, else detected; `None` when there was no call).
    pub dialect: Option<Dialect>,
    /// Every call found, in text order.
    pub calls: Vec<TextCallResult>,
    /// The rendered results to append to the model's context (empty for `openai`: see `messages`).
    pub text: String,
    /// For `openai`: one `tool` message per call, ids matching.
    pub messages: Vec<Value>,
    /// Whether the text held more calls than `max_calls`; those after the cap were left as text, not run.
    pub capped: bool,
}

impl TextReply {
    /// The reply as JSON: `{"success": true, "dialect", "calls", "text"}` (`"messages"` instead of `"text"`
    /// for openai; `"capped": true` when calls were left unrun). `success` says the text was read; each call
    /// has its own.
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        m.insert("success".into(), json!(true));
        m.insert("dialect".into(), json!(self.dialect.map(Dialect::as_str)));
        m.insert(
            "calls".into(),
            Value::Array(self.calls.iter().map(TextCallResult::to_json).collect()),
        );
        if self.dialect == Some(Dialect::Openai) {
            m.insert("messages".into(), Value::Array(self.messages.clone()));
        } else {
            m.insert("text".into(), json!(self.text));
        }
        if self.capped {
            m.insert("capped".into(), json!(true));
        }
        Value::Object(m)
    }

    /// Whether every call found ran and succeeded.
    pub fn all_succeeded(&self) -> bool {
        self.calls.iter().all(|c| c.envelope.success)
    }
}

/// What to call with the reply once every call of a text is answered.
type OnReply = Box<dyn FnOnce(TextReply) + Send>;

struct Gather {
    dialect: Option<Dialect>,
    capped: bool,
    slots: Vec<Option<TextCallResult>>,
    tools: Vec<String>,
    remaining: usize,
    on_done: Option<OnReply>,
}

impl Gather {
    fn fill(&mut self, i: usize, r: TextCallResult) -> Option<(OnReply, TextReply)> {
        self.slots[i] = Some(r);
        self.remaining -= 1;
        if self.remaining > 0 {
            return None;
        }
        let calls: Vec<TextCallResult> = self.slots.iter_mut().filter_map(Option::take).collect();
        let mut reply = assemble(self.dialect, calls, &self.tools);
        reply.capped = self.capped;
        self.on_done.take().map(|f| (f, reply))
    }
}

fn assemble(dialect: Option<Dialect>, calls: Vec<TextCallResult>, tools: &[String]) -> TextReply {
    let mut text = Vec::new();
    let mut messages = Vec::new();
    for (c, tool) in calls.iter().zip(tools) {
        if c.incomplete {
            continue;
        }
        match dialect {
            Some(Dialect::Openai) => {
                let id = c
                    .call_id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}", c.index));
                messages.push(render::openai_tool_message(&id, &c.envelope));
            }
            Some(d) => text.push(render::result(d, tool, &c.envelope)),
            None => {}
        }
    }
    TextReply {
        dialect,
        calls,
        text: text.join("\n"),
        messages,
        capped: false,
    }
}

impl Engine {
    /// Parses `req.text`, runs its calls concurrently, and hands the reply to `on_done` once every call is
    /// answered (on a worker thread, or on this one when nothing needed running). Returns the calls' handles,
    /// so they can be cancelled.
    pub fn submit_text(
        &self,
        req: TextRequest,
        on_done: impl FnOnce(TextReply) + Send + 'static,
    ) -> Vec<CallHandle> {
        let parsed = parse(&req.text, &req.options);
        let found: Vec<Result<Call, BadCall>> = parsed
            .items
            .into_iter()
            .filter_map(|i| match i {
                beaker_dialects::Item::Call(c) => Some(Ok(c)),
                beaker_dialects::Item::Bad(b) => Some(Err(b)),
                beaker_dialects::Item::Text(_) => None,
            })
            .collect();
        self.submit_found(parsed.dialect, parsed.capped, found, &req, on_done)
    }

    /// Runs the `tool_calls` of the last assistant message in an OpenAI conversation that no `tool` message
    /// after it answers yet (a worker that resends the whole conversation does not re-run old calls); the
    /// reply's `messages` are the `tool` messages to append. Fails when there is no assistant message with
    /// `tool_calls`.
    pub fn submit_messages(
        &self,
        messages: &[Value],
        req: &TextRequest,
        on_done: impl FnOnce(TextReply) + Send + 'static,
    ) -> Result<Vec<CallHandle>, ToolError> {
        let at = messages
            .iter()
            .rposition(|m| m.get("role").and_then(Value::as_str) == Some("assistant"));
        let last = at.map(|i| &messages[i]).ok_or_else(|| {
            ToolError::new(ErrorKind::ParseError, "no assistant message in `messages`")
        })?;
        let tool_calls = last
            .get("tool_calls")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                ToolError::new(
                    ErrorKind::ParseError,
                    "the last assistant message has no `tool_calls` array",
                )
            })?;
        let answered: Vec<&str> = messages[at.map_or(0, |i| i + 1)..]
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
            .filter_map(|m| m.get("tool_call_id").and_then(Value::as_str))
            .collect();
        let found = beaker_dialects::openai_calls(tool_calls, 0, 0..0, req.options.lenient)
            .into_iter()
            .filter(|f| {
                let id = match f {
                    Ok(c) => c.id.as_deref(),
                    Err(b) => b.id.as_deref(),
                };
                !id.is_some_and(|id| answered.contains(&id))
            })
            .collect();
        Ok(self.submit_found(Some(Dialect::Openai), false, found, req, on_done))
    }

    /// Runs a text and waits for the reply.
    pub fn run_text(&self, req: TextRequest) -> TextReply {
        let (tx, rx) = flume::bounded(1);
        self.submit_text(req, move |r| {
            let _ = tx.send(r);
        });
        crate::recv_spinning(&rx).unwrap_or_default()
    }

    /// Runs an OpenAI conversation's last tool calls and waits for the reply.
    pub fn run_messages(
        &self,
        messages: &[Value],
        req: &TextRequest,
    ) -> Result<TextReply, ToolError> {
        let (tx, rx) = flume::bounded(1);
        self.submit_messages(messages, req, move |r| {
            let _ = tx.send(r);
        })?;
        Ok(crate::recv_spinning(&rx).unwrap_or_default())
    }

    fn submit_found(
        &self,
        dialect: Option<Dialect>,
        capped: bool,
        found: Vec<Result<Call, BadCall>>,
        req: &TextRequest,
        on_done: impl FnOnce(TextReply) + Send + 'static,
    ) -> Vec<CallHandle> {
        let tools: Vec<String> = found
            .iter()
            .map(|f| match f {
                Ok(c) => c.tool.clone(),
                Err(b) => b.tool.clone().unwrap_or_default(),
            })
            .collect();
        if found.is_empty() {
            let mut reply = assemble(dialect, Vec::new(), &tools);
            reply.capped = capped;
            on_done(reply);
            return Vec::new();
        }
        let gather = Arc::new(Mutex::new(Gather {
            dialect,
            capped,
            slots: vec![None; found.len()],
            tools,
            remaining: found.len(),
            on_done: Some(Box::new(on_done)),
        }));
        let base_seed = req.seed.unwrap_or_else(|| {
            stable_hash(&[
                req.tag.as_deref().unwrap_or("").as_bytes(),
                req.key.as_bytes(),
            ])
        });
        let mut handles = Vec::new();
        for (slot, f) in found.into_iter().enumerate() {
            let finish = {
                let gather = gather.clone();
                move |r: TextCallResult| {
                    let done = gather
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .fill(slot, r);
                    if let Some((f, reply)) = done {
                        f(reply);
                    }
                }
            };
            match f {
                Ok(call) => {
                    let id = call
                        .id
                        .clone()
                        .map(Value::String)
                        .unwrap_or(json!(call.index));
                    let tc = ToolCall {
                        id: Some(id),
                        tool: call.tool.clone(),
                        params: call.params,
                        limits: req.limits,
                        meta: None,
                        tag: req.tag.clone(),
                        seed: Some(stable_hash(&[
                            &base_seed.to_le_bytes(),
                            &call.index.to_le_bytes(),
                        ])),
                    };
                    let (index, call_id, repaired) = (call.index, call.id, call.repaired);
                    handles.push(self.submit(tc, move |envelope| {
                        finish(TextCallResult {
                            index,
                            call_id,
                            repaired,
                            incomplete: false,
                            envelope,
                        })
                    }));
                }
                Err(bad) => {
                    let message = render::bad_call_message(
                        &bad,
                        bad.tool.as_deref().and_then(|t| self.spec(t)),
                        dialect.unwrap_or(Dialect::Tagged),
                    );
                    let incomplete = bad.problem == Problem::Incomplete;
                    let id = bad
                        .id
                        .clone()
                        .map(Value::String)
                        .unwrap_or(json!(bad.index));
                    let envelope = Envelope::failure(
                        Some(id),
                        bad.tool.clone().unwrap_or_default(),
                        ToolError::new(ErrorKind::ParseError, message),
                    );
                    finish(TextCallResult {
                        index: bad.index,
                        call_id: bad.id,
                        repaired: false,
                        incomplete,
                        envelope,
                    });
                }
            }
        }
        handles
    }
}
