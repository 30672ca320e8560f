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
