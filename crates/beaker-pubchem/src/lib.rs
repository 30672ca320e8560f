//! `pubchem`: compounds offline. Identifiers (CID, CAS, formula, weight, SMILES, InChI, InChIKey, IUPAC name,
//! synonyms) for about 71,000 compounds derived from PubChem, physical properties from the CRC Handbook and
//! other compilations, and safety data (flash points, flammability limits, carcinogen lists, exposure limits),
//! all from the tables the `chemicals` package (ChEDL, MIT licence) ships in its wheel, which
//! `scripts/install-python-runtime.py` installs pinned by SHA-256. See `pubchem.md`.
//!
//! The tables are compiled into a compact lookup (`lookup.rs`) on first use; an identifier is read as
//! chemicals' `search_chemical` reads it (`search.rs`), so the same question gets the same compound as in
//! chemicals, and every property says which table it came from.

pub mod formula;
pub mod lookup;
pub mod provider;
pub mod search;
mod spec;
pub mod tables;
#[cfg(test)]
mod tests;

pub use lookup::{Database, Record};
pub use provider::{Provider, ProviderConfig};
pub use search::{Found, Identifier, Namespace};

use beaker_core::{CallContext, ErrorKind, Tool, ToolError, ToolSpec};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The chemicals release whose tables are read.
pub const CHEMICALS_VERSION: &str = "1.5.2";
/// Where every identifier and weight comes from.
pub const IDENTITY_SOURCE: &str =
    "PubChem, via the chemicals 1.5.2 identifier tables (ChEDL, Caleb Bell; MIT licence)";
/// Characters an identifier may have.
pub const MAX_IDENTIFIER_CHARS: u64 = 4096;
/// Folded characters a misread name may have for near names to be sought.
pub const MAX_SUGGESTED_CHARS: usize = 48;
/// Synonyms one call may ask for.
pub const MAX_SYNONYMS: u64 = 1000;

/// Why the tables could not be read or a compound not found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PubchemError {
    /// The tables are not installed where the tool looks.
    #[error(
        "the pubchem tool's tables are not installed in {}: run `python3 scripts/install-python-runtime.py` \
         (it fetches the chemicals {CHEMICALS_VERSION} wheel, checked by SHA-256), or set BEAKER_CHEMICALS_DIR",
        .0.display()
    )]
    NotInstalled(PathBuf),
    /// A table that is not what the installer lays out.
    #[error("pubchem tables: {0}")]
    Data(String),
    /// A file that could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The live provider failed.
    #[error("{0}")]
    Provider(String),
}

impl PubchemError {
    fn io(path: &Path, source: std::io::Error) -> PubchemError {
        PubchemError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<PubchemError> for ToolError {
    fn from(e: PubchemError) -> Self {
        ToolError::new(ErrorKind::ToolError, e.to_string())
    }
}

/// The tables' folder: `$BEAKER_CHEMICALS_DIR`, else `chemicals-1.5.2` in Beaker's cache folder (the installer's
/// rule).
pub fn default_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("BEAKER_CHEMICALS_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    beaker_core::cache_dir()
        .unwrap_or_else(|| PathBuf::from(".beaker-cache"))
        .join(format!("chemicals-{CHEMICALS_VERSION}"))
}

type Opened = Arc<OnceLock<Result<Arc<Database>, String>>>;

/// The database of `dir`, opened (and its lookup built) once per process.
pub fn open(dir: &Path) -> Result<Arc<Database>, String> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Opened>>> = OnceLock::new();
    let cell = {
        let mut map = OPEN
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        map.entry(dir.to_path_buf()).or_default().clone()
    };
    cell.get_or_init(|| Database::open(dir).map(Arc::new).map_err(|e| e.to_string()))
        .clone()
}

/// The `pubchem` tool.
pub struct Pubchem {
    spec: ToolSpec,
    dir: PathBuf,
    provider: Option<Arc<Provider>>,
}

impl Default for Pubchem {
    fn default() -> Self {
        Pubchem::new(default_dir(), None)
    }
}

impl Pubchem {
    /// The tool over the tables in `dir`, asking `provider` (PubChem PUG REST) for what they lack.
    pub fn new(dir: PathBuf, provider: Option<Arc<Provider>>) -> Pubchem {
        Pubchem {
            spec: spec::spec(),
            dir,
            provider,
        }
    }

    fn db(&self) -> Result<Arc<Database>, ToolError> {
        open(&self.dir).map_err(|e| ToolError::new(ErrorKind::ToolError, e))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    operation: String,
    identifier: Value,
    #[serde(default)]
    properties: Option<Vec<String>>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default = "default_max_synonyms")]
    max_synonyms: u64,
}

