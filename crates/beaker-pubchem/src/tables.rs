//! The chemicals package's tables as the installer lays them out (`scripts/install-python-runtime.py`): the
//! identifier databases, the property and safety tables keyed by CAS number, and the periodic table.
//!
//! Each property is looked up as chemicals' own function for it looks it up (`chemicals.Tm`, `Tb`, `RI`,
//! `T_flash`, ...): its sources in chemicals' order of preference, the first that has a value for the CAS number
//! wins, and the answer names it. chemicals' group-contribution estimates (Joback) are left out: an estimate
//! passed off as a measured property is a wrong number.

use crate::PubchemError;
use std::collections::HashMap;
use std::path::Path;

/// The identifier databases, in the order chemicals loads them (a later row wins every key it shares).
pub const ID_FILES: [&str; 6] = [
    "Identifiers/chemical identifiers pubchem large.tsv",
    "Identifiers/chemical identifiers pubchem small.tsv",
    "Identifiers/chemical identifiers example user db.tsv",
    "Identifiers/Cation db.tsv",
    "Identifiers/Anion db.tsv",
    "Identifiers/Inorganic db.tsv",
];

/// One row of an identifier database (or an element chemicals adds from its periodic table).
#[derive(Debug, Clone)]
pub struct IdRow {
    /// PubChem CID (-1 where PubChem has none).
    pub cid: i64,
    /// CAS number as chemicals stores it: the digits without dashes.
    pub cas: u64,
    /// Formula, Hill order with a charge suffix.
    pub formula: String,
    /// Molecular weight, g/mol (the text of the table, checked to be a number).
    pub mw: f64,
    /// SMILES.
    pub smiles: String,
    /// InChI without its `InChI=1S/` prefix.
    pub inchi: String,
    /// InChIKey.
    pub inchikey: String,
    /// IUPAC name.
    pub iupac: String,
    /// Common name.
    pub name: String,
    /// Every name of the row, from the IUPAC name on (chemicals' `values[7:]`).
    pub synonyms: Vec<String>,
}

/// Reads an identifier database.
pub fn read_ids(path: &Path) -> Result<Vec<IdRow>, PubchemError> {
    let text = read(path)?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bad = |what: &str| PubchemError::Data(format!("{}:{}: {what}", path.display(), n + 1));
        if f.len() < 9 {
            return Err(bad("fewer than 9 columns"));
        }
        rows.push(IdRow {
            cid: f[0]
                .trim()
                .parse()
                .map_err(|_| bad("CID is not an integer"))?,
            cas: cas_to_int(f[1]).ok_or_else(|| bad("CAS number is not digits and dashes"))?,
            formula: f[2].to_string(),
            mw: f[3]
                .trim()
                .parse()
                .map_err(|_| bad("weight is not a number"))?,
            smiles: f[4].to_string(),
            inchi: f[5].to_string(),
            inchikey: f[6].to_string(),
            iupac: f[7].to_string(),
            name: f[8].to_string(),
            synonyms: f[7..].iter().map(|s| s.to_string()).collect(),
        });
    }
    Ok(rows)
}

/// An element as chemicals' periodic table has it (`elements.tsv`, written by the installer).
#[derive(Debug, Clone)]
pub struct Element {
    /// Atomic number.
    pub number: u32,
    /// Symbol.
    pub symbol: String,
    /// Name, capitalised (`Hydrogen`).
    pub name: String,
    /// Name in lower case (`hydrogen`), which chemicals also reads as the element's.
    pub name_lower: String,
    /// CAS number of the atom (for hydrogen, nitrogen, oxygen and the halogens: of the single atom).
    pub cas: String,
    /// CAS number of the element as it is found (H2, N2, O2, ...).
    pub cas_standard: String,
    /// PubChem CID, where PubChem has one.
    pub cid: Option<i64>,
    /// Standard atomic weight as chemicals has it.
    pub mw: f64,
    /// InChIKey.
    pub inchikey: String,
    /// SMILES (`[Na]`).
    pub smiles: String,
    /// InChI without prefix (`Na`).
    pub inchi: String,
    /// Whether chemicals leaves the atom out of its compound tables (H, N, O, F, Cl, Br, I).
    pub homonuclear: bool,
}

