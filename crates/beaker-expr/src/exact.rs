//! The exact evaluator: rationals (GMP) while every step is rational, MPFR floats at a working
//! precision once an irrational constant or function appears.
//!
//! Multiples of π stay symbolic (`q·π` with `q` rational) through negation, sums of multiples, and products and
//! quotients with rationals, so `sin`, `cos` and `tan` reduce their argument exactly: `sin(pi)` is exactly 0,
//! `tan(pi/2)` is a pole and says so, instead of a rounded π giving 1e-77 or 1e76.
//!
//! Bounded by construction: before building a number it estimates its size and refuses with
//! [`ExprError::TooLarge`] when it would exceed `max_digits`, so `10**10**10` fails in microseconds.

use crate::ast::{BinOp, Const, Expr, Func, Literal, Node};
use crate::format::{format_significant, round_half_even};
use crate::ExprError;
use beaker_core::CallContext;
use rug::float::Constant;
use rug::ops::Pow;
use rug::{Float, Integer, Rational};
use std::cell::Cell;
use std::cmp::Ordering;

const LOG2_10: f64 = std::f64::consts::LOG2_10;

/// A value during exact evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    /// An exact rational.
    Exact(Rational),
    /// An approximation at the working precision.
    Approx(Float),
}

/// A value on the evaluation stack: a number, or `q·π` for a non-zero rational `q`, kept symbolic until an
/// operation other than `+ - * /` with rationals or a trigonometric function needs its value.
#[derive(Debug, Clone)]
enum Val {
    Num(Num),
    PiMul(Rational),
}

/// Settings for one exact evaluation.
#[derive(Debug, Clone, Copy)]
pub struct ExactOptions {
    /// Working precision of MPFR floats, in bits.
    pub prec_bits: u32,
    /// The most decimal digits any exact number may have.
    pub max_digits: u64,
}

/// A result rounded to decimals, as the calculator reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    /// The value rounded half-to-even to the requested places (integers in full).
    pub value: String,
    /// Whether the result is an exact rational (no approximation was involved).
    pub exact: bool,
    /// `p/q` for exact non-integer results.
    pub fraction: Option<String>,
}

/// Evaluates `expr` exactly where possible, at the given working precision otherwise.
pub fn eval_exact(
    expr: &Expr,
    opts: ExactOptions,
    ctx: Option<&CallContext>,
) -> Result<Num, ExprError> {
    eval_tracked(expr, opts, ctx).map(|(n, _)| n)
}

/// Like [`eval_exact`], also returning the largest binary exponent of any float built on the way: the
/// absolute error of a later step (`sin` of a huge argument, a cancellation) scales with it.
fn eval_tracked(
    expr: &Expr,
    opts: ExactOptions,
    ctx: Option<&CallContext>,
) -> Result<(Num, i64), ExprError> {
    let ev = Evaluator {
        prec: opts.prec_bits.max(64),
        max_bits: digits_to_bits(opts.max_digits),
        max_exp: Cell::new(0),
    };
    let mut stack: Vec<Val> = Vec::with_capacity(expr.max_stack);
    for node in expr.nodes() {
        if let Some(ctx) = ctx {
            ctx.checkpoint().map_err(ExprError::Interrupted)?;
        }
        let v = match *node {
            Node::Num(i) => Val::Num(ev.literal(&expr.literals()[i as usize])?),
            Node::Const(Const::Pi) => Val::PiMul(Rational::from(1)),
            Node::Const(Const::Tau) => Val::PiMul(Rational::from(2)),
            Node::Const(c) => Val::Num(Num::Approx(ev.constant(c))),
            Node::Var(i) => {
                return Err(ExprError::UnknownName {
                    name: expr.variables()[i as usize].clone(),
                    position: expr.var_positions[i as usize],
                    hint: String::new(),
                })
            }
            Node::Neg => {
                let a = pop(&mut stack)?;
                match a {
                    Val::Num(Num::Exact(q)) => Val::Num(Num::Exact(-q)),
                    Val::Num(Num::Approx(f)) => Val::Num(Num::Approx(-f)),
                    Val::PiMul(q) => Val::PiMul(-q),
                }
            }
            Node::Fact => {
                let a = pop(&mut stack)?;
                Val::Num(ev.call(Func::Factorial, vec![a])?)
            }
            Node::Bin(op) => {
                let b = pop(&mut stack)?;
                let a = pop(&mut stack)?;
                ev.binary(op, a, b)?
            }
            Node::Call(f, argc) => {
                let args = stack.split_off(stack.len().saturating_sub(argc as usize));
                Val::Num(ev.call(f, args)?)
            }
        };
        stack.push(v);
    }
    let v = ev.plain(pop(&mut stack)?);
    Ok((v, ev.max_exp.get()))
}

