//! The `wolfram` tool: one natural-language question, answered offline by routing it to what Beaker already
//! computes (seed 003's "wolfram" tool). Arithmetic goes to `calculator`, calculus and algebra to
//! `symbolic_math`, conversions to `unit_converter`, elements and formulas to `chemistry`, compounds to
//! `pubchem`, and facts to reference tables compiled in ([`facts`]: CODATA 2022, IAU nominal values, DE421
//! distances). The result names the route it took, the call it made and the source of every fact; a question
//! no route reads is refused with what it can answer, never guessed at. With an AppID configured, the
//! WolframAlpha LLM API ([`provider`]) answers the questions no route reads.
//!
//! The tools it routes to are the engine's own, handed over by the catalog ([`Tool::bind`]), so a call is
//! answered under the same limits, deadline and cancellation as the `wolfram` call itself.
#![deny(missing_docs)]

pub mod facts;
pub mod provider;
mod read;
mod spec;
#[cfg(test)]
mod tests;

use beaker_core::{CallContext, ErrorKind, Pool, Tool, ToolError, ToolSpec};
use facts::Fact;
pub use provider::{Provider, ProviderConfig};
use read::{Route, Stat};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::sync::{Arc, OnceLock};

/// The longest question read, in characters.
pub const MAX_QUERY_CHARS: usize = 1000;

/// The tools `wolfram` routes to, by name.
pub const ROUTES: &[&str] = &[
    "calculator",
    "symbolic_math",
    "unit_converter",
    "chemistry",
    "pubchem",
];

/// What `wolfram` answers, for its error when it cannot read a question.
const CAN_ANSWER: &str = "arithmetic (\"2^64 - 1\", \"15% of 80\", \"square root of 2\"), calculus and algebra \
    (\"integral of x^2 from 0 to 1\", \"derivative of sin(x)*x\", \"limit of sin(x)/x as x -> 0\", \"solve x^2 = 4\", \
    \"simplify ...\", \"taylor series of e^x\"), unit conversions (\"60 mph to km/h\", \"how many seconds in a day\"), \
    physical constants (CODATA 2022: \"speed of light\", \"Planck constant in eV s\"), astronomy (\"distance from \
    Earth to Mars\", \"mass of the Sun\", \"light year in km\"), elements (\"atomic weight of iron\") and compounds \
    (\"boiling point of ethanol\", \"molar mass of H2SO4\")";

/// The `wolfram` tool.
pub struct Wolfram {
    spec: ToolSpec,
    routes: OnceLock<Vec<Arc<dyn Tool>>>,
    provider: Option<Arc<Provider>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    query: String,
    #[serde(default)]
    format: Format,
}

/// How much an answer says (the `format` param).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Format {
    /// The answer and its source.
    #[default]
    Short,
    /// Also every routed call with its whole result.
    Full,
    /// Also the steps in words.
    Steps,
}

/// Where symbolic answers come from.
const SYMPY_SOURCE: &str = "Beaker symbolic_math (SymPy 1.14, sandboxed)";
/// Where molar masses and atomic weights come from.
const CIAAW_SOURCE: &str = "Beaker chemistry: IUPAC/CIAAW 2021 standard atomic weights";
/// Where pubchem's identity data comes from.
const PUBCHEM_IDENTITY_SOURCE: &str =
    "pubchem offline tables (PubChem identifiers via chemicals 1.5.2)";

impl Wolfram {
    /// The tool, asking `provider` (the WolframAlpha LLM API) the questions it cannot route, when there is one.
    pub fn new(provider: Option<Arc<Provider>>) -> Wolfram {
        Wolfram {
            spec: spec::spec(),
            routes: OnceLock::new(),
            provider,
        }
    }

    /// The routed tool of this name, or why there is none.
    fn tool(&self, name: &str) -> Result<&Arc<dyn Tool>, ToolError> {
        self.routes
            .get()
            .and_then(|r| r.iter().find(|t| t.spec().name == name))
            .ok_or_else(|| {
                ToolError::new(
                    ErrorKind::ToolError,
                    format!("this question goes to `{name}`, which this server does not run"),
                )
            })
    }

