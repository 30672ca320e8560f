//! `numerical` cost per call: a 100×100 linear solve, a 1,000-point ODE solution (Van der Pol, μ = 1, RK45), a
//! 2^16-point FFT and a 200-point, 3-parameter curve fit; the figures beside SciPy's in docs/PERFORMANCE.md
//! (`benches/numerical_scipy.py` times SciPy on the same inputs, which come from the same generator).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_numerical::Numerical;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;

#[path = "support/lcg.rs"]
mod lcg;
use lcg::uniforms;

/// The four calls, as `benches/numerical_scipy.py` builds them.
pub fn inputs() -> Vec<(&'static str, Value)> {
    let n = 100;
    let u = uniforms(1, n * n);
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| u[i * n + j] - 0.5).collect())
        .collect();
    let b: Vec<f64> = uniforms(2, n).iter().map(|v| v - 0.5).collect();
    let t_eval: Vec<f64> = (0..1000).map(|i| 20.0 * i as f64 / 999.0).collect();
    let x: Vec<f64> = uniforms(3, 1 << 16).iter().map(|v| v - 0.5).collect();
    let xs: Vec<f64> = (0..200).map(|i| 4.0 * i as f64 / 199.0).collect();
    let noise = uniforms(4, 200);
    let ys: Vec<f64> = xs
        .iter()
        .zip(&noise)
        .map(|(x, e)| 2.5 * (-1.3 * x).exp() + 0.5 + 0.05 * (e - 0.5))
        .collect();
    vec![
        (
            "solve_linear_100x100",
            json!({"operation": "solve_linear", "data": {"A": a, "b": b}}),
        ),
        (
            "ode_van_der_pol_1000_points",
            json!({"operation": "ode", "data": {"equations": ["y1", "(1 - y0**2)*y1 - y0"], "y0": [2, 0], "t_span": [0, 20], "t_eval": t_eval}, "options": {"rtol": 1e-6, "atol": 1e-9}}),
        ),
        ("fft_65536", json!({"operation": "fft", "data": {"x": x}})),
        (
            "curve_fit_exponential_200",
            json!({"operation": "curve_fit", "data": {"model": "a*exp(-b*x) + c", "x": xs, "y": ys, "p0": [1, 1, 1]}}),
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let tool = Numerical::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("numerical");
    g.sample_size(30);
    for (name, params) in inputs() {
        assert!(tool.call(&params, &ctx).is_ok(), "{name} fails");
        g.bench_function(name, |b| b.iter(|| tool.call(black_box(&params), &ctx)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