/// Evaluates a closed expression and writes it at `precision` (see [`format_significant`]: at least that many
/// decimal places and significant digits, scientific notation for tiny and huge magnitudes), correctly rounded:
/// approximate results are recomputed at higher precision until two precisions agree on the digits (Ziv's
/// strategy). An approximate result that keeps shrinking with the working precision is the residue of a
/// cancellation of equal values (`4*atan(1) - pi`) and is reported as 0.
pub fn eval_decimal(
    expr: &Expr,
    precision: u32,
    max_digits: u64,
    ctx: Option<&CallContext>,
) -> Result<Decimal, ExprError> {
    let digits_bits = (f64::from(precision.max(1)) + 2.0) * LOG2_10;
    let mut bits = (digits_bits + 18.0 * LOG2_10) as u32 + 64;
    let mut previous: Option<String> = None;
    let mut residue = false;
    // Four refinements reach 16x the first precision; a value that still has not settled either shrank with
    // every refinement (a cancellation residue, reported as 0) or sits on a rounding tie (an
    // irrational-looking expression with a rational value), and the last digits are returned.
    for _ in 0..5 {
        let (v, max_exp) = eval_tracked(
            expr,
            ExactOptions {
                prec_bits: bits,
                max_digits,
            },
            ctx,
        )?;
        let f = match v {
            Num::Exact(q) => {
                // Intermediate guards allow some slack; the digits reported are held to the limit exactly.
                for part in [q.numer(), q.denom()] {
                    let estimate = (f64::from(part.significant_bits()) / LOG2_10).ceil() as u64;
                    if estimate < max_digits {
                        continue;
                    }
                    let digits = part.to_string().trim_start_matches('-').len() as u64;
                    if digits > max_digits {
                        return Err(too_large(digits, max_digits));
                    }
                }
                let fraction = (*q.denom() != 1).then(|| q.to_string());
                return Ok(Decimal {
                    value: format_significant(&q, precision, true),
                    exact: true,
                    fraction,
                });
            }
            Num::Approx(f) => f,
        };
        let exp = f.get_exp().map(i64::from);
        let int_digits = (exp.unwrap_or(0).max(0) as f64 / LOG2_10).ceil() as u64;
        if int_digits > max_digits {
            return Err(too_large(int_digits, max_digits));
        }
        let q = f
            .to_rational()
            .ok_or_else(|| ExprError::Domain("the result is not a finite number".into()))?;
        let s = format_significant(&q, precision, false);
        if previous.as_deref() == Some(s.as_str()) {
            return Ok(Decimal {
                value: s,
                exact: false,
                fraction: None,
            });
        }
        previous = Some(s);
        let e = exp.unwrap_or(0);
        // Far below the largest intermediate, only the bits the working precision could not resolve remain.
        residue = exp.is_some_and(|e| e < max_exp - i64::from(bits) / 2);
        let needed = (max_exp.max(e).max(0) - e.min(0)) as f64 + digits_bits + 128.0;
        // Refinement is one MPFR call per operation, which no deadline interrupts, so its precision is bounded by
        // the digit limit (8x: `1/cosh(cosh(14))`, 10^-261142, still answers; `cosh(cosh(20)) - cosh(cosh(20))`
        // asked for 3.5e8 bits and held a worker for good).
        if needed > 8.0 * digits_to_bits(max_digits) as f64 {
            return Err(ExprError::TooLarge(format!(
                "the digits of the result depend on intermediate values of about {} digits; the limit is \
                 {max_digits}",
                human((needed / LOG2_10) as u64)
            )));
        }
        bits = (bits.saturating_mul(2)).max(needed.min(f64::from(u32::MAX / 2)) as u32);
    }
    Ok(Decimal {
        value: if residue {
            "0".to_string()
        } else {
            previous.unwrap_or_default()
        },
        exact: false,
        fraction: None,
    })
}

fn pop(stack: &mut Vec<Val>) -> Result<Val, ExprError> {
    stack
        .pop()
        .ok_or_else(|| ExprError::Domain("malformed expression".into()))
}

fn digits_to_bits(digits: u64) -> u64 {
    (digits as f64 * LOG2_10) as u64 + 64
}

fn too_large(digits: u64, max: u64) -> ExprError {
    ExprError::TooLarge(format!(
        "the result would have about {} digits; the limit is {max}",
        human(digits)
    ))
}

fn human(n: u64) -> String {
    if n < 1_000_000 {
        n.to_string()
    } else {
        format!("10^{:.1}", (n as f64).log10())
    }
}

