//! `grade` cost per call by kind of answer (the reward of one rollout), and all 302 pairs of
//! tests/data/grading/pairs.jsonl in one pass: the figure compared with math-verify by `benches/grade_math_verify.py`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_grade::Grade;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;

fn by_kind(c: &mut Criterion) {
    let tool = Grade::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("grade");
    for (name, answer, reference) in [
        (
            "gsm8k_integer",
            "So she has 18 apples left. The answer is 18.",
            "18",
        ),
        (
            "boxed_fraction",
            "Thus the probability is \\boxed{\\frac{3}{4}}.",
            "0.75",
        ),
        ("irrational", "\\boxed{2\\sqrt{2}}", "\\sqrt{8}"),
        ("expression_identity", "$x^2+2x+1$", "(x+1)^2"),
        ("interval", "\\boxed{(-\\infty, 2]}", "(-\\infty,2]"),
        ("units", "It moves at 60 km/h.", "16.6667 m/s"),
        ("choice", "The answer is (C).", "C"),
    ] {
        let params = json!({"answer": answer, "reference": reference});
        tool.call(&params, &ctx).expect("grades");
        g.bench_function(name, |b| b.iter(|| tool.call(black_box(&params), &ctx)));
    }
    g.finish();
}

fn all_pairs(c: &mut Criterion) {
    let tool = Grade::new();
    let ctx = CallContext::new(Limits::default());
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/grading/pairs.jsonl"
    ))
    .expect("pairs.jsonl");
    let params: Vec<Value> = text
        .lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).expect("a JSON line");
            json!({"answer": r["answer"], "reference": r["reference"]})
        })
        .collect();
    c.bench_function("grade_302_pairs", |b| {
        b.iter(|| {
            for p in &params {
                let _ = black_box(tool.call(p, &ctx));
            }
        })
    });
}

criterion_group!(benches, by_kind, all_pairs);
criterion_main!(benches);
