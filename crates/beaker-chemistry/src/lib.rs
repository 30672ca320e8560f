//! `chemistry`: molar masses, equation balancing, stoichiometry, acid–base equilibria, solutions, gases and the
//! periodic table. Exact where the science allows: balancing in rationals, pH by the full charge balance.
//! See `chemistry.md`.

mod balance;
mod elements;
mod formula;
mod solution;
mod spec;
#[cfg(test)]
mod tests;

use balance::{balance, parse_equation, render, Equation};
use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use beaker_units::quantity::{self, Kind};
use beaker_units::table::GAS_CONSTANT;
use beaker_units::table::{Dims, AMOUNT, CONCENTRATION, MASS, PRESSURE, TEMP, VOLUME};
use formula::{parse_species, Species};
use serde_json::{json, Map, Value};

/// One standard atmosphere in pascals (exact by definition).
const ATM: f64 = 101_325.0;
/// Most acid or base constants in one call (a hexaprotic acid is already rare).
const MAX_CONSTANTS: usize = 10;
/// How far from an integer a scaled mole ratio may be and still count as that integer (empirical formulas).
const RATIO_TOLERANCE: f64 = 0.1;
/// Largest gap, in pH units, at which the textbook shortcut still counts as valid (about 5 % in [H⁺]).
const SHORTCUT_TOLERANCE: f64 = 0.02;
/// Largest multiplier tried to turn mole ratios into integers.
const MAX_MULTIPLIER: u32 = 12;

/// The `chemistry` tool.
pub struct Chemistry {
    spec: ToolSpec,
}

impl Default for Chemistry {
    fn default() -> Self {
        Self::new()
    }
}

impl Chemistry {
    /// The tool with its spec.
    pub fn new() -> Self {
        Chemistry { spec: spec::spec() }
    }
}

/// The keys each operation reads (besides `operation`); any other key is refused, never ignored.
const KEYS: beaker_core::operations::Keys = &[
    ("molar_mass", &["formula"]),
    ("balance", &["equation"]),
    ("stoichiometry", &["equation", "given", "find"]),
    ("limiting_reagent", &["equation", "amounts"]),
    (
        "ph",
        &[
            "concentration",
            "type",
            "strong",
            "ka",
            "pka",
            "kb",
            "pkb",
            "equivalents",
            "temperature",
        ],
    ),
    (
        "buffer",
        &[
            "acid_concentration",
            "base_concentration",
            "ka",
            "pka",
            "temperature",
        ],
    ),
    ("dilution", &["c1", "v1", "c2", "v2"]),
    (
        "molarity",
        &["molarity", "volume", "moles", "mass", "formula"],
    ),
    (
        "ideal_gas",
        &[
            "pressure",
            "volume",
            "moles",
            "temperature",
            "mass",
            "formula",
        ],
    ),
    ("empirical_formula", &["composition", "molar_mass"]),
    ("element", &["symbol", "name", "number"]),
];

impl Tool for Chemistry {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, _ctx: &CallContext) -> Result<Value, ToolError> {
        match beaker_core::operations::select(params, KEYS)? {
            "molar_mass" => molar_mass(params),
            "balance" => balance_op(params),
            "stoichiometry" => stoichiometry(params),
            "limiting_reagent" => limiting_reagent(params),
            "ph" => ph(params),
            "buffer" => buffer(params),
            "dilution" => dilution(params),
            "molarity" => molarity(params),
            "ideal_gas" => ideal_gas(params),
            "empirical_formula" => empirical_formula(params),
            _ => element(params),
        }
    }
}

/// A finite number as JSON; anything else is a result too large or too small to state.
fn num(x: f64, what: &str) -> Result<Value, ToolError> {
    if x.is_finite() {
        Ok(json!(x))
    } else {
        Err(ToolError::domain(format!("{what} is not a finite number")))
    }
}

fn text<'a>(params: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    params[key]
        .as_str()
        .ok_or_else(|| ToolError::invalid_params(format!("`{key}` is required (a string)")))
}

fn positive(x: f64, key: &str) -> Result<f64, ToolError> {
    if x > 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err(ToolError::invalid_params(format!(
            "`{key}` must be positive, got {x}"
        )))
    }
}