fn default_max_synonyms() -> u64 {
    20
}

/// The properties of a compound's identity (the rest of [`PROPERTY_NAMES`] come from the property tables).
pub const IDENTITY_PROPERTIES: &[&str] = PROPERTY_NAMES.split_at(9).0;

/// The properties `properties` answers, by PubChem's names.
pub const PROPERTY_NAMES: &[&str] = &[
    "MolecularWeight",
    "MolecularFormula",
    "SMILES",
    "ConnectivitySMILES",
    "InChI",
    "InChIKey",
    "IUPACName",
    "Title",
    "CAS",
    "MeltingPoint",
    "BoilingPoint",
    "Density",
    "RefractiveIndex",
    "FlashPoint",
    "AutoignitionTemperature",
    "LowerFlammabilityLimit",
    "UpperFlammabilityLimit",
];

/// Older PubChem names and plain spellings of the same properties.
fn property_alias(folded: &str) -> Option<&'static str> {
    Some(match folded {
        "isomericsmiles" | "smiles" => "SMILES",
        "canonicalsmiles" | "connectivitysmiles" => "ConnectivitySMILES",
        "molecularweight" | "mw" | "molarmass" | "weight" => "MolecularWeight",
        "molecularformula" | "formula" => "MolecularFormula",
        "iupacname" | "iupac" => "IUPACName",
        "title" | "name" => "Title",
        "cas" | "casnumber" | "casrn" => "CAS",
        "meltingpoint" | "mp" | "tm" => "MeltingPoint",
        "boilingpoint" | "bp" | "tb" => "BoilingPoint",
        "autoignitiontemperature" | "autoignition" | "autoignitiontemp" => {
            "AutoignitionTemperature"
        }
        "lowerflammabilitylimit" | "lfl" | "lowerexplosivelimit" | "lel" => {
            "LowerFlammabilityLimit"
        }
        "upperflammabilitylimit" | "ufl" | "upperexplosivelimit" | "uel" => {
            "UpperFlammabilityLimit"
        }
        other => {
            return PROPERTY_NAMES
                .iter()
                .copied()
                .find(|p| lookup::fold(p) == other)
        }
    })
}

/// A property name as the call writes it, to PubChem's; unknown names are refused with the nearest.
fn property_name(asked: &str) -> Result<&'static str, ToolError> {
    property_alias(&lookup::fold(asked)).ok_or_else(|| {
        let near = PROPERTY_NAMES
            .iter()
            .map(|k| {
                (
                    strsim::jaro_winkler(&asked.to_lowercase(), &k.to_lowercase()),
                    *k,
                )
            })
            .filter(|(score, _)| *score >= 0.85)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| k);
        let hint = near
            .map(|n| format!(" (did you mean `{n}`?)"))
            .unwrap_or_default();
        ToolError::invalid_params(format!(
            "`properties`: unknown property `{asked}`{hint}; known: {}",
            PROPERTY_NAMES.join(", ")
        ))
    })
}

/// Kelvin to Celsius in decimal, so a table's `408.15` reads `135`, not `135.00000000000006`.
fn celsius(k: f64) -> f64 {
    let s = format!("{k}");
    let Some((int, frac)) = s.split_once('.').or(Some((s.as_str(), ""))) else {
        return k - 273.15;
    };
    if s.contains('e') || frac.len() > 12 {
        return k - 273.15;
    }
    let d = frac.len().max(2);
    let scaled: Option<i128> = format!("{int}{frac}{}", "0".repeat(d - frac.len()))
        .parse()
        .ok();
    let Some(scaled) = scaled else {
        return k - 273.15;
    };
    let c = scaled - 27315 * 10i128.pow((d - 2) as u32);
    let sign = if c < 0 { "-" } else { "" };
    let a = c.unsigned_abs().to_string();
    let a = format!("{}{a}", "0".repeat((d + 1).saturating_sub(a.len())));
    format!("{sign}{}.{}", &a[..a.len() - d], &a[a.len() - d..])
        .parse()
        .unwrap_or(k - 273.15)
}

fn with_celsius(mut v: Value) -> Value {
    if v["unit"] == "K" {
        if let Some(k) = v["value"].as_f64() {
            v["celsius"] = json!(celsius(k));
        }
    }
    v
}

/// The head every answer starts with: who the compound is.
fn head(r: &Record, read_as: &str) -> Map<String, Value> {
    let mut m = Map::new();
    if let Some(cid) = r.cid {
        m.insert("cid".into(), json!(cid));
    }
    m.insert("cas".into(), json!(r.cas));
    m.insert("name".into(), json!(r.name));
    m.insert("formula".into(), json!(r.formula));
    m.insert("molecular_weight".into(), json!(r.mw));
    m.insert("read_as".into(), json!(read_as));
    m
}

