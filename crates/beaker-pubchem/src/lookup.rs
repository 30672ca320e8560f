//! The compact lookup built from the tables once per data folder (`DIR/lookup-v1/`), then opened by every process
//! with three file reads:
//!
//! - `keys.fst`: one finite-state map from every identifier chemicals indexes (CAS number, CID, SMILES, InChI,
//!   InChIKey, formula, name) to the record it names, each key prefixed with its kind's byte; and, under `F`,
//!   `formula NUL record` for every compound of a formula (the candidates of an ambiguous one).
//! - `names.fst`: every name folded (lower case, letters and digits only) to its record, for case- and
//!   punctuation-insensitive matching and the Levenshtein automaton's suggestions.
//! - `records.jsonl` and `offsets.bin`: one JSON record per compound with its properties resolved, read with one
//!   positioned read when a call needs it (so opening reads 44 MB, not the 70 MB of records).
//!
//! Keys point where chemicals' own indexes point with its whole database loaded: rows are applied in its load
//! order and a later row takes every key it shares with an earlier one.

use crate::tables::{self, Element, IdRow, Table, PROPERTIES};
use crate::PubchemError;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use tantivy_fst::{Map as FstMap, MapBuilder};

/// The lookup's folder name; a new layout gets a new name, so an old one is never misread.
pub const LOOKUP: &str = "lookup-v1";

/// Key kinds (the first byte of every key of `keys.fst`).
pub mod kind {
    /// CAS number, as its integer's decimal digits.
    pub const CAS: u8 = b'c';
    /// PubChem CID.
    pub const CID: u8 = b'p';
    /// SMILES.
    pub const SMILES: u8 = b's';
    /// InChI without its prefix.
    pub const INCHI: u8 = b'i';
    /// InChIKey.
    pub const INCHIKEY: u8 = b'k';
    /// Formula: the record chemicals' `search_formula` returns.
    pub const FORMULA: u8 = b'f';
    /// Formula NUL record (4 bytes, big-endian): every compound of the formula.
    pub const FORMULA_ALL: u8 = b'F';
    /// A name exactly as chemicals indexes it (as written and lower-cased).
    pub const NAME: u8 = b'n';
}

/// One compound as the tool answers with it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// PubChem CID (absent where PubChem has none).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cid: Option<i64>,
    /// CAS registry number.
    pub cas: String,
    /// Formula (Hill order, charge suffix).
    pub formula: String,
    /// Molecular weight, g/mol.
    pub mw: f64,
    /// SMILES.
    pub smiles: String,
    /// InChI, with its `InChI=1S/` prefix.
    pub inchi: String,
    /// InChIKey.
    pub inchikey: String,
    /// IUPAC name.
    pub iupac: String,
    /// Common name.
    pub name: String,
    /// Distinct names (case-insensitively), the common name first.
    pub synonyms: Vec<String>,
    /// Properties from the tables: name -> `{value, unit, source, method, ...}`.
    pub props: Map<String, Value>,
    /// IARC's group and the NTP's listing, where listed.
    #[serde(skip_serializing_if = "Map::is_empty", default)]
    pub carcinogen: Map<String, Value>,
    /// Ontario's exposure limits, where listed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exposure: Option<Value>,
}

/// Builds the lookup of the tables in `src` into `src/lookup-v1` (written beside, then renamed into place, so a
/// reader never sees half of one and two builders do not collide).
pub fn build(src: &Path) -> Result<PathBuf, PubchemError> {
    let out = src.join(LOOKUP);
    let staging = src.join(format!("{LOOKUP}.tmp-{}", std::process::id()));
    remove_stale_builds(src);
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| PubchemError::io(&staging, e))?;
    let result = write_lookup(src, &staging);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(e);
    }
    match std::fs::rename(&staging, &out) {
        Ok(()) => Ok(out),
        Err(_) if out.join("offsets.bin").is_file() => {
            // Another process built it first: theirs is the same.
            let _ = std::fs::remove_dir_all(&staging);
            Ok(out)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            Err(PubchemError::io(&out, e))
        }
    }
}