const GRAMS: Kind = Kind::new(MASS, "g");
const MOLES: Kind = Kind::new(AMOUNT, "mol");
const LITRES: Kind = Kind::new(VOLUME, "L");
const MOLAR: Kind = Kind::new(CONCENTRATION, "M");
const PASCALS: Kind = Kind::new(PRESSURE, "Pa");
const KELVIN: Kind = Kind::new(TEMP, "K");
/// Mass per amount of substance (g/mol), in `BASE` order: mass¹ · amount⁻¹.
const MOLAR_MASS: Dims = [0, 1, 0, 0, 0, -1, 0, 0, 0];

/// A quantity (a number or a string with a unit) in the chemist's units: g, mol, L, mol/L, g/mol, Pa, K.
fn read_value(v: &Value, key: &str, kind: Kind) -> Result<f64, ToolError> {
    // The unit engine answers in SI; these are the dimensions whose chemist's unit is not the SI one.
    let scale = if kind.dims == MASS || kind.dims == VOLUME || kind.dims == MOLAR_MASS {
        1e3
    } else if kind.dims == CONCENTRATION {
        1e-3
    } else {
        1.0
    };
    Ok(quantity::read_value(v, key, kind)? * scale)
}

/// Param `key` in the chemist's units, or `None` when it is absent or null.
fn read(params: &Value, key: &str, kind: Kind) -> Result<Option<f64>, ToolError> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read_value(v, key, kind).map(Some),
    }
}

fn molar_mass(params: &Value) -> Result<Value, ToolError> {
    let text = text(params, "formula")?;
    let s = parse_species(text)?;
    if s.coefficient.is_some() {
        return Err(ToolError::invalid_params(format!(
            "formula `{text}` starts with a coefficient; give the formula alone"
        )));
    }
    if s.counts.is_empty() {
        return Err(ToolError::invalid_params(
            "an electron has no molar mass here",
        ));
    }
    let total = s.molar_mass();
    let mut composition = Map::new();
    for (e, n) in s.hill() {
        let mass = e.weight * n as f64;
        composition.insert(
            e.symbol.into(),
            json!({"count": n, "mass": mass, "mass_fraction": mass / total}),
        );
    }
    let mut out = Map::new();
    out.insert("formula".into(), json!(s.text));
    out.insert("hill_formula".into(), json!(s.hill_formula()));
    out.insert("molar_mass".into(), num(total, "the molar mass")?);
    out.insert("unit".into(), json!("g/mol"));
    out.insert("charge".into(), json!(s.charge));
    out.insert("composition".into(), Value::Object(composition));
    let mut notes = s.notes.clone();
    let estimated: Vec<&str> = s
        .hill()
        .iter()
        .filter(|(e, _)| e.weight_kind == "mass_number")
        .map(|(e, _)| e.symbol)
        .collect();
    if !estimated.is_empty() {
        notes.push(format!(
            "{} has no standard atomic weight; the mass number of its longest-lived isotope is used",
            estimated.join(", ")
        ));
    }
    if !notes.is_empty() {
        out.insert("notes".into(), json!(notes));
    }
    Ok(Value::Object(out))
}

/// The equation in `params`, balanced: the equation, its coefficients as integers, and the text.
fn balanced(params: &Value) -> Result<(Equation, Vec<i64>, String), ToolError> {
    let eq = parse_equation(text(params, "equation")?)?;
    let big = balance(&eq)?;
    let coefficients = big
        .iter()
        .map(|c| c.to_i64())
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| ToolError::limit("a coefficient does not fit 64 bits"))?;
    let text = render(&eq, &big);
    Ok((eq, coefficients, text))
}

fn balance_op(params: &Value) -> Result<Value, ToolError> {
    let (eq, coefficients, written) = balanced(params)?;
    let nr = eq.reactants.len();
    let side = |list: &[Species], cs: &[i64]| -> Vec<Value> {
        list.iter()
            .zip(cs)
            .map(|(s, c)| json!({"species": s.text, "coefficient": c}))
            .collect()
    };
    let mut out = json!({
        "coefficients": coefficients,
        "balanced": written,
        "reactants": side(&eq.reactants, &coefficients[..nr]),
        "products": side(&eq.products, &coefficients[nr..]),
    });
    let notes: Vec<&String> = eq.species().flat_map(|s| &s.notes).collect();
    if !notes.is_empty() {
        out["notes"] = json!(notes);
    }
    Ok(out)
}

