//! `pubchem`: every identifier of tests/data/pubchem/reference.jsonl (what chemicals 1.5.2's `search_chemical`
//! and property functions answer for 600 random compounds, written by tests/data/gen/pubchem_reference.py)
//! answered the same; molecular weights against `chemistry`'s molar mass of the same formula; the binary's
//! answers when the tables are missing; and PubChem PUG REST as the live provider, against a local server
//! speaking its format.

use crate::support::{beaker, ensure, json_server, jsonl, root, Outcome};
use beaker::{Catalog, Engine, ToolCall};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::collections::HashMap;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "pubchem::identifiers_resolve_as_chemicals_search_chemical",
            as_chemicals,
        ),
        Trial::test(
            "pubchem::properties_and_safety_equal_chemicals_functions",
            properties_as_chemicals,
        ),
        Trial::test(
            "pubchem::molecular_weights_agree_with_chemistry_molar_mass",
            weights_agree_with_chemistry,
        ),
        Trial::test(
            "pubchem::missing_tables_name_the_install_step",
            missing_tables,
        ),
        Trial::test(
            "pubchem::a_first_call_compiles_the_lookup_outside_its_deadline",
            first_call_builds_the_lookup,
        ),
        Trial::test(
            "pubchem::pug_rest_answers_what_the_tables_lack",
            pug_rest_provider,
        ),
    ]
}

/// Opens (on a machine's first run: builds) the lookup of the installed tables; a missing install is left for
/// the trials to report.
pub fn prepare() {
    let _ = beaker::pubchem::open(&beaker::pubchem::default_dir());
}

/// Relative tolerance on a property: the tool and chemicals parse the same decimal text into float64.
const RTOL: f64 = 1e-12;

fn engine() -> Result<Engine, String> {
    Catalog::empty()
        .with("pubchem")
        .and_then(|c| c.with("chemistry"))
        .map_err(|e| e.to_string())?
        .engine()
        .map_err(|e| e.to_string())
}

fn call(e: &Engine, params: Value) -> (bool, Value, String) {
    let env = e.call(ToolCall::new("pubchem", params));
    let error = env.error.clone().unwrap_or_default();
    (env.success, env.result.unwrap_or(Value::Null), error)
}

fn reference() -> Vec<Value> {
    jsonl("tests/data/pubchem/reference.jsonl")
}

fn as_chemicals() -> Outcome {
    let cases = reference();
    ensure(cases.len() >= 3000, || {
        format!("only {} reference identifiers", cases.len())
    })?;
    let e = engine()?;
    let mut compounds = std::collections::HashSet::new();
    for case in &cases {
        let id = &case["identifier"];
        let (ok, result, error) = call(&e, json!({"operation": "compound", "identifier": id}));
        if case["found"] == false {
            // chemicals finds nothing: the tool may only find it by a rule chemicals does not have.
            let loose = result["read_as"]
                .as_str()
                .is_some_and(|r| r.contains("case and punctuation"));
            ensure(!ok || loose, || {
                format!("{id}: chemicals finds nothing, the tool {result}")
            })?;
            continue;
        }
        ensure(ok, || format!("{id}: {error}"))?;
        if let Some(n) = case["formula_compounds"].as_u64().filter(|n| *n > 1) {
            ensure(result["ambiguous"] == true && result["count"] == n, || {
                format!("{id}: {n} compounds have this formula, the tool says {result}")
            })?;
            let listed = result["candidates"].as_array().cloned().unwrap_or_default();
            let pick = &case["includes_cas"];
            ensure(
                listed.len() == 20 || listed.iter().any(|c| &c["cas"] == pick),
                || format!("{id}: chemicals' pick {pick} is not among the candidates {result}"),
            )?;
            continue;
        }
        let want = &case["expect"];
        for key in [
            "cid",
            "cas",
            "formula",
            "smiles",
            "inchi",
            "inchikey",
            "name",
            "molecular_weight",
        ] {
            let got = result.get(key).unwrap_or(&Value::Null);
            ensure(got == &want[key], || {
                format!("{id}: {key} is {got}, chemicals says {}", want[key])
            })?;
        }
        compounds.insert(want["cas"].clone());
    }
    ensure(compounds.len() >= 500, || {
        format!("only {} distinct compounds checked", compounds.len())
    })
}

