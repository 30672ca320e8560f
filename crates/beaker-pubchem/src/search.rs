//! From an identifier to a compound, as chemicals' `search_chemical` reads one (with its whole database loaded),
//! plus what a model writes that chemicals does not read: a CID as a number or digits (`2244`, `CID 2244`), a bare
//! InChIKey (in either case), a name in any case and punctuation (four letters or digits at least, and no charge
//! written), `name (formula)` where the formula is shared and the name picks one of its compounds, and a formula
//! with several compounds, which is reported as such rather than answered with one of them.
//!
//! chemicals' order: an element's symbol, name or atomic CAS number; a CAS number; `InChI=`, `InChIKey=`,
//! `PubChem=`, `SMILES=` prefixes; the formulas `CO`, `CS`, `NO`, `CNO` (which are also SMILES); a SMILES; a
//! formula; a name, as written, without spaces, without spaces and dashes, each also lower-cased; `name
//! (formula)` where both halves name the same compound.

use crate::formula;
use crate::lookup::{fold, kind, Database};

/// How a call names the compound.
#[derive(Debug, Clone)]
pub enum Identifier {
    /// A PubChem CID given as a number.
    Cid(i64),
    /// Text, read by the rules above (or only as `namespace` says).
    Text(String),
}

/// Where an identifier is looked up when a call says (PubChem's namespaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    /// A name or synonym.
    Name,
    /// A PubChem CID.
    Cid,
    /// A CAS registry number.
    Cas,
    /// A SMILES string.
    Smiles,
    /// An InChI.
    Inchi,
    /// An InChIKey.
    Inchikey,
    /// A formula.
    Formula,
}

impl Namespace {
    /// The namespace a param names.
    pub fn parse(s: &str) -> Option<Namespace> {
        Some(match s {
            "name" => Namespace::Name,
            "cid" => Namespace::Cid,
            "cas" => Namespace::Cas,
            "smiles" => Namespace::Smiles,
            "inchi" => Namespace::Inchi,
            "inchikey" => Namespace::Inchikey,
            "formula" => Namespace::Formula,
            _ => return None,
        })
    }
}

/// What an identifier named.
#[derive(Debug)]
pub enum Found {
    /// One compound, and how the identifier was read.
    One(u32, &'static str),
    /// A formula several compounds have: all of them (load order), and the formula as read.
    Ambiguous(String, Vec<u32>),
}

/// Why nothing was found: the message, and near names when the identifier read as a name.
#[derive(Debug)]
pub struct Miss {
    /// What was recognised and not found.
    pub message: String,
    /// The identifier folded, when suggestions should be sought for it.
    pub folded: Option<String>,
}

fn miss(message: String) -> Miss {
    Miss {
        message,
        folded: None,
    }
}

/// Folded text shorter than this is never matched loosely: `co`, `CA`, `a` fold onto cobalt's ion, calcium's
/// ion and a vitamin's one-letter synonym.
const MIN_LOOSE_CHARS: usize = 4;

/// Resolves an identifier.
pub fn resolve(db: &Database, id: &Identifier, ns: Option<Namespace>) -> Result<Found, Miss> {
    let owned;
    let text = match (id, ns) {
        (Identifier::Cid(cid), None) => return by_cid(db, *cid),
        (Identifier::Cid(n), Some(_)) => {
            owned = n.to_string();
            owned.as_str()
        }
        (Identifier::Text(t), _) => t.trim(),
    };
    if text.is_empty() {
        return Err(miss("the identifier is empty".into()));
    }
    if let Some(ns) = ns {
        return in_namespace(db, text, ns);
    }
    resolve_text(db, text, true)
}

/// What follows the first `prefix.len()` characters of `text` when they lower-case to the ASCII `prefix` (as
/// Python's `lower()` compares them, so a Kelvin sign reads as `k`).
pub(crate) fn strip_prefix_ci<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let mut chars = text.char_indices();
    for want in prefix.chars() {
        let (_, c) = chars.next()?;
        let mut lower = c.to_lowercase();
        if lower.next() != Some(want) || lower.next().is_some() {
            return None;
        }
    }
    Some(chars.next().map_or("", |(i, _)| &text[i..]))
}

