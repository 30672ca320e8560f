//! What the engine has done, per tool: calls, failures by kind, a latency histogram; and how busy its pools are.
//! Cheap to record (relaxed atomics, no lock) and read by transports for `/metrics`.

use beaker_core::ErrorKind;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// Upper bounds of the latency histogram's buckets, in microseconds: from a native call's ~10 µs to the
/// longest timeout a call may ask for (the last bucket, `+Inf`, is implicit).
pub const LATENCY_BOUNDS_US: [u64; 18] = [
    25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000, 60_000_000,
];

/// One tool's counters, recorded as its calls are answered.
#[derive(Default)]
pub(crate) struct ToolCounters {
    succeeded: AtomicU64,
    /// Indexed as [`ErrorKind::ALL`].
    failed: [AtomicU64; ErrorKind::ALL.len()],
    buckets: [AtomicU64; LATENCY_BOUNDS_US.len() + 1],
    sum_us: AtomicU64,
}

impl ToolCounters {
    /// Counts one answer that took `latency` from submission.
    pub(crate) fn record(&self, failure: Option<ErrorKind>, latency: Duration) {
        let counter = match failure {
            None => &self.succeeded,
            Some(kind) => {
                let i = ErrorKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
                &self.failed[i]
            }
        };
        counter.fetch_add(1, Ordering::Relaxed);
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        let i = LATENCY_BOUNDS_US.partition_point(|&b| b < us);
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_us.fetch_add(us, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self, tool: &str) -> ToolStats {
        let mut cumulative = Vec::with_capacity(self.buckets.len());
        let mut total = 0;
        for b in &self.buckets {
            total += b.load(Ordering::Relaxed);
            cumulative.push(total);
        }
        ToolStats {
            tool: tool.to_string(),
            succeeded: self.succeeded.load(Ordering::Relaxed),
            failed: ErrorKind::ALL
                .iter()
                .zip(&self.failed)
                .map(|(&k, n)| (k, n.load(Ordering::Relaxed)))
                .filter(|&(_, n)| n > 0)
                .collect(),
            latency: Histogram {
                bounds_us: LATENCY_BOUNDS_US.to_vec(),
                cumulative,
                sum_us: self.sum_us.load(Ordering::Relaxed),
            },
        }
    }
}

/// A worker pool's size and how many of its workers run a call now.
#[derive(Default)]
pub(crate) struct PoolCounters {
    pub(crate) size: usize,
    pub(crate) busy: AtomicUsize,
}

/// The calls of one tool since the engine started.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolStats {
    /// The tool; calls naming no known tool are counted under `""`, so a client cannot add labels.
    pub tool: String,
    /// Calls answered with `success: true`.
    pub succeeded: u64,
    /// Calls answered with `success: false`, by error kind (each kind's fault is [`ErrorKind::fault`]), in
    /// [`ErrorKind::ALL`] order, kinds never seen left out.
    pub failed: Vec<(ErrorKind, u64)>,
    /// Time from submission to answer (queue wait included) of every answered call.
    pub latency: Histogram,
}

/// A cumulative histogram, in Prometheus' shape.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Histogram {
    /// Upper bounds of the buckets in microseconds; `cumulative` has one more entry, for `+Inf`.
    pub bounds_us: Vec<u64>,
    /// Observations at or below each bound, then all of them.
    pub cumulative: Vec<u64>,
    /// Sum of the observations in microseconds.
    pub sum_us: u64,
}

impl Histogram {
    /// How many observations there are.
    pub fn count(&self) -> u64 {
        self.cumulative.last().copied().unwrap_or(0)
    }
}

/// A worker pool now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct PoolStats {
    /// Worker threads.
    pub workers: usize,
    /// Workers running a call.
    pub busy: usize,
    /// Calls waiting for a worker.
    pub queued: usize,
}

/// Everything [`crate::Engine::stats`] reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Per tool, in catalog order, then unknown tools (`""`) if any call named one.
    pub tools: Vec<ToolStats>,
    /// Calls submitted and not answered yet.
    pub in_flight: u64,
    /// The pool of native tools.
    pub native: PoolStats,
    /// The pool of sandboxed tools (Python, guests).
    pub sandbox: PoolStats,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_at_or_above_them() {
        let c = ToolCounters::default();
        c.record(None, Duration::from_micros(25));
        c.record(None, Duration::from_micros(26));
        c.record(Some(ErrorKind::Timeout), Duration::from_secs(3600));
        let s = c.snapshot("t");
        assert_eq!(&s.latency.cumulative[..3], &[1, 2, 2]);
        assert_eq!(s.latency.cumulative[LATENCY_BOUNDS_US.len() - 1], 2);
        assert_eq!(s.latency.count(), 3);
        assert_eq!(s.latency.sum_us, 25 + 26 + 3_600_000_000);
        assert_eq!(s.succeeded, 2);
        assert_eq!(s.failed, vec![(ErrorKind::Timeout, 1)]);
    }
}
