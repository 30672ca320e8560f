//! Unit expressions at run time: `km/h`, `kg*m/s^2`, `N·m`, `kWh`, `m³`, `m2`, `J/(kg*K)`, `kilometers per
//! hour`, `square feet`, `meters per second squared`. Parsed into a [`Quantity`]: an exact factor to SI base
//! units (a rational times a power of π), a dimension vector, and for a lone °C/°F its offset.

use super::table::{Def, Dims, BINARY_PREFIXES, SI_PREFIXES, UNITS};
use rug::ops::Pow;
use rug::{Integer, Rational};
use std::sync::OnceLock;

/// Deepest parenthesis nesting in a unit expression (units are short; this only refuses abuse).
const MAX_DEPTH: usize = 32;
/// Largest exponent on a unit (`m^20`); beyond it nothing physical is meant.
const MAX_POWER: i32 = 20;
/// Longest unit expression, in bytes.
pub const MAX_UNIT_LEN: usize = 256;

/// A unit expression, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    /// The exact factor to SI base units (times π to the power [`Quantity::pi`]).
    pub factor: Rational,
    /// The power of π in the factor (angles: a degree is π/180 rad).
    pub pi: i32,
    /// Exponents of the base dimensions, in the order of [`crate::table::BASE`].
    pub dims: [i32; 9],
    /// For a lone unit on a shifted scale (°C, °F): kelvin = (value + offset) × factor.
    pub offset: Option<Rational>,
    /// What the reading chose for the caller to know (an ambiguous symbol resolved as Pint resolves it).
    pub notes: Vec<String>,
}

/// Why a unit expression could not be read.
#[derive(Debug, Clone, PartialEq)]
pub enum UnitError {
    /// No unit is spelled `name`.
    Unknown {
        /// The spelling.
        name: String,
        /// Close spellings of known units (or examples of the dimension asked for: see `examples_of`).
        suggestions: Vec<String>,
        /// When set, `suggestions` are not close spellings but examples of units of this dimension (the one the
        /// other side asks for), because no known unit of it is spelled like `name`.
        examples_of: Option<String>,
    },
    /// A spelling that is no symbol, and that matches several units when case is ignored (`MM`: mm, Mm, mM).
    Ambiguous {
        /// The spelling.
        name: String,
        /// The units it could be.
        candidates: Vec<String>,
    },
    /// The expression is not a unit expression (the message says where).
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
                .push("°C and °F inside a compound unit are temperature differences".into());
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
                .push("°C and °F inside a compound unit are temperature differences".into());
        }
        self
    }

    /// The dimension as the table's exponent vector, if it fits.
    pub fn dims8(&self) -> Option<Dims> {
        let mut out = [0i8; 9];
        for (o, d) in out.iter_mut().zip(self.dims) {
            *o = i8::try_from(d).ok()?;
        }
        Some(out)
    }
}