fn resolve_text(db: &Database, text: &str, split: bool) -> Result<Found, Miss> {
    // Digits are a CID; a CID the tables lack may still be a name (`33379` is a synonym).
    let cid_miss = match cid_form(text) {
        Some(cid) => match by_cid(db, cid) {
            Ok(found) => return Ok(found),
            Err(m) => Some(m),
        },
        None => None,
    };
    if let Some(found) = element(db, text) {
        return found;
    }
    if crate::tables::check_cas(text) {
        if let Some(i) = cas(db, text) {
            return Ok(Found::One(i, "CAS number"));
        }
        if let Some(i) = db.get(kind::NAME, text) {
            return Ok(Found::One(i, "name"));
        }
        return Err(miss(format!(
            "`{text}` is a valid CAS number, but not one in the offline tables"
        )));
    }
    let after = |prefix: &str| strip_prefix_ci(text, prefix);
    let chars = text.chars().count();
    if chars > 9 {
        if let Some(inchi) = after("inchi=1s/").or_else(|| after("inchi=1/")) {
            return db
                .get(kind::INCHI, inchi)
                .map(|i| Found::One(i, "InChI"))
                .ok_or_else(|| miss(format!("the InChI `{text}` is not in the offline tables")));
        }
        if let Some(key) = after("inchikey=") {
            return db
                .get(kind::INCHIKEY, key)
                .map(|i| Found::One(i, "InChIKey"))
                .ok_or_else(|| miss(format!("the InChIKey `{key}` is not in the offline tables")));
        }
    }
    if chars > 8 {
        if let Some(n) = after("pubchem=") {
            let cid = n
                .trim()
                .replace('_', "")
                .parse::<i64>()
                .map_err(|_| miss(format!("`{n}` after `PubChem=` is not a CID")))?;
            return by_cid(db, cid);
        }
    }
    if chars > 7 {
        if let Some(s) = after("smiles=") {
            return db
                .get(kind::SMILES, s)
                .map(|i| Found::One(i, "SMILES"))
                .ok_or_else(|| miss(format!("the SMILES `{s}` is not in the offline tables")));
        }
    }
    let upper = text.to_ascii_uppercase();
    if is_inchikey(&upper) {
        if let Some(i) = db.get(kind::INCHIKEY, &upper) {
            return Ok(Found::One(i, "InChIKey"));
        }
    }
    if ["CO", "CS", "NO", "CNO"].contains(&text) {
        return by_formula(db, text)
            .ok_or_else(|| miss(format!("no compound with the formula `{text}`")));
    }
    if let Some(i) = db.get(kind::SMILES, text) {
        return Ok(Found::One(i, "SMILES"));
    }
    if let Some(f) = formula::serialize(text) {
        if let Some(found) = by_formula(db, &f) {
            return Ok(found);
        }
    }
    if let Some(found) = by_name(db, text) {
        return Ok(found);
    }
    // `name (formula)`, one level deep (a text of many groups would otherwise be read again for each).
    if let (true, Some(open), true) = (split, text.rfind('('), text.ends_with(')')) {
        let first = text[..open].trim();
        let second = text[open + 1..].trim_end_matches(')');
        if !first.is_empty() && !second.is_empty() {
            if let Ok(Found::One(x, _)) = resolve_text(db, first, false) {
                let same = match resolve_text(db, second, false) {
                    Ok(Found::One(y, _)) => x == y,
                    // `dimethyl ether (C2H6O)`: the formula is shared, the name picks one of its compounds.
                    Ok(Found::Ambiguous(_, all)) => all.contains(&x),
                    Err(_) => false,
                };
                if same {
                    return Ok(Found::One(x, "name (formula)"));
                }
            }
        }
    }
    let folded = fold(text);
    if loose(text, &folded) {
        if let Some(i) = db.get_folded(&folded) {
            return Ok(Found::One(i, "name (case and punctuation ignored)"));
        }
    }
    if let Some(m) = cid_miss {
        return Err(m);
    }
    Err(Miss {
        message: format!("no compound `{text}` in the offline tables"),
        folded: Some(folded),
    })
}

/// Whether `text` may be matched with case and punctuation ignored: long enough, and with no charge written
/// (`Na-`, `Cl+` must not fold onto the other ion).
fn loose(text: &str, folded: &str) -> bool {
    folded.chars().count() >= MIN_LOOSE_CHARS && !crate::lookup::charged(text)
}

