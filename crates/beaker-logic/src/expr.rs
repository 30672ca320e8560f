//! The constraint language (z3py's notation) read into typed SMT-LIB 2 terms.
//!
//! Every term is type-checked here, before Z3 sees it: Z3's C API answers a sort error with an error code
//! that the bindings turn into a panic, so a badly typed constraint must never reach it.

use rug::Integer;
use std::collections::BTreeMap;
use std::fmt;

/// Deepest nesting of an expression (brackets, operators, calls).
pub const MAX_DEPTH: usize = 200;

/// Widest bit-vector.
pub const MAX_BV_WIDTH: u32 = 512;

/// Longest integer literal, in digits.
pub const MAX_LITERAL_DIGITS: usize = 10_000;

/// A variable's or a term's sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    /// Mathematical integers.
    Int,
    /// Real numbers (rationals and algebraic numbers in models).
    Real,
    /// Booleans.
    Bool,
    /// Bit-vectors of a width.
    BitVec(u32),
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Int => f.write_str("Int"),
            Sort::Real => f.write_str("Real"),
            Sort::Bool => f.write_str("Bool"),
            Sort::BitVec(n) => write!(f, "BitVec {n}"),
        }
    }
}

impl Sort {
    /// A sort as `variables` names it: `Int`, `Real`, `Bool`, `BitVec N`.
    pub fn parse(text: &str) -> Option<Sort> {
        let t = text.trim();
        match t {
            "Int" => Some(Sort::Int),
            "Real" => Some(Sort::Real),
            "Bool" => Some(Sort::Bool),
            _ => {
                let n = t
                    .strip_prefix("BitVec")?
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')');
                let n: u32 = n.trim().parse().ok()?;
                (1..=MAX_BV_WIDTH).contains(&n).then_some(Sort::BitVec(n))
            }
        }
    }

    /// The SMT-LIB name.
    pub fn smt(&self) -> String {
        match self {
            Sort::Int => "Int".into(),
            Sort::Real => "Real".into(),
            Sort::Bool => "Bool".into(),
            Sort::BitVec(n) => format!("(_ BitVec {n})"),
        }
    }

    fn numeric(&self) -> bool {
        matches!(self, Sort::Int | Sort::Real)
    }
}

/// A typed SMT-LIB term.
#[derive(Debug, Clone)]
pub struct Term {
    /// Its sort.
    pub sort: Sort,
    /// Its SMT-LIB text.
    pub smt: String,
    /// For an integer literal, its value: it takes the width of a bit-vector it meets.
    literal: Option<Integer>,
}

/// Why an expression was refused: the message names the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExprError {
    /// What is wrong, and where.
    pub message: String,
}

fn err<T>(message: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError {
        message: message.into(),
    })
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Int(String),
    Dec(String),
    Name(String),
    Op(&'static str),
    End,
}

const OPS: [&str; 24] = [
    "**", "==", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "<", ">", "(", ")", ",",
    "&", "|", "^", "~", "=", "[", "]",
];

fn lex(text: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X' | b'b' | b'B')) {
            // 0xFF and 0b1010, as in z3py (Python literals).
            let radix = if matches!(b[i + 1], b'x' | b'X') {
                16
            } else {
                2
            };
            i += 2;
            let digits_at = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let digits = text[digits_at..i].replace('_', "");
            if digits.len() > MAX_LITERAL_DIGITS {
                return err(format!("a literal of {} digits is too large", digits.len()));
            }
            let v = Integer::from_str_radix(&digits, radix).map_err(|_| ExprError {
                message: format!(
                    "{:?} at column {} is not a number",
                    &text[start..i],
                    start + 1
                ),
            })?;
            out.push((Tok::Int(v.to_string()), start));
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && b[i] == b'.' {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push((Tok::Dec(text[start..i].to_string()), start));
            } else {
                out.push((Tok::Int(text[start..i].to_string()), start));
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Name(text[start..i].to_string()), start));
            continue;
        }
        match OPS.iter().find(|op| text[i..].starts_with(**op)) {
            Some(op) => {
                out.push((Tok::Op(op), start));
                i += op.len();
            }
            None => {
                let ch = text[i..].chars().next().unwrap_or('?');
                return err(format!("unexpected character {ch:?} at column {}", i + 1));
            }
        }
    }
    out.push((Tok::End, text.len()));
    Ok(out)
}

/// Reads expressions over declared variables.
pub struct Reader<'a> {
    vars: &'a BTreeMap<String, Sort>,
}

