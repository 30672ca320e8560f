//! The one dispatcher: where a request of each kind becomes engine calls, for every front end (stdio's
//! [`Session`](crate::Session), HTTP, MCP and `import beaker`). A front end reads its own wire format, makes a
//! [`Request`] and writes the [`Answer`]; what the request does is decided here only.

use crate::plan::Running;
use crate::request::Request;
use crate::session::SessionInfo;
use beaker_core::{Envelope, ErrorKind, Tenant, ToolCall, ToolError};
use beaker_dialects::Dialect;
use beaker_engine::{CallHandle, Engine};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::sync::Arc;

/// Runs requests on an [`Engine`]: calls, texts and conversations, plans, trajectory requests and `hello`.
/// Cheap to clone; it holds the engine and the worker processes that render chat templates given as source.
#[derive(Clone)]
pub struct Dispatcher {
    pub(crate) engine: Engine,
    /// Where a chat template given as source renders (none when no Beaker binary can be started).
    pub(crate) templates: Option<Arc<beaker_worker::Pool>>,
}

impl From<Engine> for Dispatcher {
    fn from(engine: Engine) -> Dispatcher {
        Dispatcher::new(engine)
    }
}

/// The one answer of a dispatched request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A call's envelope, whether it succeeded or not.
    Envelope(Envelope),
    /// Any other request's answer: `{"id", ...body, "meta"?}` (a text's reply, a plan's report, a
    /// trajectory's figures, `hello`).
    Reply {
        /// The request's id.
        id: Option<Value>,
        /// What the request answers.
        body: Value,
        /// The request's `meta`, echoed.
        meta: Option<Value>,
    },
    /// The request was read but cannot run (a conversation without calls to run, a `cancel` sent where
    /// there is nothing to cancel): its failed envelope.
    Refused(Envelope),
    /// A `stats` or `close` request naming no open trajectory: the failed envelope (without `tool`).
    NotOpen(Value),
}

impl Answer {
    /// The answer as JSON, as every transport writes it: a reply's id first and its `meta` last.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| unwritable(&e))
    }

    /// The answer as one line of JSON (without its newline).
    pub fn to_line(&self) -> String {
        // Room for a typical envelope at once: `to_string` starts at 128 bytes and grows twice on the way.
        let mut line = Vec::with_capacity(512);
        match serde_json::to_writer(&mut line, self) {
            Ok(()) => String::from_utf8(line).unwrap_or_else(|e| unwritable(&e).to_string()),
            Err(e) => unwritable(&e).to_string(),
        }
    }
}

/// Written straight from the envelope or the reply's parts, never through an intermediate `Value`: `{"id",
/// ...body, "meta"?}` for a reply, as [`reply`] builds it.
impl serde::Serialize for Answer {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Answer::Envelope(env) | Answer::Refused(env) => env.serialize(s),
            Answer::NotOpen(v) => v.serialize(s),
            Answer::Reply { id, body, meta } => {
                // Key for key what `reply` builds: a key the body repeats keeps the first place, the later value.
                let fields = body.as_object();
                let mut m = s.serialize_map(None)?;
                match fields.and_then(|f| f.get("id")) {
                    Some(own) => m.serialize_entry("id", own)?,
                    None => m.serialize_entry("id", id)?,
                }
                for (k, v) in fields.into_iter().flatten() {
                    match (k.as_str(), meta) {
                        ("id", _) => {}
                        ("meta", Some(meta)) => m.serialize_entry(k, meta)?,
                        _ => m.serialize_entry(k, v)?,
                    }
                }
                if let Some(meta) = meta
                    .as_ref()
                    .filter(|_| !fields.is_some_and(|f| f.contains_key("meta")))
                {
                    m.serialize_entry("meta", meta)?;
                }
                m.end()
            }
        }
    }
}

/// The failed answer that replaces one that cannot be serialized (a tool returned what JSON cannot hold).
fn unwritable(e: &dyn std::fmt::Display) -> Value {
    tracing::error!("cannot serialize a response: {e}");
    json!({"id": null, "success": false, "error": format!("the answer cannot be written: {e}"),
           "error_kind": "internal", "elapsed_us": 0})
}

/// The answer to a text or plan request: `{"id", ...body, "meta"?}`, the request's id first and its `meta`
/// echoed last, as every transport writes it.
pub fn reply(id: Option<Value>, body: Value, meta: Option<Value>) -> Value {
    let mut v = Map::new();
    v.insert("id".into(), id.unwrap_or(Value::Null));
    if let Value::Object(m) = body {
        v.extend(m);
    }
    if let Some(meta) = meta {
        v.insert("meta".into(), meta);
    }
    Value::Object(v)
}

/// What a dispatched request runs, which can cancel it: nothing (answered at once), one call, the calls of a
/// text, or a plan.
#[derive(Clone, Default)]
pub struct Handle(Kind);

#[derive(Clone, Default)]
enum Kind {
    #[default]
    None,
    Call(CallHandle),
    Calls(Vec<CallHandle>),
    Plan(Arc<Running>),
}

impl Handle {
    /// A request answered at once: nothing to cancel.
    pub fn none() -> Handle {
        Handle(Kind::None)
    }

