//! Running a scenario against a server child process.

use crate::report::{Report, Samples};
use crate::{Scenario, SplitMix};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How to run a scenario.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's command line (program and arguments); it must speak Beaker's JSON Lines protocol.
    pub server: Vec<String>,
    /// Requests in flight at once (closed loop), or the cap on them with `rate`.
    pub concurrency: usize,
    /// Requests to measure (after the warm-up); with `duration`, whichever ends first.
    pub calls: Option<u64>,
    /// How long to measure.
    pub duration: Option<Duration>,
    /// Requests sent first and not measured.
    pub warmup: u64,
    /// The seed that picks the requests.
    pub seed: u64,
    /// Open loop: requests per second, sent at Poisson-distributed times (closed loop when `None`).
    pub rate: Option<f64>,
    /// How long to wait for the last answers before declaring them lost.
    pub drain: Duration,
    /// A progress line on stderr every second.
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            server: Vec::new(),
            concurrency: 8,
            calls: Some(1000),
            duration: None,
            warmup: 50,
            seed: 1,
            rate: None,
            drain: Duration::from_secs(60),
            progress: false,
        }
    }
}

/// A run that could not produce a trustworthy report.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The server could not be started or talked to.
    #[error("the server: {0}")]
    Server(String),
    /// Answers never came: the run is void.
    #[error("{lost} of {sent} requests were never answered (after waiting {waited:?}); the first: {first}")]
    Lost {
        /// Requests without an answer.
        lost: usize,
        /// Requests sent.
        sent: u64,
        /// How long the run waited.
        waited: Duration,
        /// One of them, as sent.
        first: String,
    },
    /// The server broke the protocol: an answer that is not JSON, names no request, or repeats one.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The options make no run.
    #[error("{0}")]
    Options(String),
}

/// What the reader thread and the sender share.
#[derive(Default)]
struct Shared {
    /// Requests sent and not answered: id -> (sent at, entry).
    pending: HashMap<u64, (Instant, usize)>,
    /// Answers read.
    answered: u64,
    /// The first protocol violation seen.
    violation: Option<String>,
    /// The reader stopped (the server closed its stdout).
    closed: bool,
}

/// Runs `scenario` against a fresh server and reports.
pub fn run(scenario: &Scenario, opts: &Options) -> Result<Report, BenchError> {
    if opts.server.is_empty() {
        return Err(BenchError::Options("no server command".into()));
    }
    if opts.concurrency == 0 {
        return Err(BenchError::Options("concurrency must be at least 1".into()));
    }
    if opts.calls.is_none() && opts.duration.is_none() {
        return Err(BenchError::Options(
            "give a number of calls or a duration".into(),
        ));
    }
    let mut child = Command::new(&opts.server[0])
        .args(&opts.server[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            BenchError::Server(format!("cannot start `{}`: {e}", opts.server.join(" ")))
        })?;
    let result = drive(scenario, opts, &mut child);
    drop(child.stdin.take());
    let _ = child.wait();
    result
}

