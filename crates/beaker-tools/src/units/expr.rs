//! Unit expressions at run time: `km/h`, `kg*m/s^2`, `N·m`, `kWh`, `m³`, `m2`, `J/(kg*K)`, `kilometers per
//! hour`, `square feet`, `meters per second squared`. Parsed into a [`Quantity`]: an exact factor to SI base
//! units (a rational times a power of π), a dimension vector, and for a lone °C/°F its offset.

use super::table::{Dims, Prefixes, BINARY_PREFIXES, SI_PREFIXES, UNITS};
use rug::ops::Pow;
use rug::{Integer, Rational};
use std::sync::OnceLock;

/// Deepest parenthesis nesting in a unit expression (units are short; this only refuses abuse).
const MAX_DEPTH: usize = 32;
/// Largest exponent on a unit (`m^20`); beyond it nothing physical is meant.
const MAX_POWER: i32 = 20;
/// Longest unit expression, in bytes.
pub(crate) const MAX_UNIT_LEN: usize = 256;

/// A unit expression, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Quantity {
    pub factor: Rational,
    pub pi: i32,
    pub dims: [i32; 9],
    /// For a lone unit on a shifted scale (°C, °F): kelvin = (value + offset) × factor.
    pub offset: Option<Rational>,
    pub notes: Vec<&'static str>,
}

/// Why a unit expression could not be read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum UnitError {
    Unknown {
        name: String,
        suggestions: Vec<String>,
    },
    Syntax(String),
    /// A power beyond what a unit may carry (`m^999999999999`): a limit, not a typo.
    TooLarge(String),
}

impl Quantity {
    fn one() -> Quantity {
        Quantity {
            factor: Rational::from(1),
            pi: 0,
            dims: [0; 9],
            offset: None,
            notes: Vec::new(),
        }
    }

    /// A product or quotient: a shifted scale inside a compound unit means a temperature difference.
    fn combine(mut self, other: Quantity, divide: bool) -> Quantity {
        let sign = if divide { -1 } else { 1 };
        if divide {
            self.factor /= other.factor;
        } else {
            self.factor *= other.factor;
        }
        self.pi += sign * other.pi;
        for (a, b) in self.dims.iter_mut().zip(other.dims) {
            *a += sign * b;
        }
        if self.offset.is_some() || other.offset.is_some() {
            self.notes
                .push("°C and °F inside a compound unit are temperature differences");
        }
        self.offset = None;
        self.notes.extend(other.notes);
        self
    }

    fn pow(mut self, n: i32) -> Quantity {
        if n == 1 {
            return self;
        }
        self.factor = Pow::pow(self.factor, n);
        self.pi *= n;
        for a in &mut self.dims {
            *a *= n;
        }
        if self.offset.take().is_some() {
            self.notes
                .push("°C and °F inside a compound unit are temperature differences");
        }
        self
    }

    /// The dimension as the table's exponent vector, if it fits.
    pub(crate) fn dims8(&self) -> Option<Dims> {
        let mut out = [0i8; 9];
        for (o, d) in out.iter_mut().zip(self.dims) {
            *o = i8::try_from(d).ok()?;
        }
        Some(out)
    }
}

/// An exact rational from a decimal (`-1.5e-3`), refusing exponents beyond `max_exp`.
pub(crate) fn decimal(s: &str, max_exp: i64) -> Option<Rational> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    if exp.abs() > max_exp {
        return None;
    }
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits: Integer = format!("{int}{frac}").parse().ok()?;
    let scale = exp - frac.len() as i64;
    let ten = Integer::from(10);
    let mut q = Rational::from(digits);
    let p = u32::try_from(scale.unsigned_abs()).ok()?;
    if scale >= 0 {
        q *= ten.pow(p);
    } else {
        q /= ten.pow(p);
    }
    Some(if neg { -q } else { q })
}

/// A product/quotient of decimals (`"0.45359237*9.80665/0.00064516"`, `"1/3"`).
pub(crate) fn product(s: &str, max_exp: i64) -> Option<Rational> {
    let mut q = Rational::from(1);
    let mut divide = false;
    let mut rest = s;
    loop {
        let end = rest.find(['*', '/']).unwrap_or(rest.len());
        let x = decimal(&rest[..end], max_exp)?;
        if divide {
            if x == 0 {
                return None;
            }
            q /= x;
        } else {
            q *= x;
        }
        if end == rest.len() {
            return Some(q);
        }
        divide = rest.as_bytes()[end] == b'/';
        rest = &rest[end + 1..];
    }
}

/// The table's factors and offsets, parsed once.
fn parsed() -> &'static [(Rational, Option<Rational>)] {
    static P: OnceLock<Vec<(Rational, Option<Rational>)>> = OnceLock::new();
    P.get_or_init(|| {
        UNITS
            .iter()
            .map(|u| {
                let f = product(u.factor, 100).unwrap_or_else(|| Rational::from(1));
                (f, u.offset.and_then(|o| decimal(o, 100)))
            })
            .collect()
    })
}

