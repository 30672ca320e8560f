//! `import beaker` (docs/PYTHON_API.md): the native half of the Python package, over the protocol's
//! [`Dispatcher`].
//!
//! The boundary is JSON text: the Python half (`python/beaker/__init__.py`) sends a request as the protocol
//! writes it and gets the answer back as text, which `json.loads` turns into dicts. One format, parsed by the
//! same `beaker_protocol::Request::parse` and run by the same dispatcher as every transport, so a request means
//! the same from Python as on stdio. `answer` releases the GIL while the engine works; `submit` answers through a
//! callback on an engine thread, which the Python half hands to its asyncio loop.

use beaker_catalog::Catalog;
use beaker_core::{Envelope, ErrorKind, Limits, LimitsRequest, ToolError};
use beaker_engine::Config;
use beaker_protocol::{listing, Answer, Dispatcher, Handle, Request, SessionInfo};
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

/// The engine, as the Python half holds it: a dispatcher over it.
#[pyclass(frozen, module = "beaker._beaker")]
struct NativeEngine {
    dispatcher: Dispatcher,
}

/// What a request given to `submit` runs, which can cancel it.
#[pyclass(frozen, module = "beaker._beaker")]
struct NativeHandle {
    handle: Handle,
}

#[pymethods]
impl NativeHandle {
    /// Cancels what still runs (answered `cancelled` unless answered already); whether this cancelled anything.
    fn cancel(&self) -> bool {
        self.handle.cancel() > 0
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

/// The request in JSON text, or (as JSON text) the envelope refusing it, in the protocol's own words.
fn parse(request_json: &str) -> Result<Request, String> {
    match Request::parse(request_json.as_bytes()) {
        Ok(Some(request)) => Ok(request),
        Ok(None) => Err(text(&Envelope::failure(
            None,
            "",
            ToolError::new(ErrorKind::ParseError, "the request is empty"),
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
        Ok(NativeEngine {
            dispatcher: Dispatcher::new(engine),
        })
    }

    /// Runs one request (the protocol's JSON: a call, a text or conversation, a plan, a trajectory request) and
    /// returns its answer's JSON; the GIL is released meanwhile.
    fn answer(&self, py: Python<'_>, request_json: &str) -> String {
        match parse(request_json) {
            Ok(request) => py
                .detach(|| self.dispatcher.answer(request, &SessionInfo::default()))
                .to_line(),
            Err(refusal) => refusal,
        }
    }

    /// Starts one request; `on_done(answer_json)` is called once, on an engine thread (or this one when the
    /// request is answered at once), with the GIL held. `None` when the request was refused (the refusal has
    /// been passed to `on_done` already).
    fn submit(&self, request_json: &str, on_done: Py<PyAny>) -> Option<NativeHandle> {
        match parse(request_json) {
            Ok(request) => {
                let done = move |a: Answer| answer(&on_done, a.to_line());
                let handle = self
                    .dispatcher
                    .dispatch(request, &SessionInfo::default(), done);
                Some(NativeHandle { handle })
            }
            Err(refusal) => {
                answer(&on_done, refusal);
                None
            }
        }
    }

    /// The catalog: `json`, `openai`, `mcp`, `markdown`, or a dialect's system-prompt section.
    fn tools(&self, format: &str) -> PyResult<String> {
        let specs = self.dispatcher.engine().specs();
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
        text(&self.dispatcher.engine().stats())
    }
}

/// The native module, `beaker._beaker`.
#[pymodule]
fn _beaker(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeEngine>()?;
    m.add_class::<NativeHandle>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
