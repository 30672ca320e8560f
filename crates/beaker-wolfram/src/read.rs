//! Reading a question: which of Beaker's tools or tables answers it, and with what. One pattern per form of
//! question, tried in a fixed order (calculus, conversions, distances, facts, elements and compounds,
//! arithmetic); a question no pattern reads is refused, never guessed at.

use crate::facts::{self, Fact};
use regex::Regex;
use std::sync::OnceLock;

/// What a question asks, as Beaker answers it.
#[derive(Debug, Clone)]
pub(crate) enum Route {
    /// An expression for `calculator`.
    Calculator { expression: String },
    /// A `symbolic_math` operation with its params (`operation` included).
    Symbolic { params: serde_json::Value },
    /// A derivative (`symbolic_math` `diff` params), then its value at `variable = point`.
    DerivativeAt {
        params: serde_json::Value,
        variable: String,
        point: String,
    },
    /// A quantity for `unit_converter`.
    Convert {
        value: String,
        from: String,
        to: String,
    },
    /// A fact from a table, perhaps in another unit.
    Fact { fact: Fact, to: Option<String> },
    /// The distance between two bodies, perhaps one statistic of it, perhaps in another unit.
    Distance {
        a: &'static str,
        b: &'static str,
        stat: Stat,
        to: Option<String>,
    },
    /// A property of an element, by `chemistry`'s `element`.
    Element {
        element: String,
        property: &'static str,
    },
    /// A formula's molar mass, by `chemistry`'s `molar_mass`.
    MolarMass { formula: String, to: Option<String> },
    /// A compound's property, by `pubchem` (PubChem's property name).
    Compound {
        identifier: String,
        property: &'static str,
        /// The unit to give it in (a temperature's, a density's), if asked.
        to: Option<String>,
    },
}

/// Which of a distance's statistics a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stat {
    /// The time average (with the extremes beside it).
    Mean,
    /// The least.
    Least,
    /// The greatest.
    Greatest,
}

