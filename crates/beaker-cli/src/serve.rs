//! `beaker serve`: JSON Lines over stdin/stdout.
//!
//! One reader thread (this one) parses requests and submits them to the engine; responses are sent
//! to one writer thread as they finish, so they come out in completion order. A semaphore of
//! `max_in_flight` permits bounds the calls in flight: when it is exhausted the reader stops reading
//! (backpressure through the pipe). A permit is released when the response is queued for writing.

use crate::config::Settings;
use crate::lines::{read_line_capped, Line};
use beaker_core::{Envelope, ErrorKind, ToolCall, ToolError};
use beaker_engine::dialects::{Dialect, ParseOptions};
use beaker_engine::{CallHandle, Engine, TextReply, TextRequest};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

struct InFlight {
    handles: Vec<CallHandle>,
    tag: Option<String>,
}

/// The keys a text-mode request may carry (besides `text` or `messages`).
const TEXT_KEYS: &[&str] = &[
    "id",
    "text",
    "messages",
    "dialect",
    "lenient",
    "max_calls",
    "limits",
    "tag",
    "seed",
    "meta",
];

/// The most calls a text request may ask to run (`max_calls`); its default is `DEFAULT_MAX_CALLS`.
const MAX_CALLS_CEILING: usize = 4096;

struct Server {
    engine: Engine,
    settings: Settings,
    out: flume::Sender<String>,
    permits: (flume::Sender<()>, flume::Receiver<()>),
    calls: Arc<Mutex<HashMap<String, InFlight>>>,
    seq: u64,
}

pub fn serve(settings: Settings) -> anyhow::Result<()> {
    let engine = settings.engine()?;
    let (out, rx) = flume::unbounded::<String>();
    let writer = std::thread::Builder::new()
        .name("beaker-writer".into())
        .spawn(move || write_loop(rx))?;
    let permits = flume::bounded(settings.max_in_flight);
    let mut server = Server {
        engine,
        settings,
        out,
        permits,
        calls: Arc::new(Mutex::new(HashMap::new())),
        seq: 0,
    };
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::with_capacity(4096);
    loop {
        match read_line_capped(&mut input, &mut buf, server.settings.max_line_bytes)? {
            Line::Eof => break,
            Line::TooLong(n) => server.reply_error(
                None,
                "",
                ErrorKind::ParseError,
                format!(
                    "the request line is {n} bytes; the limit is {}",
                    server.settings.max_line_bytes
                ),
            ),
            Line::Data => server.handle_line(&buf),
        }
    }
    tracing::debug!("stdin closed; draining calls in flight");
    drop(server);
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
    Ok(())
}

fn write_loop(rx: flume::Receiver<String>) {
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    while let Ok(line) = beaker_engine::recv_spinning(&rx) {
        let mut ok = writeln!(w, "{line}").is_ok();
        // Batch whatever else is ready, then flush once.
        while let Ok(line) = rx.try_recv() {
            ok &= writeln!(w, "{line}").is_ok();
        }
        ok &= w.flush().is_ok();
        if !ok {
            tracing::error!("stdout is closed; exiting");
            std::process::exit(1);
        }
    }
}

impl Server {
    fn send(&self, v: &impl serde::Serialize) {
        match serde_json::to_string(v) {
            Ok(s) => {
                let _ = self.out.send(s);
            }
            Err(e) => tracing::error!("cannot serialize a response: {e}"),
        }
    }

    fn reply_error(&self, id: Option<Value>, tool: &str, kind: ErrorKind, msg: String) {
        self.send(&Envelope::failure(id, tool, ToolError::new(kind, msg)));
    }

