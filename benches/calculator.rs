//! Parse + evaluate costs of the expression language and one calculator call through the engine.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::ToolCall;
use beaker_expr::{eval_decimal, parse, ParseLimits};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::json;
use std::hint::black_box;

/// Representative calculator inputs, one per line in `benches/inputs/expressions.txt`.
fn inputs() -> Vec<String> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/inputs/expressions.txt"
    );
    std::fs::read_to_string(path)
        .expect("bench inputs")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

fn exact(c: &mut Criterion) {
    let mut g = c.benchmark_group("exact_parse_eval");
    for src in inputs() {
        g.bench_with_input(BenchmarkId::from_parameter(&src), &src, |b, src| {
            b.iter(|| {
                let e = parse(black_box(src), ParseLimits::default()).expect("parse");
                eval_decimal(&e, 10, 100_000, None).expect("eval")
            })
        });
    }
    g.finish();
}

fn fast(c: &mut Criterion) {
    let f = parse(
        "sin(x)**2 + cos(x)*exp(-x/3) - sqrt(abs(x))",
        ParseLimits::default(),
    )
    .expect("parse")
    .compile_f64(&["x"])
    .expect("compile");
    c.bench_function("f64_eval_1000_points", |b| {
        b.iter(|| {
            (0..1000)
                .map(|i| f.eval(&[f64::from(i) * 0.01]))
                .sum::<f64>()
        })
    });
}

fn engine_call(c: &mut Criterion) {
    let engine = beaker::engine().expect("engine");
    c.bench_function("engine_call_7_times_8", |b| {
        b.iter(|| engine.call(ToolCall::new("calculator", json!({"expression": "7 * 8"}))))
    });
}

criterion_group!(benches, exact, fast, engine_call);
criterion_main!(benches);