/// Reads `elements.tsv`.
pub fn read_elements(path: &Path) -> Result<Vec<Element>, PubchemError> {
    let text = read(path)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let bad =
            || PubchemError::Data(format!("{}:{}: not an element row", path.display(), n + 1));
        if f.len() != 11 {
            return Err(bad());
        }
        out.push(Element {
            number: f[0].parse().map_err(|_| bad())?,
            symbol: f[1].into(),
            name: f[2].into(),
            name_lower: f[2].to_lowercase(),
            cas: f[3].into(),
            cas_standard: f[4].into(),
            cid: if f[5].is_empty() {
                None
            } else {
                Some(f[5].parse().map_err(|_| bad())?)
            },
            mw: f[6].parse().map_err(|_| bad())?,
            inchikey: f[7].into(),
            smiles: f[8].into(),
            inchi: f[9].into(),
            homonuclear: f[10] == "1",
        });
    }
    Ok(out)
}

/// A CAS number's digits as one integer (chemicals' `CAS_to_int`); `None` for anything but digits and dashes.
pub fn cas_to_int(cas: &str) -> Option<u64> {
    let digits: String = cas.chars().filter(|&c| c != '-').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 18 {
        return None;
    }
    digits.parse().ok()
}

/// A CAS integer written with its dashes (chemicals' `int_to_CAS`).
pub fn int_to_cas(cas: u64) -> String {
    let s = format!("{cas:03}");
    let n = s.len();
    format!("{}-{}-{}", &s[..n - 3], &s[n - 3..n - 1], &s[n - 1..])
}

/// Whether `text` is a CAS number with a valid check digit (chemicals' `check_CAS`).
pub fn check_cas(text: &str) -> bool {
    let b = text.as_bytes();
    if text.matches('-').count() != 2
        || b.len() < 5
        || b[b.len() - 2] != b'-'
        || b[b.len() - 5] != b'-'
    {
        return false;
    }
    let digits: Vec<u32> = match text
        .chars()
        .filter(|&c| c != '-')
        .map(|c| c.to_digit(10))
        .collect()
    {
        Some(d) => d,
        None => return false,
    };
    let Some((check, body)) = digits.split_last() else {
        return false;
    };
    let n = body.len() as u32;
    let sum: u32 = body
        .iter()
        .enumerate()
        .map(|(i, d)| (n - i as u32) * d)
        .sum();
    sum % 10 == *check
}

/// A table keyed by CAS number: its cells as numbers (text, empty and NaN cells are absent).
pub struct Table {
    columns: Vec<String>,
    rows: HashMap<u64, Vec<Option<f64>>>,
}

impl Table {
    /// Reads a tab-separated table whose first column is the CAS number, every column at once (several
    /// properties come from one table). A CAS number listed twice keeps its first row.
    pub fn read(path: &Path) -> Result<Table, PubchemError> {
        let text = read(path)?;
        let mut lines = text.lines();
        let columns = lines
            .next()
            .unwrap_or_default()
            .trim_end_matches('\r')
            .split('\t')
            .map(String::from)
            .collect();
        let mut rows = HashMap::new();
        for line in lines {
            let mut f = line.trim_end_matches('\r').split('\t');
            let Some(cas) = f.next().and_then(|c| cas_to_int(c.trim())) else {
                continue;
            };
            // Cells keep their column's place (the CAS number's is `None`).
            let values = std::iter::once(None)
                .chain(f.map(|v| v.trim().parse::<f64>().ok().filter(|v| v.is_finite())))
                .collect();
            rows.entry(cas).or_insert(values);
        }
        Ok(Table { columns, rows })
    }

