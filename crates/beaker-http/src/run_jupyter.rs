//! SandboxFusion's `POST /run_jupyter`: notebook cells run in order in one interpreter, each cell's output
//! reported apart. Answered by one `execute_python` session per request (a cell a call, the session ended
//! with the last), on the WebAssembly backend whatever the server's default (only it keeps an interpreter
//! across calls). As SandboxFusion's runner does, every cell runs even after one raises; a run past
//! `total_timeout` is `Failed` with a `TimeLimitExceeded` driver and no cells.

use crate::run_code::{sandbox_fusion_request, time_limit, CommandRunResult, FUEL_PER_SECOND};
use crate::Caller;
use axum::body::Bytes;
use axum::response::{IntoResponse, Response};
use axum::Json;
use beaker_core::{ErrorKind, LimitsRequest, ToolCall};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A `/run_jupyter` request, with SandboxFusion's names and defaults; unknown fields are ignored, as there.
#[derive(Deserialize)]
pub(crate) struct RunJupyterRequest {
    cells: Vec<String>,
    /// Seconds per cell; 0 (the default) is no limit of its own.
    #[serde(default)]
    cell_timeout: f64,
    #[serde(default = "default_total")]
    total_timeout: f64,
    #[serde(default = "python3")]
    kernel: String,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    fetch_files: Vec<String>,
}

fn default_total() -> f64 {
    45.0
}

fn python3() -> String {
    "python3".into()
}

/// Makes each request's session name unique in this process.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// A session name for one request that no other client can guess (issue 36: `run_jupyter-<pid>-<n>` let a client
/// create another's next session first, with its own `print` in it): 128 bits of SipHash under the process's
/// random keys (`RandomState`, seeded from the OS), over the request's sequence number.
fn unguessable_name(n: u64) -> String {
    use std::hash::BuildHasher;
    let keys = std::collections::hash_map::RandomState::new();
    let a = keys.hash_one((n, 0u8));
    let b = keys.hash_one((n, 1u8));
    format!("run_jupyter-{a:016x}{b:016x}")
}

fn answer(
    status: &str,
    message: String,
    driver: Value,
    cells: Vec<Value>,
    files: Map<String, Value>,
) -> Response {
    Json(
        json!({"status": status, "message": message, "driver": driver, "cells": cells,
                "executor_pod_name": null, "files": files}),
    )
    .into_response()
}

/// The driver of a run that got through every cell.
fn finished(seconds: f64) -> Value {
    json!(CommandRunResult {
        status: "Finished",
        execution_time: Some(seconds),
        return_code: Some(0),
        stdout: Some(String::new()),
        stderr: Some(String::new()),
    })
}

/// What one cell printed and returned, in the runner's shape: `display` holds the last expression's value as
/// `text/plain` (matplotlib figures as `image/png`), `error` an uncaught exception as Jupyter reports it.
fn cell(result: &Value) -> Value {
    let mut display = Vec::new();
    if let Some(repr) = result["result"].as_str() {
        display.push(json!({"text/plain": repr}));
    }
    for png in result["figures"].as_array().into_iter().flatten() {
        display.push(json!({"image/png": png}));
    }
    let e = &result["exception"];
    let error: Vec<Value> = if e.is_null() {
        Vec::new()
    } else {
        vec![json!({
            "ename": e["type"],
            "evalue": e["message"],
            "traceback": e["traceback"].as_str().unwrap_or_default().lines().collect::<Vec<_>>(),
        })]
    };
    json!({
        "stdout": result["stdout"].as_str().unwrap_or_default(),
        "stderr": result["stderr"].as_str().unwrap_or_default(),
        "display": display,
        "status": if error.is_empty() { "ok" } else { "error" },
        "error": error,
    })
}

