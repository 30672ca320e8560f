//! Beaker's request protocol (docs/PROTOCOL.md) as a library, shared by every front end: `beaker serve` on
//! stdio, HTTP, MCP and `import beaker`. A transport reads bytes and writes its own format; everything between
//! is here:
//!
//! - [`Request::parse`] reads one request (a call, `cancel`, `cancel_tag`, `hello`, a trajectory's `trajectory`,
//!   `stats` or `close`, a `text` or `messages` request, a `plan`, `grade`) or a [`Refusal`] to answer at once;
//! - the [`Dispatcher`] is the one place a request of each kind becomes engine calls, with its one [`Answer`];
//!   text mode (every call in a model's text) and tool plans run here, on the engine's calls;
//! - a [`Session`] keeps the bookkeeping of one stdio client: which ids and tags are in flight, their handles for
//!   cancellation, the budget of request bytes, one answer per request.
//!
//! Responses go to a [`Sink`] as finished JSON lines. A request that [holds a slot](Request::holds_slot) is
//! answered by exactly one line sent with `finished = true`, after its id is free again: a transport bounds
//! requests in flight by counting those.
//!
//! ```
//! use beaker_protocol::{Request, Session, SessionInfo, Sink};
//! use std::sync::{Arc, Mutex};
//!
//! struct Lines(Mutex<Vec<String>>);
//! impl Sink for Lines {
//!     fn send(&self, line: String, _finished: bool) {
//!         self.0.lock().unwrap().push(line);
//!     }
//! }
//! let engine = beaker_catalog::Catalog::empty()
//!     .with("calculator")
//!     .unwrap()
//!     .engine()
//!     .unwrap();
//! let lines = Arc::new(Lines(Mutex::new(Vec::new())));
//! let session = Session::new(engine, SessionInfo::default(), lines.clone());
//! let req = Request::parse(br#"{"id": 1, "tool": "calculator", "params": {"expression": "6*7"}}"#);
//! session.handle(req.unwrap().unwrap());
//! session.wait_idle();
//! assert!(lines.0.lock().unwrap()[0].contains(r#""value":"42""#));
//! ```
#![deny(missing_docs)]

mod dispatch;
pub mod listing;
mod plan;
mod request;
mod scan;
mod session;
mod text;

/// The dialects crate, for front ends.
pub use beaker_dialects as dialects;
/// Chat templates (`beaker-templates`): the observation a text request with `template` answers.
pub use beaker_templates as templates;

pub use dispatch::{reply, run_worker, Answer, Dispatcher, Handle};
pub use plan::{
    PlanReport, PlanRequest, PlanStep, StepOutcome, StepReport, Strategy, MAX_PLAN_STEPS, NO_TOOL,
    STEP_KEYS,
};
pub use request::{
    id_in, id_key, parse_dialect, template_option, Refusal, Request, TextOptions,
    MAX_CALLS_CEILING, REQUEST_KEYS, TEXT_KEYS,
};
pub use session::{Pending, Reservation, Session, SessionInfo, Sink, SMALL_REQUEST_BYTES};
pub use text::{TemplateRequest, TextCallResult, TextReply, TextRequest};

/// The protocol's version, reported by `hello`.
pub const PROTOCOL_VERSION: u64 = 1;
