//! `import beaker` (docs/PYTHON_API.md): the native half of the Python package, over [`beaker_engine::Engine`].
//!
//! The boundary is JSON text: the Python half (`python/beaker/__init__.py`) sends a request as the protocol
//! writes it and gets the envelope back as text, which `json.loads` turns into dicts. One format, parsed by the
//! same `beaker_protocol::Request::parse` as every transport, so a call means the same from Python as on stdio.
//! Every call releases the GIL while the engine works; `submit` answers through a callback on an engine thread,
//! which the Python half hands to its asyncio loop.

use beaker_catalog::Catalog;
use beaker_core::{Envelope, ErrorKind, Limits, LimitsRequest, ToolError};
use beaker_engine::{listing, CallHandle, Config, Engine};
use beaker_protocol::Request;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::PathBuf;

/// How the Python `Engine(...)` asked for its engine to be built.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Options {
    #[serde(default = "yes")]
    python: bool,
    #[serde(default)]
    guest_dirs: Vec<PathBuf>,
    workers: Option<usize>,
    sandbox_workers: Option<usize>,
    #[serde(default)]
    limits: LimitsRequest,
    #[serde(default)]
    max_limits: LimitsRequest,
    output_dir: Option<PathBuf>,
    #[serde(default)]
    test_tools: bool,
}

fn yes() -> bool {
    true
}

/// The engine, as the Python half holds it.
#[pyclass(frozen, module = "beaker._beaker")]
struct NativeEngine {
    engine: Engine,
}

/// A call submitted with `submit`, which can cancel it.
#[pyclass(frozen, module = "beaker._beaker")]
struct NativeHandle {
    handle: CallHandle,
}

#[pymethods]
impl NativeHandle {
    /// Cancels the call (answered `cancelled` unless it was answered already); whether this cancelled it.
    fn cancel(&self) -> bool {
        self.handle.cancel()
    }
}

/// The calls of a text submitted with `submit_text`, which can cancel them all.
#[pyclass(frozen, module = "beaker._beaker")]
struct NativeTextHandle {
    handles: Vec<CallHandle>,
}

#[pymethods]
impl NativeTextHandle {
    /// Cancels every call of the text still running; whether any was cancelled.
    fn cancel(&self) -> bool {
        // Every handle is cancelled (no short circuit), then whether any of them was.
        let cancelled: Vec<bool> = self.handles.iter().map(CallHandle::cancel).collect();
        cancelled.contains(&true)
    }
}

/// Calls `on_done(answer)` with the GIL held; an exception in it (a closed event loop) is printed, not lost.
fn answer(on_done: &Py<PyAny>, answer: String) {
    Python::attach(|py| {
        if let Err(e) = on_done.call1(py, (answer,)) {
            e.print(py);
        }
    });
}

/// The call in a request, or (as JSON text) the envelope refusing it, in the protocol's own words.
fn parse_call(bytes: &[u8]) -> Result<beaker_core::ToolCall, String> {
    match Request::parse(bytes) {
        Ok(Some(Request::Call(call))) => Ok(call),
        Ok(_) => Err(text(&Envelope::failure(
            None,
            "",
            ToolError::new(ErrorKind::ParseError, "not a tool call"),
        ))),
        Err(refusal) => Err(text(&refusal.envelope())),
    }
}

/// `base` with the limits `over` names replaced (an embedder's own process: no ceiling above its maxima).
fn overlay(base: Limits, over: &LimitsRequest) -> PyResult<Limits> {
    let mut v = serde_json::to_value(base).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    if let (Value::Object(b), Ok(Value::Object(o))) = (&mut v, serde_json::to_value(over)) {
        b.extend(o);
    }
    serde_json::from_value(v).map_err(|e| PyValueError::new_err(format!("Engine limits: {e}")))
}

