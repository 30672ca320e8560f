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
mod engine;
pub mod listing;
mod output;
mod params;
mod plan;
mod stats;
mod text;
mod trajectory;
mod watchdog;

/// The dialects crate, for front ends (which depend on the engine only).
pub use beaker_dialects as dialects;
/// Chat templates (`beaker-templates`): the observation a text request with `template` answers.
pub use beaker_templates as templates;

pub use beaker_core::{
    Envelope, ErrorKind, Limits, LimitsRequest, Tenant, ToolCall, ToolError, ToolSpec,
};
pub use builder::{Config, EngineBuilder, EngineError, WorkerStart};

pub use engine::{recv_spinning, CallHandle, Engine, Metrics};
pub use params::ParamsSchema;
pub use plan::{
    PlanReport, PlanRequest, PlanStep, StepOutcome, StepReport, Strategy, MAX_PLAN_STEPS, NO_TOOL,
    STEP_KEYS,
};
pub use stats::{Histogram, PoolStats, Stats, ToolStats, LATENCY_BOUNDS_US};
pub use text::{TemplateRequest, TextCallResult, TextReply, TextRequest};
pub use trajectory::{ToolUse, TrajectoryLimits};

/// Runs this process as the engine's template worker when `args` (the process's arguments) say so
/// (`__template-worker`): the exit code, or `None` otherwise. Tools' workers are `beaker_catalog::run_worker`'s.
pub fn run_worker(args: &[std::ffi::OsString]) -> Option<i32> {
    if args.get(1).and_then(|a| a.to_str()) == Some(beaker_templates::worker::WORKER_ARG) {
        return Some(template_worker());
    }
    None
}

/// The template worker's loop: each request an observation to render, under an address-space limit.
fn template_worker() -> i32 {
    let base = beaker_worker::mapped_bytes();
    beaker_worker::limit_address_space(base.saturating_add(beaker_templates::worker::MEMORY));
    beaker_worker::serve(|req| match beaker_templates::worker::answer(req) {
        Ok(v) => (beaker_worker::ok(v), true),
        Err(e) => (
            beaker_worker::error(ErrorKind::ToolError, &e.to_string()),
            true,
        ),
    })
}

#[cfg(test)]
mod tests;
