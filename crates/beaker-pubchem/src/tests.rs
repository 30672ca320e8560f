//! Unit tests over a small data folder written here in the installer's layout (the installed tables are checked
//! against chemicals itself in tests/all/pubchem.rs).

use crate::lookup::Database;
use crate::search::{resolve, Found, Identifier, Namespace};
use crate::tables::{self, ID_FILES, PROPERTIES};
use crate::{celsius, Pubchem};
use beaker_core::{CallContext, Tool};
use serde_json::{json, Value};
use std::path::Path;

fn row(
    cid: i64,
    cas: &str,
    formula: &str,
    mw: &str,
    smiles: &str,
    key: &str,
    names: &[&str],
) -> String {
    format!(
        "{cid}\t{cas}\t{formula}\t{mw}\t{smiles}\t{formula}/c{cid}\t{key}\t{}\n",
        names.join("\t")
    )
}

/// A data folder: ethanol and dimethyl ether (one formula), a later row that takes the name `spirit` from an
/// earlier one, sodium, H2 and hydrogen's atom.
fn fixture(dir: &Path) {
    let w = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap_or(dir)).unwrap_or_default();
        std::fs::write(p, text).unwrap_or_default();
    };
    let large = [
        row(
            702,
            "64-17-5",
            "C2H6O",
            "46.06844",
            "CCO",
            "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
            &["ethanol", "ethanol", "Ethyl alcohol", "spirit"],
        ),
        row(
            8254,
            "115-10-6",
            "C2H6O",
            "46.06844",
            "COC",
            "LCGLNKUTAGEVQW-UHFFFAOYSA-N",
            &["methoxymethane", "dimethyl ether", "DME"],
        ),
        row(
            783,
            "1333-74-0",
            "H2",
            "2.01588",
            "[HH]",
            "UFHFLCQGNIYNRP-UHFFFAOYSA-N",
            &["molecular hydrogen", "hydrogen"],
        ),
        row(
            5360545,
            "7440-23-5",
            "Na",
            "22.98977",
            "[Na]",
            "KEAYESYHFKHZAL-UHFFFAOYSA-N",
            &["sodium", "sodium"],
        ),
        row(
            2244,
            "50-78-2",
            "C9H8O4",
            "180.15742",
            "CC(=O)OC1=CC=CC=C1C(=O)O",
            "BSYNRYMUTXBXSQ-UHFFFAOYSA-N",
            &["2-acetyloxybenzoic acid", "aspirin", "Acetylsalicylic acid"],
        ),
    ]
    .concat();
    w(ID_FILES[0], &large);
    // A later database: methanol takes the name `spirit`.
    w(
        ID_FILES[1],
        &row(
            887,
            "67-56-1",
            "CH4O",
            "32.04186",
            "CO",
            "OKKJLVBELUTLKV-UHFFFAOYSA-N",
            &["methanol", "methanol", "spirit"],
        ),
    );
    for f in &ID_FILES[2..] {
        w(f, "");
    }
    w(
        "elements.tsv",
        "number\tsymbol\tname\tCAS\tCAS_standard\tPubChem\tMW\tInChI_key\tsmiles\tInChI\thomonuclear\n\
         1\tH\tHydrogen\t12385-13-6\t1333-74-0\t5362549\t1.00794\tYZCKVEUIGOORGS-UHFFFAOYSA-N\t[H]\tH\t1\n\
         11\tNa\tSodium\t7440-23-5\t7440-23-5\t5360545\t22.98977\tKEAYESYHFKHZAL-UHFFFAOYSA-N\t[Na]\tNa\t0\n",
    );
    for p in PROPERTIES {
        for s in p.sources {
            let path = dir.join(s.file);
            if path.exists() {
                continue;
            }
            w(
                s.file,
                "CAS\tTm\tTb\trho\tRI\tRIT\tT_flash\tT_autoignition\tLFL\tUFL\n",
            );
        }
    }
    // Ethanol's melting point in the first source; its boiling point twice in one table (the first row counts).
    w(
        "Phase Change/OpenNotebook Melting Points.tsv",
        "CAS\tTm\n64-17-5\t159.05\n",
    );
    w(
        "Misc/heos_constants.tsv",
        "CAS\tTb\n64-17-5\t351.39\n64-17-5\t999\n7732-18-5\tNaN\n",
    );
    w(
        "Misc/common_chemistry_data.tsv",
        "CAS\tTm\tTb\n50782\t408.15\t413.15\n",
    );
    w(
        tables::IARC_FILE,
        "CAS\tdescription\tgroup\n64-17-5\tEthanol\t1\n",
    );
    w(tables::NTP_FILE, "CAS\tChemical\tListing\n");
    w(
        tables::ONTARIO_FILE,
        r#"{"64-17-5": {"TWA (ppm)": null, "TWA (mg/m^3)": null, "STEL (ppm)": 1000.0, "STEL (mg/m^3)": null, "Ceiling (ppm)": null, "Ceiling (mg/m^3)": null, "Skin": false}}"#,
    );
    w("INSTALLED", "{}\n");
}