fn text(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| {
        json!({"id": null, "success": false, "error": format!("the answer cannot be written: {e}"),
               "error_kind": "internal", "elapsed_us": 0})
        .to_string()
    })
}

#[pymethods]
impl NativeEngine {
    /// Builds an engine from the options' JSON (see `beaker.Engine`).
    #[new]
    fn new(py: Python<'_>, options_json: &str) -> PyResult<NativeEngine> {
        let o: Options = serde_json::from_str(options_json)
            .map_err(|e| PyValueError::new_err(format!("Engine options: {e}")))?;
        let mut catalog = Catalog::builtin();
        if !o.python {
            catalog = catalog.without("python");
        }
        if o.test_tools {
            catalog = catalog
                .with("testing")
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        for d in o.guest_dirs {
            catalog = catalog.guest_dir(d);
        }
        let mut config = Config::default();
        if let Some(w) = o.workers {
            config.workers = w;
        }
        if let Some(w) = o.sandbox_workers {
            config.sandbox_workers = w;
        }
        config.maxima = overlay(Limits::default_maxima(), &o.max_limits)?;
        config.defaults = overlay(Limits::default(), &o.limits)?;
        config
            .defaults
            .validate_against(&config.maxima)
            .map_err(|e| PyValueError::new_err(format!("Engine limits: {e}")))?;
        config.output_dir = o.output_dir;
        // Loading compiles (or loads the cached) Python sandbox: seconds, so without the GIL.
        let engine = py
            .detach(|| catalog.engine_with(config))
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(NativeEngine { engine })
    }

    /// Runs one call (the protocol's JSON) and returns its envelope's JSON; the GIL is released meanwhile.
    fn call(&self, py: Python<'_>, call_json: &str) -> String {
        match parse_call(call_json.as_bytes()) {
            Ok(call) => text(&py.detach(|| self.engine.call(call))),
            Err(refusal) => refusal,
        }
    }

    /// Queues one call; `on_done(envelope_json)` is called once, on an engine thread, with the GIL held.
    fn submit(&self, call_json: &str, on_done: Py<PyAny>) -> Option<NativeHandle> {
        let call = match parse_call(call_json.as_bytes()) {
            Ok(call) => call,
            Err(refusal) => {
                Python::attach(|py| {
                    if let Err(e) = on_done.call1(py, (refusal,)) {
                        e.print(py);
                    }
                });
                return None;
            }
        };
        let handle = self.engine.submit(call, move |env| {
            let answer = text(&env);
            Python::attach(|py| {
                // An exception in the callback (a closed event loop) is the caller's; say it, do not lose the thread.
                if let Err(e) = on_done.call1(py, (answer,)) {
                    e.print(py);
                }
            });
        });
        Some(NativeHandle { handle })
    }

    /// Runs every call in a model's text or an OpenAI conversation (the protocol's text request as JSON).
    fn run_text(&self, py: Python<'_>, request_json: &str) -> String {
        let reply = match Request::parse(request_json.as_bytes()) {
            Ok(Some(Request::Text { request, .. })) => {
                Ok(py.detach(|| self.engine.run_text(request)))
            }
            Ok(Some(Request::Messages {
                messages, request, ..
            })) => py
                .detach(|| self.engine.run_messages(&messages, &request))
                .map_err(|e| Envelope::failure(None, "", e)),
            Ok(_) => Err(Envelope::failure(
                None,
                "",
                ToolError::new(
                    ErrorKind::ParseError,
                    "a text request has `text` or `messages`",
                ),
            )),
            Err(refusal) => Err(refusal.envelope()),
        };
        match reply {
            Ok(r) => r.to_json().to_string(),
            Err(env) => text(&env),
        }
    }

    /// Queues every call of a text request (or an OpenAI conversation); `on_done(reply_json)` is called once, on an
    /// engine thread, with the GIL held, when the last call is answered. `None` when the request was refused (the
    /// refusal has been passed to `on_done` already).
    fn submit_text(&self, request_json: &str, on_done: Py<PyAny>) -> Option<NativeTextHandle> {
        // Shared: a conversation refused after its closure was built still answers through it.
        let on_done = std::sync::Arc::new(on_done);
        let refuse = |env: Envelope| {
            answer(&on_done, text(&env));
            None
        };
        let reply = {
            let cb = on_done.clone();
            move |r: beaker_engine::TextReply| answer(&cb, r.to_json().to_string())
        };
        match Request::parse(request_json.as_bytes()) {
            Ok(Some(Request::Text { request, .. })) => Some(NativeTextHandle {
                handles: self.engine.submit_text(request, reply),
            }),
            Ok(Some(Request::Messages {
                messages, request, ..
            })) => match self.engine.submit_messages(&messages, &request, reply) {
                Ok(handles) => Some(NativeTextHandle { handles }),
                Err(e) => refuse(Envelope::failure(None, "", e)),
            },
            Ok(_) => refuse(Envelope::failure(
                None,
                "",
                ToolError::new(
                    ErrorKind::ParseError,
                    "a text request has `text` or `messages`",
                ),
            )),
            Err(refusal) => refuse(refusal.envelope()),
        }
    }

    /// Answers a trajectory control message (`{"trajectory", "limits"}`, `{"stats"}` or `{"close"}`, as JSON)
    /// with its JSON answer: `{"success": true, "stats"}`, or a failed envelope.
    fn trajectory(&self, request_json: &str) -> String {
        match Request::parse(request_json.as_bytes()) {
            Ok(Some(r)) => match beaker_protocol::trajectory_answer(&self.engine, &r) {
                Some(answer) => answer.unwrap_or_else(|failed| failed).to_string(),
                None => text(&Envelope::failure(
                    None,
                    "",
                    ToolError::new(
                        ErrorKind::ParseError,
                        "a trajectory request has `trajectory` and `limits`, `stats` or `close`",
                    ),
                )),
            },
            Ok(None) => text(&Envelope::failure(
                None,
                "",
                ToolError::new(ErrorKind::ParseError, "the request is empty"),
            )),
            Err(refusal) => text(&refusal.envelope()),
        }
    }

    /// Executes a tool plan (the protocol's plan request as JSON) and returns its report as JSON.
    fn run_plan(&self, py: Python<'_>, request_json: &str) -> String {
        match Request::parse(request_json.as_bytes()) {
            Ok(Some(Request::Plan { plan, .. })) => py
                .detach(|| self.engine.run_plan(plan))
                .to_json()
                .to_string(),
            Ok(_) => text(&Envelope::failure(
                None,
                "",
                ToolError::new(ErrorKind::ParseError, "a plan request has `plan`"),
            )),
            Err(refusal) => text(&refusal.envelope()),
        }
    }

    /// The catalog: `json`, `openai`, `mcp`, `markdown`, or a dialect's system-prompt section.
    fn tools(&self, format: &str) -> PyResult<String> {
        let specs = self.engine.specs();
        Ok(match format {
            "json" => text(&specs),
            "openai" => listing::openai_tools(specs).to_string(),
            "mcp" => listing::mcp_tools(specs).to_string(),
            "markdown" => listing::markdown(specs),
            other => match beaker_protocol::parse_dialect(other) {
                Ok(Some(d)) => listing::prompt(d, specs),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "unknown format `{other}` (json, openai, mcp, markdown, svend, tagged, hermes, fenced, mistral, deepseek)"
                    )))
                }
            },
        })
    }

    /// Per-tool counts, failures and latency, and the pools' use (`Engine::stats`) as JSON.
    fn stats(&self) -> String {
        text(&self.engine.stats())
    }
}

/// The native module, `beaker._beaker`.
#[pymodule]
fn _beaker(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeEngine>()?;
    m.add_class::<NativeHandle>()?;
    m.add_class::<NativeTextHandle>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