    pub(crate) fn call(h: CallHandle) -> Handle {
        Handle(Kind::Call(h))
    }

    pub(crate) fn calls(hs: Vec<CallHandle>) -> Handle {
        Handle(Kind::Calls(hs))
    }

    pub(crate) fn plan(running: Arc<Running>) -> Handle {
        Handle(Kind::Plan(running))
    }

    /// Cancels what still runs (each call answered `cancelled`; a plan's running steps cancelled and the rest
    /// skipped); returns how many calls it cancelled (a plan counts as one).
    pub fn cancel(&self) -> usize {
        match &self.0 {
            Kind::None => 0,
            Kind::Call(h) => usize::from(h.cancel()),
            // Every call is cancelled (no short circuit), then counted.
            Kind::Calls(hs) => hs.iter().filter(|h| h.cancel()).count(),
            Kind::Plan(p) => usize::from(p.cancel()),
        }
    }

    /// Whether everything the request runs has been answered.
    pub fn is_done(&self) -> bool {
        match &self.0 {
            Kind::None => true,
            Kind::Call(h) => h.is_done(),
            Kind::Calls(hs) => hs.iter().all(CallHandle::is_done),
            Kind::Plan(p) => p.is_done(),
        }
    }
}

/// Cancels what a handle runs when dropped, unless disarmed: a future whose caller stopped waiting frees its
/// workers at once.
struct CancelOnDrop(Option<Handle>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.cancel();
        }
    }
}

impl Dispatcher {
    /// A dispatcher over `engine`.
    pub fn new(engine: Engine) -> Dispatcher {
        let templates =
            beaker_worker::WorkerCommand::discover(beaker_templates::worker::WORKER_ARG)
                .map(|c| Arc::new(beaker_worker::Pool::new(c, "the chat template")));
        Dispatcher { engine, templates }
    }

    /// The engine it runs on.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The same dispatcher acting for `tenant` (see [`Engine::for_tenant`]).
    pub fn for_tenant(&self, tenant: Tenant) -> Dispatcher {
        Dispatcher {
            engine: self.engine.for_tenant(tenant),
            templates: self.templates.clone(),
        }
    }

    /// Runs one request; `on_done` receives its one answer, on an engine thread (or on this one when it is
    /// answered at once). `info` is what `hello` reports of the transport. `cancel` and `cancel_tag` name
    /// requests of a session, so only a [`Session`](crate::Session) answers them; here they are refused.
    pub fn dispatch(
        &self,
        request: Request,
        info: &SessionInfo,
        on_done: impl FnOnce(Answer) + Send + 'static,
    ) -> Handle {
        match request {
            Request::Call(call) => Handle::call(
                self.engine
                    .submit(call, |env| on_done(Answer::Envelope(env))),
            ),
            Request::Text { id, request, meta } => self.submit_text(request, move |r| {
                on_done(Answer::Reply {
                    id,
                    body: r.to_json(),
                    meta,
                })
            }),
            Request::Messages {
                id,
                messages,
                request,
                meta,
            } => match self.pending_calls(&messages, &request) {
                Ok((found, observe)) => {
                    let done = move |r: crate::TextReply| {
                        on_done(Answer::Reply {
                            id,
                            body: r.to_json(),
                            meta,
                        })
                    };
                    self.submit_found(Some(Dialect::Openai), false, found, &request, observe, done)
                }
                Err(e) => {
                    on_done(Answer::Refused(Envelope::failure(id, "", e)));
                    Handle::none()
                }
            },
            Request::Plan { id, plan, meta } => self.submit_plan(plan, move |r| {
                on_done(Answer::Reply {
                    id,
                    body: r.to_json(),
                    meta,
                })
            }),
            r @ (Request::Trajectory { .. } | Request::Stats { .. } | Request::Close { .. }) => {
                on_done(self.trajectory(r));
                Handle::none()
            }
            Request::Hello { id } => {
                on_done(Answer::Reply {
                    id,
                    body: json!({"success": true, "hello": self.hello(info)}),
                    meta: None,
                });
                Handle::none()
            }
            Request::Cancel { id, .. } | Request::CancelTag { id, .. } => {
                let e = ToolError::new(
                    ErrorKind::ParseError,
                    "`cancel` and `cancel_tag` name requests sent on the same connection: send them on stdio, \
                     where the requests run (HTTP cancels a request when its client disconnects)",
                );
                on_done(Answer::Refused(Envelope::failure(id, "", e)));
                Handle::none()
            }
        }
    }

    /// Runs one request and waits for its answer.
    pub fn answer(&self, request: Request, info: &SessionInfo) -> Answer {
        let (tx, rx) = flume::bounded(1);
        self.dispatch(request, info, move |a| {
            let _ = tx.send(a);
        });
        beaker_engine::recv_spinning(&rx).unwrap_or_else(|_| lost())
    }

