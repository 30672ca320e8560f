//! `beaker bench`: load a JSON Lines tool server the way a rollout fleet does and measure it.
//!
//! A [`Scenario`] is a JSONL file of weighted requests (`benches/scenarios/`); [`run`] starts the server as a
//! child process (Beaker's `serve` or any command speaking the same protocol), keeps `concurrency` requests in
//! flight (closed loop) or sends them at a Poisson rate (open loop), checks every answer (each id answered
//! exactly once, envelopes well formed) and returns a [`Report`]: calls per second, latency percentiles per tool
//! and overall, failures by kind and fault, and the server's peak RSS and CPU time. A run that loses an answer is
//! an error, never a report. [`compare`] runs two servers on one scenario in alternating rounds and cross-checks
//! their answers; [`Transport`] drives the same scenario over JSON Lines, MCP or HTTP.
#![deny(missing_docs)]

mod check;
mod report;
mod run;
mod scenario;
mod server;

pub use check::{differ, Difference, Tolerance};
pub use report::{Comparison, Latency, Report, ToolReport};
pub use run::{compare, run, BenchError, Options, Transport};
pub use scenario::{Entry, Scenario, ScenarioError};

/// A small deterministic generator (SplitMix64): the same seed picks the same calls in the same order on every
/// machine, which is what makes two runs (or two servers) comparable.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
