//! Dispatch: one lookup, validation before queueing, limits narrowed, the call queued on the worker pool,
//! its deadline armed when a worker starts it, exactly one envelope back.

use crate::config::Config;
use crate::output;
use crate::stats::{PoolCounters, PoolStats, Stats, ToolCounters, ToolStats};
use crate::trajectory::{OnDone, TrajectoryLimits};
use crate::watchdog::{Expire, Watchdog};
use beaker_core::{
    CallContext, CancelReason, CancelToken, Envelope, ErrorKind, Limits, Tenant, Tool, ToolCall,
    ToolError, ToolSpec, UsageSlot,
};
use serde_json::Value;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

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
pub(crate) struct Counters {
    submitted: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    timed_out: AtomicU64,
}

/// A tool as the engine holds it: the tool and its compiled params schema.
pub(crate) struct Registered {
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) params: crate::params::ParamsSchema,
    /// Runs in the sandbox: queued on the sandbox pool.
    pub(crate) sandboxed: bool,
    /// Its calls, for [`Engine::stats`].
    pub(crate) stats: Arc<ToolCounters>,
}

pub(crate) type Job = Box<dyn FnOnce() + Send>;

pub(crate) struct Inner {
    pub(crate) sandboxed: Vec<String>,
    pub(crate) tools: HashMap<String, Arc<Registered>>,
    pub(crate) specs: Vec<ToolSpec>,
    pub(crate) config: Config,
    /// The native pool's queue.
    pub(crate) jobs: flume::Sender<Job>,
    /// The sandbox pool's queue.
    pub(crate) sandbox_jobs: flume::Sender<Job>,
    pub(crate) watchdog: Arc<Watchdog>,
    pub(crate) counters: Arc<Counters>,
    /// Calls that named no known tool, counted together.
    pub(crate) unknown: Arc<ToolCounters>,
    pub(crate) native_pool: Arc<PoolCounters>,
    pub(crate) sandbox_pool: Arc<PoolCounters>,
    /// Each tag's figures and budgets.
    pub(crate) trajectories: Arc<crate::trajectory::Trajectories>,
    /// The process's memory budget ([`Config::max_memory`]).
    pub(crate) memory: beaker_core::MemoryBudget,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.watchdog.shutdown();
    }
}

/// Runs tool calls. One per process is typical; it is cheap to clone (an `Arc`) and thread-safe.
///
/// A handle acts for one [`Tenant`] (the default one unless [`Engine::for_tenant`] chose another): the calls it
/// submits and the trajectories it names are that tenant's.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
    pub(crate) tenant: Tenant,
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

/// Cancels the call it holds when dropped, unless disarmed first.
struct CancelOnDrop(Option<CallHandle>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.cancel();
        }
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
    callback: Mutex<Option<OnDone>>,
    counters: Arc<Counters>,
    stats: Arc<ToolCounters>,
    usage: UsageSlot,
    /// How long past its deadline the tool has to answer on its own ([`TIMEOUT_GRACE`], [`SANDBOX_GRACE`]).
    grace: std::time::Duration,
}

