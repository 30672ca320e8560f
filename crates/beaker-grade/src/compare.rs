//! Deciding whether two read answers are equal: exact rationals, high-precision floats, roundings, numeric
//! identity testing of expressions at seeded points, equations up to a constant factor, and structures.

use super::read::{self, Shape};
use beaker_core::{CallContext, ToolError};
use beaker_expr::{eval_exact, parse, ExactOptions, Expr, ExprError, Num, ParseLimits};
use rug::{Float, Rational};

/// Working precision of closed values, in bits; irrational values are computed again at twice this to tell
/// a rounding residue (which shrinks with the precision) from a real difference (which does not).
const BITS: u32 = 256;
/// Values converted between units (exact up to powers of π, at [`BITS`]) that agree to this relative
/// difference are the same quantity.
const SAME_BELOW: f64 = 1e-70;
/// Points at which expressions in variables are compared, and the fewest that must be defined.
const POINTS: usize = 21;
const MIN_DEFINED: usize = 6;
/// Two doubles at a sample point agree when `|a - b| <= POINT_REL·max(|a|, |b|) + POINT_ABS`.
const POINT_REL: f64 = 1e-9;
const POINT_ABS: f64 = 1e-13;
/// Most scalar comparisons one grade makes (sets are compared item against item): beyond, it is not correct.
pub(super) const MAX_COMPARISONS: u64 = 100_000;
/// Most decimal digits of an exact value a grade computes (`10^{10^5}` is no answer anyone checks).
const MAX_DIGITS: u64 = 5_000;

/// What a comparison may accept beyond exact equality.
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    /// Relative tolerance (0: off).
    pub rel_tol: f64,
    /// Absolute tolerance (0: off).
    pub abs_tol: f64,
    /// A decimal written with at least this many significant digits is accepted as a rounding (0: off).
    pub rounded_digits: u32,
}

/// A comparison's outcome.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Verdict {
    pub equal: bool,
    pub method: &'static str,
    pub why: Option<String>,
}

impl Verdict {
    fn yes(method: &'static str) -> Verdict {
        Verdict {
            equal: true,
            method,
            why: None,
        }
    }
    fn no(method: &'static str, why: impl Into<String>) -> Verdict {
        Verdict {
            equal: false,
            method,
            why: Some(why.into()),
        }
    }
}

/// One scalar, read.
enum Scalar {
    Infinity(bool),
    Expr(Expr, String),
}

/// The comparer: the call's context for its limits and deadline.
pub(super) struct Comparer<'a> {
    pub ctx: &'a CallContext,
    pub settings: Settings,
    /// Scalar comparisons left (see [`MAX_COMPARISONS`]).
    pub budget: std::cell::Cell<u64>,
}

