//! What a run measured, and its tables.

use crate::check::Difference;
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
    /// The server's command line.
    pub server: String,
    /// The seed that picked the requests.
    pub seed: u64,
    /// Requests sent first and not measured.
    pub warmup: u64,
    /// How requests travelled (`jsonl`, `mcp`, `http`).
    pub transport: String,
    /// How requests were sent: `closed loop`, `open loop at N calls/s`, or `bursts of N`.
    pub mode: String,
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
    /// Time from starting the server process to its first answer (a cold start: loading, compiling, the first
    /// request's own work), in milliseconds.
    pub first_answer_ms: f64,
    /// What makes the figures doubtful: a label whose every call failed, an open-loop rate not reached.
    pub warnings: Vec<String>,
}

/// Two servers measured on one scenario in alternating rounds, and how their answers compare.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Comparison {
    /// The first server (`--server`, by default Beaker).
    pub a: Report,
    /// The second server (`--compare`).
    pub b: Report,
    /// Measured rounds per server.
    pub rounds: usize,
    /// Scenario entries both servers answered (each compared once, on its first answer).
    pub checked: usize,
    /// Entries whose answers differ beyond the tolerance.
    pub differences: Vec<Difference>,
}

/// Latencies and outcomes as they come in.
pub(crate) struct Samples {
    per_entry: Vec<(Vec<u64>, u64)>,
    /// Each entry's first failure, as `kind: error`.
    first_failure: Vec<Option<String>>,
    kinds: BTreeMap<String, u64>,
    faults: BTreeMap<String, u64>,
}

impl Samples {
    pub(crate) fn new(s: &Scenario) -> Samples {
        Samples {
            per_entry: vec![(Vec::new(), 0); s.entries.len()],
            first_failure: vec![None; s.entries.len()],
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
            if let Some(f @ None) = self.first_failure.get_mut(entry) {
                let error = answer.get("error").and_then(Value::as_str).unwrap_or("");
                *f = Some(format!("{kind}: {error}"));
            }
            if let Some(f) = answer.get("fault").and_then(Value::as_str) {
                *self.faults.entry(f.to_string()).or_default() += 1;
            }
        }
    }

    /// Per entry: answers measured, how many failed, and the first failure.
    pub(crate) fn outcomes(&self) -> Vec<(u64, u64, Option<String>)> {
        self.per_entry
            .iter()
            .zip(&self.first_failure)
            .map(|((lat, failed), first)| (lat.len() as u64, *failed, first.clone()))
            .collect()
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

/// Rows of cells as a padded text table (the first column left-aligned to its width, the others right-aligned)
/// or as a Markdown table: the one layout both formats of a report share.
fn table(header: &[&str], widths: &[usize], rows: &[Vec<String>], markdown: bool) -> String {
    let line = |cells: &[String]| -> String {
        if markdown {
            format!("| {} |\n", cells.join(" | "))
        } else {
            let padded: Vec<String> = cells
                .iter()
                .zip(widths)
                .enumerate()
                .map(|(i, (c, w))| {
                    if i == 0 {
                        format!("{c:<w$}")
                    } else {
                        format!("{c:>w$}")
                    }
                })
                .collect();
            format!("{}\n", padded.join(" "))
        }
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut s = line(&header);
    if markdown {
        s.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    }
    for r in rows {
        s.push_str(&line(r));
    }
    s
}

fn ms(us: u64) -> String {
    format!("{:.3}", us as f64 / 1000.0)
}

impl Report {
    fn rows(&self) -> Vec<(String, &ToolReport)> {
        // A label the picks never reached has no latency to show.
        let mut rows: Vec<(String, &ToolReport)> = self
            .tools
            .iter()
            .filter(|(_, v)| v.calls > 0)
            .map(|(k, v)| (k.clone(), v))
            .collect();
        rows.push(("all".into(), &self.overall));
        rows
    }

    /// What follows the scenario's name: the transport unless JSON Lines, and the sending mode.
    fn over(&self) -> String {
        let t = match self.transport.as_str() {
            "" | "jsonl" => String::new(),
            t => format!(" over {t}"),
        };
        match self.mode.as_str() {
            "" | "closed loop" => t,
            m => format!("{t}, {m}"),
        }
    }

    const HEADER: [&'static str; 8] = [
        "label", "calls", "failed", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
    ];

    /// The table's cells, a row per label and `all`.
    fn cells(&self) -> Vec<Vec<String>> {
        self.rows()
            .into_iter()
            .map(|(name, r)| {
                let l = &r.latency_us;
                vec![
                    name,
                    r.calls.to_string(),
                    r.failures.to_string(),
                    ms(l.p50),
                    ms(l.p90),
                    ms(l.p99),
                    ms(l.p999),
                    ms(l.max),
                ]
            })
            .collect()
    }

    /// A plain-text table.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}{}: {} calls in {:.2} s at concurrency {}: {:.0} calls/s; server peak RSS {} MB, CPU {:.2} s; first answer {:.0} ms after start\n",
            self.scenario,
            self.over(),
            self.calls,
            self.seconds,
            self.concurrency,
            self.calls_per_second,
            self.server_peak_rss_kb / 1024,
            self.server_cpu_seconds,
            self.first_answer_ms
        );
        s.push_str(&table(
            &Self::HEADER,
            &[18, 8, 8, 9, 9, 9, 9, 9],
            &self.cells(),
            false,
        ));
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
        for w in &self.warnings {
            s.push_str(&format!("warning: {w}\n"));
        }
        s
    }

    /// A Markdown table (what docs/PERFORMANCE.md holds).
    pub fn to_markdown(&self) -> String {
        let mut s = format!(
            "`{}`{}, concurrency {}: {} calls in {:.2} s, **{:.0} calls/s**; server peak RSS {} MB, CPU {:.2} s; first answer {:.0} ms after start\n\n",
            self.scenario,
            self.over(),
            self.concurrency,
            self.calls,
            self.seconds,
            self.calls_per_second,
            self.server_peak_rss_kb / 1024,
            self.server_cpu_seconds,
            self.first_answer_ms
        );
        s.push_str(&table(&Self::HEADER, &[], &self.cells(), true));
        for w in &self.warnings {
            s.push_str(&format!("\nWarning: {w}\n"));
        }
        s
    }
}

/// `b / a`, shown as `1.00x`; `-` when `a` is zero.
fn ratio(a: f64, b: f64) -> String {
    if a > 0.0 {
        format!("{:.2}x", b / a)
    } else {
        "-".into()
    }
}

impl Comparison {
    /// Every answer the two servers gave to the same request agreed.
    pub fn agree(&self) -> bool {
        self.differences.is_empty()
    }

