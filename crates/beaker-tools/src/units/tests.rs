//! Unit tests of the converter's parts; reference conversions against Pint are in `tests/data/units/`.

use super::*;
use beaker_core::Limits;

fn conv(value: Value, from: &str, to: &str) -> Result<Value, ToolError> {
    UnitConverter::new().call(
        &json!({"value": value, "from_unit": from, "to_unit": to}),
        &CallContext::new(Limits::default()),
    )
}

#[test]
fn the_spec_examples_hold() {
    let t = UnitConverter::new();
    for ex in &t.spec().examples {
        let got = t
            .call(&ex.params, &CallContext::new(Limits::default()))
            .unwrap();
        assert_eq!(got, ex.result, "{}", ex.params);
    }
}

#[test]
fn unit_expressions_parse_every_way_people_write_them() {
    for (from, to, value, want) in [
        ("kg*m/s^2", "N", "1", "1"),
        ("N·m", "J", "1", "1"),
        ("N m", "J", "1", "1"),
        ("kW*h", "MJ", "1", "3.6"),
        ("kWh", "J", "1", "3600000"),
        ("m^3", "L", "1", "1000"),
        ("m**3", "L", "1", "1000"),
        ("m³", "L", "1", "1000"),
        ("m3", "L", "1", "1000"),
        ("kilometers per hour", "m/s", "36", "10"),
        ("square feet", "m^2", "1", "0.09290304"),
        ("meters per second squared", "m/s^2", "2", "2"),
        ("J/(kg*K)", "J/(g*K)", "1000", "1"),
        ("µm", "nm", "1", "1000"),
        ("um", "nm", "1", "1000"),
        ("μm", "nm", "1", "1000"),
        ("GiB", "MiB", "1", "1024"),
        ("nautical miles", "m", "1", "1852"),
        ("degrees Celsius", "K", "0", "273.15"),
        ("kΩ", "ohm", "2.2", "2200"),
        ("mmol/L", "M", "1", "0.001"),
        ("1/s", "Hz", "5", "5"),
        ("kg m^2 s^-2", "J", "1", "1"),
    ] {
        let got = conv(json!(value), from, to).unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
        assert_eq!(got["value"], want, "{from} -> {to}: {got}");
    }
}

#[test]
fn temperatures_are_affine_and_differences_are_not() {
    let v = |v: &str, f: &str, t: &str| conv(json!(v), f, t).unwrap()["value"].clone();
    assert_eq!(v("100", "degC", "degF"), "212");
    assert_eq!(v("-40", "°C", "°F"), "-40");
    assert_eq!(v("0", "K", "degC"), "-273.15");
    assert_eq!(v("1", "delta_degC", "delta_degF"), "1.8");
    assert_eq!(v("1", "J/(kg*degC)", "J/(kg*K)"), "1");
    let c = conv(json!("25"), "C", "F").unwrap();
    assert_eq!(c["value"], "77");
    assert!(c["notes"].to_string().contains("Celsius"));
    // Alone, C is the coulomb.
    assert_eq!(v("1", "C", "mC"), "1000");
}

#[test]
fn dimension_mismatches_and_unknown_units_say_what_is_wrong() {
    let e = conv(json!(1), "m", "s").unwrap_err();
    assert_eq!(e.kind, beaker_core::ErrorKind::InvalidParams);
    assert!(
        e.message.contains("cannot convert length (m) to time (s)"),
        "{e}"
    );
    let e = conv(json!(1), "kg*m/s", "N").unwrap_err();
    assert!(
        e.message.contains("length * mass / time") && e.message.contains("force"),
        "{e}"
    );
    let e = conv(json!(1), "meterz", "m").unwrap_err();
    assert!(
        e.message.contains("unknown unit `meterz`") && e.message.contains("meter"),
        "{e}"
    );
    let e = conv(json!(1), "rpm", "Hz").unwrap_err();
    assert!(e.message.contains("angular speed"), "{e}");
}

#[test]
fn exactness_and_rounding() {
    let r = conv(json!(100), "km/h", "m/s").unwrap();
    assert_eq!(
        (r["exact"].clone(), r["fraction"].clone()),
        (json!(false), json!("250/9"))
    );
    let r = UnitConverter::new()
        .call(
            &json!({"value": 100, "from_unit": "km/h", "to_unit": "m/s", "precision": 5}),
            &CallContext::new(Limits::default()),
        )
        .unwrap();
    assert_eq!(r["value"], "27.778");
    assert_eq!(
        conv(json!("1e-30"), "m", "km").unwrap()["value"],
        "0.000000000000000000000000000000001"
    );
    assert_eq!(
        conv(json!(180), "deg", "rad").unwrap()["value"],
        "3.14159265358979"
    );
    assert_eq!(conv(json!(0.1), "m", "cm").unwrap()["value"], "10");
    let arr = conv(json!([1, "2.5", "1/4"]), "in", "cm").unwrap();
    assert_eq!(arr["value"], json!(["2.54", "6.35", "0.635"]));
}

#[test]
fn ambiguous_units_are_noted() {
    for u in ["hp", "ton", "gal", "cal", "rad"] {
        let r = conv(json!(1), u, u).unwrap();
        assert!(
            r["notes"].as_array().is_some_and(|n| !n.is_empty()),
            "{u}: {r}"
        );
    }
}

#[test]
fn hostile_values_and_units_are_refused_cleanly() {
    assert_eq!(
        conv(json!("1e100000"), "m", "km").unwrap_err().kind,
        beaker_core::ErrorKind::LimitExceeded
    );
    assert_eq!(
        conv(json!("NaN"), "m", "km").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), &"(".repeat(100), "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), "m^999", "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), &"m*".repeat(200), "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), "", "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
}
