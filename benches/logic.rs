//! `logic_solver` cost per call with Z3 in a worker process (what `beaker serve` runs) against Z3 in the
//! caller's process: the price of isolation is a pipe round trip and the JSON both ways.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_logic::worker::WorkerCommand;
use beaker_logic::LogicSolver;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;

fn solve(c: &mut Criterion) {
    let in_process = LogicSolver::in_process();
    let workers = LogicSolver::with_workers(WorkerCommand {
        program: env!("CARGO_BIN_EXE_beaker").into(),
        arg: beaker_logic::worker::WORKER_ARG,
    });
    // A small system (Z3's context dominates), and a call refused before Z3 starts (the round trip alone).
    for (group, params) in [
        (
            "logic_solver_check_2x2",
            json!({"operation": "check", "variables": {"x": "Int", "y": "Int"},
                   "constraints": ["x + y == 10", "x - y == 4"]}),
        ),
        (
            "logic_solver_refused_params",
            json!({"operation": "check", "variables": {"x": "Complex"}}),
        ),
    ] {
        let mut g = c.benchmark_group(group);
        for (name, tool) in [("in_process", &in_process), ("worker_process", &workers)] {
            g.bench_function(name, |b| {
                b.iter(|| {
                    let mut ctx = CallContext::new(Limits::default());
                    ctx.deadline =
                        Some(std::time::Instant::now() + std::time::Duration::from_secs(30));
                    tool.call(black_box(&params), &ctx)
                })
            });
        }
        g.finish();
    }
}

criterion_group!(benches, solve);
criterion_main!(benches);
