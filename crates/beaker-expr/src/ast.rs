//! The parsed form of an expression: a tree stored in postfix order.
//!
//! Postfix order lets both evaluators run with an explicit value stack instead of recursion, so no
//! expression, however deep, can overflow the thread's stack.

use rug::{Integer, Rational};

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (true division)
    Div,
    /// `//` (floor division, Python semantics)
    FloorDiv,
    /// `%` (remainder with the sign of the divisor, Python semantics)
    Mod,
    /// `**` or `^` (right-associative)
    Pow,
}

impl BinOp {
    /// The operator as written in canonical form.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
        }
    }

    pub(crate) fn precedence(self) -> u8 {
        match self {
            BinOp::Add | BinOp::Sub => 1,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => 2,
            BinOp::Pow => 4,
        }
    }
}

/// A named constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Const {
    /// π
    Pi,
    /// Euler's number
    E,
    /// τ = 2π
    Tau,
}

impl Const {
    /// The constant's name.
    pub fn name(self) -> &'static str {
        match self {
            Const::Pi => "pi",
            Const::E => "e",
            Const::Tau => "tau",
        }
    }
}

macro_rules! functions {
    ($( $variant:ident = $name:literal, $min:literal ..= $max:expr; )*) => {
        /// A built-in function.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Func { $( #[doc = concat!("`", $name, "`")] $variant, )* }

        impl Func {
            /// Every function, in documentation order.
            pub const ALL: &'static [Func] = &[$( Func::$variant, )*];

            /// The function's name.
            pub fn name(self) -> &'static str {
                match self { $( Func::$variant => $name, )* }
            }

            /// The smallest and largest number of arguments it takes.
            pub fn arity(self) -> (usize, usize) {
                match self { $( Func::$variant => ($min, $max), )* }
            }

            /// The function with this name.
            pub fn from_name(name: &str) -> Option<Func> {
                match name { $( $name => Some(Func::$variant), )* _ => None }
            }
        }
    };
}

functions! {
    Sqrt = "sqrt", 1..=1;
    Cbrt = "cbrt", 1..=1;
    Abs = "abs", 1..=1;
    Factorial = "factorial", 1..=1;
    Gcd = "gcd", 1..=usize::MAX;
    Lcm = "lcm", 1..=usize::MAX;
    Exp = "exp", 1..=1;
    Ln = "ln", 1..=1;
    Log = "log", 1..=2;
    Log10 = "log10", 1..=1;
    Log2 = "log2", 1..=1;
    Sin = "sin", 1..=1;
    Cos = "cos", 1..=1;
    Tan = "tan", 1..=1;
    Asin = "asin", 1..=1;
    Acos = "acos", 1..=1;
    Atan = "atan", 1..=1;
    Atan2 = "atan2", 2..=2;
    Sinh = "sinh", 1..=1;
    Cosh = "cosh", 1..=1;
    Tanh = "tanh", 1..=1;
    Floor = "floor", 1..=1;
    Ceil = "ceil", 1..=1;
    Round = "round", 1..=2;
    Min = "min", 1..=usize::MAX;
    Max = "max", 1..=usize::MAX;
    Comb = "comb", 2..=2;
    Perm = "perm", 1..=2;
}

/// A number literal as written: `mantissa * 10^exp10`, exact.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    /// The literal's text, without underscores.
    pub text: String,
    /// The digits as an integer.
    pub mantissa: Integer,
    /// The power of ten to scale by.
    pub exp10: i64,
    /// The exact value, precomputed when it is small.
    pub exact: Option<Rational>,
    /// The nearest f64.
    pub approx: f64,
}

/// One node of the postfix program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Node {
    /// Push literal number `i`.
    Num(u32),
    /// Push a constant.
    Const(Const),
    /// Push variable `i` (an index into [`Expr::variables`]).
    Var(u32),
    /// Negate the top of the stack.
    Neg,
    /// Factorial of the top of the stack (postfix `!`).
    Fact,
    /// Pop two operands, push the result.
    Bin(BinOp),
    /// Pop `argc` arguments, push the result.
    Call(Func, u32),
}

/// A parsed expression: a tree in postfix order plus its literals and free variable names.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub(crate) nodes: Vec<Node>,
    pub(crate) literals: Vec<Literal>,
    /// Free names, sorted alphabetically; `Node::Var(i)` refers to `vars[i]`.
    pub(crate) vars: Vec<String>,
    /// For each variable, the 1-based character where it first appears.
    pub(crate) var_positions: Vec<usize>,
    /// The largest number of values on the stack while evaluating.
    pub(crate) max_stack: usize,
}

impl Expr {
    /// The postfix program.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The literal numbers the program refers to.
    pub fn literals(&self) -> &[Literal] {
        &self.literals
    }

    /// The free variable names, sorted alphabetically (the default order for functions of several variables).
    pub fn variables(&self) -> &[String] {
        &self.vars
    }

    /// Fails with [`crate::ExprError::UnknownName`] if the expression uses any variable (for the calculator).
    pub fn require_closed(&self) -> Result<(), crate::ExprError> {
        match (self.vars.first(), self.var_positions.first()) {
            (Some(name), Some(&position)) => Err(crate::ExprError::UnknownName {
                name: name.clone(),
                position,
                hint: String::new(),
            }),
            _ => Ok(()),
        }
    }

    /// The expression written back fully parenthesised; parsing it gives the same program.
    pub fn to_infix(&self) -> String {
        let mut stack: Vec<String> = Vec::with_capacity(self.max_stack);
        for node in &self.nodes {
            let s = match *node {
                Node::Num(i) => self.literals[i as usize].text.clone(),
                Node::Const(c) => c.name().to_string(),
                Node::Var(i) => self.vars[i as usize].clone(),
                Node::Neg => format!("(-{})", stack.pop().unwrap_or_default()),
                Node::Fact => format!("({}!)", stack.pop().unwrap_or_default()),
                Node::Bin(op) => {
                    let r = stack.pop().unwrap_or_default();
                    let l = stack.pop().unwrap_or_default();
                    format!("({l} {} {r})", op.symbol())
                }
                Node::Call(f, argc) => {
                    let args = stack.split_off(stack.len().saturating_sub(argc as usize));
                    format!("{}({})", f.name(), args.join(", "))
                }
            };
            stack.push(s);
        }
        stack.pop().unwrap_or_default()
    }
}
