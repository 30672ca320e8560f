//! `unit_converter` cost per call (parse both units, convert exactly, format), the figure compared with
//! fend-core, rink-core and numbat in docs/ARCHITECTURE.md.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_units::UnitConverter;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;

fn convert(c: &mut Criterion) {
    let tool = UnitConverter::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("unit_converter");
    for (name, from, to) in [
        ("100_kmh_to_ms", "km/h", "m/s"),
        ("compound_J_per_kg_K", "kJ/(kg*K)", "cal/(g*delta_degC)"),
        ("long_names", "kilometers per hour", "miles per hour"),
    ] {
        let params = json!({"value": 100, "from_unit": from, "to_unit": to});
        g.bench_function(name, |b| b.iter(|| tool.call(black_box(&params), &ctx)));
    }
    g.finish();
}

criterion_group!(benches, convert);
criterion_main!(benches);