/// log2(|z|) for any integer, without overflow.
fn log2_int(z: &Integer) -> f64 {
    if *z == 0 {
        return f64::NEG_INFINITY;
    }
    let (m, e) = z.to_f64_exp();
    m.abs().log2() + f64::from(e)
}

fn bits(q: &Rational) -> u64 {
    u64::from(q.numer().significant_bits()) + u64::from(q.denom().significant_bits())
}

fn display(n: &Num) -> String {
    match n {
        Num::Exact(q) if bits(q) >= 200 => "a large number".into(),
        Num::Exact(q) => q.to_string(),
        Num::Approx(f) => f.to_f64().to_string(),
    }
}

/// `q·π` as people write it: `π`, `-π/2`, `3π/2`.
fn pi_text(q: &Rational) -> String {
    let n = q.numer();
    let coefficient = if *n == 1 {
        String::new()
    } else if *n == -1 {
        "-".into()
    } else {
        n.to_string()
    };
    if *q.denom() == 1 {
        format!("{coefficient}π")
    } else {
        format!("{coefficient}π/{}", q.denom())
    }
}

struct Evaluator {
    prec: u32,
    max_bits: u64,
    max_exp: Cell<i64>,
}

impl Evaluator {
    fn check(&self, q: Rational) -> Result<Num, ExprError> {
        let b = bits(&q);
        if b > self.max_bits {
            return Err(too_large(
                (b as f64 / LOG2_10) as u64,
                self.bits_to_digits(),
            ));
        }
        Ok(Num::Exact(q))
    }

    fn bits_to_digits(&self) -> u64 {
        ((self.max_bits - 64) as f64 / LOG2_10).round() as u64
    }

    /// Refuses an operation whose result is estimated at `est_bits` bits.
    fn guard(&self, est_bits: f64) -> Result<(), ExprError> {
        if est_bits > self.max_bits as f64 {
            return Err(too_large(
                (est_bits / LOG2_10) as u64,
                self.bits_to_digits(),
            ));
        }
        Ok(())
    }

    fn float(&self, f: Float) -> Result<Num, ExprError> {
        if f.is_nan() {
            return Err(ExprError::Domain(
                "the result is undefined (not a number)".into(),
            ));
        }
        if f.is_infinite() {
            return Err(ExprError::TooLarge(
                "the result overflows the floating-point range".into(),
            ));
        }
        self.seen(&f);
        Ok(Num::Approx(f))
    }

    fn seen(&self, f: &Float) {
        if let Some(e) = f.get_exp() {
            self.max_exp.set(self.max_exp.get().max(i64::from(e)));
        }
    }

    /// An exact value as a float, with enough extra bits that its integer part is kept whole: `sin(10**50)`
    /// must reduce the true argument, not one rounded to the working precision.
    fn to_float(&self, n: &Num) -> Float {
        match n {
            Num::Exact(q) => {
                let magnitude = (log2_int(q.numer()) - log2_int(q.denom())).max(0.0) as u32;
                let f = Float::with_val(self.prec.saturating_add(magnitude), q);
                self.seen(&f);
                f
            }
            Num::Approx(f) => f.clone(),
        }
    }

    /// `q·π` as a float, with extra bits for the integer part as in [`Evaluator::to_float`].
    fn pi_float(&self, q: &Rational) -> Float {
        let magnitude = (log2_int(q.numer()) - log2_int(q.denom())).max(0.0) as u32 + 2;
        let prec = self.prec.saturating_add(magnitude);
        let f = Float::with_val(prec, q) * Float::with_val(prec, Constant::Pi);
        self.seen(&f);
        f
    }

    /// `v` as a number: a multiple of π becomes its value.
    fn plain(&self, v: Val) -> Num {
        match v {
            Val::Num(n) => n,
            Val::PiMul(q) => Num::Approx(self.pi_float(&q)),
        }
    }

    /// `q·π`, size-checked; exactly 0 when `q` is.
    fn pi(&self, q: Rational) -> Result<Val, ExprError> {
        Ok(match self.check(q)? {
            Num::Exact(q) if q != 0 => Val::PiMul(q),
            n => Val::Num(n),
        })
    }

    /// `a op b` when it is again a multiple of π (or, for a quotient of two, a rational); `None` otherwise.
    fn pi_binary(&self, op: BinOp, a: &Val, b: &Val) -> Result<Option<Val>, ExprError> {
        use Val::PiMul;
        let q = match (op, a, b) {
            (BinOp::Add, PiMul(x), PiMul(y)) => Rational::from(x + y),
            (BinOp::Sub, PiMul(x), PiMul(y)) => Rational::from(x - y),
            (BinOp::Mul, PiMul(x), Val::Num(Num::Exact(y)))
            | (BinOp::Mul, Val::Num(Num::Exact(y)), PiMul(x)) => {
                self.guard((bits(x) + bits(y)) as f64)?;
                Rational::from(x * y)
            }
            (BinOp::Div, PiMul(x), Val::Num(Num::Exact(y))) if *y != 0 => {
                self.guard((bits(x) + bits(y)) as f64)?;
                Rational::from(x / y)
            }
            (BinOp::Div, PiMul(x), PiMul(y)) => {
                self.guard((bits(x) + bits(y)) as f64)?;
                return self.check(Rational::from(x / y)).map(|n| Some(Val::Num(n)));
            }
            _ => return Ok(None),
        };
        self.pi(q).map(Some)
    }

