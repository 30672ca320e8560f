//! `beaker serve`: JSON Lines over stdin/stdout.
//!
//! One reader thread (this one) parses requests and submits them to the engine; responses are sent
//! to one writer thread as they finish, so they come out in completion order. A semaphore of
//! `max_in_flight` permits bounds the calls in flight: when it is exhausted the reader stops reading
//! (backpressure through the pipe). A permit is released when the response is queued for writing.

use crate::config::Settings;
use crate::lines::{read_line_capped, Line};
use beaker_core::{Envelope, ErrorKind, ToolCall, ToolError};
use beaker_engine::{CallHandle, Engine};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex};

struct InFlight {
    handle: Option<CallHandle>,
    tag: Option<String>,
}

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

    fn submit(&mut self, call: ToolCall) {
        self.seq += 1;
        let key = match &call.id {
            Some(id) => format!("i{id}"),
            None => format!("n{}", self.seq),
        };
        {
            let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
            if calls.contains_key(&key) {
                drop(calls);
                let msg = format!(
                    "id {} is already in flight",
                    call.id.clone().unwrap_or_default()
                );
                return self.reply_error(call.id, &call.tool, ErrorKind::ParseError, msg);
            }
            calls.insert(
                key.clone(),
                InFlight {
                    handle: None,
                    tag: call.tag.clone(),
                },
            );
        }
        // Backpressure: block here (not reading stdin) until a call in flight is answered.
        if self.permits.0.send(()).is_err() {
            return;
        }
        let out = self.out.clone();
        let permits = self.permits.1.clone();
        let calls = self.calls.clone();
        let done_key = key.clone();
        let handle = self.engine.submit(call, move |env| {
            match serde_json::to_string(&env) {
                Ok(s) => {
                    let _ = out.send(s);
                }
                Err(e) => tracing::error!("cannot serialize a response: {e}"),
            }
            calls
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&done_key);
            let _ = permits.try_recv();
        });
        if let Some(entry) = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&key)
        {
            entry.handle = Some(handle);
        }
    }

    fn cancel_id(&self, id: Option<Value>, target: Value) {
        let handle = self
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&format!("i{target}"))
            .and_then(|c| c.handle.clone());
        let found = handle.is_some_and(|h| h.cancel());
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
            .filter_map(|c| c.handle.clone())
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
