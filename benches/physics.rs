//! `physics` cost per call, one representative call per operation (docs/PERFORMANCE.md).

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::{CallContext, Limits, Tool};
use beaker_physics::Physics;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use std::hint::black_box;

fn cube() -> Value {
    let edges: Vec<Value> = (0..8u32)
        .flat_map(|i| (0..3).map(move |k| (i, i ^ (1 << k))))
        .filter(|(i, j)| i < j)
        .map(|(i, j)| json!({"from": format!("v{i}"), "to": format!("v{j}"), "resistance": "1 kohm"}))
        .collect();
    json!({"operation": "resistors", "network": edges, "between": ["v0", "v7"]})
}

fn operations(c: &mut Criterion) {
    let tool = Physics::new();
    let ctx = CallContext::new(Limits::default());
    let mut g = c.benchmark_group("physics");
    let calls = [
        (
            "kinematics_two_roots",
            json!({"operation": "kinematics", "known": {"u": "20 m/s", "a": -9.80665, "s": 15}}),
        ),
        (
            "projectile",
            json!({"operation": "projectile", "velocity": "14 m/s", "angle": "40 deg", "height": "1.8 m"}),
        ),
        (
            "circular_motion",
            json!({"operation": "circular_motion", "radius": "100 m", "velocity": "72 km/h", "mass": 1500}),
        ),
        (
            "orbit",
            json!({"operation": "orbit", "mass": 5.972e24, "radius": "6771 km"}),
        ),
        (
            "collision",
            json!({"operation": "collision", "m1": 2, "u1": 4, "m2": 3, "u2": -2, "restitution": 0.5}),
        ),
        (
            "work",
            json!({"operation": "work", "force": "2 kN", "distance": "3 km", "angle": "30 deg"}),
        ),
        (
            "heat",
            json!({"operation": "heat", "mass": "500 g", "specific_heat": 4186, "initial_temperature": "20 degC", "final_temperature": "100 degC"}),
        ),
        (
            "gas_process_adiabatic",
            json!({"operation": "gas_process", "process": "adiabatic", "moles": 1, "temperature": 300, "volume": "10 L", "final_volume": "20 L", "gamma": 1.4}),
        ),
        (
            "carnot",
            json!({"operation": "carnot", "t_hot": "500 degC", "t_cold": "25 degC"}),
        ),
        (
            "resistors_parallel",
            json!({"operation": "resistors", "parallel": ["1 kohm", "2.2 kohm", "4.7 kohm", "10 kohm"]}),
        ),
        ("resistors_cube_network", cube()),
        (
            "rc_circuit",
            json!({"operation": "rc_circuit", "resistance": "10 kohm", "capacitance": "4.7 uF", "voltage": 5, "time": "47 ms"}),
        ),
        (
            "thin_lens",
            json!({"operation": "thin_lens", "focal_length": "10 cm", "object_distance": "30 cm"}),
        ),
        (
            "snell",
            json!({"operation": "snell", "n1": 1.5, "n2": 1.0, "angle": 30}),
        ),
        (
            "doppler",
            json!({"operation": "doppler", "frequency": "1 kHz", "source_velocity": "72 km/h"}),
        ),
    ];
    for (name, params) in calls {
        g.bench_function(name, |b| b.iter(|| tool.call(black_box(&params), &ctx)));
    }
    g.finish();
}

criterion_group!(benches, operations);
criterion_main!(benches);
