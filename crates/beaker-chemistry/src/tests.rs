//! Unit tests of the parts; reference values over the whole tool are in `tests/data/chemistry/`.

use super::formula::parse_species;

fn counts(f: &str) -> Vec<(u32, i64)> {
    parse_species(f)
        .map(|s| s.counts.into_iter().collect())
        .unwrap_or_default()
}

#[test]
fn formulas() {
    assert_eq!(counts("H2O"), vec![(1, 2), (8, 1)]);
    assert_eq!(counts("H₂O"), vec![(1, 2), (8, 1)]);
    assert_eq!(counts("Ca3(PO4)2"), vec![(8, 8), (15, 2), (20, 3)]);
    assert_eq!(
        counts("K4[Fe(CN)6]"),
        vec![(6, 6), (7, 6), (19, 4), (26, 1)]
    );
    assert_eq!(
        counts("CuSO4·5H2O"),
        vec![(1, 10), (8, 9), (16, 1), (29, 1)]
    );
    assert_eq!(counts("CuSO4*5H2O"), counts("CuSO4.5H2O"));
    assert_eq!(counts("Co"), vec![(27, 1)]);
    assert_eq!(counts("CO"), vec![(6, 1), (8, 1)]);
}

#[test]
fn charges() {
    let charge = |f: &str| parse_species(f).map(|s| s.charge);
    assert_eq!(charge("SO4^2-").ok(), Some(-2));
    assert_eq!(charge("SO₄²⁻").ok(), Some(-2));
    assert_eq!(charge("NH4^+").ok(), Some(1));
    assert_eq!(charge("NH4+").ok(), Some(1));
    assert_eq!(charge("Fe3+").ok(), Some(3));
    assert_eq!(charge("Fe+3").ok(), Some(3));
    assert_eq!(charge("Cl-").ok(), Some(-1));
    assert_eq!(charge("Na+(aq)").ok(), Some(1));
    assert_eq!(charge("e-").ok(), Some(-1));
    assert!(charge("SO42-").is_err_and(|e| e.message.contains("SO4^2-")));
    assert_eq!(charge("[Cu(NH3)4]2+").ok(), Some(2));
    assert_eq!(charge("[Fe(CN)6]4-").ok(), Some(-4));
    assert!(charge("(NH4)2+").is_err_and(|e| e.message.contains("ambiguous")));
    let complex = parse_species("[Fe(CN)6]4-").map(|s| s.counts.into_iter().collect::<Vec<_>>());
    assert_eq!(complex.ok(), Some(vec![(6, 6), (7, 6), (26, 1)]));
}

#[test]
fn bad_formulas_are_refused() {
    for f in [
        "", "Xx", "H2O)", "(H2O", "h2o", "H2 O", "[]", "C0", "Ca(OH", "^2-",
    ] {
        assert!(parse_species(f).is_err(), "{f}");
    }
    assert!(parse_species(&"(".repeat(40)).is_err());
}

#[test]
fn spellings_people_use() {
    assert_eq!(counts("MgSO4 · 7 H2O"), counts("MgSO4·7H2O"));
    assert_eq!(counts("CuSO4 . 5H2O"), counts("CuSO4.5H2O"));
    assert_eq!(parse_species("SO4 2-").map(|s| s.charge).ok(), Some(-2));
    assert_eq!(parse_species("Na +").map(|s| s.charge).ok(), Some(1));
    assert_eq!(
        parse_species("2 H2O").map(|s| s.coefficient).ok(),
        Some(Some(2))
    );
    assert_eq!(counts("CaCO3↓"), counts("CaCO3"));
    assert_eq!(counts("CO2 ↑"), counts("CO2"));
    let tool = super::Chemistry::new();
    let ctx = beaker_core::CallContext::new(beaker_core::Limits::default());
    let call = |p: serde_json::Value| beaker_core::Tool::call(&tool, &p, &ctx);
    for eq in [
        "CH4 + O2 ⟶ CO2 + H2O.",
        "CH4 + O2 ↔ CO2 + H2O;",
        "CH4 + O2 ⇄ CO2 + H2O",
    ] {
        let r = call(serde_json::json!({"operation": "balance", "equation": eq}));
        assert_eq!(
            r.ok().map(|r| r["coefficients"].clone()),
            Some(serde_json::json!([1, 2, 1, 2])),
            "{eq}"
        );
    }
    let weak = call(serde_json::json!({"operation": "ph", "concentration": 0.1, "ka": 1.8e-5}));
    assert!(weak.is_ok_and(|r| r["pH"].as_f64().is_some_and(|p| (p - 2.875).abs() < 1e-3)));
    let base = call(serde_json::json!({"operation": "ph", "concentration": 0.1, "pkb": 4.75}));
    assert!(base.is_ok_and(|r| r["pH"].as_f64().is_some_and(|p| p > 11.0)));
}

#[test]
fn a_failing_shortcut_is_flagged() {
    let tool = super::Chemistry::new();
    let ctx = beaker_core::CallContext::new(beaker_core::Limits::default());
    let r = beaker_core::Tool::call(
        &tool,
        &serde_json::json!({"operation": "ph", "concentration": 1e-8, "type": "acid"}),
        &ctx,
    );
    assert!(r.is_ok_and(|r| r["approximation_valid"] == false
        && r["notes"][0].as_str().is_some_and(|n| n.contains("water"))));
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