    fn handle_line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                return self.reply_error(
                    None,
                    "",
                    ErrorKind::ParseError,
                    format!("the request is not valid JSON: {e}"),
                )
            }
        };
        let Value::Object(mut obj) = value else {
            return self.reply_error(
                None,
                "",
                ErrorKind::ParseError,
                "a request must be a JSON object".into(),
            );
        };
        let id = match obj.get("id") {
            None | Some(Value::Null) => None,
            Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
            Some(other) => {
                return self.reply_error(
                    None,
                    "",
                    ErrorKind::ParseError,
                    format!("`id` must be a string or a number, got {other}"),
                )
            }
        };
        if !obj.contains_key("tool") {
            if let Some(v) = obj.remove("cancel") {
                return self.cancel_id(id, v);
            }
            if let Some(v) = obj.remove("cancel_tag") {
                return self.cancel_tag(id, v);
            }
            if obj.contains_key("hello") {
                return self.hello(id);
            }
            if obj.contains_key("text") || obj.contains_key("messages") {
                return self.text_request(id, obj);
            }
        }
        let tool_name = obj
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let call: ToolCall = match serde_json::from_value(Value::Object(obj)) {
            Ok(c) => c,
            Err(e) => {
                return self.reply_error(
                    id,
                    &tool_name,
                    ErrorKind::ParseError,
                    format!("invalid request: {e}"),
                )
            }
        };
        self.submit(call);
    }

    /// Records a request as in flight under its id and returns its key; `None` (the error answered) if the
    /// id is already in flight.
    fn register(&mut self, id: &Option<Value>, tool: &str, tag: Option<String>) -> Option<String> {
        self.seq += 1;
        let key = match id {
            Some(id) => format!("i{id}"),
            None => format!("n{}", self.seq),
        };
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        if calls.contains_key(&key) {
            drop(calls);
            let msg = format!("id {} is already in flight", id.clone().unwrap_or_default());
            self.reply_error(id.clone(), tool, ErrorKind::ParseError, msg);
            return None;
        }
        calls.insert(
            key.clone(),
            InFlight {
                handles: Vec::new(),
                tag,
            },
        );
        Some(key)
    }

    /// What to do when a request is answered: write the line, forget the request, release its permit.
    fn on_answer(&self, key: String) -> impl FnOnce(String) + Send + 'static {
        let out = self.out.clone();
        let permits = self.permits.1.clone();
        let calls = self.calls.clone();
        move |line: String| {
            let _ = out.send(line);
            calls.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
            let _ = permits.try_recv();
        }
    }

    fn set_handles(&self, key: &str, handles: Vec<CallHandle>) {
        if let Some(entry) = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(key)
        {
            entry.handles = handles;
        }
    }

    fn submit(&mut self, call: ToolCall) {
        let Some(key) = self.register(&call.id, &call.tool, call.tag.clone()) else {
            return;
        };
        // Backpressure: block here (not reading stdin) until a call in flight is answered.
        if self.permits.0.send(()).is_err() {
            return;
        }
        let answer = self.on_answer(key.clone());
        let handle = self
            .engine
            .submit(call, move |env| match serde_json::to_string(&env) {
                Ok(s) => answer(s),
                Err(e) => tracing::error!("cannot serialize a response: {e}"),
            });
        self.set_handles(&key, vec![handle]);
    }

    /// Text mode: `{"id", "text", "dialect"?, "lenient"?, ...}` or `{"id", "messages": [...]}`: runs every call
    /// the text holds and answers `{"id", "dialect", "calls", "text" | "messages"}`.
    fn text_request(&mut self, id: Option<Value>, obj: Map<String, Value>) {
        if let Some(k) = obj.keys().find(|k| !TEXT_KEYS.contains(&k.as_str())) {
            let msg = format!(
                "unknown key `{k}` in a text request (allowed: {})",
                TEXT_KEYS.join(", ")
            );
            return self.reply_error(id, "", ErrorKind::ParseError, msg);
        }
        let req = match text_request_fields(&obj) {
            Ok(r) => r,
            Err(msg) => return self.reply_error(id, "", ErrorKind::ParseError, msg),
        };
        if obj.get("messages").is_some_and(|m| !m.is_array()) {
            let msg = "`messages` must be an array".to_string();
            return self.reply_error(id, "", ErrorKind::ParseError, msg);
        }
        let req = TextRequest {
            key: id.as_ref().map(Value::to_string).unwrap_or_default(),
            ..req
        };
        let Some(key) = self.register(&id, "", req.tag.clone()) else {
            return;
        };
        if self.permits.0.send(()).is_err() {
            return;
        }
        let answer = self.on_answer(key.clone());
        let meta = obj.get("meta").cloned();
        let reply_id = id.clone();
        let on_done = move |reply: TextReply| {
            let mut v = Map::new();
            v.insert("id".into(), reply_id.unwrap_or(Value::Null));
            if let Value::Object(m) = reply.to_json() {
                v.extend(m);
            }
            if let Some(meta) = meta {
                v.insert("meta".into(), meta);
            }
            match serde_json::to_string(&v) {
                Ok(s) => answer(s),
                Err(e) => tracing::error!("cannot serialize a response: {e}"),
            }
        };
        let handles = match obj.get("messages") {
            Some(Value::Array(messages)) => {
                match self.engine.submit_messages(messages, &req, on_done) {
                    Ok(h) => h,
                    Err(e) => {
                        // The request never ran: give its slot back and answer it.
                        self.calls
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .remove(&key);
                        let _ = self.permits.1.try_recv();
                        return self.reply_error(id, "", e.kind, e.message);
                    }
                }
            }
            _ => self.engine.submit_text(req, on_done),
        };
        self.set_handles(&key, handles);
    }

    fn cancel_id(&self, id: Option<Value>, target: Value) {
        let handles = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&format!("i{target}"))
            .map(|c| c.handles.clone())
            .unwrap_or_default();
        // Cancel every call of the request (a text request has several); found if any was still running.
        let found = handles.iter().filter(|h| h.cancel()).count() > 0;
        self.send(&json!({"id": id, "success": true, "cancel": target, "found": found}));
    }

    fn cancel_tag(&self, id: Option<Value>, tag: Value) {
        let Some(t) = tag.as_str() else {
            return self.reply_error(
                id,
                "",
                ErrorKind::ParseError,
                "`cancel_tag` must be a string".into(),
            );
        };
        let handles: Vec<CallHandle> = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|c| c.tag.as_deref() == Some(t))
            .flat_map(|c| c.handles.clone())
            .collect();
        let n = handles.iter().filter(|h| h.cancel()).count();
        self.send(&json!({"id": id, "success": true, "cancel_tag": t, "cancelled": n}));
    }

    fn hello(&self, id: Option<Value>) {
        let cfg = self.engine.config();
        let tools: Vec<&str> = self
            .engine
            .specs()
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        let mut hello = Map::new();
        hello.insert("name".into(), json!("beaker"));
        hello.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
        hello.insert("protocol".into(), json!(1));
        hello.insert("tools".into(), json!(tools));
        let dialects: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        hello.insert("dialects".into(), json!(dialects));
        hello.insert("workers".into(), json!(cfg.workers));
        hello.insert("max_in_flight".into(), json!(self.settings.max_in_flight));
        hello.insert("max_line_bytes".into(), json!(self.settings.max_line_bytes));
        hello.insert(
            "limits".into(),
            json!({"defaults": cfg.defaults, "maxima": cfg.maxima}),
        );
        self.send(&json!({"id": id, "success": true, "hello": hello}));
    }
}

