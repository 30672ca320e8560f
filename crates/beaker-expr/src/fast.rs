//! The fast evaluator: an expression compiled once to an f64 postfix program (constants folded),
//! evaluated many times. IEEE 754 semantics: domain errors give NaN or ±inf instead of failing, which is
//! what plots and numerical methods want.

use crate::ast::{BinOp, Const, Expr, Func, Node};
use crate::ExprError;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Const(f64),
    Var(u32),
    Neg,
    Fact,
    Bin(BinOp),
    Call(Func, u32),
}

/// An expression compiled for fast f64 evaluation; cheap to clone, thread-safe, evaluated with [`CompiledF64::eval`].
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledF64 {
    ops: Vec<Op>,
    vars: Vec<String>,
    max_stack: usize,
}

impl Expr {
    /// Compiles for f64 evaluation with the variables in `order` (`eval`'s argument follows that order).
    /// Every free name of the expression must be in `order`.
    pub fn compile_f64(&self, order: &[&str]) -> Result<CompiledF64, ExprError> {
        let mut slot = Vec::with_capacity(self.vars.len());
        for (i, name) in self.vars.iter().enumerate() {
            match order.iter().position(|o| o == name) {
                Some(j) => slot.push(j as u32),
                None => {
                    return Err(ExprError::UnknownName {
                        name: name.clone(),
                        position: self.var_positions[i],
                        hint: if order.is_empty() {
                            String::new()
                        } else {
                            format!("; variables are {}", order.join(", "))
                        },
                    })
                }
            }
        }
        let mut ops: Vec<Op> = Vec::with_capacity(self.nodes.len());
        // Which stack entries are known constants (then their producing ops are the last ones in `ops`).
        let mut known: Vec<Option<f64>> = Vec::with_capacity(self.max_stack);
        for node in &self.nodes {
            let (op, argc) = match *node {
                Node::Num(i) => (Op::Const(self.literals[i as usize].approx), 0),
                Node::Const(c) => (Op::Const(constant(c)), 0),
                Node::Var(i) => (Op::Var(slot[i as usize]), 0),
                Node::Neg => (Op::Neg, 1),
                Node::Fact => (Op::Fact, 1),
                Node::Bin(b) => (Op::Bin(b), 2),
                Node::Call(f, n) => (Op::Call(f, n), n as usize),
            };
            let start = known.len().saturating_sub(argc);
            let all_known = known[start..].iter().all(Option::is_some);
            match op {
                Op::Const(v) => {
                    ops.push(op);
                    known.push(Some(v));
                }
                Op::Var(_) => {
                    ops.push(op);
                    known.push(None);
                }
                _ if all_known => {
                    let mut args: Vec<f64> = known
                        .drain(start..)
                        .map(|v| v.unwrap_or(f64::NAN))
                        .collect();
                    ops.truncate(ops.len() - argc);
                    args.push(0.0);
                    let mut stack = Stack {
                        len: argc,
                        buf: &mut args,
                    };
                    apply(op, &mut stack);
                    let v = stack.pop();
                    ops.push(Op::Const(v));
                    known.push(Some(v));
                }
                _ => {
                    known.truncate(start);
                    known.push(None);
                    ops.push(op);
                }
            }
        }
        Ok(CompiledF64 {
            ops,
            vars: order.iter().map(|s| s.to_string()).collect(),
            max_stack: self.max_stack.max(1),
        })
    }
}

impl CompiledF64 {
    /// The variable order `eval` expects.
    pub fn variables(&self) -> &[String] {
        &self.vars
    }

    /// Evaluates at `vars` (one value per variable, in [`CompiledF64::variables`] order; missing ones are NaN).
    pub fn eval(&self, vars: &[f64]) -> f64 {
        if self.ops.len() == 1 {
            if let Op::Const(v) = self.ops[0] {
                return v;
            }
        }
        // Small programs (nearly all) keep their stack on the machine stack: no allocation per point.
        const INLINE: usize = 32;
        if self.max_stack <= INLINE {
            self.run(vars, &mut [0.0; INLINE])
        } else {
            self.run(vars, &mut vec![0.0; self.max_stack])
        }
    }

    fn run(&self, vars: &[f64], buf: &mut [f64]) -> f64 {
        let mut stack = Stack { buf, len: 0 };
        for &op in &self.ops {
            match op {
                Op::Const(v) => stack.push(v),
                Op::Var(i) => stack.push(vars.get(i as usize).copied().unwrap_or(f64::NAN)),
                _ => apply(op, &mut stack),
            }
        }
        stack.pop()
    }
}

/// A value stack over a fixed buffer sized by the parser's `max_stack`.
struct Stack<'a> {
    buf: &'a mut [f64],
    len: usize,
}

impl Stack<'_> {
    #[inline]
    fn push(&mut self, v: f64) {
        if let Some(slot) = self.buf.get_mut(self.len) {
            *slot = v;
            self.len += 1;
        }
    }

    #[inline]
    fn pop(&mut self) -> f64 {
        if self.len == 0 {
            return f64::NAN;
        }
        self.len -= 1;
        self.buf[self.len]
    }

    #[inline]
    fn top_n(&self, n: usize) -> &[f64] {
        &self.buf[self.len.saturating_sub(n)..self.len]
    }
}

fn constant(c: Const) -> f64 {
    match c {
        Const::Pi => std::f64::consts::PI,
        Const::E => std::f64::consts::E,
        Const::Tau => std::f64::consts::TAU,
    }
}

