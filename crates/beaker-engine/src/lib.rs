//! The Beaker [`Engine`]: the tools it is handed in a registry, params validation against each tool's JSON Schema,
//! per-call [`Limits`], and dispatch onto fixed pools of worker threads (one per [`beaker_core::Pool`]). It knows
//! no tool: `beaker-catalog` builds Beaker's own and hands them to [`Engine::builder`].
//!
//! Every call submitted gets exactly one [`Envelope`], whatever happens: unknown tool, invalid params,
//! a tool error, a panic inside the tool (reported as `internal`), a timeout or a cancellation.
//!
//! - Execution deadlines start when a worker picks the call up (queue time is reported separately as
//!   `queued_us`). A watchdog thread answers `timeout` at the deadline and flips the call's
//!   [`beaker_core::CancelToken`], so the tool stops at its next checkpoint.
//! - [`Engine::call`] blocks; [`Engine::call_async`] returns a future that works on any executor (dropping
//!   it cancels the call);
//!   [`Engine::submit`] takes a callback and returns a [`CallHandle`] that can cancel.
//!
//! The engine never widens a call's limits past the configured maxima and never lets a tool's panic
//! escape a worker.
//!
//! ```
//! use beaker_engine::Engine;
//! use beaker_core::{CallContext, Tool, ToolCall, ToolError, ToolSpec};
//! use serde_json::{json, Value};
//!
//! struct Twice(ToolSpec);
//! impl Tool for Twice {
//!     fn spec(&self) -> &ToolSpec {
//!         &self.0
//!     }
//!     fn call(&self, params: &Value, _: &CallContext) -> Result<Value, ToolError> {
//!         Ok(json!({"value": params["x"].as_f64().unwrap_or(0.0) * 2.0}))
//!     }
//! }
//! let spec = ToolSpec {
//!     name: "twice".into(),
//!     description: "Doubles x.".into(),
//!     params_schema: json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}),
//!     result_schema: json!({"type": "object"}),
//!     examples: Vec::new(),
//!     notes: String::new(),
//! };
//! let engine = Engine::builder().tool(std::sync::Arc::new(Twice(spec))).build().unwrap();
//! let env = engine.call(ToolCall::new("twice", json!({"x": 21})));
//! assert_eq!(env.result.unwrap()["value"], 42.0);
//! ```
#![deny(missing_docs)]

mod builder;
mod config;
mod engine;
mod output;
mod params;
mod stats;
mod trajectory;
mod watchdog;

pub use beaker_core::{
    Envelope, ErrorKind, Limits, LimitsRequest, Tenant, ToolCall, ToolError, ToolSpec,
};
pub use builder::{EngineBuilder, EngineError, WorkerStart};
pub use config::Config;

pub use engine::{recv_spinning, CallHandle, Engine, Metrics};
pub use params::ParamsSchema;
pub use stats::{Histogram, PoolStats, Stats, ToolStats, LATENCY_BOUNDS_US};
pub use trajectory::{ToolUse, TrajectoryLimits};

#[cfg(test)]
mod tests;
