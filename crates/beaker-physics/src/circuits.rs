//! Circuits: resistor, capacitor and inductor combinations (exact rationals; networks by nodal analysis),
//! Ohm's law and power, RC and RL transients.

use super::{
    choice, nearest, opt, positive, redundant, req, Out, AMPERES, FARADS, HENRIES, OHMS, SECONDS,
    VOLTS, WATTS,
};
use beaker_core::{CallContext, ToolError};
use beaker_units::quantity::{self, Kind};
use rug::{Float, Rational};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Most components in a `series` or `parallel` list, or edges in a `network`.
const MAX_PARTS: usize = 10_000;
/// Most distinct nodes in a `network` once wires (0 Ω) are merged: exact elimination is cubic in them.
const MAX_NODES: usize = 100;
/// Networks with at most this many unknown potentials are first solved in exact rationals.
const MAX_EXACT_NODES: usize = 30;
/// Largest numerator-plus-denominator size, in bits, an exact elimination may reach before floats take over.
const MAX_EXACT_BITS: u32 = 2048;
/// Precision of the float elimination, in bits.
const FLOAT_BITS: u32 = 256;
/// An exact result is shown as a fraction only while it stays this short.
const MAX_EXACT_CHARS: usize = 40;

/// The values of a `series` or `parallel` list, exact, each above zero.
fn parts(p: &Value, key: &str, kind: Kind) -> Result<Option<Vec<Rational>>, ToolError> {
    let items = match p.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) if !items.is_empty() => items,
        Some(other) => {
            return Err(ToolError::invalid_params(format!(
                "`{key}` must be a non-empty list of values (numbers in {} or strings with units), got {other}",
                kind.bare_unit
            )))
        }
    };
    if items.len() > MAX_PARTS {
        return Err(ToolError::limit(format!(
            "`{key}` has {} values; the limit is {MAX_PARTS}",
            items.len()
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let name = format!("{key}[{i}]");
            let x = quantity::read_rational(v, &name, kind)?;
            if x <= 0 {
                return Err(ToolError::invalid_params(format!(
                    "`{name}` must be positive, got {}",
                    nearest(&x)
                )));
            }
            Ok(x)
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn sum(xs: &[Rational]) -> Rational {
    xs.iter().fold(Rational::new(), |acc, x| acc + x)
}

fn harmonic(xs: &[Rational]) -> Rational {
    xs.iter()
        .fold(Rational::new(), |acc, x| {
            acc + Rational::from(x.recip_ref())
        })
        .recip()
}

/// Puts `key` (rounded once from the exact value) and, when it is short, the exact fraction beside it.
fn exact(out: &mut Out, key: &str, x: &Rational, unit: &str) -> Result<(), ToolError> {
    out.put(key, nearest(x), unit)?;
    if *x.denom() != 1 {
        let text = x.to_string();
        if text.len() <= MAX_EXACT_CHARS {
            out.set(&format!("{key}_exact"), Value::String(text));
        }
    }
    Ok(())
}

/// Series and parallel combination; `in_series_adds` is true for resistors and inductors.
fn combine(
    p: &Value,
    kind: Kind,
    key: &str,
    unit: &str,
    in_series_adds: bool,
) -> Result<Value, ToolError> {
    let series = parts(p, "series", kind)?;
    let parallel = parts(p, "parallel", kind)?;
    let x = match (series, parallel) {
        (Some(xs), None) if in_series_adds => sum(&xs),
        (Some(xs), None) => harmonic(&xs),
        (None, Some(xs)) if in_series_adds => harmonic(&xs),
        (None, Some(xs)) => sum(&xs),
        _ => {
            return Err(ToolError::invalid_params(
                "give one list: `series` or `parallel`",
            ))
        }
    };
    let mut out = Out::new();
    exact(&mut out, key, &x, unit)?;
    Ok(out.done())
}

/// `resistors`: series, parallel, or the resistance between two nodes of a network.
pub(super) fn resistors(p: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let has = |k: &str| p.get(k).is_some_and(|v| !v.is_null());
    if has("network") || has("between") {
        if has("series") || has("parallel") {
            return Err(ToolError::invalid_params(
                "give a `network` (with `between`) or a `series`/`parallel` list, not both",
            ));
        }
        let mut out = Out::new();
        match network(p, ctx)? {
            Resistance::Exact(r) => exact(&mut out, "equivalent_resistance", &r, "ohm")?,
            Resistance::Float(r) => out.put("equivalent_resistance", r, "ohm")?,
        }
        return Ok(out.done());
    }
    combine(p, OHMS, "equivalent_resistance", "ohm", true)
}

/// `capacitors`: series (reciprocals add) or parallel (values add).
pub(super) fn capacitors(p: &Value) -> Result<Value, ToolError> {
    combine(p, FARADS, "equivalent_capacitance", "F", false)
}

/// `inductors`: series (values add) or parallel (reciprocals add), without mutual inductance.
pub(super) fn inductors(p: &Value) -> Result<Value, ToolError> {
    combine(p, HENRIES, "equivalent_inductance", "H", true)
}

/// A node name: a string, or a number written as one.
fn node_name(v: &Value, what: &str) -> Result<String, ToolError> {
    match v {
        Value::String(s) if !s.is_empty() && s.len() <= 100 => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(ToolError::invalid_params(format!(
            "{what} must be a node name (a short string), got {other}"
        ))),
    }
}

/// Union–find root, with path halving.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The resistance between `between[0]` and `between[1]`: inject 1 A at one, ground the other, solve the
/// reduced Laplacian (exactly while that stays cheap). Wires (0 Ω) merge their nodes first.
fn network(p: &Value, ctx: &CallContext) -> Result<Resistance, ToolError> {
    let Some(edges) = p
        .get("network")
        .and_then(Value::as_array)
        .filter(|e| !e.is_empty())
    else {
        return Err(ToolError::invalid_params(
            "`network` must be a non-empty list of {\"from\": node, \"to\": node, \"resistance\": R}",
        ));
    };
    if edges.len() > MAX_PARTS {
        return Err(ToolError::limit(format!(
            "`network` has {} edges; the limit is {MAX_PARTS}",
            edges.len()
        )));
    }
    let ends =
        match p.get("between").and_then(Value::as_array) {
            Some(b) if b.len() == 2 => [
                node_name(&b[0], "`between[0]`")?,
                node_name(&b[1], "`between[1]`")?,
            ],
            _ => return Err(ToolError::invalid_params(
                "`between` must be a list of the two nodes to measure across, e.g. [\"a\", \"b\"]",
            )),
        };
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut parsed = Vec::with_capacity(edges.len());
    for (i, e) in edges.iter().enumerate() {
        let Some(obj) = e.as_object() else {
            return Err(ToolError::invalid_params(format!(
                "`network[{i}]` must be {{\"from\": node, \"to\": node, \"resistance\": R}}, got {e}"
            )));
        };
        if let Some(k) = obj
            .keys()
            .find(|k| !["from", "to", "resistance"].contains(&k.as_str()))
        {
            return Err(ToolError::invalid_params(format!(
                "`network[{i}].{k}` is not a key of an edge (from, to, resistance)"
            )));
        }
        let mut node = |k: &str| -> Result<usize, ToolError> {
            let name = node_name(
                &obj.get(k).cloned().unwrap_or(Value::Null),
                &format!("`network[{i}].{k}`"),
            )?;
            let next = index.len();
            Ok(*index.entry(name).or_insert(next))
        };
        let (a, b) = (node("from")?, node("to")?);
        let name = format!("network[{i}].resistance");
        let r = obj
            .get("resistance")
            .ok_or_else(|| ToolError::invalid_params(format!("`{name}` is required")))
            .and_then(|v| quantity::read_rational(v, &name, OHMS))?;
        if r < 0 {
            return Err(ToolError::invalid_params(format!(
                "`{name}` must not be negative, got {}",
                nearest(&r)
            )));
        }
        parsed.push((a, b, r));
    }
    let mut ids = [0usize; 2];
    for (j, name) in ends.iter().enumerate() {
        ids[j] = *index.get(name).ok_or_else(|| {
            ToolError::invalid_params(format!(
                "`between[{j}]`: no edge of the network touches node `{name}`"
            ))
        })?;
    }
    let mut parent: Vec<usize> = (0..index.len()).collect();
    for (a, b, r) in &parsed {
        if *r == 0 {
            let (ra, rb) = (root(&mut parent, *a), root(&mut parent, *b));
            parent[ra] = rb;
        }
    }
    let (src, dst) = (root(&mut parent, ids[0]), root(&mut parent, ids[1]));
    if src == dst {
        return Ok(Resistance::Exact(Rational::new()));
    }
    // Conductances between merged nodes, parallel edges summed, self-loops dropped (they carry no current).
    let mut links: BTreeMap<(usize, usize), Rational> = BTreeMap::new();
    for (a, b, r) in &parsed {
        let (ra, rb) = (root(&mut parent, *a), root(&mut parent, *b));
        if *r != 0 && ra != rb {
            *links.entry((ra.min(rb), ra.max(rb))).or_default() += Rational::from(r.recip_ref());
        }
    }
    // Only the part connected to the source matters; elsewhere the Laplacian would be singular.
    let mut reached = vec![false; parent.len()];
    reached[src] = true;
    let mut stack = vec![src];
    while let Some(n) = stack.pop() {
        for &(a, b) in links.keys() {
            for (x, y) in [(a, b), (b, a)] {
                if x == n && !reached[y] {
                    reached[y] = true;
                    stack.push(y);
                }
            }
        }
    }
    if !reached[dst] {
        return Err(ToolError::domain(format!(
            "no path between `{}` and `{}`: they are not connected (an open circuit)",
            ends[0], ends[1]
        )));
    }
    // Unknown potentials: every reached node but the grounded one.
    let mut slot = vec![usize::MAX; parent.len()];
    let mut n = 0;
    for (i, r) in reached.iter().enumerate() {
        if *r && i != dst {
            slot[i] = n;
            n += 1;
        }
    }
    if n + 1 > MAX_NODES {
        return Err(ToolError::limit(format!(
            "the part of the network connected to `{}` has {} nodes; the limit is {MAX_NODES}",
            ends[0],
            n + 1
        )));
    }
    let mut m = vec![vec![Rational::new(); n + 1]; n];
    for ((a, b), g) in &links {
        if !reached[*a] {
            continue;
        }
        for (x, y) in [(*a, *b), (*b, *a)] {
            if x != dst {
                m[slot[x]][slot[x]] += g;
                if y != dst {
                    m[slot[x]][slot[y]] -= g;
                }
            }
        }
    }
    m[slot[src]][n] = Rational::from(1);
    let at = slot[src];
    if n <= MAX_EXACT_NODES {
        if let Some(x) = solve_exact(m.clone(), at, ctx)? {
            return Ok(Resistance::Exact(x));
        }
    }
    solve_float(&m, at, ctx).map(Resistance::Float)
}

/// The equivalent resistance of a network, exact when that stayed cheap.
enum Resistance {
    Exact(Rational),
    Float(f64),
}

/// Gaussian elimination of the augmented system `m` in rationals, giving unknown `at`; `None` once an entry
/// outgrows [`MAX_EXACT_BITS`] (dense networks of many distinct resistances: the floats take over).
/// The reduced Laplacian of a connected graph is positive definite, so every pivot is positive.
fn solve_exact(
    mut m: Vec<Vec<Rational>>,
    at: usize,
    ctx: &CallContext,
) -> Result<Option<Rational>, ToolError> {
    let n = m.len();
    for col in 0..n {
        ctx.checkpoint()?;
        let (top, rest) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for row in rest.iter_mut() {
            if row[col] == 0 {
                continue;
            }
            let factor = Rational::from(&row[col] / &pivot_row[col]);
            for k in col..=n {
                let delta = Rational::from(&factor * &pivot_row[k]);
                row[k] -= delta;
                if row[k].numer().significant_bits() + row[k].denom().significant_bits()
                    > MAX_EXACT_BITS
                {
                    return Ok(None);
                }
            }
        }
    }
    let mut x = vec![Rational::new(); n];
    for row in (0..n).rev() {
        let mut acc = m[row][n].clone();
        for k in row + 1..n {
            acc -= Rational::from(&m[row][k] * &x[k]);
        }
        x[row] = acc / &m[row][row];
    }
    Ok(Some(x.swap_remove(at)))
}

/// The same elimination in [`FLOAT_BITS`]-bit floats: cubic in the nodes with a fixed cost per step, and
/// accurate to a double for any network whose condition number is below 2^(FLOAT_BITS − 53).
fn solve_float(m: &[Vec<Rational>], at: usize, ctx: &CallContext) -> Result<f64, ToolError> {
    let n = m.len();
    let mut f: Vec<Vec<Float>> = m
        .iter()
        .map(|row| row.iter().map(|x| Float::with_val(FLOAT_BITS, x)).collect())
        .collect();
    for col in 0..n {
        ctx.checkpoint()?;
        let (top, rest) = f.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for row in rest.iter_mut() {
            if row[col].is_zero() {
                continue;
            }
            let factor = Float::with_val(FLOAT_BITS, &row[col] / &pivot_row[col]);
            for k in col..=n {
                let delta = Float::with_val(FLOAT_BITS, &factor * &pivot_row[k]);
                row[k] -= delta;
            }
        }
    }
    let mut x = vec![Float::new(FLOAT_BITS); n];
    for row in (0..n).rev() {
        let mut acc = f[row][n].clone();
        for k in row + 1..n {
            acc -= Float::with_val(FLOAT_BITS, &f[row][k] * &x[k]);
        }
        x[row] = acc / &f[row][row];
    }
    Ok(x[at].to_f64())
}

/// `ohm`: V = I R and P = V I from any two of them.
pub(super) fn ohm(p: &Value) -> Result<Value, ToolError> {
    let v = opt(p, "voltage", VOLTS)?;
    let i = opt(p, "current", AMPERES)?;
    let r = opt(p, "resistance", OHMS)?
        .map(|r| positive(r, "resistance"))
        .transpose()?;
    let w = opt(p, "power", WATTS)?;
    let need = |what: &str| {
        ToolError::invalid_params(format!("{what}: the other quantities are not determined"))
    };
    let (vv, ii, rr) = match (v, i, r, w) {
        (Some(v), Some(i), _, _) => {
            if i == 0.0 {
                return Err(need("current 0"));
            }
            (v, i, v / i)
        }
        (Some(v), None, Some(r), _) => (v, v / r, r),
        (Some(v), None, None, Some(w)) => {
            if w == 0.0 {
                return Err(need("power 0"));
            }
            (v, w / v, v * v / w)
        }
        (None, Some(i), Some(r), _) => (i * r, i, r),
        (None, Some(i), None, Some(w)) => {
            if i == 0.0 {
                return Err(need("current 0"));
            }
            (w / i, i, w / (i * i))
        }
        (None, None, Some(r), Some(w)) => {
            if w < 0.0 {
                return Err(ToolError::invalid_params(format!(
                    "`power` dissipated in a resistor cannot be negative, got {w}"
                )));
            }
            ((w * r).sqrt(), (w / r).sqrt(), r)
        }
        _ => {
            return Err(ToolError::invalid_params(
                "give two of `voltage`, `current`, `resistance`, `power`",
            ))
        }
    };
    if rr <= 0.0 {
        return Err(ToolError::invalid_params(format!(
            "these values give a resistance of {rr} ohm; voltage and current must have the same sign"
        )));
    }
    // Power from the values as given, not from derived ones, so 12 V across 4 kohm is 0.036 W, not 0.036000000000000004.
    let ww = match (v, i, r, w) {
        (_, _, _, Some(w)) => w,
        (Some(v), Some(i), _, _) => v * i,
        (Some(v), None, Some(r), _) => v * v / r,
        _ => ii * ii * rr,
    };
    let mut out = Out::new();
    let from = "the other two";
    for (key, given, got, unit) in [
        ("voltage", v, vv, "V"),
        ("current", i, ii, "A"),
        ("resistance", r, rr, "ohm"),
        ("power", w, vv * ii, "W"),
    ] {
        if let Some(g) = given {
            redundant(&mut out, key, g, got, unit, from)?;
        }
    }
    out.put("voltage", vv, "V")?;
    out.put("current", ii, "A")?;
    out.put("resistance", rr, "ohm")?;
    out.put("power", ww, "W")?;
    Ok(out.done())
}

/// The common part of `rc_circuit` and `rl_circuit`: τ, and e^(−t/τ) when a time is given.
fn transient(p: &Value, tau: f64) -> Result<Option<(f64, f64)>, ToolError> {
    let v = opt(p, "voltage", VOLTS)?;
    let t = opt(p, "time", SECONDS)?;
    match (v, t) {
        (_, None) => Ok(None),
        (None, Some(_)) => Err(ToolError::invalid_params(
            "`time` needs `voltage` (the source voltage, or the initial one when discharging)",
        )),
        (Some(v), Some(t)) => {
            if t < 0.0 {
                return Err(ToolError::invalid_params(format!(
                    "`time` must not be negative, got {t} s"
                )));
            }
            Ok(Some((v, -t / tau)))
        }
    }
}

/// `rc_circuit`: a capacitor charging from a source through R, or discharging through R.
pub(super) fn rc_circuit(p: &Value) -> Result<Value, ToolError> {
    let r = positive(req(p, "resistance", OHMS)?, "resistance")?;
    let c = positive(req(p, "capacitance", FARADS)?, "capacitance")?;
    let mode = choice(p, "mode", &["charging", "discharging"])?.unwrap_or("charging");
    let tau = r * c;
    let mut out = Out::new();
    out.put("time_constant", tau, "s")?;
    if let Some((v, x)) = transient(p, tau)? {
        let decay = x.exp();
        // 1 − e^(−t/τ) by expm1: early in the charge the difference would lose its digits.
        let vc = if mode == "charging" {
            -v * x.exp_m1()
        } else {
            v * decay
        };
        out.put("voltage", vc, "V")?;
        out.put("current", v / r * decay, "A")?;
        out.put("charge", c * vc, "C")?;
        out.put("energy", 0.5 * c * vc * vc, "J")?;
    } else if let Some(v) = opt(p, "voltage", VOLTS)? {
        // No time: the ends of the transient.
        out.put("max_charge", c * v, "C")?;
        out.put("max_energy", 0.5 * c * v * v, "J")?;
        out.put("initial_current", v / r, "A")?;
    }
    out.set("mode", Value::String(mode.into()));
    Ok(out.done())
}

/// `rl_circuit`: current rising in an inductor switched onto a source through R, or decaying through R.
pub(super) fn rl_circuit(p: &Value) -> Result<Value, ToolError> {
    let r = positive(req(p, "resistance", OHMS)?, "resistance")?;
    let l = positive(req(p, "inductance", HENRIES)?, "inductance")?;
    let mode = choice(p, "mode", &["rising", "decaying"])?.unwrap_or("rising");
    let tau = l / r;
    let mut out = Out::new();
    out.put("time_constant", tau, "s")?;
    if let Some((v, x)) = transient(p, tau)? {
        let decay = x.exp();
        let current = if mode == "rising" {
            -v / r * x.exp_m1()
        } else {
            v / r * decay
        };
        out.put("current", current, "A")?;
        out.put("voltage_inductor", v * decay, "V")?;
        out.put("energy", 0.5 * l * current * current, "J")?;
    } else if let Some(v) = opt(p, "voltage", VOLTS)? {
        out.put("max_current", v / r, "A")?;
        out.put("max_energy", 0.5 * l * (v / r).powi(2), "J")?;
    }
    out.set("mode", Value::String(mode.into()));
    Ok(out.done())
}