/// Moles of `species` from a `{"mass": …}` / `{"moles": …}` object or a string with a unit of mass or amount, and
/// the grams when it was given as a mass: echoed as given rather than as moles times molar mass (`1 kg` is
/// 1000, not 999.9999999999999).
fn amount_of(v: &Value, key: &str, s: &Species) -> Result<(f64, Option<f64>), ToolError> {
    let m = s.molar_mass();
    let mut grams_given = None;
    let mut from_mass = |grams: f64| -> Result<f64, ToolError> {
        if m == 0.0 {
            return Err(ToolError::invalid_params(format!(
                "`{key}`: {} has no molar mass; give moles",
                s.text
            )));
        }
        grams_given = Some(grams);
        Ok(grams / m)
    };
    let moles = match v {
        Value::Object(o) => {
            let has = |k: &str| o.get(k).is_some_and(|x| !x.is_null());
            match (has("mass"), has("moles")) {
                (true, false) => from_mass(read(v, "mass", GRAMS)?.unwrap_or_default())?,
                (false, true) => read(v, "moles", MOLES)?.unwrap_or_default(),
                _ => {
                    return Err(ToolError::invalid_params(format!(
                        "`{key}` needs exactly one of `mass` and `moles`"
                    )))
                }
            }
        }
        Value::String(t) => match read_value(v, key, MOLES) {
            Ok(n) => n,
            Err(_) => from_mass(read_value(v, key, GRAMS).map_err(|_| {
                ToolError::invalid_params(format!(
                    "`{key}`: `{t}` is neither a mass nor an amount of substance (write \"10 g\" or \"0.5 mol\")"
                ))
            })?)?,
        },
        _ => {
            return Err(ToolError::invalid_params(format!(
                "`{key}` must be {{\"mass\": grams}}, {{\"moles\": mol}} or a string with a unit (\"10 g\", \"0.5 mol\")"
            )))
        }
    };
    if moles.is_finite() && moles >= 0.0 {
        Ok((moles, grams_given))
    } else {
        Err(ToolError::invalid_params(format!(
            "`{key}` must not be negative"
        )))
    }
}

fn stoichiometry(params: &Value) -> Result<Value, ToolError> {
    let (eq, coefficients, written) = balanced(params)?;
    let given = &params["given"];
    let given_name = given["substance"]
        .as_str()
        .ok_or_else(|| ToolError::invalid_params("`given.substance` is required (a string)"))?;
    let (gi, _) = eq.find(given_name)?;
    let species: Vec<&Species> = eq.species().collect();
    let mut amount = given.clone();
    if let Some(o) = amount.as_object_mut() {
        o.remove("substance");
    }
    let (n_given, grams_given) = amount_of(&amount, "given", species[gi])?;
    let find = text(params, "find")?;
    let (fi, _) = eq.find(find)?;
    let n_find = n_given * coefficients[fi] as f64 / coefficients[gi] as f64;
    let entry = |i: usize, n: f64, grams: Option<f64>| -> Result<Value, ToolError> {
        Ok(json!({
            "substance": species[i].text,
            "moles": num(n, "an amount")?,
            "mass": num(grams.unwrap_or(n * species[i].molar_mass()), "a mass")?,
            "molar_mass": species[i].molar_mass(),
        }))
    };
    Ok(json!({
        "balanced": written,
        "coefficients": coefficients,
        "given": entry(gi, n_given, grams_given)?,
        "find": entry(fi, n_find, None)?,
    }))
}