impl Comparer<'_> {
    fn scalar(&self, text: &str) -> Result<Scalar, String> {
        if let Some(neg) = read::infinity(text) {
            return Ok(Scalar::Infinity(neg));
        }
        let infix = read::to_expression(text)?;
        let e = parse(&infix, self.parse_limits()).map_err(|e| e.to_string())?;
        Ok(Scalar::Expr(e, text.trim().to_string()))
    }

    /// Whether `text` is a value of magnitude below 1.
    fn below_one(&self, text: &str) -> bool {
        match self.scalar(text) {
            Ok(Scalar::Expr(e, _)) if e.variables().is_empty() => match self.value(&e, 64) {
                Ok(Ok(n)) => as_float(&n).abs() < 1,
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `text` reads as an expression without variables.
    fn is_closed(&self, text: &str) -> bool {
        matches!(self.scalar(text), Ok(Scalar::Expr(e, _)) if e.variables().is_empty())
    }

    /// The call's limits on an expression's length and nesting.
    fn parse_limits(&self) -> ParseLimits {
        ParseLimits {
            max_len: self.ctx.limits.max_expression_len,
            max_depth: self.ctx.limits.max_depth,
        }
    }

    /// Two shapes, as the grade tool compares them.
    pub(super) fn shapes(&self, a: &Shape, b: &Shape) -> Result<Verdict, ToolError> {
        self.ctx.checkpoint()?;
        use Shape::*;
        Ok(match (a, b) {
            (Scalar(x), Scalar(y)) => self.scalars(x, y)?,
            (Percent(p), Scalar(r)) | (Scalar(r), Percent(p)) => {
                let hundredth = format!("({p})/100");
                let v = self.scalars(&hundredth, r)?;
                if v.equal {
                    return Ok(Verdict::yes("percent"));
                }
                // A reference may give the number of percent (`25` for 25%), but a value below 1 is read as
                // the fraction it is: 0.5% is not 0.5.
                let v = self.scalars(p, r)?;
                if v.equal && !self.below_one(r) {
                    Verdict::yes("percent")
                } else {
                    Verdict::no(
                        "percent",
                        v.why.unwrap_or_else(|| "a different percentage".into()),
                    )
                }
            }
            (Percent(p), Percent(q)) => {
                let v = self.scalars(p, q)?;
                Verdict {
                    method: "percent",
                    ..v
                }
            }
            (Equation(r, l), Scalar(s)) | (Scalar(s), Equation(r, l))
                if read::is_target(l) && !read::is_target(r) =>
            {
                // `5 = x` against 5: the assignment written the other way round.
                let v = self.scalars(r, s)?;
                Verdict {
                    method: "assignment",
                    ..v
                }
            }
            (Equation(l, r), Scalar(s)) | (Scalar(s), Equation(l, r)) if read::is_target(l) => {
                let v = self.scalars(r, s)?;
                Verdict {
                    method: "assignment",
                    ..v
                }
            }
            // `17 * 23 = 391` against 391: a worked computation, whose value is its right-hand side, when it is
            // true (`2 + 2 = 5` is no answer of 5).
            (Equation(l, r), Scalar(s)) | (Scalar(s), Equation(l, r)) if self.is_closed(l) => {
                let holds = self.scalars(l, r)?;
                if !holds.equal {
                    return Ok(Verdict::no(
                        "equation_rhs",
                        format!("the answer's equation is false: {l} = {r}"),
                    ));
                }
                let v = self.scalars(r, s)?;
                Verdict {
                    method: "equation_rhs",
                    ..v
                }
            }
            (Equation(l1, r1), Equation(l2, r2)) => {
                if read::is_target(l1) && read::is_target(l2) && l1.trim() == l2.trim() {
                    let v = self.scalars(r1, r2)?;
                    Verdict {
                        method: "assignment",
                        ..v
                    }
                } else {
                    self.equations((l1, r1), (l2, r2))?
                }
            }
            (Set(x), Set(y)) | (Set(x), List(y)) | (List(x), Set(y)) | (List(x), List(y)) => {
                self.as_sets(x, y)?
            }
            (Seq(o1, c1, x), Seq(o2, c2, y)) => {
                let method = if *o1 == '(' && *c1 == ')' {
                    "tuple"
                } else {
                    "interval"
                };
                if (o1, c1) != (o2, c2) {
                    return Ok(Verdict::no(
                        method,
                        format!("the brackets differ: {o1}…{c1} against {o2}…{c2}"),
                    ));
                }
                self.in_order(x, y, method)?
            }
            (List(x), Seq('(', ')', y)) | (Seq('(', ')', x), List(y)) => {
                self.in_order(x, y, "tuple")?
            }
            _ => Verdict::no("structure", format!("{} against {}", what(a), what(b))),
        })
    }

    fn in_order(
        &self,
        x: &[Shape],
        y: &[Shape],
        method: &'static str,
    ) -> Result<Verdict, ToolError> {
        if x.len() != y.len() {
            return Ok(Verdict::no(
                method,
                format!("{} items against {}", x.len(), y.len()),
            ));
        }
        for (i, (a, b)) in x.iter().zip(y).enumerate() {
            let v = self.shapes(a, b)?;
            if !v.equal {
                return Ok(Verdict::no(method, format!("item {} differs", i + 1)));
            }
        }
        Ok(Verdict::yes(method))
    }

    fn as_sets(&self, x: &[Shape], y: &[Shape]) -> Result<Verdict, ToolError> {
        // Items written alike are equal: a set against itself reordered never needs pairwise comparisons.
        let sorted = |items: &[Shape]| {
            let mut v: Vec<String> = items.iter().map(read::render).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if sorted(x) == sorted(y) {
            return Ok(Verdict::yes("set"));
        }
        for (from, to, side) in [(x, y, "answer"), (y, x, "reference")] {
            for (i, a) in from.iter().enumerate() {
                let mut found = false;
                for b in to {
                    if self.shapes(a, b)?.equal {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(Verdict::no(
                        "set",
                        format!("item {} of the {side} is not in the other", i + 1),
                    ));
                }
            }
        }
        Ok(Verdict::yes("set"))
    }

    /// Two scalars: closed values numerically, expressions in variables by identity testing.
    pub(super) fn scalars(&self, x: &str, y: &str) -> Result<Verdict, ToolError> {
        let left = self.budget.get();
        if left == 0 {
            return Ok(Verdict::no(
                "none",
                format!("too large to compare (more than {MAX_COMPARISONS} comparisons)"),
            ));
        }
        self.budget.set(left - 1);
        let (a, b) = match (self.scalar(x), self.scalar(y)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) => {
                return Ok(Verdict::no(
                    "none",
                    format!("the answer does not read as mathematics: {e}"),
                ))
            }
            (_, Err(e)) => {
                return Ok(Verdict::no(
                    "reference_unreadable",
                    format!("the reference does not read as mathematics: {e}"),
                ))
            }
        };
        match (a, b) {
            (Scalar::Infinity(p), Scalar::Infinity(q)) => Ok(if p == q {
                Verdict::yes("exact")
            } else {
                Verdict::no("exact", "infinities of opposite sign")
            }),
            (Scalar::Infinity(_), _) | (_, Scalar::Infinity(_)) => {
                Ok(Verdict::no("exact", "infinity against a finite value"))
            }
            (Scalar::Expr(a, at), Scalar::Expr(b, bt)) => {
                let v = if a.variables().is_empty() && b.variables().is_empty() {
                    self.closed(&a, &at, &b, &bt)?
                } else {
                    self.identity(&a, &b)?
                };
                // Written alike but not compared (no value, `2^{300000}`; defined at too few points): equal.
                Ok(if !v.equal && a.to_infix() == b.to_infix() {
                    Verdict::yes("identical")
                } else {
                    v
                })
            }
        }
    }

    fn value(&self, e: &Expr, bits: u32) -> Result<Result<Num, String>, ToolError> {
        let opts = ExactOptions {
            prec_bits: bits,
            max_digits: self.ctx.limits.max_digits.min(MAX_DIGITS),
        };
        match eval_exact(e, opts, Some(self.ctx)) {
            Ok(n) => Ok(Ok(n)),
            Err(ExprError::Interrupted(t)) => Err(t),
            Err(other) => Ok(Err(other.to_string())),
        }
    }

    fn closed(&self, a: &Expr, at: &str, b: &Expr, bt: &str) -> Result<Verdict, ToolError> {
        let x = match self.value(a, BITS)? {
            Ok(x) => x,
            Err(e) => return Ok(Verdict::no("none", format!("the answer has no value: {e}"))),
        };
        let y = match self.value(b, BITS)? {
            Ok(y) => y,
            Err(e) => {
                return Ok(Verdict::no(
                    "none",
                    format!("the reference has no value: {e}"),
                ))
            }
        };
        if !matches!((&x, &y), (Num::Exact(_), Num::Exact(_))) {
            // Ziv's test: the difference of two forms of one number is a rounding residue that shrinks when the
            // precision doubles; a real difference, however small (`e^{200}` and `e^{200}+1`), stays.
            let (x2, y2) = match (self.value(a, 2 * BITS)?, self.value(b, 2 * BITS)?) {
                (Ok(x2), Ok(y2)) => (x2, y2),
                _ => return Ok(self.numbers_near(&x, literal(at), &y, literal(bt), false)),
            };
            let d1 = Float::with_val(2 * BITS, as_float(&x) - as_float(&y)).abs();
            let (x2, y2) = (at_bits(&x2, 2 * BITS), at_bits(&y2, 2 * BITS));
            let d2 = Float::with_val(2 * BITS, &x2 - &y2).abs();
            let scale = Float::with_val(2 * BITS, x2.abs_ref())
                .max(&Float::with_val(2 * BITS, y2.abs_ref()));
            let shrank = if !d1.is_zero() {
                d2 <= d1 * Float::with_val(2 * BITS, Float::i_exp(1, -200))
            } else {
                // Equal to 256 bits: a third evaluation, at 1024, tells a residue (`\sin^2 1 + \cos^2 1 - 1`, which
                // shrinks again, or stays 0) from a difference below 256 bits (`\pi + 10^{-100}`,
                // `\ln(1 + 10^{-200})` against 0), which appears and stays.
                match (self.value(a, 4 * BITS)?, self.value(b, 4 * BITS)?) {
                    (Ok(x3), Ok(y3)) => {
                        let (x3, y3) = (at_bits(&x3, 4 * BITS), at_bits(&y3, 4 * BITS));
                        let d3 = Float::with_val(4 * BITS, &x3 - &y3).abs();
                        let s3 = Float::with_val(4 * BITS, x3.abs_ref())
                            .max(&Float::with_val(4 * BITS, y3.abs_ref()));
                        if d2.is_zero() {
                            // Against 0 the residue is its own scale: measure it against 1 instead.
                            let s3 = s3.max(&Float::with_val(4 * BITS, 1));
                            d3 <= s3 * Float::with_val(4 * BITS, Float::i_exp(1, -1000))
                        } else {
                            d3 <= Float::with_val(4 * BITS, &d2)
                                * Float::with_val(4 * BITS, Float::i_exp(1, -200))
                        }
                    }
                    _ => {
                        d2.is_zero()
                            || d2 <= scale * Float::with_val(2 * BITS, Float::i_exp(1, -490))
                    }
                }
            };
            if shrank {
                return Ok(Verdict::yes("equal"));
            }
        }
        Ok(self.numbers_near(&x, literal(at), &y, literal(bt), false))
    }

    /// Two values, each with the decimal it was written as (if it was one).
    pub(super) fn numbers(
        &self,
        x: &Num,
        x_lit: Option<Literal>,
        y: &Num,
        y_lit: Option<Literal>,
    ) -> Verdict {
        self.numbers_near(x, x_lit, y, y_lit, true)
    }

    /// [`numbers`](Self::numbers); `near`: values within [`SAME_BELOW`] are the same (when they could not be
    /// computed again at a higher precision).
    fn numbers_near(
        &self,
        x: &Num,
        x_lit: Option<Literal>,
        y: &Num,
        y_lit: Option<Literal>,
        near: bool,
    ) -> Verdict {
        if let (Num::Exact(p), Num::Exact(q)) = (x, y) {
            if p == q {
                return Verdict::yes("exact");
            }
        }
        let (fx, fy) = (as_float(x), as_float(y));
        if !fx.is_finite() || !fy.is_finite() {
            return Verdict::no("none", "a value is not finite");
        }
        let diff = Float::with_val(BITS, &fx - &fy).abs();
        let scale =
            Float::with_val(BITS, fx.clone().abs()).max(&Float::with_val(BITS, fy.clone().abs()));
        let both_exact = matches!((x, y), (Num::Exact(_), Num::Exact(_)));
        if near
            && !both_exact
            && (diff.is_zero() || diff <= Float::with_val(BITS, &scale * SAME_BELOW))
        {
            return Verdict::yes("equal");
        }
        let n = self.settings.rounded_digits;
        if n > 0 {
            for (lit, other) in [(&x_lit, &fy), (&y_lit, &fx)] {
                if let Some(l) = lit {
                    if l.significant >= n && rounds_to(other, l) {
                        return Verdict::yes("rounded");
                    }
                }
            }
        }
        let s = self.settings;
        if s.rel_tol > 0.0 || s.abs_tol > 0.0 {
            let allowed =
                Float::with_val(BITS, &scale * s.rel_tol).max(&Float::with_val(BITS, s.abs_tol));
            if diff <= allowed {
                return Verdict::yes("tolerance");
            }
        }
        Verdict::no(
            if both_exact { "exact" } else { "equal" },
            format!("{} against {}", shown(&fx), shown(&fy)),
        )
    }

    /// Expressions in variables: equal at every one of [`POINTS`] seeded points where both are defined.
    fn identity(&self, a: &Expr, b: &Expr) -> Result<Verdict, ToolError> {
        let pair = match Pair::compile(a, b) {
            Ok(p) => p,
            Err(e) => return Ok(Verdict::no("identity", e)),
        };
        self.at_points(&pair, 0x5eed_0bea_4e12_9a3d, "identity", |x, y, point| {
            if (x - y).abs() > POINT_REL * x.abs().max(y.abs()) + POINT_ABS {
                Point::Differs(format!("they differ at {}", pair.show(point)))
            } else {
                Point::Agrees
            }
        })
    }

    /// Two equations: the same when `lhs - rhs` of one is a nonzero constant multiple of the other's.
    fn equations(
        &self,
        (l1, r1): (&String, &String),
        (l2, r2): (&String, &String),
    ) -> Result<Verdict, ToolError> {
        let f = |l: &str, r: &str| -> Result<Expr, String> {
            let e = format!(
                "({})-({})",
                read::to_expression(l)?,
                read::to_expression(r)?
            );
            parse(&e, self.parse_limits()).map_err(|e| e.to_string())
        };
        let (a, b) = match (f(l1, r1), f(l2, r2)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                return Ok(Verdict::no(
                    "equation",
                    format!("an equation does not read: {e}"),
                ))
            }
        };
        let pair = match Pair::compile(&a, &b) {
            Ok(p) => p,
            Err(e) => return Ok(Verdict::no("equation", e)),
        };
        if pair.names.is_empty() {
            return Ok(Verdict::no("equation", "equations without unknowns"));
        }
        let mut ratio: Option<f64> = None;
        self.at_points(&pair, 0x0e9a_7104_5eed_1234, "equation", |x, y, _| {
            let tiny = 1e-12;
            if x.abs() < tiny || y.abs() < tiny {
                return if x.abs() < tiny && y.abs() < tiny {
                    Point::Skip
                } else {
                    Point::Differs("one equation holds where the other does not".into())
                };
            }
            let c = x / y;
            match ratio {
                None => ratio = Some(c),
                Some(r) if (r - c).abs() <= POINT_REL * r.abs().max(c.abs()) => {}
                Some(_) => {
                    return Point::Differs("the equations are not multiples of each other".into())
                }
            }
            Point::Agrees
        })
    }

    /// Evaluates both sides at seeded points (skipping where either is undefined) and asks `judge` about each:
    /// the first difference decides; [`POINTS`] agreements, or at least [`MIN_DEFINED`] of them when the
    /// attempts run out, are a `method` match.
    fn at_points(
        &self,
        pair: &Pair,
        seed: u64,
        method: &'static str,
        mut judge: impl FnMut(f64, f64, &[f64]) -> Point,
    ) -> Result<Verdict, ToolError> {
        let mut rng = SplitMix(seed);
        let mut defined = 0;
        let mut point = vec![0.0; pair.names.len()];
        for attempt in 0..POINTS * 8 {
            if attempt % 16 == 0 {
                self.ctx.checkpoint()?;
            }
            for v in point.iter_mut() {
                *v = rng.sample(attempt);
            }
            let (x, y) = (pair.a.eval(&point), pair.b.eval(&point));
            if !x.is_finite() || !y.is_finite() {
                continue;
            }
            match judge(x, y, &point) {
                Point::Skip => continue,
                Point::Differs(why) => return Ok(Verdict::no(method, why)),
                Point::Agrees => defined += 1,
            }
            if defined == POINTS {
                break;
            }
        }
        Ok(if defined >= MIN_DEFINED {
            Verdict::yes(method)
        } else {
            Verdict::no(
                method,
                "they are defined at too few sample points to compare",
            )
        })
    }
}

/// What one sample point says of two expressions.
enum Point {
    Agrees,
    Differs(String),
    /// Neither tells anything here (both sides of two equations vanish).
    Skip,
}

/// Two expressions compiled over the union of their variables, in sorted order.
struct Pair {
    a: beaker_expr::CompiledF64,
    b: beaker_expr::CompiledF64,
    names: Vec<String>,
}

impl Pair {
    fn compile(a: &Expr, b: &Expr) -> Result<Pair, String> {
        let mut names: Vec<String> = a.variables().iter().chain(b.variables()).cloned().collect();
        names.sort_unstable();
        names.dedup();
        let order: Vec<&str> = names.iter().map(String::as_str).collect();
        Ok(Pair {
            a: a.compile_f64(&order).map_err(|e| e.to_string())?,
            b: b.compile_f64(&order).map_err(|e| e.to_string())?,
            names,
        })
    }

    /// `x = 0.7199, y = 1.7760`: a point, for a message.
    fn show(&self, point: &[f64]) -> String {
        self.names
            .iter()
            .zip(point)
            .map(|(n, v)| format!("{n} = {v:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A decimal as written: its places after the point and its significant digits.
#[derive(Debug, Clone)]
pub(super) struct Literal {
    places: u32,
    significant: u32,
    value: Rational,
}

/// `0.333333`, `-16.6667`: a plain decimal with a fractional part.
pub(super) fn literal(text: &str) -> Option<Literal> {
    let t = text.trim();
    let body = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (int, frac) = body.split_once('.')?;
    if int.is_empty() && frac.is_empty()
        || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit())
        || frac.is_empty()
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let significant = digits.trim_start_matches('0').len() as u32;
    Some(Literal {
        places: u32::try_from(frac.len()).ok()?,
        significant,
        value: beaker_units::expr::decimal(t, 0)?,
    })
}

/// Whether `value` rounded to the literal's places could be written as the literal: within half a unit in
/// its last place (ties either way, since the writer's rounding rule is unknown).
fn rounds_to(value: &Float, lit: &Literal) -> bool {
    let half_ulp = Rational::from((1, 2)) / beaker_expr::pow10(i64::from(lit.places));
    let diff = Float::with_val(BITS, value - &lit.value).abs();
    // A hair over half a unit, so a tie computed in binary (0.125 → 0.13 or 0.12) is still a tie.
    let allowed = Float::with_val(BITS, &half_ulp) * (1.0 + 1e-30);
    diff <= allowed
}

fn as_float(n: &Num) -> Float {
    at_bits(n, BITS)
}

fn at_bits(n: &Num, bits: u32) -> Float {
    match n {
        Num::Exact(q) => Float::with_val(bits, q),
        Num::Approx(f) => Float::with_val(bits, f),
    }
}

fn shown(f: &Float) -> String {
    let d = f.to_f64();
    format!("{d}")
}

fn what(s: &Shape) -> &'static str {
    match s {
        Shape::Scalar(_) => "a value",
        Shape::Percent(_) => "a percentage",
        Shape::Equation(..) => "an equation",
        Shape::Set(_) => "a set",
        Shape::Seq('(', ')', _) => "a tuple",
        Shape::Seq(..) => "an interval",
        Shape::List(_) => "a list",
    }
}

/// SplitMix64: a fixed, portable sequence, so a verdict never depends on the machine or the call.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A sample coordinate, by the attempt's scheme (every coordinate of a point shares the scheme, each its own
    /// sign): magnitudes in [0.25, 3.25) positive (where square roots and logarithms are defined) or of either sign
    /// (`|x|` is not `x`), [3.25, 40) positive (`\sqrt{x-5}`) and negative, the integers 1 to 12 (`n!`, `(-1)^n`,
    /// `\binom{n}{2}`), near 0 of either sign, and [40, 120) positive.
    fn sample(&mut self, attempt: usize) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        let sign = if self.next() & 1 == 1 { -1.0 } else { 1.0 };
        match attempt % 7 {
            0 => 0.25 + 3.0 * u,
            1 => sign * (0.25 + 3.0 * u),
            2 => 3.25 + 36.75 * u,
            3 => (1.0 + (12.0 * u).floor()).min(12.0),
            // Below -3.25 (`|x+4|` is not `x+4`), near 0 (`e^{-1000x^2}` is not 0), and far out (`|x-41|`).
            4 => -(3.25 + 36.75 * u),
            5 => sign * (0.001 + 0.249 * u),
            _ => 40.0 + 80.0 * u,
        }
    }
}