#[inline]
fn apply(op: Op, stack: &mut Stack<'_>) {
    let v = match op {
        Op::Const(v) => v,
        Op::Var(_) => f64::NAN,
        Op::Neg => -stack.pop(),
        Op::Fact => factorial(stack.pop()),
        Op::Bin(b) => {
            let y = stack.pop();
            let x = stack.pop();
            binary(b, x, y)
        }
        Op::Call(f, argc) => {
            let v = call(f, stack.top_n(argc as usize));
            stack.len = stack.len.saturating_sub(argc as usize);
            v
        }
    };
    stack.push(v);
}

fn binary(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::Mod => {
            let r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r
            }
        }
        BinOp::Pow => x.powf(y),
    }
}

fn is_int(x: f64) -> bool {
    x.is_finite() && x.fract() == 0.0
}

fn factorial(n: f64) -> f64 {
    if !is_int(n) || n < 0.0 {
        return f64::NAN;
    }
    if n > 170.0 {
        return f64::INFINITY;
    }
    (2..=n as u32).fold(1.0, |acc, k| acc * f64::from(k))
}

fn comb(n: f64, k: f64) -> f64 {
    if !is_int(n) || !is_int(k) || n < 0.0 || k < 0.0 {
        return f64::NAN;
    }
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    // C(n, k) >= C(2k, k) overflows f64 past k = 515.
    if k > 600.0 {
        return f64::INFINITY;
    }
    let mut acc = 1.0;
    for i in 0..k as u32 {
        acc = acc * (n - f64::from(i)) / f64::from(i + 1);
    }
    acc.round()
}

fn perm(n: f64, k: f64) -> f64 {
    if !is_int(n) || !is_int(k) || n < 0.0 || k < 0.0 {
        return f64::NAN;
    }
    if k > n {
        return 0.0;
    }
    if k > 171.0 {
        return f64::INFINITY;
    }
    (0..k as u32).fold(1.0, |acc, i| acc * (n - f64::from(i)))
}

fn gcd(mut a: f64, mut b: f64) -> f64 {
    a = a.abs();
    b = b.abs();
    while b != 0.0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn call(f: Func, args: &[f64]) -> f64 {
    let x = args.first().copied().unwrap_or(f64::NAN);
    let y = args.get(1).copied();
    match f {
        Func::Sqrt => x.sqrt(),
        Func::Cbrt => x.cbrt(),
        Func::Abs => x.abs(),
        Func::Factorial => factorial(x),
        Func::Gcd | Func::Lcm => {
            if !args.iter().all(|a| is_int(*a)) {
                return f64::NAN;
            }
            let fold = |acc: f64, v: f64| {
                if f == Func::Gcd {
                    gcd(acc, v)
                } else if acc == 0.0 || v == 0.0 {
                    0.0
                } else {
                    (acc / gcd(acc, v) * v).abs()
                }
            };
            args[1..].iter().fold(x.abs(), |acc, v| fold(acc, *v))
        }
        Func::Exp => x.exp(),
        Func::Ln => x.ln(),
        Func::Log => match y {
            Some(b) => x.ln() / b.ln(),
            None => x.ln(),
        },
        Func::Log10 => x.log10(),
        Func::Log2 => x.log2(),
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Tan => x.tan(),
        Func::Asin => x.asin(),
        Func::Acos => x.acos(),
        Func::Atan => x.atan(),
        Func::Atan2 => x.atan2(y.unwrap_or(f64::NAN)),
        Func::Sinh => x.sinh(),
        Func::Cosh => x.cosh(),
        Func::Tanh => x.tanh(),
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        Func::Round => match y {
            Some(n) if is_int(n) => {
                let s = 10f64.powi(n as i32);
                (x * s).round_ties_even() / s
            }
            Some(_) => f64::NAN,
            None => x.round_ties_even(),
        },
        Func::Min | Func::Max => {
            if args.iter().any(|a| a.is_nan()) {
                return f64::NAN;
            }
            let init = if f == Func::Min {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            args.iter().fold(init, |acc, v| {
                if f == Func::Min {
                    acc.min(*v)
                } else {
                    acc.max(*v)
                }
            })
        }
        Func::Comb => comb(x, y.unwrap_or(f64::NAN)),
        Func::Perm => perm(x, y.unwrap_or(x)),
    }
}

#[cfg(test)]
mod tests {
    use crate::{parse, ParseLimits};

    fn f(src: &str, vars: &[&str], at: &[f64]) -> f64 {
        parse(src, ParseLimits::default())
            .unwrap()
            .compile_f64(vars)
            .unwrap()
            .eval(at)
    }

    #[test]
    fn evaluates_with_variables() {
        assert_eq!(f("x**2 + 2*x*y", &["x", "y"], &[3.0, 4.0]), 33.0);
        assert_eq!(f("-7 // 2", &[], &[]), -4.0);
        assert_eq!(f("-7 % 2", &[], &[]), 1.0);
        assert_eq!(f("7 % -2", &[], &[]), -1.0);
        assert_eq!(f("5!", &[], &[]), 120.0);
        assert!(f("sqrt(x)", &["x"], &[-1.0]).is_nan());
        assert_eq!(f("1/x", &["x"], &[0.0]), f64::INFINITY);
    }

    #[test]
    fn constants_are_folded() {
        let c = parse("sin(pi/2) * x + 2**10", ParseLimits::default())
            .unwrap()
            .compile_f64(&["x"])
            .unwrap();
        assert_eq!(c.ops.len(), 5, "{:?}", c.ops);
        assert_eq!(c.eval(&[3.0]), 1027.0);
    }

    #[test]
    fn unknown_variables_are_reported() {
        let e = parse("x + q", ParseLimits::default()).unwrap();
        let err = e.compile_f64(&["x"]).unwrap_err().to_string();
        assert!(
            err.contains("unknown name `q`") && err.contains("variables are x"),
            "{err}"
        );
    }
}