/// `POST /run_jupyter`.
pub(crate) async fn run_jupyter(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let req: RunJupyterRequest = match sandbox_fusion_request(&body) {
        Ok(r) => r,
        Err(refused) => return *refused,
    };
    if req.kernel != "python3" {
        let msg = format!(
            "kernel `{}` is not supported here: this sandbox runs python3",
            req.kernel
        );
        return answer("SandboxError", msg, Value::Null, vec![], Map::new());
    }
    for (name, t) in [
        ("total_timeout", req.total_timeout),
        ("cell_timeout", req.cell_timeout),
    ] {
        if !t.is_finite() || t < 0.0 || (name == "total_timeout" && t == 0.0) {
            let msg = format!("`{name}` must be a positive number of seconds, got {t}");
            return answer("SandboxError", msg, Value::Null, vec![], Map::new());
        }
    }
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(req.total_timeout.min(3600.0));
    let session = unguessable_name(RUNS.fetch_add(1, Ordering::Relaxed));
    let last = req.cells.len().saturating_sub(1);
    let mut cells = Vec::with_capacity(req.cells.len());
    let mut files = Map::new();
    for (i, code) in req.cells.iter().enumerate() {
        let remaining = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let seconds = if req.cell_timeout > 0.0 {
            req.cell_timeout.min(remaining)
        } else {
            remaining
        };
        if seconds <= 0.0 {
            end(&dispatcher, &session).await;
            return answer(
                "Failed",
                String::new(),
                json!(time_limit(started.elapsed().as_secs_f64(), None)),
                vec![],
                Map::new(),
            );
        }
        // Sessions live on the WebAssembly backend, whatever the server's default for execute_python.
        let mut params = json!({"code": code, "session": session, "backend": "wasm"});
        if i == 0 && !req.files.is_empty() {
            let f: Map<String, Value> = req
                .files
                .iter()
                .map(|(k, v)| (k.clone(), json!({"base64": v})))
                .collect();
            params["files"] = Value::Object(f);
        }
        if i == last {
            params["end_session"] = json!(true);
            if !req.fetch_files.is_empty() {
                params["fetch_files"] = json!(req.fetch_files);
            }
        }
        let mut call = ToolCall::new("execute_python", params);
        call.limits = LimitsRequest {
            timeout_ms: Some((seconds * 1000.0).ceil() as u64),
            max_fuel: Some((seconds * FUEL_PER_SECOND) as u64),
            ..LimitsRequest::default()
        };
        let env = dispatcher.call_async(call).await;
        match (env.success, env.result, env.error_kind) {
            (true, Some(r), _) => {
                if let Some(f) = r["files"].as_object() {
                    files = f.clone();
                }
                cells.push(cell(&r));
            }
            (_, _, Some(ErrorKind::Timeout | ErrorKind::LimitExceeded | ErrorKind::Cancelled)) => {
                end(&dispatcher, &session).await;
                let message = env.error.unwrap_or_default();
                return answer(
                    "Failed",
                    message,
                    json!(time_limit(
                        started.elapsed().as_secs_f64(),
                        env.partial.as_ref()
                    )),
                    vec![],
                    Map::new(),
                );
            }
            _ => {
                end(&dispatcher, &session).await;
                return answer(
                    "SandboxError",
                    env.error.unwrap_or_default(),
                    Value::Null,
                    vec![],
                    Map::new(),
                );
            }
        }
    }
    answer(
        "Success",
        String::new(),
        finished(started.elapsed().as_secs_f64()),
        cells,
        files,
    )
}

/// Ends a session a run left open (a cell past its limit, a refused cell); a session already gone is fine.
async fn end(dispatcher: &beaker_protocol::Dispatcher, session: &str) {
    let mut call = ToolCall::new(
        "execute_python",
        json!({"code": "", "session": session, "end_session": true, "backend": "wasm"}),
    );
    call.limits.timeout_ms = Some(2000);
    let _ = dispatcher.call_async(call).await;
}

#[cfg(test)]
mod name_tests {
    use super::unguessable_name;

    #[test]
    fn session_names_are_not_derived_from_the_process_or_a_counter() {
        let a = unguessable_name(0);
        let b = unguessable_name(1);
        assert!(a.starts_with("run_jupyter-") && a.len() == "run_jupyter-".len() + 32);
        assert_ne!(a, b);
        // The same sequence number gives another name under another RandomState: nothing to predict.
        assert_ne!(unguessable_name(7), unguessable_name(7));
    }
}
