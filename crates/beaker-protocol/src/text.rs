//! Text mode: run every call a model wrote in its text, and render the results back in its dialect.
//!
//! The calls of one text run concurrently (each is an ordinary [`beaker_engine::Engine::submit`]); the reply lists their
//! envelopes in call order and the rendered text to append to the model's context. Bad calls (malformed,
//! deprecated) are answered with a `parse_error` the model can read; incomplete calls (cut off at the end
//! of the text) are reported but neither run nor rendered.

use crate::dispatch::{Dispatcher, Handle};
use beaker_core::{stable_hash, Envelope, ErrorKind, LimitsRequest, ToolCall, ToolError};
use beaker_dialects::{parse, render, BadCall, Call, Dialect, ParseOptions, Problem};
use beaker_templates::{ChatTemplate, Observation, Turn};
use serde_json::{json, Map, Value};
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
    /// The dataset the calls read (seed 002's health tools).
    pub dataset: Option<String>,
    /// The seed the calls' seeds derive from (otherwise derived from `tag` and `key`).
    pub seed: Option<u64>,
    /// The request's own id as text (e.g. the JSON Lines `id`), mixed into derived seeds.
    pub key: String,
    /// The model's chat template: the reply then carries the observation, the text to append after the
    /// model's output as the template renders the tool turn.
    pub template: Option<TemplateRequest>,
}

/// A chat template to render the observation with, and the extra variables it reads.
#[derive(Debug, Clone)]
pub struct TemplateRequest {
    /// The compiled template (a built-in, or a model's own source).
    pub template: Arc<ChatTemplate>,
    /// Variables besides `messages`, `tools` and `add_generation_prompt` (`enable_thinking`, `date_string`).
    pub kwargs: Map<String, Value>,
}

impl PartialEq for TemplateRequest {
    /// The same compiled template (templates are cached, so the same source is the same template) and the same
    /// variables.
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.template, &other.template) && self.kwargs == other.kwargs
    }
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
    /// With a chat template and at least one call answered: the observation, or why the template could not
    /// render it.
    pub observation: Option<Result<Observation, String>>,
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
        match &self.observation {
            None => {}
            Some(Ok(o)) => {
                m.insert("observation".into(), json!(o.text));
                m.insert(
                    "observation_parts".into(),
                    Value::Array(
                        o.parts
                            .iter()
                            .map(|p| json!({"role": p.role.as_str(), "text": p.text}))
                            .collect(),
                    ),
                );
            }
            Some(Err(e)) => {
                m.insert("observation".into(), Value::Null);
                m.insert("observation_error".into(), json!(e));
            }
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

/// The calls found in a text or a conversation, in order: each read, or why it could not be.
pub(crate) type Found = Vec<Result<Call, BadCall>>;

struct Gather {
    dialect: Option<Dialect>,
    capped: bool,
    slots: Vec<Option<TextCallResult>>,
    tools: Vec<String>,
    remaining: usize,
    on_done: Option<OnReply>,
    observe: Option<Observe>,
}

/// What rendering the observation needs besides the results.
pub(crate) struct Observe {
    template: TemplateRequest,
    /// The conversation before the assistant turn that made the calls.
    history: Vec<Value>,
    /// The assistant message; text mode builds it from the parsed calls (`None` here), a `messages` request
    /// gives it.
    assistant: Option<Value>,
    /// Text mode: the model's output, and where its first call starts.
    output: Option<(String, usize)>,
    /// Each call's params (`{}` for a call that could not be read), in call order.
    params: Vec<Value>,
    /// `tool` messages already in the conversation after the assistant message.
    answered: Vec<Value>,
    /// An OpenAI entry per tool called (name only), for the template's system prompt.
    tools: Vec<Value>,
    /// Where a template given as source is rendered: worker processes, when Beaker's binary can start them.
    workers: Option<Arc<beaker_worker::Pool>>,
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
        if let Some(o) = &self.observe {
            reply.observation = observe(o, &reply.calls, &self.tools);
        }
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
        observation: None,
    }
}

/// The id a call goes by in the conversation given to a template: its own, else `call00000`-style (nine
/// alphanumerics, which Mistral's template requires).
fn conversation_id(c: &TextCallResult) -> String {
    c.call_id
        .clone()
        .unwrap_or_else(|| format!("call{:05}", c.index % 100_000))
}

