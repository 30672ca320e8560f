//! The call path's fixed costs: bounding a result's size by computing its serialized length (what the engine
//! does) against serializing it to count the bytes (what it did before), on a result the size of a 2^16-point
//! FFT's, and one large-result call through the engine.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::ToolCall;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;

/// A result like `numerical`'s FFT of 2^16 points: 65,536 `[re, im]` pairs of doubles.
fn fft_sized_result() -> Value {
    let pairs: Vec<Value> = (0..65_536u32)
        .map(|i| {
            let x = f64::from(i);
            json!([x.sin() * 1e3, (x * 0.5).cos() / 7.0])
        })
        .collect();
    json!({"spectrum": pairs, "n": 65_536})
}

struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn size_check(c: &mut Criterion) {
    let v = fft_sized_result();
    let mut g = c.benchmark_group("result_size_check_65536_pairs");
    g.bench_function("json_len", |b| {
        b.iter(|| beaker_core::json_len(black_box(&v)))
    });
    g.bench_function("serialize_to_count", |b| {
        b.iter(|| {
            let mut n = Counter(0);
            serde_json::to_writer(&mut n, black_box(&v)).expect("serialize");
            n.0
        })
    });
    g.finish();
}

fn large_result_call(c: &mut Criterion) {
    let engine = beaker::Catalog::empty()
        .with("numerical")
        .expect("numerical")
        .engine()
        .expect("engine");
    let signal: Vec<f64> = (0..16_384).map(|i| (f64::from(i) * 0.01).sin()).collect();
    let params = json!({"operation": "fft", "data": {"x": signal}});
    c.bench_function("engine_call_fft_16384", |b| {
        b.iter(|| {
            let env = engine.call(ToolCall::new("numerical", params.clone()));
            assert!(env.success, "{env:?}");
        })
    });
}

criterion_group!(benches, size_check, large_result_call);
criterion_main!(benches);
