//! `execute_python`'s native backend: one call's code run as a notebook cell by CPython on the host (the
//! native Python's virtual environment), forked from a warm launcher of the jail, answered in
//! `execute_python`'s shape (`stdout`, `stderr`, `result`, `exception`, `figures`, `files`, `truncated`).
//!
//! The Python family injects it into `execute_python` (`backend: "native"`), so neither crate depends on the
//! other.

use crate::{python_warm, text, Host, LANGUAGES, PYTHON};
use beaker_core::{CallContext, ErrorKind, Pool, Tool, ToolError, ToolSpec};
use beaker_jail::{Ending, JailLimits, Program, Start};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::OnceLock;
use std::time::Instant;

/// The driver that runs the cell and writes the report.
const CELL: &str = include_str!("cell.py");

/// The modules `cell.py` imports.
const DRIVER_IMPORTS: &[&str] = &[
    "ast",
    "atexit",
    "base64",
    "io",
    "linecache",
    "traceback",
    "types",
];

/// `execute_python` on the native backend, for injection into the Python family (not in the catalog itself).
pub struct NativePython {
    spec: ToolSpec,
    host: OnceLock<std::sync::Arc<Host>>,
}

impl Default for NativePython {
    fn default() -> Self {
        NativePython::new()
    }
}

impl NativePython {
    /// The backend over this host's jail and native Python (looked up at the first call).
    pub fn new() -> NativePython {
        NativePython {
            spec: ToolSpec {
                name: "execute_python_native".into(),
                description: "execute_python's native backend (injected into execute_python)"
                    .into(),
                params_schema: json!({"type": "object"}),
                result_schema: json!({"type": "object"}),
                examples: Vec::new(),
                notes: String::new(),
            },
            host: OnceLock::new(),
        }
    }
}

/// What `execute_python` passes on.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CellParams {
    code: String,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    files: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    fetch_files: Option<Vec<String>>,
    /// In a trajectory: its files (path → base64), written into the working folder before the code runs.
    #[serde(default)]
    workspace: Option<serde_json::Map<String, Value>>,
    /// How many bytes of base64 the files the code wrote may come back in.
    #[serde(default)]
    workspace_cap: Option<u64>,
}

impl NativePython {
    /// The host it runs on: the one shared by the tools of this process.
    pub(crate) fn host(&self) -> &Host {
        self.host.get_or_init(crate::shared_host)
    }
}