/// Removes what builds left behind when their process died (`lookup-v1.tmp-PID` of a PID no longer running).
fn remove_stale_builds(src: &Path) {
    let Ok(entries) = std::fs::read_dir(src) else {
        return;
    };
    let prefix = format!("{LOOKUP}.tmp-");
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn write_lookup(src: &Path, out: &Path) -> Result<(), PubchemError> {
    let started = std::time::Instant::now();
    let phase = |what: &str| tracing::debug!("pubchem lookup: {what} at {:?}", started.elapsed());
    let mut rows: Vec<IdRow> = Vec::new();
    for file in tables::ID_FILES {
        rows.extend(tables::read_ids(&src.join(file))?);
    }
    let elements = tables::read_elements(&src.join("elements.tsv"))?;
    phase("tables read");
    let mut keys: HashMap<Vec<u8>, u32> = HashMap::with_capacity(rows.len() * 24);
    let key = |k: u8, v: &str| -> Vec<u8> {
        let mut b = Vec::with_capacity(v.len() + 1);
        b.push(k);
        b.extend_from_slice(v.as_bytes());
        b
    };
    let mut by_cas: HashMap<u64, u32> = HashMap::with_capacity(rows.len());
    for (i, r) in rows.iter().enumerate() {
        let i = i as u32;
        by_cas.insert(r.cas, i);
        keys.insert(key(kind::CAS, &r.cas.to_string()), i);
        keys.insert(key(kind::CID, &r.cid.to_string()), i);
        keys.insert(key(kind::SMILES, &r.smiles), i);
        keys.insert(key(kind::INCHI, &r.inchi), i);
        keys.insert(key(kind::INCHIKEY, &r.inchikey), i);
        // An empty name (a blank cell) would make `-` a name of whatever row had one last.
        for name in r.synonyms.iter().filter(|n| !n.is_empty()) {
            keys.insert(key(kind::NAME, name), i);
            keys.insert(key(kind::NAME, &name.to_lowercase()), i);
        }
        keys.insert(key(kind::FORMULA, &r.formula), i);
    }
    // chemicals' `load_elements`: each element but the single atoms of H, N, O and the halogens, keeping the
    // names of a row its CAS number already had.
    for e in elements.iter().filter(|e| !e.homonuclear) {
        let Some(cas) = tables::cas_to_int(&e.cas) else {
            continue;
        };
        let lower = e.name_lower.clone();
        let synonyms = match by_cas.get(&cas) {
            Some(&old) => rows[old as usize].synonyms.clone(),
            None => vec![lower.clone()],
        };
        let i = rows.len() as u32;
        rows.push(IdRow {
            cid: e.cid.unwrap_or(-1),
            cas,
            formula: e.symbol.clone(),
            mw: e.mw,
            smiles: e.smiles.clone(),
            inchi: e.inchi.clone(),
            inchikey: e.inchikey.clone(),
            iupac: lower.clone(),
            name: lower,
            synonyms: synonyms.clone(),
        });
        by_cas.insert(cas, i);
        keys.insert(key(kind::INCHIKEY, &e.inchikey), i);
        keys.insert(key(kind::CAS, &cas.to_string()), i);
        if let Some(cid) = e.cid {
            keys.insert(key(kind::CID, &cid.to_string()), i);
        }
        keys.insert(key(kind::SMILES, &e.smiles), i);
        keys.insert(key(kind::INCHI, &e.inchi), i);
        for name in synonyms.iter().filter(|n| !n.is_empty()) {
            keys.insert(key(kind::NAME, name), i);
        }
        keys.insert(key(kind::FORMULA, &e.symbol), i);
    }
    // The compounds: the row each CAS number ends on, in load order. Every formula's compounds are listed.
    let mut canonical: Vec<u32> = by_cas.values().copied().collect();
    canonical.sort_unstable();
    for &i in &canonical {
        let mut k = key(kind::FORMULA_ALL, &rows[i as usize].formula);
        k.push(0);
        k.extend_from_slice(&i.to_be_bytes());
        keys.insert(k, i);
    }
    // Folded names: synonyms first, then common names, so a compound's own common name wins its folded form.
    // A name with a charge written is left out: folded, `Na+` would answer for `Na-`.
    let mut folded: BTreeMap<Vec<u8>, u32> = BTreeMap::new();
    let mut fold_in = |name: &str, i: u32| {
        let f = fold(name);
        if f.chars().count() >= 4 && !charged(name) {
            folded.insert(f.into_bytes(), i);
        }
    };
    for &i in &canonical {
        for name in &rows[i as usize].synonyms {
            fold_in(name, i);
        }
    }
    for &i in &canonical {
        fold_in(&rows[i as usize].name, i);
    }
    phase("keys");
    // Renumber the rows a key still reaches, in load order.
    let mut used: Vec<u32> = keys.values().chain(folded.values()).copied().collect();
    used.sort_unstable();
    used.dedup();
    let renumber: HashMap<u32, u32> = used
        .iter()
        .enumerate()
        .map(|(n, &i)| (i, n as u32))
        .collect();
    let props = Props::read(src)?;
    let mut records = BufWriter::new(create(&out.join("records.jsonl"))?);
    let mut offsets: Vec<u8> = Vec::with_capacity((used.len() + 1) * 8);
    let mut at = 0u64;
    for &i in &used {
        let line = serde_json::to_vec(&props.record(&rows[i as usize]))
            .map_err(|e| PubchemError::Data(e.to_string()))?;
        offsets.extend_from_slice(&at.to_le_bytes());
        records
            .write_all(&line)
            .and_then(|_| records.write_all(b"\n"))
            .map_err(|e| PubchemError::io(out, e))?;
        at += line.len() as u64 + 1;
    }
    offsets.extend_from_slice(&at.to_le_bytes());
    records.flush().map_err(|e| PubchemError::io(out, e))?;
    std::fs::write(out.join("offsets.bin"), &offsets).map_err(|e| PubchemError::io(out, e))?;
    phase("records");
    let mut sorted: Vec<(Vec<u8>, u32)> = keys.into_iter().collect();
    sorted.sort_unstable();
    phase("sorted");
    write_fst(
        &out.join("keys.fst"),
        sorted.iter().map(|(k, v)| (k.as_slice(), renumber[v])),
    )?;
    phase("keys.fst");
    write_fst(
        &out.join("names.fst"),
        folded.iter().map(|(k, v)| (k.as_slice(), renumber[v])),
    )?;
    phase("names.fst");
    Ok(())
}

fn create(path: &Path) -> Result<File, PubchemError> {
    File::create(path).map_err(|e| PubchemError::io(path, e))
}

fn write_fst<'a>(
    path: &Path,
    entries: impl Iterator<Item = (&'a [u8], u32)>,
) -> Result<(), PubchemError> {
    let fst_error = |e: tantivy_fst::Error| PubchemError::Data(format!("{}: {e}", path.display()));
    let mut builder = MapBuilder::new(BufWriter::new(create(path)?)).map_err(fst_error)?;
    for (k, v) in entries {
        builder.insert(k, u64::from(v)).map_err(fst_error)?;
    }
    let mut w = builder.into_inner().map_err(fst_error)?;
    w.flush().map_err(|e| PubchemError::io(path, e))
}

/// Whether a name or identifier writes a charge: a `+` (or `⁺`, `−`, `⁻`) anywhere, a `-` at its end or before a
/// closing parenthesis (`chloride(1-)`).
pub fn charged(text: &str) -> bool {
    let t = text.trim_end();
    t.contains(['+', '⁺', '−', '⁻']) || t.ends_with('-') || t.contains("-)")
}

/// A name folded for loose matching: lower case, letters and digits only (`Acetylsalicylic-Acid` and
/// `acetylsalicylic acid` fold alike).
pub fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The property and safety tables, each read once for a build (one table serves several properties).
struct Props {
    /// By file, relative to the data folder.
    tables: HashMap<&'static str, Table>,
    ontario: Map<String, Value>,
}

impl Props {
    fn read(src: &Path) -> Result<Props, PubchemError> {
        let needs = PROPERTIES
            .iter()
            .flat_map(|p| p.sources.iter().map(move |s| (s.file, p.column)))
            .chain([(tables::IARC_FILE, "group"), (tables::NTP_FILE, "Listing")]);
        let mut tables: HashMap<&'static str, Table> = HashMap::new();
        for (file, column) in needs {
            if !tables.contains_key(file) {
                tables.insert(file, Table::read(&src.join(file))?);
            }
            // A value column missing is a layout the installer did not write (an extra column such as RIT may
            // be absent from a source).
            if !tables[file].has(column) {
                return Err(PubchemError::Data(format!("{file}: no column `{column}`")));
            }
        }
        let ontario_text = tables::read(&src.join(tables::ONTARIO_FILE))?;
        let raw: Map<String, Value> = serde_json::from_str(&ontario_text)
            .map_err(|e| PubchemError::Data(format!("{}: {e}", tables::ONTARIO_FILE)))?;
        // 54 of its keys carry a stray leading space (` 590-18-1`); chemicals looks them up as written and
        // misses them.
        let mut ontario = Map::new();
        for (k, v) in raw {
            ontario.entry(k.trim().to_string()).or_insert(v);
        }
        Ok(Props { tables, ontario })
    }

    fn record(&self, r: &IdRow) -> Record {
        let mut props = Map::new();
        for p in PROPERTIES {
            for s in p.sources {
                let t = &self.tables[s.file];
                let Some(value) = t.value(r.cas, p.column) else {
                    continue;
                };
                let mut v = Map::new();
                v.insert("value".into(), Value::from(value));
                if !p.unit.is_empty() {
                    v.insert("unit".into(), p.unit.into());
                }
                if let Some((column, label)) = p.extra {
                    if let Some(x) = t.value(r.cas, column) {
                        v.insert(label.into(), Value::from(x));
                    }
                }
                v.insert("source".into(), s.citation.into());
                v.insert("method".into(), s.method.into());
                props.insert(p.name.into(), Value::Object(v));
                break;
            }
        }
        let mut carcinogen = Map::new();
        if let Some(g) = self.tables[tables::IARC_FILE]
            .value(r.cas, "group")
            .and_then(tables::iarc_group)
        {
            carcinogen.insert("IARC".into(), g.into());
        }
        if let Some(g) = self.tables[tables::NTP_FILE]
            .value(r.cas, "Listing")
            .and_then(tables::ntp_listing)
        {
            carcinogen.insert("NTP".into(), g.into());
        }
        let cas = tables::int_to_cas(r.cas);
        let exposure = self.ontario.get(&cas).and_then(exposure_limits);
        let mut seen = std::collections::HashSet::new();
        let synonyms = std::iter::once(&r.name)
            .chain(&r.synonyms)
            .filter(|s| !s.is_empty() && seen.insert(s.to_lowercase()))
            .cloned()
            .collect();
        Record {
            cid: (r.cid > 0).then_some(r.cid),
            cas,
            formula: r.formula.clone(),
            mw: r.mw,
            smiles: r.smiles.clone(),
            inchi: format!("InChI=1S/{}", r.inchi),
            inchikey: r.inchikey.clone(),
            iupac: r.iupac.clone(),
            name: r.name.clone(),
            synonyms,
            props,
            carcinogen,
            exposure,
        }
    }
}

/// Ontario's limits for one compound, as chemicals' `TWA`, `STEL`, `Ceiling` and `Skin` give them (ppm where the
/// table has ppm, else mg/m^3); `None` for an entry with no limit and no skin notation.
fn exposure_limits(entry: &Value) -> Option<Value> {
    let mut out = Map::new();
    for (label, key) in [("TWA", "TWA"), ("STEL", "STEL"), ("ceiling", "Ceiling")] {
        let ppm = entry[format!("{key} (ppm)")].as_f64().filter(|v| *v != 0.0);
        let mgm3 = entry[format!("{key} (mg/m^3)")]
            .as_f64()
            .filter(|v| *v != 0.0);
        if let Some(v) = ppm {
            out.insert(label.into(), serde_json::json!({"value": v, "unit": "ppm"}));
        } else if let Some(v) = mgm3 {
            out.insert(
                label.into(),
                serde_json::json!({"value": v, "unit": "mg/m^3"}),
            );
        }
    }
    let skin = entry["Skin"].as_bool().unwrap_or(false);
    if out.is_empty() && !skin {
        return None;
    }
    out.insert("skin".into(), Value::Bool(skin));
    out.insert(
        "source".into(),
        "Ontario Regulation 833, occupational exposure limits (Ontario Ministry of Labour)".into(),
    );
    Some(Value::Object(out))
}

/// An opened lookup.
pub struct Database {
    keys: FstMap<Vec<u8>>,
    names: FstMap<Vec<u8>>,
    offsets: Vec<u64>,
    records: File,
    records_path: PathBuf,
    /// chemicals' periodic table (for symbols, numbers and element names).
    pub elements: Vec<Element>,
}

impl Database {
    /// Opens the lookup of the data folder `src`, building it first if it is not there.
    pub fn open(src: &Path) -> Result<Database, PubchemError> {
        if !src.join("INSTALLED").is_file() {
            return Err(PubchemError::NotInstalled(src.to_path_buf()));
        }
        let dir = src.join(LOOKUP);
        if !dir.join("offsets.bin").is_file() {
            build(src)?;
        }
        let read = |name: &str| {
            let p = dir.join(name);
            std::fs::read(&p).map_err(|e| PubchemError::io(&p, e))
        };
        let fst = |name: &str| -> Result<FstMap<Vec<u8>>, PubchemError> {
            FstMap::from_bytes(read(name)?).map_err(|e| PubchemError::Data(format!("{name}: {e}")))
        };
        let offsets = read("offsets.bin")?
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let records_path = dir.join("records.jsonl");
        Ok(Database {
            keys: fst("keys.fst")?,
            names: fst("names.fst")?,
            offsets,
            records: File::open(&records_path).map_err(|e| PubchemError::io(&records_path, e))?,
            records_path,
            elements: tables::read_elements(&src.join("elements.tsv"))?,
        })
    }

    /// The record a key of `kind` names.
    pub fn get(&self, kind: u8, key: &str) -> Option<u32> {
        let mut k = Vec::with_capacity(key.len() + 1);
        k.push(kind);
        k.extend_from_slice(key.as_bytes());
        self.keys.get(&k).map(|v| v as u32)
    }

    /// The record a folded name names.
    pub fn get_folded(&self, folded: &str) -> Option<u32> {
        self.names.get(folded).map(|v| v as u32)
    }

    /// Every compound of a formula, in load order.
    pub fn formula_candidates(&self, formula: &str) -> Vec<u32> {
        use tantivy_fst::{IntoStreamer, Streamer};
        let mut lo = vec![kind::FORMULA_ALL];
        lo.extend_from_slice(formula.as_bytes());
        lo.push(0);
        let mut hi = lo.clone();
        hi.extend_from_slice(&[0xff; 5]);
        let mut stream = self.keys.range().ge(&lo).le(&hi).into_stream();
        let mut out = Vec::new();
        while let Some((_, v)) = stream.next() {
            out.push(v as u32);
        }
        out
    }

    /// Folded names within `distance` edits of `folded`, closest first, at most `limit`.
    pub fn near_names(&self, folded: &str, distance: u8, limit: usize) -> Vec<(String, u32, u8)> {
        use tantivy_fst::{IntoStreamer, Streamer};
        let dfa = levenshtein_automata::LevenshteinAutomatonBuilder::new(distance, true)
            .build_dfa(folded);
        let mut stream = self.names.search(Dfa(&dfa)).into_stream();
        let mut out = Vec::new();
        while let Some((k, v)) = stream.next() {
            let d = match dfa.eval(k) {
                levenshtein_automata::Distance::Exact(d) => d,
                levenshtein_automata::Distance::AtLeast(d) => d,
            };
            out.push((String::from_utf8_lossy(k).into_owned(), v as u32, d));
            if out.len() >= 10_000 {
                break;
            }
        }
        out.sort_by(|a, b| {
            a.2.cmp(&b.2)
                .then_with(|| a.0.len().cmp(&b.0.len()))
                .then_with(|| a.0.cmp(&b.0))
        });
        out.truncate(limit);
        out
    }

    /// Record `i`.
    pub fn record(&self, i: u32) -> Result<Record, PubchemError> {
        let i = i as usize;
        let (Some(&start), Some(&end)) = (self.offsets.get(i), self.offsets.get(i + 1)) else {
            return Err(PubchemError::Data(format!("no record {i}")));
        };
        let mut buf = vec![0; (end - start) as usize];
        self.records
            .read_exact_at(&mut buf, start)
            .map_err(|e| PubchemError::io(&self.records_path, e))?;
        serde_json::from_slice(&buf).map_err(|e| PubchemError::Data(format!("record {i}: {e}")))
    }

    /// How many compounds the lookup holds.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A Levenshtein DFA as an automaton over the map's keys.
struct Dfa<'a>(&'a levenshtein_automata::DFA);

impl tantivy_fst::Automaton for Dfa<'_> {
    type State = u32;
    fn start(&self) -> u32 {
        self.0.initial_state()
    }
    fn is_match(&self, state: &u32) -> bool {
        matches!(
            self.0.distance(*state),
            levenshtein_automata::Distance::Exact(_)
        )
    }
    fn can_match(&self, state: &u32) -> bool {
        *state != levenshtein_automata::SINK_STATE
    }
    fn accept(&self, state: &u32, byte: u8) -> u32 {
        self.0.transition(*state, byte)
    }
}