struct Patterns {
    filler: Regex,
    courtesy: Regex,
    preamble: Regex,
    real_domain: Regex,
    d2_dx2: Regex,
    distance_to: Regex,
    a_to_b_distance: Regex,
    how_many_is: Regex,
    compound_in: Regex,
    integral: Regex,
    bounds: Regex,
    differential: Regex,
    derivative: Regex,
    differentiate: Regex,
    d_dx: Regex,
    limit: Regex,
    lim_arrow: Regex,
    solve: Regex,
    roots: Regex,
    algebra: Regex,
    series: Regex,
    convert: Regex,
    how_many: Regex,
    distance: Regex,
    how_far: Regex,
    element: Regex,
    compound: Regex,
    formula: Regex,
    in_unit: Regex,
    arithmetic: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        // The patterns are constants: a typo is a build defect the crate's tests catch on first use.
        let r = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("pattern {p}: {e}"));
        let var = r"[a-zA-Z]\w*";
        Patterns {
            filler: r(r"(?i)^(?:please,?\s+|(?:can|could|would)\s+you\s+|what(?:'s|\s+is|\s+are|\s+was)\s+|whats\s+|tell\s+me\s+|give\s+me\s+|show\s+me\s+|calculate\s+|compute\s+|evaluate\s+|find\s+|determine\s+|work\s+out\s+|how\s+much\s+is\s+|i\s+need\s+|the\s+value\s+of\s+|value\s+of\s+)"),
            courtesy: r(r"(?i),?\s+(?:please|thanks|thank\s+you)$"),
            preamble: r(r"(?i)^(?:the\s+)?(?:function|expression|equation|polynomial|integrand|system)\s+"),
            real_domain: r(r"(?i)^(?P<eq>.+?)\s+(?:over|in)\s+(?:the\s+)?(?:reals|real\s+numbers)$"),
            d2_dx2: r(r"^d\^?(?P<n>[2-5])\s*/\s*d(?P<v>[a-zA-Z])\s*\^?\s*(?P<n2>[2-5])\s*(?P<f>.+)$"),
            distance_to: r(r"(?i)^(?:the\s+)?distance\s+to\s+(?P<b>.+?)(?:\s+in\s+(?P<to>.+))?$"),
            a_to_b_distance: r(r"(?i)^(?P<a>.+?)\s+to\s+(?P<b>.+?)\s+distance(?:\s+in\s+(?P<to>.+))?$"),
            how_many_is: r(r"(?i)^how\s+many\s+(?P<to>.+?)\s+(?:is|are)\s+(?P<num>[-+]?\d[\d,]*(?:\.\d+)?)\s*(?P<from>[^\d\s].*)$"),
            compound_in: r(r"(?i)^(?P<c>.+?)\s+in\s+(?:degrees\s+)?(?P<to>celsius|fahrenheit|kelvin|rankine|c|f|k|degc|degf|g/ml|g/cm3|g/cm\^3|kg/m3|kg/m\^3|g/l|kg/l|g/mol|kg/mol|mg/mmol|da|u|amu)$"),
            integral: r(r"(?i)^(?:the\s+)?(?:(?:indefinite|definite)\s+)?(?:integral|antiderivative|anti-derivative)\s+of\s+(?P<body>.+)$|^integrate\s+(?P<body2>.+)$"),
            bounds: r(r"(?i)^(?P<f>.+?)\s+(?:from|between)\s+(?P<a>\S+)\s+(?:to|and)\s+(?P<b>\S+)$"),
            differential: r(&format!(r"(?i)^(?P<f>.+?)(?:\s*\bd(?P<v>[a-zA-Z])|\s+(?:with\s+respect\s+to|wrt)\s+(?P<v2>{var}))$")),
            derivative: r(&format!(r"(?i)^(?:the\s+)?(?:(?P<ord>first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)\s+)?(?:partial\s+)?derivative\s+of\s+(?P<f>.+?)(?:\s+(?:with\s+respect\s+to|wrt)\s+(?P<v>{var}))?(?:,?\s+(?:evaluated\s+)?at\s+(?:(?P<v2>{var})\s*=\s*)?(?P<at>[^=]+?))?$")),
            differentiate: r(&format!(r"(?i)^differentiate\s+(?P<f>.+?)(?:\s+(?:with\s+respect\s+to|wrt)\s+(?P<v>{var}))?$")),
            d_dx: r(r"^d/d(?P<v>[a-zA-Z])\s*(?P<f>.+)$"),
            lim_arrow: r(&format!(r"(?i)^lim(?:it)?\s*(?:as\s+)?_?\{{?(?P<v>{var})\s*(?:->|→|\\to)\s*(?P<p>[^\s}}]+)\}}?\s+(?:of\s+)?(?P<f>.+)$")),
            limit: r(&format!(r"(?i)^(?:the\s+)?(?:limit|lim)\s+(?:of\s+)?(?P<f>.+?)\s+as\s+(?P<v>{var})\s*(?:->|→|approaches|goes\s+to|tends\s+to)\s*(?P<p>.+)$")),
            solve: r(&format!(r"(?i)^solve\s+(?P<eq>.+?)(?:\s+for\s+(?P<v>{var}))?$")),
            roots: r(r"(?i)^(?:the\s+)?(?:roots|zeros|zeroes|solutions)\s+of\s+(?P<eq>.+)$"),
            algebra: r(r"(?i)^(?P<op>simplify|expand|factor|factorise|factorize)\s+(?P<f>.+)$"),
            series: r(&format!(r"(?i)^(?:the\s+)?(?:(?P<kind>taylor|maclaurin|power)\s+)?(?:series|expansion)\s+(?:of|for)\s+(?P<f>.+?)(?:\s+(?:at|around|about|near)\s+(?P<v>{var})\s*=\s*(?P<p>\S+))?(?:\s+(?:to|up\s+to)\s+order\s+(?P<n>\d+))?$")),
            convert: r(r"(?i)^(?:convert\s+)?(?P<num>[-+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?(?:\s*/\s*\d+)?)\s*(?P<from>[^\d\s+\-*/^()!%,].*?)\s+(?:to|in|into|as)\s+(?P<to>.+)$"),
            how_many: r(r"(?i)^how\s+many\s+(?P<to>.+?)\s+(?:are\s+there\s+)?(?:are\s+|is\s+)?(?:in|make|per)\s+(?:(?P<num>[-+]?\d[\d,]*(?:\.\d+)?)\s*|an?\s+|one\s+)?(?P<from>.+)$"),
            distance: r(r"(?i)^(?:the\s+)?(?:(?P<stat>average|mean|typical|minimum|min|closest|least|shortest|nearest|maximum|max|farthest|furthest|greatest|largest|longest)\s+)?distance\s+(?:from|between)\s+(?P<a>.+?)\s+(?:to|and)\s+(?P<b>.+?)(?:\s+in\s+(?P<to>.+))?$"),
            how_far: r(r"(?i)^how\s+far\s+(?:away\s+)?is\s+(?P<b>.+?)(?:\s+from\s+(?P<a>.+?))?(?:\s+in\s+(?P<to>.+))?$"),
            element: r(r"(?i)^(?:the\s+)?(?P<prop>atomic\s+weight|atomic\s+mass|standard\s+atomic\s+weight|atomic\s+number|(?:chemical\s+)?symbol|electron(?:ic)?\s+configuration|electronegativity|group|period|block)\s+(?:of|for)\s+(?:the\s+element\s+)?(?P<el>[a-zA-Z]+)$"),
            compound: r(r"(?i)^(?:the\s+)?(?P<prop>molar\s+mass|molecular\s+weight|molecular\s+mass|formula\s+weight|boiling\s+point|melting\s+point|density|flash\s+point|refractive\s+index|autoignition\s+temperature|(?:chemical\s+|molecular\s+)?formula|cas(?:\s+number|\s+no\.?|\s+registry\s+number)?|smiles|inchi\s*key|inchi|iupac\s+name)\s+(?:of|for)\s+(?P<c>.+)$"),
            formula: r(r"^(?:[A-Z][a-z]?\d*|\(|\)\d*|\[|\]\d*|·\d*|\*\d*|\.\d*)+$"),
            in_unit: r(r"(?i)^(?P<what>.+?)\s+in\s+(?:units\s+of\s+)?(?P<to>[^\s].*)$"),
            arithmetic: r(r"^[0-9A-Za-z\s.+\-*/^()!,%×÷−·√π]+$"),
        }
    })
}