/// An exact rational from a decimal (`-1.5e-3`), refusing exponents beyond `max_exp`.
pub fn decimal(s: &str, max_exp: i64) -> Option<Rational> {
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
pub fn product(s: &str, max_exp: i64) -> Option<Rational> {
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
        notes: def.note.into_iter().map(String::from).collect(),
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
        ("henries", "henry"),
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

/// One prefix: its symbol, long name, scale, and power of ten (0 for a binary prefix).
pub struct Prefix {
    /// Its symbol (`k`, `Mi`).
    pub sym: &'static str,
    /// Its long name (`kilo`, `mebi`).
    pub long: &'static str,
    /// The exact factor it scales by.
    pub scale: Rational,
    /// Its power of ten (0 for a binary prefix).
    pub pow10: i32,
    /// Whether it is a binary prefix (powers of 1024).
    pub binary: bool,
}

impl Prefix {
    fn applies_to(&self, u: &Def) -> bool {
        u.prefixes.takes(self.pow10, self.binary)
    }
}

/// Every prefix once, SI then binary, longest symbols first.
pub fn prefixes() -> &'static [Prefix] {
    static P: OnceLock<Vec<Prefix>> = OnceLock::new();
    P.get_or_init(|| {
        let si = SI_PREFIXES.iter().map(|(s, l, e)| Prefix {
            sym: s,
            long: l,
            scale: ten_to(*e),
            pow10: *e,
            binary: false,
        });
        let bin = BINARY_PREFIXES.iter().map(|(s, l, e)| Prefix {
            sym: s,
            long: l,
            scale: Rational::from(Integer::u_pow_u(2, *e)),
            pow10: 0,
            binary: true,
        });
        si.chain(bin).collect()
    })
}

/// A name as written, case-sensitive for symbols: a symbol, a long name (any case, plurals), a prefixed symbol
/// or a prefixed long name. The table index and the prefix's scale.
fn lookup_exact(token: &str) -> Option<(usize, Rational)> {
    if let Some(i) = UNITS.iter().position(|u| u.symbols.contains(&token)) {
        return Some((i, Rational::from(1)));
    }
    let lower = token.to_lowercase();
    let forms = singulars(&lower);
    for f in &forms {
        if let Some(i) = UNITS.iter().position(|u| u.names.contains(&f.as_str())) {
            return Some((i, Rational::from(1)));
        }
    }
    // A prefix applies to the units that take it (table::Prefixes).
    for p in prefixes() {
        if let Some(rest) = token.strip_prefix(p.sym) {
            if let Some(i) = UNITS
                .iter()
                .position(|u| p.applies_to(u) && u.symbols.contains(&rest))
            {
                return Some((i, p.scale.clone()));
            }
        }
    }
    for f in &forms {
        for p in prefixes() {
            if let Some(rest) = f.strip_prefix(p.long) {
                if let Some(i) = UNITS
                    .iter()
                    .position(|u| p.applies_to(u) && u.names.contains(&rest))
                {
                    return Some((i, p.scale.clone()));
                }
            }
        }
    }
    None
}

/// Every symbol spelling the table accepts: each unit's symbols, bare and with each prefix it takes, with the
/// unit's index and its spelling in lower case. Spellings that read as another unit (a prefixed spelling that
/// is itself a symbol) are left out. Built once.
fn spellings() -> &'static [(String, String, usize)] {
    static S: OnceLock<Vec<(String, String, usize)>> = OnceLock::new();
    S.get_or_init(|| {
        let mut out = Vec::new();
        for (i, u) in UNITS.iter().enumerate() {
            for sym in u.symbols {
                let mut push = |sp: String| {
                    if lookup_exact(&sp).is_some_and(|(j, _)| j == i) {
                        out.push((sp.to_lowercase(), sp, i));
                    }
                };
                push((*sym).to_string());
                for p in prefixes().iter().filter(|p| p.applies_to(u)) {
                    push(format!("{}{sym}", p.sym));
                }
            }
        }
        out
    })
}