impl CallState {
    /// Answers the call unless it has been answered already; returns whether this answer was the one sent.
    fn finish(&self, outcome: Result<Value, ToolError>, done_at: Option<Instant>) -> bool {
        let Some(cb) = self.callback.lock().ok().and_then(|mut c| c.take()) else {
            return false;
        };
        let now = done_at.unwrap_or_else(Instant::now);
        let c = &self.counters;
        self.stats.record(
            outcome.as_ref().err().map(|e| e.kind),
            now.saturating_duration_since(self.submitted),
        );
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

/// How long a call past its deadline has to stop and answer on its own before the engine answers for it. A
/// sandboxed guest stops within a millisecond or two of its deadline, and its own answer keeps what it had
/// (`partial`: what the program printed); a tool that ignores cancellation is answered this much later.
pub(crate) const TIMEOUT_GRACE: std::time::Duration = std::time::Duration::from_millis(25);

/// The grace of a sandboxed call: the sandbox interrupts its guest within a millisecond or two of the deadline,
/// but on a loaded machine the guest's thread may not run for tens of milliseconds, and the guest's own answer is
/// worth waiting for (what the program printed, its usage). Measured: with 20 print floods on 4 sandbox workers
/// of a 2-core machine under load, 2 to 4 in 20 missed a 25 ms grace and were answered without `partial`.
pub(crate) const SANDBOX_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

impl CallState {
    fn timeout_error(&self) -> ToolError {
        ToolError::new(
            ErrorKind::Timeout,
            format!(
                "the call ran past its {} ms execution limit",
                self.timeout_ms
            ),
        )
    }
}

impl Expire for CallState {
    /// Armed twice: at the deadline, which cancels the call (the tool stops and answers), and
    /// its grace ([`TIMEOUT_GRACE`], [`SANDBOX_GRACE`]) later, which answers for a tool that has not.
    fn expire(&self) {
        if self.cancel.cancel(CancelReason::Timeout) {
            return;
        }
        if self.cancel.reason() == Some(CancelReason::Timeout) {
            self.finish(Err(self.timeout_error()), None);
        }
    }
}

impl Engine {
    /// The same engine acting for `tenant`: its calls run on the same workers under the same limits, but the
    /// sessions and trajectories they name are `tenant`'s, apart from every other tenant's.
    pub fn for_tenant(&self, tenant: Tenant) -> Engine {
        Engine {
            inner: self.inner.clone(),
            tenant,
        }
    }

    /// The process's memory budget: what front ends reserve request bodies and queued answers from, and tools
    /// their interpreters.
    pub fn memory(&self) -> &beaker_core::MemoryBudget {
        &self.inner.memory
    }

    /// The tenant this handle acts for.
    pub fn tenant(&self) -> &Tenant {
        &self.tenant
    }

    /// The names of the tools that run untrusted code in a sandbox (the `Sandboxed` pool's).
    pub fn sandboxed_tools(&self) -> Vec<&str> {
        self.inner.sandboxed.iter().map(String::as_str).collect()
    }

    /// Has every tool get ready for its first call ([`beaker_core::Tool::warm_up`]), on a thread of its own:
    /// what a server does when it starts serving, unless `BEAKER_PRESTART=0`.
    pub fn warm_up(&self) {
        if std::env::var_os("BEAKER_PRESTART").is_some_and(|v| v == "0") {
            return;
        }
        let tools: Vec<Arc<dyn Tool>> = self.inner.tools.values().map(|r| r.tool.clone()).collect();
        let _ = std::thread::Builder::new()
            .name("beaker-warm-up".into())
            .spawn(move || tools.iter().for_each(|t| t.warm_up()));
    }

    /// The specs of every registered tool, in registration order.
    pub fn specs(&self) -> &[ToolSpec] {
        &self.inner.specs
    }

    /// The spec of one tool.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.inner.tools.get(name).map(|r| r.tool.spec())
    }

    /// Sets (replaces) the budgets of trajectory `tag`, opening it when new; returns its figures.
    pub fn set_trajectory_limits(&self, tag: &str, limits: TrajectoryLimits) -> Value {
        self.inner
            .trajectories
            .set_limits(&self.tenant, tag, limits)
    }

    /// The figures of trajectory `tag` (calls, successes, errors by kind, time, fuel, output bytes, per tool,
    /// budgets and what is left of them), or `None` when it is not open (never used, closed, or expired).
    pub fn trajectory_stats(&self, tag: &str) -> Option<Value> {
        self.inner.trajectories.stats(&self.tenant, tag)
    }

    /// Closes trajectory `tag` and returns its final figures (`None` when it was not open). A later call with
    /// the tag opens it afresh, without budgets.
    pub fn close_trajectory(&self, tag: &str) -> Option<Value> {
        self.inner.trajectories.close(&self.tenant, tag)
    }

    /// An equal part, for each of `n` calls answered together (a text request's, a batch's), of the
    /// `max_output_bytes` that `limits` ask for (the server's default when they ask for none), so that all of
    /// them together stay within it.
    pub fn share_of_output(&self, limits: &beaker_core::LimitsRequest, n: usize) -> u64 {
        let cfg = &self.inner.config;
        let whole = limits
            .max_output_bytes
            .unwrap_or(cfg.defaults.max_output_bytes)
            .min(cfg.maxima.max_output_bytes);
        (whole / n.max(1) as u64).max(1)
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

    /// Per-tool calls, failures and latency since the engine started, and how busy its pools are now (what
    /// `/metrics` serves).
    pub fn stats(&self) -> Stats {
        let inner = &self.inner;
        let mut tools: Vec<ToolStats> = inner
            .specs
            .iter()
            .filter_map(|s| inner.tools.get(&s.name).map(|r| r.stats.snapshot(&s.name)))
            .collect();
        let unknown = inner.unknown.snapshot("");
        if unknown.latency.count() > 0 {
            tools.push(unknown);
        }
        let m = self.metrics();
        let pool = |p: &PoolCounters, q: &flume::Sender<Job>| PoolStats {
            workers: p.size,
            busy: p.busy.load(Ordering::Relaxed),
            queued: q.len(),
        };
        Stats {
            tools,
            in_flight: m.submitted.saturating_sub(m.succeeded + m.failed),
            native: pool(&inner.native_pool, &inner.jobs),
            sandbox: pool(&inner.sandbox_pool, &inner.sandbox_jobs),
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
    /// queued at once, not on first poll. Dropping the future before it resolves cancels the call: a
    /// caller that stopped waiting (a client that hung up, a cancelled task) frees its worker or sandbox
    /// at once instead of leaving the call to run to its limit.
    pub fn call_async(
        &self,
        call: ToolCall,
    ) -> impl std::future::Future<Output = Envelope> + Send + 'static {
        let (tx, rx) = flume::bounded(1);
        let tool = call.tool.clone();
        let id = call.id.clone();
        // Made before the future so that dropping it unpolled cancels the call too.
        let mut guard = CancelOnDrop(Some(self.submit(call, move |env| {
            let _ = tx.send(env);
        })));
        async move {
            let env = rx.recv_async().await.unwrap_or_else(|_| lost(id, tool));
            // Answered: nothing left to cancel.
            guard.disarm();
            env
        }
    }

    /// Queues a call; `on_done` receives its envelope exactly once, on a worker or watchdog thread (or on
    /// this thread when the call fails before it is queued: unknown tool, invalid params, overload).
    /// `on_done` must not block for long.
    pub fn submit(
        &self,
        call: ToolCall,
        on_done: impl FnOnce(Envelope) + Send + 'static,
    ) -> CallHandle {
        let inner = &self.inner;
        inner.counters.submitted.fetch_add(1, Ordering::Relaxed);
        let registered = inner.tools.get(&call.tool).cloned();
        // Server defaults, then the tool's own defaults, then the call's request; the maxima clamp each step.
        let mut limits = match &registered {
            Some(r) => inner
                .config
                .defaults
                .narrow(&r.tool.default_limits(), &inner.config.maxima),
            None => inner.config.defaults,
        }
        .narrow(&call.limits.with_fuel_for_timeout(), &inner.config.maxima);
        // The budgets layer: a tagged call is refused when its trajectory's budget is spent, runs no longer than
        // the time left, and is counted when answered.
        let budgeted = inner
            .trajectories
            .around(&self.tenant, call.tag.as_deref(), on_done);
        if let Some(ms) = budgeted.max_ms {
            limits.timeout_ms = limits.timeout_ms.min(ms);
        }
        let seed = call.effective_seed();
        // A tenant bound to a dataset reads that one whatever the call names, and may not name another.
        let dataset = self.tenant.resolve_dataset(call.dataset.as_deref());
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
            callback: Mutex::new(Some(budgeted.on_done)),
            counters: inner.counters.clone(),
            stats: registered
                .as_ref()
                .map_or_else(|| inner.unknown.clone(), |r| r.stats.clone()),
            usage: UsageSlot::default(),
            grace: match &registered {
                Some(r) if r.sandboxed => SANDBOX_GRACE,
                _ => TIMEOUT_GRACE,
            },
        });
        let handle = CallHandle {
            state: state.clone(),
        };
        match (budgeted.refusal, dataset) {
            (Some(e), _) | (None, Err(e)) => {
                state.finish(Err(e), None);
            }
            (None, Ok(dataset)) => self.queue(
                &state,
                registered,
                params,
                limits,
                seed,
                Whose {
                    tenant: self.tenant.clone(),
                    workspace: budgeted.workspace,
                    dataset,
                },
            ),
        }
        handle
    }

    /// Queues a call admitted by the budgets on its tool's pool, or answers it at once: an unknown tool,
    /// params the schema refuses, a full queue.
    fn queue(
        &self,
        state: &Arc<CallState>,
        registered: Option<Arc<Registered>>,
        params: Value,
        limits: Limits,
        seed: u64,
        whose: Whose,
    ) {
        let inner = &self.inner;
        let Some(registered) = registered else {
            let msg = unknown_tool_message(&state.tool, inner.tools.keys());
            state.finish(Err(ToolError::new(ErrorKind::UnknownTool, msg)), None);
            return;
        };
        // Checked here, before the call waits for a worker: a bad call never takes a slot or a deadline.
        if let Err(e) = registered.params.check(&params) {
            state.finish(Err(e), None);
            return;
        }
        let queue = if registered.sandboxed {
            &inner.sandbox_jobs
        } else {
            &inner.jobs
        };
        if queue.len() >= inner.config.max_queued {
            let msg = format!(
                "overloaded: {} calls are already queued; retry later",
                queue.len()
            );
            state.finish(Err(ToolError::new(ErrorKind::Internal, msg)), None);
            return;
        }
        // The job holds the engine alive: calls already queued finish even if every `Engine` handle is dropped.
        let engine = self.inner.clone();
        let job_state = state.clone();
        let job: Job = Box::new(move || {
            run(
                &engine,
                &job_state,
                &registered.tool,
                &params,
                limits,
                seed,
                whose,
            )
        });
        if queue.send(job).is_err() {
            state.finish(
                Err(ToolError::new(
                    ErrorKind::Internal,
                    "the engine is shutting down",
                )),
                None,
            );
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

/// Whose a call is: its tenant, its trajectory's workspace (`None`: untagged, it gets one of its own) and the
/// dataset it reads.
struct Whose {
    tenant: Tenant,
    workspace: Option<beaker_core::Workspace>,
    dataset: Option<Arc<str>>,
}

/// Runs one call on a worker: arms its deadline, calls the tool (a panic becomes `internal`), checks and
/// stores its output, answers.
fn run(
    inner: &Inner,
    state: &Arc<CallState>,
    tool: &Arc<dyn Tool>,
    params: &Value,
    limits: Limits,
    seed: u64,
    whose: Whose,
) {
    let Whose {
        tenant,
        workspace,
        dataset,
    } = whose;
    if state.cancel.reason().is_some() {
        return;
    }
    let start = Instant::now();
    let _ = state.started.set(start);
    let deadline = start + std::time::Duration::from_millis(limits.timeout_ms);
    let target: Arc<dyn Expire> = state.clone();
    inner.watchdog.arm(deadline, Arc::downgrade(&target));
    inner
        .watchdog
        .arm(deadline + state.grace, Arc::downgrade(&target));
    let ctx = CallContext {
        limits,
        cancel: state.cancel.clone(),
        seed,
        deadline: Some(deadline),
        usage: state.usage.clone(),
        tenant,
        memory: inner.memory.clone(),
        // An untagged call's files live as long as it does.
        workspace: match workspace {
            Some(w) => beaker_core::WorkspaceSlot::of(w),
            None => beaker_core::WorkspaceSlot::scratch(inner.config.workspace),
        },
        dataset,
    };
    // A result is bounded by `max_output_bytes` only once it is built: what it may take while it is built,
    // checked and answered (its values and their text) is reserved until the call is answered.
    // It waits while answers not yet read and calls being answered hold the budget: both give it back.
    let result_memory = ctx.reserve_result_memory(
        limits.max_output_bytes.saturating_mul(RESULT_WEIGHT),
        "this call's result (twice its max_output_bytes)",
    );
    let outcome = match &result_memory {
        Err(e) => Err(e.clone()),
        Ok(_) => call_catching_panics(tool, params, &ctx, &state.tool),
    };
    let done = Instant::now();
    // Past the deadline the answer is a timeout, whatever the tool made of its cancellation, keeping what
    // the tool had produced.
    let outcome = match outcome {
        Err(e) if e.kind == ErrorKind::Timeout => Err(e),
        outcome if state.cancel.reason() == Some(CancelReason::Timeout) => {
            let mut e = state.timeout_error();
            e.partial = outcome.err().and_then(|e| e.partial);
            Err(e)
        }
        outcome => outcome,
    };
    let outcome = outcome.and_then(|v| output::check_size(v, limits.max_output_bytes));
    let outcome = match &inner.config.output_dir {
        Some(dir) => outcome.and_then(|v| output::save_image(v, &state.tool, dir)),
        None => outcome,
    };
    state.finish(outcome, Some(done));
    drop(result_memory);
}

/// What a call's result is reserved for while it is built, in multiples of its `max_output_bytes`.
const RESULT_WEIGHT: u64 = 2;

/// Calls the tool; a panic becomes `internal`.
fn call_catching_panics(
    tool: &Arc<dyn Tool>,
    params: &Value,
    ctx: &CallContext,
    name: &str,
) -> Result<Value, ToolError> {
    match catch_unwind(AssertUnwindSafe(|| tool.call(params, ctx))) {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(tool = %name, "tool panicked: {msg}");
            Err(ToolError::new(
                ErrorKind::Internal,
                format!("the tool failed unexpectedly: {msg}"),
            ))
        }
    }
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

/// Yields before a receiver parks (each is a `sched_yield`, about a microsecond when nothing else runs).
const SPIN_YIELDS: u32 = 50;
