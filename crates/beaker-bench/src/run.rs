//! Running a scenario against one server, or against two in alternating rounds.

use crate::check::{differ, Difference, Tolerance};
use crate::report::{Comparison, Report};
use crate::server::{Phase, Server};
use crate::Scenario;
use std::time::Duration;

/// How requests travel to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Beaker's JSON Lines on the child's stdin and stdout (`beaker serve`).
    Lines,
    /// MCP JSON-RPC on stdio (`beaker serve --mcp`): `initialize`, then one `tools/call` per request.
    Mcp,
    /// HTTP/1.1 `POST /v1/call` on keep-alive connections, one per request in flight (`beaker serve --http`);
    /// the server must print `http://HOST:PORT` on its stderr.
    Http,
}

impl Transport {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Lines => "jsonl",
            Transport::Mcp => "mcp",
            Transport::Http => "http",
        }
    }
}

/// How to run a scenario.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's command line (program and arguments).
    pub server: Vec<String>,
    /// How requests reach it.
    pub transport: Transport,
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
    /// Bursts: this many requests sent at once, the next wave when all are answered (a generation step's
    /// calls arriving together).
    pub burst: Option<usize>,
    /// How long to wait for the last answers before declaring them lost (and for a server to start).
    pub drain: Duration,
    /// A progress line on stderr every second.
    pub progress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            server: Vec::new(),
            transport: Transport::Lines,
            concurrency: 8,
            calls: Some(1000),
            duration: None,
            warmup: 50,
            seed: 1,
            rate: None,
            burst: None,
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

impl Options {
    fn validate(&self) -> Result<(), BenchError> {
        if self.server.is_empty() {
            return Err(BenchError::Options("no server command".into()));
        }
        if self.concurrency == 0 || self.burst == Some(0) {
            return Err(BenchError::Options(
                "concurrency and burst must be at least 1".into(),
            ));
        }
        if self.calls.is_none() && self.duration.is_none() {
            return Err(BenchError::Options(
                "give a number of calls or a duration".into(),
            ));
        }
        if self.rate.is_some() && self.burst.is_some() {
            return Err(BenchError::Options(
                "a run is open loop (--rate) or in bursts (--burst), not both".into(),
            ));
        }
        if self.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(BenchError::Options(
                "the rate must be a positive number".into(),
            ));
        }
        Ok(())
    }

    fn start(&self, command: &[String], scenario: &Scenario) -> Result<Server, BenchError> {
        Server::start(
            command,
            self.transport,
            scenario,
            self.burst.unwrap_or(self.concurrency),
            self.seed,
            self.drain,
        )
    }

    /// The phase that measures `share` of the calls and duration.
    fn measured(&self, share: f64) -> Phase {
        Phase {
            calls: self
                .calls
                .map(|n| ((n as f64 * share).ceil() as u64).max(1)),
            duration: self.duration.map(|d| d.mul_f64(share)),
            rate: self.rate,
            burst: self.burst,
            concurrency: self.concurrency,
            measured: true,
            drain: self.drain,
            progress: self.progress,
        }
    }

    fn warmup(&self) -> Phase {
        Phase {
            calls: Some(self.warmup),
            duration: None,
            rate: None,
            burst: None,
            concurrency: self.concurrency,
            measured: false,
            drain: self.drain,
            progress: false,
        }
    }
}

/// Runs `scenario` against a fresh server and reports.
pub fn run(scenario: &Scenario, opts: &Options) -> Result<Report, BenchError> {
    opts.validate()?;
    let mut server = opts.start(&opts.server, scenario)?;
    server.phase(scenario, &opts.warmup())?;
    let (sent, seconds) = server.phase(scenario, &opts.measured(1.0))?;
    Ok(report(server, scenario, opts, sent, seconds).0)
}

fn report(
    server: Server,
    scenario: &Scenario,
    opts: &Options,
    sent: u64,
    seconds: f64,
) -> (Report, Vec<Option<serde_json::Value>>) {
    let first_answer = server.first_answer();
    let (samples, answers) = server.take(scenario);
    let usage = server.finish();
    let mut r = samples.report(
        scenario,
        sent,
        seconds,
        opts.burst.unwrap_or(opts.concurrency),
    );
    r.transport = opts.transport.name().into();
    r.mode = match (opts.rate, opts.burst) {
        (Some(rate), _) => format!("open loop at {rate} calls/s"),
        (None, Some(n)) => format!("bursts of {n}"),
        (None, None) => "closed loop".into(),
    };
    r.server_peak_rss_kb = usage.peak_rss_kb;
    r.server_cpu_seconds = usage.cpu_seconds;
    r.first_answer_ms = first_answer.map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    (r, answers)
}

/// Runs `scenario` against the server of `opts` (A) and `peer` (B), both started and warmed up first, in
/// `rounds` alternating measured rounds (A B A B …, so drift of the machine falls on both), each round a share of
/// the calls or duration; then cross-checks the first answer each server gave to every scenario entry.
pub fn compare(
    scenario: &Scenario,
    opts: &Options,
    peer: &[String],
    rounds: usize,
    tol: Tolerance,
) -> Result<Comparison, BenchError> {
    opts.validate()?;
    if peer.is_empty() {
        return Err(BenchError::Options("no peer command".into()));
    }
    let rounds = rounds.max(1);
    let mut a = opts.start(&opts.server, scenario)?;
    let mut b = opts.start(peer, scenario)?;
    a.phase(scenario, &opts.warmup())?;
    b.phase(scenario, &opts.warmup())?;
    let share = 1.0 / rounds as f64;
    let (mut sent, mut seconds) = ([0u64; 2], [0f64; 2]);
    for round in 0..rounds {
        for (i, s) in [&mut a, &mut b].into_iter().enumerate() {
            if opts.progress {
                eprint!("\rround {} of {rounds}, {}   ", round + 1, ["A", "B"][i]);
            }
            let (n, t) = s.phase(scenario, &opts.measured(share))?;
            sent[i] += n;
            seconds[i] += t;
        }
    }
    if opts.progress {
        eprint!("\r{:40}\r", "");
    }
    let (ra, answers_a) = report(a, scenario, opts, sent[0], seconds[0]);
    let (rb, answers_b) = report(b, scenario, opts, sent[1], seconds[1]);
    let mut checked = 0;
    let mut differences = Vec::new();
    for (i, (x, y)) in answers_a.iter().zip(&answers_b).enumerate() {
        let (Some(x), Some(y)) = (x, y) else { continue };
        checked += 1;
        if let Some((path, va, vb)) = differ(x, y, tol) {
            let e = &scenario.entries[i];
            differences.push(Difference {
                label: e.label.clone(),
                request: e.line(0),
                path,
                a: va,
                b: vb,
            });
        }
    }
    Ok(Comparison {
        a: ra,
        b: rb,
        rounds,
        checked,
        differences,
    })
}
