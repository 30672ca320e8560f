//! Z3 in worker processes (`beaker-worker`), so that no call can take the server down.
//!
//! Z3 runs native code on whatever it is given: a script can make it allocate without end (`(push 100000000)`
//! grows ~150 MB/s, deaf to its timeout), and on running out of memory Z3 ends the whole process (exit 101).
//! In-process, that was the server. Here each call goes to a worker process (this same executable started
//! with [`WORKER_ARG`]) that runs one call at a time under its own address-space limit (`RLIMIT_AS`: the call's
//! `max_memory_bytes`, at least [`Z3_MIN_MEMORY`], above what the worker had mapped at start) and Z3's
//! `memory_max_size` set to the same. A call past its deadline or cancelled is answered at once and its worker
//! killed; a worker that dies answers its call `limit_exceeded` (out of memory) or `tool_error` with the cause.
//!
//! Where no worker can be started (an embedder whose executable is not Beaker's and no `BEAKER_WORKER`), Z3 runs
//! in the caller's process, as before, and [`crate::LogicSolver::isolation`] says so.

use crate::LogicSolver;
use beaker_core::{CallContext, ErrorKind, Limits, ToolError};
pub use beaker_worker::WorkerCommand;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The argument that makes Beaker's executable a logic worker (`beaker __logic-worker`).
pub const WORKER_ARG: &str = "__logic-worker";

/// Address space a worker may map beyond what it had at start and the call's `max_memory_bytes`: Z3's own
/// tables, thread stacks and the allocator's slack (RLIMIT_AS counts reservations, not resident memory).
const AS_SLACK: u64 = 512 << 20;

/// The least memory Z3 is given (its start-up alone allocates tens of MB: with 48 MiB, creating a context
/// fails): a call asking for less gets this much for Z3.
pub const Z3_MIN_MEMORY: u64 = 128 << 20;

/// The logic worker's command: [`WorkerCommand::discover`] for [`WORKER_ARG`].
pub fn discover() -> Option<WorkerCommand> {
    WorkerCommand::discover(WORKER_ARG)
}

/// The worker's loop: one request per line on stdin (`{"params", "limits", "seed", "timeout_ms"}`), one answer
/// per line on stdout (`{"ok": result}` or `{"error": {"kind", "message"}}`). Returns the exit code.
pub fn main() -> i32 {
    let base = beaker_worker::mapped_bytes();
    let solver = LogicSolver::in_process();
    beaker_worker::serve(|req| answer(&solver, req, base))
}

/// The answer to one request, and whether this process may take another.
fn answer(solver: &LogicSolver, req: &Value, base: u64) -> (Value, bool) {
    let limits: Limits = match serde_json::from_value(req["limits"].clone()) {
        Ok(l) => l,
        Err(e) => {
            return (
                beaker_worker::error(ErrorKind::Internal, &format!("bad limits: {e}")),
                true,
            )
        }
    };
    // This process runs one call at a time: its limits are the call's.
    let memory = limits.max_memory_bytes.max(Z3_MIN_MEMORY);
    beaker_worker::limit_address_space(base.saturating_add(memory).saturating_add(AS_SLACK));
    z3::set_global_param("memory_max_size", &(memory >> 20).max(1).to_string());
    let mut ctx = CallContext::new(limits);
    ctx.seed = req["seed"].as_u64().unwrap_or(0);
    let timeout = req["timeout_ms"].as_u64().unwrap_or(limits.timeout_ms);
    ctx.deadline = Some(Instant::now() + Duration::from_millis(timeout));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solver.call_here(&req["params"], &ctx)
    }));
    match result {
        Ok(Ok(v)) => (beaker_worker::ok(v), true),
        Ok(Err(e)) => (beaker_worker::error(e.kind, &e.message), true),
        // Z3 panicked: its state is not to be trusted with another call.
        Err(_) => (
            beaker_worker::error(
                ErrorKind::Internal,
                "Z3 failed inside (a panic in its bindings); its worker process ended",
            ),
            false,
        ),
    }
}

/// The logic tool's worker processes.
pub(crate) struct Pool(beaker_worker::Pool);

impl Pool {
    pub(crate) fn new(command: WorkerCommand) -> Pool {
        Pool(beaker_worker::Pool::new(command, "Z3"))
    }

    /// Runs one call in a worker and waits for its answer until the call's deadline or its cancellation.
    pub(crate) fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let deadline = ctx
            .deadline
            .unwrap_or_else(|| Instant::now() + Duration::from_millis(ctx.limits.timeout_ms));
        let left = deadline.saturating_duration_since(Instant::now());
        let request = json!({
            "params": params,
            "limits": ctx.limits,
            "seed": ctx.seed,
            "timeout_ms": left.as_millis() as u64,
        });
        self.0
            .call(&request, deadline, ctx, |status| died(status, &ctx.limits))
    }
}

/// Z3's out-of-memory exit status (`ERR_MEMOUT`).
const Z3_MEMOUT: i32 = 101;

/// Why a worker died, as its call's error.
fn died(status: Option<std::process::ExitStatus>, limits: &Limits) -> ToolError {
    use std::os::unix::process::ExitStatusExt;
    let memory = || {
        ToolError::limit(format!(
            "Z3 ran out of memory (max_memory_bytes, {} MiB); its worker process ended",
            limits.max_memory_bytes >> 20
        ))
    };
    match status {
        Some(s) if s.code() == Some(Z3_MEMOUT) => memory(),
        // An allocation refused by RLIMIT_AS ends in an abort (std::bad_alloc) or a kill.
        Some(s) if matches!(s.signal(), Some(6) | Some(9)) => memory(),
        Some(s) => ToolError::new(
            ErrorKind::ToolError,
            format!("Z3's worker process ended ({s}) before answering"),
        ),
        None => ToolError::new(
            ErrorKind::ToolError,
            "Z3's worker process ended before answering",
        ),
    }
}