/// Why a question was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    /// What went wrong, for the error message.
    pub why: String,
}

/// Reads `query` into the route that answers it.
pub(crate) fn read(query: &str) -> Result<Route, Unread> {
    let p = patterns();
    let q = clean(query);
    if q.is_empty() {
        return Err(Unread {
            why: "the question is empty".into(),
        });
    }
    if let Some(route) = calculus(p, &q)? {
        return Ok(route);
    }
    if let Some(expression) = arithmetic(p, &q)? {
        return Ok(Route::Calculator { expression });
    }
    let conversion = p
        .convert
        .captures(&q)
        .or_else(|| p.how_many_is.captures(&q))
        .or_else(|| p.how_many.captures(&q));
    if let Some(c) = conversion {
        let value = c
            .name("num")
            .map_or("1".to_string(), |m| m.as_str().replace([',', ' '], ""));
        let (from, to) = temperature_letters(unit(&c["from"]), unit(&c["to"]));
        // "speed of light in km/s" starts with no number, so it is not here; "3 in 4" has no unit.
        if !from.is_empty() && !to.is_empty() {
            return Ok(Route::Convert { value, from, to });
        }
    }
    if let Some(c) = p.distance.captures(&q) {
        if let (Some(a), Some(b)) = (facts::body(&c["a"]), facts::body(&c["b"])) {
            return distance(a, b, c.name("stat").map(|m| m.as_str()), c.name("to"));
        }
    }
    // "distance to the Sun", "Earth to Venus distance".
    if let Some(c) = p.distance_to.captures(&q) {
        if let Some(b) = facts::body(&c["b"]) {
            return distance("earth", b, None, c.name("to"));
        }
    }
    if let Some(c) = p.a_to_b_distance.captures(&q) {
        if let (Some(a), Some(b)) = (facts::body(&c["a"]), facts::body(&c["b"])) {
            return distance(a, b, None, c.name("to"));
        }
    }
    if let Some(c) = p.how_far.captures(&q) {
        let a = c
            .name("a")
            .map_or(Some("earth"), |m| facts::body(m.as_str()));
        if let (Some(a), Some(b)) = (a, facts::body(&c["b"])) {
            return distance(a, b, None, c.name("to"));
        }
    }
    if let Some(fact) = facts::lookup(&q) {
        return Ok(Route::Fact { fact, to: None });
    }
    if let Some(c) = p.in_unit.captures(&q) {
        if let Some(fact) = facts::lookup(&c["what"]) {
            return Ok(Route::Fact {
                fact,
                to: Some(unit(&c["to"])),
            });
        }
    }
    if let Some(c) = p.element.captures(&q) {
        let property = match fold_words(&c["prop"]).as_str() {
            "atomic weight" | "atomic mass" | "standard atomic weight" => "atomic_weight",
            "atomic number" => "atomic_number",
            "symbol" | "chemical symbol" => "symbol",
            "electron configuration" | "electronic configuration" => "electron_configuration",
            "electronegativity" => "electronegativity",
            "group" => "group",
            "period" => "period",
            _ => "block",
        };
        let element = c["el"].to_string();
        // A symbol is written as one ("Fe", "C"); "CO", "NO" and "HF" are molecules, not cobalt, nobelium and
        // hafnium: refused.
        let mut chars = element.chars();
        let symbol = element.chars().count() <= 2
            && chars.next().is_some_and(|c| c.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_lowercase());
        if element.chars().count() <= 2 && !symbol {
            return Err(Unread {
                why: format!("`{element}` is no element symbol as written (symbols are written Fe, Co, C; CO is a molecule): give the element's name or its symbol"),
            });
        }
        return Ok(Route::Element { element, property });
    }
    if let Some(c) = p.compound.captures(&q) {
        // "boiling point of benzene in fahrenheit": the compound, then the unit to give it in.
        let (what, to) = match p.compound_in.captures(&c["c"]) {
            Some(w) => {
                // A boiling point "in C" is in degrees Celsius, never coulombs.
                let to = unit(&w["to"]);
                let to = temperature_letter(&to).map_or(to, str::to_string);
                (w["c"].trim().to_string(), Some(to))
            }
            None => (c["c"].trim().to_string(), None),
        };
        let prop = fold_words(&c["prop"]);
        let mass = matches!(
            prop.as_str(),
            "molar mass" | "molecular weight" | "molecular mass" | "formula weight"
        );
        // A formula written as one ("H2SO4", "CuSO4·5H2O") is weighed by `chemistry` from CIAAW's weights.
        if mass && p.formula.is_match(&what) && what.chars().any(|c| c.is_ascii_uppercase()) {
            return Ok(Route::MolarMass { formula: what, to });
        }
        let property = match prop.as_str() {
            _ if mass => "MolecularWeight",
            "boiling point" => "BoilingPoint",
            "melting point" => "MeltingPoint",
            "density" => "Density",
            "flash point" => "FlashPoint",
            "refractive index" => "RefractiveIndex",
            "autoignition temperature" => "AutoignitionTemperature",
            "smiles" => "SMILES",
            "inchikey" | "inchi key" => "InChIKey",
            "inchi" => "InChI",
            "iupac name" => "IUPACName",
            p if p.starts_with("cas") => "CAS",
            _ => "MolecularFormula",
        };
        return Ok(Route::Compound {
            identifier: what,
            property,
            to,
        });
    }
    Err(Unread {
        why: format!("no form of question it knows reads `{q}`"),
    })
}

