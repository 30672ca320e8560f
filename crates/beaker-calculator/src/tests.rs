//! Unit tests of the calculator: precision, cancellation, names; its examples run in the conformance suite.

use super::*;
use beaker_core::{CancelReason, ErrorKind, Limits};

fn run(params: Value) -> Result<Value, ToolError> {
    Calculator::new().call(&params, &CallContext::new(Limits::default()))
}

#[test]
fn precision_is_capped_by_limits() {
    let err = run(json!({"expression": "pi", "precision": 5000})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::LimitExceeded);
    assert_eq!(
        run(json!({"expression": "1/4", "precision": 1.0})).unwrap()["value"],
        "0.2"
    );
}

#[test]
fn cancellation_is_observed() {
    let ctx = CallContext::new(Limits::default());
    ctx.cancel.cancel(CancelReason::Timeout);
    let err = Calculator::new()
        .call(&json!({"expression": "1+1"}), &ctx)
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::Timeout);
}

#[test]
fn variables_are_not_allowed() {
    let err = run(json!({"expression": "x + 1"})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::ParseError);
    assert!(err.message.contains("unknown name `x`"), "{}", err.message);
}

#[test]
fn poles_are_named() {
    for (expr, pole) in [
        ("tan(pi/2)", "π/2"),
        ("tan(3*pi/2)", "3π/2"),
        ("tan(-pi/2)", "-π/2"),
        ("tan(tau/4)", "π/2"),
    ] {
        let err = run(json!({ "expression": expr })).unwrap_err();
        assert_eq!(err.kind, ErrorKind::DomainError, "{expr}");
        assert!(
            err.message.contains(&format!("tan has a pole at {pole}")),
            "{expr}: {}",
            err.message
        );
    }
    let err = run(json!({"expression": "1/cos(pi/2)"})).unwrap_err();
    assert_eq!(err.kind, ErrorKind::DomainError);
    assert!(err.message.contains("division by zero"), "{}", err.message);
}