fn drive(scenario: &Scenario, opts: &Options, child: &mut Child) -> Result<Report, BenchError> {
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| BenchError::Server("no stdin".into()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| BenchError::Server("no stdout".into()))?;
    let shared = Arc::new((Mutex::new(Shared::default()), Condvar::new()));
    let samples = Arc::new(Mutex::new(Samples::new(scenario)));
    let warmup = opts.warmup;
    let reader = {
        let shared = shared.clone();
        let samples = samples.clone();
        std::thread::spawn(move || read_answers(BufReader::new(stdout), &shared, &samples, warmup))
    };
    let mut rng = SplitMix::new(opts.seed);
    let mut arrivals = SplitMix::new(opts.seed ^ 0xa11);
    let mut lines: HashMap<u64, String> = HashMap::new();
    let mut sent: u64 = 0;
    let mut started: Option<Instant> = None;
    let mut next_at = Instant::now();
    let mut last_progress = Instant::now();
    loop {
        if sent == warmup && started.is_none() {
            // Measure from here: wait for the warm-up to be answered first.
            let (m, cv) = &*shared;
            let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
            while !g.pending.is_empty() && !g.closed {
                g = cv.wait(g).unwrap_or_else(|p| p.into_inner());
            }
            drop(g);
            started = Some(Instant::now());
            next_at = Instant::now();
        }
        if let Some(t0) = started {
            let measured = sent - warmup;
            if opts.calls.is_some_and(|n| measured >= n)
                || opts.duration.is_some_and(|d| t0.elapsed() >= d)
            {
                break;
            }
        }
        if let Some(rate) = opts.rate.filter(|_| started.is_some()) {
            let now = Instant::now();
            if next_at > now {
                std::thread::sleep(next_at - now);
            }
            // Exponential gaps: a Poisson process of `rate` arrivals per second.
            let gap = -(1.0 - arrivals.unit()).ln() / rate;
            next_at += Duration::from_secs_f64(gap);
        }
        {
            let (m, cv) = &*shared;
            let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
            // Waiting for a free slot: a server that stops answering must not hang the run.
            let mut answered = g.answered;
            let mut quiet_since = Instant::now();
            while g.pending.len() >= opts.concurrency && !g.closed && g.violation.is_none() {
                if g.answered != answered {
                    answered = g.answered;
                    quiet_since = Instant::now();
                }
                let left = opts.drain.saturating_sub(quiet_since.elapsed());
                if left.is_zero() {
                    return Err(lost(&g, sent, opts.drain, &lines));
                }
                g = cv
                    .wait_timeout(g, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            if let Some(v) = &g.violation {
                return Err(BenchError::Protocol(v.clone()));
            }
            if g.closed {
                return Err(BenchError::Server("the server closed its output".into()));
            }
            let entry = scenario.pick(&mut rng);
            g.pending.insert(sent, (Instant::now(), entry));
            let line = scenario.entries[entry].line(sent);
            drop(g);
            stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush())
                .map_err(|e| BenchError::Server(format!("writing a request: {e}")))?;
            lines.insert(sent, line);
            if lines.len() > 4096 {
                let answered: Vec<u64> = {
                    let g = lock(&shared.0);
                    lines
                        .keys()
                        .filter(|k| !g.pending.contains_key(k))
                        .copied()
                        .collect()
                };
                for k in answered {
                    lines.remove(&k);
                }
            }
        }
        sent += 1;
        if opts.progress && last_progress.elapsed() >= Duration::from_secs(1) {
            last_progress = Instant::now();
            let g = lock(&shared.0);
            eprint!(
                "\r{} sent, {} answered, {} in flight   ",
                sent,
                g.answered,
                g.pending.len()
            );
        }
    }
    // Drain: every request must be answered.
    let deadline = Instant::now() + opts.drain;
    {
        let (m, cv) = &*shared;
        let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
        while !g.pending.is_empty() && !g.closed && Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            g = cv
                .wait_timeout(g, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        if let Some(v) = &g.violation {
            return Err(BenchError::Protocol(v.clone()));
        }
        if !g.pending.is_empty() {
            return Err(lost(&g, sent, opts.drain, &lines));
        }
    }
    let seconds = started.map_or(0.0, |t| t.elapsed().as_secs_f64());
    if opts.progress {
        eprintln!();
    }
    // Read while the server still runs: once it exits, /proc no longer shows its memory.
    let usage = ServerUsage::read(child.id());
    drop(stdin);
    let _ = reader.join();
    let samples = std::mem::replace(
        &mut *samples.lock().unwrap_or_else(|p| p.into_inner()),
        Samples::new(scenario),
    );
    let mut report = samples.report(scenario, sent - warmup, seconds, opts.concurrency);
    report.server_peak_rss_kb = usage.peak_rss_kb;
    report.server_cpu_seconds = usage.cpu_seconds;
    Ok(report)
}

fn read_answers(
    mut out: impl BufRead,
    shared: &Arc<(Mutex<Shared>, Condvar)>,
    samples: &Arc<Mutex<Samples>>,
    warmup: u64,
) {
    let (m, cv) = &**shared;
    let mut line = String::new();
    loop {
        line.clear();
        let n = out.read_line(&mut line).unwrap_or(0);
        let now = Instant::now();
        let mut g = m.lock().unwrap_or_else(|p| p.into_inner());
        if n == 0 {
            g.closed = true;
            cv.notify_all();
            return;
        }
        let parsed: Result<Value, _> = serde_json::from_str(&line);
        let v = match parsed {
            Ok(v) => v,
            Err(e) => {
                g.violation
                    .get_or_insert(format!("an answer is not JSON ({e}): {}", line.trim_end()));
                cv.notify_all();
                continue;
            }
        };
        let Some(id) = v.get("id").and_then(Value::as_u64) else {
            g.violation.get_or_insert(format!(
                "an answer without a request id: {}",
                line.trim_end()
            ));
            cv.notify_all();
            continue;
        };
        let Some((sent_at, entry)) = g.pending.remove(&id) else {
            g.violation.get_or_insert(format!(
                "an answer to id {id}, which is not in flight (answered twice?)"
            ));
            cv.notify_all();
            continue;
        };
        if !v.get("success").is_some_and(Value::is_boolean) {
            g.violation.get_or_insert(format!(
                "an answer without a boolean `success`: {}",
                line.trim_end()
            ));
        }
        g.answered += 1;
        cv.notify_all();
        drop(g);
        if id >= warmup {
            samples.lock().unwrap_or_else(|p| p.into_inner()).record(
                entry,
                now.duration_since(sent_at),
                &v,
            );
        }
    }
}

/// The error for the requests still unanswered after `waited`, naming the oldest as it was sent.
fn lost(g: &Shared, sent: u64, waited: Duration, lines: &HashMap<u64, String>) -> BenchError {
    let first = g.pending.keys().min().copied().unwrap_or(0);
    BenchError::Lost {
        lost: g.pending.len(),
        sent,
        waited,
        first: lines.get(&first).cloned().unwrap_or_default(),
    }
}

fn lock(m: &Mutex<Shared>) -> std::sync::MutexGuard<'_, Shared> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The server's peak memory and CPU time, from `/proc` (zero where it cannot be read).
struct ServerUsage {
    peak_rss_kb: u64,
    cpu_seconds: f64,
}

impl ServerUsage {
    fn read(pid: u32) -> ServerUsage {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let peak_rss_kb = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are the
        // 14th and 15th fields of the line, in clock ticks (100 per second on Linux).
        let cpu_seconds = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect::<Vec<_>>())
            .and_then(|f| Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?))
            .map_or(0.0, |ticks| ticks as f64 / 100.0);
        ServerUsage {
            peak_rss_kb,
            cpu_seconds,
        }
    }
}