/// The question without politeness, question marks and the words that ask ("what is", "calculate").
fn clean(query: &str) -> String {
    let p = patterns();
    let mut q = query.trim().to_string();
    loop {
        let before = q.clone();
        q = q.trim_end_matches(['?', '.', ' ']).to_string();
        // A final `!` is punctuation after a word, a factorial after a number or `)` ("10!?", "(5)!").
        let bangs = q.len() - q.trim_end_matches('!').len();
        if bangs > 0 && q[..q.len() - bangs].ends_with(|c: char| c.is_alphabetic() || c == ' ') {
            q.truncate(q.len() - bangs);
        }
        q = p.courtesy.replace(&q, "").trim().to_string();
        if q == before {
            break;
        }
    }
    loop {
        let stripped = p.filler.replace(&q, "").trim().to_string();
        if stripped == q {
            break;
        }
        q = stripped;
    }
    q
}

/// Lower-case words with single spaces.
fn fold_words(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A unit as a question writes it, as `unit_converter` reads it: "degrees Fahrenheit" is degF, a leading
/// "a"/"an" goes.
fn unit(text: &str) -> String {
    let t = text.trim();
    let t = ["a ", "an ", "one ", "the "]
        .iter()
        .find_map(|a| t.strip_prefix(a))
        .unwrap_or(t)
        .trim();
    let lower = t.to_lowercase();
    let lower = lower
        .strip_prefix("degrees ")
        .or_else(|| lower.strip_prefix("degree "))
        .unwrap_or(&lower);
    match lower {
        "fahrenheit" => "degF".into(),
        "celsius" | "centigrade" => "degC".into(),
        "kelvin" | "kelvins" => "K".into(),
        "rankine" => "degR".into(),
        _ => t.to_string(),
    }
}

/// `C`, `F` and `K` written alone are temperatures when the other side is one ("100 F to C"), else the
/// symbols they are (the coulomb, the farad, the kelvin: "1 Ah to C").
fn temperature_letters(from: String, to: String) -> (String, String) {
    let temperature =
        |u: &str| temperature_letter(u).is_some() || matches!(u, "degF" | "degC" | "degR");
    if temperature(&from) && temperature(&to) {
        let f = temperature_letter(&from).map_or(from.clone(), str::to_string);
        let t = temperature_letter(&to).map_or(to.clone(), str::to_string);
        return (f, t);
    }
    (from, to)
}

/// The temperature a letter written alone names: `F`, `C`, `K` (either case).
fn temperature_letter(u: &str) -> Option<&'static str> {
    match u {
        "F" | "f" => Some("degF"),
        "C" | "c" => Some("degC"),
        "K" | "k" => Some("K"),
        _ => None,
    }
}

fn distance(
    a: &'static str,
    b: &'static str,
    stat: Option<&str>,
    to: Option<regex::Match>,
) -> Result<Route, Unread> {
    if a == b {
        return Err(Unread {
            why: format!("the distance from {a} to itself is 0"),
        });
    }
    let stat = match stat.map(str::to_lowercase).as_deref() {
        Some("minimum" | "min" | "closest" | "least" | "shortest" | "nearest") => Stat::Least,
        Some("maximum" | "max" | "farthest" | "furthest" | "greatest" | "largest" | "longest") => {
            Stat::Greatest
        }
        _ => Stat::Mean,
    };
    Ok(Route::Distance {
        a,
        b,
        stat,
        to: to.map(|m| unit(m.as_str())),
    })
}