fn from_def(i: usize, scale: Rational) -> Quantity {
    let def = &UNITS[i];
    let (factor, offset) = &parsed()[i];
    let mut dims = [0i32; 9];
    for (d, s) in dims.iter_mut().zip(def.dims) {
        *d = i32::from(s);
    }
    Quantity {
        factor: Rational::from(factor * &scale),
        pi: i32::from(def.pi),
        dims,
        // A prefixed temperature (none has prefixes) could not be shifted; offsets only on bare units.
        offset: offset.clone(),
        notes: def.note.into_iter().collect(),
    }
}

fn ten_to(e: i32) -> Rational {
    let p = Integer::from(Integer::u_pow_u(10, e.unsigned_abs()));
    if e >= 0 {
        Rational::from(p)
    } else {
        Rational::from((1, p))
    }
}

/// Singular forms a long name may stand for (`kilometers` → `kilometer`, `feet` → `foot`).
fn singulars(lower: &str) -> Vec<String> {
    let mut out = vec![lower.to_string()];
    let irregular = [
        ("feet", "foot"),
        ("inches", "inch"),
        ("degrees", "degree"),
        ("celsius", "celsius"),
    ];
    for (pl, sg) in irregular {
        if lower.contains(pl) && pl != sg {
            out.push(lower.replace(pl, sg));
        }
    }
    if let Some(s) = lower.strip_suffix("es") {
        out.push(s.to_string());
    }
    if let Some(s) = lower.strip_suffix('s') {
        out.push(s.to_string());
    }
    out
}

/// Every prefix once: (symbol, long name, scale, binary), SI then binary, longest symbols first.
fn prefixes() -> &'static [(&'static str, &'static str, Rational, bool)] {
    static P: OnceLock<Vec<(&'static str, &'static str, Rational, bool)>> = OnceLock::new();
    P.get_or_init(|| {
        let si = SI_PREFIXES
            .iter()
            .map(|(s, l, e)| (*s, *l, ten_to(*e), false));
        let bin = BINARY_PREFIXES
            .iter()
            .map(|(s, l, e)| (*s, *l, Rational::from(Integer::u_pow_u(2, *e)), true));
        si.chain(bin).collect()
    })
}

/// One unit name, with prefixes and plurals.
pub(crate) fn lookup(token: &str) -> Option<Quantity> {
    if let Some(i) = UNITS.iter().position(|u| u.symbols.contains(&token)) {
        return Some(from_def(i, Rational::from(1)));
    }
    let lower = token.to_lowercase();
    let forms = singulars(&lower);
    for f in &forms {
        if let Some(i) = UNITS.iter().position(|u| u.names.contains(&f.as_str())) {
            return Some(from_def(i, Rational::from(1)));
        }
    }
    // A prefix applies to units that take it: SI prefixes to SI units, binary ones to data units only.
    let takes = |u: &super::table::Def, binary: bool| match u.prefixes {
        Prefixes::None => false,
        Prefixes::Si => !binary,
        Prefixes::SiBinary => true,
    };
    for (sym, _, scale, binary) in prefixes() {
        if let Some(rest) = token.strip_prefix(sym) {
            if let Some(i) = UNITS
                .iter()
                .position(|u| takes(u, *binary) && u.symbols.contains(&rest))
            {
                return Some(from_def(i, scale.clone()));
            }
        }
    }
    for f in &forms {
        for (_, long, scale, binary) in prefixes() {
            if let Some(rest) = f.strip_prefix(long) {
                if let Some(i) = UNITS
                    .iter()
                    .position(|u| takes(u, *binary) && u.names.contains(&rest))
                {
                    return Some(from_def(i, scale.clone()));
                }
            }
        }
    }
    None
}

/// Known names closest to `name` (edit distance), for an unknown-unit message.
pub(crate) fn suggestions(name: &str) -> Vec<String> {
    let mut known: Vec<String> = Vec::new();
    for u in UNITS {
        known.extend(u.symbols.iter().map(|s| s.to_string()));
        known.extend(u.names.iter().map(|s| s.replace('_', " ")));
        if u.prefixes != Prefixes::None {
            for p in ["k", "m", "M", "G", "µ", "c", "n"] {
                known.extend(u.symbols.iter().map(|s| format!("{p}{s}")));
            }
        }
    }
    let lower = name.to_lowercase();
    let mut scored: Vec<(usize, String)> = known
        .into_iter()
        .map(|k| (strsim::levenshtein(&lower, &k.to_lowercase()), k))
        .filter(|(d, _)| *d <= 2.max(name.chars().count() / 3))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(3).map(|(_, k)| k).collect()
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Num(i32),
    Mul,
    Div,
    Pow,
    Minus,
    Open,
    Close,
}

