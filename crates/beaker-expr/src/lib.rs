//! Beaker's one expression language: a parser to a postfix tree ([`Expr`]) and two evaluators.
//!
//! - [`eval_exact`] / [`eval_decimal`]: exact rationals (GMP) while every step is rational, MPFR floats
//!   at a working precision once `pi`, `sqrt(2)`, `sin` … appear, correctly rounded to decimals.
//! - [`Expr::compile_f64`]: a constant-folded f64 program for plots and numerical methods, evaluated
//!   many times with [`CompiledF64::eval`].
//!
//! Grammar (Python's precedence): numbers (`12`, `1_000`, `1.5`, `.5`, `1.5e-3`), `+ - * / // % **`
//! (`^` is `**`, right-associative, binding tighter than a unary minus on its left), unary `-`/`+`,
//! postfix `!`, parentheses, constants `pi e tau`, the functions in [`Func`], and free names (variables).
//!
//! Nothing here ever runs input as code, recurses on input depth, or builds a number it has not sized first.
//!
//! ```
//! use beaker_expr::{parse, eval_decimal, ParseLimits};
//! let e = parse("1/3 + 1/6", ParseLimits::default()).unwrap();
//! let d = eval_decimal(&e, 10, 100_000, None).unwrap();
//! assert_eq!((d.value.as_str(), d.exact, d.fraction.as_deref()), ("0.5", true, Some("1/2")));
//! let f = parse("x**2 + 1", ParseLimits::default()).unwrap().compile_f64(&["x"]).unwrap();
//! assert_eq!(f.eval(&[3.0]), 10.0);
//! ```
#![deny(missing_docs)]

mod ast;
mod error;
mod exact;
mod fast;
mod format;
pub mod latex;
mod parser;

pub use ast::{BinOp, Const, Expr, Func, Literal, Node};
pub use error::ExprError;
pub use exact::{eval_decimal, eval_exact, Decimal, ExactOptions, Num};
pub use fast::CompiledF64;
pub use format::{
    decimal_exponent, format_fixed, format_significant, pow10, round_half_even, SCIENTIFIC_BELOW,
    SCIENTIFIC_FROM,
};
pub use parser::{parse, ParseLimits};

#[cfg(test)]
mod proptests;
