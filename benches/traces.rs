//! Training traces and tool plans:
//! - `lint_qa_100k_lines` / `lint_conversation_2k_lines`: `beaker lint`'s throughput on the good fixtures of
//!   `tests/data/traces/good/` repeated (criterion reports lines per second);
//! - `plan_diamond_4_steps` against `four_calls_in_a_row`: the cost of executing a 4-step plan (two levels of
//!   dependencies, calculator steps) over submitting the same four calls one after another.
//!
//! The million-line figure in docs/PERFORMANCE.md is `benches/gen_traces.py` + the release binary.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::ToolCall;
use beaker_traces::lint::Linter;
use beaker_traces::Registry;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/traces/good")
            .join(name),
    )
    .expect("fixture")
}

fn lint(c: &mut Criterion) {
    let engine = beaker::Catalog::builtin()
        .without("python")
        .engine()
        .expect("engine");
    let mut registry = Registry::from_specs(engine.specs());
    registry
        .add_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces/tools.json"))
        .expect("registry");
    let linter = Linter::new(registry);
    let qa = fixture("qa.txt");
    let (header, body) = qa.split_once("\"\"\"\n\n").expect("header");
    let mut text = format!("{header}\"\"\"\n\n");
    while text.lines().count() < 100_000 {
        text.push_str(body);
        text.push('\n');
    }
    let lines = text.lines().count() as u64;
    let conv = fixture("conversation.jsonl").repeat(2_000);
    let mut g = c.benchmark_group("lint");
    g.sample_size(10);
    g.throughput(Throughput::Elements(lines));
    g.bench_function("lint_qa_100k_lines", |b| {
        b.iter(|| linter.lint_reader("qa.txt", Path::new("qa.txt"), black_box(text.as_bytes())))
    });
    g.throughput(Throughput::Elements(2_000));
    g.bench_function("lint_conversation_2k_lines", |b| {
        b.iter(|| linter.lint_reader("c.jsonl", Path::new("c.jsonl"), black_box(conv.as_bytes())))
    });
    g.finish();
}

fn plans(c: &mut Criterion) {
    let engine = beaker::Catalog::empty()
        .with("calculator")
        .expect("calculator")
        .engine()
        .expect("engine");
    let steps = [
        ("a", "2**64", vec![]),
        ("b", "3**40", vec!["a"]),
        ("c", "7*8", vec!["a"]),
        ("d", "1/3", vec!["b", "c"]),
    ];
    let plan_json = json!({"strategy": "parallel", "steps": steps.iter().map(|(id, e, deps)| json!({
        "step_id": id, "tool": "calculator", "params": {"expression": e}, "depends_on": deps})).collect::<Vec<_>>()});
    let plan = beaker::PlanRequest::from_json(&plan_json).expect("plan");
    let dispatcher = beaker::Dispatcher::new(engine.clone());
    assert!(dispatcher.run_plan(plan.clone()).success());
    let mut g = c.benchmark_group("plan");
    g.bench_function("plan_diamond_4_steps", |b| {
        b.iter(|| dispatcher.run_plan(black_box(plan.clone())))
    });
    g.bench_function("four_calls_in_a_row", |b| {
        b.iter(|| {
            for (_, e, _) in &steps {
                black_box(engine.call(ToolCall::new("calculator", json!({"expression": e}))));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, lint, plans);
criterion_main!(benches);
