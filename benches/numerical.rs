//! `numerical` benches (filled in with the tool).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use criterion::{criterion_group, criterion_main, Criterion};

fn placeholder(_c: &mut Criterion) {}

criterion_group!(benches, placeholder);
criterion_main!(benches);