struct Parser<'a, 'v> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    depth: usize,
    vars: &'v BTreeMap<String, Sort>,
    text: &'a str,
}

/// An SMT-LIB symbol for a user's name: always quoted, so names such as `div` or `true` cannot clash with
/// SMT-LIB's own.
pub fn symbol(name: &str) -> String {
    format!("|{name}|")
}

impl<'a> Reader<'a> {
    /// A reader over `vars` (name → sort).
    pub fn new(vars: &'a BTreeMap<String, Sort>) -> Self {
        Reader { vars }
    }

    /// One expression as a term.
    pub fn read(&self, text: &str) -> Result<Term, ExprError> {
        let toks = lex(text)?;
        let mut p = Parser {
            toks,
            pos: 0,
            depth: 0,
            vars: self.vars,
            text,
        };
        let t = p.expr()?;
        match p.peek() {
            Tok::End => Ok(t),
            tok => err(format!(
                "unexpected {} at column {} of {:?}",
                show(tok),
                p.col(),
                text
            )),
        }
    }

    /// One expression that must be a boolean (a constraint, claim or assumption).
    pub fn read_bool(&self, text: &str) -> Result<Term, ExprError> {
        let t = self.read(text)?;
        if t.sort != Sort::Bool {
            return err(format!(
                "{text:?} is a {} expression, not a constraint (a comparison or a boolean)",
                t.sort
            ));
        }
        Ok(t)
    }
}