fn db() -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    fixture(dir.path());
    let db = Database::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    (dir, db)
}

fn one(db: &Database, id: &str) -> (String, &'static str) {
    match resolve(db, &Identifier::Text(id.into()), None) {
        Ok(Found::One(i, how)) => (db.record(i).map(|r| r.name).unwrap_or_default(), how),
        other => panic!("{id}: {other:?}"),
    }
}

#[test]
fn identifiers_are_read_in_chemicals_order() {
    let (_d, db) = db();
    assert_eq!(one(&db, "ethanol"), ("ethanol".into(), "name"));
    assert_eq!(one(&db, "Ethyl alcohol"), ("ethanol".into(), "name"));
    assert_eq!(one(&db, "ETHYL ALCOHOL"), ("ethanol".into(), "name"));
    assert_eq!(one(&db, "64-17-5"), ("ethanol".into(), "CAS number"));
    assert_eq!(one(&db, "CCO"), ("ethanol".into(), "SMILES"));
    assert_eq!(
        one(&db, "InChIKey=LFQSCWFLJHTTHZ-UHFFFAOYSA-N"),
        ("ethanol".into(), "InChIKey")
    );
    assert_eq!(
        one(&db, "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"),
        ("ethanol".into(), "InChIKey")
    );
    assert_eq!(one(&db, "InChI=1S/C2H6O/c702"), ("ethanol".into(), "InChI"));
    assert_eq!(one(&db, "pubchem=702"), ("ethanol".into(), "CID"));
    assert_eq!(one(&db, "702"), ("ethanol".into(), "CID"));
    assert_eq!(one(&db, "cid:702"), ("ethanol".into(), "CID"));
    // A later row takes a name it shares with an earlier one, as in chemicals.
    assert_eq!(one(&db, "spirit"), ("methanol".into(), "name"));
    // `CO` is read as a formula before it is read as methanol's SMILES (chemicals' exceptions).
    assert!(resolve(&db, &Identifier::Text("CO".into()), None).is_err());
    // Case and punctuation, beyond chemicals.
    assert_eq!(
        one(&db, "Acetyl-Salicylic  ACID!"),
        ("aspirin".into(), "name (case and punctuation ignored)")
    );
    assert_eq!(
        one(&db, "aspirin (C9H8O4)"),
        ("aspirin".into(), "name (formula)")
    );
}

#[test]
fn elements_follow_chemicals_rule() {
    let (_d, db) = db();
    // The symbol names the atom; the name names the element as found (H2); sodium is its own record.
    assert_eq!(one(&db, "Na"), ("sodium".into(), "element"));
    assert_eq!(one(&db, "hydrogen"), ("hydrogen".into(), "element"));
    // Hydrogen's atom is not in chemicals' compound tables (it leaves single H, N, O and halogen atoms out).
    assert!(resolve(&db, &Identifier::Text("H".into()), None).is_err());
    let na = match resolve(&db, &Identifier::Text("Na".into()), None) {
        Ok(Found::One(i, _)) => db.record(i).unwrap_or_else(|e| panic!("{e}")),
        other => panic!("{other:?}"),
    };
    // The element row chemicals writes over the table's keeps the table's names.
    assert_eq!(
        (na.formula.as_str(), na.mw, na.smiles.as_str()),
        ("Na", 22.98977, "[Na]")
    );
    assert_eq!(na.synonyms, vec!["sodium"]);
}