fn identity(r: &Record, name: &str) -> Option<Value> {
    let v = match name {
        "MolecularWeight" => {
            return Some(json!({"value": r.mw, "unit": "g/mol", "source": IDENTITY_SOURCE}))
        }
        "MolecularFormula" => json!(r.formula),
        "SMILES" => json!(r.smiles),
        "ConnectivitySMILES" => {
            // Without stereo or isotope marks, the connectivity SMILES is the SMILES itself; with them, taking
            // them out needs a SMILES toolkit, which this tool does not have.
            let marked = r.smiles.contains(['@', '/', '\\'])
                || r.smiles
                    .as_bytes()
                    .windows(2)
                    .any(|w| w[0] == b'[' && w[1].is_ascii_digit());
            if marked {
                return None;
            }
            json!(r.smiles)
        }
        "InChI" => json!(r.inchi),
        "InChIKey" => json!(r.inchikey),
        "IUPACName" => json!(r.iupac),
        "Title" => json!(r.name),
        "CAS" => json!(r.cas),
        _ => return None,
    };
    Some(json!({"value": v, "source": IDENTITY_SOURCE}))
}

impl Pubchem {
    /// The answer for record `i`; `asked` is the `properties` param read to PubChem's names.
    fn answer(
        &self,
        p: &Params,
        asked: Option<&[&'static str]>,
        db: &Database,
        i: u32,
        read_as: &str,
    ) -> Result<Value, ToolError> {
        let r = db.record(i)?;
        let mut out = head(&r, read_as);
        match p.operation.as_str() {
            "compound" => {
                out.insert("iupac_name".into(), json!(r.iupac));
                out.insert("smiles".into(), json!(r.smiles));
                out.insert("inchi".into(), json!(r.inchi));
                out.insert("inchikey".into(), json!(r.inchikey));
                out.insert("source".into(), json!(IDENTITY_SOURCE));
            }
            "structure" => {
                out.insert("smiles".into(), json!(r.smiles));
                out.insert("inchi".into(), json!(r.inchi));
                out.insert("inchikey".into(), json!(r.inchikey));
                out.insert("source".into(), json!(IDENTITY_SOURCE));
            }
            "synonyms" => {
                let n = (p.max_synonyms as usize).min(r.synonyms.len());
                out.insert("synonyms".into(), json!(r.synonyms[..n]));
                out.insert("count".into(), json!(r.synonyms.len()));
                out.insert("source".into(), json!(IDENTITY_SOURCE));
            }
            "properties" => {
                let mut props = Map::new();
                let mut missing = Vec::new();
                for &name in asked.unwrap_or(PROPERTY_NAMES) {
                    let v = identity(&r, name).or_else(|| r.props.get(name).cloned().map(with_celsius));
                    match v {
                        Some(v) => {
                            props.insert(name.into(), v);
                        }
                        None if asked.is_some() => missing.push(name),
                        None => {}
                    }
                }
                out.insert("properties".into(), Value::Object(props));
                if !missing.is_empty() {
                    out.insert("missing".into(), json!(missing));
                }
            }
            "safety" => {
                let mut any = false;
                for (key, name) in [
                    ("flash_point", "FlashPoint"),
                    ("autoignition_temperature", "AutoignitionTemperature"),
                    ("lower_flammability_limit", "LowerFlammabilityLimit"),
                    ("upper_flammability_limit", "UpperFlammabilityLimit"),
                ] {
                    if let Some(v) = r.props.get(name) {
                        out.insert(key.into(), with_celsius(v.clone()));
                        any = true;
                    }
                }
                if !r.carcinogen.is_empty() {
                    let mut c = r.carcinogen.clone();
                    c.insert(
                        "source".into(),
                        json!("IARC Monographs list of classifications; NTP Report on Carcinogens, 13th ed."),
                    );
                    out.insert("carcinogen".into(), Value::Object(c));
                    any = true;
                }
                if let Some(e) = &r.exposure {
                    out.insert("exposure_limits".into(), e.clone());
                    any = true;
                }
                if !any {
                    out.insert(
                        "note".into(),
                        json!("the offline tables (IEC 60079-20-1, NFPA 497, DIPPR, Wikidata, IARC, NTP, Ontario's \
                               exposure limits) hold no safety data for this compound; that does not make it safe"),
                    );
                }
            }
            other => {
                return Err(ToolError::invalid_params(format!(
                    "unknown operation `{other}`; one of: compound, properties, structure, safety, synonyms"
                )))
            }
        }
        Ok(Value::Object(out))
    }
}

impl Tool for Pubchem {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: Params = beaker_core::params::parse(params)?;
        if p.properties.is_some() && p.operation != "properties" {
            return Err(ToolError::invalid_params(format!(
                "`properties` is for the `properties` operation, not `{}`",
                p.operation
            )));
        }
        if !(1..=MAX_SYNONYMS).contains(&p.max_synonyms) {
            return Err(ToolError::invalid_params(format!(
                "`max_synonyms` is from 1 to {MAX_SYNONYMS}, got {}",
                p.max_synonyms
            )));
        }
        let ns = match &p.namespace {
            Some(n) => Some(Namespace::parse(n).ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "unknown namespace `{n}`; one of: name, cid, cas, smiles, inchi, inchikey, formula"
                ))
            })?),
            None => None,
        };
        let id = match &p.identifier {
            Value::String(t) => {
                if t.chars().count() as u64 > MAX_IDENTIFIER_CHARS {
                    return Err(ToolError::invalid_params(format!(
                        "`identifier` has at most {MAX_IDENTIFIER_CHARS} characters"
                    )));
                }
                Identifier::Text(t.clone())
            }
            Value::Number(n) => match n.as_i64().filter(|n| *n > 0) {
                Some(cid) => Identifier::Cid(cid),
                None => {
                    return Err(ToolError::invalid_params(format!(
                        "`identifier`: {n} is not a CID (a positive integer); give a name, formula or CAS number as a string"
                    )))
                }
            },
            other => {
                return Err(ToolError::invalid_params(format!(
                    "`identifier` is a string (name, CAS number, formula, SMILES, InChI) or a CID, not {}",
                    beaker_core::json_type(other)
                )))
            }
        };
        // Read once, before any work: an unknown name is refused whatever the compound.
        let asked: Option<Vec<&'static str>> = p
            .properties
            .as_deref()
            .map(|list| list.iter().map(|a| property_name(a)).collect())
            .transpose()?;
        let db = self.db()?;
        ctx.checkpoint()?;
        match search::resolve(&db, &id, ns) {
            Ok(Found::One(i, read_as)) => self.answer(&p, asked.as_deref(), &db, i, read_as),
            Ok(Found::Ambiguous(formula, all)) => {
                let mut candidates: Vec<Record> = Vec::new();
                for &i in &all {
                    candidates.push(db.record(i)?);
                }
                candidates.sort_by_key(|r| r.cid.unwrap_or(i64::MAX));
                let listed: Vec<Value> = candidates
                    .iter()
                    .take(20)
                    .map(|r| json!({"cid": r.cid, "cas": r.cas, "name": r.name}))
                    .collect();
                if p.operation == "compound" {
                    return Ok(json!({
                        "ambiguous": true,
                        "formula": formula,
                        "count": all.len(),
                        "candidates": listed,
                        "read_as": "formula",
                    }));
                }
                let names: Vec<String> = candidates
                    .iter()
                    .take(8)
                    .map(|r| match r.cid {
                        Some(cid) => format!("{} (CID {cid})", r.name),
                        None => format!("{} (CAS {})", r.name, r.cas),
                    })
                    .collect();
                Err(ToolError::invalid_params(format!(
                    "`{formula}` is the formula of {} compounds in the offline tables ({}{}); name one, or give its CID",
                    all.len(),
                    names.join(", "),
                    if all.len() > names.len() { ", ..." } else { "" }
                )))
            }
            Err(m) => {
                if let Some(provider) = &self.provider {
                    if let Some(found) = provider.lookup(&id, ns, ctx)? {
                        return Ok(provider::answer(
                            &p.operation,
                            asked.as_deref(),
                            p.max_synonyms,
                            found,
                        ));
                    }
                }
                let mut message = m.message;
                // A Levenshtein automaton grows with its text: past the length of real names, none is sought.
                let sized = |f: &String| (3..=MAX_SUGGESTED_CHARS).contains(&f.chars().count());
                if let Some(folded) = m.folded.filter(sized) {
                    let distance = if folded.chars().count() >= 8 { 2 } else { 1 };
                    let near = db.near_names(&folded, distance, 5);
                    let mut seen = std::collections::HashSet::new();
                    let mut names = Vec::new();
                    for (_, i, _) in near {
                        if seen.insert(i) {
                            let r = db.record(i)?;
                            names.push(match r.cid {
                                Some(cid) => format!("{} (CID {cid})", r.name),
                                None => r.name,
                            });
                        }
                    }
                    if !names.is_empty() {
                        message.push_str(&format!("; did you mean: {}?", names.join(", ")));
                    }
                }
                Err(ToolError::invalid_params(message))
            }
        }
    }

    fn warm_up(&self) {
        if let Err(e) = self.db() {
            tracing::warn!("pubchem: {}", e.message);
        }
    }
}
