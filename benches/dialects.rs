//! Parse throughput of `beaker-dialects`: a 1 MB model text holding 1,000 calls, parsed in one go (batch) and
//! streamed in 16-byte chunks (how tokens arrive from an inference server).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker_dialects::{parse, ParseOptions, StreamParser};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

/// 1,000 copies of `benches/inputs/dialect_paragraph.txt` (about 1 KB of prose and one call each).
fn text() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/inputs/dialect_paragraph.txt"
    );
    std::fs::read_to_string(path)
        .expect("bench input")
        .repeat(1000)
}

fn throughput(c: &mut Criterion) {
    let text = text();
    // All 1,000 calls are read (the default cap of 64 would leave the rest as text).
    let opts = ParseOptions {
        max_calls: 1000,
        ..ParseOptions::default()
    };
    assert_eq!(parse(&text, &opts).calls().count(), 1000);
    let mut g = c.benchmark_group("dialects_1MB_1000_calls");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(30);
    g.bench_function("batch", |b| b.iter(|| parse(black_box(&text), &opts)));
    g.bench_function("stream_16B_chunks", |b| {
        b.iter(|| {
            let mut p = StreamParser::new(opts.clone());
            let mut n = 0;
            let bytes = text.as_bytes();
            let mut i = 0;
            while i < bytes.len() {
                let mut j = (i + 16).min(bytes.len());
                while !text.is_char_boundary(j) {
                    j += 1;
                }
                n += p.push(&text[i..j]).len();
                i = j;
            }
            n + p.finish().len()
        })
    });
    g.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