/// Calculus and algebra, for `symbolic_math`.
fn calculus(p: &Patterns, q: &str) -> Result<Option<Route>, Unread> {
    use serde_json::json;
    if let Some(c) = p.integral.captures(q) {
        let body = c
            .name("body")
            .or(c.name("body2"))
            .map_or("", |m| m.as_str());
        // "x^2 dx from 0 to 1" and "x^2 from 0 to 1 dx" both.
        let (body, v_after) = differential(p, body);
        let (body, bounds) = match p.bounds.captures(body) {
            Some(b) => (
                b.name("f").map_or(body, |m| m.as_str()),
                Some((bound(&b["a"]), bound(&b["b"]))),
            ),
            None => (body, None),
        };
        let (f, v) = differential(p, body);
        let v = v.or(v_after);
        let f = expression(p, f)?;
        let mut params = json!({"operation": "integrate", "expression": f});
        if let Some(v) = v.or_else(|| constant_variable(&f)) {
            params["variable"] = json!(v);
        }
        if let Some((a, b)) = bounds {
            params["lower"] = json!(a);
            params["upper"] = json!(b);
        }
        return Ok(Some(Route::Symbolic { params }));
    }
    if let Some(c) = p.d2_dx2.captures(q) {
        if c["n"] != c["n2"] {
            return Err(Unread {
                why: format!("`{q}` has two different orders"),
            });
        }
        let f = expression(p, &c["f"])?;
        let order: u64 = c["n"].parse().unwrap_or(2);
        return Ok(Some(Route::Symbolic {
            params: json!({"operation": "diff", "expression": f, "order": order, "variable": &c["v"]}),
        }));
    }
    let diff = p
        .derivative
        .captures(q)
        .or_else(|| p.differentiate.captures(q))
        .or_else(|| p.d_dx.captures(q));
    if let Some(c) = diff {
        let order = match c.name("ord").map(|m| m.as_str().to_lowercase()).as_deref() {
            Some("second" | "2nd") => 2,
            Some("third" | "3rd") => 3,
            Some("fourth" | "4th") => 4,
            Some("fifth" | "5th") => 5,
            _ => 1,
        };
        let mut params =
            json!({"operation": "diff", "expression": expression(p, &c["f"])?, "order": order});
        let f_text = params["expression"].as_str().unwrap_or("").to_string();
        let v = (c.name("v").or(c.name("v2")).map(|m| m.as_str().to_string()))
            .or_else(|| constant_variable(&f_text).map(str::to_string));
        if let Some(v) = &v {
            params["variable"] = json!(v);
        }
        if let Some(at) = c.name("at") {
            // "at 3" names no variable: x, the one a derivative without one is taken in.
            let variable = v.unwrap_or_else(|| "x".into());
            params["variable"] = json!(variable);
            return Ok(Some(Route::DerivativeAt {
                params,
                variable,
                point: bound(at.as_str()),
            }));
        }
        return Ok(Some(Route::Symbolic { params }));
    }
    if let Some(c) = p.limit.captures(q).or_else(|| p.lim_arrow.captures(q)) {
        let point = c["p"].trim().to_lowercase();
        let (point, direction) = if let Some(x) = point
            .strip_suffix("from the right")
            .or_else(|| point.strip_suffix("from above"))
        {
            (x.trim().to_string(), Some("+"))
        } else if let Some(x) = point
            .strip_suffix("from the left")
            .or_else(|| point.strip_suffix("from below"))
        {
            (x.trim().to_string(), Some("-"))
        } else {
            (point, None)
        };
        let mut params = json!({"operation": "limit", "expression": expression(p, &c["f"])?, "variable": &c["v"], "point": bound(&point)});
        if let Some(d) = direction {
            params["direction"] = json!(d);
        }
        return Ok(Some(Route::Symbolic { params }));
    }
    if let Some(c) = p.solve.captures(q).or_else(|| p.roots.captures(q)) {
        let mut eq = c["eq"].trim();
        let real = p
            .real_domain
            .captures(eq)
            .map(|m| m.name("eq").map_or("", |e| e.as_str()));
        if let Some(e) = real {
            eq = e;
        }
        // Several equations: "a = b and c = d", "a = b; c = d", "a = b, c = d".
        let several = eq.contains(';')
            || eq.contains(" and ")
            || eq.matches('=').count() > 1 && eq.contains(',');
        let mut params = if several {
            let mut equations = Vec::new();
            for e in eq.split([';', ',']).flat_map(|e| e.split(" and ")) {
                equations.push(expression(p, e)?);
            }
            json!({"operation": "solve", "equations": equations})
        } else {
            json!({"operation": "solve", "expression": expression(p, eq)?})
        };
        if real.is_some() {
            params["domain"] = json!("real");
        }
        if let Some(v) = c.name("v") {
            params["variable"] = json!(v.as_str());
        }
        return Ok(Some(Route::Symbolic { params }));
    }
    if let Some(c) = p.algebra.captures(q) {
        let f = expression(p, &c["f"])?;
        let f = f.as_str();
        let op = match c["op"].to_lowercase().as_str() {
            "simplify" => "simplify",
            "expand" => "expand",
            _ => "factor",
        };
        // `factor 360` asks for primes, which SymPy's factor (of polynomials) does not give: not guessed at.
        if op == "factor" && !f.chars().any(char::is_alphabetic) {
            return Err(Unread {
                why: format!("`factor {f}` asks for a prime factorisation, which it does not route; use execute_python with sympy.factorint"),
            });
        }
        return Ok(Some(Route::Symbolic {
            params: json!({"operation": op, "expression": f}),
        }));
    }
    if let Some(c) = p.series.captures(q) {
        let mut params = json!({"operation": "series", "expression": expression(p, &c["f"])?});
        if let Some(v) = c.name("v") {
            params["variable"] = json!(v.as_str());
        }
        let point = c.name("p").map_or("0".to_string(), |m| bound(m.as_str()));
        let maclaurin = c
            .name("kind")
            .is_some_and(|m| m.as_str().eq_ignore_ascii_case("maclaurin"));
        if maclaurin && point != "0" {
            return Err(Unread {
                why: "a Maclaurin series is about 0".into(),
            });
        }
        params["point"] = json!(point);
        // "to order n" keeps the (x - a)^n term, as WolframAlpha and textbooks mean it; SymPy's `order` is the
        // first power left out.
        if let Some(n) = c.name("n").and_then(|m| m.as_str().parse::<u64>().ok()) {
            params["order"] = json!(n.saturating_add(1));
        }
        return Ok(Some(Route::Symbolic { params }));
    }
    Ok(None)
}

