//! Allocations per call on the hot path (issue 39), counted and held to a budget: a calculator call goes the way
//! a `beaker serve` line goes (`Request::parse`, the stdio `Session`, the dispatcher, the engine's queue and
//! worker, the envelope serialized to its answer line), in process, under an instrumented global allocator. Its
//! own binary, so nothing else allocates while it counts; calls run one at a time, so the count is the same on
//! every run.

use beaker_protocol::{Request, Session, SessionInfo, Sink};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations one call may make, all threads together: what it made when measured (2026-11-28, docs/PERFORMANCE.md
/// "Allocations per call") plus one, for a channel that grows once in a while. A change that adds an allocation to
/// every call fails here; lower the figures when the path gets leaner.
const BUDGET: &[(&str, usize)] = &[
    ("7 * 8", 43),
    ("2**64", 43),
    ("1/3 + 1/6", 54),
    ("sqrt(2)", 54),
];

/// Counts answer bytes and drops them, as a writer would after writing.
#[derive(Default)]
struct Count(AtomicUsize);

impl Sink for Count {
    fn send(&self, line: String, _finished: bool) {
        self.0.fetch_add(line.len(), Ordering::Relaxed);
    }
}

fn main() {
    let catalog = beaker_catalog::Catalog::empty()
        .with("calculator")
        .expect("the calculator family");
    let engine = catalog.engine().expect("a calculator engine");
    let sink = Arc::new(Count::default());
    let session = Session::new(engine, SessionInfo::default(), sink.clone());
    let line = |i: usize, e: &str| {
        format!(r#"{{"id": {i}, "tool": "calculator", "params": {{"expression": "{e}"}}}}"#)
    };
    let run = |i: usize, text: &str| {
        let req = Request::parse(text.as_bytes())
            .expect("a request")
            .expect("not blank");
        session.handle(req);
        session.wait_idle();
        let _ = i;
    };
    let mut failures = Vec::new();
    for (expr, budget) in BUDGET {
        let lines: Vec<String> = (0..1100).map(|i| line(i, expr)).collect();
        // Warm up: pools, caches and lazily built tables allocate once.
        for (i, l) in lines[..100].iter().enumerate() {
            run(i, l);
        }
        let region = Region::new(GLOBAL);
        for (i, l) in lines[100..].iter().enumerate() {
            run(i, l);
        }
        let allocs = region.change().allocations + region.change().reallocations;
        let per_call = allocs as f64 / 1000.0;
        println!("{expr:>12}: {per_call:.1} allocations per call (budget {budget})");
        if per_call > *budget as f64 {
            failures.push(format!(
                "{expr}: {per_call:.1} allocations per call, budget {budget}"
            ));
        }
    }
    // Where they go, for the report: reading the line alone, and the engine's call alone.
    let text = line(1, "7 * 8");
    let region = Region::new(GLOBAL);
    for _ in 0..1000 {
        drop(Request::parse(text.as_bytes()));
    }
    let parse = region.change().allocations as f64 / 1000.0;
    let engine = session.engine().clone();
    let call = match Request::parse(text.as_bytes()) {
        Ok(Some(Request::Call(c))) => c,
        other => panic!("{other:?}"),
    };
    let region = Region::new(GLOBAL);
    for _ in 0..1000 {
        let _ = serde_json::to_string(&engine.call(call.clone()));
    }
    let engine_call = region.change().allocations as f64 / 1000.0;
    println!("  of which: Request::parse {parse:.1}; Engine::call with the call cloned and its envelope serialized {engine_call:.1}");
    assert!(sink.0.load(Ordering::Relaxed) > 0, "no answer was written");
    assert!(
        failures.is_empty(),
        "over the allocation budget: {failures:?}"
    );
}
