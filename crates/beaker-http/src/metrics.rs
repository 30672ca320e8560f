//! `GET /metrics`: the engine's [`Stats`] and the server's own counters in Prometheus' text format (0.0.4).

use crate::State;
use axum::extract::State as Shared;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use beaker_engine::{PoolStats, Stats};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// Requests the HTTP layer turned away, by reason (the engine never saw them).
#[derive(Default)]
pub(crate) struct Rejected {
    pub(crate) unauthorized: AtomicU64,
    pub(crate) overloaded: AtomicU64,
    pub(crate) rate_limited: AtomicU64,
    pub(crate) too_large: AtomicU64,
    /// Bodies that did not arrive within the body timeout.
    pub(crate) slow: AtomicU64,
    /// Bodies refused because the memory budget could not hold them.
    pub(crate) memory: AtomicU64,
}

/// The label value calls naming no known tool are counted under.
const UNKNOWN_TOOL: &str = "(unknown)";

pub(crate) async fn metrics(Shared(state): Shared<State>) -> Response {
    let in_flight = state
        .options
        .max_in_flight
        .max(1)
        .saturating_sub(state.in_flight.available_permits());
    let mut text = render(
        &state.dispatcher.engine().stats(),
        in_flight,
        &state.rejected,
    );
    memory(&mut text, state.dispatcher.engine().memory());
    header(
        &mut text,
        "beaker_http_requests_waiting",
        "gauge",
        "HTTP requests waiting for a slot of --max-in-flight.",
    );
    let _ = writeln!(
        text,
        "beaker_http_requests_waiting {}",
        state.waiting.load(Ordering::Relaxed)
    );
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// A label value with `\`, `"` and newlines escaped as the format asks.
fn label(v: &str) -> String {
    v.replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// Seconds from microseconds, as a Prometheus float.
fn seconds(us: u64) -> f64 {
    us as f64 / 1e6
}

/// The process's memory budget: its size, what is reserved now and at most, and the reservations it refused.
fn memory(out: &mut String, m: &beaker_core::MemoryBudget) {
    for (metric, kind, help, value) in [
        (
            "beaker_memory_budget_bytes",
            "gauge",
            "The process's memory budget (--max-memory).",
            m.limit(),
        ),
        (
            "beaker_memory_reserved_bytes",
            "gauge",
            "Bytes reserved from the memory budget now (interpreters, sessions, request bodies, queued answers).",
            m.used(),
        ),
        (
            "beaker_memory_reserved_peak_bytes",
            "gauge",
            "The most bytes reserved from the memory budget at once since the server started.",
            m.peak(),
        ),
        (
            "beaker_memory_refused_total",
            "counter",
            "Reservations the memory budget refused (each refused a request or a call).",
            m.refused(),
        ),
    ] {
        header(out, metric, kind, help);
        let _ = writeln!(out, "{metric} {value}");
    }
}

pub(crate) fn render(s: &Stats, http_in_flight: usize, rejected: &Rejected) -> String {
    let mut out = String::with_capacity(16 << 10);
    let name = |tool: &str| label(if tool.is_empty() { UNKNOWN_TOOL } else { tool });

    header(
        &mut out,
        "beaker_calls_total",
        "counter",
        "Calls answered, by tool and outcome.",
    );
    for t in &s.tools {
        let failed: u64 = t.failed.iter().map(|(_, n)| n).sum();
        let tool = name(&t.tool);
        let _ = writeln!(
            out,
            "beaker_calls_total{{tool=\"{tool}\",outcome=\"success\"}} {}",
            t.succeeded
        );
        let _ = writeln!(
            out,
            "beaker_calls_total{{tool=\"{tool}\",outcome=\"failure\"}} {failed}"
        );
    }

    header(
        &mut out,
        "beaker_call_failures_total",
        "counter",
        "Failed calls, by tool, error kind and fault (docs/PROTOCOL.md).",
    );
    for t in &s.tools {
        for (kind, n) in &t.failed {
            let _ = writeln!(
                out,
                "beaker_call_failures_total{{tool=\"{}\",kind=\"{}\",fault=\"{}\"}} {n}",
                name(&t.tool),
                kind.as_str(),
                kind.fault().as_str()
            );
        }
    }

    header(
        &mut out,
        "beaker_call_duration_seconds",
        "histogram",
        "Time from a call's submission to its answer (queue wait included), by tool.",
    );
    for t in &s.tools {
        let tool = name(&t.tool);
        let h = &t.latency;
        for (bound, n) in h.bounds_us.iter().zip(&h.cumulative) {
            let _ = writeln!(
                out,
                "beaker_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"{}\"}} {n}",
                seconds(*bound)
            );
        }
        let _ = writeln!(
            out,
            "beaker_call_duration_seconds_bucket{{tool=\"{tool}\",le=\"+Inf\"}} {}",
            h.count()
        );
        let _ = writeln!(
            out,
            "beaker_call_duration_seconds_sum{{tool=\"{tool}\"}} {}",
            seconds(h.sum_us)
        );
        let _ = writeln!(
            out,
            "beaker_call_duration_seconds_count{{tool=\"{tool}\"}} {}",
            h.count()
        );
    }

    header(
        &mut out,
        "beaker_calls_in_flight",
        "gauge",
        "Calls submitted to the engine and not answered yet.",
    );
    let _ = writeln!(out, "beaker_calls_in_flight {}", s.in_flight);

    let pools: [(&str, &PoolStats); 2] = [("native", &s.native), ("sandbox", &s.sandbox)];
    for (metric, help, get) in [
        (
            "beaker_pool_workers",
            "Worker threads, by pool (native tools; sandboxed Python and guests).",
            (|p: &PoolStats| p.workers) as fn(&PoolStats) -> usize,
        ),
        (
            "beaker_pool_busy",
            "Workers running a call now, by pool.",
            |p: &PoolStats| p.busy,
        ),
        (
            "beaker_pool_queued",
            "Calls waiting for a worker, by pool.",
            |p: &PoolStats| p.queued,
        ),
    ] {
        header(&mut out, metric, "gauge", help);
        for (pool, p) in pools {
            let _ = writeln!(out, "{metric}{{pool=\"{pool}\"}} {}", get(p));
        }
    }

    header(
        &mut out,
        "beaker_http_requests_in_flight",
        "gauge",
        "HTTP requests being answered (the cap is --max-in-flight; /healthz and /metrics are not counted).",
    );
    let _ = writeln!(out, "beaker_http_requests_in_flight {http_in_flight}");
    header(
        &mut out,
        "beaker_http_rejected_total",
        "counter",
        "HTTP requests refused before reaching the engine, by reason.",
    );
    for (reason, n) in [
        ("unauthorized", &rejected.unauthorized),
        ("overloaded", &rejected.overloaded),
        ("rate_limited", &rejected.rate_limited),
        ("too_large", &rejected.too_large),
        ("slow_body", &rejected.slow),
        ("memory", &rejected.memory),
    ] {
        let _ = writeln!(
            out,
            "beaker_http_rejected_total{{reason=\"{reason}\"}} {}",
            n.load(Ordering::Relaxed)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label("a\"b\\c\nd"), r#"a\"b\\c\nd"#);
    }
}
