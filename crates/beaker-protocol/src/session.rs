//! One client's requests in flight: ids and tags, handles for cancellation, exactly one answer each.

use crate::dispatch::{Dispatcher, Handle};
use crate::request::{Refusal, Request};
use beaker_core::{ErrorKind, ToolError};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where a session's responses go: one serialized JSON response per call of [`Sink::send`].
pub trait Sink: Send + Sync + 'static {
    /// Sends one response line (without its newline). `finished` is true for the one answer of a request
    /// that [holds a slot](Request::holds_slot); its id is already free again when this is called.
    fn send(&self, line: String, finished: bool);
}

/// What `hello` reports about the transport (the engine reports the rest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionInfo {
    /// Requests the transport lets run at once.
    pub max_in_flight: usize,
    /// The longest request line it reads, in bytes.
    pub max_line_bytes: usize,
    /// Request bytes that may be held by requests in flight at once ([`Session::reserve`]); 0: no bound.
    pub max_queued_bytes: usize,
}

/// The in-flight table's key of a request: `i` and its [`id_key`](crate::id_key), or for a request without an id
/// `n` and a number of its own (`next`), in one string.
fn in_flight_key(id: Option<&Value>, next: impl FnOnce() -> u64) -> String {
    let mut key = String::with_capacity(24);
    match id {
        Some(id) => {
            key.push('i');
            crate::request::push_id_key(&mut key, id);
        }
        None => {
            use std::fmt::Write;
            let _ = write!(key, "n{}", next());
        }
    }
    key
}

struct InFlight {
    handle: Handle,
    tag: Option<String>,
    /// Request bytes reserved for it, given back with its answer.
    bytes: usize,
}

/// Request lines shorter than this are outside the budget of [`Session::reserve`].
pub const SMALL_REQUEST_BYTES: usize = 64 << 10;

/// Room taken in a session's budget of queued request bytes ([`Session::reserve`]); given back when the request
/// it is handed with ([`Session::handle_reserved`]) is answered, or when dropped unused.
pub struct Reservation {
    table: Arc<Table>,
    bytes: usize,
}

impl Reservation {
    fn take(mut self) -> usize {
        std::mem::take(&mut self.bytes)
    }
}

/// A request the transport has read but not yet handed to the session (it is being parsed elsewhere): while
/// one is alive the session is not idle, so EOF and shutdown wait for it. See [`Session::pending`].
pub struct Pending {
    table: Arc<Table>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.table.sent_one();
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.table.release(self.bytes);
    }
}

/// The requests in flight by id, and how many registered requests have not had their answer handed to the
/// sink yet (an id is freed just before its answer is sent, so the two differ for a moment: waiting for
/// "idle" waits for the second).
#[derive(Default)]
struct Table {
    calls: Mutex<HashMap<Arc<str>, InFlight>>,
    unsent: Mutex<usize>,
    all_sent: Condvar,
    /// Request bytes reserved by requests not yet answered, and a wake-up for [`Session::reserve`].
    queued: Mutex<usize>,
    room: Condvar,
}

impl Table {
    fn lock(&self) -> MutexGuard<'_, HashMap<Arc<str>, InFlight>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn unsent(&self) -> MutexGuard<'_, usize> {
        self.unsent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts one answer (or one pending request) as done, waking waiters when none is left.
    fn sent_one(&self) {
        let mut unsent = self.unsent();
        *unsent = unsent.saturating_sub(1);
        if *unsent == 0 {
            self.all_sent.notify_all();
        }
    }

    fn release(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let mut queued = self.queued.lock().unwrap_or_else(|p| p.into_inner());
        *queued = queued.saturating_sub(bytes);
        self.room.notify_all();
    }

    /// Frees `key`, hands `line` to `sink` as a finished answer, then gives back its request bytes and counts
    /// it sent. The bytes go back only after the line is handed over: a request waiting for them cannot be
    /// answered ahead of the answer that made room for it.
    fn answer(&self, key: &str, sink: &dyn Sink, line: String) {
        let freed = self.lock().remove(key);
        sink.send(line, true);
        self.release(freed.map_or(0, |f| f.bytes));
        self.sent_one();
    }
}

/// One client's session: hands its requests to a [`Dispatcher`] and keeps their bookkeeping. Cheap to share
/// (`&self` everywhere); a transport makes one per connection.
pub struct Session {
    dispatcher: Dispatcher,
    info: SessionInfo,
    sink: Arc<dyn Sink>,
    table: Arc<Table>,
    seq: AtomicU64,
    closed: AtomicBool,
}

impl Session {
    /// A session answering into `sink`, running its requests on `dispatcher` (or an engine).
    pub fn new(
        dispatcher: impl Into<Dispatcher>,
        info: SessionInfo,
        sink: Arc<dyn Sink>,
    ) -> Session {
        Session {
            dispatcher: dispatcher.into(),
            info,
            sink,
            table: Arc::new(Table::default()),
            seq: AtomicU64::new(0),
            closed: AtomicBool::new(false),
        }
    }

