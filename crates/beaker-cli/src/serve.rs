//! `beaker serve`: the stdio transport of the protocol (`beaker-protocol`), JSON Lines on stdin/stdout.
//!
//! This thread reads lines and hands requests to a [`Session`]; responses go to one writer thread as they
//! finish, so they come out in completion order. A channel of `max_in_flight` permits bounds the requests
//! in flight: when it is exhausted the reader stops reading (backpressure through the pipe). A permit is
//! given back when its request's answer is queued for writing. The writer's queue is bounded too: a client
//! that stops reading stdout stops the server from answering, which stops it from reading, instead of
//! letting answers pile up in memory.
//!
//! On SIGTERM or SIGINT the server stops taking requests that run tools (they are answered `cancelled`),
//! lets calls in flight finish for up to `drain_ms`, answers the rest `cancelled`, flushes and exits 0. A
//! second signal exits at once (status 130).

use crate::config::Settings;
use crate::lines::{read_line_capped, Line};
use anyhow::Context;
use beaker_core::{MemoryBudget, Reservation};
use beaker_protocol::{Request, Session, SessionInfo, Sink};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::time::Duration;

/// Request lines at least this long are parsed on a thread of their own, so the reader goes on.
const PARSE_ELSEWHERE_BYTES: usize = 1 << 20;

/// What the writer thread is sent.
enum Out {
    /// A response line, and its bytes reserved from the memory budget until it is written.
    Line(String, Reservation),
    /// Flush everything before this and exit the process with this status.
    Exit(i32),
}

/// The writer's queue and the permits of requests in flight.
struct Stdout {
    lines: flume::Sender<Out>,
    permits: flume::Receiver<()>,
    /// The process's memory budget, which answers waiting to be written reserve from.
    memory: MemoryBudget,
}

impl Sink for Stdout {
    fn send(&self, line: String, finished: bool) {
        let reservation = self.reserve(line.len() as u64);
        let _ = self.lines.send(Out::Line(line, reservation));
        if finished {
            let _ = self.permits.try_recv();
        }
    }
}

