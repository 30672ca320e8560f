use crate::watchdog::{Expire, Watchdog};
use beaker_core::{
    CallContext, CancelReason, CancelToken, Envelope, ErrorKind, Limits, LimitsError, Tool,
    ToolCall, ToolError, ToolSpec, UsageSlot,
};
use beaker_sandbox::{LoadError, Sandbox};
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// How an [`Engine`] runs: its worker pool, queue bound and limits.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Worker threads running calls. Default: the number of cores.
    pub workers: usize,
    /// Calls waiting for a worker beyond which new calls fail at once with a retryable `internal`
    /// ("overloaded") error. Default 65,536: a bound on memory, not a tuning knob; front ends apply
    /// backpressure well before it.
    pub max_queued: usize,
    /// Limits a call gets when it asks for nothing.
    pub defaults: Limits,
    /// Limits no call may exceed.
    pub maxima: Limits,
    /// Where images a tool returns (`image` + `format` in its result, as the plotter's) are also written,
    /// named by their content hash, with the path added to the result as `output_path`. Default: none
    /// (images only inline). Tools never write files themselves; the engine does, after the call.
    pub output_dir: Option<std::path::PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            workers: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_queued: 65_536,
            defaults: Limits::default(),
            maxima: Limits::default_maxima(),
            output_dir: None,
        }
    }
}

/// An engine that could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A configured limit is inconsistent.
    #[error(transparent)]
    Limits(#[from] LimitsError),
    /// Two tools share a name.
    #[error("two tools are named `{0}`")]
    DuplicateTool(String),
    /// A tool's params schema is not a valid JSON Schema.
    #[error("tool `{tool}` has an invalid params schema: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        message: String,
    },
    /// The configuration makes no sense (zero workers).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A worker thread could not be started.
    #[error("cannot start worker threads: {0}")]
    Spawn(#[from] std::io::Error),
    /// The WebAssembly sandbox or the Python guest could not be set up.
    #[error("sandbox: {0}")]
    Sandbox(#[from] beaker_sandbox::SandboxError),
}

/// Counters since the engine started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Metrics {
    /// Calls submitted.
    pub submitted: u64,
    /// Calls answered with `success: true`.
    pub succeeded: u64,
    /// Calls answered with `success: false`.
    pub failed: u64,
    /// Calls answered `timeout`.
    pub timed_out: u64,
}

#[derive(Default)]
struct Counters {
    submitted: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    timed_out: AtomicU64,
}

struct Registered {
    tool: Arc<dyn Tool>,
    validator: jsonschema::Validator,
}

type Job = Box<dyn FnOnce() + Send>;
type Callback = Box<dyn FnOnce(Envelope) + Send>;

struct Inner {
    load_errors: Vec<LoadError>,
    sandboxed: Vec<String>,
    tools: HashMap<String, Registered>,
    specs: Vec<ToolSpec>,
    config: Config,
    jobs: flume::Sender<Job>,
    watchdog: Arc<Watchdog>,
    counters: Arc<Counters>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.watchdog.shutdown();
    }
}

/// Runs tool calls. One per process is typical; it is cheap to clone (an `Arc`) and thread-safe.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

/// Builds an [`Engine`]; [`EngineBuilder::build`] validates the configuration.
pub struct EngineBuilder {
    config: Config,
    tools: Vec<Arc<dyn Tool>>,
    sandbox: Option<Sandbox>,
    python: bool,
    guest_dirs: Vec<PathBuf>,
}

impl EngineBuilder {
    /// Replaces the configuration.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Adds a tool.
    pub fn tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// Adds every native tool of `beaker-tools`.
    pub fn native_tools(mut self) -> Self {
        self.tools.extend(beaker_tools::all());
        self
    }

    /// Adds `execute_python` and `code_test` (the sandboxed Python guest). The guest is snapshotted and
    /// compiled once per machine (about half a minute; `beaker compile` does it ahead of time) and loaded
    /// from the cache afterwards.
    pub fn python_tools(mut self) -> Self {
        self.python = true;
        self
    }

