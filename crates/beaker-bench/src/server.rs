//! One server under load: the child process, its transport, and the answers coming back.
//!
//! A [`Server`] lives for a whole run, so `--compare` can alternate measured rounds between two servers that are
//! both warm. Each request gets a fresh numeric id; every answer must name one request in flight, exactly once.

use crate::report::Samples;
use crate::run::{BenchError, Transport};
use crate::scenario::Body;
use crate::{Scenario, SplitMix};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A request sent and not yet answered.
struct Pending {
    /// When the request was due: its send time, or in open loop its arrival time (so the wait for a free slot
    /// counts, as it would for a real arrival).
    sent_at: Instant,
    entry: usize,
    measured: bool,
}

/// What the answer readers and the sender share.
pub(crate) struct Shared {
    pending: HashMap<u64, Pending>,
    answered: u64,
    violation: Option<String>,
    closed: bool,
    first_answer_at: Option<Instant>,
    /// Latencies and outcomes of measured requests.
    pub(crate) samples: Samples,
    /// The first answer to each scenario entry, for `--compare`'s cross-check.
    pub(crate) answers: Vec<Option<Value>>,
    /// The MCP handshake is done.
    ready: bool,
    /// Why the connection broke (HTTP), when it did.
    broken: Option<String>,
}

type SharedState = Arc<(Mutex<Shared>, Condvar)>;

