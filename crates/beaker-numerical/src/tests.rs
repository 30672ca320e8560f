//! Unit tests over the whole tool: error kinds, determinism, and properties.

use crate::Numerical;
use beaker_core::{CallContext, ErrorKind, Limits, Tool};
use proptest::prelude::*;
use serde_json::{json, Value};

fn call(params: Value) -> Result<Value, beaker_core::ToolError> {
    Numerical::new().call(&params, &CallContext::new(Limits::default()))
}

#[test]
fn the_spec_shows_several_operations() {
    // Each example is checked against the tool by the conformance suite (tests/all/conformance.rs).
    assert!(Numerical::new().spec().examples.len() >= 4);
}

#[test]
fn seed_examples() {
    let r =
        call(json!({"operation": "solve_linear", "data": {"A": [[3, 1], [1, 2]], "b": [9, 8]}}))
            .unwrap();
    assert_eq!(r["x"], json!([2.0, 3.0]));
    assert_eq!(r["method"], "LU decomposition");
    let r = call(
        json!({"operation": "root_find", "data": {"function": "x**3 - x - 2", "bracket": [1, 2]}}),
    )
    .unwrap();
    assert_eq!(r["root"].as_f64(), Some(1.5213797068045676));
    assert_eq!(r["converged"], true);
}

#[test]
fn every_operation_is_dispatched() {
    for op in crate::OPERATIONS {
        let err = call(json!({"operation": op})).err();
        // Without data every operation fails on its inputs, never as an unknown operation.
        if let Some(e) = err {
            assert!(!e.message.contains("unknown operation"), "{op}: {e}");
        }
    }
    let e = call(json!({"operation": "nope"})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
}

#[test]
fn a_stopped_call_reports_timeout() {
    let ctx = CallContext::new(Limits::default());
    ctx.cancel.cancel(beaker_core::CancelReason::Timeout);
    let e = Numerical::new()
        .call(
            &json!({"operation": "ode", "data": {"equations": ["-y0"], "y0": [1], "t_span": [0, 1]}}),
            &ctx,
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout);
}

#[test]
fn same_call_same_bytes() {
    let p = json!({"operation": "ode", "data": {"equations": ["y1", "(1 - y0**2)*y1 - y0"], "y0": [2, 0], "t_span": [0, 10]}, "options": {"method": "DOP853"}});
    let a = serde_json::to_string(&call(p.clone()).unwrap()).unwrap();
    let b = serde_json::to_string(&call(p).unwrap()).unwrap();
    assert_eq!(a, b);
}

fn matrix(n: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    proptest::collection::vec(proptest::collection::vec(-100.0f64..100.0, n), n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Solving then multiplying back gives b (for a well-conditioned system), or a clean domain_error.
    #[test]
    fn solve_then_multiply_back(n in 1usize..6, seed in matrix(6), b in proptest::collection::vec(-10.0f64..10.0, 6)) {
        let a: Vec<Vec<f64>> = seed.iter().take(n).map(|r| r[..n].to_vec()).collect();
        let b = &b[..n];
        match call(json!({"operation": "solve_linear", "data": {"A": a, "b": b}})) {
            Ok(r) => {
                let x: Vec<f64> = r["x"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                // LU with partial pivoting is backward stable: the residual is small next to |A||x| + |b|,
                // whatever the condition number.
                for i in 0..n {
                    let ax: f64 = (0..n).map(|j| a[i][j] * x[j]).sum();
                    let scale: f64 = (0..n).map(|j| (a[i][j] * x[j]).abs()).sum::<f64>() + b[i].abs();
                    prop_assert!((ax - b[i]).abs() <= 1e-10 * scale, "row {i}: {ax} vs {}", b[i]);
                }
            }
            Err(e) => prop_assert_eq!(e.kind, ErrorKind::DomainError),
        }
    }

    /// Arbitrary JSON-ish input never panics, whatever the operation.
    #[test]
    fn any_input_never_panics(
        op in proptest::sample::select(crate::OPERATIONS.to_vec()),
        nums in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(-1e300), Just(1e-300), -5.0f64..5.0], 0..6),
        key in proptest::sample::select(vec!["A", "x", "y", "b", "x0", "y0", "bracket", "t_span", "x_new", "n", "function", "equations"]),
        func in proptest::sample::select(vec!["x", "1/x", "sqrt(x)", "exp(x**9)", "x**3 - x - 2", "-y0", "ln(x)"]),
        nested in any::<bool>(),
    ) {
        let arr = if nested { json!([nums.clone(), nums.clone()]) } else { json!(nums) };
        let data = json!({key: arr, "function": func, "equations": [func], "y0": [1.0], "t_span": [0, 1], "x": nums, "y": nums, "bracket": [0, 2], "x0": [0.5], "a": 0, "b": 1, "x_new": [0.5], "model": "a*x"});
        let _ = call(json!({"operation": op, "data": data}));
    }
}

/// Every `Example: `params` → `result`` line of numerical.md is what the tool returns.
#[test]
fn the_notes_examples_are_true() {
    let notes = include_str!("numerical.md");
    let mut n = 0;
    for line in notes.lines().filter(|l| l.starts_with("Example: `")) {
        let rest = &line["Example: `".len()..];
        let (params, result) = rest
            .split_once("` → `")
            .expect("an example line has params → result");
        let result = result.strip_suffix('`').expect("a closing backquote");
        let params: Value = serde_json::from_str(params).expect(params);
        let want: Value = serde_json::from_str(result).expect(result);
        assert_eq!(
            call(params.clone()).unwrap(),
            want,
            "numerical.md example {params}"
        );
        n += 1;
    }
    assert!(n >= 25, "only {n} examples in numerical.md");
}