fn in_namespace(db: &Database, text: &str, ns: Namespace) -> Result<Found, Miss> {
    let not = |what: &str| {
        miss(format!(
            "no compound with the {what} `{text}` in the offline tables"
        ))
    };
    match ns {
        Namespace::Cid => {
            let cid = cid_form(text).ok_or_else(|| miss(format!("`{text}` is not a CID")))?;
            by_cid(db, cid)
        }
        Namespace::Cas => cas(db, text)
            .map(|i| Found::One(i, "CAS number"))
            .ok_or_else(|| not("CAS number")),
        Namespace::Smiles => db
            .get(kind::SMILES, text)
            .map(|i| Found::One(i, "SMILES"))
            .ok_or_else(|| not("SMILES")),
        Namespace::Inchi => {
            let body = strip_prefix_ci(text, "inchi=1s/")
                .or_else(|| strip_prefix_ci(text, "inchi=1/"))
                .unwrap_or(text);
            db.get(kind::INCHI, body)
                .map(|i| Found::One(i, "InChI"))
                .ok_or_else(|| not("InChI"))
        }
        Namespace::Inchikey => db
            .get(
                kind::INCHIKEY,
                &strip_prefix_ci(text, "inchikey=")
                    .unwrap_or(text)
                    .to_ascii_uppercase(),
            )
            .map(|i| Found::One(i, "InChIKey"))
            .ok_or_else(|| not("InChIKey")),
        Namespace::Formula => {
            let f = formula::serialize(text)
                .ok_or_else(|| miss(format!("`{text}` is not a formula")))?;
            by_formula(db, &f).ok_or_else(|| not("formula"))
        }
        Namespace::Name => {
            let folded = fold(text);
            by_name(db, text)
                .or_else(|| {
                    loose(text, &folded)
                        .then(|| db.get_folded(&folded))
                        .flatten()
                        .map(|i| Found::One(i, "name (case and punctuation ignored)"))
                })
                .ok_or_else(|| Miss {
                    message: format!("no compound named `{text}` in the offline tables"),
                    folded: Some(folded),
                })
        }
    }
}

/// `2244`, `CID 2244`, `cid:2244`, `CID2244`.
pub(crate) fn cid_form(text: &str) -> Option<i64> {
    let digits = |s: &str| {
        (!s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    if let Some(n) = digits(text) {
        return Some(n);
    }
    let rest = text
        .get(..3)
        .filter(|p| p.eq_ignore_ascii_case("cid"))
        .and(text.get(3..))?;
    digits(rest.trim_start_matches([' ', ':', '=', '#']))
}

/// Whether `text` has an InChIKey's form (14 capitals, dash, 10 capitals, dash, one capital).
pub(crate) fn is_inchikey(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 27
        && b[14] == b'-'
        && b[25] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 14 || i == 25 || c.is_ascii_uppercase())
}

fn by_cid(db: &Database, cid: i64) -> Result<Found, Miss> {
    if cid <= 0 {
        return Err(miss(format!("{cid} is not a CID (CIDs are positive)")));
    }
    db.get(kind::CID, &cid.to_string())
        .map(|i| Found::One(i, "CID"))
        .ok_or_else(|| miss(format!("CID {cid} is not in the offline tables")))
}

fn cas(db: &Database, text: &str) -> Option<u32> {
    crate::tables::cas_to_int(text).and_then(|n| db.get(kind::CAS, &n.to_string()))
}

fn by_formula(db: &Database, f: &str) -> Option<Found> {
    let chosen = db.get(kind::FORMULA, f)?;
    let all = db.formula_candidates(f);
    if all.len() > 1 {
        return Some(Found::Ambiguous(f.to_string(), all));
    }
    Some(Found::One(
        all.first().copied().unwrap_or(chosen),
        "formula",
    ))
}

fn by_name(db: &Database, text: &str) -> Option<Found> {
    if let Some(i) = db.get(kind::NAME, text) {
        return Some(Found::One(i, "name"));
    }
    let no_space = text.replace(' ', "");
    let no_dash = no_space.replace('-', "");
    for name in [text.to_string(), no_space, no_dash] {
        for n in [name.clone(), name.to_lowercase()] {
            if let Some(i) = db.get(kind::NAME, &n) {
                return Some(Found::One(i, "name"));
            }
            if crate::tables::check_cas(&n) {
                if let Some(i) = cas(db, &n) {
                    return Some(Found::One(i, "CAS number"));
                }
            }
        }
    }
    None
}

/// chemicals' element rule: a symbol or atomic CAS number names the atom; a name names the element as found
/// (`hydrogen` is H2).
fn element(db: &Database, text: &str) -> Option<Result<Found, Miss>> {
    let named = |e: &crate::tables::Element| e.name == text || e.name_lower == text;
    let e = db
        .elements
        .iter()
        .find(|e| e.symbol == text || e.cas == text || named(e))?;
    let by_name = named(e);
    let which = if by_name && e.symbol != text && e.cas != text {
        &e.cas_standard
    } else {
        &e.cas
    };
    Some(
        cas(db, which)
            .map(|i| Found::One(i, "element"))
            .ok_or_else(|| {
                miss(format!(
                    "the element `{text}` has no entry in the offline tables"
                ))
            }),
    )
}