impl Tool for NativePython {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: CellParams = beaker_core::params::parse(params)?;
        let host = self.host();
        let jail = host.jail.as_ref().map_err(|e| {
            ToolError::new(
                ErrorKind::ToolError,
                format!("the native backend cannot run: {e}"),
            )
        })?;
        let toolchain = host.toolchains[PYTHON].as_ref().ok_or_else(|| {
            ToolError::new(
                ErrorKind::ToolError,
                format!(
                    "the native backend needs Python (install {})",
                    LANGUAGES[PYTHON].install
                ),
            )
        })?;
        let started = Instant::now();
        let cap = ctx.limits.max_output_bytes / 2;
        let mut files = Vec::new();
        for (name, content) in p.files.iter().flatten() {
            if !crate::valid_file_name(name) || name.starts_with(".beaker-") {
                return Err(ToolError::invalid_params(format!(
                    "`files`: `{name}` is not a file name the working folder can hold (no `/`, not `..`)"
                )));
            }
            let content: crate::FileContent = serde_json::from_value(content.clone())
                .map_err(|e| ToolError::invalid_params(format!("`files.{name}`: {e}")))?;
            files.push((name.clone(), content.bytes(name)?, false));
        }
        let request = json!({"code": p.code, "cap": cap, "fetch_files": p.fetch_files,
                             "workspace": p.workspace, "workspace_cap": p.workspace_cap});
        files.push((
            ".beaker-cell.json".into(),
            request.to_string().into_bytes(),
            false,
        ));
        files.push((".beaker-cell.py".into(), CELL.as_bytes().to_vec(), false));
        let left = match ctx.deadline {
            Some(d) => d.saturating_duration_since(Instant::now()),
            None => std::time::Duration::from_millis(ctx.limits.timeout_ms),
        };
        let program = Program {
            argv: vec!["python3".into(), "/tmp/.beaker-cell.py".into()],
            env: Vec::new(),
            mounts: Vec::new(),
            files,
            cwd: "/tmp".into(),
            stdin: p.stdin.unwrap_or_default().into_bytes(),
            limits: JailLimits {
                wall: left,
                address_space: Some(ctx.limits.max_memory_bytes),
                memory_bytes: Some(ctx.limits.max_memory_bytes),
                output_bytes: ctx.limits.max_output_bytes,
                ..JailLimits::default()
            },
        };
        let mut warm = python_warm(host.native_python.as_deref(), toolchain, &p.code);
        // The driver's own imports, imported once by the launcher rather than by every run.
        for m in DRIVER_IMPORTS {
            if !warm.preload.iter().any(|have| have == m) {
                warm.preload.push(m.to_string());
            }
        }
        let out = jail
            .run_warm(&warm, &program, Start::Python { report: true }, &ctx.cancel)
            .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
        ctx.usage.record(beaker_core::Usage {
            fuel: 0,
            peak_memory_bytes: out.peak_memory_bytes.unwrap_or(0),
            wall_us: started.elapsed().as_micros() as u64,
            output_bytes: out.output_bytes,
        });
        let partial = json!({"stdout": text(&out.stdout), "stderr": text(&out.stderr)});
        let memory = || {
            ToolError::limit(format!(
                "the program ran out of memory (max_memory_bytes = {})",
                ctx.limits.max_memory_bytes
            ))
            .with_partial(partial.clone())
        };
        match out.ending {
            Ending::TimedOut | Ending::Cancelled => {
                let stopped = ctx
                    .checkpoint()
                    .err()
                    .unwrap_or_else(|| ctx.timeout_error());
                return Err(stopped.with_partial(partial));
            }
            Ending::OutputLimit => {
                return Err(ToolError::limit(format!(
                    "the program's output passed max_output_bytes = {} and it was stopped",
                    ctx.limits.max_output_bytes
                ))
                .with_partial(partial))
            }
            Ending::MemoryLimit => return Err(memory()),
            Ending::Exited => {}
        }
        let mut result: Value = match serde_json::from_slice(&out.report) {
            // Only the report's own fields, each of its type: the program writes descriptor 3 too, and a review
            // added `image` and `format`, which a server with --output-dir saves as a file.
            Ok(Value::Object(report)) => known_fields(report),
            // No report: the process ended before its driver could write one (os._exit, a signal).
            _ => {
                let code = out.exit_code.unwrap_or(-1);
                let exception = if (0..128).contains(&code) {
                    json!({"type": "SystemExit", "message": code.to_string(), "line": null,
                           "traceback": format!("SystemExit: {code}\n"),
                           "exit": {"status": code, "printed": null}})
                } else {
                    let signal = code - 128;
                    json!({"type": "Signal", "message": format!("the process was killed by signal {signal}"),
                           "line": null, "traceback": format!("killed by signal {signal} (exit status {code})\n")})
                };
                let exception = if code == 0 { Value::Null } else { exception };
                json!({"result": null, "exception": exception, "phase": if code == 0 { Value::Null } else { json!("code") },
                       "truncated": false, "figures": [], "files": null, "files_omitted": null})
            }
        };
        if let Some(kind) = result["exception"]["type"].as_str() {
            if kind == "MemoryError" {
                return Err(memory());
            }
            if kind == "RecursionError" {
                return Err(
                    ToolError::limit("maximum recursion depth exceeded (RecursionError)")
                        .with_partial(partial),
                );
            }
        }
        result["stdout"] = json!(text(&out.stdout));
        result["stderr"] = json!(text(&out.stderr));
        result["backend"] = json!("native");
        // The workspace's files travel beside the answer, not in it: execute_python applies them and answers
        // with their paths and sizes, so they take no room from the program's output.
        let changes = result.as_object_mut().and_then(|o| o.remove("workspace"));
        fit(&mut result, ctx.limits.max_output_bytes);
        if let Some(changes) = changes.filter(|_| p.workspace.is_some()) {
            result["workspace"] = changes;
        }
        Ok(result)
    }
}

/// The report's fields execute_python answers with, each checked for its type (null otherwise); any other
/// field the program wrote is dropped.
fn known_fields(report: serde_json::Map<String, Value>) -> Value {
    let get = |k: &str, ok: fn(&Value) -> bool| {
        report
            .get(k)
            .filter(|v| ok(v))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let text_map = |v: &Value| {
        v.as_object()
            .is_some_and(|m| m.values().all(Value::is_string))
    };
    json!({
        "result": get("result", Value::is_string),
        "exception": get("exception", Value::is_object),
        "phase": get("phase", Value::is_string),
        "truncated": report.get("truncated").and_then(Value::as_bool).unwrap_or(false),
        "figures": report.get("figures").filter(|f| f.as_array().is_some_and(|a| a.iter().all(Value::is_string))).cloned().unwrap_or(json!([])),
        "files": get("files", text_map),
        "files_omitted": get("files_omitted", Value::is_array),
        "workspace": get("workspace", Value::is_object),
    })
}

/// Cuts the longer of `stdout` and `stderr` until the result's JSON fits `cap` bytes, and says so.
fn fit(result: &mut Value, cap: u64) {
    loop {
        let over = beaker_core::json_len(result).saturating_sub(cap) as usize;
        if over == 0 {
            return;
        }
        result["truncated"] = json!(true);
        let longer = if result["stdout"].as_str().map_or(0, str::len)
            >= result["stderr"].as_str().map_or(0, str::len)
        {
            "stdout"
        } else {
            "stderr"
        };
        if !crate::cut(&mut result[longer], over) {
            return;
        }
    }
}