/// An integrand and its variable, from "x^2 dx" or "x^2 with respect to x".
fn differential<'a>(p: &Patterns, body: &'a str) -> (&'a str, Option<&'a str>) {
    match p.differential.captures(body) {
        Some(c) => {
            let f = c.name("f").map_or(body, |m| m.as_str()).trim();
            let v = c.name("v").or(c.name("v2")).map(|m| m.as_str());
            (f, v)
        }
        None => (body.trim(), None),
    }
}

/// A calculus expression as a question writes it, checked to be one: "the function" goes, "x squared" is
/// `x^2`, and every word must be a variable (one letter, or a Greek letter's name) or a function or constant
/// SymPy knows, so English left in ("please", "numerically", "over the integers") or Python
/// (`__import__`) is refused instead of read as symbols multiplied together.
fn expression(p: &Patterns, text: &str) -> Result<String, Unread> {
    static WORDS: OnceLock<[(Regex, &'static str); 2]> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let r = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        [
            (r(r"(?i)(?P<x>[\w.]+|\([^()]*\))\s+squared\b"), "($x)^2"),
            (r(r"(?i)(?P<x>[\w.]+|\([^()]*\))\s+cubed\b"), "($x)^3"),
        ]
    });
    let mut e = p.preamble.replace(text.trim(), "").trim().to_string();
    for (re, rep) in words {
        e = re.replace_all(&e, *rep).into_owned();
    }
    // "sin x" is sin(x) and "sin x cos x" sin(x)*cos(x); SymPy's own implicit application would read "sin x * 2"
    // as sin(2x). "sin x^2" could be either and is refused.
    static APPLIED: OnceLock<Regex> = OnceLock::new();
    let applied = APPLIED.get_or_init(|| {
        Regex::new(r"\b(?P<f>sin|cos|tan|sec|csc|cot|sinh|cosh|tanh|arcsin|arccos|arctan|asin|acos|atan|exp|log|ln|sqrt)\s+(?P<x>[A-Za-z0-9.]+)(?P<next>\s*[\^(]?)")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    if let Some(c) = applied
        .captures_iter(&e)
        .find(|c| !c["next"].trim().is_empty())
    {
        return Err(Unread {
            why: format!(
                "`{} {}{}` could be read two ways: write {}({}{}...) or {}({}){}...",
                &c["f"],
                &c["x"],
                c["next"].trim(),
                &c["f"],
                &c["x"],
                c["next"].trim(),
                &c["f"],
                &c["x"],
                c["next"].trim()
            ),
        });
    }
    e = applied.replace_all(&e, "$f($x)$next").into_owned();
    // A lone `I` or `E` is SymPy's imaginary unit or Euler's number, in a question more likely a current or an
    // energy ("solve V = I*R for R"): refused rather than read either way.
    if let Some(w) = e
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find(|w| matches!(*w, "I" | "E"))
    {
        return Err(Unread {
            why: format!("`{w}` in `{e}` could be SymPy's {} or a variable: write {} for that, or use another letter", if w == "I" { "imaginary unit" } else { "Euler's number" }, if w == "I" { "i" } else { "e" }),
        });
    }
    if e.is_empty() {
        return Err(Unread {
            why: "the question names no expression".into(),
        });
    }
    for word in e.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let letters = word.trim_end_matches(|c: char| c.is_ascii_digit());
        let ok = word.is_empty()
            || word.starts_with(|c: char| c.is_ascii_digit())
            || letters.chars().count() == 1
            || SYMPY_NAMES.contains(&word)
            || GREEK.contains(&letters.to_lowercase().as_str());
        if !ok {
            return Err(Unread {
                why: format!("`{word}` in `{e}` is neither a one-letter variable nor a function or constant it knows (write the expression alone)"),
            });
        }
    }
    Ok(e)
}