    /// The engine the session runs on.
    pub fn engine(&self) -> &beaker_engine::Engine {
        self.dispatcher.engine()
    }

    /// Takes `bytes` (a request line's length) from the budget of queued request bytes, waiting while
    /// requests in flight hold too much of it: a transport calls this before parsing a line, so a burst of large
    /// requests waits for earlier ones to finish instead of being parsed into memory all at once. A request
    /// larger than the whole budget waits until nothing else holds any. Lines under [`SMALL_REQUEST_BYTES`]
    /// (control messages, ordinary calls) neither wait nor count, so a `cancel` is read even when the budget is
    /// full. Without a budget it returns at once.
    pub fn reserve(&self, bytes: usize) -> Reservation {
        let max = self.info.max_queued_bytes;
        let bytes = if bytes < SMALL_REQUEST_BYTES {
            0
        } else {
            bytes
        };
        if max > 0 && bytes > 0 {
            let mut queued = self.table.queued.lock().unwrap_or_else(|p| p.into_inner());
            while *queued > 0 && *queued + bytes > max {
                queued = self
                    .table
                    .room
                    .wait(queued)
                    .unwrap_or_else(|p| p.into_inner());
            }
            *queued += bytes;
        }
        Reservation {
            table: self.table.clone(),
            bytes: if max > 0 { bytes } else { 0 },
        }
    }

    /// Marks a request as read but not handed over yet (a transport parsing a large line off its reading
    /// thread): until the guard is dropped, after [`Session::handle`] or [`Session::refuse`], waiting for idle
    /// waits for it too.
    pub fn pending(&self) -> Pending {
        *self.table.unsent() += 1;
        Pending {
            table: self.table.clone(),
        }
    }