fn limiting_reagent(params: &Value) -> Result<Value, ToolError> {
    let (eq, coefficients, written) = balanced(params)?;
    let species: Vec<&Species> = eq.species().collect();
    let amounts = params["amounts"]
        .as_object()
        .filter(|o| !o.is_empty())
        .ok_or_else(|| ToolError::invalid_params("`amounts` must map reactants to amounts"))?;
    let mut given: Vec<(usize, f64, Option<f64>)> = Vec::new();
    for (name, v) in amounts {
        let (i, reactant) = eq.find(name)?;
        if !reactant {
            return Err(ToolError::invalid_params(format!(
                "`{name}` is a product; `amounts` lists reactants"
            )));
        }
        if given.iter().any(|(j, _, _)| *j == i) {
            return Err(ToolError::invalid_params(format!(
                "`{name}` is given twice"
            )));
        }
        let (n, grams) = amount_of(v, &format!("amounts.{name}"), species[i])?;
        given.push((i, n, grams));
    }
    given.sort_by_key(|(i, _, _)| *i);
    let (limiting, extent) = given
        .iter()
        .map(|&(i, n, _)| (i, n / coefficients[i] as f64))
        .fold((usize::MAX, f64::INFINITY), |best, cur| {
            if cur.1 < best.1 {
                cur
            } else {
                best
            }
        });
    let mut reactants = Map::new();
    for &(i, n, grams) in &given {
        let m = species[i].molar_mass();
        // The limiting reagent is used up exactly, as given.
        let (used, left) = if i == limiting {
            (n, 0.0)
        } else {
            let used = extent * coefficients[i] as f64;
            (used, (n - used).max(0.0))
        };
        let mass = grams.unwrap_or(n * m);
        let mass_used = if i == limiting { mass } else { used * m };
        reactants.insert(
            species[i].text.clone(),
            json!({
                "moles": n, "mass": mass, "moles_used": used, "mass_used": mass_used,
                "moles_left": left, "mass_left": left * m,
            }),
        );
    }
    let nr = eq.reactants.len();
    let mut products = Map::new();
    for (i, s) in species.iter().enumerate().skip(nr) {
        let n = extent * coefficients[i] as f64;
        products.insert(
            s.text.clone(),
            json!({"moles": n, "mass": n * s.molar_mass()}),
        );
    }
    Ok(json!({
        "balanced": written,
        "coefficients": coefficients,
        "limiting_reagent": species.get(limiting).map(|s| s.text.clone()),
        "extent": num(extent, "the extent of reaction")?,
        "reactants": reactants,
        "theoretical_yield": products,
    }))
}

/// Acid or base constants from `k` (a number or a list) or `pk`, validated.
fn constants(params: &Value, k: &str, pk: &str) -> Result<Vec<f64>, ToolError> {
    let list = |key: &str| -> Result<Vec<f64>, ToolError> {
        let v = &params[key];
        let items: Vec<&Value> = match v {
            Value::Array(a) => a.iter().collect(),
            Value::Null => return Ok(Vec::new()),
            other => vec![other],
        };
        if items.is_empty() || items.len() > MAX_CONSTANTS {
            return Err(ToolError::invalid_params(format!(
                "`{key}` takes 1 to {MAX_CONSTANTS} values"
            )));
        }
        items
            .iter()
            .map(|x| {
                // `"1.8e-5"` is read as the tool reads its other numbers given as text.
                x.as_f64()
                    .or_else(|| x.as_str().and_then(|s| s.trim().parse::<f64>().ok()))
                    .filter(|f| f.is_finite())
                    .ok_or_else(|| {
                        ToolError::invalid_params(format!(
                            "`{key}` must hold numbers (or numeric strings such as \"1.8e-5\"), got {x}"
                        ))
                    })
            })
            .collect()
    };
    let direct = list(k)?;
    let from_p = list(pk)?;
    match (direct.is_empty(), from_p.is_empty()) {
        (false, false) => Err(ToolError::invalid_params(format!(
            "give `{k}` or `{pk}`, not both"
        ))),
        (false, true) => direct.into_iter().map(|x| positive(x, k)).collect(),
        (true, false) => from_p
            .into_iter()
            .map(|p| {
                let x = 10f64.powf(-p);
                if x > 0.0 && x.is_finite() {
                    Ok(x)
                } else {
                    Err(ToolError::invalid_params(format!(
                        "`{pk}` {p} is out of range"
                    )))
                }
            })
            .collect(),
        (true, true) => Ok(Vec::new()),
    }
}

