//! Unit tests of the parts; reference values over the whole tool are in `tests/data/physics/`.

use super::Physics;
use beaker_core::{CallContext, ErrorKind, Limits, Tool};
use serde_json::{json, Value};

fn call(params: Value) -> Result<Value, beaker_core::ToolError> {
    Physics::new().call(&params, &CallContext::new(Limits::default()))
}

#[test]
fn every_operation_has_keys_and_a_line_in_the_notes() {
    let notes = include_str!("physics.md");
    for (op, _) in super::KEYS {
        assert!(
            notes.contains(&format!("**{op}**")),
            "{op} is not in physics.md"
        );
    }
}

#[test]
fn keys_of_other_operations_are_refused() {
    let e = call(json!({"operation": "wave", "speed": 3, "frequency": 1, "mass": 2}));
    assert!(e.is_err_and(|e| e.kind == ErrorKind::InvalidParams && e.message.contains("`mass`")));
}

#[test]
fn wires_merge_nodes_and_shorted_ends_read_zero() {
    let net = |edges: Value, between: Value| {
        call(json!({"operation": "resistors", "network": edges, "between": between}))
            .map(|r| r["equivalent_resistance"].as_f64())
    };
    // A wire from c to b puts the 300 ohm straight across a-b, in parallel with 100 ohm: 75 ohm.
    let edges = json!([
        {"from": "a", "to": "c", "resistance": 300},
        {"from": "c", "to": "b", "resistance": 0},
        {"from": "a", "to": "b", "resistance": 100},
        {"from": "b", "to": "b", "resistance": 7}
    ]);
    assert_eq!(net(edges.clone(), json!(["a", "b"])).ok(), Some(Some(75.0)));
    assert_eq!(net(edges, json!(["c", "b"])).ok(), Some(Some(0.0)));
}

#[test]
fn exact_fractions_are_given_when_short() {
    let r = call(json!({"operation": "resistors", "parallel": [1, 2, 3]}));
    assert_eq!(
        r.ok().map(|r| r["equivalent_resistance_exact"].clone()),
        Some(json!("6/11"))
    );
}

#[test]
fn kinematics_refuses_disagreeing_and_underdetermined_knowns() {
    let e = call(json!({"operation": "kinematics", "known": {"u": 2, "v": 14, "a": 3, "t": 5}}));
    assert!(e.is_err_and(|e| e.message.contains("disagree")));
    let e = call(json!({"operation": "kinematics", "known": {"u": 2, "v": 2, "a": 0}}));
    assert!(e.is_err_and(|e| e.message.contains("infinitely many")));
    let e = call(json!({"operation": "kinematics", "known": {"u": 2, "v": 2}}));
    assert!(e.is_err_and(|e| e.message.contains("needs three")));
}

#[test]
fn adiabatic_final_state_from_any_one_final_value() {
    let base = json!({"operation": "gas_process", "process": "adiabatic", "moles": 1, "temperature": 300, "volume": 0.01, "gamma": 1.4});
    let with = |k: &str, v: f64| {
        let mut p = base.clone();
        p[k] = json!(v);
        call(p).ok().map(|r| r["work"].as_f64().unwrap_or(f64::NAN))
    };
    let by_volume = with("final_volume", 0.02).unwrap_or(f64::NAN);
    let t2 = 300.0 * 0.5f64.powf(0.4);
    let by_temperature = with("final_temperature", t2).unwrap_or(f64::NAN);
    assert!(
        (by_volume - by_temperature).abs() < 1e-9 * by_volume,
        "{by_volume} {by_temperature}"
    );
}

#[test]
fn networks_past_the_node_limit_are_refused() {
    let chain: Vec<Value> = (0..150)
        .map(|i| json!({"from": format!("n{i}"), "to": format!("n{}", i + 1), "resistance": 1}))
        .collect();
    let e = call(json!({"operation": "resistors", "network": chain, "between": ["n0", "n150"]}));
    assert!(e.is_err_and(|e| e.kind == ErrorKind::LimitExceeded));
    let ladder: Vec<Value> = (0..99)
        .map(|i| json!({"from": format!("n{i}"), "to": format!("n{}", i + 1), "resistance": 1}))
        .collect();
    let r = call(json!({"operation": "resistors", "network": ladder, "between": ["n0", "n99"]}));
    assert_eq!(
        r.ok().map(|r| r["equivalent_resistance"].clone()),
        Some(json!(99.0))
    );
}

/// Values of every kind a careless or hostile caller might put under any key.
fn hostile_values() -> Vec<Value> {
    vec![
        json!(0),
        json!(-1),
        json!(1),
        json!(2.5),
        json!(90),
        json!(1e308),
        json!(-1e308),
        json!(5e-324),
        json!("20 m/s"),
        json!("1e300 kg"),
        json!("-5 degC"),
        json!("0 K"),
        json!("3 rad"),
        json!("10 kohm"),
        json!("x"),
        json!([1, "2 ohm", -3]),
        json!([]),
        json!({"u": 1, "a": 2, "s": -1e308}),
        json!({"v": 0, "a": 0, "s": 0, "t": 0}),
        json!([{"from": "a", "to": "b", "resistance": 0}, {"from": "b", "to": "a", "resistance": 5e-324}]),
        json!(["a", "b"]),
        json!(null),
        json!(true),
        json!("elastic"),
        json!("adiabatic"),
        json!("discharging"),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Any operation with any subset of its keys bound to any of the values above answers without panicking,
    /// and what it answers is finite.
    #[test]
    fn any_operation_on_any_values_never_panics(
        op in 0..super::KEYS.len(),
        picks in proptest::collection::vec((0usize..16, 0usize..26), 0..8),
    ) {
        let (name, keys) = super::KEYS[op];
        let values = hostile_values();
        let mut params = json!({"operation": name});
        for (k, v) in picks {
            if let Some(key) = keys.get(k % keys.len().max(1)) {
                params[*key] = values[v % values.len()].clone();
            }
        }
        if let Ok(out) = call(params.clone()) {
            let text = out.to_string();
            proptest::prop_assert!(!text.contains("inf") && !text.contains("NaN"), "{params} -> {text}");
        }
    }
}

#[test]
fn every_operation_has_an_example() {
    let missing =
        beaker_core::operations::without_example(&super::spec::spec().examples, super::KEYS);
    assert!(
        missing.is_empty(),
        "operations without an example: {missing:?}"
    );
}