/// Functions and constants a calculus expression may name (SymPy's, and the spellings symbolic_math reads).
const SYMPY_NAMES: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "sec",
    "csc",
    "cot",
    "asin",
    "acos",
    "atan",
    "acot",
    "asec",
    "acsc",
    "arcsin",
    "arccos",
    "arctan",
    "arccot",
    "arcsec",
    "arccsc",
    "sinh",
    "cosh",
    "tanh",
    "coth",
    "sech",
    "csch",
    "asinh",
    "acosh",
    "atanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "exp",
    "log",
    "ln",
    "log10",
    "log2",
    "sqrt",
    "cbrt",
    "root",
    "abs",
    "Abs",
    "sign",
    "sgn",
    "floor",
    "ceiling",
    "ceil",
    "factorial",
    "binomial",
    "gamma",
    "erf",
    "erfc",
    "erfi",
    "Si",
    "Ci",
    "Ei",
    "li",
    "zeta",
    "besselj",
    "bessely",
    "besseli",
    "besselk",
    "Heaviside",
    "DiracDelta",
    "pi",
    "oo",
    "inf",
    "infinity",
    "re",
    "im",
    "conjugate",
    "arg",
    "max",
    "min",
    "Max",
    "Min",
    "mod",
    "Mod",
    "tg",
    "ctg",
];

/// Greek letters' names, read as variables.
const GREEK: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi",
    "omega",
];

/// The variable of a constant's integral or derivative ("integral of 3 from 0 to 2"): x, as a question means it.
fn constant_variable(expression: &str) -> Option<&'static str> {
    (!expression.chars().any(|c| c.is_alphabetic())).then_some("x")
}

/// A bound or point as SymPy reads it: "infinity" is `oo`.
fn bound(text: &str) -> String {
    let t = text.trim();
    match t.to_lowercase().as_str() {
        "infinity" | "inf" | "∞" | "+infinity" | "+inf" | "+∞" => "oo".into(),
        "-infinity" | "-inf" | "-∞" | "minus infinity" | "negative infinity" => "-oo".into(),
        _ => t.to_string(),
    }
}

/// Arithmetic in words or symbols, as `calculator` reads it; `None` when it is not arithmetic, an error when
/// its words could be read two ways.
fn arithmetic(p: &Patterns, q: &str) -> Result<Option<String>, Unread> {
    static WORDS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    static ROOT: OnceLock<Regex> = OnceLock::new();
    static PERCENT: OnceLock<Regex> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        [
            (r"(?i)^the\s+", ""),
            (r"²", "^2"),
            (r"³", "^3"),
            (r"(?i)(?P<x>\d[\d.]*|\([^()]*\))\s+squared\b", "($x)^2"),
            (r"(?i)(?P<x>\d[\d.]*|\([^()]*\))\s+cubed\b", "($x)^3"),
            (r"(?i)(?P<x>\d+)\s+factorial\b", "$x!"),
            (r"(?i)\bfactorial\s+(?:of\s+)?(?P<x>\d+)", "$x!"),
            (r"(?i)\s+plus\s+", " + "),
            (r"(?i)\s+minus\s+", " - "),
            (r"(?i)\s+(?:times|multiplied\s+by)\s+", " * "),
            (r"(?i)\s+(?:divided\s+by|over)\s+", " / "),
            (
                r"(?i)\s+(?:to\s+the\s+power\s+of|raised\s+to(?:\s+the\s+power\s+of)?)\s+",
                " ^ ",
            ),
            (r"(?i)\s+mod(?:ulo)?\s+", " % "),
            (r"(?i)\s+to\s+the\s+power\s+", " ^ "),
            (
                r"(?i)\s+(?:to|raised\s+to)\s+the\s+(?P<n>\d+)(?:st|nd|rd|th)(?:\s+power)?\b",
                " ^ $n",
            ),
            (
                r"(?i)\b(?P<f>sqrt|cbrt|ln|log|log10|log2|exp)\s+(?:of\s+)?(?P<x>\d[\d.]*)\b",
                "$f($x)",
            ),
            (r"×|·|⋅", "*"),
            (r"÷", "/"),
            (r"−|–", "-"),
            (r"π", "pi"),
        ]
        .into_iter()
        .map(|(pat, rep)| {
            (
                Regex::new(pat).unwrap_or_else(|e| panic!("{pat}: {e}")),
                rep,
            )
        })
        .collect()
    });
    let lower = q.to_lowercase();
    let ambiguous = |why: &str| {
        Unread {
        why: format!("`{q}` could be read two ways ({why}); write it as an expression, e.g. with parentheses"),
    }
    };
    // Word operators around "percent of" and "factorial" bind in no agreed order ("10 squared percent of 50",
    // "2 cubed factorial"): refused, never read one way silently.
    let powers = ["squared", "cubed", "power", "root"];
    if (lower.contains("percent") || lower.contains("% of"))
        && (powers.iter().any(|w| lower.contains(w)) || lower.contains("factorial"))
    {
        return Err(ambiguous("a percentage beside a power or factorial"));
    }
    if lower.contains("factorial") && powers.iter().any(|w| lower.contains(w)) {
        return Err(ambiguous("a factorial beside a power"));
    }
    let mut e = q.to_string();
    // "square root of ..." takes the rest of the question, which must be one operand: "the square root of 3^2
    // + 4^2" is sqrt(3^2) + 4^2 or sqrt(3^2 + 4^2).
    let root = ROOT.get_or_init(|| {
        Regex::new(r"(?i)^(?:the\s+)?(?P<f>square|cube)\s+root\s+of\s+(?P<x>.+)$")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    if let Some(c) = root.captures(q) {
        let inner = arithmetic(p, &c["x"])?;
        let Some(inner) = inner else {
            return Ok(None);
        };
        if top_level_operator(&inner) {
            return Err(ambiguous("a root of a sum or product"));
        }
        let f = if c["f"].eq_ignore_ascii_case("square") {
            "sqrt"
        } else {
            "cbrt"
        };
        return Ok(Some(format!("{f}({inner})")));
    }
    // "P% of N" (or "P percent of N"), the whole question.
    let percent = PERCENT.get_or_init(|| {
        Regex::new(r"(?i)^(?P<x>\d[\d.]*)\s*(?:%|percent)\s+of\s+(?P<y>\d[\d.]*|\([^()]*\))$")
            .unwrap_or_else(|e| panic!("{e}"))
    });
    if let Some(c) = percent.captures(q) {
        e = format!("({}/100*{})", &c["x"], &c["y"]);
    } else if lower.contains("percent") || lower.contains("% of") {
        return Err(ambiguous("a percentage inside a longer sum"));
    }
    for (re, rep) in words {
        e = re.replace_all(&e, *rep).into_owned();
    }
    let e = e.trim().to_string();
    // Every word must be one of calculator's functions or constants: "who won the 1998 world cup" is no sum.
    let known = e
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic()))
        .all(|w| CALCULATOR_NAMES.contains(&w));
    let has_value = e.chars().any(|c| c.is_ascii_digit())
        || e.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| matches!(w, "pi" | "e" | "tau"));
    Ok((known && p.arithmetic.is_match(&e) && has_value).then_some(e))
}