    /// Adds every guest tool in `dir` (`NAME.wasm` + `NAME.toml`). Tools that fail to load are skipped and
    /// reported by [`Engine::load_errors`]; the others load.
    pub fn guest_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.guest_dirs.push(dir.into());
        self
    }

    /// Runs guests in this sandbox instead of the process-wide [`Sandbox::shared`] one.
    pub fn sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Adds the testing-only tools of `beaker-tools` (for front-end tests).
    pub fn testing_tools(mut self) -> Self {
        self.tools.extend(beaker_tools::testing_tools());
        self
    }

    /// Starts the worker pool and the deadline watchdog.
    pub fn build(mut self) -> Result<Engine, EngineError> {
        let mut load_errors = Vec::new();
        let native = self.tools.len();
        if self.python || !self.guest_dirs.is_empty() {
            let sandbox = match self.sandbox.take() {
                Some(s) => s,
                None => Sandbox::shared()?,
            };
            if self.python {
                self.tools.extend(beaker_python::tools(&sandbox)?);
            }
            for dir in &self.guest_dirs {
                let (tools, errors) = beaker_sandbox::load_dir(&sandbox, dir);
                for e in &errors {
                    tracing::warn!("guest tool not loaded: {e}");
                }
                load_errors.extend(errors);
                self.tools
                    .extend(tools.into_iter().map(|t| Arc::new(t) as Arc<dyn Tool>));
            }
        }
        let sandboxed = self.tools[native..]
            .iter()
            .map(|t| t.spec().name.clone())
            .collect();
        let config = self.config;
        config.defaults.validate_against(&config.maxima)?;
        if config.workers == 0 {
            return Err(EngineError::Config("workers must be at least 1".into()));
        }
        let mut tools = HashMap::new();
        let mut specs = Vec::new();
        for tool in self.tools {
            let spec = tool.spec().clone();
            let validator = jsonschema::validator_for(&spec.params_schema).map_err(|e| {
                EngineError::InvalidSchema {
                    tool: spec.name.clone(),
                    message: e.to_string(),
                }
            })?;
            if tools
                .insert(spec.name.clone(), Registered { tool, validator })
                .is_some()
            {
                return Err(EngineError::DuplicateTool(spec.name));
            }
            specs.push(spec);
        }
        let (tx, rx) = flume::unbounded::<Job>();
        for i in 0..config.workers {
            let rx = rx.clone();
            std::thread::Builder::new()
                .name(format!("beaker-worker-{i}"))
                .stack_size(WORKER_STACK)
                .spawn(move || {
                    beaker_sandbox::declare_thread_stack(WORKER_STACK);
                    while let Ok(job) = recv_spinning(&rx) {
                        job();
                    }
                })?;
        }
        Ok(Engine {
            inner: Arc::new(Inner {
                load_errors,
                sandboxed,
                tools,
                specs,
                config,
                jobs: tx,
                watchdog: Watchdog::start(),
                counters: Arc::new(Counters::default()),
            }),
        })
    }
}

/// One submitted call; lets its owner cancel it.
#[derive(Clone)]
pub struct CallHandle {
    state: Arc<CallState>,
}

impl CallHandle {
    /// Cancels the call: it is answered `cancelled` now (if it has not been answered yet) and the tool
    /// stops at its next checkpoint. Returns false if the call had already been answered.
    pub fn cancel(&self) -> bool {
        self.state.cancel.cancel(CancelReason::Cancelled);
        self.state.finish(
            Err(ToolError::new(
                ErrorKind::Cancelled,
                "the call was cancelled",
            )),
            None,
        )
    }

    /// Whether the call has been answered.
    pub fn is_done(&self) -> bool {
        self.state
            .callback
            .lock()
            .map(|c| c.is_none())
            .unwrap_or(true)
    }
}