    /// Whether the table has `column`.
    pub fn has(&self, column: &str) -> bool {
        self.columns.iter().any(|c| c == column)
    }

    /// The number in `column` for `cas`, if the table lists one.
    pub fn value(&self, cas: u64, column: &str) -> Option<f64> {
        let at = self.columns.iter().position(|c| c == column)?;
        self.rows.get(&cas)?.get(at).copied().flatten()
    }
}

/// A property's source: chemicals' method name, the table and its column(s), and the citation.
pub struct Source {
    /// chemicals' name for the method (`CRC_ORG`).
    pub method: &'static str,
    /// The table, relative to the data folder.
    pub file: &'static str,
    /// The citation the result gives.
    pub citation: &'static str,
}

const OPEN_NTBKM: Source = Source {
    method: "OPEN_NTBKM",
    file: "Phase Change/OpenNotebook Melting Points.tsv",
    citation: "Jean-Claude Bradley Open Melting Point Dataset (2014)",
};
const CRC_INORG: Source = Source {
    method: "CRC_INORG",
    file: "Misc/Physical Constants of Inorganic Compounds.csv",
    citation:
        "CRC Handbook of Chemistry and Physics, 95th ed., Physical Constants of Inorganic Compounds",
};
const CRC_ORG: Source = Source {
    method: "CRC_ORG",
    file: "Misc/Physical Constants of Organic Compounds.csv",
    citation:
        "CRC Handbook of Chemistry and Physics, 95th ed., Physical Constants of Organic Compounds",
};
const COMMON_CHEMISTRY: Source = Source {
    method: "COMMON_CHEMISTRY",
    file: "Misc/common_chemistry_data.tsv",
    citation: "CAS Common Chemistry",
};
const WEBBOOK: Source = Source {
    method: "WEBBOOK",
    file: "Misc/webbook_constants.tsv",
    citation: "NIST Chemistry WebBook",
};
const WIKIDATA: Source = Source {
    method: "WIKIDATA",
    file: "Misc/wikidata_properties.tsv",
    citation: "Wikidata",
};
const HEOS: Source = Source {
    method: "HEOS",
    file: "Misc/heos_constants.tsv",
    citation: "CoolProp's Helmholtz equations of state (HEOS)",
};
const YAWS: Source = Source {
    method: "YAWS",
    file: "Phase Change/Yaws Boiling Points.tsv",
    citation: "Yaws, Thermophysical Properties of Chemicals and Hydrocarbons (2014)",
};
const CRC_RI: Source = Source {
    method: "CRC",
    file: "Misc/CRC Handbook Organic RI.csv",
    citation:
        "CRC Handbook of Chemistry and Physics, 95th ed., refractive indices of organic compounds",
};
const IEC: Source = Source {
    method: "IEC 60079-20-1 (2010)",
    file: "Safety/IS IEC 60079-20-1 2010.tsv",
    citation: "IEC 60079-20-1 (2010), material characteristics for gas and vapour classification",
};
const NFPA: Source = Source {
    method: "NFPA 497 (2008)",
    file: "Safety/NFPA 497 2008.tsv",
    citation: "NFPA 497 (2008), classification of flammable liquids, gases or vapors",
};
const SERAT: Source = Source {
    method: "Serat DIPPR (2017)",
    file: "Safety/DIPPR T_flash Serat.csv",
    citation: "Serat et al. (2017), flash points of the DIPPR database",
};

/// A property the `properties` operation answers from the tables.
pub struct Property {
    /// PubChem-style name (`MeltingPoint`).
    pub name: &'static str,
    /// Unit of the value (`""`: a pure number).
    pub unit: &'static str,
    /// The column holding it, the same in every source.
    pub column: &'static str,
    /// A second column returned beside it (the temperature of a refractive index).
    pub extra: Option<(&'static str, &'static str)>,
    /// The sources, best first (chemicals' order).
    pub sources: &'static [Source],
    /// Whether it is a safety datum (the `safety` operation's).
    pub safety: bool,
}