    /// Calls a routed tool; its error is the call's, named.
    fn route(&self, name: &str, params: Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let tool = self.tool(name)?;
        tool.call(&params, ctx).map_err(|e| {
            // The routed tool's advice names its own params; say it as a question would.
            let hint = if e.message.contains("`direction`") {
                " (ask for the limit \"from the right\" or \"from the left\")"
            } else if e.message.contains("`variable` is needed") {
                " (say \"with respect to x\")"
            } else {
                ""
            };
            ToolError {
                message: format!("{name}: {}{hint}", e.message),
                ..e
            }
        })
    }

    fn answer(
        &self,
        query: &str,
        route: Route,
        format: Format,
        ctx: &CallContext,
    ) -> Result<Value, ToolError> {
        let mut out = Map::new();
        out.insert("query".into(), json!(query));
        out.insert("interpretation".into(), json!(read::interpretation(&route)));
        let mut calls: Vec<Value> = Vec::new();
        // Each route fills `value` (the short answer), and where it is a number `number` and `unit`.
        match route {
            Route::Calculator { expression } => {
                let params = json!({"expression": expression, "precision": 15});
                let r = self.route("calculator", params.clone(), ctx)?;
                let value = r["value"].as_str().unwrap_or_default().to_string();
                out.insert("kind".into(), json!("compute"));
                out.insert("route".into(), json!("calculator"));
                number(&mut out, &value, None);
                out.insert("value".into(), json!(value));
                out.insert(
                    "source".into(),
                    json!(
                        "Beaker calculator: exact rational arithmetic, correctly rounded functions"
                    ),
                );
                let trig = ["sin(", "cos(", "tan(", "asin(", "acos(", "atan("];
                let mut notes = Vec::new();
                if trig.iter().any(|f| expression.contains(f)) {
                    notes.push("angles are in radians (write sin(30*pi/180) for degrees)");
                }
                if expression.contains("log(") {
                    notes.push("log is the natural logarithm (log10 and log2 for the others)");
                }
                if !notes.is_empty() {
                    out.insert("note".into(), json!(notes.join("; ")));
                }
                calls.push(json!({"tool": "calculator", "params": params, "result": r}));
            }
            Route::Symbolic { params } => {
                let definite = params.get("lower").is_some();
                let mut done = None;
                if format == Format::Steps && params["operation"] == "integrate" {
                    // The antiderivative with SymPy's own steps first; a definite integral is then evaluated.
                    let mut indefinite = params.clone();
                    if let Some(o) = indefinite.as_object_mut() {
                        o.remove("lower");
                        o.remove("upper");
                        o.insert("steps".into(), json!(true));
                    }
                    let r = self.route("symbolic_math", indefinite.clone(), ctx)?;
                    calls.push(
                        json!({"tool": "symbolic_math", "params": indefinite, "result": r.clone()}),
                    );
                    if !definite {
                        done = Some(r);
                    }
                }
                let r = match done {
                    Some(r) => r,
                    None => {
                        let r = self.route("symbolic_math", params.clone(), ctx)?;
                        calls.push(
                            json!({"tool": "symbolic_math", "params": params, "result": r.clone()}),
                        );
                        r
                    }
                };
                let value = match (r["solutions"].as_array(), r["result"].as_str()) {
                    (Some(s), _) => s.iter().map(text_of).collect::<Vec<_>>().join(", "),
                    (None, Some(t)) => t.to_string(),
                    (None, None) => r.to_string(),
                };
                out.insert("kind".into(), json!("compute"));
                out.insert("route".into(), json!("symbolic_math"));
                if let Some(d) = r["decimal"].as_str() {
                    number(&mut out, d, None);
                }
                let periodic = ["sin", "cos", "tan", "sec", "csc", "cot"];
                let expression = params["expression"].as_str().unwrap_or("");
                if params["operation"] == "solve" && periodic.iter().any(|f| expression.contains(f))
                {
                    out.insert("note".into(), json!("periodic: SymPy's solve lists the solutions in one period; add integer multiples of the period for the rest"));
                }
                out.insert("value".into(), json!(value));
                if let Some(l) = r["latex"].as_str() {
                    out.insert("latex".into(), json!(l));
                }
                out.insert("source".into(), json!(SYMPY_SOURCE));
            }
            Route::DerivativeAt {
                params,
                variable,
                point,
            } => {
                let d = self.route("symbolic_math", params.clone(), ctx)?;
                calls.push(json!({"tool": "symbolic_math", "params": params, "result": d.clone()}));
                let derivative = d["result"].as_str().unwrap_or_default().to_string();
                let at = json!({"operation": "evaluate", "expression": derivative, "substitutions": {variable.as_str(): point}});
                let r = self.route("symbolic_math", at.clone(), ctx)?;
                calls.push(json!({"tool": "symbolic_math", "params": at, "result": r.clone()}));
                out.insert("kind".into(), json!("compute"));
                out.insert("route".into(), json!("symbolic_math"));
                let value = r["result"].as_str().unwrap_or_default().to_string();
                number(&mut out, r["decimal"].as_str().unwrap_or(&value), None);
                out.insert("value".into(), json!(value));
                out.insert("derivative".into(), json!(derivative));
                out.insert("source".into(), json!(SYMPY_SOURCE));
            }
            Route::Convert { value, from, to } => {
                out.insert("kind".into(), json!("convert"));
                out.insert("route".into(), json!("unit_converter"));
                let (_, r) = self.convert(&mut out, &mut calls, &value, &from, &to, ctx)?;
                if let Some(n) = r.get("notes") {
                    out.insert("note".into(), json!(n));
                }
                out.insert(
                    "source".into(),
                    json!("Beaker unit_converter (exact rational conversion factors)"),
                );
            }
            Route::Fact { fact, to } => self.fact(&mut out, &mut calls, fact, to, ctx)?,
            Route::Distance { a, b, stat, to } => {
                self.distance(&mut out, &mut calls, a, b, stat, to, ctx)?
            }
            Route::Element { element, property } => {
                // Up to two letters is a symbol as written ("Fe", "C": the reading refused other cases); longer
                // words are names ("iron", "sulphur").
                let params = if element.chars().count() <= 2 {
                    json!({"operation": "element", "symbol": element})
                } else {
                    json!({"operation": "element", "name": element})
                };
                let r = self.route("chemistry", params.clone(), ctx)?;
                let v = &r[property];
                if v.is_null() {
                    return Err(ToolError::new(
                        ErrorKind::ToolError,
                        format!("chemistry has no {property} for {element}"),
                    ));
                }
                out.insert("kind".into(), json!("properties"));
                out.insert("route".into(), json!("chemistry"));
                let text = text_of(v);
                if v.is_number() {
                    number(
                        &mut out,
                        &text,
                        (property == "atomic_weight").then_some("u"),
                    );
                }
                out.insert("value".into(), json!(text));
                out.insert(
                    "source".into(),
                    json!(if property == "atomic_weight" {
                        CIAAW_SOURCE
                    } else {
                        "Beaker chemistry: periodic table"
                    }),
                );
                calls.push(json!({"tool": "chemistry", "params": params, "result": r}));
            }
            Route::MolarMass { formula, to } => {
                let params = json!({"operation": "molar_mass", "formula": formula});
                let r = self.route("chemistry", params.clone(), ctx)?;
                let v = r["molar_mass"].to_string();
                out.insert("kind".into(), json!("properties"));
                out.insert("route".into(), json!("chemistry"));
                number(&mut out, &v, Some("g/mol"));
                out.insert("value".into(), json!(format!("{v} g/mol")));
                out.insert("source".into(), json!(CIAAW_SOURCE));
                calls.push(json!({"tool": "chemistry", "params": params, "result": r}));
                if let Some(to) = to {
                    self.convert(&mut out, &mut calls, &v, "g/mol", &to, ctx)?;
                }
            }
            Route::Compound {
                identifier,
                property,
                to,
            } => {
                let params = json!({"operation": "properties", "identifier": identifier, "properties": [property]});
                let r = self.route("pubchem", params.clone(), ctx)?;
                let v = &r["properties"][property];
                if v.is_null() {
                    return Err(ToolError::new(
                        ErrorKind::ToolError,
                        format!(
                            "pubchem has no {property} for `{identifier}` ({} found)",
                            r["name"].as_str().unwrap_or("the compound")
                        ),
                    ));
                }
                out.insert("kind".into(), json!("properties"));
                out.insert("route".into(), json!("pubchem"));
                let (text, source) = match v {
                    Value::Object(m) => {
                        let value = m.get("value").map(text_of).unwrap_or_default();
                        let unit = m.get("unit").and_then(Value::as_str).unwrap_or("");
                        number(&mut out, &value, Some(unit));
                        if let Some(c) = m.get("celsius") {
                            out.insert("celsius".into(), c.clone());
                        }
                        let source = m
                            .get("source")
                            .and_then(Value::as_str)
                            .unwrap_or("chemicals");
                        (
                            format!("{value} {unit}").trim().to_string(),
                            format!("pubchem offline tables: {source}"),
                        )
                    }
                    Value::Number(n) => {
                        let t = n.to_string();
                        number(
                            &mut out,
                            &t,
                            (property == "MolecularWeight").then_some("g/mol"),
                        );
                        let unit = if property == "MolecularWeight" {
                            " g/mol"
                        } else {
                            ""
                        };
                        (format!("{t}{unit}"), PUBCHEM_IDENTITY_SOURCE.to_string())
                    }
                    other => (text_of(other), PUBCHEM_IDENTITY_SOURCE.to_string()),
                };
                out.insert("value".into(), json!(text));
                out.insert("compound".into(), json!(r["name"]));
                out.insert("source".into(), json!(source));
                calls.push(json!({"tool": "pubchem", "params": params, "result": r.clone()}));
                // "... in fahrenheit": the table's value converted.
                if let Some(to) = to {
                    let (value, unit) = match v {
                        Value::Number(n) if property == "MolecularWeight" => {
                            (Some(n.to_string()), Some("g/mol"))
                        }
                        _ => (
                            v.get("value").map(text_of),
                            v.get("unit").and_then(Value::as_str),
                        ),
                    };
                    let (Some(value), Some(unit)) = (value, unit) else {
                        return Err(ToolError::invalid_params(format!(
                            "{property} has no unit to convert to {to}"
                        )));
                    };
                    out.remove("celsius");
                    self.convert(&mut out, &mut calls, &value, unit, &to, ctx)?;
                }
            }
        }
        match format {
            Format::Full => {
                out.insert("calls".into(), json!(calls));
            }
            Format::Steps => {
                let mut steps = vec![json!(format!(
                    "Read as: {}",
                    out["interpretation"].as_str().unwrap_or("")
                ))];
                for c in &calls {
                    steps.extend(step(c).into_iter().map(Value::String));
                }
                out.insert("steps".into(), json!(steps));
                out.insert("calls".into(), json!(calls));
            }
            Format::Short => {}
        }
        Ok(Value::Object(out))
    }

