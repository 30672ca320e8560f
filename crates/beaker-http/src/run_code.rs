//! SandboxFusion's `POST /run_code`, the route verl and SkyRL post model-written code to, answered by
//! `execute_python` for Python and by `execute_code` (the native sandbox) for C, C++, Java, Node.js, Go, Rust
//! and Bash, so that switching is a change of URL; see docs/HTTP.md for how each field maps.

use crate::Caller;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use beaker_core::{Envelope, ErrorKind, LimitsRequest, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// CPython instructions per second of `run_timeout` (the rate a busy loop burns on the reference machine):
/// the fuel a call gets, so that a runaway stops on fuel, deterministically, near its time limit.
pub(crate) const FUEL_PER_SECOND: f64 = beaker_core::FUEL_PER_SECOND as f64;
/// SandboxFusion's default `run_timeout`, in seconds.
const DEFAULT_RUN_TIMEOUT: f64 = 10.0;
/// SandboxFusion's default `compile_timeout`, in seconds.
const DEFAULT_COMPILE_TIMEOUT: f64 = 10.0;
/// The languages `execute_code` runs, by SandboxFusion's names.
const NATIVE: &[&str] = &[
    "cpp",
    "c",
    "java",
    "nodejs",
    "typescript",
    "go",
    "rust",
    "bash",
];

/// A `/run_code` request, with SandboxFusion's field names and defaults. Unknown fields are ignored, as there.
#[derive(Deserialize)]
pub(crate) struct RunCodeRequest {
    code: String,
    language: String,
    #[serde(default)]
    run_timeout: Option<f64>,
    #[serde(default)]
    compile_timeout: Option<f64>,
    #[serde(default, rename = "memory_limit_MB")]
    memory_limit_mb: Option<f64>,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, Option<String>>,
    #[serde(default)]
    fetch_files: Vec<String>,
}

/// How one command ran, as SandboxFusion reports it (also `/run_jupyter`'s `driver`).
#[derive(Serialize)]
pub(crate) struct CommandRunResult {
    pub(crate) status: &'static str,
    pub(crate) execution_time: Option<f64>,
    pub(crate) return_code: Option<i64>,
    pub(crate) stdout: Option<String>,
    pub(crate) stderr: Option<String>,
}

/// A `/run_code` answer.
#[derive(Serialize)]
struct RunCodeResponse {
    status: &'static str,
    message: String,
    compile_result: Option<CommandRunResult>,
    run_result: Option<CommandRunResult>,
    executor_pod_name: Option<String>,
    files: Map<String, Value>,
}

impl RunCodeResponse {
    fn sandbox_error(message: String) -> RunCodeResponse {
        RunCodeResponse {
            status: "SandboxError",
            message,
            compile_result: None,
            run_result: None,
            executor_pod_name: None,
            files: Map::new(),
        }
    }
}

/// A SandboxFusion request from a body; like SandboxFusion (FastAPI), one that does not fit the model is
/// answered 422 with a `detail`.
pub(crate) fn sandbox_fusion_request<T: serde::de::DeserializeOwned>(
    body: &[u8],
) -> Result<T, Box<Response>> {
    serde_json::from_slice(body).map_err(|e| {
        Box::new(
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                Json(json!({"detail": format!("invalid request: {e}")})),
            )
                .into_response(),
        )
    })
}

/// `POST /run_code`.
pub(crate) async fn run_code(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let req: RunCodeRequest = match sandbox_fusion_request(&body) {
        Ok(r) => r,
        Err(refused) => return *refused,
    };
    if NATIVE.contains(&req.language.as_str()) {
        let call = match native_call(req) {
            Ok(c) => c,
            Err(message) => return Json(RunCodeResponse::sandbox_error(message)).into_response(),
        };
        let env = dispatcher.call_async(call).await;
        return Json(from_native(env)).into_response();
    }
    if !matches!(req.language.as_str(), "python" | "python3") {
        return Json(RunCodeResponse::sandbox_error(format!(
            "language `{}` is not supported here: this sandbox runs python, {}",
            req.language,
            NATIVE.join(", ")
        )))
        .into_response();
    }
    let call = match to_call(req) {
        Ok(c) => c,
        Err(message) => return Json(RunCodeResponse::sandbox_error(message)).into_response(),
    };
    let env = dispatcher.call_async(call).await;
    Json(from_envelope(env)).into_response()
}