fn superscript(c: char) -> Option<i32> {
    Some(match c {
        '⁰' => 0,
        '¹' => 1,
        '²' => 2,
        '³' => 3,
        '⁴' => 4,
        '⁵' => 5,
        '⁶' => 6,
        '⁷' => 7,
        '⁸' => 8,
        '⁹' => 9,
        _ => return None,
    })
}

fn is_name_char(c: char) -> bool {
    c.is_alphabetic() || matches!(c, '_' | '°' | '℃' | '℉' | '′' | '″' | 'Δ')
}

/// Multi-word long names as people write them (`nautical miles`, `degrees celsius`), each with the table
/// name it stands for; built once.
fn multiword() -> &'static [(String, &'static str)] {
    static M: OnceLock<Vec<(String, &'static str)>> = OnceLock::new();
    M.get_or_init(|| {
        let mut out = Vec::new();
        for u in UNITS {
            for n in u.names.iter().filter(|n| n.contains('_')) {
                let words: Vec<&str> = n.split('_').collect();
                let spaced = words.join(" ");
                // The plural may be on the first word (`degrees celsius`) or the last (`light years`).
                out.push((format!("{spaced}s"), *n));
                out.push((format!("{}s {}", words[0], words[1..].join(" ")), *n));
                out.push((spaced, *n));
            }
        }
        out
    })
}

/// Multi-word long names joined with `_` so the lexer sees one name.
fn join_multiword(s: &str) -> String {
    let mut out = s.to_string();
    if !s.contains(' ') {
        return out;
    }
    let mut lower = out.to_lowercase();
    // Only where the lowercase text lines up byte for byte with the original (ASCII case changes).
    if lower.len() != out.len() {
        return out;
    }
    for (from, to) in multiword() {
        if let Some(i) = lower.find(from.as_str()) {
            out.replace_range(i..i + from.len(), to);
            lower = out.to_lowercase();
        }
    }
    out
}

/// The superscript digits at the front of `chars` as a power (`²` is 2).
fn superscript_number(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
) -> Result<i32, UnitError> {
    let mut text = String::new();
    while let Some(d) = chars.peek().and_then(|c| superscript(*c)) {
        text.push_str(&d.to_string());
        chars.next();
    }
    if text.is_empty() {
        return Err(UnitError::Syntax(
            "expected superscript digits after `⁻`".into(),
        ));
    }
    text.parse::<i32>()
        .ok()
        .filter(|n| *n <= MAX_POWER)
        .ok_or_else(|| too_large_power(&text))
}

fn too_large_power(text: &str) -> UnitError {
    UnitError::TooLarge(format!(
        "the power {text} is above {MAX_POWER}, the largest a unit may carry"
    ))
}

fn lex(s: &str) -> Result<Vec<Tok>, UnitError> {
    let s = join_multiword(s);
    let mut toks = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            _ if c.is_whitespace() => {
                chars.next();
            }
            '*' | '·' | '⋅' | '×' | '•' => {
                chars.next();
                if c == '*' && chars.peek() == Some(&'*') {
                    chars.next();
                    toks.push(Tok::Pow);
                } else {
                    toks.push(Tok::Mul);
                }
            }
            '/' => {
                chars.next();
                toks.push(Tok::Div);
            }
            '^' => {
                chars.next();
                toks.push(Tok::Pow);
            }
            '-' => {
                chars.next();
                toks.push(Tok::Minus);
            }
            '⁻' => {
                // `s⁻²`: a superscript minus starts a superscript power.
                chars.next();
                let n = superscript_number(&mut chars)?;
                toks.extend([Tok::Pow, Tok::Minus, Tok::Num(n)]);
            }
            '(' => {
                chars.next();
                toks.push(Tok::Open);
            }
            ')' => {
                chars.next();
                toks.push(Tok::Close);
            }
            _ if superscript(c).is_some() => {
                let n = superscript_number(&mut chars)?;
                toks.push(Tok::Pow);
                toks.push(Tok::Num(n));
            }
            _ if c.is_ascii_digit() => {
                let mut text = String::new();
                while let Some(d) = chars.peek().filter(|c| c.is_ascii_digit()) {
                    text.push(*d);
                    chars.next();
                }
                // After `^` (or `^-`) the number is a power, refused here while its text is at hand; elsewhere a
                // number is whatever the parser makes of it (`21` alone is not a unit).
                let after_pow =
                    matches!(toks.as_slice(), [.., Tok::Pow] | [.., Tok::Pow, Tok::Minus]);
                let n = match text.parse::<i32>() {
                    Ok(n) if !(after_pow && n > MAX_POWER) => n,
                    _ if after_pow => return Err(too_large_power(&text)),
                    _ => i32::MAX,
                };
                toks.push(Tok::Num(n));
            }
            _ if is_name_char(c) => {
                let mut name = String::new();
                while let Some(&c) = chars.peek() {
                    if is_name_char(c) {
                        // Greek mu and the ohm sign are the micro sign and omega people mean.
                        name.push(match c {
                            'μ' => 'µ',
                            'Ω' => 'Ω',
                            _ => c,
                        });
                        chars.next();
                    } else {
                        break;
                    }
                }
                toks.push(Tok::Name(name));
                // `m2`, `s3`: digits right after a name are its power.
                if chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                    toks.push(Tok::Pow);
                }
            }
            _ => return Err(UnitError::Syntax(format!("unexpected character `{c}`"))),
        }
    }
    Ok(toks)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Name(n)) if n.eq_ignore_ascii_case(w))
    }

    fn expr(&mut self, depth: usize) -> Result<Quantity, UnitError> {
        let mut q = self.term(depth)?;
        loop {
            let divide = match self.peek() {
                Some(Tok::Div) => true,
                Some(Tok::Mul) => false,
                Some(Tok::Name(_)) if self.word("per") => true,
                Some(Tok::Name(_) | Tok::Open | Tok::Num(_)) => {
                    // Juxtaposition multiplies (`kg m^2 s^-2`, `N m`).
                    q = q.combine(self.term(depth)?, false);
                    continue;
                }
                _ => return Ok(q),
            };
            self.at += 1;
            q = q.combine(self.term(depth)?, divide);
        }
    }

    fn term(&mut self, depth: usize) -> Result<Quantity, UnitError> {
        let mut power = 1;
        if self.word("square") || self.word("sq") {
            self.at += 1;
            power = 2;
        } else if self.word("cubic") {
            self.at += 1;
            power = 3;
        }
        let mut q = self.atom(depth)?;
        if self.peek() == Some(&Tok::Pow) {
            self.at += 1;
            let neg = if self.peek() == Some(&Tok::Minus) {
                self.at += 1;
                true
            } else {
                false
            };
            let Some(Tok::Num(n)) = self.peek().cloned() else {
                return Err(UnitError::Syntax(
                    "expected an integer power after `^`".into(),
                ));
            };
            self.at += 1;
            if n > MAX_POWER {
                return Err(too_large_power(&n.to_string()));
            }
            power *= if neg { -n } else { n };
        }
        if self.word("squared") {
            self.at += 1;
            power *= 2;
        } else if self.word("cubed") {
            self.at += 1;
            power *= 3;
        }
        if power == 0 {
            return Err(UnitError::Syntax(
                "a unit to the power 0 is not a unit".into(),
            ));
        }
        q = q.pow(power);
        Ok(q)
    }

    fn atom(&mut self, depth: usize) -> Result<Quantity, UnitError> {
        match self.peek().cloned() {
            Some(Tok::Open) => {
                if depth >= MAX_DEPTH {
                    return Err(UnitError::Syntax("the unit nests too deeply".into()));
                }
                self.at += 1;
                let q = self.expr(depth + 1)?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(UnitError::Syntax("a `(` is not closed".into()));
                }
                self.at += 1;
                Ok(q)
            }
            Some(Tok::Num(1)) => {
                self.at += 1;
                Ok(Quantity::one())
            }
            Some(Tok::Name(n)) => {
                self.at += 1;
                lookup(&n).ok_or_else(|| UnitError::Unknown {
                    suggestions: suggestions(&n),
                    name: n,
                })
            }
            Some(t) => Err(UnitError::Syntax(format!("unexpected {}", show(&t)))),
            None => Err(UnitError::Syntax("the unit ends too early".into())),
        }
    }
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Num(n) => format!("number {n}"),
        Tok::Mul => "`*`".into(),
        Tok::Div => "`/`".into(),
        Tok::Pow => "`^`".into(),
        Tok::Minus => "`-`".into(),
        Tok::Open => "`(`".into(),
        Tok::Close => "`)`".into(),
    }
}

/// Parses a unit expression.
pub(crate) fn parse_unit(s: &str) -> Result<Quantity, UnitError> {
    if s.len() > MAX_UNIT_LEN {
        return Err(UnitError::Syntax(format!(
            "the unit is longer than {MAX_UNIT_LEN} bytes"
        )));
    }
    let toks = lex(s)?;
    if toks.is_empty() {
        return Err(UnitError::Syntax("the unit is empty".into()));
    }
    let mut p = Parser { toks, at: 0 };
    let q = p.expr(0)?;
    match p.peek() {
        None => Ok(q),
        Some(t) => Err(UnitError::Syntax(format!("unexpected {}", show(t)))),
    }
}