fn lock(m: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// How requests reach the server.
enum Sink {
    /// JSON Lines or MCP JSON-RPC on the child's stdin.
    Pipe(ChildStdin),
    /// HTTP: connection threads take requests from this queue.
    Http(mpsc::Sender<(u64, String)>),
}

/// One phase of sending: how many, how fast, and whether it counts.
pub(crate) struct Phase {
    pub calls: Option<u64>,
    pub duration: Option<Duration>,
    pub rate: Option<f64>,
    pub burst: Option<usize>,
    pub concurrency: usize,
    pub measured: bool,
    pub drain: Duration,
    pub progress: bool,
}

/// A server child process being driven.
pub(crate) struct Server {
    child: Child,
    sink: Option<Sink>,
    transport: Transport,
    shared: SharedState,
    threads: Vec<JoinHandle<()>>,
    next_id: u64,
    /// Requests as sent, kept while unanswered (to name a lost one).
    lines: HashMap<u64, String>,
    spawned_at: Instant,
    /// The generator that picks requests: the same seed gives every server the same sequence.
    rng: SplitMix,
    arrivals: SplitMix,
    /// Watches the memory of the server and its child processes.
    sampler: Sampler,
    /// The last lines the server wrote on stderr, for errors.
    stderr_tail: Arc<Mutex<Tail>>,
}

/// The last lines of a stream, at most 20 lines and 2 KB.
#[derive(Default)]
struct Tail {
    lines: std::collections::VecDeque<String>,
    /// For HTTP: where the server said it listens.
    addr: Option<SocketAddr>,
    /// The stream ended: every line the server wrote is here.
    ended: bool,
}

impl Tail {
    fn push(&mut self, line: String) {
        let mut line = line;
        if line.len() > 300 {
            let mut cut = 300;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push('…');
        }
        self.lines.push_back(line);
        while self.lines.len() > 20 || self.lines.iter().map(String::len).sum::<usize>() > 2048 {
            self.lines.pop_front();
        }
    }
}

impl Server {
    /// Starts `command` and connects to it over `transport` (for HTTP, `connections` keep-alive connections).
    pub(crate) fn start(
        command: &[String],
        transport: Transport,
        scenario: &Scenario,
        connections: usize,
        seed: u64,
        wait: Duration,
    ) -> Result<Server, BenchError> {
        if transport != Transport::Lines {
            if let Some(e) = scenario
                .entries
                .iter()
                .find(|e| !matches!(&e.body, Body::Json(m) if m.contains_key("tool")))
            {
                return Err(BenchError::Options(format!(
                    "the entry `{}` is not a tool call; {} carries tool calls only",
                    e.label,
                    transport.name()
                )));
            }
        }
        let (program, args) = command
            .split_first()
            .ok_or_else(|| BenchError::Options("no server command".into()))?;
        let spawned_at = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                BenchError::Server(format!("cannot start `{}`: {e}", command.join(" ")))
            })?;
        let take = |what: &str| BenchError::Server(format!("the server's {what} is not a pipe"));
        let stdin = child.stdin.take().ok_or_else(|| take("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| take("stdout"))?;
        let stderr = child.stderr.take().ok_or_else(|| take("stderr"))?;
        let stderr_tail = Arc::new(Mutex::new(Tail::default()));
        let shared: SharedState = Arc::new((
            Mutex::new(Shared {
                pending: HashMap::new(),
                answered: 0,
                violation: None,
                closed: false,
                first_answer_at: None,
                samples: Samples::new(scenario),
                answers: vec![None; scenario.entries.len()],
                ready: transport != Transport::Mcp,
                broken: None,
            }),
            Condvar::new(),
        ));
        let sampler = Sampler::start(child.id());
        let mut server = Server {
            child,
            sink: None,
            transport,
            shared: shared.clone(),
            threads: Vec::new(),
            next_id: 0,
            lines: HashMap::new(),
            spawned_at,
            rng: SplitMix::new(seed),
            arrivals: SplitMix::new(seed ^ 0xa11),
            sampler,
            stderr_tail: stderr_tail.clone(),
        };
        {
            let tail = stderr_tail.clone();
            server.threads.push(std::thread::spawn(move || {
                // Bytes, not lines of UTF-8: a server that writes invalid UTF-8 must not stop the draining (its
                // stderr pipe would fill and block it).
                let mut reader = BufReader::new(stderr);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => {
                            tail.lock().unwrap_or_else(|p| p.into_inner()).ended = true;
                            return;
                        }
                        Ok(_) => {}
                    }
                    let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                    let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                    if t.addr.is_none() {
                        t.addr = listening_at(&line);
                    }
                    t.push(line);
                }
            }));
        }
        let result = server.connect(transport, stdin, stdout, connections, wait);
        result.map_err(|e| server.explain(e))?;
        Ok(server)
    }

    fn connect(
        &mut self,
        transport: Transport,
        stdin: ChildStdin,
        stdout: std::process::ChildStdout,
        connections: usize,
        wait: Duration,
    ) -> Result<(), BenchError> {
        let server = self;
        let shared = server.shared.clone();
        match transport {
            Transport::Lines | Transport::Mcp => {
                let shared = shared.clone();
                server.threads.push(std::thread::spawn(move || {
                    read_lines(BufReader::new(stdout), &shared, transport)
                }));
                server.sink = Some(Sink::Pipe(stdin));
                if transport == Transport::Mcp {
                    server.handshake(wait)?;
                }
            }
            Transport::Http => {
                let addr = server.http_address(wait)?;
                // The server's stdin stays open: closing it is how the other transports end a server.
                server.threads.push(std::thread::spawn(move || {
                    let _keep = stdin;
                    let mut sink = std::io::sink();
                    let _ = std::io::copy(&mut BufReader::new(stdout), &mut sink);
                }));
                let (tx, rx) = mpsc::channel::<(u64, String)>();
                let rx = Arc::new(Mutex::new(rx));
                for _ in 0..connections.max(1) {
                    let rx = rx.clone();
                    let shared = shared.clone();
                    server.threads.push(std::thread::spawn(move || {
                        http_connection(addr, &rx, &shared)
                    }));
                }
                server.sink = Some(Sink::Http(tx));
            }
        }
        Ok(())
    }

    /// Waits for the server to say on stderr where it listens (`http://HOST:PORT`).
    fn http_address(&mut self, wait: Duration) -> Result<SocketAddr, BenchError> {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(a) = self
                .stderr_tail
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .addr
            {
                return Ok(a);
            }
            if Instant::now() >= deadline || self.child.try_wait().ok().flatten().is_some() {
                return Err(BenchError::Server(format!(
                    "the server did not print where it listens (`http://HOST:PORT` on stderr) within {wait:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `e` with what the server process says about it: its exit status and the end of its stderr.
    pub(crate) fn explain(&mut self, e: BenchError) -> BenchError {
        // A server that is exiting may need a moment to be reaped and to flush its stderr.
        let mut status = None;
        for _ in 0..20 {
            status = self.child.try_wait().ok().flatten();
            if status.is_some() {
                break;
            }
            if !matches!(e, BenchError::Server(_)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Once it has exited, its last words may still be on their way through the pipe: wait for the reader to
        // see the end (it comes at once, unless a child of the server keeps the pipe open).
        if status.is_some() {
            for _ in 0..50 {
                if self
                    .stderr_tail
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .ended
                {
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let tail: Vec<String> = self
            .stderr_tail
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .lines
            .iter()
            .cloned()
            .collect();
        let mut notes = Vec::new();
        if let Some(s) = status {
            notes.push(format!("the server exited ({s})"));
        }
        if !tail.is_empty() {
            notes.push(format!(
                "its stderr ended with:\n    {}",
                tail.join("\n    ")
            ));
        }
        if notes.is_empty() {
            return e;
        }
        let more = notes.join("; ");
        match e {
            BenchError::Server(m) => BenchError::Server(format!("{m}; {more}")),
            BenchError::Protocol(m) => BenchError::Protocol(format!("{m}; {more}")),
            BenchError::Lost {
                lost,
                sent,
                waited,
                first,
            } => BenchError::Lost {
                lost,
                sent,
                waited,
                first: format!("{first}; {more}"),
            },
            other => other,
        }
    }

    /// MCP's `initialize` exchange, before any call.
    fn handshake(&mut self, wait: Duration) -> Result<(), BenchError> {
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "beaker-bench", "version": env!("CARGO_PKG_VERSION")}}});
        self.write_line(&init.to_string())?;
        let (m, cv) = &*self.shared;
        let deadline = Instant::now() + wait;
        let mut g = lock(m);
        while !g.ready && !g.closed && g.violation.is_none() && Instant::now() < deadline {
            g = cv
                .wait_timeout(g, deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        if let Some(v) = g.violation.clone() {
            drop(g);
            return Err(self.explain(BenchError::Protocol(v)));
        }
        if !g.ready {
            drop(g);
            return Err(self.explain(BenchError::Server(
                "the server did not answer MCP's initialize".into(),
            )));
        }
        drop(g);
        self.write_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
    }

    fn write_line(&mut self, line: &str) -> Result<(), BenchError> {
        match &mut self.sink {
            Some(Sink::Pipe(stdin)) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush())
                .map_err(|e| BenchError::Server(format!("writing a request: {e}"))),
            _ => Err(BenchError::Server("no pipe to write to".into())),
        }
    }

    fn send(&mut self, id: u64, line: String) -> Result<(), BenchError> {
        match &mut self.sink {
            Some(Sink::Http(tx)) => tx
                .send((id, line))
                .map_err(|_| BenchError::Server("every HTTP connection has failed".into())),
            _ => {
                let wire = if self.transport == Transport::Mcp {
                    mcp_request(id, &line)
                } else {
                    line
                };
                self.write_line(&wire)
            }
        }
    }

    /// Time from starting the process to its first answer (for MCP, the `initialize` answer).
    pub(crate) fn first_answer(&self) -> Option<Duration> {
        lock(&self.shared.0)
            .first_answer_at
            .map(|t| t.duration_since(self.spawned_at))
    }

    /// Sends one phase of requests and waits for every answer; returns (requests sent, seconds from the first
    /// send to the last answer).
    pub(crate) fn phase(
        &mut self,
        scenario: &Scenario,
        p: &Phase,
    ) -> Result<(u64, f64), BenchError> {
        let started = Instant::now();
        let mut next_at = started;
        let mut sent: u64 = 0;
        let mut last_progress = Instant::now();
        let mut burst_left = 0usize;
        let cap = p.burst.unwrap_or(p.concurrency).max(1);
        loop {
            if p.calls.is_some_and(|n| sent >= n)
                || p.duration.is_some_and(|d| started.elapsed() >= d)
            {
                break;
            }
            let mut due = None;
            if let Some(rate) = p.rate {
                let now = Instant::now();
                if next_at > now {
                    std::thread::sleep(next_at - now);
                }
                due = Some(next_at);
                // Exponential gaps: a Poisson process of `rate` arrivals per second.
                let gap = -(1.0 - self.arrivals.unit()).ln() / rate;
                next_at += Duration::from_secs_f64(gap);
            }
            {
                let shared = self.shared.clone();
                let (m, cv) = &*shared;
                let mut g = lock(m);
                // A burst is a wave: all of it sent at once, the next when the last answer is in.
                let full = |g: &Shared, left: usize| match p.burst {
                    Some(_) => left == 0 && !g.pending.is_empty(),
                    None => g.pending.len() >= cap,
                };
                // Waiting for room: a server that stops answering must not hang the run.
                let mut answered = g.answered;
                let mut quiet_since = Instant::now();
                while full(&g, burst_left) && !g.closed && g.violation.is_none() {
                    if g.answered != answered {
                        answered = g.answered;
                        quiet_since = Instant::now();
                    }
                    let left = p.drain.saturating_sub(quiet_since.elapsed());
                    if left.is_zero() {
                        let e = self.lost(&g, p.drain);
                        drop(g);
                        return Err(self.explain(e));
                    }
                    g = cv
                        .wait_timeout(g, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
                if let Some(v) = &g.violation {
                    return Err(BenchError::Protocol(v.clone()));
                }
                if g.closed {
                    let why = g
                        .broken
                        .clone()
                        .unwrap_or_else(|| "the server closed its output".into());
                    drop(g);
                    return Err(self.explain(BenchError::Server(why)));
                }
                if p.burst.is_some() && burst_left == 0 {
                    burst_left = cap;
                }
                burst_left = burst_left.saturating_sub(1);
                let entry = scenario.pick(&mut self.rng);
                let id = self.next_id;
                self.next_id += 1;
                g.pending.insert(
                    id,
                    Pending {
                        sent_at: due.unwrap_or_else(Instant::now),
                        entry,
                        measured: p.measured,
                    },
                );
                drop(g);
                let line = scenario.entries[entry].line(id);
                self.lines.insert(id, line.clone());
                if let Err(e) = self.send(id, line) {
                    return Err(self.explain(e));
                }
            }
            sent += 1;
            if self.lines.len() > 4096 {
                let g = lock(&self.shared.0);
                self.lines.retain(|k, _| g.pending.contains_key(k));
            }
            if p.progress && last_progress.elapsed() >= Duration::from_secs(1) {
                last_progress = Instant::now();
                let g = lock(&self.shared.0);
                eprint!(
                    "\r{} sent, {} answered, {} in flight   ",
                    sent,
                    g.answered,
                    g.pending.len()
                );
            }
        }
        // Drain: every request must be answered.
        let deadline = Instant::now() + p.drain;
        let shared = self.shared.clone();
        let (m, cv) = &*shared;
        let mut g = lock(m);
        while !g.pending.is_empty()
            && !g.closed
            && g.violation.is_none()
            && Instant::now() < deadline
        {
            let left = deadline.saturating_duration_since(Instant::now());
            g = cv
                .wait_timeout(g, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        if let Some(v) = &g.violation {
            return Err(BenchError::Protocol(v.clone()));
        }
        if !g.pending.is_empty() {
            let e = self.lost(&g, p.drain);
            drop(g);
            return Err(self.explain(e));
        }
        if p.progress {
            eprint!("\r{:60}\r", "");
        }
        Ok((sent, started.elapsed().as_secs_f64()))
    }

    /// The error for the requests still unanswered after `waited`, naming the oldest as it was sent.
    fn lost(&self, g: &Shared, waited: Duration) -> BenchError {
        let first = g.pending.keys().min().copied().unwrap_or(0);
        BenchError::Lost {
            lost: g.pending.len(),
            sent: self.next_id,
            waited,
            first: self.lines.get(&first).cloned().unwrap_or_default(),
        }
    }

    /// The samples and first answers gathered so far.
    pub(crate) fn take(&self, scenario: &Scenario) -> (Samples, Vec<Option<Value>>) {
        let mut g = lock(&self.shared.0);
        let samples = std::mem::replace(&mut g.samples, Samples::new(scenario));
        let answers = std::mem::take(&mut g.answers);
        (samples, answers)
    }

    /// Reads the server's usage while it still runs, then ends it.
    pub(crate) fn finish(mut self) -> ServerUsage {
        let usage = self.sampler.stop();
        self.sink = None;
        if self.transport == Transport::Http {
            // An HTTP server does not end when its stdin closes.
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        usage
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A run that failed half-way must not leave its server running.
        self.sink = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Handles one answer (already in Beaker's envelope shape): matches it to its request and records it.
fn on_answer(shared: &SharedState, v: Value, raw: &str) {
    let now = Instant::now();
    let (m, cv) = &**shared;
    let mut g = lock(m);
    g.first_answer_at.get_or_insert(now);
    let Some(id) = v.get("id").and_then(Value::as_u64) else {
        g.violation.get_or_insert(format!(
            "an answer without a request id: {}",
            raw.trim_end()
        ));
        cv.notify_all();
        return;
    };
    let Some(p) = g.pending.remove(&id) else {
        g.violation.get_or_insert(format!(
            "an answer to id {id}, which is not in flight (answered twice?)"
        ));
        cv.notify_all();
        return;
    };
    if !v.get("success").is_some_and(Value::is_boolean) {
        g.violation.get_or_insert(format!(
            "an answer without a boolean `success`: {}",
            raw.trim_end()
        ));
    }
    g.answered += 1;
    if p.measured {
        g.samples.record(p.entry, now.duration_since(p.sent_at), &v);
        // Cross-checked answers come from measured rounds only: a warm-up may still be loading the server.
        if let Some(slot @ None) = g.answers.get_mut(p.entry) {
            *slot = Some(v);
        }
    }
    cv.notify_all();
}

fn violation(shared: &SharedState, message: String) {
    let (m, cv) = &**shared;
    lock(m).violation.get_or_insert(message);
    cv.notify_all();
}

fn read_lines(mut out: impl BufRead, shared: &SharedState, transport: Transport) {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            let (m, cv) = &**shared;
            lock(m).closed = true;
            cv.notify_all();
            return;
        }
        let v: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                violation(
                    shared,
                    format!("an answer is not JSON ({e}): {}", line.trim_end()),
                );
                continue;
            }
        };
        if transport == Transport::Mcp {
            match from_mcp(v) {
                McpMessage::Answer(v) => on_answer(shared, v, &line),
                McpMessage::Initialized => {
                    let (m, cv) = &**shared;
                    let mut g = lock(m);
                    g.ready = true;
                    g.first_answer_at.get_or_insert(Instant::now());
                    cv.notify_all();
                }
                McpMessage::NotMcp(answer) => violation(
                    shared,
                    format!(
                        "the server does not speak MCP: it answered `initialize` with {answer}"
                    ),
                ),
                McpMessage::Other => {}
            }
        } else {
            on_answer(shared, v, &line);
        }
    }
}

/// A tool call as MCP's `tools/call`; limits go in `_meta` as `beaker/limits`.
fn mcp_request(id: u64, line: &str) -> String {
    let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
    let mut params =
        json!({"name": v.get("tool"), "arguments": v.get("params").cloned().unwrap_or(json!({}))});
    if let Some(limits) = v.get("limits") {
        params["_meta"] = json!({"beaker/limits": limits});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

enum McpMessage {
    Answer(Value),
    Initialized,
    /// An answer to `initialize` that is not JSON-RPC: the server speaks another protocol.
    NotMcp(String),
    Other,
}

/// An MCP message as Beaker's envelope: `structuredContent` is the result; a failure's kind is in `_meta`.
fn from_mcp(v: Value) -> McpMessage {
    if v.get("id") == Some(&json!("init")) {
        if v.get("jsonrpc").is_none() {
            return McpMessage::NotMcp(v.to_string());
        }
        return McpMessage::Initialized;
    }
    let Some(id) = v.get("id").filter(|_| v.get("method").is_none()).cloned() else {
        // Notifications and the server's own requests (progress, logging) are not answers.
        return McpMessage::Other;
    };
    if let Some(err) = v.get("error") {
        return McpMessage::Answer(json!({
            "id": id, "success": false, "error_kind": "rpc_error",
            "error": err.get("message").cloned().unwrap_or(Value::Null),
        }));
    }
    let r = v.get("result").cloned().unwrap_or(Value::Null);
    let failed = r.get("isError").and_then(Value::as_bool).unwrap_or(false);
    let meta = r.get("_meta").cloned().unwrap_or(Value::Null);
    McpMessage::Answer(if failed {
        json!({"id": id, "success": false,
               "error_kind": meta.get("beaker/error_kind").cloned().unwrap_or(json!("?")),
               "fault": meta.get("beaker/fault")})
    } else {
        json!({"id": id, "success": true, "result": r.get("structuredContent")})
    })
}

/// The address in a line like `beaker: serving HTTP on http://127.0.0.1:41234`.
fn listening_at(line: &str) -> Option<SocketAddr> {
    let at = line.find("http://")?;
    let rest = &line[at + "http://".len()..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '/')
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// One keep-alive connection: takes requests from the queue, posts each to `/v1/call`, hands over the answer.
fn http_connection(
    addr: SocketAddr,
    rx: &Mutex<mpsc::Receiver<(u64, String)>>,
    shared: &SharedState,
) {
    let mut conn: Option<BufReader<TcpStream>> = None;
    loop {
        let job = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok((_, body)) = job else { return };
        // A kept-alive connection the server closed before answering is opened again once; a request that may
        // have been answered is never sent twice (the tool would run twice).
        let reused = conn.is_some();
        let mut answer = post(&mut conn, addr, &body);
        if let Err(Failed {
            unanswered: true, ..
        }) = &answer
        {
            if reused {
                conn = None;
                answer = post(&mut conn, addr, &body);
            }
        }
        match answer {
            Ok(text) => match serde_json::from_str::<Value>(&text) {
                Ok(v) => on_answer(shared, v, &text),
                Err(e) => violation(shared, format!("an answer is not JSON ({e}): {text}")),
            },
            Err(Failed { error: e, .. }) => {
                let (m, cv) = &**shared;
                let mut g = lock(m);
                g.broken.get_or_insert(format!("HTTP: {e}"));
                g.closed = true;
                cv.notify_all();
                return;
            }
        }
    }
}

/// A failed exchange: why, and whether the server can have seen no request (nothing of an answer was read).
struct Failed {
    error: std::io::Error,
    unanswered: bool,
}

/// `POST /v1/call` on a kept-alive HTTP/1.1 connection; the response body.
fn post(
    conn: &mut Option<BufReader<TcpStream>>,
    addr: SocketAddr,
    body: &str,
) -> Result<String, Failed> {
    let mut read_any = false;
    exchange(conn, addr, body, &mut read_any).map_err(|error| Failed {
        error,
        unanswered: !read_any,
    })
}

fn exchange(
    conn: &mut Option<BufReader<TcpStream>>,
    addr: SocketAddr,
    body: &str,
    read_any: &mut bool,
) -> std::io::Result<String> {
    if conn.is_none() {
        let s = TcpStream::connect(addr)?;
        s.set_nodelay(true)?;
        *conn = Some(BufReader::new(s));
    }
    let Some(c) = conn.as_mut() else {
        return Err(std::io::Error::other("no connection"));
    };
    let head = format!(
        "POST /v1/call HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let s = c.get_mut();
    s.write_all(head.as_bytes())?;
    s.write_all(body.as_bytes())?;
    let mut line = String::new();
    let mut length = None;
    let mut first = true;
    loop {
        line.clear();
        if c.read_line(&mut line)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            ));
        }
        *read_any = true;
        let l = line.trim_end();
        if first {
            first = false;
            if !l.starts_with("HTTP/1.") {
                return Err(std::io::Error::other(format!("not an HTTP response: {l}")));
            }
            continue;
        }
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse::<usize>().ok();
            }
        }
    }
    let n = length.ok_or_else(|| std::io::Error::other("a response without Content-Length"))?;
    let mut buf = vec![0; n];
    c.read_exact(&mut buf)?;
    String::from_utf8(buf).map_err(|e| std::io::Error::other(e.to_string()))
}

/// The server's peak memory and CPU time, its child processes included (a Python server's workers and
/// subprocesses are part of what it costs), from `/proc`; zero where it cannot be read.
pub(crate) struct ServerUsage {
    pub peak_rss_kb: u64,
    pub cpu_seconds: f64,
}

/// A thread that sums the resident memory of the server's process tree every 20 ms and keeps the peak.
struct Sampler {
    root: u32,
    stop: Arc<(Mutex<bool>, Condvar)>,
    peak_kb: Arc<Mutex<u64>>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    fn start(root: u32) -> Sampler {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let peak_kb = Arc::new(Mutex::new(0));
        let thread = {
            let (stop, peak_kb) = (stop.clone(), peak_kb.clone());
            std::thread::spawn(move || loop {
                let rss: u64 = tree(root).iter().map(|&p| status_kb(p, "VmRSS:")).sum();
                let mut peak = peak_kb.lock().unwrap_or_else(|p| p.into_inner());
                *peak = (*peak).max(rss);
                drop(peak);
                let (m, cv) = &*stop;
                let g = m.lock().unwrap_or_else(|p| p.into_inner());
                let (g, _) = cv
                    .wait_timeout(g, Duration::from_millis(20))
                    .unwrap_or_else(|p| p.into_inner());
                if *g {
                    return;
                }
            })
        };
        Sampler {
            root,
            stop,
            peak_kb,
            thread: Some(thread),
        }
    }

    /// The figures, read while the server still runs (once it exits, /proc no longer shows it).
    fn stop(&mut self) -> ServerUsage {
        let pids = tree(self.root);
        // The kernel's own high-water mark of the server process catches a peak between two samples.
        let hwm = status_kb(self.root, "VmHWM:");
        let ticks: u64 = pids
            .iter()
            .map(|&p| {
                // utime, stime, and the children's cutime and cstime (subprocesses already reaped): fields 14-17.
                let f = stat_fields(p);
                (11..15)
                    .filter_map(|i| f.get(i)?.parse::<u64>().ok())
                    .sum::<u64>()
            })
            .sum();
        let (m, cv) = &*self.stop;
        *m.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let sampled = *self.peak_kb.lock().unwrap_or_else(|p| p.into_inner());
        ServerUsage {
            peak_rss_kb: sampled.max(hwm),
            cpu_seconds: ticks as f64 / 100.0,
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        let (m, cv) = &*self.stop;
        *m.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cv.notify_all();
    }
}

/// The fields of /proc/PID/stat after the command name (which may hold spaces, inside parentheses): index 0 is
/// the state, 1 the parent's pid, 11 and 12 utime and stime in clock ticks (100 per second on Linux).
fn stat_fields(pid: u32) -> Vec<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

fn status_kb(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// `root` and every process descended from it.
fn tree(root: u32) -> Vec<u32> {
    let mut parent: Vec<(u32, u32)> = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            if let Some(ppid) = stat_fields(pid).get(1).and_then(|p| p.parse().ok()) {
                parent.push((pid, ppid));
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        out.extend(parent.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    out
}