/// The `execute_python` call a request asks for.
fn to_call(req: RunCodeRequest) -> Result<ToolCall, String> {
    let seconds = req.run_timeout.unwrap_or(DEFAULT_RUN_TIMEOUT);
    if !(seconds.is_finite() && seconds > 0.0) {
        return Err(format!(
            "`run_timeout` must be a positive number of seconds, got {seconds}"
        ));
    }
    let limits = LimitsRequest {
        timeout_ms: Some((seconds * 1000.0).ceil() as u64),
        max_fuel: Some((seconds * FUEL_PER_SECOND) as u64),
        // SandboxFusion's -1 (its default) means no limit: the most the server allows (the maxima clamp it).
        max_memory_bytes: Some(match req.memory_limit_mb.filter(|mb| *mb > 0.0) {
            Some(mb) => (mb.ceil() as u64 + beaker_catalog::PYTHON_INTERPRETER_MIB) << 20,
            None => u64::MAX,
        }),
        ..LimitsRequest::default()
    };
    let mut params = json!({"code": req.code});
    add_stdin_and_files(&mut params, req.stdin, req.files);
    if !req.fetch_files.is_empty() {
        params["fetch_files"] = json!(req.fetch_files);
    }
    let mut call = ToolCall::new("execute_python", params);
    call.limits = limits;
    Ok(call)
}

/// The `execute_code` call a request for a compiled or scripting language asks for: the call's time is the
/// compile's and the run's together, and the run's own limit makes a `TimeLimitExceeded` verdict.
fn native_call(req: RunCodeRequest) -> Result<ToolCall, String> {
    let positive = |name: &str, v: Option<f64>, default: f64| {
        let s = v.unwrap_or(default);
        if s.is_finite() && s > 0.0 {
            Ok(s)
        } else {
            Err(format!(
                "`{name}` must be a positive number of seconds, got {s}"
            ))
        }
    };
    let run = positive("run_timeout", req.run_timeout, DEFAULT_RUN_TIMEOUT)?;
    let compile = positive(
        "compile_timeout",
        req.compile_timeout,
        DEFAULT_COMPILE_TIMEOUT,
    )?;
    if !req.fetch_files.is_empty() {
        return Err(format!(
            "`fetch_files` is supported for python only here, not for `{}`",
            req.language
        ));
    }
    let run_ms = (run * 1000.0).ceil() as u64;
    let limits = LimitsRequest {
        // A second beyond both for starting the sandboxes and answering.
        timeout_ms: Some(run_ms + (compile * 1000.0).ceil() as u64 + 1000),
        max_memory_bytes: Some(match req.memory_limit_mb.filter(|mb| *mb > 0.0) {
            Some(mb) => (mb.ceil() as u64) << 20,
            None => u64::MAX,
        }),
        ..LimitsRequest::default()
    };
    let mut params = json!({"language": req.language, "code": req.code, "run_timeout_ms": run_ms});
    add_stdin_and_files(&mut params, req.stdin, req.files);
    let mut call = ToolCall::new("execute_code", params);
    call.limits = limits;
    Ok(call)
}

/// SandboxFusion's answer for an `execute_code` envelope.
fn from_native(env: Envelope) -> RunCodeResponse {
    let seconds = env.elapsed_us as f64 / 1e6;
    let text = |v: &Value, k: &str| Some(v[k].as_str().unwrap_or_default().to_string());
    let finished = |v: &Value, code: Option<i64>, time: Option<f64>| CommandRunResult {
        status: "Finished",
        execution_time: time,
        return_code: code,
        stdout: text(v, "stdout"),
        stderr: text(v, "stderr"),
    };
    let (compile_result, run_result) = if env.success {
        let r = env.result.unwrap_or(Value::Null);
        let compile = r
            .get("compile")
            .filter(|c| c.is_object())
            .map(|c| finished(c, c["exit_code"].as_i64(), None));
        let run = match r["status"].as_str() {
            Some("compile_error") => None,
            Some("time_limit") => Some(time_limit(seconds, Some(&r))),
            _ => Some(finished(&r, r["exit_code"].as_i64(), Some(seconds))),
        };
        (compile, run)
    } else {
        let message = env.error.unwrap_or_default();
        match env.error_kind {
            Some(ErrorKind::Timeout) | Some(ErrorKind::Cancelled) => {
                match env.partial.as_ref().and_then(|p| p.get("compile")) {
                    // Stopped while compiling: SandboxFusion's compile time limit.
                    Some(c) => (Some(time_limit(seconds, Some(c))), None),
                    None => (None, Some(time_limit(seconds, env.partial.as_ref()))),
                }
            }
            _ => return RunCodeResponse::sandbox_error(message),
        }
    };
    let compiled = compile_result
        .as_ref()
        .is_none_or(|c| c.status == "Finished" && c.return_code == Some(0));
    let ran = run_result
        .as_ref()
        .is_some_and(|r| r.status == "Finished" && r.return_code == Some(0));
    RunCodeResponse {
        status: if compiled && ran { "Success" } else { "Failed" },
        message: String::new(),
        compile_result,
        run_result,
        executor_pod_name: None,
        files: Map::new(),
    }
}

