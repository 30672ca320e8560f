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