struct CallState {
    id: Option<Value>,
    tool: String,
    meta: Option<Value>,
    timeout_ms: u64,
    cancel: CancelToken,
    submitted: Instant,
    started: OnceLock<Instant>,
    callback: Mutex<Option<Callback>>,
    counters: Arc<Counters>,
    usage: UsageSlot,
}

impl CallState {
    /// Answers the call unless it has been answered already; returns whether this answer was the one sent.
    fn finish(&self, outcome: Result<Value, ToolError>, done_at: Option<Instant>) -> bool {
        let Some(cb) = self.callback.lock().ok().and_then(|mut c| c.take()) else {
            return false;
        };
        let now = done_at.unwrap_or_else(Instant::now);
        let c = &self.counters;
        let mut env = match outcome {
            Ok(v) => {
                c.succeeded.fetch_add(1, Ordering::Relaxed);
                Envelope::success(self.id.clone(), self.tool.clone(), v)
            }
            Err(e) => {
                c.failed.fetch_add(1, Ordering::Relaxed);
                if e.kind == ErrorKind::Timeout {
                    c.timed_out.fetch_add(1, Ordering::Relaxed);
                }
                Envelope::failure(self.id.clone(), self.tool.clone(), e)
            }
        };
        if let Some(start) = self.started.get() {
            env.elapsed_us = now.saturating_duration_since(*start).as_micros() as u64;
            env.queued_us =
                Some(start.saturating_duration_since(self.submitted).as_micros() as u64);
        }
        env.usage = self.usage.get();
        env.meta = self.meta.clone();
        cb(env);
        true
    }
}

impl Expire for CallState {
    fn expire(&self) {
        if self.cancel.cancel(CancelReason::Timeout) {
            let msg = format!(
                "the call ran past its {} ms execution limit",
                self.timeout_ms
            );
            self.finish(Err(ToolError::new(ErrorKind::Timeout, msg)), None);
        }
    }
}

impl Engine {
    /// An engine with every native tool, the Python tools and the default configuration.
    pub fn new() -> Result<Engine, EngineError> {
        Engine::builder().native_tools().python_tools().build()
    }

    /// A builder with the default configuration and no tools.
    pub fn builder() -> EngineBuilder {
        EngineBuilder {
            config: Config::default(),
            tools: Vec::new(),
            sandbox: None,
            python: false,
            guest_dirs: Vec::new(),
        }
    }

    /// The names of the tools that run in the WebAssembly sandbox.
    pub fn sandboxed_tools(&self) -> Vec<&str> {
        self.inner.sandboxed.iter().map(String::as_str).collect()
    }

    /// Guest tools that failed to load (from [`EngineBuilder::guest_dir`]), each naming its file.
    pub fn load_errors(&self) -> &[LoadError] {
        &self.inner.load_errors
    }

