//! Beaker's request protocol (docs/PROTOCOL.md) as a library, shared by every front end: `beaker serve` on
//! stdio today, MCP, HTTP and Python next. A transport reads bytes and writes lines; everything between is
//! here:
//!
//! - [`Request::parse`] reads one request (a call, `cancel`, `cancel_tag`, `hello`, a `text` or `messages`
//!   request) or a [`Refusal`] to answer at once;
//! - a [`Session`] runs requests on an [`Engine`] and keeps the bookkeeping of one client: which ids and tags
//!   are in flight, their handles for cancellation, one answer per request.
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

mod request;
mod scan;
mod session;

pub use request::{
    id_in, id_key, parse_dialect, reply, template_option, trajectory_answer, Refusal, Request,
    TextOptions, MAX_CALLS_CEILING, REQUEST_KEYS, TEXT_KEYS,
};
pub use session::{Pending, Reservation, Session, SessionInfo, Sink, SMALL_REQUEST_BYTES};

/// The protocol's version, reported by `hello`.
pub const PROTOCOL_VERSION: u64 = 1;
