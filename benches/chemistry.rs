//! `chemistry` cost per call, one representative call per operation (docs/PERFORMANCE.md).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_chemistry::Chemistry;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;
use std::hint::black_box;

fn operations(c: &mut Criterion) {
    let tool = Chemistry::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("chemistry");
    let calls = [
        (
            "molar_mass_hydrate",
            json!({"operation": "molar_mass", "formula": "CuSO4·5H2O"}),
        ),
        (
            "balance_redox",
            json!({"operation": "balance", "equation": "MnO4^- + Fe^2+ + H^+ -> Mn^2+ + Fe^3+ + H2O"}),
        ),
        (
            "stoichiometry",
            json!({"operation": "stoichiometry", "equation": "C3H8 + O2 -> CO2 + H2O", "given": {"substance": "C3H8", "mass": "44 g"}, "find": "H2O"}),
        ),
        (
            "limiting_reagent",
            json!({"operation": "limiting_reagent", "equation": "N2 + H2 -> NH3", "amounts": {"N2": "28 g", "H2": "4 g"}}),
        ),
        (
            "ph_strong",
            json!({"operation": "ph", "concentration": 1e-8, "type": "acid"}),
        ),
        (
            "ph_weak",
            json!({"operation": "ph", "concentration": 0.1, "type": "acid", "ka": 1.8e-5}),
        ),
        (
            "ph_triprotic",
            json!({"operation": "ph", "concentration": 0.1, "type": "acid", "ka": [7.5e-3, 6.2e-8, 4.8e-13]}),
        ),
        (
            "buffer",
            json!({"operation": "buffer", "acid_concentration": 0.1, "base_concentration": 0.2, "pka": 4.76}),
        ),
        (
            "dilution",
            json!({"operation": "dilution", "c1": "1 M", "v1": "50 mL", "v2": "250 mL"}),
        ),
        (
            "ideal_gas",
            json!({"operation": "ideal_gas", "pressure": "1 atm", "volume": "22.4 L", "temperature": "0 degC"}),
        ),
        (
            "empirical_formula",
            json!({"operation": "empirical_formula", "composition": {"C": 40.0, "H": 6.7, "O": 53.3}, "molar_mass": 180}),
        ),
        ("element", json!({"operation": "element", "symbol": "Au"})),
    ];
    for (name, params) in calls {
        g.bench_function(name, |b| b.iter(|| tool.call(black_box(&params), &ctx)));
    }
    g.finish();
}

criterion_group!(benches, operations);
criterion_main!(benches);