impl Stdout {
    /// Reserves an answer's bytes, waiting while the budget is spent and answers of ours wait to be written (a
    /// client that does not read holds up the calls that answer it, not the process's memory). With none
    /// waiting, the answer goes out whatever the budget says: only writing frees what the writer holds.
    fn reserve(&self, bytes: u64) -> Reservation {
        loop {
            match self
                .memory
                .try_reserve_answer(bytes, "an answer waiting for the client to read it")
            {
                Ok(r) => return r,
                Err(_) if self.memory.answers() == 0 => return self.memory.force_answer(bytes),
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    }
}

/// `beaker serve --http ADDR`: the HTTP front end (`beaker-http`) on a Tokio runtime of its own; the engine's
/// worker pools do the tool work, the runtime only moves bytes.
pub fn serve_http(
    settings: Settings,
    addr: std::net::SocketAddr,
    tokens_path: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    let tokens = match tokens_path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading bearer tokens from {}", path.display()))?;
            beaker_http::parse_tokens(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        None => Vec::new(),
    };
    // A token file with no token in it would silently serve without authentication.
    anyhow::ensure!(
        tokens_path.is_none() || !tokens.is_empty(),
        "no bearer token in the --http-tokens file"
    );
    let engine = settings.engine()?;
    engine.warm_up();
    if !addr.ip().is_loopback() && tokens.is_empty() {
        eprintln!(
            "beaker: serving HTTP on {addr}, reachable from other machines, without --http-tokens: anyone who can reach it can run code"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        eprintln!("beaker: serving HTTP on http://{}", listener.local_addr()?);
        let mut options = beaker_http::Options {
            max_body_bytes: settings.max_line_bytes,
            max_in_flight: settings.max_in_flight,
            tokens,
            ..beaker_http::Options::default()
        };
        let ms = std::time::Duration::from_millis;
        if let Some(t) = settings.http_timeouts_ms.0 {
            options.header_timeout = ms(t.max(1));
        }
        if let Some(t) = settings.http_timeouts_ms.1 {
            options.body_timeout = ms(t.max(1));
        }
        if let Some(n) = settings.http_waiting.0 {
            options.max_waiting = n;
        }
        if let Some(t) = settings.http_waiting.1 {
            options.max_wait = ms(t);
        }
        beaker_http::serve(listener, engine, options).await?;
        anyhow::Ok(())
    })
}

/// `beaker serve --mcp`: one MCP session on stdio (`beaker-mcp`), until the client closes stdin.
pub fn serve_mcp(settings: Settings) -> anyhow::Result<()> {
    let engine = settings.engine()?;
    engine.warm_up();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let options = beaker_mcp::Options {
        max_in_flight: settings.max_in_flight,
        max_line_bytes: settings.max_line_bytes,
        ..beaker_mcp::Options::default()
    };
    runtime.block_on(beaker_mcp::serve_stdio(engine, options))?;
    // Calls a client abandoned by hanging up are cancelled with the engine; nothing waits for them.
    runtime.shutdown_background();
    Ok(())
}

pub fn serve(settings: Settings) -> anyhow::Result<()> {
    let engine = settings.engine()?;
    engine.warm_up();
    // Room for every answer in flight plus control answers; beyond it, answering waits for the client to read.
    let (lines, rx) = flume::bounded::<Out>(settings.max_in_flight.saturating_mul(2).max(64));
    let writer = std::thread::Builder::new()
        .name("beaker-writer".into())
        .spawn(move || write_loop(rx))?;
    let (take, give_back) = flume::bounded(settings.max_in_flight);
    let sink = Arc::new(Stdout {
        lines: lines.clone(),
        permits: give_back,
        memory: engine.memory().clone(),
    });
    let info = SessionInfo {
        max_in_flight: settings.max_in_flight,
        max_line_bytes: settings.max_line_bytes,
        max_queued_bytes: settings.max_queued_bytes,
    };
    let session = Arc::new(Session::new(engine, info, sink));
    on_signals(
        session.clone(),
        lines.clone(),
        Duration::from_millis(settings.drain_ms),
    )?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::with_capacity(4096);
    loop {
        let (request, reservation) =
            match read_line_capped(&mut input, &mut buf, settings.max_line_bytes)? {
                Line::Eof => break,
                Line::TooLong(n) => (
                    Err(Request::too_long(&buf, n, settings.max_line_bytes)),
                    None,
                ),
                Line::Data if buf.len() >= PARSE_ELSEWHERE_BYTES => {
                    // Parsing megabytes takes long enough to hold up the small requests behind it.
                    let reservation = session.reserve(buf.len());
                    let pending = session.pending();
                    let line = std::mem::take(&mut buf);
                    let (session, take) = (session.clone(), take.clone());
                    std::thread::Builder::new()
                        .name("beaker-parse".into())
                        .spawn(move || {
                            match Request::parse(&line) {
                                Ok(Some(req)) => {
                                    if !req.holds_slot() || take.send(()).is_ok() {
                                        session.handle_reserved(req, reservation);
                                    }
                                }
                                Ok(None) => {}
                                Err(refusal) => session.refuse(&refusal),
                            }
                            drop(pending);
                        })?;
                    continue;
                }
                Line::Data => {
                    // Memory backpressure before parsing: a parsed request takes many times its bytes.
                    let reservation = session.reserve(buf.len());
                    (Request::parse(&buf), Some(reservation))
                }
            };
        match (request, reservation) {
            (Ok(Some(req)), Some(reservation)) => {
                // Backpressure: block here (not reading stdin) until a request in flight is answered.
                if req.holds_slot() && take.send(()).is_err() {
                    break;
                }
                session.handle_reserved(req, reservation);
            }
            (Ok(Some(req)), None) => session.handle(req),
            (Ok(None), _) => {}
            (Err(refusal), _) => session.refuse(&refusal),
        }
    }
    tracing::debug!("stdin closed; draining calls in flight");
    session.wait_idle();
    // The writer flushes every answer queued before this and ends the process.
    let _ = lines.send(Out::Exit(0));
    writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
    Ok(())
}

/// Drains and exits on the first SIGTERM or SIGINT (see the module docs); exits at once on a second.
fn on_signals(
    session: Arc<Session>,
    lines: flume::Sender<Out>,
    drain: Duration,
) -> anyhow::Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])?;
    std::thread::Builder::new()
        .name("beaker-signals".into())
        .spawn(move || {
            let mut signals = signals.forever();
            let Some(signal) = signals.next() else {
                return;
            };
            tracing::info!(
                signal,
                "stopping: no new calls, draining the calls in flight"
            );
            std::thread::Builder::new()
                .name("beaker-drain".into())
                .spawn(move || {
                    session.close();
                    if !session.wait_idle_for(drain) {
                        let n = session.cancel_all();
                        tracing::info!(cancelled = n, "cancelled the calls still in flight");
                        session.wait_idle();
                    }
                    let _ = lines.send(Out::Exit(0));
                })
                .ok();
            if signals.next().is_some() {
                std::process::exit(130);
            }
        })?;
    Ok(())
}

fn write_loop(rx: flume::Receiver<Out>) {
    let stdout = std::io::stdout();
    let mut w = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut exit = None;
    // Blocking, not spinning: the writer waits far more often than it writes, and a yield loop on a busy 2-core
    // machine takes the CPU from the workers that produce the answers (issue 39: 6 % of samples in
    // `sched_yield`). Whatever else is ready when it wakes is written in the same batch.
    while let Ok(first) = rx.recv() {
        let mut ok = true;
        // Batch whatever else is ready, then flush once.
        for out in std::iter::once(first).chain(std::iter::from_fn(|| rx.try_recv().ok())) {
            match out {
                Out::Line(line, reservation) => {
                    ok &= writeln!(w, "{line}").is_ok();
                    // Buffered or written, the line is out of the queue; its memory goes with the reservation.
                    drop((line, reservation));
                }
                Out::Exit(status) => {
                    exit = Some(status);
                    break;
                }
            }
        }
        ok &= w.flush().is_ok();
        if !ok {
            tracing::error!("stdout is closed; exiting");
            std::process::exit(1);
        }
        if let Some(status) = exit {
            std::process::exit(status);
        }
    }
}