/// Renders the observation for the calls answered (incomplete ones were not run and are left out); `None`
/// when no call was answered, since then there is no tool turn.
fn observe(
    o: &Observe,
    calls: &[TextCallResult],
    tools: &[String],
) -> Option<Result<Observation, String>> {
    let ran: Vec<(&TextCallResult, &String, &Value)> = calls
        .iter()
        .zip(tools)
        .zip(&o.params)
        .filter(|((c, _), _)| !c.incomplete)
        .map(|((c, t), p)| (c, t, p))
        .collect();
    if ran.is_empty() {
        return None;
    }
    let mut tool_messages = o.answered.clone();
    for (c, tool, _) in &ran {
        let id = conversation_id(c);
        let mut m = render::openai_tool_message(&id, &c.envelope);
        m["name"] = json!(tool);
        tool_messages.push(m);
    }
    let assistant = match (&o.assistant, &o.output) {
        (Some(a), _) => a.clone(),
        (None, Some((text, first))) => {
            let content = text.get(..*first).unwrap_or("").trim_end();
            let tool_calls: Vec<Value> = ran
                .iter()
                .map(|(c, tool, params)| {
                    json!({"id": conversation_id(c), "type": "function",
                           "function": {"name": tool, "arguments": params}})
                })
                .collect();
            json!({"role": "assistant", "content": content, "tool_calls": tool_calls})
        }
        (None, None) => return None,
    };
    let turn = Turn {
        history: &o.history,
        assistant: &assistant,
        tool_messages: &tool_messages,
        tools: &o.tools,
        model_output: o.output.as_ref().map(|(t, _)| t.as_str()),
        kwargs: &o.template.kwargs,
    };
    let template = &o.template.template;
    Some(match (template.observation_request(&turn), &o.workers) {
        // A template given as source renders in a worker process: its memory and time are bounded there.
        (Some(request), Some(workers)) => {
            let ctx = beaker_core::CallContext::new(beaker_core::Limits::default());
            let deadline = std::time::Instant::now() + beaker_templates::worker::TIMEOUT;
            workers
                .call(&request, deadline, &ctx, |status| {
                    ToolError::limit(format!(
                        "the chat template failed: its rendering used more than {} MiB of memory or crashed, and \
                         its worker process ended ({})",
                        beaker_templates::worker::MEMORY >> 20,
                        status.map_or_else(|| "no status".to_string(), |s| s.to_string())
                    ))
                })
                .map_err(|e| match e.kind {
                    beaker_core::ErrorKind::Timeout => format!(
                        "the chat template failed: its rendering ran past {} s",
                        beaker_templates::worker::TIMEOUT.as_secs()
                    ),
                    _ => e.message,
                })
                .and_then(|v| {
                    beaker_templates::worker::observation_from(&v).map_err(|e| e.to_string())
                })
        }
        _ => template.observation(&turn).map_err(|e| e.to_string()),
    })
}

/// A `messages` conversation's assistant message as templates read it: `arguments` as objects (OpenAI sends
/// JSON strings; Hugging Face templates apply `tojson` to them).
fn with_object_arguments(m: &Value) -> Value {
    let mut m = m.clone();
    if let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut) {
        for c in calls {
            let parsed = c
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .and_then(|a| serde_json::from_str::<Value>(a).ok())
                .filter(Value::is_object);
            if let (Some(args), Some(f)) = (parsed, c.get_mut("function")) {
                f["arguments"] = args;
            }
        }
    }
    m
}

impl Dispatcher {
    /// Parses `req.text`, runs its calls concurrently, and hands the reply to `on_done` once every call is
    /// answered (on a worker thread, or on this one when nothing needed running). Returns the calls' handles,
    /// so they can be cancelled.
    pub fn submit_text(
        &self,
        req: TextRequest,
        on_done: impl FnOnce(TextReply) + Send + 'static,
    ) -> Handle {
        let parsed = parse(&req.text, &req.options);
        let found: Found = parsed
            .items
            .into_iter()
            .filter_map(|i| match i {
                beaker_dialects::Item::Call(c) => Some(Ok(c)),
                beaker_dialects::Item::Bad(b) => Some(Err(b)),
                beaker_dialects::Item::Text(_) => None,
            })
            .collect();
        let observe = req.template.clone().map(|template| {
            let first = found
                .iter()
                .map(|f| match f {
                    Ok(c) => c.span.start,
                    Err(b) => b.span.start,
                })
                .min()
                .unwrap_or(req.text.len());
            Observe {
                template,
                // The turns before the model's output are not in a text request; the observation does not
                // depend on them (the golden tests render a system and a user turn before it).
                history: vec![json!({"role": "user", "content": ""})],
                assistant: None,
                output: Some((req.text.clone(), first)),
                params: Vec::new(),
                answered: Vec::new(),
                tools: Vec::new(),
                workers: self.templates.clone(),
            }
        });
        self.submit_found(parsed.dialect, parsed.capped, found, &req, observe, on_done)
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
    ) -> Result<Handle, ToolError> {
        let (found, observe) = self.pending_calls(messages, req)?;
        Ok(self.submit_found(Some(Dialect::Openai), false, found, req, observe, on_done))
    }