fn ph(params: &Value) -> Result<Value, ToolError> {
    let c = positive(
        read(params, "concentration", MOLAR)?
            .ok_or_else(|| ToolError::invalid_params("`concentration` is required"))?,
        "concentration",
    )?;
    // Without `type`, a constant says which it is: `ka`/`pka` belong to an acid, `kb`/`pkb` to a base.
    let has = |k: &str| !params[k].is_null();
    let kind = match params["type"].as_str() {
        Some(kind) => kind,
        None if (has("ka") || has("pka")) && !has("kb") && !has("pkb") => "acid",
        None if (has("kb") || has("pkb")) && !has("ka") && !has("pka") => "base",
        None => text(params, "type")?,
    };
    let acid = match kind {
        "acid" => true,
        "base" => false,
        other => {
            return Err(ToolError::invalid_params(format!(
                "`type` is `acid` or `base`, not `{other}`"
            )))
        }
    };
    let (k, pk, other_k) = if acid {
        ("ka", "pka", ["kb", "pkb"])
    } else {
        ("kb", "pkb", ["ka", "pka"])
    };
    for o in other_k {
        if !params[o].is_null() {
            return Err(ToolError::invalid_params(format!(
                "`{o}` belongs to the other type; a{} takes `{k}` or `{pk}`",
                if acid { "n acid" } else { " base" }
            )));
        }
    }
    let ks = constants(params, k, pk)?;
    let strong = params["strong"].as_bool().unwrap_or(ks.is_empty());
    if strong && !ks.is_empty() {
        return Err(ToolError::invalid_params(format!(
            "a strong {kind} dissociates fully and takes no `{k}`; set `strong` to false for a weak one"
        )));
    }
    if !strong && ks.is_empty() {
        return Err(ToolError::invalid_params(format!(
            "a weak {kind} needs `{k}` or `{pk}`"
        )));
    }
    let equivalents = match &params["equivalents"] {
        Value::Null => 1.0,
        _ if !strong => {
            return Err(ToolError::invalid_params(
                "`equivalents` is for strong acids and bases; give a weak one's constants as a list",
            ));
        }
        v => {
            v.as_u64().filter(|n| (1..=10).contains(n)).ok_or_else(|| {
                ToolError::invalid_params("`equivalents` is an integer from 1 to 10")
            })? as f64
        }
    };
    let temperature = read(params, "temperature", KELVIN)?;
    let pkw = solution::pkw(temperature)?;
    let kw = 10f64.powf(-pkw);
    let x = solution::ion_concentration(c, &ks, equivalents, kw);
    let (h, oh) = if acid { (x, kw / x) } else { (kw / x, x) };
    let p_h = -h.log10();
    let approx = if strong {
        -(c * equivalents).log10()
    } else {
        -(ks[0] * c).sqrt().log10()
    };
    let approximate_ph = if acid { approx } else { pkw - approx };
    let mut out = json!({
        "pH": num(p_h, "pH")?,
        "pOH": num(pkw - p_h, "pOH")?,
        "H+_concentration": num(h, "[H+]")?,
        "OH-_concentration": num(oh, "[OH-]")?,
        "pKw": pkw,
        "approximate_pH": num(approximate_ph, "the approximate pH")?,
    });
    if !strong {
        out["percent_ionization"] =
            num(100.0 * solution::ionised_fraction(x, &ks), "the ionisation")?;
    }
    let off = (approximate_ph - p_h).abs();
    out["approximation_valid"] = json!(off <= SHORTCUT_TOLERANCE);
    if off > SHORTCUT_TOLERANCE {
        // `approx` is the shortcut's p[H⁺] (p[OH⁻] for a base): past 6, water's 1e-7 M is no longer small.
        let (shortcut, why) = if strong {
            (
                "-log C",
                "at this dilution the water's own ions are not negligible",
            )
        } else if approx > 6.0 {
            (
                "-log sqrt(K C)",
                "the ions from water are not negligible against the weak one's",
            )
        } else {
            ("-log sqrt(K C)", "K is not small against C, so the dissociated part is not negligible (the quadratic, or here the full balance, is needed)")
        };
        out["notes"] = json!([format!(
            "the textbook shortcut {shortcut} gives pH {approximate_ph:.3}, {off:.3} from the exact {p_h:.3}: {why}; approximate_pH is shown for comparison only"
        )]);
    }
    Ok(out)
}