    /// `sin`, `cos` or `tan` of `q·π`: the argument is reduced exactly, the values that are rational (0, ±1/2,
    /// ±1) are returned exactly, and a pole of `tan` is a domain error instead of a huge rounded number.
    fn trig_pi(&self, f: Func, q: &Rational) -> Result<Num, ExprError> {
        let half = Rational::from((1, 2));
        // `r` mod `period`, in [0, period).
        let reduce = |r: Rational, period: u32| {
            let turns = Integer::from(Rational::from(&r / period).floor_ref());
            r - Rational::from(turns * period)
        };
        if f == Func::Tan {
            let mut t = reduce(q.clone(), 1);
            let mut sign = 1;
            if t > half {
                t = Rational::from(1) - t;
                sign = -1;
            }
            // t in [0, 1/2]: tan(tπ) for t <= 1/4, 1/tan((1/2 - t)π) above, so the argument is never near a pole.
            if t == half {
                return Err(ExprError::Domain(format!(
                    "tan has a pole at {}: the argument is exactly an odd multiple of π/2",
                    pi_text(q)
                )));
            }
            if t == 0 || t == Rational::from((1, 4)) {
                let v = if t == 0 { 0 } else { sign };
                return Ok(Num::Exact(Rational::from(v)));
            }
            let quarter = Rational::from((1, 4));
            let x = if t > quarter {
                let c = self.pi_float(&Rational::from(&half - &t));
                Float::with_val(self.prec, 1) / c.tan()
            } else {
                self.pi_float(&t).tan()
            };
            return self.float(if sign < 0 { -x } else { x });
        }
        // cos(qπ) = sin((q + 1/2)π); then sin(sπ) with s in [0, 2) folded to [0, 1/2] and a sign.
        let shifted = if f == Func::Cos {
            Rational::from(q + &half)
        } else {
            q.clone()
        };
        let mut s = reduce(shifted, 2);
        let mut sign = 1;
        if s >= 1 {
            s -= 1;
            sign = -1;
        }
        if s > half {
            s = Rational::from(1) - s;
        }
        if s == 0 {
            return Ok(Num::Exact(Rational::new()));
        }
        if s == half || s == Rational::from((1, 6)) {
            let v = if s == half {
                Rational::from(1)
            } else {
                Rational::from((1, 2))
            };
            return Ok(Num::Exact(if sign < 0 { -v } else { v }));
        }
        let x = self.pi_float(&s).sin();
        self.float(if sign < 0 { -x } else { x })
    }

    fn literal(&self, lit: &Literal) -> Result<Num, ExprError> {
        if let Some(q) = &lit.exact {
            return self.check(q.clone());
        }
        if lit.mantissa == 0 {
            return Ok(Num::Exact(Rational::new()));
        }
        let digits = lit.mantissa.significant_bits() as f64 / LOG2_10;
        let max = self.bits_to_digits() as f64;
        if lit.exp10 as f64 + digits > max || (-lit.exp10) as f64 > max {
            return Err(ExprError::TooLarge(format!(
                "the number {} has too many digits; the limit is {}",
                lit.text,
                self.bits_to_digits()
            )));
        }
        let scale = Integer::from(Integer::u_pow_u(10, lit.exp10.unsigned_abs() as u32));
        let q = if lit.exp10 >= 0 {
            Rational::from(Integer::from(&lit.mantissa * &scale))
        } else {
            Rational::from((lit.mantissa.clone(), scale))
        };
        self.check(q)
    }

    fn constant(&self, c: Const) -> Float {
        match c {
            Const::Pi => Float::with_val(self.prec, Constant::Pi),
            Const::E => Float::with_val(self.prec, 1).exp(),
            Const::Tau => Float::with_val(self.prec, Constant::Pi) * 2u32,
        }
    }

    fn binary(&self, op: BinOp, a: Val, b: Val) -> Result<Val, ExprError> {
        if let Some(v) = self.pi_binary(op, &a, &b)? {
            return Ok(v);
        }
        let (a, b) = (self.plain(a), self.plain(b));
        self.binary_num(op, a, b).map(Val::Num)
    }