    fn fact(
        &self,
        out: &mut Map<String, Value>,
        calls: &mut Vec<Value>,
        fact: Fact,
        to: Option<String>,
        ctx: &CallContext,
    ) -> Result<(), ToolError> {
        out.insert("kind".into(), json!("data"));
        let (text, unit, source, name) = match &fact {
            Fact::Negated(c) => {
                out.insert("route".into(), json!("codata"));
                out.insert("exact".into(), json!(c.exact));
                out.insert(
                    "note".into(),
                    json!(format!(
                        "the electron's charge is minus the {} (CODATA's e is positive)",
                        c.name
                    )),
                );
                (
                    format!("-{}", c.text),
                    c.unit.to_string(),
                    facts::CODATA_SOURCE.to_string(),
                    c.name,
                )
            }
            Fact::Codata(c) => {
                out.insert("route".into(), json!("codata"));
                out.insert("exact".into(), json!(c.exact));
                if !c.exact {
                    out.insert("uncertainty".into(), json!(c.uncertainty));
                }
                if c.truncated {
                    out.insert("note".into(), json!(format!("exact; CODATA prints {}... (the value here is derived from the defining constants)", c.text)));
                }
                let text = if c.truncated {
                    format_f64(c.value)
                } else {
                    c.text.clone()
                };
                (
                    text,
                    c.unit.to_string(),
                    facts::CODATA_SOURCE.to_string(),
                    c.name,
                )
            }
            Fact::Iau(n) => {
                out.insert("route".into(), json!("iau"));
                if n.unit == "kg" && n.source.contains(" G") {
                    out.insert("note".into(), json!("a mass derived from GM over G: known only to G's relative uncertainty, 2.2e-5 (the GM itself is far better known)"));
                }
                (
                    format_f64(n.value),
                    n.unit.to_string(),
                    n.source.to_string(),
                    n.name,
                )
            }
        };
        out.insert("name".into(), json!(name));
        out.insert("source".into(), json!(source));
        match to {
            Some(to) => {
                let (v, _) = self.convert(out, calls, &text, &unit_text(&unit), &to, ctx)?;
                // The uncertainty in the unit asked for: scaled as the value is (constants convert by a factor).
                if let Some(u) = out
                    .get("uncertainty")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                {
                    let scale = v
                        .parse::<f64>()
                        .ok()
                        .zip(text.parse::<f64>().ok())
                        .map(|(a, b)| a / b);
                    match (u.parse::<f64>(), scale) {
                        (Ok(u), Some(k)) if k.is_finite() && k != 0.0 => {
                            out.insert("uncertainty".into(), json!(format!("{:.2e}", u * k.abs())));
                        }
                        _ => {
                            out.remove("uncertainty");
                        }
                    }
                }
            }
            None => {
                number(out, &text, Some(&unit));
                out.insert("value".into(), json!(format!("{text} {unit}").trim()));
            }
        }
        Ok(())
    }