/// The case rule's fallback: the spellings equal to `token` when case is ignored, one per distinct unit.
fn case_matches(token: &str) -> Vec<(&'static str, Quantity)> {
    let lower = token.to_lowercase();
    let mut out: Vec<(&'static str, Quantity)> = Vec::new();
    for (l, sp, _) in spellings() {
        if *l != lower {
            continue;
        }
        let Some((i, scale)) = lookup_exact(sp) else {
            continue;
        };
        let q = from_def(i, scale);
        let same = |o: &Quantity| {
            o.factor == q.factor && o.pi == q.pi && o.dims == q.dims && o.offset == q.offset
        };
        if !out.iter().any(|(_, o)| same(o)) {
            out.push((sp.as_str(), q));
        }
    }
    out
}

/// One unit name. Symbols are case-sensitive (`ms` millisecond, `mS` millisiemens, `MS` megasiemens); long
/// names are not (`KILOMETERS`). A spelling that is neither is compared with every symbol ignoring case, and read
/// as the one unit it then matches (`KPH` as `kph`, `kWH` as `kWh`), with a note; when it matches several
/// (`MM`: mm, Mm, mM) or none, it is refused.
pub fn lookup(token: &str) -> Result<Quantity, UnitError> {
    if let Some((i, scale)) = lookup_exact(token) {
        return Ok(from_def(i, scale));
    }
    let mut matches = case_matches(token);
    match matches.len() {
        0 => Err(UnitError::Unknown {
            suggestions: suggestions(token, None),
            name: token.to_string(),
            examples_of: None,
        }),
        1 => {
            let (sp, mut q) = matches.remove(0);
            q.notes.push(format!(
                "{token} is read as {sp}: symbols are case-sensitive, and ignoring case only {sp} matches"
            ));
            Ok(q)
        }
        _ => Err(UnitError::Ambiguous {
            name: token.to_string(),
            candidates: matches.into_iter().map(|(s, _)| s.to_string()).collect(),
        }),
    }
}

/// Known spellings to suggest, each with its dimension: symbols, long names, and symbols with the common
/// prefixes each unit takes. Every one of them is accepted as written. Built once.
fn known() -> &'static [(String, Dims)] {
    static K: OnceLock<Vec<(String, Dims)>> = OnceLock::new();
    K.get_or_init(|| {
        let mut out: Vec<(String, Dims)> = Vec::new();
        let common = ["k", "m", "M", "G", "µ", "c", "n", "Ki", "Mi", "Gi"];
        for (i, u) in UNITS.iter().enumerate() {
            let mut push = |sp: String| {
                if lookup_exact(&sp).is_some_and(|(j, _)| j == i)
                    && !out.iter().any(|(k, _)| *k == sp)
                {
                    out.push((sp, u.dims));
                }
            };
            for s in u.symbols {
                push((*s).to_string());
            }
            for n in u.names {
                push(n.replace('_', " "));
            }
            for p in prefixes()
                .iter()
                .filter(|p| common.contains(&p.sym) && p.applies_to(u))
            {
                for s in u.symbols {
                    push(format!("{}{s}", p.sym));
                }
            }
        }
        out
    })
}

/// Known spellings closest to `name` (edit distance with transpositions, ignoring case, then with case, then
/// table order), at most three, within 1 edit for names up to 4 characters and a third of the length (at least
/// 2) beyond. With `want`, only units of that dimension when the table has any.
pub fn suggestions(name: &str, want: Option<&Dims>) -> Vec<String> {
    let want = want.filter(|w| known().iter().any(|(_, d)| d == *w));
    let lower = name.to_lowercase();
    let len = name.chars().count();
    let limit = if len <= 4 { 1 } else { 2.max(len / 3) };
    let mut scored: Vec<(usize, usize, usize, &str)> = known()
        .iter()
        .enumerate()
        .filter(|(_, (_, d))| want.is_none_or(|w| d == w))
        .map(|(i, (k, _))| {
            let ci = strsim::osa_distance(&lower, &k.to_lowercase());
            (ci, strsim::osa_distance(name, k), i, k.as_str())
        })
        .filter(|(d, ..)| *d <= limit)
        .collect();
    scored.sort_unstable();
    scored
        .into_iter()
        .take(3)
        .map(|(.., k)| k.to_string())
        .collect()
}

/// The first few symbols of units of dimension `want` (for an unknown unit no known one is spelled like).
pub fn examples(want: &Dims) -> Vec<String> {
    UNITS
        .iter()
        .filter(|u| u.dims == *want)
        .filter_map(|u| u.symbols.first().map(|s| (*s).to_string()))
        .take(5)
        .collect()
}