    /// The specs of every registered tool, in registration order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.inner.specs
    }

    /// The spec of one tool.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.inner.tools.get(name).map(|r| r.tool.spec())
    }

    /// The configuration the engine runs with.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Counters since start.
    pub fn metrics(&self) -> Metrics {
        let c = &self.inner.counters;
        Metrics {
            submitted: c.submitted.load(Ordering::Relaxed),
            succeeded: c.succeeded.load(Ordering::Relaxed),
            failed: c.failed.load(Ordering::Relaxed),
            timed_out: c.timed_out.load(Ordering::Relaxed),
        }
    }

    /// Runs a call and waits for its envelope.
    pub fn call(&self, call: ToolCall) -> Envelope {
        let (tx, rx) = flume::bounded(1);
        let tool = call.tool.clone();
        let id = call.id.clone();
        self.submit(call, move |env| {
            let _ = tx.send(env);
        });
        recv_spinning(&rx).unwrap_or_else(|_| lost(id, tool))
    }

    /// Runs a call; the returned future (executor-agnostic) resolves to its envelope. The call is
    /// queued at once, not on first poll; dropping the future does not cancel it (use [`Engine::submit`]).
    pub fn call_async(
        &self,
        call: ToolCall,
    ) -> impl std::future::Future<Output = Envelope> + Send + 'static {
        let (tx, rx) = flume::bounded(1);
        let tool = call.tool.clone();
        let id = call.id.clone();
        self.submit(call, move |env| {
            let _ = tx.send(env);
        });
        async move { rx.recv_async().await.unwrap_or_else(|_| lost(id, tool)) }
    }

    /// Queues a call; `on_done` receives its envelope exactly once, on a worker or watchdog thread (or on
    /// this thread when the call fails before it is queued). `on_done` must not block for long.
    pub fn submit(
        &self,
        call: ToolCall,
        on_done: impl FnOnce(Envelope) + Send + 'static,
    ) -> CallHandle {
        let inner = &self.inner;
        inner.counters.submitted.fetch_add(1, Ordering::Relaxed);
        // Server defaults, then the tool's own defaults, then the call's request; the maxima clamp each step.
        let limits = match inner.tools.get(&call.tool) {
            Some(r) => inner
                .config
                .defaults
                .narrow(&r.tool.default_limits(), &inner.config.maxima),
            None => inner.config.defaults,
        }
        .narrow(&call.limits, &inner.config.maxima);
        let seed = call.effective_seed();
        let ToolCall {
            id,
            tool,
            params,
            meta,
            ..
        } = call;
        let state = Arc::new(CallState {
            id,
            tool,
            meta,
            timeout_ms: limits.timeout_ms,
            cancel: CancelToken::new(),
            submitted: Instant::now(),
            started: OnceLock::new(),
            callback: Mutex::new(Some(Box::new(on_done))),
            counters: inner.counters.clone(),
            usage: UsageSlot::default(),
        });
        let handle = CallHandle {
            state: state.clone(),
        };
        let Some(registered) = inner.tools.get(&state.tool) else {
            let msg = unknown_tool_message(&state.tool, inner.tools.keys());
            state.finish(Err(ToolError::new(ErrorKind::UnknownTool, msg)), None);
            return handle;
        };
        if inner.jobs.len() >= inner.config.max_queued {
            let msg = format!(
                "overloaded: {} calls are already queued; retry later",
                inner.jobs.len()
            );
            state.finish(Err(ToolError::new(ErrorKind::Internal, msg)), None);
            return handle;
        }
        let tool = registered.tool.clone();
        // The job holds the engine alive: calls already queued finish even if every `Engine` handle is dropped.
        let engine = self.inner.clone();
        let job_state = state.clone();
        let job: Job = Box::new(move || run(engine, job_state, tool, params, limits, seed));
        if inner.jobs.send(job).is_err() {
            state.finish(
                Err(ToolError::new(
                    ErrorKind::Internal,
                    "the engine is shutting down",
                )),
                None,
            );
        }
        handle
    }

    fn validate(&self, tool: &str, params: &Value) -> Result<(), ToolError> {
        let Some(r) = self.inner.tools.get(tool) else {
            return Ok(());
        };
        if !params.is_object() {
            return Err(ToolError::invalid_params(format!(
                "`params` must be an object, got {}",
                beaker_core::json_type(params)
            )));
        }
        let errors: Vec<String> = r
            .validator
            .iter_errors(params)
            .take(3)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "params".to_string()
                } else {
                    format!("params{}", path.replace('/', "."))
                };
                format!("{at}: {e}")
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ToolError::invalid_params(errors.join("; ")))
        }
    }
}

fn lost(id: Option<Value>, tool: String) -> Envelope {
    Envelope::failure(
        id,
        tool,
        ToolError::new(ErrorKind::Internal, "the engine dropped the call"),
    )
}

fn unknown_tool_message<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    let mut known: Vec<&String> = known.collect();
    known.sort();
    let list: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
    format!(
        "unknown tool `{name}`; available tools: {}",
        list.join(", ")
    )
}

