//! Property tests: any operation on any small data, with any options, returns a result or a typed error
//! (never a panic, never `internal`), and a result holds no non-finite number passed off as a value.

use crate::{Statistics, OPERATIONS};
use beaker_core::{CallContext, ErrorKind, Limits, Tool};
use proptest::prelude::*;
use serde_json::{json, Value};

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-5i64..5).prop_map(|v| json!(v)),
        (-1e3f64..1e3).prop_map(|v| json!(v)),
        prop::sample::select(vec![0.0, 1.0, 1e300, -1e300, 1e-300, 5e-324, 1e15 + 0.5])
            .prop_map(|v| json!(v)),
        Just(json!("NaN")),
        Just(json!(null)),
    ]
}

fn sample() -> impl Strategy<Value = Value> {
    prop::collection::vec(number(), 0..12).prop_map(Value::Array)
}

fn data() -> impl Strategy<Value = Value> {
    let dist = prop::sample::select(crate::distributions::NAMES.to_vec());
    let func = prop::sample::select(crate::distributions::FUNCTIONS.to_vec());
    prop_oneof![
        sample(),
        (sample(), sample(), number()).prop_map(|(a, b, mu)| json!({"sample1": a, "sample2": b, "mu": mu, "x": a, "y": b})),
        prop::collection::vec(sample(), 0..4).prop_map(|g| json!({"groups": g, "observed": g, "table": g, "x": g, "y": [0, 1, 1, 0, 1]})),
        (dist, func, number(), number(), number()).prop_map(|(d, f, x, p1, p2)| json!({
            "distribution": d, "function": f, "x": x, "df": p1, "dfn": p1, "dfd": p2, "n": p1, "p": p2,
            "mu": p1, "a": p1, "b": p2, "s": p1, "c": p1, "M": p1, "N": p2, "loc": p2, "scale": p1,
            "sample1": [0.1, 0.4, 0.9]
        })),
        (number(), number()).prop_map(|(k, n)| json!({"successes": k, "n": n})),
    ]
}

fn options() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["two-sided", "less", "greater", "sideways"]),
        prop::sample::select(vec![
            "auto",
            "exact",
            "asymptotic",
            "pearson",
            "spearman",
            "kendall",
            "wilson",
            "clopper_pearson",
        ]),
        prop::sample::select(vec![
            "linear",
            "polynomial",
            "logistic",
            "mean",
            "proportion",
            "difference",
        ]),
        any::<bool>(),
        number(),
    )
        .prop_map(|(alt, method, ty, flag, n)| {
            json!({
                "alternative": alt, "method": method, "type": ty, "paired": flag, "equal_var": flag,
                "bias": flag, "correction": flag, "degree": n, "ddof": n, "n": 3, "seed": 1
            })
        })
}

fn finite_everywhere(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(f64::is_finite),
        Value::Array(a) => a.iter().all(finite_everywhere),
        Value::Object(o) => o.values().all(finite_everywhere),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn any_call_is_a_result_or_a_typed_error(
        op in prop::sample::select(OPERATIONS.to_vec()),
        data in data(),
        options in options(),
    ) {
        let tool = Statistics::new();
        let params = json!({"operation": op, "data": data, "options": options});
        match tool.call(&params, &CallContext::new(Limits::default())) {
            Ok(v) => {
                prop_assert!(finite_everywhere(&v), "{params} -> {v}");
                // The headline numbers are never undefined (null): undefined inputs are errors.
                for key in ["p_value", "coefficient", "lower", "upper", "mean", "t_statistic"] {
                    prop_assert!(v.get(key).is_none_or(Value::is_number), "{params} -> {v}");
                }
                if op != "fisher_exact" {
                    prop_assert!(v.get("statistic").is_none_or(Value::is_number), "{params} -> {v}");
                }
            }
            Err(e) => prop_assert_ne!(e.kind, ErrorKind::Internal, "{}", e.message),
        }
    }
}