/// The dimension `name` must have for `unit` (an expression containing it) to have dimension `target`: found by
/// reading `unit` with `name` standing for 1 and for a length, since its dimension enters linearly. `None` when
/// the rest of `unit` does not parse or no whole dimension fits.
pub fn required_dims(unit: &str, name: &str, target: &[i32; 9]) -> Option<Dims> {
    let d0 = parse_with(unit, name, Quantity::one()).ok()?.dims;
    let mut len = Quantity::one();
    len.dims[0] = 1;
    let d1 = parse_with(unit, name, len).ok()?.dims;
    let k = d1[0] - d0[0];
    if k == 0 {
        return None;
    }
    let mut out = [0i8; 9];
    for ((o, t), z) in out.iter_mut().zip(target).zip(d0) {
        let diff = t - z;
        if diff % k != 0 {
            return None;
        }
        *o = i8::try_from(diff / k).ok()?;
    }
    Some(out)
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
    // Whole words only: `deg c` is not inside `deg cm`.
    let word_char = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    for (from, to) in multiword() {
        let found = lower
            .match_indices(from.as_str())
            .map(|(i, _)| i)
            .find(|&i| {
                !word_char(lower[..i].chars().next_back())
                    && !word_char(lower[i + from.len()..].chars().next())
            });
        if let Some(i) = found {
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
                // `N-m`, `kW-h`, `lbf-ft`: a hyphen between two names is a product; elsewhere a minus sign.
                let after_unit = matches!(
                    toks.as_slice(),
                    [.., Tok::Name(_) | Tok::Close] | [.., Tok::Pow, Tok::Num(_)]
                );
                if after_unit && chars.peek().is_some_and(|c| is_name_char(*c)) {
                    toks.push(Tok::Mul);
                } else {
                    toks.push(Tok::Minus);
                }
            }
            '.' => {
                // `N.m` is a product; `ft.` and `sq. ft.` are abbreviations, their dot dropped.
                chars.next();
                let after_name = matches!(toks.last(), Some(Tok::Name(_)));
                match chars.peek() {
                    Some(c) if after_name && is_name_char(*c) => toks.push(Tok::Mul),
                    None => {}
                    Some(c)
                        if after_name
                            && (c.is_whitespace() || matches!(c, '/' | ')' | '*' | '·')) => {}
                    _ => return Err(UnitError::Syntax("unexpected character `.`".into())),
                }
            }
            '%' | '‰' => {
                chars.next();
                toks.push(Tok::Name(c.to_string()));
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
    /// A name read as the given quantity instead of looked up (see [`required_dims`]).
    subst: Option<(String, Quantity)>,
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
        } else if self.word("cubic") || self.word("cu") {
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
                match &self.subst {
                    Some((name, q)) if *name == n => Ok(q.clone()),
                    _ => lookup(&n),
                }
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

/// Parses a unit expression with the name `name` read as `q`.
pub fn parse_with(s: &str, name: &str, q: Quantity) -> Result<Quantity, UnitError> {
    let mut p = Parser {
        toks: lex(s)?,
        at: 0,
        subst: Some((name.to_string(), q)),
    };
    let r = p.expr(0)?;
    match p.peek() {
        None => Ok(r),
        Some(t) => Err(UnitError::Syntax(format!("unexpected {}", show(t)))),
    }
}

/// Parses a unit expression.
pub fn parse_unit(s: &str) -> Result<Quantity, UnitError> {
    if s.len() > MAX_UNIT_LEN {
        return Err(UnitError::Syntax(format!(
            "the unit is longer than {MAX_UNIT_LEN} bytes"
        )));
    }
    let toks = lex(s)?;
    if toks.is_empty() {
        return Err(UnitError::Syntax("the unit is empty".into()));
    }
    let mut p = Parser {
        toks,
        at: 0,
        subst: None,
    };
    let q = p.expr(0)?;
    match p.peek() {
        None => Ok(q),
        Some(t) => Err(UnitError::Syntax(format!("unexpected {}", show(t)))),
    }
}