    /// The calls of a conversation's last assistant message that no `tool` message answers yet, and what
    /// rendering its observation needs; an error when there is no assistant message with `tool_calls`.
    pub(crate) fn pending_calls(
        &self,
        messages: &[Value],
        req: &TextRequest,
    ) -> Result<(Found, Option<Observe>), ToolError> {
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
        let observe = req.template.clone().map(|template| {
            let at = at.unwrap_or(0);
            Observe {
                template,
                history: messages[..at].to_vec(),
                assistant: Some(with_object_arguments(&messages[at])),
                output: None,
                params: Vec::new(),
                answered: messages[at + 1..]
                    .iter()
                    .filter(|m| m.get("role").and_then(Value::as_str) == Some("tool"))
                    .cloned()
                    .collect(),
                tools: Vec::new(),
                workers: self.templates.clone(),
            }
        });
        Ok((found, observe))
    }

    /// Runs a text and waits for the reply.
    pub fn run_text(&self, req: TextRequest) -> TextReply {
        let (tx, rx) = flume::bounded(1);
        self.submit_text(req, move |r| {
            let _ = tx.send(r);
        });
        beaker_engine::recv_spinning(&rx).unwrap_or_default()
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
        Ok(beaker_engine::recv_spinning(&rx).unwrap_or_default())
    }

    pub(crate) fn submit_found(
        &self,
        dialect: Option<Dialect>,
        capped: bool,
        found: Found,
        req: &TextRequest,
        mut observe: Option<Observe>,
        on_done: impl FnOnce(TextReply) + Send + 'static,
    ) -> Handle {
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
            return Handle::none();
        }
        if let Some(o) = &mut observe {
            o.params = found
                .iter()
                .map(|f| match f {
                    Ok(c) => c.params.clone(),
                    Err(_) => json!({}),
                })
                .collect();
            // The templates put the tools in the system prompt, which every rendering shares and the observation
            // leaves out; a template may still ask whether there are tools, so each called tool is there, by name.
            let mut named: Vec<&String> = tools.iter().filter(|t| !t.is_empty()).collect();
            named.sort();
            named.dedup();
            o.tools = named
                .into_iter()
                .map(|t| {
                    json!({"type": "function", "function": {"name": t, "description": "",
                        "parameters": {"type": "object", "properties": {}}}})
                })
                .collect();
        }
        let gather = Arc::new(Mutex::new(Gather {
            dialect,
            capped,
            slots: vec![None; found.len()],
            tools,
            remaining: found.len(),
            on_done: Some(Box::new(on_done)),
            observe,
        }));
        let base_seed = req.seed.unwrap_or_else(|| {
            stable_hash(&[
                req.tag.as_deref().unwrap_or("").as_bytes(),
                req.key.as_bytes(),
            ])
        });
        // The calls of one text request share its result budget: each may return an equal part of its
        // `max_output_bytes`, so the answer, and what the server holds while gathering it, is bounded by one
        // call's limit however many calls the text holds (and the part is the same on every run).
        let mut limits = req.limits;
        limits.max_output_bytes = Some(self.engine.share_of_output(&req.limits, found.len()));
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
                        limits,
                        meta: None,
                        tag: req.tag.clone(),
                        dataset: req.dataset.clone(),
                        seed: Some(stable_hash(&[
                            &base_seed.to_le_bytes(),
                            &call.index.to_le_bytes(),
                        ])),
                    };
                    let (index, call_id, repaired) = (call.index, call.id, call.repaired);
                    handles.push(self.engine.submit(tc, move |envelope| {
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
                        bad.tool.as_deref().and_then(|t| self.engine.spec(t)),
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
        Handle::calls(handles)
    }
}