    fn binary_num(&self, op: BinOp, a: Num, b: Num) -> Result<Num, ExprError> {
        if op == BinOp::Pow {
            return self.pow(a, b);
        }
        match (a, b) {
            (Num::Exact(x), Num::Exact(y)) => {
                if matches!(op, BinOp::Mul | BinOp::Div) {
                    self.guard((bits(&x) + bits(&y)) as f64)?;
                }
                let q = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div | BinOp::FloorDiv | BinOp::Mod if y == 0 => {
                        return Err(ExprError::Domain("division by zero".into()))
                    }
                    BinOp::Div => x / y,
                    BinOp::FloorDiv => {
                        Rational::from(Integer::from(Rational::from(&x / &y).floor_ref()))
                    }
                    BinOp::Mod => {
                        let q = Integer::from(Rational::from(&x / &y).floor_ref());
                        x - y * q
                    }
                    BinOp::Pow => unreachable!("handled above"),
                };
                self.check(q)
            }
            (a, b) => {
                let x = self.to_float(&a);
                let y = self.to_float(&b);
                if matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod) && y.is_zero() {
                    return Err(ExprError::Domain("division by zero".into()));
                }
                let p = self.prec;
                let f = match op {
                    BinOp::Add => Float::with_val(p, &x + &y),
                    BinOp::Sub => Float::with_val(p, &x - &y),
                    BinOp::Mul => Float::with_val(p, &x * &y),
                    BinOp::Div => Float::with_val(p, &x / &y),
                    BinOp::FloorDiv => Float::with_val(p, &x / &y).floor(),
                    BinOp::Mod => {
                        let q = Float::with_val(p, &x / &y).floor();
                        Float::with_val(p, &x - Float::with_val(p, &y * &q))
                    }
                    BinOp::Pow => unreachable!("handled above"),
                };
                self.float(f)
            }
        }
    }

    fn pow(&self, a: Num, b: Num) -> Result<Num, ExprError> {
        if let (Num::Exact(x), Num::Exact(y)) = (&a, &b) {
            if *y.denom() == 1 {
                return self.pow_int(x, y.numer());
            }
            if *x < 0 {
                return Err(ExprError::Domain(format!(
                    "a negative base ({x}) raised to a non-integer power ({y}) has no real value"
                )));
            }
            if *x == 0 {
                return if *y > 0 {
                    Ok(Num::Exact(Rational::new()))
                } else {
                    Err(ExprError::Domain(
                        "0 cannot be raised to a negative power".into(),
                    ))
                };
            }
            if *x == 1 {
                return Ok(Num::Exact(Rational::from(1)));
            }
            // x^(p/q) is rational exactly when x is a perfect q-th power.
            if let Some(q) = y.denom().to_u32().filter(|q| u64::from(*q) <= bits(x)) {
                let (rn, remn) = x.numer().clone().root_rem(Integer::new(), q);
                let (rd, remd) = x.denom().clone().root_rem(Integer::new(), q);
                if remn == 0 && remd == 0 {
                    return self.pow_int(&Rational::from((rn, rd)), y.numer());
                }
            }
        }
        let y_int: Option<Integer> = match &b {
            Num::Exact(q) if *q.denom() == 1 => Some(q.numer().clone()),
            Num::Approx(f) if f.is_integer() => f.to_integer(),
            _ => None,
        };
        let x = self.to_float(&a);
        if x.is_zero() {
            let y = self.to_float(&b);
            return match y.cmp0() {
                Some(Ordering::Greater) => Ok(Num::Approx(Float::new(self.prec))),
                Some(Ordering::Equal) => Ok(Num::Approx(Float::with_val(self.prec, 1))),
                _ => Err(ExprError::Domain(
                    "0 cannot be raised to a negative power".into(),
                )),
            };
        }
        let f = match y_int {
            Some(n) => Float::with_val(self.prec, (&x).pow(&n)),
            None => {
                if x.is_sign_negative() {
                    return Err(ExprError::Domain(format!(
                        "a negative base ({}) raised to a non-integer power has no real value",
                        display(&a)
                    )));
                }
                let y = self.to_float(&b);
                Float::with_val(self.prec, (&x).pow(&y))
            }
        };
        self.float(f)
    }

    fn pow_int(&self, x: &Rational, n: &Integer) -> Result<Num, ExprError> {
        if *x == 0 {
            return match n.cmp0() {
                Ordering::Less => Err(ExprError::Domain(
                    "0 cannot be raised to a negative power".into(),
                )),
                Ordering::Equal => Ok(Num::Exact(Rational::from(1))),
                Ordering::Greater => Ok(Num::Exact(Rational::new())),
            };
        }
        if *x == 1 || *n == 0 {
            return Ok(Num::Exact(Rational::from(1)));
        }
        if *x == -1 {
            return Ok(Num::Exact(Rational::from(if n.is_even() { 1 } else { -1 })));
        }
        let est = (log2_int(x.numer()) + log2_int(x.denom())) * n.to_f64().abs();
        if est > self.max_bits as f64 {
            return self.pow_approx(x, n);
        }
        let e = n
            .clone()
            .abs()
            .to_u32()
            .ok_or_else(|| too_large(u64::MAX, self.bits_to_digits()))?;
        let p = Rational::from(x.pow(e));
        let p = if *n < 0 { p.recip() } else { p };
        self.check(p)
    }

    /// `x^n` as a float, for a power whose exact value has too many digits to build (`1.0000001**10000000`,
    /// `(1/3)**10**6`) though the value itself may be ordinary. Only a value whose integer part alone would
    /// exceed the digit limit is refused.
    fn pow_approx(&self, x: &Rational, n: &Integer) -> Result<Num, ExprError> {
        let magnitude = (log2_int(x.numer()) - log2_int(x.denom())) * n.to_f64();
        self.guard(magnitude)?;
        // Rounding x costs a relative 2^-prec, which the power multiplies by |n|: carry that many more bits.
        let extra = n.significant_bits();
        let base = Float::with_val(self.prec.saturating_add(extra), x);
        self.float(Float::with_val(self.prec, base.pow(n)))
    }

    /// An integer argument of an integer-only function; the flag is false when it came from an approximation.
    fn integer(&self, f: Func, n: &Num) -> Result<(Integer, bool), ExprError> {
        match n {
            Num::Exact(q) if *q.denom() == 1 => Ok((q.numer().clone(), true)),
            Num::Approx(x) if x.is_integer() => Ok((x.to_integer().unwrap_or_default(), false)),
            _ => Err(ExprError::Domain(format!(
                "{} needs integers, got {}",
                f.name(),
                display(n)
            ))),
        }
    }

    fn exact_or_approx(&self, q: Rational, exact: bool) -> Result<Num, ExprError> {
        let n = self.check(q)?;
        Ok(if exact {
            n
        } else {
            Num::Approx(self.to_float(&n))
        })
    }

    fn call(&self, f: Func, args: Vec<Val>) -> Result<Num, ExprError> {
        if let (Func::Sin | Func::Cos | Func::Tan, Some(Val::PiMul(q))) = (f, args.first()) {
            return self.trig_pi(f, q);
        }
        let args: Vec<Num> = args.into_iter().map(|a| self.plain(a)).collect();
        let p = self.prec;
        let first = args
            .first()
            .cloned()
            .ok_or_else(|| ExprError::Domain("missing argument".into()))?;
        let zero_exact = matches!(&first, Num::Exact(q) if *q == 0);
        let one_exact = matches!(&first, Num::Exact(q) if *q == 1);
        match f {
            Func::Abs => Ok(match first {
                Num::Exact(q) => Num::Exact(q.abs()),
                Num::Approx(x) => Num::Approx(x.abs()),
            }),
            Func::Floor | Func::Ceil => Ok(match first {
                Num::Exact(q) => Num::Exact(if f == Func::Floor {
                    q.floor()
                } else {
                    q.ceil()
                }),
                Num::Approx(x) => Num::Approx(if f == Func::Floor {
                    x.floor()
                } else {
                    x.ceil()
                }),
            }),
            Func::Round => self.round(&args),
            Func::Min | Func::Max => {
                let exact = args.iter().all(|a| matches!(a, Num::Exact(_)));
                let mut best: Option<(Rational, &Num)> = None;
                for a in &args {
                    let q = match a {
                        Num::Exact(q) => q.clone(),
                        Num::Approx(x) => x.to_rational().unwrap_or_default(),
                    };
                    let better = match &best {
                        None => true,
                        Some((b, _)) => (f == Func::Min && q < *b) || (f == Func::Max && q > *b),
                    };
                    if better {
                        best = Some((q, a));
                    }
                }
                let (_, chosen) =
                    best.ok_or_else(|| ExprError::Domain("missing argument".into()))?;
                Ok(if exact {
                    chosen.clone()
                } else {
                    Num::Approx(self.to_float(chosen))
                })
            }
            Func::Gcd | Func::Lcm => {
                let mut exact = true;
                let mut acc: Option<Integer> = None;
                for a in &args {
                    let (z, e) = self.integer(f, a)?;
                    exact &= e;
                    acc = Some(match acc {
                        None => z.abs(),
                        Some(x) if f == Func::Gcd => x.gcd(&z),
                        Some(x) => {
                            self.guard(log2_int(&x) + log2_int(&z))?;
                            x.lcm(&z)
                        }
                    });
                }
                self.exact_or_approx(Rational::from(acc.unwrap_or_default()), exact)
            }
            Func::Factorial => {
                let (n, exact) = self.integer(f, &first)?;
                if n < 0 {
                    return Err(ExprError::Domain(format!(
                        "factorial is not defined for negative numbers ({n})"
                    )));
                }
                let n = n
                    .to_u32()
                    .ok_or_else(|| too_large(u64::MAX, self.bits_to_digits()))?;
                self.guard(ln_factorial(f64::from(n)) / std::f64::consts::LN_2)?;
                self.exact_or_approx(Rational::from(Integer::from(Integer::factorial(n))), exact)
            }
            Func::Comb | Func::Perm => {
                let (n, e1) = self.integer(f, &first)?;
                let (k, e2) = match args.get(1) {
                    Some(a) => self.integer(f, a)?,
                    None => (n.clone(), true),
                };
                if n < 0 || k < 0 {
                    return Err(ExprError::Domain(format!(
                        "{} needs non-negative integers, got ({n}, {k})",
                        f.name()
                    )));
                }
                let exact = e1 && e2;
                if k > n {
                    return self.exact_or_approx(Rational::new(), exact);
                }
                let nk = Integer::from(&n - &k);
                let kk = if f == Func::Comb && nk < k {
                    nk
                } else {
                    k.clone()
                };
                let kf = kk.to_f64();
                let nf = n.to_f64();
                let est = if f == Func::Comb {
                    // C(n, k) <= (e n / k)^k
                    if kf == 0.0 {
                        0.0
                    } else {
                        kf * ((nf / kf).log2() + std::f64::consts::LOG2_E)
                    }
                } else {
                    kf * nf.log2()
                };
                self.guard(est)?;
                let k32 = kk
                    .to_u32()
                    .ok_or_else(|| too_large(u64::MAX, self.bits_to_digits()))?;
                let c = n.binomial(k32);
                let v = if f == Func::Perm {
                    c * Integer::from(Integer::factorial(k32))
                } else {
                    c
                };
                self.exact_or_approx(Rational::from(v), exact)
            }
            Func::Sqrt | Func::Cbrt => {
                let root = if f == Func::Sqrt { 2 } else { 3 };
                if let Num::Exact(q) = &first {
                    if *q < 0 && root == 2 {
                        return Err(ExprError::Domain(format!(
                            "sqrt of a negative number ({q}) has no real value"
                        )));
                    }
                    let (rn, remn) = q.numer().clone().abs().root_rem(Integer::new(), root);
                    let (rd, remd) = q.denom().clone().root_rem(Integer::new(), root);
                    if remn == 0 && remd == 0 {
                        let r = Rational::from((rn, rd));
                        return Ok(Num::Exact(if *q < 0 { -r } else { r }));
                    }
                }
                let x = self.to_float(&first);
                if root == 2 {
                    if x.is_sign_negative() && !x.is_zero() {
                        return Err(ExprError::Domain(format!(
                            "sqrt of a negative number ({}) has no real value",
                            display(&first)
                        )));
                    }
                    self.float(x.sqrt())
                } else {
                    self.float(x.cbrt())
                }
            }
            Func::Exp => {
                if zero_exact {
                    return Ok(Num::Exact(Rational::from(1)));
                }
                self.float(self.to_float(&first).exp())
            }
            Func::Ln | Func::Log | Func::Log10 | Func::Log2 => {
                let base = match f {
                    Func::Log10 => Some(Num::Exact(Rational::from(10))),
                    Func::Log2 => Some(Num::Exact(Rational::from(2))),
                    Func::Log => args.get(1).cloned(),
                    _ => None,
                };
                self.log(f, &first, base.as_ref())
            }
            Func::Sin | Func::Tan | Func::Asin | Func::Atan | Func::Sinh | Func::Tanh
                if zero_exact =>
            {
                Ok(Num::Exact(Rational::new()))
            }
            Func::Cos | Func::Cosh if zero_exact => Ok(Num::Exact(Rational::from(1))),
            Func::Acos if one_exact => Ok(Num::Exact(Rational::new())),
            Func::Sin
            | Func::Cos
            | Func::Tan
            | Func::Atan
            | Func::Sinh
            | Func::Cosh
            | Func::Tanh => {
                let x = self.to_float(&first);
                self.float(match f {
                    Func::Sin => x.sin(),
                    Func::Cos => x.cos(),
                    Func::Tan => x.tan(),
                    Func::Atan => x.atan(),
                    Func::Sinh => x.sinh(),
                    Func::Cosh => x.cosh(),
                    _ => x.tanh(),
                })
            }
            Func::Asin | Func::Acos => {
                let x = self.to_float(&first);
                if x.clone().abs() > 1 {
                    return Err(ExprError::Domain(format!(
                        "{} is only defined on [-1, 1], got {}",
                        f.name(),
                        display(&first)
                    )));
                }
                self.float(if f == Func::Asin { x.asin() } else { x.acos() })
            }
            Func::Atan2 => {
                let second = args
                    .get(1)
                    .cloned()
                    .ok_or_else(|| ExprError::Domain("missing argument".into()))?;
                if let (Num::Exact(y), Num::Exact(x)) = (&first, &second) {
                    if *y == 0 && *x >= 0 {
                        return Ok(Num::Exact(Rational::new()));
                    }
                }
                let y = self.to_float(&first);
                let x = self.to_float(&second);
                self.float(Float::with_val(p, y.atan2(&x)))
            }
        }
    }

    fn round(&self, args: &[Num]) -> Result<Num, ExprError> {
        let x = args
            .first()
            .ok_or_else(|| ExprError::Domain("missing argument".into()))?;
        let places = match args.get(1) {
            Some(n) => {
                let (n, _) = self.integer(Func::Round, n)?;
                let n = n
                    .to_i64()
                    .filter(|n| n.unsigned_abs() <= self.bits_to_digits());
                n.ok_or_else(|| ExprError::TooLarge("round's second argument is too large".into()))?
            }
            None => 0,
        };
        let scale = Rational::from(Integer::from(Integer::u_pow_u(
            10,
            places.unsigned_abs() as u32,
        )));
        let scale = if places < 0 { scale.recip() } else { scale };
        match x {
            Num::Exact(q) => {
                let r = round_half_even(&Rational::from(q * &scale));
                self.check(Rational::from(r) / scale)
            }
            Num::Approx(f) => {
                let s = Float::with_val(self.prec, &scale);
                let r = Float::with_val(self.prec, f * &s).round_even();
                self.float(Float::with_val(self.prec, r / &s))
            }
        }
    }

    fn log(&self, f: Func, x: &Num, base: Option<&Num>) -> Result<Num, ExprError> {
        let name = f.name();
        let positive = |n: &Num| match n {
            Num::Exact(q) => *q > 0,
            Num::Approx(v) => v.is_sign_positive() && !v.is_zero(),
        };
        if !positive(x) {
            return Err(ExprError::Domain(format!(
                "{name} is only defined for x > 0, got {}",
                display(x)
            )));
        }
        if let Some(b) = base {
            let one = matches!(b, Num::Exact(q) if *q == 1);
            if !positive(b) || one {
                return Err(ExprError::Domain(format!(
                    "a logarithm's base must be positive and not 1, got {}",
                    display(b)
                )));
            }
        }
        if let Num::Exact(q) = x {
            if *q == 1 {
                return Ok(Num::Exact(Rational::new()));
            }
            if let Some(Num::Exact(b)) = base {
                if let Some(k) = self.exact_log(q, b) {
                    return Ok(Num::Exact(Rational::from(k)));
                }
            }
        }
        let lx = self.to_float(x).ln();
        match base {
            None => self.float(lx),
            Some(b) => {
                let lb = self.to_float(b).ln();
                self.float(Float::with_val(self.prec, lx / lb))
            }
        }
    }

    /// `k` when `x == b^k` for an integer `k`.
    fn exact_log(&self, x: &Rational, b: &Rational) -> Option<i64> {
        let lx = log2_int(x.numer()) - log2_int(x.denom());
        let lb = log2_int(b.numer()) - log2_int(b.denom());
        let k = (lx / lb).round();
        if !k.is_finite() || k == 0.0 || (k.abs() * lb.abs()) > self.max_bits as f64 {
            return None;
        }
        // Build b^k only when its size matches x's: a base near 1 (`log(2, 1.0000001)`) would ask for a
        // power with billions of digits.
        let est = k.abs() * (log2_int(b.numer()) + log2_int(b.denom()));
        if est > (bits(x) + 64) as f64 || k.abs() > f64::from(u32::MAX) {
            return None;
        }
        let k = k as i64;
        let p = Rational::from(b.pow(k.unsigned_abs() as u32));
        let p = if k < 0 { p.recip() } else { p };
        (p == *x).then_some(k)
    }
}

/// ln(n!) by Stirling's series (exact enough to size a result; never used for the value itself).
fn ln_factorial(n: f64) -> f64 {
    if n < 2.0 {
        return 0.0;
    }
    n * n.ln() - n + 0.5 * (2.0 * std::f64::consts::PI * n).ln() + 1.0 / (12.0 * n)
}