fn buffer(params: &Value) -> Result<Value, ToolError> {
    let ca = read(params, "acid_concentration", MOLAR)?
        .ok_or_else(|| ToolError::invalid_params("`acid_concentration` is required"))?;
    let cb = read(params, "base_concentration", MOLAR)?
        .ok_or_else(|| ToolError::invalid_params("`base_concentration` is required"))?;
    if !(ca >= 0.0 && cb >= 0.0) || ca + cb == 0.0 {
        return Err(ToolError::invalid_params(
            "the concentrations must not be negative, and not both 0",
        ));
    }
    let ks = constants(params, "ka", "pka")?;
    let [ka] = ks[..] else {
        return Err(ToolError::invalid_params(
            "a buffer needs one `ka` or `pka`",
        ));
    };
    let pkw = solution::pkw(read(params, "temperature", KELVIN)?)?;
    let kw = 10f64.powf(-pkw);
    let h = solution::buffer_h(ca, cb, ka, kw);
    let p_h = -h.log10();
    let hh = if ca > 0.0 && cb > 0.0 {
        json!(-ka.log10() + (cb / ca).log10())
    } else {
        Value::Null
    };
    Ok(json!({
        "pH": num(p_h, "pH")?,
        "pOH": pkw - p_h,
        "H+_concentration": h,
        "OH-_concentration": kw / h,
        "henderson_hasselbalch": hh,
    }))
}

/// Exactly `n` of `keys` given: their values (absent ones `None`).
fn exactly(params: &Value, keys: &[(&str, Kind)], n: usize) -> Result<Vec<Option<f64>>, ToolError> {
    let vals = keys
        .iter()
        .map(|(k, kind)| read(params, k, *kind))
        .collect::<Result<Vec<_>, _>>()?;
    if vals.iter().filter(|v| v.is_some()).count() != n {
        let names: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
        return Err(ToolError::invalid_params(format!(
            "give exactly {n} of {} (the other is computed)",
            names.join(", ")
        )));
    }
    for ((k, _), v) in keys.iter().zip(&vals) {
        if let Some(x) = v {
            positive(*x, k)?;
        }
    }
    Ok(vals)
}

fn dilution(params: &Value) -> Result<Value, ToolError> {
    let v = exactly(
        params,
        &[("c1", MOLAR), ("v1", LITRES), ("c2", MOLAR), ("v2", LITRES)],
        3,
    )?;
    let (c1, v1, c2, v2) = match (v[0], v[1], v[2], v[3]) {
        (None, Some(v1), Some(c2), Some(v2)) => (c2 * v2 / v1, v1, c2, v2),
        (Some(c1), None, Some(c2), Some(v2)) => (c1, c2 * v2 / c1, c2, v2),
        (Some(c1), Some(v1), None, Some(v2)) => (c1, v1, c1 * v1 / v2, v2),
        (Some(c1), Some(v1), Some(c2), _) => (c1, v1, c2, c1 * v1 / c2),
        _ => {
            return Err(ToolError::invalid_params(
                "give exactly three of c1, v1, c2, v2",
            ))
        }
    };
    if c2 > c1 * (1.0 + 1e-12) {
        return Err(ToolError::domain(format!(
            "c2 ({c2} mol/L) above c1 ({c1} mol/L) is a concentration, not a dilution"
        )));
    }
    Ok(json!({
        "c1": num(c1, "c1")?, "v1": num(v1, "v1")?, "c2": num(c2, "c2")?, "v2": num(v2, "v2")?,
        "solvent_added": num(v2 - v1, "the solvent added")?,
    }))
}

/// Moles from `moles`, or from `mass` and `formula`; with the species' molar mass when a formula is given.
fn moles_of(params: &Value) -> Result<(Option<f64>, Option<f64>), ToolError> {
    let m = match params.get("formula").and_then(Value::as_str) {
        Some(f) => {
            let s = parse_species(f)?;
            Some(s.molar_mass()).filter(|m| *m > 0.0)
        }
        None => None,
    };
    let moles = read(params, "moles", MOLES)?;
    let mass = read(params, "mass", GRAMS)?;
    let n = match (moles, mass, m) {
        (Some(_), Some(_), _) => {
            return Err(ToolError::invalid_params(
                "give `moles` or `mass`, not both",
            ))
        }
        (Some(n), None, _) => Some(n),
        (None, Some(g), Some(m)) => Some(g / m),
        (None, Some(_), None) => {
            return Err(ToolError::invalid_params(
                "`mass` needs the `formula` of the substance",
            ))
        }
        (None, None, _) => None,
    };
    if let Some(n) = n {
        positive(n, "moles")?;
    }
    Ok((n, m))
}

