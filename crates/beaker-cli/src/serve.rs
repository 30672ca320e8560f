//! `beaker serve`: the stdio transport of the protocol (`beaker-protocol`), JSON Lines on stdin/stdout.
//!
//! This thread reads lines and hands requests to a [`Session`]; responses go to one writer thread as they
//! finish, so they come out in completion order. A channel of `max_in_flight` permits bounds the requests
//! in flight: when it is exhausted the reader stops reading (backpressure through the pipe). A permit is
//! given back when its request's answer is queued for writing.

use crate::config::Settings;
use crate::lines::{read_line_capped, Line};
use beaker_protocol::{Request, Session, SessionInfo, Sink};
use std::io::{BufWriter, Write};
use std::sync::Arc;

/// The writer's queue and the permits of requests in flight.
struct Stdout {
    lines: flume::Sender<String>,
    permits: flume::Receiver<()>,
}

impl Sink for Stdout {
    fn send(&self, line: String, finished: bool) {
        let _ = self.lines.send(line);
        if finished {
            let _ = self.permits.try_recv();
        }
    }
}

pub fn serve(settings: Settings) -> anyhow::Result<()> {
    let engine = settings.engine()?;
    let (lines, rx) = flume::unbounded::<String>();
    let writer = std::thread::Builder::new()
        .name("beaker-writer".into())
        .spawn(move || write_loop(rx))?;
    let (take, give_back) = flume::bounded(settings.max_in_flight);
    let sink = Arc::new(Stdout {
        lines,
        permits: give_back,
    });
    let info = SessionInfo {
        max_in_flight: settings.max_in_flight,
        max_line_bytes: settings.max_line_bytes,
    };
    let session = Session::new(engine, info, sink);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::with_capacity(4096);
    loop {
        let request = match read_line_capped(&mut input, &mut buf, settings.max_line_bytes)? {
            Line::Eof => break,
            Line::TooLong(n) => Err(Request::too_long(&buf, n, settings.max_line_bytes)),
            Line::Data => Request::parse(&buf),
        };
        match request {
            Ok(None) => {}
            Ok(Some(req)) => {
                // Backpressure: block here (not reading stdin) until a request in flight is answered.
                if req.holds_slot() && take.send(()).is_err() {
                    break;
                }
                session.handle(req);
            }
            Err(refusal) => session.refuse(&refusal),
        }
    }
    tracing::debug!("stdin closed; draining calls in flight");
    session.wait_idle();
    drop(session);
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