    /// Converts `value` from `from` to `to` with `unit_converter`, records the call and makes the converted value
    /// the answer (`value`, `number`, `unit`); returns the converted text and the converter's result.
    #[allow(clippy::too_many_arguments)]
    fn convert(
        &self,
        out: &mut Map<String, Value>,
        calls: &mut Vec<Value>,
        value: &str,
        from: &str,
        to: &str,
        ctx: &CallContext,
    ) -> Result<(String, Value), ToolError> {
        let params = json!({"value": value, "from_unit": from, "to_unit": to});
        let r = self.route("unit_converter", params.clone(), ctx)?;
        let v = r["value"].as_str().unwrap_or_default().to_string();
        number(out, &v, Some(to));
        out.insert("value".into(), json!(format!("{v} {to}")));
        calls.push(json!({"tool": "unit_converter", "params": params, "result": r.clone()}));
        Ok((v, r))
    }

    #[allow(clippy::too_many_arguments)]
    fn distance(
        &self,
        out: &mut Map<String, Value>,
        calls: &mut Vec<Value>,
        a: &str,
        b: &str,
        stat: Stat,
        to: Option<String>,
        ctx: &CallContext,
    ) -> Result<(), ToolError> {
        let d = facts::distance(a, b).ok_or_else(|| {
            ToolError::new(
                ErrorKind::Internal,
                format!("no distance between {a} and {b} in the table"),
            )
        })?;
        out.insert("kind".into(), json!("data"));
        out.insert("route".into(), json!("ephemeris"));
        let unit = to.clone().unwrap_or_else(|| "km".into());
        let [least, mean, greatest] = match &to {
            Some(to) => {
                let params = json!({"value": [format_f64(d.least), format_f64(d.mean), format_f64(d.greatest)], "from_unit": "km", "to_unit": to, "precision": 9});
                let r = self.route("unit_converter", params.clone(), ctx)?;
                calls
                    .push(json!({"tool": "unit_converter", "params": params, "result": r.clone()}));
                let v: Vec<String> = (0..3)
                    .map(|i| r["value"][i].as_str().unwrap_or_default().to_string())
                    .collect();
                [v[0].clone(), v[1].clone(), v[2].clone()]
            }
            None => [
                format_f64(d.least),
                format_f64(d.mean),
                format_f64(d.greatest),
            ],
        };
        let (chosen, what) = match stat {
            Stat::Mean => (&mean, "time-averaged"),
            Stat::Least => (&least, "least"),
            Stat::Greatest => (&greatest, "greatest"),
        };
        number(out, chosen, Some(&unit));
        out.insert("value".into(), json!(format!("{chosen} {unit}")));
        out.insert(
            "note".into(),
            json!(format!("{what} distance between the centres over 1900-2050; it varies from {least} {unit} to {greatest} {unit} (mean {mean} {unit})")),
        );
        out.insert("least".into(), json!(least.parse::<f64>().ok()));
        out.insert("mean".into(), json!(mean.parse::<f64>().ok()));
        out.insert("greatest".into(), json!(greatest.parse::<f64>().ok()));
        out.insert("source".into(), json!(facts::DISTANCE_SOURCE));
        Ok(())
    }
}