fn molarity(params: &Value) -> Result<Value, ToolError> {
    let (n, m) = moles_of(params)?;
    let c = read(params, "molarity", MOLAR)?;
    let v = read(params, "volume", LITRES)?;
    let (n, c, v) = match (n, c, v) {
        (Some(n), None, Some(v)) => (n, n / positive(v, "volume")?, v),
        (Some(n), Some(c), None) => (n, c, n / positive(c, "molarity")?),
        (None, Some(c), Some(v)) => (positive(c, "molarity")? * positive(v, "volume")?, c, v),
        _ => {
            return Err(ToolError::invalid_params(
                "give exactly two of: the amount (`moles`, or `mass` and `formula`), `molarity`, `volume`",
            ))
        }
    };
    let mut out = json!({"molarity": num(c, "molarity")?, "volume": num(v, "volume")?, "moles": num(n, "moles")?});
    if let Some(m) = m {
        out["mass"] = num(n * m, "the mass")?;
        out["molar_mass"] = json!(m);
    }
    Ok(out)
}

fn ideal_gas(params: &Value) -> Result<Value, ToolError> {
    let (n, _) = moles_of(params)?;
    let p = read(params, "pressure", PASCALS)?;
    let v = read(params, "volume", LITRES)?.map(|l| l * 1e-3);
    let t = read(params, "temperature", KELVIN)?;
    let given = [p, v, n, t];
    if given.iter().filter(|x| x.is_some()).count() < 3 {
        return Err(ToolError::invalid_params(
            "give three of pressure, volume, moles (or mass and formula), temperature",
        ));
    }
    for (x, k) in given
        .iter()
        .zip(["pressure", "volume", "moles", "temperature"])
    {
        if let Some(x) = x {
            positive(*x, k)?;
        }
    }
    let r = GAS_CONSTANT;
    // All four: the temperature is redundant, held to the rule `physics` uses (agreeing, or within 0.1 % with a
    // note: textbook data are rounded).
    let mut notes = Vec::new();
    let given = match given {
        [Some(p), Some(v), Some(n), Some(t)] => {
            notes.extend(beaker_units::quantity::agreement(
                "temperature",
                t,
                p * v / (n * r),
                "K",
                "pressure, volume and moles",
            )?);
            [Some(p), Some(v), Some(n), None]
        }
        g => g,
    };
    let (p, v, n, t) = match given {
        [None, Some(v), Some(n), Some(t)] => (n * r * t / v, v, n, t),
        [Some(p), None, Some(n), Some(t)] => (p, n * r * t / p, n, t),
        [Some(p), Some(v), None, Some(t)] => (p, v, p * v / (r * t), t),
        [Some(p), Some(v), Some(n), _] => (p, v, n, p * v / (n * r)),
        _ => {
            return Err(ToolError::invalid_params(
                "give exactly three of P, V, n, T",
            ))
        }
    };
    let mut out = json!({
        "pressure": num(p, "the pressure")?, "pressure_atm": p / ATM,
        "volume": num(v, "the volume")?, "volume_L": v * 1e3,
        "moles": num(n, "the amount")?,
        "temperature": num(t, "the temperature")?, "temperature_celsius": t - 273.15,
    });
    if !notes.is_empty() {
        out["notes"] = json!(notes);
    }
    Ok(out)
}