/// A request's `stdin` (when not empty) and `files` (path -> base64; a `null` content skipped) as the params
/// `execute_python` and `execute_code` both take.
fn add_stdin_and_files(
    params: &mut Value,
    stdin: Option<String>,
    files: BTreeMap<String, Option<String>>,
) {
    if let Some(stdin) = stdin.filter(|s| !s.is_empty()) {
        params["stdin"] = json!(stdin);
    }
    let files: Map<String, Value> = files
        .into_iter()
        .filter_map(|(name, content)| content.map(|b64| (name, json!({"base64": b64}))))
        .collect();
    if !files.is_empty() {
        params["files"] = Value::Object(files);
    }
}

/// Tracebacks as `python -c` writes them: the program's file is `<string>` there (`<code>` in `execute_python`),
/// and graders that match traceback text expect it.
fn as_python_c(stderr: String) -> String {
    if stderr.contains("File \"<code>\"") {
        stderr.replace("File \"<code>\"", "File \"<string>\"")
    } else {
        stderr
    }
}

/// SandboxFusion's answer for an `execute_python` envelope: what a `python` process would have reported.
fn from_envelope(env: Envelope) -> RunCodeResponse {
    let seconds = env.elapsed_us as f64 / 1e6;
    let mut files = Map::new();
    let run = if env.success {
        let r = env.result.unwrap_or(Value::Null);
        let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
        let (stdout, mut stderr) = (text("stdout"), text("stderr"));
        let exception = &r["exception"];
        let code = if exception.is_null() {
            0
        } else if let Some(exit) = exception.get("exit").filter(|e| e.is_object()) {
            // A real SystemExit: the guest computed the status CPython's exit gives it, and what it prints.
            if let Some(printed) = exit["printed"].as_str() {
                stderr.push_str(printed);
                stderr.push('\n');
            }
            exit["status"].as_i64().unwrap_or(1)
        } else {
            // An uncaught exception: CPython prints the traceback to stderr and exits 1.
            stderr.push_str(exception["traceback"].as_str().unwrap_or_default());
            1
        };
        if let Some(f) = r["files"].as_object() {
            files = f.clone();
        }
        CommandRunResult {
            status: "Finished",
            execution_time: Some(seconds),
            return_code: Some(code),
            stdout: Some(stdout),
            stderr: Some(as_python_c(stderr)),
        }
    } else {
        let message = env.error.unwrap_or_default();
        match env.error_kind {
            // Out of time, or out of the fuel that stands for time: SandboxFusion's time limit.
            Some(ErrorKind::Timeout) | Some(ErrorKind::Cancelled) => {
                time_limit(seconds, env.partial.as_ref())
            }
            Some(ErrorKind::LimitExceeded) if message.contains("max_fuel") => {
                time_limit(seconds, env.partial.as_ref())
            }
            // A request the server will not take (stdin or files past the input limit) is the sandbox's
            // refusal, not the program's failure: verl scores the two differently.
            Some(ErrorKind::LimitExceeded)
                if message.contains("max_input_bytes") || message.contains("`stdin`") =>
            {
                return RunCodeResponse::sandbox_error(message)
            }
            // Out of memory and the like: the process died with an error, as CPython's MemoryError does.
            Some(ErrorKind::LimitExceeded) | Some(ErrorKind::ToolError) => {
                let (stdout, stderr) = printed(env.partial.as_ref());
                CommandRunResult {
                    status: "Finished",
                    execution_time: Some(seconds),
                    return_code: Some(1),
                    stdout: Some(stdout),
                    stderr: Some(format!("{stderr}{message}\n")),
                }
            }
            _ => return RunCodeResponse::sandbox_error(message),
        }
    };
    let ok = run.status == "Finished" && run.return_code == Some(0);
    RunCodeResponse {
        status: if ok { "Success" } else { "Failed" },
        message: String::new(),
        compile_result: None,
        run_result: Some(run),
        executor_pod_name: None,
        files,
    }
}

/// A run stopped by its time limit, with what it had printed (an envelope's `partial`) as a killed process
/// leaves it. Empty strings, not null, when it printed nothing, so clients that handle the text do not trip
/// on a missing one.
pub(crate) fn time_limit(seconds: f64, partial: Option<&Value>) -> CommandRunResult {
    let (stdout, stderr) = printed(partial);
    CommandRunResult {
        status: "TimeLimitExceeded",
        execution_time: Some(seconds),
        return_code: None,
        stdout: Some(stdout),
        stderr: Some(stderr),
    }
}

/// The stdout and stderr an envelope's `partial` holds (empty when it has none).
fn printed(partial: Option<&Value>) -> (String, String) {
    let text = |k: &str| {
        partial
            .and_then(|p| p.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    (text("stdout"), text("stderr"))
}