/// Whether an expression has `+`, `-`, `*` or `/` outside parentheses (a leading sign aside).
fn top_level_operator(e: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in e.trim().char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '+' | '-' | '*' | '/' if depth == 0 && i > 0 => return true,
            _ => {}
        }
    }
    false
}

/// The names calculator knows (docs/TOOLS.md, `calculator`).
const CALCULATOR_NAMES: &[&str] = &[
    "sqrt",
    "cbrt",
    "abs",
    "factorial",
    "gcd",
    "lcm",
    "exp",
    "ln",
    "log",
    "log10",
    "log2",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "min",
    "max",
    "comb",
    "perm",
    "pi",
    "e",
    "tau",
];

/// What a question was read as, in words (the result's `interpretation`).
pub(crate) fn interpretation(route: &Route) -> String {
    match route {
        Route::Calculator { expression } => expression.clone(),
        Route::Symbolic { params } => {
            let op = params["operation"].as_str().unwrap_or("");
            let e = params["expression"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| params["equations"].to_string());
            let mut s = format!("{op} {e}");
            if let Some(v) = params["variable"].as_str() {
                s += &format!(" with respect to {v}");
            }
            if let (Some(a), Some(b)) = (params["lower"].as_str(), params["upper"].as_str()) {
                s += &format!(" from {a} to {b}");
            }
            if let Some(pt) = params["point"].as_str() {
                s += &format!(" at {pt}");
            }
            if let Some(d) = params["direction"].as_str() {
                s += &format!(" from {}", if d == "+" { "above" } else { "below" });
            }
            if let Some(n) = params["order"]
                .as_u64()
                .filter(|n| *n > 1 || op == "series")
            {
                s += &format!(" (order {n})");
            }
            s
        }
        Route::DerivativeAt {
            params,
            variable,
            point,
        } => format!(
            "{} at {variable} = {point}",
            interpretation(&Route::Symbolic {
                params: params.clone()
            })
        ),
        Route::Convert { value, from, to } => format!("convert {value} {from} to {to}"),
        Route::Fact { fact, to } => {
            let name = match fact {
                Fact::Codata(c) => c.name,
                Fact::Negated(c) => c.name,
                Fact::Iau(n) => n.name,
            };
            match to {
                Some(u) => format!("{name} in {u}"),
                None => name.to_string(),
            }
        }
        Route::Distance { a, b, stat, to } => {
            let s = match stat {
                Stat::Mean => "time-averaged",
                Stat::Least => "least",
                Stat::Greatest => "greatest",
            };
            let mut t = format!("{s} distance between {a} and {b}, 1900-2050");
            if let Some(u) = to {
                t += &format!(", in {u}");
            }
            t
        }
        Route::Element { element, property } => format!("{property} of the element {element}"),
        Route::MolarMass { formula, to } => match to {
            Some(u) => format!("molar mass of {formula} in {u}"),
            None => format!("molar mass of {formula}"),
        },
        Route::Compound {
            identifier,
            property,
            to,
        } => match to {
            Some(u) => format!("{property} of {identifier} in {u}"),
            None => format!("{property} of {identifier}"),
        },
    }
}
