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
pub mod plotter;
pub mod units;

/// The `numerical` tool (its own crate, re-exported here beside the other native tools).
pub use beaker_numerical as numerical;
/// The `statistics` tool (its own crate, re-exported here beside the other native tools).
pub use beaker_statistics as statistics;

use beaker_core::Tool;
use std::sync::Arc;

/// Every native tool, ready to register.
pub fn all() -> Vec<Arc<dyn Tool>> {
    let statistics: Arc<dyn Tool> = Arc::new(beaker_statistics::Statistics::new());
    vec![
        Arc::new(calculator::Calculator::new()),
        Arc::new(units::UnitConverter::new()),
        Arc::new(plotter::Plotter::new()),
        Arc::new(beaker_numerical::Numerical::new().with_stats(statistics.clone())),
        statistics,
    ]
}

pub mod testing;

/// Tools that exist only to test front ends (see [`testing`]).
pub fn testing_tools() -> Vec<Arc<dyn Tool>> {
    vec![Arc::new(testing::Block::new())]
}