    /// Request bytes held by requests in flight (see [`Session::reserve`]).
    pub fn queued_bytes(&self) -> usize {
        *self.table.queued.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// [`Session::handle`] for a request whose line holds `reservation`: the bytes stay taken until the
    /// request is answered (a request that holds no slot gives them back at once).
    pub fn handle_reserved(&self, req: Request, reservation: Reservation) {
        let bytes = if req.holds_slot() {
            reservation.take()
        } else {
            drop(reservation);
            0
        };
        self.handle_sized(req, bytes);
    }

    /// Handles one request: control requests are answered at once, calls and texts when they finish. After
    /// [`Session::close`], a request that would run tools is answered `cancelled` at once.
    pub fn handle(&self, req: Request) {
        self.handle_sized(req, 0);
    }

    fn handle_sized(&self, req: Request, bytes: usize) {
        if req.holds_slot() && self.closed.load(Ordering::SeqCst) {
            self.table.release(bytes);
            let refusal = Refusal {
                id: req.id().cloned(),
                tool: match &req {
                    Request::Call(c) => c.tool.clone(),
                    _ => String::new(),
                },
                error: ToolError::new(
                    ErrorKind::Cancelled,
                    "the server is shutting down; send the request again elsewhere",
                ),
            };
            return self.send(&refusal.envelope(), true);
        }
        match req {
            Request::Cancel { id, target } => self.cancel(id, target),
            Request::CancelTag { id, tag } => self.cancel_tag(id, &tag),
            req if !req.holds_slot() => {
                let sink = self.sink.clone();
                self.dispatcher
                    .dispatch(req, &self.info, move |a| sink.send(a.to_line(), false));
            }
            req => self.run(req, bytes),
        }
    }

    /// Answers a request that could not be read.
    pub fn refuse(&self, refusal: &Refusal) {
        self.send(&refusal.envelope(), false);
    }

    /// Stops taking requests that run tools (they are answered `cancelled`); what is in flight goes on.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }

    /// Cancels every request in flight (each is answered `cancelled`); returns how many calls were cancelled.
    pub fn cancel_all(&self) -> usize {
        let handles: Vec<Handle> = self
            .table
            .lock()
            .values()
            .map(|c| c.handle.clone())
            .collect();
        handles.iter().map(Handle::cancel).sum()
    }

    /// Blocks until no request is in flight or `timeout` has passed; returns whether none is in flight.
    pub fn wait_idle_for(&self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let mut unsent = self.table.unsent();
        while *unsent > 0 {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            unsent = self
                .table
                .all_sent
                .wait_timeout(unsent, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        true
    }

    /// Blocks until every request taken has had its answer handed to the sink.
    pub fn wait_idle(&self) {
        let mut unsent = self.table.unsent();
        while *unsent > 0 {
            unsent = self
                .table
                .all_sent
                .wait(unsent)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    fn send(&self, v: &impl serde::Serialize, finished: bool) {
        match serde_json::to_string(v) {
            Ok(s) => self.sink.send(s, finished),
            Err(e) => tracing::error!("cannot serialize a response: {e}"),
        }
    }

    /// Records a request as in flight under its id and returns its key; `None` (the request answered, its
    /// slot given back) when the id is already in flight.
    fn register(
        &self,
        id: Option<&Value>,
        tool: &str,
        tag: Option<String>,
        bytes: usize,
    ) -> Option<Arc<str>> {
        let key: Arc<str> = Arc::from(in_flight_key(id, || {
            self.seq.fetch_add(1, Ordering::Relaxed)
        }));
        let mut calls = self.table.lock();
        if calls.contains_key(&key) {
            drop(calls);
            self.table.release(bytes);
            let msg = format!(
                "id {} is already in flight; its first request will still be answered",
                id.cloned().unwrap_or_default()
            );
            let refusal = Refusal {
                id: id.cloned(),
                tool: tool.into(),
                error: ToolError::new(ErrorKind::DuplicateId, msg),
            };
            self.send(&refusal.envelope(), true);
            return None;
        }
        calls.insert(
            key.clone(),
            InFlight {
                handle: Handle::none(),
                tag,
                bytes,
            },
        );
        drop(calls);
        *self.table.unsent() += 1;
        Some(key)
    }

    /// What to do with a request's answer: free its id, then send the line (so a client that reuses the id
    /// as soon as it reads the answer is never told the id is still in flight).
    fn on_answer(&self, key: Arc<str>) -> impl FnOnce(String) + Send + 'static {
        let sink = self.sink.clone();
        let table = self.table.clone();
        move |line: String| table.answer(&key, sink.as_ref(), line)
    }

    fn set_handle(&self, key: &str, handle: Handle) {
        if let Some(entry) = self.table.lock().get_mut(key) {
            entry.handle = handle;
        }
    }

    /// A request that runs tools: registered under its id, dispatched, answered once when it finishes.
    fn run(&self, req: Request, bytes: usize) {
        let tag = req.tag().map(str::to_string);
        let Some(key) = self.register(req.id(), req.tool(), tag, bytes) else {
            return;
        };
        let answer = self.on_answer(key.clone());
        let handle = self
            .dispatcher
            .dispatch(req, &self.info, move |a| answer(a.to_line()));
        self.set_handle(&key, handle);
    }

    fn cancel(&self, id: Option<Value>, target: Value) {
        let handle = self
            .table
            .lock()
            .get(in_flight_key(Some(&target), || 0).as_str())
            .map(|c| c.handle.clone())
            .unwrap_or_default();
        // Cancel every call of the request (a text request has several); found if any was still running.
        let found = handle.cancel() > 0;
        self.send(
            &json!({"id": id, "success": true, "cancel": target, "found": found}),
            false,
        );
    }

    fn cancel_tag(&self, id: Option<Value>, tag: &str) {
        let handles: Vec<Handle> = self
            .table
            .lock()
            .values()
            .filter(|c| c.tag.as_deref() == Some(tag))
            .map(|c| c.handle.clone())
            .collect();
        let n: usize = handles.iter().map(Handle::cancel).sum();
        self.send(
            &json!({"id": id, "success": true, "cancel_tag": tag, "cancelled": n}),
            false,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::OnceLock;

    /// A client that reuses id 1 from inside the sink, the moment the first answer arrives: the tightest
    /// possible reuse, deterministic.
    #[derive(Default)]
    struct Reuser {
        session: OnceLock<Arc<Session>>,
        lines: Mutex<Vec<String>>,
        reused: AtomicBool,
    }

    impl Sink for Reuser {
        fn send(&self, line: String, finished: bool) {
            let first = finished && line.contains(r#""value":"56""#);
            self.lines.lock().unwrap().push(line);
            if first && !self.reused.swap(true, Ordering::SeqCst) {
                let again = br#"{"id": 1, "tool": "calculator", "params": {"expression": "6*7"}}"#;
                let req = Request::parse(again).unwrap().unwrap();
                self.session.get().unwrap().handle(req);
            }
        }
    }

    fn engine() -> beaker_engine::Engine {
        let catalog = beaker_catalog::Catalog::empty().with("calculator").unwrap();
        catalog.engine().unwrap()
    }

    #[test]
    fn an_id_is_free_before_its_answer_is_sent() {
        let sink = Arc::new(Reuser::default());
        let session = Arc::new(Session::new(engine(), SessionInfo::default(), sink.clone()));
        let _ = sink.session.set(session.clone());
        let first = br#"{"id": 1, "tool": "calculator", "params": {"expression": "7*8"}}"#;
        session.handle(Request::parse(first).unwrap().unwrap());
        // The reuse is registered from the sink; wait until both answers are in.
        while sink.lines.lock().unwrap().len() < 2 {
            session.wait_idle();
            std::thread::yield_now();
        }
        session.wait_idle();
        let lines = sink.lines.lock().unwrap();
        assert!(lines.iter().all(|l| !l.contains("in flight")), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains(r#""value":"42""#)),
            "{lines:?}"
        );
    }

    #[derive(Default)]
    struct Collect(Mutex<Vec<(String, bool)>>);

    /// Large lines share the budget: one that does not fit waits until an answer gives bytes back; small ones
    /// and control messages never wait; refused and control requests give their bytes back at once.
    #[test]
    fn the_byte_budget_holds_large_requests_until_answers_free_it() {
        let catalog = beaker_catalog::Catalog::empty()
            .with("calculator")
            .unwrap()
            .with("testing")
            .unwrap();
        let engine = catalog.engine().unwrap();
        let info = SessionInfo {
            max_queued_bytes: 3 * SMALL_REQUEST_BYTES,
            ..SessionInfo::default()
        };
        let sink = Arc::new(Collect::default());
        let session = Arc::new(Session::new(engine, info, sink.clone()));
        let big = 2 * SMALL_REQUEST_BYTES;
        let block = br#"{"id": 1, "tool": "_block", "limits": {"timeout_ms": 60000}}"#;
        session.handle_reserved(
            Request::parse(block).unwrap().unwrap(),
            session.reserve(big),
        );
        assert_eq!(session.queued_bytes(), big);
        // Small lines pass a full budget; a control request's reservation is given back at once.
        drop(session.reserve(10));
        let hello = Request::parse(br#"{"id": "h", "hello": {}}"#)
            .unwrap()
            .unwrap();
        session.handle_reserved(hello, session.reserve(big / 2));
        assert_eq!(session.queued_bytes(), big);
        // A duplicate id is refused and its bytes come back.
        let dup = br#"{"id": 1, "tool": "calculator", "params": {"expression": "1"}}"#;
        session.handle_reserved(
            Request::parse(dup).unwrap().unwrap(),
            session.reserve(big / 2),
        );
        assert_eq!(session.queued_bytes(), big);
        let waiting = {
            let session = session.clone();
            std::thread::spawn(move || {
                let r = session.reserve(big);
                let queued = session.queued_bytes();
                drop(r);
                queued
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !waiting.is_finished(),
            "a reservation beyond the budget did not wait"
        );
        let cancel = Request::parse(br#"{"cancel": 1}"#).unwrap().unwrap();
        session.handle(cancel);
        assert_eq!(waiting.join().unwrap(), big);
        session.wait_idle();
        assert_eq!(session.queued_bytes(), 0);
    }

    impl Sink for Collect {
        fn send(&self, line: String, finished: bool) {
            self.0.lock().unwrap().push((line, finished));
        }
    }

    #[test]
    fn every_slot_holding_request_gets_one_finished_answer() {
        let sink = Arc::new(Collect::default());
        let session = Session::new(engine(), SessionInfo::default(), sink.clone());
        let lines = [
            r#"{"id": 1, "tool": "calculator", "params": {"expression": "1+1"}}"#,
            r#"{"id": 2, "tool": "nope", "params": {}}"#,
            r#"{"id": 3, "tool": "calculator", "params": {"expression": 5}}"#,
            r#"{"id": 4, "messages": [{"role": "user", "content": "hi"}]}"#,
            r#"{"id": 5, "text": "no calls here"}"#,
            r#"{"id": 6, "hello": true}"#,
            r#"{"id": 7, "cancel": 99}"#,
        ];
        let mut holding = 0;
        for l in lines {
            let req = Request::parse(l.as_bytes()).unwrap().unwrap();
            holding += usize::from(req.holds_slot());
            session.handle(req);
        }
        session.wait_idle();
        let out = sink.0.lock().unwrap();
        assert_eq!(out.len(), lines.len(), "{out:?}");
        assert_eq!(out.iter().filter(|(_, f)| *f).count(), holding, "{out:?}");
        assert_eq!(holding, 5);
    }
}
