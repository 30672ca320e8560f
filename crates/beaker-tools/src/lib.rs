//! Beaker's native tools, one module each. Each implements [`beaker_core::Tool`]: a [`beaker_core::ToolSpec`]
//! with JSON Schemas, and a `call` that is deterministic and bounded by construction (it sizes work
//! before doing it and polls [`beaker_core::CallContext::checkpoint`] in long loops).
//!
//! Tools never perform IO and never panic on user input; params reach them already schema-validated.
//!
//! ```
//! use beaker_core::{CallContext, Limits, Tool};
//! let calc = beaker_tools::calculator::Calculator::new();
//! let out = calc.call(&serde_json::json!({"expression": "7 * 8"}), &CallContext::new(Limits::default())).unwrap();
//! assert_eq!(out["value"], "56");
//! ```
#![deny(missing_docs)]

pub mod calculator;
pub mod chemistry;
pub mod grade;
mod operations;
pub mod physics;
pub mod plotter;
pub mod testing;
pub mod units;