/// Puts `number` (and `unit`) into the answer when `text` is a finite decimal number.
fn number(out: &mut Map<String, Value>, text: &str, unit: Option<&str>) {
    let nonzero = text
        .trim()
        .trim_start_matches(['-', '+'])
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.chars().any(|c| ('1'..='9').contains(&c)));
    // A nonzero value beyond float64's range (1e-400, 2^-2000) has no `number` rather than 0.
    if let Some(n) = text
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && (*n != 0.0 || !nonzero))
    {
        out.insert("number".into(), json!(n));
        if let Some(u) = unit.filter(|u| !u.is_empty()) {
            out.insert("unit".into(), json!(u));
        }
    }
}

/// A JSON value as text: strings without their quotes.
fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// A float in the shortest text that reads back as it (integers without ".0").
fn format_f64(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e21 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// A unit in CODATA's notation ("m^3 kg^-1 s^-2") as `unit_converter` reads it ("m^3*kg^-1*s^-2").
fn unit_text(unit: &str) -> String {
    unit.split_whitespace().collect::<Vec<_>>().join("*")
}

/// One routed call, in words, for `format: "steps"`: an antiderivative's lines are SymPy's own steps.
fn step(call: &Value) -> Vec<String> {
    let tool = call["tool"].as_str().unwrap_or("");
    let p = &call["params"];
    let r = &call["result"];
    let answer = r["result"]
        .as_str()
        .or(r["value"].as_str())
        .map_or_else(|| r["value"].to_string(), str::to_string);
    match (tool, p["operation"].as_str()) {
        ("symbolic_math", Some("integrate")) if p.get("lower").is_none() => {
            let mut lines = Vec::new();
            match r["steps"].as_array() {
                Some(rules) => lines.extend(rules.iter().map(rule_line)),
                None => lines.extend(r["steps_note"].as_str().map(str::to_string)),
            }
            lines.push(format!("Antiderivative: {answer} (+ C)"));
            lines
        }
        ("symbolic_math", Some("integrate")) => vec![format!(
            "Evaluate between {} and {}: {answer}",
            p["lower"].as_str().unwrap_or(""),
            p["upper"].as_str().unwrap_or("")
        )],
        ("unit_converter", _) => vec![format!(
            "Convert {} {} to {} (unit_converter): {answer}",
            text_of(&p["value"]),
            p["from_unit"].as_str().unwrap_or(""),
            p["to_unit"].as_str().unwrap_or("")
        )],
        (tool, Some(op)) => vec![format!("{op} ({tool}): {answer}")],
        (tool, None) => vec![format!("{tool}: {answer}")],
    }
}

/// One rule of SymPy's step-by-step integrator, indented by its depth: "Parts rule (u = x, dv = cos(x)):
/// integral of x*cos(x) dx = x*sin(x) + cos(x)".
fn rule_line(rule: &Value) -> String {
    let indent = "  ".repeat(rule["depth"].as_u64().unwrap_or(0) as usize);
    let chose: Vec<String> = (rule["with"].as_object().into_iter().flatten())
        .map(|(k, v)| format!("{k} = {}", text_of(v)))
        .collect();
    let chose = if chose.is_empty() {
        String::new()
    } else {
        format!(" ({})", chose.join(", "))
    };
    format!(
        "{indent}{} rule{chose}: integral of {} d{} = {}",
        rule["rule"].as_str().unwrap_or(""),
        rule["integrand"].as_str().unwrap_or(""),
        rule["variable"].as_str().unwrap_or(""),
        rule["antiderivative"].as_str().unwrap_or("")
    )
}

impl Tool for Wolfram {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: Params = beaker_core::params::parse(params)?;
        if p.query.chars().count() > MAX_QUERY_CHARS {
            return Err(ToolError::invalid_params(format!(
                "`query` has at most {MAX_QUERY_CHARS} characters"
            )));
        }
        match read::read(&p.query) {
            Ok(route) => self.answer(&p.query, route, p.format, ctx),
            Err(unread) => match &self.provider {
                Some(provider) => provider.ask(&p.query, p.format != Format::Short, ctx),
                None => Err(ToolError::invalid_params(format!(
                    "wolfram answers offline and does not guess: {}. It answers {CAN_ANSWER}. Rephrase the question as one of these, or call the tool it needs directly.",
                    unread.why
                ))),
            },
        }
    }

    fn bind(&self, tools: &[Arc<dyn Tool>]) {
        let routed = tools
            .iter()
            .filter(|t| ROUTES.contains(&t.spec().name.as_str()))
            .cloned()
            .collect();
        // Bound once; a second catalog load builds a new `Wolfram`.
        let _ = self.routes.set(routed);
    }

    fn pool(&self) -> Pool {
        // It may run SymPy in the sandbox (symbolic_math), so it waits where sandboxed calls wait.
        Pool::Sandboxed
    }
}