fn close(got: &Value, want: &Value) -> bool {
    match (got.as_f64(), want.as_f64()) {
        (Some(g), Some(w)) => (g - w).abs() <= RTOL * w.abs(),
        _ => got == want,
    }
}

fn properties_as_chemicals() -> Outcome {
    let e = engine()?;
    let mut checked = 0;
    for case in reference().iter().filter(|c| c.get("properties").is_some()) {
        let id = &case["identifier"];
        let (ok, result, error) = call(&e, json!({"operation": "properties", "identifier": id}));
        ensure(ok, || format!("{id}: {error}"))?;
        let props = result["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let want = case["properties"].as_object().cloned().unwrap_or_default();
        for (name, w) in &want {
            let g = props
                .get(name)
                .ok_or_else(|| format!("{id}: no {name}, chemicals has {w}"))?;
            ensure(
                close(&g["value"], &w["value"]) && g["method"] == w["method"],
                || format!("{id}: {name} is {g}, chemicals says {w}"),
            )?;
            if let Some(t) = w.get("temperature_K") {
                ensure(close(&g["temperature_K"], t), || {
                    format!("{id}: {name} at {g}, chemicals {w}")
                })?;
            }
            checked += 1;
        }
        for name in props.keys() {
            let table = !beaker::pubchem::IDENTITY_PROPERTIES.contains(&name.as_str());
            ensure(!table || want.contains_key(name), || {
                format!(
                    "{id}: the tool has {name} = {}, chemicals has none",
                    props[name]
                )
            })?;
        }
        let (ok, safety, error) = call(&e, json!({"operation": "safety", "identifier": id}));
        ensure(ok, || format!("{id} safety: {error}"))?;
        let mut carcinogen = safety["carcinogen"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        carcinogen.remove("source");
        let want_c = case["carcinogen"].as_object().cloned().unwrap_or_default();
        ensure(carcinogen.len() == want_c.len(), || {
            format!("{id}: carcinogen {carcinogen:?}, chemicals {want_c:?}")
        })?;
        for (k, v) in &want_c {
            // chemicals keys its lists by their full names and words NTP's listing as "Known" / "Reasonably
            // Anticipated"; the tool keys them IARC and NTP and words the listing in full.
            let key = if k.starts_with("International Agency") {
                "IARC"
            } else {
                "NTP"
            };
            let g = carcinogen
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or_default();
            let same = match v.as_str().unwrap_or_default() {
                "Known" => g == "Known to be a human carcinogen",
                "Reasonably Anticipated" => g == "Reasonably anticipated to be a human carcinogen",
                other => g == other,
            };
            ensure(same, || {
                format!("{id}: carcinogen {k} = {g}, chemicals {v}")
            })?;
        }
        match case.get("exposure") {
            Some(x) => {
                let got = &safety["exposure_limits"];
                ensure(got["skin"] == x["skin"], || {
                    format!("{id}: skin {got}, chemicals {x}")
                })?;
                for (k, v) in x["limits"].as_object().cloned().unwrap_or_default() {
                    ensure(
                        close(&got[&k]["value"], &v["value"]) && got[&k]["unit"] == v["unit"],
                        || format!("{id}: {k} {got}, chemicals {v}"),
                    )?;
                }
            }
            None => ensure(safety.get("exposure_limits").is_none(), || {
                format!("{id}: exposure limits {safety}, chemicals has none")
            })?,
        }
    }
    ensure(checked >= 800, || {
        format!("only {checked} property values checked")
    })
}

/// The standard atomic weights of a periodic table file: `symbol -> weight` (chemistry's: column 3 of
/// crates/beaker-chemistry/src/elements.tsv; chemicals': column 6 of the installed elements.tsv).
fn weights(
    path: &std::path::Path,
    symbol: usize,
    weight: usize,
) -> Result<HashMap<String, f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((f.get(symbol)?.to_string(), f.get(weight)?.parse().ok()?))
        })
        .collect())
}

