//! What a run measured, and its tables.

use crate::Scenario;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// Latency percentiles, in microseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// The slowest.
    pub max: u64,
}

impl Latency {
    /// Percentiles of `us` (sorted in place); nearest rank.
    pub fn of(us: &mut [u64]) -> Latency {
        if us.is_empty() {
            return Latency::default();
        }
        us.sort_unstable();
        let at = |q: f64| us[((q * us.len() as f64).ceil() as usize).clamp(1, us.len()) - 1];
        Latency {
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            p999: at(0.999),
            max: us[us.len() - 1],
        }
    }
}

/// One label's (tool's) figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolReport {
    /// Answers measured.
    pub calls: u64,
    /// Of those, failed envelopes (`success: false`).
    pub failures: u64,
    /// Round-trip latency (request written to answer read).
    pub latency_us: Latency,
}

/// A run's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// The scenario's name.
    pub scenario: String,
    /// Requests in flight at most.
    pub concurrency: usize,
    /// Requests measured (warm-up excluded).
    pub calls: u64,
    /// Measured wall time.
    pub seconds: f64,
    /// Answers per second.
    pub calls_per_second: f64,
    /// All requests together.
    pub overall: ToolReport,
    /// Per label (tool), sorted by name.
    pub tools: BTreeMap<String, ToolReport>,
    /// Failed envelopes by `error_kind`.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// Failed envelopes by `fault`.
    pub errors_by_fault: BTreeMap<String, u64>,
    /// The server's peak resident memory (kB), from `/proc`.
    pub server_peak_rss_kb: u64,
    /// The server's user + system CPU time over the whole run, warm-up and start-up included (seconds).
    pub server_cpu_seconds: f64,
}

/// Latencies and outcomes as they come in.
pub(crate) struct Samples {
    per_entry: Vec<(Vec<u64>, u64)>,
    kinds: BTreeMap<String, u64>,
    faults: BTreeMap<String, u64>,
}

impl Samples {
    pub(crate) fn new(s: &Scenario) -> Samples {
        Samples {
            per_entry: vec![(Vec::new(), 0); s.entries.len()],
            kinds: BTreeMap::new(),
            faults: BTreeMap::new(),
        }
    }

    pub(crate) fn record(&mut self, entry: usize, latency: Duration, answer: &Value) {
        let Some(slot) = self.per_entry.get_mut(entry) else {
            return;
        };
        slot.0
            .push(latency.as_micros().min(u128::from(u64::MAX)) as u64);
        if answer.get("success") == Some(&Value::Bool(false)) {
            slot.1 += 1;
            let kind = answer
                .get("error_kind")
                .and_then(Value::as_str)
                .unwrap_or("?");
            *self.kinds.entry(kind.to_string()).or_default() += 1;
            if let Some(f) = answer.get("fault").and_then(Value::as_str) {
                *self.faults.entry(f.to_string()).or_default() += 1;
            }
        }
    }

    pub(crate) fn report(
        self,
        s: &Scenario,
        calls: u64,
        seconds: f64,
        concurrency: usize,
    ) -> Report {
        let mut by_label: BTreeMap<String, (Vec<u64>, u64)> = BTreeMap::new();
        for (e, (lat, failed)) in s.entries.iter().zip(self.per_entry) {
            let slot = by_label.entry(e.label.clone()).or_default();
            slot.0.extend(lat);
            slot.1 += failed;
        }
        let mut all = Vec::new();
        let mut failures = 0;
        let tools = by_label
            .into_iter()
            .map(|(label, (mut lat, failed))| {
                all.extend_from_slice(&lat);
                failures += failed;
                let r = ToolReport {
                    calls: lat.len() as u64,
                    failures: failed,
                    latency_us: Latency::of(&mut lat),
                };
                (label, r)
            })
            .collect();
        Report {
            scenario: s.name.clone(),
            concurrency,
            calls,
            seconds,
            calls_per_second: if seconds > 0.0 {
                calls as f64 / seconds
            } else {
                0.0
            },
            overall: ToolReport {
                calls: all.len() as u64,
                failures,
                latency_us: Latency::of(&mut all),
            },
            tools,
            errors_by_kind: self.kinds,
            errors_by_fault: self.faults,
            ..Report::default()
        }
    }
}

fn ms(us: u64) -> String {
    format!("{:.3}", us as f64 / 1000.0)
}

impl Report {
    fn rows(&self) -> Vec<(String, &ToolReport)> {
        let mut rows: Vec<(String, &ToolReport)> =
            self.tools.iter().map(|(k, v)| (k.clone(), v)).collect();
        rows.push(("all".into(), &self.overall));
        rows
    }

    /// A plain-text table.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}: {} calls in {:.2} s at concurrency {}: {:.0} calls/s; server peak RSS {} MB, CPU {:.2} s\n",
            self.scenario,
            self.calls,
            self.seconds,
            self.concurrency,
            self.calls_per_second,
            self.server_peak_rss_kb / 1024,
            self.server_cpu_seconds
        );
        s.push_str(&format!(
            "{:<18} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            "tool", "calls", "failed", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms"
        ));
        for (name, r) in self.rows() {
            let l = &r.latency_us;
            s.push_str(&format!(
                "{:<18} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
                name,
                r.calls,
                r.failures,
                ms(l.p50),
                ms(l.p90),
                ms(l.p99),
                ms(l.p999),
                ms(l.max)
            ));
        }
        if !self.errors_by_kind.is_empty() {
            let kinds: Vec<String> = self
                .errors_by_kind
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let faults: Vec<String> = self
                .errors_by_fault
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            s.push_str(&format!(
                "failures by kind: {}; by fault: {}\n",
                kinds.join(", "),
                faults.join(", ")
            ));
        }
        s
    }

    /// A Markdown table (what docs/PERFORMANCE.md holds).
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "`{}`, concurrency {}: {} calls in {:.2} s, **{:.0} calls/s**; server peak RSS {} MB, CPU {:.2} s\n\n",
            self.scenario,
            self.concurrency,
            self.calls,
            self.seconds,
            self.calls_per_second,
            self.server_peak_rss_kb / 1024,
            self.server_cpu_seconds
        );
        s.push_str("| tool | calls | failed | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms |\n|---|---|---|---|---|---|---|---|\n");
        for (name, r) in self.rows() {
            let l = &r.latency_us;
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {} | {} | {} | {} |\n",
                r.calls,
                r.failures,
                ms(l.p50),
                ms(l.p90),
                ms(l.p99),
                ms(l.p999),
                ms(l.max)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut v: Vec<u64> = (1..=1000).rev().collect();
        let l = Latency::of(&mut v);
        assert_eq!(
            (l.p50, l.p90, l.p99, l.p999, l.max),
            (500, 900, 990, 999, 1000)
        );
        assert_eq!(Latency::of(&mut [7]).p999, 7);
        assert_eq!(Latency::of(&mut []), Latency::default());
    }
}