fn empirical_formula(params: &Value) -> Result<Value, ToolError> {
    let comp = params["composition"]
        .as_object()
        .filter(|o| !o.is_empty())
        .ok_or_else(|| {
            ToolError::invalid_params("`composition` maps element symbols to mass percentages")
        })?;
    if comp.len() > 118 {
        return Err(ToolError::limit(
            "`composition` has more elements than exist",
        ));
    }
    let mut moles: Vec<(&'static elements::Element, f64)> = Vec::new();
    for (sym, v) in comp {
        let e = elements::by_symbol(sym.trim()).ok_or_else(|| {
            ToolError::invalid_params(format!("`{sym}` is not an element symbol"))
        })?;
        let x = v
            .as_f64()
            .filter(|x| x.is_finite() && *x > 0.0)
            .ok_or_else(|| {
                ToolError::invalid_params(format!("`composition.{sym}` must be a positive number"))
            })?;
        moles.push((e, x / e.weight));
    }
    let least = moles.iter().map(|(_, n)| *n).fold(f64::INFINITY, f64::min);
    let ratios: Vec<f64> = moles.iter().map(|(_, n)| n / least).collect();
    let mult = (1..=MAX_MULTIPLIER)
        .find(|&k| {
            ratios
                .iter()
                .all(|r| (r * f64::from(k) - (r * f64::from(k)).round()).abs() <= RATIO_TOLERANCE)
        })
        .ok_or_else(|| {
            ToolError::domain(format!(
                "no whole-number ratio with a multiplier up to {MAX_MULTIPLIER} fits within {RATIO_TOLERANCE} (ratios {ratios:?})"
            ))
        })?;
    let counts: std::collections::BTreeMap<u32, i64> = moles
        .iter()
        .zip(&ratios)
        .map(|((e, _), r)| (e.number, (r * f64::from(mult)).round() as i64))
        .collect();
    let empirical = Species {
        text: String::new(),
        counts,
        charge: 0,
        coefficient: None,
        notes: Vec::new(),
    };
    let m_emp = empirical.molar_mass();
    let mut ratio = Map::new();
    for ((e, _), r) in moles.iter().zip(&ratios) {
        ratio.insert(e.symbol.into(), json!(r));
    }
    let mut out = json!({
        "empirical_formula": empirical.hill_formula(),
        "empirical_molar_mass": m_emp,
        "mole_ratio": ratio,
    });
    if let Some(m) = params.get("molar_mass").filter(|v| !v.is_null()) {
        let m = read_value(m, "molar_mass", Kind::new(MOLAR_MASS, "g/mol"))?;
        let k = (m / m_emp).round();
        if k < 1.0 || ((m / m_emp) - k).abs() > 0.05 * k {
            return Err(ToolError::domain(format!(
                "molar mass {m} g/mol is not a whole multiple of the empirical formula's {m_emp} g/mol"
            )));
        }
        let molecular = Species {
            counts: empirical
                .counts
                .iter()
                .map(|(z, n)| (*z, n * k as i64))
                .collect(),
            ..empirical.clone()
        };
        out["molecular_formula"] = json!(molecular.hill_formula());
        out["multiplier"] = json!(k as i64);
        out["molecular_molar_mass"] = json!(molecular.molar_mass());
    }
    Ok(out)
}

fn element(params: &Value) -> Result<Value, ToolError> {
    let given: Vec<&str> = ["symbol", "name", "number"]
        .into_iter()
        .filter(|k| !params[*k].is_null())
        .collect();
    if given.len() != 1 {
        return Err(ToolError::invalid_params(
            "give one of `symbol`, `name`, `number`",
        ));
    }
    let e = match given[0] {
        "symbol" => {
            let s = text(params, "symbol")?;
            elements::by_symbol(s.trim()).ok_or_else(|| {
                ToolError::invalid_params(format!("`{s}` is not an element symbol (symbols are case-sensitive: `Co`, `CO` is a molecule)"))
            })?
        }
        "name" => {
            let s = text(params, "name")?;
            elements::by_name(s)
                .ok_or_else(|| ToolError::invalid_params(format!("no element is named `{s}`")))?
        }
        _ => {
            let z = params["number"].as_u64().ok_or_else(|| {
                ToolError::invalid_params("`number` is an atomic number from 1 to 118")
            })?;
            elements::by_number(z).ok_or_else(|| {
                ToolError::invalid_params(format!("no element has atomic number {z} (1 to 118)"))
            })?
        }
    };
    Ok(json!({
        "symbol": e.symbol,
        "name": e.name,
        "atomic_number": e.number,
        "atomic_weight": e.weight,
        "atomic_weight_kind": e.weight_kind,
        "group": e.group,
        "period": e.period,
        "block": e.block,
        "electronegativity": e.electronegativity,
        "electron_configuration": elements::configuration_short(e.number),
        "electron_configuration_full": elements::configuration_full(e.number),
    }))
}