#[test]
fn a_formula_of_several_compounds_is_ambiguous() {
    let (_d, db) = db();
    match resolve(&db, &Identifier::Text("CH3OCH3".into()), None) {
        Ok(Found::Ambiguous(f, all)) => {
            assert_eq!(f, "C2H6O");
            assert_eq!(all.len(), 2);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(one(&db, "C9H8O4"), ("aspirin".into(), "formula"));
    let ns = resolve(
        &db,
        &Identifier::Text("C9H8O4".into()),
        Some(Namespace::Formula),
    );
    assert!(matches!(ns, Ok(Found::One(_, "formula"))));
}

#[test]
fn misses_suggest_near_names() {
    let (_d, db) = db();
    let miss = resolve(&db, &Identifier::Text("asprin".into()), None).err();
    let folded = miss.and_then(|m| m.folded).unwrap_or_default();
    let near = db.near_names(&folded, 1, 5);
    assert_eq!(near.first().map(|n| n.0.as_str()), Some("aspirin"));
    assert!(resolve(&db, &Identifier::Text("1234-56-6".into()), None)
        .err()
        .is_some_and(|m| m.message.contains("valid CAS number")));
    assert!(resolve(&db, &Identifier::Cid(-1), None).is_err());
}

#[test]
fn properties_come_from_the_first_source_that_has_them() {
    let (_d, db) = db();
    let r = match resolve(&db, &Identifier::Text("ethanol".into()), None) {
        Ok(Found::One(i, _)) => db.record(i).unwrap_or_else(|e| panic!("{e}")),
        other => panic!("{other:?}"),
    };
    assert_eq!(r.props["MeltingPoint"]["value"], json!(159.05));
    assert_eq!(r.props["MeltingPoint"]["method"], "OPEN_NTBKM");
    // Listed twice in one table: the first row, as pandas' first match.
    assert_eq!(r.props["BoilingPoint"]["value"], json!(351.39));
    assert_eq!(r.carcinogen["IARC"], "Carcinogenic to humans (1)");
    let e = r.exposure.unwrap_or_default();
    assert_eq!(e["STEL"], json!({"value": 1000.0, "unit": "ppm"}));
    assert!(e.get("TWA").is_none());
    // An integer-keyed table (CAS digits) is read too.
    let aspirin = match resolve(&db, &Identifier::Text("aspirin".into()), None) {
        Ok(Found::One(i, _)) => db.record(i).unwrap_or_else(|e| panic!("{e}")),
        other => panic!("{other:?}"),
    };
    assert_eq!(aspirin.props["MeltingPoint"]["method"], "COMMON_CHEMISTRY");
}

#[test]
fn the_tool_answers_in_its_shapes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    fixture(dir.path());
    let tool = Pubchem::new(dir.path().to_path_buf(), None);
    let ctx = CallContext::new(beaker_core::Limits::default());
    let call = |p: Value| tool.call(&p, &ctx);
    let got = call(json!({"operation": "properties", "identifier": "aspirin", "properties": ["MolecularWeight", "MeltingPoint", "SMILES", "Density"]}))
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(got["properties"]["MeltingPoint"]["celsius"], json!(135.0));
    assert_eq!(
        got["properties"]["MolecularWeight"]["value"],
        json!(180.15742)
    );
    assert_eq!(got["missing"], json!(["Density"]));
    assert_eq!(got["name"], "aspirin");
    let amb = call(json!({"operation": "compound", "identifier": "C2H6O"}))
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(amb["candidates"][0]["name"], "ethanol");
    let refused = call(json!({"operation": "safety", "identifier": "C2H6O"}))
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(
        refused.contains("ethanol (CID 702), dimethyl ether (CID 8254)"),
        "{refused}"
    );
    let miss = call(json!({"operation": "compound", "identifier": "etanol"}))
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(miss.contains("did you mean: ethanol (CID 702)"), "{miss}");
}

#[test]
fn missing_tables_say_how_to_install_them() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let err = Database::open(&dir.path().join("nothing"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("install-python-runtime.py"), "{err}");
}

#[test]
fn kelvin_to_celsius_in_decimal() {
    assert_eq!(celsius(408.15), 135.0);
    assert_eq!(celsius(159.05), -114.1);
    assert_eq!(celsius(273.15), 0.0);
    assert_eq!(celsius(0.0), -273.15);
    assert_eq!(celsius(373.124295848), 99.974295848);
}

#[test]
fn cas_numbers_are_checked_and_written_as_chemicals_does() {
    assert!(tables::check_cas("64-17-5"));
    assert!(!tables::check_cas("64-17-6"));
    assert!(!tables::check_cas("6417-5"));
    assert!(!tables::check_cas("a4-17-5"));
    assert_eq!(tables::int_to_cas(7732185), "7732-18-5");
    assert_eq!(tables::cas_to_int("50-00-0"), Some(50000));
}

#[test]
fn prefixes_compare_as_python_lower_cases_them() {
    use crate::search::strip_prefix_ci;
    assert_eq!(strip_prefix_ci("InChIKey=ABC", "inchikey="), Some("ABC"));
    // A Kelvin sign lower-cases to `k`, as in Python.
    assert_eq!(
        strip_prefix_ci("InChI\u{212A}ey=ABC", "inchikey="),
        Some("ABC")
    );
    assert_eq!(strip_prefix_ci("InChI", "inchikey="), None);
    assert_eq!(strip_prefix_ci("ŞMILES=C", "smiles="), None);
}

#[test]
fn written_charges_are_never_matched_loosely() {
    use crate::lookup::charged;
    for t in ["Na+", "Na-", "Cl−", "chloride(1-)", "Fe⁺³", "SO4 2-"] {
        assert!(charged(t), "{t}");
    }
    for t in [
        "acetyl-salicylic acid",
        "2-propanol",
        "N,N-dimethylformamide",
    ] {
        assert!(!charged(t), "{t}");
    }
    let (_d, db) = db();
    // Short or charged texts are not folded onto a name.
    assert!(resolve(&db, &Identifier::Text("ETH".into()), None).is_err());
    assert!(resolve(&db, &Identifier::Text("Aspirin+".into()), None).is_err());
    // Digits that are no CID are still tried as a name; the miss names the CID.
    let miss = resolve(&db, &Identifier::Text("99".into()), None)
        .err()
        .map(|m| m.message);
    assert_eq!(miss.as_deref(), Some("CID 99 is not in the offline tables"));
    // A shared formula after a name that picks one of its compounds.
    assert_eq!(
        one(&db, "dimethyl ether (C2H6O)"),
        ("dimethyl ether".into(), "name (formula)")
    );
}
