//! Beaker: a sandboxed scientific tool-execution runtime for language models. This crate is the
//! embedding API; it re-exports the engine and the shared nouns.
//!
//! # Core concepts
//! - [`Catalog`]: the tools an engine serves: the built-in families ([`Catalog::builtin`]), tools of your
//!   own, directories of operator guests. Every tool enters through it.
//! - [`Engine`]: registry of tools plus a fixed pool of worker threads and a deadline watchdog. Build one
//!   per process ([`engine`] for every built-in tool, [`Catalog::engine_with`] for a catalog and a [`Config`],
//!   or [`Engine::builder`] handed tools of your own); cloning is cheap (an `Arc`) and it is `Send + Sync`.
//!   Dropping the last handle lets queued calls finish, then the workers exit.
//! - [`ToolCall`]: one request, `{"tool", "params", "id"?, "limits"?, "meta"?, "tag"?, "seed"?}`. Plain data.
//! - [`Envelope`]: exactly one per call; `success` with `result`, or `error` with an [`ErrorKind`], plus
//!   `elapsed_us` (execution) and `queued_us` (waiting for a worker).
//! - [`Limits`]: the bounds of one call (time, digits, precision, expression size, output bytes). The
//!   engine holds defaults and maxima ([`Config`]); a call may ask for other values but never past the maxima.
//! - [`ToolSpec`]: a tool's name, description and JSON Schemas; params are validated before the tool runs.
//! - [`Dispatcher`]: the one way a request of any kind runs on an engine (what every front end uses). For model
//!   text, [`TextRequest`] / [`TextReply`]: every call in the text run concurrently, the results rendered back
//!   in the text's dialect ([`Dispatcher::run_text`], [`Dispatcher::submit_text`], [`Dispatcher::run_messages`]);
//!   for tool plans, [`Dispatcher::run_plan`].
//!   [`dialects`] parses text without running anything ([`dialects::parse`], [`dialects::StreamParser`] for
//!   tokens as they stream: cheap, one per generation, not `Sync`).
//!
//! # Example
//! ```
//! use beaker::{Engine, ToolCall};
//! use serde_json::json;
//!
//! let engine: Engine = beaker::engine()?;
//! let env = engine.call(ToolCall::new("calculator", json!({"expression": "1/3 + 1/6"})).with_id(1));
//! assert!(env.success);
//! assert_eq!(env.result.unwrap()["fraction"], "1/2");
//!
//! // The same call from async code, on any executor:
//! let fut = engine.call_async(ToolCall::new("calculator", json!({"expression": "2**100"})));
//! # let env = futures_executor::block_on(fut);
//! # assert_eq!(env.result.unwrap()["value"], "1267650600228229401496703205376");
//!
//! // A model's text, in any dialect: the results come back rendered in it.
//! let text = r#"<tool_call>{"name": "calculator", "arguments": {"expression": "6*7"}}</tool_call>"#;
//! let dispatcher = beaker::Dispatcher::new(engine);
//! let reply = dispatcher.run_text(beaker::TextRequest { text: text.into(), ..Default::default() });
//! assert_eq!(reply.text, "<tool_response>\n{\"name\": \"calculator\", \"content\": {\"value\": \"42\", \"exact\": true}}\n</tool_response>");
//! # Ok::<(), beaker::BuildError>(())
//! ```
#![deny(missing_docs)]

pub use beaker_catalog::{
    datasets, engine, image, pubchem, search, BuildError, Catalog, CatalogError,
};
pub use beaker_core::{
    CallContext, CancelToken, Envelope, ErrorKind, Example, Fault, Limits, LimitsRequest, Pool,
    Tool, ToolCall, ToolError, ToolSpec, Usage, Workspace, WorkspaceLimits,
};
pub use beaker_engine::{
    CallHandle, Config, Engine, EngineBuilder, EngineError, Histogram, Metrics, PoolStats, Stats,
    ToolStats,
};
pub use beaker_protocol::{
    dialects, listing, templates, Answer, Dispatcher, Handle, PlanReport, PlanRequest, PlanStep,
    Request, StepOutcome, StepReport, Strategy, TemplateRequest, TextCallResult, TextReply,
    TextRequest,
};
