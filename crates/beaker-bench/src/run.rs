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
    /// One of two compared servers failed.
    #[error("server {side}: {source}")]
    Side {
        /// `A` or `B`.
        side: &'static str,
        /// What went wrong with it.
        source: Box<BenchError>,
    },
}

impl BenchError {
    /// Whether the mistake is in the options (exit 2) rather than in the run (exit 1).
    pub fn is_usage(&self) -> bool {
        match self {
            BenchError::Options(_) => true,
            BenchError::Side { source, .. } => source.is_usage(),
            _ => false,
        }
    }

    fn side(self, side: &'static str) -> BenchError {
        match self {
            BenchError::Options(_) => self,
            e => BenchError::Side {
                side,
                source: Box::new(e),
            },
        }
    }
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
        if self.calls == Some(0) || self.duration.is_some_and(|d| d.is_zero()) {
            return Err(BenchError::Options(
                "a run measures at least one call: give -n 1 or more, or a duration above 0".into(),
            ));
        }
        if self.drain.is_zero() {
            return Err(BenchError::Options("--drain must be above 0".into()));
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
    /// The phase that measures round `round` of `rounds`: the calls split so they add up to the total (the
    /// first rounds take one more when it does not divide), the duration split evenly.
    fn measured(&self, round: u64, rounds: u64) -> Phase {
        Phase {
            calls: self
                .calls
                .map(|n| n / rounds + u64::from(round < n % rounds)),
            duration: self.duration.map(|d| d.div_f64(rounds as f64)),
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
    let (sent, seconds) = server.phase(scenario, &opts.measured(0, 1))?;
    Ok(report(server, &opts.server, scenario, opts, sent, seconds).0)
}

/// What one server's run came to: its report, the first measured answer to each entry, and each entry's
/// outcomes (answers, failures, the first failure).
type Ran = (
    Report,
    Vec<Option<serde_json::Value>>,
    Vec<(u64, u64, Option<String>)>,
);

fn report(
    server: Server,
    command: &[String],
    scenario: &Scenario,
    opts: &Options,
    sent: u64,
    seconds: f64,
) -> Ran {
    let first_answer = server.first_answer();
    let (samples, answers) = server.take(scenario);
    let outcomes = samples.outcomes();
    let usage = server.finish();
    let mut r = samples.report(
        scenario,
        sent,
        seconds,
        opts.burst.unwrap_or(opts.concurrency),
    );
    r.server = shown(command);
    r.seed = opts.seed;
    r.warmup = opts.warmup;
    for (label, t) in &r.tools {
        if t.calls > 0 && t.failures == t.calls {
            r.warnings.push(format!(
                "every `{label}` call failed, so its figures time failures (see failures by kind)"
            ));
        }
    }
    if let Some(rate) = opts.rate {
        if r.calls_per_second < 0.9 * rate {
            r.warnings.push(format!(
                "the offered rate of {rate} calls/s was not reached ({:.0} calls/s): the server is saturated or -c {} caps it; latency counts the wait from each call's arrival time",
                r.calls_per_second, opts.concurrency
            ));
        }
    }
    r.transport = opts.transport.name().into();
    r.mode = match (opts.rate, opts.burst) {
        (Some(rate), _) => format!("open loop at {rate} calls/s"),
        (None, Some(n)) => format!("bursts of {n}"),
        (None, None) => "closed loop".into(),
    };
    r.server_peak_rss_kb = usage.peak_rss_kb;
    r.server_cpu_seconds = usage.cpu_seconds;
    r.first_answer_ms = first_answer.map_or(0.0, |d| d.as_secs_f64() * 1000.0);
    (r, answers, outcomes)
}

/// A command line as the report shows it (`sh -c "exec CMD"` as CMD).
fn shown(command: &[String]) -> String {
    match command {
        [sh, c, cmd] if sh == "sh" && c == "-c" => {
            cmd.strip_prefix("exec ").unwrap_or(cmd).to_string()
        }
        _ => command.join(" "),
    }
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
    if rounds == 0 {
        return Err(BenchError::Options("--rounds must be at least 1".into()));
    }
    if opts.calls.is_some_and(|n| n < rounds as u64) {
        return Err(BenchError::Options(format!(
            "-n {} is fewer calls than --rounds {rounds}: every round measures at least one",
            opts.calls.unwrap_or(0)
        )));
    }
    let mut a = opts
        .start(&opts.server, scenario)
        .map_err(|e| e.side("A"))?;
    let mut b = opts.start(peer, scenario).map_err(|e| e.side("B"))?;
    a.phase(scenario, &opts.warmup()).map_err(|e| e.side("A"))?;
    b.phase(scenario, &opts.warmup()).map_err(|e| e.side("B"))?;
    let (mut sent, mut seconds) = ([0u64; 2], [0f64; 2]);
    for round in 0..rounds {
        for (i, s) in [&mut a, &mut b].into_iter().enumerate() {
            let side = ["A", "B"][i];
            if opts.progress {
                eprint!("\rround {} of {rounds}, {side}   ", round + 1);
            }
            let (n, t) = s
                .phase(scenario, &opts.measured(round as u64, rounds as u64))
                .map_err(|e| e.side(side))?;
            sent[i] += n;
            seconds[i] += t;
        }
    }
    if opts.progress {
        eprint!("\r{:40}\r", "");
    }
    let (ra, answers_a, outcomes_a) = report(a, &opts.server, scenario, opts, sent[0], seconds[0]);
    let (rb, answers_b, outcomes_b) = report(b, peer, scenario, opts, sent[1], seconds[1]);
    let mut checked = 0;
    let mut differences = Vec::new();
    for (i, e) in scenario.entries.iter().enumerate() {
        let difference = |path: String, a: String, b: String| Difference {
            label: e.label.clone(),
            request: e.line(0),
            path,
            a,
            b,
        };
        // Every measured call counts for the outcome: a server that fails a request now and then is wrong
        // even when its first answer was right.
        let ((na, fa, first_a), (nb, fb, first_b)) = (&outcomes_a[i], &outcomes_b[i]);
        if *na > 0 && *nb > 0 && ((*fa == 0) != (*fb == 0) || (*fa == *na) != (*fb == *nb)) {
            let say = |n: &u64, f: &u64, first: &Option<String>| match first {
                Some(first) => format!("{f} of {n} failed (first: {first})"),
                None => format!("{f} of {n} failed"),
            };
            differences.push(difference(
                "success".into(),
                say(na, fa, first_a),
                say(nb, fb, first_b),
            ));
            continue;
        }
        let (Some(x), Some(y)) = (&answers_a[i], &answers_b[i]) else {
            continue;
        };
        checked += 1;
        if let Some((path, va, vb)) = differ(x, y, tol) {
            differences.push(difference(path, va, vb));
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