    /// Runs one request; the future (executor-agnostic) resolves to its answer. The request starts at once, not
    /// on first poll; dropping the future before it resolves cancels what the request runs.
    pub fn answer_async(
        &self,
        request: Request,
        info: &SessionInfo,
    ) -> impl Future<Output = Answer> + Send + 'static {
        let (tx, rx) = flume::bounded(1);
        let mut guard = CancelOnDrop(Some(self.dispatch(request, info, move |a| {
            let _ = tx.send(a);
        })));
        async move {
            let answer = rx.recv_async().await.unwrap_or_else(|_| lost());
            // Answered: nothing left to cancel.
            guard.disarm();
            answer
        }
    }

    /// Runs one call; the future resolves to its envelope, and dropping it cancels the call (for front ends
    /// whose own requests are calls: `/run_code`, MCP's `tools/call`).
    pub fn call_async(&self, call: ToolCall) -> impl Future<Output = Envelope> + Send + 'static {
        self.engine.call_async(call)
    }

    /// A trajectory request's answer: its figures (after setting its budgets, for `trajectory`), or
    /// [`Answer::NotOpen`] when `stats` or `close` names a trajectory that is not open.
    fn trajectory(&self, request: Request) -> Answer {
        let engine = &self.engine;
        let (id, tag, stats) = match request {
            Request::Trajectory { id, tag, limits } => {
                let stats = Some(engine.set_trajectory_limits(&tag, limits));
                (id, tag, stats)
            }
            Request::Stats { id, tag } => {
                let stats = engine.trajectory_stats(&tag);
                (id, tag, stats)
            }
            Request::Close { id, tag } => {
                let stats = engine.close_trajectory(&tag);
                (id, tag, stats)
            }
            _ => return lost(),
        };
        match stats {
            Some(stats) => Answer::Reply {
                id,
                body: json!({"success": true, "stats": stats}),
                meta: None,
            },
            None => {
                let e = ToolError::new(
                    ErrorKind::InvalidParams,
                    format!("no trajectory `{tag}` is open: it was never used, was closed, or expired after being idle"),
                );
                let mut v = serde_json::to_value(Envelope::failure(id, "", e)).unwrap_or_default();
                if let Some(m) = v.as_object_mut() {
                    m.remove("tool");
                }
                Answer::NotOpen(v)
            }
        }
    }

    /// What `hello` reports: the server, its tools and dialects, its pools and limits, and the transport's own.
    fn hello(&self, info: &SessionInfo) -> Value {
        let engine = &self.engine;
        let cfg = engine.config();
        let tools: Vec<&str> = engine.specs().iter().map(|s| s.name.as_str()).collect();
        let dialects: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
        let memory = engine.memory();
        json!({
            "name": "beaker",
            "version": env!("CARGO_PKG_VERSION"),
            "protocol": crate::PROTOCOL_VERSION,
            "tools": tools,
            "dialects": dialects,
            "workers": cfg.workers,
            "sandbox_workers": cfg.sandbox_workers,
            "max_in_flight": info.max_in_flight,
            "max_queued_bytes": info.max_queued_bytes,
            "max_line_bytes": info.max_line_bytes,
            "max_memory": memory.limit(),
            "memory_used": memory.used(),
            "limits": {"defaults": cfg.defaults, "maxima": cfg.maxima},
        })
    }
}

/// The answer when the engine dropped a request without answering it (it cannot, short of a bug).
fn lost() -> Answer {
    Answer::Refused(Envelope::failure(
        None,
        "",
        ToolError::new(ErrorKind::Internal, "the engine dropped the request"),
    ))
}

/// Runs this process as a chat-template worker when `args` (the process's arguments) say so: the exit code,
/// or `None` otherwise. A binary that serves text requests calls it first thing (tools' workers are
/// `beaker_catalog::run_worker`'s).
pub fn run_worker(args: &[std::ffi::OsString]) -> Option<i32> {
    if args.get(1).and_then(|a| a.to_str()) != Some(beaker_templates::worker::WORKER_ARG) {
        return None;
    }
    let base = beaker_worker::mapped_bytes();
    beaker_worker::limit_address_space(base.saturating_add(beaker_templates::worker::MEMORY));
    Some(beaker_worker::serve(
        |req| match beaker_templates::worker::answer(req) {
            Ok(v) => (beaker_worker::ok(v), true),
            Err(e) => (
                beaker_worker::error(ErrorKind::ToolError, &e.to_string()),
                true,
            ),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer is written as [`reply`] builds it, key for key, whatever its body holds.
    #[test]
    fn a_reply_is_written_as_reply_builds_it() {
        for (id, body, meta) in [
            (
                Some(json!(7)),
                json!({"success": true, "n": 1}),
                Some(json!({"k": [1]})),
            ),
            (None, json!({"success": true}), None),
            (
                Some(json!("a")),
                json!({"id": 9, "meta": 1, "x": 2}),
                Some(json!("m")),
            ),
            (Some(json!("a")), json!({"id": 9, "meta": 1}), None),
            (Some(json!(1)), json!([1, 2]), None),
        ] {
            let want = serde_json::to_string(&reply(id.clone(), body.clone(), meta.clone()));
            let answer = Answer::Reply { id, body, meta };
            assert_eq!(Ok(answer.to_line()), want.map_err(|e| e.to_string()));
        }
    }
}