/// Each compound's weight from pubchem equals `chemistry`'s molar mass of its formula within what the two
/// periodic tables' weights differ by for that formula (chemicals has Open Babel's older weights, chemistry
/// CIAAW 2021's), plus 1e-5 g/mol for the table's five decimals.
fn weights_agree_with_chemistry() -> Outcome {
    let e = engine()?;
    let ciaaw = weights(
        &root().join("crates/beaker-chemistry/src/elements.tsv"),
        1,
        3,
    )?;
    let chem = weights(&beaker::pubchem::default_dir().join("elements.tsv"), 1, 6)?;
    let mut checked = 0;
    let mut worst = 0.0f64;
    let mut seen = std::collections::HashSet::new();
    for case in reference() {
        let want = &case["expect"];
        let Some(formula) = want["formula"].as_str() else {
            continue;
        };
        if !seen.insert(formula.to_string()) || formula.contains(['+', '-', '.']) {
            continue;
        }
        let env = e.call(ToolCall::new(
            "chemistry",
            json!({"operation": "molar_mass", "formula": formula}),
        ));
        let Some(molar) = env
            .result
            .as_ref()
            .filter(|_| env.success)
            .and_then(|r| r["molar_mass"].as_f64())
        else {
            continue; // a formula chemistry does not read (isotopes such as D)
        };
        let counts = env
            .result
            .as_ref()
            .map(|r| r["composition"].clone())
            .unwrap_or_default();
        let mut bound = 1e-5;
        for (sym, n) in counts.as_object().cloned().unwrap_or_default() {
            let n = n["count"].as_f64().or(n.as_f64()).unwrap_or(0.0);
            let (a, b) = (ciaaw.get(&sym), chem.get(&sym));
            let (Some(a), Some(b)) = (a, b) else {
                return Err(format!("{formula}: no weight for {sym}").into());
            };
            bound += n * (a - b).abs();
        }
        let mw = want["molecular_weight"].as_f64().unwrap_or(f64::NAN);
        let diff = (mw - molar).abs();
        ensure(diff <= bound * (1.0 + 1e-9), || {
            format!("{formula}: pubchem {mw}, chemistry {molar}: {diff} > {bound}")
        })?;
        worst = worst.max(diff);
        checked += 1;
    }
    ensure(checked >= 400, || {
        format!("only {checked} formulas checked")
    })
}

/// Without the tables, a call says how to install them (over the binary).
fn missing_tables() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = beaker()
        .env("BEAKER_CHEMICALS_DIR", dir.path().join("absent"))
        .args([
            "call",
            "pubchem",
            r#"{"operation": "compound", "identifier": "water"}"#,
        ])
        .output()
        .map_err(|e| e.to_string())?;
    let line: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))?;
    ensure(
        line["success"] == false && line["error_kind"] == "tool_error",
        || format!("{line}"),
    )?;
    let msg = line["error"].as_str().unwrap_or_default();
    ensure(
        msg.contains("install-python-runtime.py") && msg.contains("BEAKER_CHEMICALS_DIR"),
        || msg.to_string(),
    )
}

/// On a machine where the lookup was never compiled, `beaker call` compiles it before the call, so a call with
/// a short deadline still succeeds (the tables linked into a fresh folder, over the binary).
fn first_call_builds_the_lookup() -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let tables = beaker::pubchem::default_dir();
    for entry in std::fs::read_dir(&tables).map_err(|e| format!("{}: {e}", tables.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with("lookup-") {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), dir.path().join(&name))
            .map_err(|e| e.to_string())?;
    }
    let out = beaker()
        .env("BEAKER_CHEMICALS_DIR", dir.path())
        .args([
            "call",
            "--timeout-ms",
            "1000",
            "pubchem",
            r#"{"operation": "compound", "identifier": "caffeine"}"#,
        ])
        .output()
        .map_err(|e| e.to_string())?;
    let line: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))?;
    ensure(
        line["success"] == true && line["result"]["cid"] == 2519,
        || format!("{line}"),
    )?;
    ensure(dir.path().join("lookup-v1/keys.fst").is_file(), || {
        "no lookup was written".into()
    })
}