    fn rows(&self) -> Vec<(String, &ToolReport, Option<&ToolReport>)> {
        let mut rows: Vec<_> = self
            .a
            .tools
            .iter()
            .filter(|(_, v)| v.calls > 0)
            .map(|(k, v)| (k.clone(), v, self.b.tools.get(k)))
            .collect();
        rows.push(("all".into(), &self.a.overall, Some(&self.b.overall)));
        rows
    }

    const HEADER: [&'static str; 10] = [
        "label", "calls", "A p50 ms", "B p50 ms", "p50 B/A", "A p99 ms", "B p99 ms", "p99 B/A",
        "A failed", "B failed",
    ];

    /// The table's cells: per label, both servers' p50 and p99, their ratios, and failures.
    fn cells(&self) -> Vec<Vec<String>> {
        self.rows()
            .into_iter()
            .map(|(name, a, b)| {
                let (la, lb) = (
                    &a.latency_us,
                    b.map(|b| &b.latency_us).cloned().unwrap_or_default(),
                );
                vec![
                    name,
                    a.calls.to_string(),
                    ms(la.p50),
                    ms(lb.p50),
                    ratio(la.p50 as f64, lb.p50 as f64),
                    ms(la.p99),
                    ms(lb.p99),
                    ratio(la.p99 as f64, lb.p99 as f64),
                    a.failures.to_string(),
                    b.map_or(0, |b| b.failures).to_string(),
                ]
            })
            .collect()
    }

    fn summary(&self, md: bool) -> String {
        let b = if md { "**" } else { "" };
        let q = if md { "`" } else { "" };
        format!(
            "{q}{}{q}{}, concurrency {}, {} alternating rounds: A {:.0} calls/s, B {:.0} calls/s, {b}throughput A/B {}{b}; peak RSS A {} MB, B {} MB; CPU A {:.2} s, B {:.2} s; first answer A {:.0} ms, B {:.0} ms after start",
            self.a.scenario,
            self.a.over(),
            self.a.concurrency,
            self.rounds,
            self.a.calls_per_second,
            self.b.calls_per_second,
            ratio(self.b.calls_per_second, self.a.calls_per_second),
            self.a.server_peak_rss_kb / 1024,
            self.b.server_peak_rss_kb / 1024,
            self.a.server_cpu_seconds,
            self.b.server_cpu_seconds,
            self.a.first_answer_ms,
            self.b.first_answer_ms,
        )
    }

    fn checks(&self) -> String {
        let mut s = format!(
            "answers cross-checked on {} distinct requests, outcomes on every measured call: {} differ\n",
            self.checked,
            self.differences.len()
        );
        for d in &self.differences {
            s.push_str(&format!(
                "  {} at {}: A {} / B {}\n    request: {}\n",
                d.label, d.path, d.a, d.b, d.request
            ));
        }
        s
    }

    fn servers(&self, md: bool) -> String {
        let q = if md { "`" } else { "" };
        let sep = if md { "  \n" } else { "\n" };
        format!(
            "A: {q}{}{q}{sep}B: {q}{}{q}\n",
            self.a.server, self.b.server
        )
    }

    /// A plain-text table: latency of A and B per label, B/A (how many times A is faster), and failures.
    pub fn to_text(&self) -> String {
        let mut s = self.servers(false);
        s.push_str(&self.summary(false));
        s.push('\n');
        s.push_str(&table(
            &Self::HEADER,
            &[18, 7, 9, 9, 7, 9, 9, 7, 8, 8],
            &self.cells(),
            false,
        ));
        for (side, r) in [("A", &self.a), ("B", &self.b)] {
            for w in &r.warnings {
                s.push_str(&format!("warning ({side}): {w}\n"));
            }
        }
        s.push_str(&self.checks());
        s
    }

    /// A Markdown table (what docs/PERFORMANCE.md holds).
    pub fn to_markdown(&self) -> String {
        let mut s = self.servers(true);
        s.push('\n');
        s.push_str(&self.summary(true));
        s.push_str("\n\n");
        s.push_str(&table(&Self::HEADER, &[], &self.cells(), true));
        s.push('\n');
        for (side, r) in [("A", &self.a), ("B", &self.b)] {
            for w in &r.warnings {
                s.push_str(&format!("Warning ({side}): {w}\n\n"));
            }
        }
        s.push_str(&self.checks());
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