/// Reads a text request's options (everything but `id`, `text`/`messages` and `meta`).
pub(crate) fn text_request_fields(obj: &Map<String, Value>) -> Result<TextRequest, String> {
    let text = match obj.get("text") {
        None => String::new(),
        Some(Value::String(t)) => t.clone(),
        Some(other) => return Err(format!("`text` must be a string, got {other}")),
    };
    let dialect = match obj.get("dialect") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) if d == "auto" => None,
        Some(Value::String(d)) => Some(Dialect::from_name(d).ok_or_else(|| {
            format!("unknown dialect `{d}` (auto, svend, tagged, hermes, fenced, openai)")
        })?),
        Some(other) => return Err(format!("`dialect` must be a string, got {other}")),
    };
    let lenient = match obj.get("lenient") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`lenient` must be a boolean, got {other}")),
    };
    let limits = match obj.get("limits") {
        None => Default::default(),
        Some(l) => {
            serde_json::from_value(l.clone()).map_err(|e| format!("invalid `limits`: {e}"))?
        }
    };
    let tag = match obj.get("tag") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => return Err(format!("`tag` must be a string, got {other}")),
    };
    let max_calls = match obj.get("max_calls") {
        None => beaker_engine::dialects::DEFAULT_MAX_CALLS,
        Some(v) => {
            let n = v
                .as_u64()
                .ok_or_else(|| format!("`max_calls` must be a non-negative integer, got {v}"))?;
            usize::try_from(n)
                .unwrap_or(usize::MAX)
                .min(MAX_CALLS_CEILING)
        }
    };
    let seed = match obj.get("seed") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| format!("`seed` must be a non-negative integer, got {v}"))?,
        ),
    };
    Ok(TextRequest {
        text,
        options: ParseOptions {
            dialect,
            lenient,
            max_calls,
            ..ParseOptions::default()
        },
        limits,
        tag,
        seed,
        key: String::new(),
    })
}
