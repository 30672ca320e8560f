//! `statistics` cost per call: descriptive statistics of 10^6 values, a Welch t-test on 2 × 50 values,
//! and a logistic regression on 10^4 rows × 3 predictors; the figures beside SciPy's in docs/PERFORMANCE.md
//! (`benches/statistics_scipy.py` times SciPy on the same inputs, which come from the same generator).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_statistics::Statistics;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;

#[path = "support/lcg.rs"]
mod lcg;
use lcg::uniforms;

fn bench(c: &mut Criterion) {
    let tool = Statistics::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("statistics");
    g.sample_size(20);

    let big: Vec<f64> = uniforms(1, 1_000_000).iter().map(|u| u * 100.0).collect();
    let p = json!({"operation": "descriptive", "data": big});
    g.bench_function("descriptive_1e6", |b| {
        b.iter(|| tool.call(black_box(&p), &ctx))
    });
    // The share of that spent reading the JSON numbers (stored as text: serde_json's arbitrary_precision).
    g.bench_function("read_1e6_json_numbers", |b| {
        b.iter(|| {
            black_box(&p)["data"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_f64).sum::<f64>())
        })
    });

    let a: Vec<f64> = uniforms(2, 50);
    let bb: Vec<f64> = uniforms(3, 50).iter().map(|u| u + 0.1).collect();
    let p = json!({"operation": "t_test", "data": {"sample1": a, "sample2": bb}, "options": {"equal_var": false}});
    g.bench_function("welch_t_test_50", |b| {
        b.iter(|| tool.call(black_box(&p), &ctx))
    });

    let n = 10_000;
    let u = uniforms(4, 3 * n + n);
    let rows: Vec<Value> = (0..n)
        .map(|i| {
            json!([
                u[3 * i] * 2.0 - 1.0,
                u[3 * i + 1] * 2.0 - 1.0,
                u[3 * i + 2] * 2.0 - 1.0
            ])
        })
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|i| {
            let eta = 0.5 + 1.5 * (u[3 * i] * 2.0 - 1.0) - (u[3 * i + 1] * 2.0 - 1.0);
            let p = 1.0 / (1.0 + (-eta).exp());
            if u[3 * n + i] < p {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    let p = json!({"operation": "regression", "data": {"x": rows, "y": y}, "options": {"type": "logistic"}});
    g.bench_function("logistic_1e4x3", |b| {
        b.iter(|| tool.call(black_box(&p), &ctx))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