fn run(
    inner: Arc<Inner>,
    state: Arc<CallState>,
    tool: Arc<dyn Tool>,
    params: Value,
    limits: Limits,
    seed: u64,
) {
    if state.cancel.reason().is_some() {
        return;
    }
    let start = Instant::now();
    let _ = state.started.set(start);
    let deadline = start + std::time::Duration::from_millis(limits.timeout_ms);
    let target: Arc<dyn Expire> = state.clone();
    inner.watchdog.arm(deadline, Arc::downgrade(&target));
    let engine = Engine { inner };
    let outcome = engine.validate(&state.tool, &params).and_then(|()| {
        let ctx = CallContext {
            limits,
            cancel: state.cancel.clone(),
            seed,
            deadline: Some(deadline),
            usage: state.usage.clone(),
        };
        match catch_unwind(AssertUnwindSafe(|| tool.call(&params, &ctx))) {
            Ok(r) => r,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(tool = %state.tool, "tool panicked: {msg}");
                Err(ToolError::new(
                    ErrorKind::Internal,
                    format!("the tool failed unexpectedly: {msg}"),
                ))
            }
        }
    });
    let done = Instant::now();
    let outcome = outcome.and_then(|v| check_output(v, limits.max_output_bytes));
    let outcome = match &engine.inner.config.output_dir {
        Some(dir) => outcome.and_then(|v| save_image(v, &state.tool, dir)),
        None => outcome,
    };
    state.finish(outcome, Some(done));
}

/// Writes a result's image (`image` + `format`) to `dir` as `TOOL-HASH.EXT` and adds `output_path`. The
/// name is the content's stable hash, so the same image is one file however often it is drawn.
fn save_image(mut v: Value, tool: &str, dir: &std::path::Path) -> Result<Value, ToolError> {
    use base64::Engine as _;
    let (Some(image), Some(format)) = (v["image"].as_str(), v["format"].as_str()) else {
        return Ok(v);
    };
    let bytes = match format {
        "svg" => image.as_bytes().to_vec(),
        _ => base64::engine::general_purpose::STANDARD
            .decode(image)
            .map_err(|e| {
                ToolError::new(ErrorKind::Internal, format!("the image is not base64: {e}"))
            })?,
    };
    let ext: String = format
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(8)
        .collect();
    let name = format!("{tool}-{:016x}.{ext}", beaker_core::stable_hash(&[&bytes]));
    let path = dir.join(name);
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&path, &bytes))
        .map_err(|e| {
            ToolError::new(
                ErrorKind::Internal,
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    if let Value::Object(m) = &mut v {
        m.insert(
            "output_path".into(),
            Value::String(path.display().to_string()),
        );
    }
    Ok(v)
}

fn check_output(v: Value, max: u64) -> Result<Value, ToolError> {
    struct Counter(u64);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Counter(0);
    serde_json::to_writer(&mut c, &v)
        .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
    if c.0 > max {
        return Err(ToolError::limit(format!(
            "the result is {} bytes; the limit is {max}",
            c.0
        )));
    }
    Ok(v)
}

/// Receives, yielding the CPU a few times before parking: a parked thread takes tens of microseconds to
/// wake, longer than most calls run, while a few yields cost little when there is other work to do.
pub fn recv_spinning<T>(rx: &flume::Receiver<T>) -> Result<T, flume::RecvError> {
    for _ in 0..SPIN_YIELDS {
        match rx.try_recv() {
            Ok(v) => return Ok(v),
            Err(flume::TryRecvError::Disconnected) => return Err(flume::RecvError::Disconnected),
            Err(flume::TryRecvError::Empty) => std::thread::yield_now(),
        }
    }
    rx.recv()
}

/// A worker's stack: deep native recursion and a sandboxed guest's 8 MiB stack plus host frames. Only
/// touched pages cost memory.
const WORKER_STACK: usize = 16 << 20;

/// Yields before a receiver parks (each is a `sched_yield`, about a microsecond when nothing else runs).
const SPIN_YIELDS: u32 = 50;