/// A local server speaking PUG REST's JSON: one compound (CID 999999001) the tables do not have.
fn fake_pug_rest() -> Result<String, String> {
    let url = json_server(|first| {
        let path = first.split(' ').nth(1).unwrap_or_default().to_string();
        // The same compound by name and, as `CID 999999001` is read, by CID.
        let (status, body) = if path
            .starts_with("/rest/pug/compound/name/beakerol%20extra/property/")
            || path.starts_with("/rest/pug/compound/cid/999999001/property/")
        {
            (
                200,
                r#"{"PropertyTable":{"Properties":[{"CID":999999001,"MolecularFormula":"C3H8O","MolecularWeight":"60.10","SMILES":"CCCO","InChI":"InChI=1S/C3H8O/c1-2-3-4/h4H,2-3H2,1H3","InChIKey":"BDERNNFJNOPAEC-UHFFFAOYSA-N","IUPACName":"propan-1-ol","Title":"Beakerol Extra"}]}}"#,
            )
        } else if path == "/rest/pug/compound/cid/999999001/synonyms/JSON" {
            (
                200,
                r#"{"InformationList":{"Information":[{"CID":999999001,"Synonym":["Beakerol Extra","beakerol-x"]}]}}"#,
            )
        } else {
            (
                404,
                r#"{"Fault":{"Code":"PUGREST.NotFound","Message":"No CID found"}}"#,
            )
        };
        (status, body.to_string())
    })?;
    Ok(format!("{url}/rest/pug"))
}

fn pug_rest_provider() -> Outcome {
    let url = fake_pug_rest()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("beaker.toml");
    std::fs::write(
        &config,
        format!("[pubchem.provider]\nurl = \"{url}\"\ntimeout_ms = 5000\n"),
    )
    .map_err(|e| e.to_string())?;
    let run = |params: &str| -> Result<Value, String> {
        let out = beaker()
            .args(["call", "--config"])
            .arg(&config)
            .args(["pubchem", params])
            .output()
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))
    };
    let live = run(
        r#"{"operation": "properties", "identifier": "beakerol extra", "properties": ["MolecularWeight", "SMILES", "MeltingPoint"]}"#,
    )?;
    ensure(live["success"] == true, || format!("{live}"))?;
    let r = &live["result"];
    ensure(
        r["cid"] == 999999001
            && r["properties"]["MolecularWeight"]["value"] == json!(60.1)
            && r["properties"]["SMILES"]["value"] == "CCCO"
            && r["missing"] == json!(["MeltingPoint"])
            && r["source"] == "PubChem PUG REST (live)",
        || format!("{r}"),
    )?;
    let by_cid = run(r#"{"operation": "compound", "identifier": "CID 999999001"}"#)?;
    ensure(by_cid["result"]["name"] == "Beakerol Extra", || {
        format!("a CID the tables lack, asked live by CID: {by_cid}")
    })?;
    let syn = run(r#"{"operation": "synonyms", "identifier": "beakerol extra"}"#)?;
    ensure(
        syn["result"]["synonyms"] == json!(["Beakerol Extra", "beakerol-x"]),
        || format!("{syn}"),
    )?;
    // What the tables have is answered offline, without asking.
    let offline = run(r#"{"operation": "compound", "identifier": "ethanol"}"#)?;
    ensure(
        offline["result"]["cid"] == 702 && offline["result"]["read_as"] == "name",
        || format!("{offline}"),
    )?;
    // What neither has: the offline miss, with suggestions.
    let neither = run(r#"{"operation": "compound", "identifier": "no such compound here"}"#)?;
    ensure(
        neither["success"] == false && neither["error_kind"] == "invalid_params",
        || format!("{neither}"),
    )
}