fn show(t: &Tok) -> String {
    match t {
        Tok::Int(s) | Tok::Dec(s) => format!("number {s}"),
        Tok::Name(s) => format!("name `{s}`"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::End => "end of the expression".into(),
    }
}

fn lit(sort: Sort, smt: String) -> Term {
    Term {
        sort,
        smt,
        literal: None,
    }
}

fn int_smt(v: &Integer) -> String {
    if *v < 0 {
        format!("(- {})", Integer::from(v.abs_ref()))
    } else {
        v.to_string()
    }
}

fn bv_literal(v: &Integer, width: u32) -> String {
    // Two's complement: the value modulo 2^width, written (_ bvK width) with K in [0, 2^width).
    format!("(_ bv{} {width})", v.clone().keep_bits(width))
}

impl Parser<'_, '_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn col(&self) -> usize {
        self.toks[self.pos].1 + 1
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos].0.clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Tok::Op(o) if *o == op) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_name(&mut self, name: &str) -> bool {
        if matches!(self.peek(), Tok::Name(n) if n == name) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), ExprError> {
        if self.eat(op) {
            return Ok(());
        }
        err(format!(
            "expected `{op}` at column {} of {:?}, found {}",
            self.col(),
            self.text,
            show(self.peek())
        ))
    }

    fn nest(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(format!(
                "the expression is nested more than {MAX_DEPTH} deep"
            ));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Term, ExprError> {
        self.nest()?;
        let t = self.or();
        self.depth -= 1;
        t
    }

    fn or(&mut self) -> Result<Term, ExprError> {
        let mut t = self.and()?;
        while self.eat_name("or") {
            let r = self.and()?;
            t = logic("or", vec![t, r])?;
        }
        Ok(t)
    }

    fn and(&mut self) -> Result<Term, ExprError> {
        let mut t = self.not()?;
        while self.eat_name("and") {
            let r = self.not()?;
            t = logic("and", vec![t, r])?;
        }
        Ok(t)
    }

    fn not(&mut self) -> Result<Term, ExprError> {
        if self.eat_name("not") {
            self.nest()?;
            let t = self.not()?;
            self.depth -= 1;
            return logic("not", vec![t]);
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Term, ExprError> {
        let first = self.bitor()?;
        let mut parts = Vec::new();
        let mut left = first.clone();
        loop {
            let op = match self.peek() {
                Tok::Op(o @ ("==" | "!=" | "<" | "<=" | ">" | ">=")) => *o,
                Tok::Op("=") => {
                    return err(format!(
                        "`=` at column {} of {:?}: write `==` for equality",
                        self.col(),
                        self.text
                    ))
                }
                _ => break,
            };
            self.bump();
            let right = self.bitor()?;
            parts.push(compare(op, &left, &right)?);
            left = right;
        }
        match parts.len() {
            0 => Ok(first),
            1 => Ok(parts.remove(0)),
            _ => logic("and", parts),
        }
    }

    fn bitor(&mut self) -> Result<Term, ExprError> {
        let mut t = self.bitxor()?;
        while self.eat("|") {
            let r = self.bitxor()?;
            t = bitwise("|", t, r)?;
        }
        Ok(t)
    }

    fn bitxor(&mut self) -> Result<Term, ExprError> {
        let mut t = self.bitand()?;
        while self.eat("^") {
            let r = self.bitand()?;
            t = bitwise("^", t, r)?;
        }
        Ok(t)
    }

    fn bitand(&mut self) -> Result<Term, ExprError> {
        let mut t = self.shift()?;
        while self.eat("&") {
            let r = self.shift()?;
            t = bitwise("&", t, r)?;
        }
        Ok(t)
    }

    fn shift(&mut self) -> Result<Term, ExprError> {
        let mut t = self.sum()?;
        loop {
            let op = if self.eat("<<") {
                "bvshl"
            } else if self.eat(">>") {
                "bvashr"
            } else {
                return Ok(t);
            };
            let r = self.sum()?;
            t = bv_binary(op, t, r)?;
        }
    }

    fn sum(&mut self) -> Result<Term, ExprError> {
        let mut t = self.product()?;
        loop {
            let op = if self.eat("+") {
                "+"
            } else if self.eat("-") {
                "-"
            } else {
                return Ok(t);
            };
            let r = self.product()?;
            t = arith(op, t, r)?;
        }
    }

    fn product(&mut self) -> Result<Term, ExprError> {
        let mut t = self.unary()?;
        loop {
            let op = if self.eat("*") {
                "*"
            } else if self.eat("/") {
                "/"
            } else if self.eat("%") {
                "%"
            } else {
                return Ok(t);
            };
            let r = self.unary()?;
            t = arith(op, t, r)?;
        }
    }

    fn unary(&mut self) -> Result<Term, ExprError> {
        if self.eat("-") {
            self.nest()?;
            let t = self.unary()?;
            self.depth -= 1;
            if let Some(v) = t.literal {
                let v = -v;
                return Ok(Term {
                    sort: Sort::Int,
                    smt: int_smt(&v),
                    literal: Some(v),
                });
            }
            return match t.sort {
                Sort::Int | Sort::Real => Ok(lit(t.sort, format!("(- {})", t.smt))),
                Sort::BitVec(_) => Ok(lit(t.sort, format!("(bvneg {})", t.smt))),
                Sort::Bool => err("`-` of a boolean"),
            };
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.eat("~") {
            self.nest()?;
            let t = self.unary()?;
            self.depth -= 1;
            return match t.sort {
                Sort::Bool => Ok(lit(Sort::Bool, format!("(not {})", t.smt))),
                Sort::BitVec(_) => Ok(lit(t.sort, format!("(bvnot {})", t.smt))),
                _ => err("`~` needs a boolean or a bit-vector"),
            };
        }
        self.power()
    }

    fn power(&mut self) -> Result<Term, ExprError> {
        let base = self.atom()?;
        if self.eat("**") {
            self.nest()?;
            let exp = self.unary()?;
            self.depth -= 1;
            return power(base, exp);
        }
        Ok(base)
    }

    fn args(&mut self) -> Result<Vec<Term>, ExprError> {
        let mut out = Vec::new();
        if self.eat(")") {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat(")") {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }

    fn atom(&mut self) -> Result<Term, ExprError> {
        let col = self.col();
        match self.bump() {
            Tok::Int(s) => {
                if s.len() > MAX_LITERAL_DIGITS {
                    return err(format!(
                        "an integer literal of {} digits is too large (at most {MAX_LITERAL_DIGITS})",
                        s.len()
                    ));
                }
                let v = Integer::from_str_radix(&s, 10).map_err(|e| ExprError {
                    message: format!("integer literal {s}: {e}"),
                })?;
                Ok(Term {
                    sort: Sort::Int,
                    smt: s,
                    literal: Some(v),
                })
            }
            Tok::Dec(s) => {
                let s = if s.starts_with('.') {
                    format!("0{s}")
                } else if s.ends_with('.') {
                    format!("{s}0")
                } else {
                    s
                };
                Ok(lit(Sort::Real, s))
            }
            Tok::Op("(") => {
                self.nest()?;
                let t = self.expr()?;
                self.depth -= 1;
                self.expect(")")?;
                Ok(t)
            }
            Tok::Name(n) => {
                if self.eat("(") {
                    self.nest()?;
                    let args = self.args()?;
                    self.depth -= 1;
                    return call(&n, args, col, self.text);
                }
                match n.as_str() {
                    "True" | "true" => Ok(lit(Sort::Bool, "true".into())),
                    "False" | "false" => Ok(lit(Sort::Bool, "false".into())),
                    _ => match self.vars.get(&n) {
                        Some(sort) => Ok(lit(*sort, symbol(&n))),
                        None => err(format!(
                            "unknown name `{n}` at column {col} of {:?} (declare it in `variables`)",
                            self.text
                        )),
                    },
                }
            }
            tok => err(format!(
                "unexpected {} at column {col} of {:?}",
                show(&tok),
                self.text
            )),
        }
    }
}

fn logic(op: &str, args: Vec<Term>) -> Result<Term, ExprError> {
    for a in &args {
        if a.sort != Sort::Bool {
            return err(format!(
                "`{op}` needs booleans, got a {} expression",
                a.sort
            ));
        }
    }
    let inner: Vec<&str> = args.iter().map(|a| a.smt.as_str()).collect();
    Ok(lit(Sort::Bool, format!("({op} {})", inner.join(" "))))
}

const BV_MIX: &str =
    "an integer expression mixed with bit-vectors: convert it (Int2BV, BV2Int) or use a literal";

/// Two operands brought to one sort: Int with Real becomes Real; an integer literal takes a bit-vector's width.
fn unify(a: Term, b: Term) -> Result<(Sort, String, String), ExprError> {
    match (a.sort, b.sort) {
        (x, y) if x == y => Ok((x, a.smt, b.smt)),
        (Sort::Int, Sort::Real) => Ok((Sort::Real, format!("(to_real {})", a.smt), b.smt)),
        (Sort::Real, Sort::Int) => Ok((Sort::Real, a.smt, format!("(to_real {})", b.smt))),
        (Sort::BitVec(w), Sort::Int) => match &b.literal {
            Some(v) => Ok((Sort::BitVec(w), a.smt, bv_literal(v, w))),
            None => err(BV_MIX),
        },
        (Sort::Int, Sort::BitVec(w)) => match &a.literal {
            Some(v) => Ok((Sort::BitVec(w), bv_literal(v, w), b.smt)),
            None => err(BV_MIX),
        },
        (x, y) => err(format!("cannot combine a {x} with a {y} expression")),
    }
}

fn unify_all(args: Vec<Term>) -> Result<(Sort, Vec<String>), ExprError> {
    // The widest sort among them (Real over Int, a bit-vector over integer literals), then each converted.
    let mut target = args.first().map(|a| a.sort).unwrap_or(Sort::Int);
    for a in &args {
        target = match (target, a.sort) {
            (x, y) if x == y => x,
            (Sort::Int, Sort::Real) | (Sort::Real, Sort::Int) => Sort::Real,
            (Sort::Int, s @ Sort::BitVec(_)) | (s @ Sort::BitVec(_), Sort::Int) => s,
            (x, y) => return err(format!("cannot combine a {x} with a {y} expression")),
        };
    }
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let s = match (a.sort, target) {
            (x, y) if x == y => a.smt,
            (Sort::Int, Sort::Real) => format!("(to_real {})", a.smt),
            (Sort::Int, Sort::BitVec(w)) => match &a.literal {
                Some(v) => bv_literal(v, w),
                None => return err(BV_MIX),
            },
            (x, y) => return err(format!("cannot combine a {x} with a {y} expression")),
        };
        out.push(s);
    }
    Ok((target, out))
}

fn compare(op: &str, a: &Term, b: &Term) -> Result<Term, ExprError> {
    let (sort, x, y) = unify(a.clone(), b.clone())?;
    let smt = match (op, sort) {
        ("==", _) => format!("(= {x} {y})"),
        ("!=", _) => format!("(not (= {x} {y}))"),
        (_, Sort::Bool) => return err(format!("`{op}` cannot compare booleans")),
        (_, Sort::BitVec(_)) => {
            // z3py: `<` and friends on bit-vectors are signed.
            let f = match op {
                "<" => "bvslt",
                "<=" => "bvsle",
                ">" => "bvsgt",
                _ => "bvsge",
            };
            format!("({f} {x} {y})")
        }
        _ => format!("({op} {x} {y})"),
    };
    Ok(lit(Sort::Bool, smt))
}

fn bitwise(op: &str, a: Term, b: Term) -> Result<Term, ExprError> {
    let (sort, x, y) = unify(a, b)?;
    let f = match (op, sort) {
        ("|", Sort::Bool) => "or",
        ("&", Sort::Bool) => "and",
        ("^", Sort::Bool) => "xor",
        ("|", Sort::BitVec(_)) => "bvor",
        ("&", Sort::BitVec(_)) => "bvand",
        ("^", Sort::BitVec(_)) => "bvxor",
        _ => {
            return err(format!(
                "`{op}` needs booleans or bit-vectors, got {sort} (use `**` for powers)"
            ))
        }
    };
    Ok(lit(sort, format!("({f} {x} {y})")))
}

fn bv_binary(f: &str, a: Term, b: Term) -> Result<Term, ExprError> {
    let (sort, x, y) = unify(a, b)?;
    if !matches!(sort, Sort::BitVec(_)) {
        return err(format!("`{f}` needs bit-vectors, got {sort}"));
    }
    Ok(lit(sort, format!("({f} {x} {y})")))
}

fn arith(op: &str, a: Term, b: Term) -> Result<Term, ExprError> {
    if let (Some(x), Some(y)) = (&a.literal, &b.literal) {
        // Fold literal arithmetic so literals stay literals (they can still take a bit-vector's width).
        if op == "/" {
            // Python evaluates `7 / 2` before z3py sees it: 3.5, a real, not integer division.
            if *y == 0 {
                return err("division by zero in a constant");
            }
            let q = rug::Rational::from((x.clone(), y.clone()));
            return Ok(lit(Sort::Real, rational_smt(&q)));
        }
        let v = match op {
            "+" => Some(Integer::from(x + y)),
            "-" => Some(Integer::from(x - y)),
            "*" if x.significant_bits() + y.significant_bits() <= 64 * 1024 => {
                Some(Integer::from(x * y))
            }
            // Python's modulus of constants (the sign of the divisor).
            "%" if *y != 0 => {
                let r = Integer::from(x % y);
                Some(if r != 0 && (r < 0) != (*y < 0) {
                    r + y
                } else {
                    r
                })
            }
            _ => None,
        };
        if let Some(v) = v {
            return Ok(Term {
                sort: Sort::Int,
                smt: int_smt(&v),
                literal: Some(v),
            });
        }
    }
    let (sort, x, y) = unify(a, b)?;
    let f = match (op, sort) {
        (_, Sort::Bool) => return err(format!("`{op}` of booleans")),
        ("+", Sort::BitVec(_)) => "bvadd",
        ("-", Sort::BitVec(_)) => "bvsub",
        ("*", Sort::BitVec(_)) => "bvmul",
        // z3py: `/` and `%` on bit-vectors are signed division and the signed modulus.
        ("/", Sort::BitVec(_)) => "bvsdiv",
        ("%", Sort::BitVec(_)) => "bvsmod",
        ("/", Sort::Int) => "div",
        ("%", Sort::Int) => "mod",
        ("%", Sort::Real) => return err("`%` needs integers or bit-vectors"),
        (o, _) => o,
    };
    Ok(lit(sort, format!("({f} {x} {y})")))
}

/// A rational constant as SMT-LIB: `(/ 7.0 2.0)`, `(- (/ 7.0 2.0))`.
fn rational_smt(q: &rug::Rational) -> String {
    let (n, d) = (q.numer(), q.denom());
    let body = if *d == 1 {
        format!("{}.0", Integer::from(n.abs_ref()))
    } else {
        format!("(/ {}.0 {d}.0)", Integer::from(n.abs_ref()))
    };
    if *n < 0 {
        format!("(- {body})")
    } else {
        body
    }
}

fn power(base: Term, exp: Term) -> Result<Term, ExprError> {
    if !base.sort.numeric() || !exp.sort.numeric() {
        return err("`**` needs numbers");
    }
    if let (Some(b), Some(e)) = (&base.literal, &exp.literal) {
        // Constants are computed exactly, as Python would: 2**65 is an integer, 2**-1 the real 1/2.
        let bits = u64::from(b.significant_bits());
        return match e.to_i64() {
            Some(k) if k >= 0 && bits.saturating_mul(k as u64) <= 64 * 1024 => {
                let v = Integer::from(rug::ops::Pow::pow(b, k as u32));
                Ok(Term {
                    sort: Sort::Int,
                    smt: int_smt(&v),
                    literal: Some(v),
                })
            }
            Some(k) if k < 0 && *b != 0 && bits.saturating_mul(k.unsigned_abs()) <= 64 * 1024 => {
                let d = Integer::from(rug::ops::Pow::pow(b, k.unsigned_abs() as u32));
                Ok(lit(
                    Sort::Real,
                    rational_smt(&rug::Rational::from((Integer::from(1), d))),
                ))
            }
            _ => err("a constant power too large to compute exactly (at most 65,536 bits)"),
        };
    }
    if base.sort == Sort::Int {
        if let Some(k) = exp.literal.as_ref().and_then(Integer::to_i64) {
            if (0..=64).contains(&k) {
                // An integer power by a small literal stays an integer (x*x*...), which Z3 reasons about exactly.
                if k == 0 {
                    return Ok(lit(Sort::Int, "1".into()));
                }
                let factors = vec![base.smt.as_str(); k as usize];
                return Ok(lit(
                    Sort::Int,
                    if k == 1 {
                        base.smt.clone()
                    } else {
                        format!("(* {})", factors.join(" "))
                    },
                ));
            }
        }
    }
    let b = if base.sort == Sort::Int {
        format!("(to_real {})", base.smt)
    } else {
        base.smt
    };
    let e = if exp.sort == Sort::Int {
        format!("(to_real {})", exp.smt)
    } else {
        exp.smt
    };
    Ok(lit(Sort::Real, format!("(^ {b} {e})")))
}

fn literal_arg(t: &Term, what: &str) -> Result<u32, ExprError> {
    match t.literal.as_ref().and_then(Integer::to_u32) {
        Some(v) if v <= MAX_BV_WIDTH => Ok(v),
        _ => err(format!(
            "{what} must be an integer literal from 0 to {MAX_BV_WIDTH}"
        )),
    }
}

fn want(name: &str, args: &[Term], n: usize) -> Result<(), ExprError> {
    if args.len() != n {
        return err(format!(
            "{name}() takes {n} argument{}, got {}",
            if n == 1 { "" } else { "s" },
            args.len()
        ));
    }
    Ok(())
}

fn bv_of(t: &Term, name: &str) -> Result<u32, ExprError> {
    match t.sort {
        Sort::BitVec(w) => Ok(w),
        s => err(format!("{name}() needs a bit-vector, got {s}")),
    }
}

fn call(name: &str, args: Vec<Term>, col: usize, text: &str) -> Result<Term, ExprError> {
    match name {
        "And" | "Or" => {
            if args.is_empty() {
                return Ok(lit(
                    Sort::Bool,
                    if name == "And" { "true" } else { "false" }.into(),
                ));
            }
            logic(if name == "And" { "and" } else { "or" }, args)
        }
        "Not" => {
            want(name, &args, 1)?;
            logic("not", args)
        }
        "Implies" => {
            want(name, &args, 2)?;
            logic("=>", args)
        }
        "Xor" => {
            want(name, &args, 2)?;
            logic("xor", args)
        }
        "If" => {
            want(name, &args, 3)?;
            let mut it = args.into_iter();
            let (c, a, b) = match (it.next(), it.next(), it.next()) {
                (Some(c), Some(a), Some(b)) => (c, a, b),
                _ => return err("If() takes 3 arguments"),
            };
            if c.sort != Sort::Bool {
                return err("If()'s first argument must be a boolean");
            }
            let (sort, x, y) = unify(a, b)?;
            Ok(lit(sort, format!("(ite {} {x} {y})", c.smt)))
        }
        "Distinct" => {
            if args.len() < 2 {
                return Ok(lit(Sort::Bool, "true".into()));
            }
            let (_, xs) = unify_all(args)?;
            Ok(lit(Sort::Bool, format!("(distinct {})", xs.join(" "))))
        }
        "Sum" | "Product" => {
            if args.is_empty() {
                return Ok(Term {
                    sort: Sort::Int,
                    smt: if name == "Sum" { "0" } else { "1" }.into(),
                    literal: Some(Integer::from(i32::from(name != "Sum"))),
                });
            }
            if args.len() == 1 {
                return Ok(args.into_iter().next().unwrap_or_else(|| lit(Sort::Int, "0".into())));
            }
            let (sort, xs) = unify_all(args)?;
            let f = match (name, sort) {
                ("Sum", Sort::BitVec(_)) => "bvadd",
                ("Product", Sort::BitVec(_)) => "bvmul",
                ("Sum", s) if s.numeric() => "+",
                ("Product", s) if s.numeric() => "*",
                (_, s) => return err(format!("{name}() needs numbers, got {s}")),
            };
            Ok(lit(sort, format!("({f} {})", xs.join(" "))))
        }
        "Abs" => {
            want(name, &args, 1)?;
            let a = &args[0];
            match a.sort {
                Sort::Int => Ok(lit(Sort::Int, format!("(abs {})", a.smt))),
                Sort::Real => Ok(lit(
                    Sort::Real,
                    format!("(ite (>= {0} 0.0) {0} (- {0}))", a.smt),
                )),
                s => err(format!("Abs() needs a number, got {s}")),
            }
        }
        "ToReal" => {
            want(name, &args, 1)?;
            match args[0].sort {
                Sort::Int => Ok(lit(Sort::Real, format!("(to_real {})", args[0].smt))),
                Sort::Real => Ok(lit(Sort::Real, args[0].smt.clone())),
                s => err(format!("ToReal() needs a number, got {s}")),
            }
        }
        "ToInt" => {
            want(name, &args, 1)?;
            match args[0].sort {
                Sort::Real => Ok(lit(Sort::Int, format!("(to_int {})", args[0].smt))),
                Sort::Int => Ok(lit(Sort::Int, args[0].smt.clone())),
                s => err(format!("ToInt() needs a number, got {s}")),
            }
        }
        "UDiv" | "URem" | "SRem" | "LShR" => {
            want(name, &args, 2)?;
            let f = match name {
                "UDiv" => "bvudiv",
                "URem" => "bvurem",
                "SRem" => "bvsrem",
                _ => "bvlshr",
            };
            let mut it = args.into_iter();
            match (it.next(), it.next()) {
                (Some(a), Some(b)) => bv_binary(f, a, b),
                _ => err(format!("{name}() takes 2 arguments")),
            }
        }
        "ULT" | "ULE" | "UGT" | "UGE" => {
            want(name, &args, 2)?;
            let f = match name {
                "ULT" => "bvult",
                "ULE" => "bvule",
                "UGT" => "bvugt",
                _ => "bvuge",
            };
            let mut it = args.into_iter();
            match (it.next(), it.next()) {
                (Some(a), Some(b)) => {
                    let t = bv_binary(f, a, b)?;
                    Ok(lit(Sort::Bool, t.smt))
                }
                _ => err(format!("{name}() takes 2 arguments")),
            }
        }
        "Extract" => {
            want(name, &args, 3)?;
            let hi = literal_arg(&args[0], "Extract()'s high bit")?;
            let lo = literal_arg(&args[1], "Extract()'s low bit")?;
            let w = bv_of(&args[2], name)?;
            if lo > hi || hi >= w {
                return err(format!(
                    "Extract({hi}, {lo}, ...) needs {lo} <= {hi} < {w} (the width)"
                ));
            }
            Ok(lit(
                Sort::BitVec(hi - lo + 1),
                format!("((_ extract {hi} {lo}) {})", args[2].smt),
            ))
        }
        "Concat" => {
            if args.len() < 2 {
                return err("Concat() takes at least 2 bit-vectors");
            }
            let mut width = 0u32;
            for a in &args {
                width += bv_of(a, name)?;
            }
            if width > MAX_BV_WIDTH {
                return err(format!("Concat() would be {width} bits wide; at most {MAX_BV_WIDTH}"));
            }
            let xs: Vec<&str> = args.iter().map(|a| a.smt.as_str()).collect();
            Ok(lit(Sort::BitVec(width), format!("(concat {})", xs.join(" "))))
        }
        "ZeroExt" | "SignExt" => {
            want(name, &args, 2)?;
            let n = literal_arg(&args[0], &format!("{name}()'s bit count"))?;
            let w = bv_of(&args[1], name)?;
            if w + n > MAX_BV_WIDTH {
                return err(format!("{name}() would be {} bits wide; at most {MAX_BV_WIDTH}", w + n));
            }
            let f = if name == "ZeroExt" { "zero_extend" } else { "sign_extend" };
            Ok(lit(Sort::BitVec(w + n), format!("((_ {f} {n}) {})", args[1].smt)))
        }
        "BV2Int" => {
            want(name, &args, 1)?;
            bv_of(&args[0], name)?;
            Ok(lit(Sort::Int, format!("(bv2int {})", args[0].smt)))
        }
        "Int2BV" => {
            want(name, &args, 2)?;
            let n = literal_arg(&args[1], "Int2BV()'s width")?;
            if n == 0 {
                return err("Int2BV()'s width must be at least 1");
            }
            if args[0].sort != Sort::Int {
                return err("Int2BV() needs an integer");
            }
            Ok(lit(Sort::BitVec(n), format!("((_ int2bv {n}) {})", args[0].smt)))
        }
        _ => err(format!(
            "unknown function `{name}` at column {col} of {text:?} (known: And, Or, Not, Implies, Xor, If, Distinct, \
             Sum, Product, Abs, ToReal, ToInt, UDiv, URem, SRem, LShR, ULT, ULE, UGT, UGE, Extract, Concat, ZeroExt, \
             SignExt, BV2Int, Int2BV)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> BTreeMap<String, Sort> {
        [
            ("x", Sort::Int),
            ("y", Sort::Int),
            ("r", Sort::Real),
            ("p", Sort::Bool),
            ("q", Sort::Bool),
            ("b", Sort::BitVec(8)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn smt(text: &str) -> String {
        let v = vars();
        Reader::new(&v)
            .read(text)
            .map(|t| t.smt)
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn arithmetic_follows_z3py() {
        assert_eq!(smt("x + y == 10"), "(= (+ |x| |y|) 10)");
        assert_eq!(smt("x / 2"), "(div |x| 2)");
        assert_eq!(smt("x % 3"), "(mod |x| 3)");
        assert_eq!(smt("x + r"), "(+ (to_real |x|) |r|)");
        assert_eq!(smt("r * 1.5"), "(* |r| 1.5)");
        assert_eq!(smt("x**2"), "(* |x| |x|)");
        assert_eq!(smt("-3 + x"), "(+ (- 3) |x|)");
        // Constants are Python's before z3py sees them.
        assert_eq!(smt("r == 7 / 2"), "(= |r| (/ 7.0 2.0))");
        assert_eq!(smt("x == -7 % 3"), "(= |x| 2)");
        assert_eq!(smt("x == 2**65"), "(= |x| 36893488147419103232)");
        assert_eq!(smt("r == 2**-2"), "(= |r| (/ 1.0 4.0))");
        assert_eq!(smt("x == 0xff + 0b11"), "(= |x| 258)");
    }

    #[test]
    fn comparisons_chain() {
        assert_eq!(smt("0 <= x < 10"), "(and (<= 0 |x|) (< |x| 10))");
        assert_eq!(smt("x != y"), "(not (= |x| |y|))");
    }

    #[test]
    fn bit_vector_literals_take_the_width() {
        assert_eq!(smt("b + 1 == 0"), "(= (bvadd |b| (_ bv1 8)) (_ bv0 8))");
        assert_eq!(smt("b & -b"), "(bvand |b| (bvneg |b|))");
        assert_eq!(smt("b == -1"), "(= |b| (_ bv255 8))");
        assert_eq!(smt("b < 3"), "(bvslt |b| (_ bv3 8))");
        assert_eq!(smt("Extract(3, 0, b)"), "((_ extract 3 0) |b|)");
    }

    #[test]
    fn booleans_and_functions() {
        assert_eq!(smt("Implies(p, q)"), "(=> |p| |q|)");
        assert_eq!(smt("p and not q"), "(and |p| (not |q|))");
        assert_eq!(smt("Distinct(x, y, 3)"), "(distinct |x| |y| 3)");
        assert_eq!(smt("If(p, x, r)"), "(ite |p| (to_real |x|) |r|)");
    }

    #[test]
    fn errors_name_the_place() {
        assert!(smt("x + z").contains("unknown name `z` at column 5"));
        assert!(smt("x + True").contains("cannot combine"));
        assert!(smt("x = 3").contains("write `==`"));
        assert!(smt("(x + 1").contains("expected `)`"));
        assert!(smt("x $ 1").contains("unexpected character '$' at column 3"));
        assert!(smt("Foo(x)").contains("unknown function `Foo`"));
        assert!(
            smt("b + x").contains("mixed with bit-vectors")
                || smt("b + x").contains("cannot combine")
        );
        let deep = format!("{}x{}", "(".repeat(500), ")".repeat(500));
        assert!(smt(&deep).contains("nested more than"));
    }

    #[test]
    fn wide_bit_vector_literals_are_exact() {
        assert_eq!(
            bv_literal(&Integer::from(-1), 130),
            "(_ bv1361129467683753853853498429727072845823 130)"
        );
        assert_eq!(
            smt("b == 170141183460469231731687303715884105729"),
            "(= |b| (_ bv1 8))"
        );
    }
}