/// The properties held in tables, with their sources in the order chemicals' functions try them (the key order
/// of its `Tm_sources`, `Tb_sources`, `RI_sources`, `Tflash_sources`, ... dicts, which for `Tb` differs from
/// `Tb_all_methods`'s), without `JOBACK`.
pub const PROPERTIES: &[Property] = &[
    Property {
        name: "MeltingPoint",
        unit: "K",
        column: "Tm",
        extra: None,
        sources: &[
            OPEN_NTBKM,
            CRC_INORG,
            CRC_ORG,
            COMMON_CHEMISTRY,
            WEBBOOK,
            WIKIDATA,
        ],
        safety: false,
    },
    Property {
        name: "BoilingPoint",
        unit: "K",
        column: "Tb",
        extra: None,
        sources: &[
            HEOS,
            CRC_ORG,
            CRC_INORG,
            COMMON_CHEMISTRY,
            WEBBOOK,
            YAWS,
            WIKIDATA,
        ],
        safety: false,
    },
    Property {
        name: "Density",
        unit: "kg/m^3",
        column: "rho",
        extra: None,
        sources: &[CRC_INORG, CRC_ORG],
        safety: false,
    },
    Property {
        name: "RefractiveIndex",
        unit: "",
        column: "RI",
        extra: Some(("RIT", "temperature_K")),
        sources: &[CRC_RI, WIKIDATA],
        safety: false,
    },
    Property {
        name: "FlashPoint",
        unit: "K",
        column: "T_flash",
        extra: None,
        sources: &[IEC, NFPA, SERAT, WIKIDATA],
        safety: true,
    },
    Property {
        name: "AutoignitionTemperature",
        unit: "K",
        column: "T_autoignition",
        extra: None,
        sources: &[IEC, NFPA, WIKIDATA],
        safety: true,
    },
    Property {
        name: "LowerFlammabilityLimit",
        unit: "volume fraction in air",
        column: "LFL",
        extra: None,
        sources: &[IEC, NFPA, WIKIDATA],
        safety: true,
    },
    Property {
        name: "UpperFlammabilityLimit",
        unit: "volume fraction in air",
        column: "UFL",
        extra: None,
        sources: &[IEC, NFPA, WIKIDATA],
        safety: true,
    },
];

/// The carcinogen lists: IARC's groups and the NTP's Report on Carcinogens.
pub const IARC_FILE: &str = "Safety/IARC Carcinogen Database.tsv";
/// The NTP's list.
pub const NTP_FILE: &str = "Safety/National Toxicology Program Carcinogens.tsv";
/// Ontario's occupational exposure limits.
pub const ONTARIO_FILE: &str = "Safety/Ontario Exposure Limits.json";

/// IARC's group as chemicals codes it (1, 11 for 2A, 12 for 2B, 3, 4), in words.
pub fn iarc_group(code: f64) -> Option<&'static str> {
    Some(match code as i64 {
        1 => "Carcinogenic to humans (1)",
        11 => "Probably carcinogenic to humans (2A)",
        12 => "Possibly carcinogenic to humans (2B)",
        3 => "Not classifiable as to its carcinogenicity to humans (3)",
        4 => "Probably not carcinogenic to humans (4)",
        _ => return None,
    })
}

/// The NTP's listing, in words.
pub fn ntp_listing(code: f64) -> Option<&'static str> {
    Some(match code as i64 {
        1 => "Known to be a human carcinogen",
        2 => "Reasonably anticipated to be a human carcinogen",
        _ => return None,
    })
}

/// Reads a file of the data folder as text.
pub fn read(path: &Path) -> Result<String, PubchemError> {
    let bytes = std::fs::read(path).map_err(|e| PubchemError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    // The tables are UTF-8 (chemicals opens them so); a stray byte is replaced rather than refused.
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}
