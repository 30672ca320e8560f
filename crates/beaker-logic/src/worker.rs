//! Z3 in worker processes, so that no call can take the server down.
//!
//! Z3 runs native code on whatever it is given: a script can make it allocate without end (`(push 100000000)`
//! grows ~150 MB/s, deaf to its timeout), and on running out of memory Z3 ends the whole process (exit 101).
//! In-process, that was the server. Here each call goes to a worker process (this same executable started
//! with [`WORKER_ARG`]) that runs one call at a time under its own address-space limit (`RLIMIT_AS`: the call's
//! `max_memory_bytes`, at least [`Z3_MIN_MEMORY`], above what the worker had mapped at start) and Z3's
//! `memory_max_size` set to the same:
//!
//! - a call past its deadline or cancelled is answered at once and its worker killed (SIGKILL), so the engine's
//!   worker thread is free again within milliseconds, whatever Z3 was doing;
//! - a worker that dies (Z3's out-of-memory exit, an abort, a signal) answers its call `limit_exceeded` (out of
//!   memory) or `tool_error` with the cause; the next call starts a fresh worker;
//! - idle workers are kept (at most [`MAX_IDLE`]) so a call costs a pipe round trip, not a process start.
//!
//! Where no worker can be started (an embedder whose executable is not Beaker's and no `BEAKER_LOGIC_WORKER`),
//! Z3 runs in the caller's process, as before, and [`crate::LogicSolver::isolation`] says so.

use crate::LogicSolver;
use beaker_core::{CallContext, CancelReason, ErrorKind, Limits, ToolError};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The argument that makes Beaker's executable a logic worker (`beaker __logic-worker`).
pub const WORKER_ARG: &str = "__logic-worker";

/// Idle workers kept for the next calls (each is one process, about 10 MB resident).
pub const MAX_IDLE: usize = 4;

/// Address space a worker may map beyond what it had at start and the call's `max_memory_bytes`: Z3's own
/// tables, thread stacks and the allocator's slack (RLIMIT_AS counts reservations, not resident memory).
const AS_SLACK: u64 = 512 << 20;

/// The least memory Z3 is given (its start-up alone allocates tens of MB: with 48 MiB, creating a context
/// fails): a call asking for less gets this much for Z3.
pub const Z3_MIN_MEMORY: u64 = 128 << 20;

/// How long past the call's deadline the worker may take to answer before it is killed (Z3's own timeout fires
/// earlier; this covers a solver deaf to it).
const KILL_GRACE: Duration = Duration::from_millis(50);

/// How a worker process is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable: Beaker's binary.
    pub program: PathBuf,
}

impl WorkerCommand {
    /// `BEAKER_LOGIC_WORKER` (the path of a Beaker binary; `in-process` turns workers off), else this process's
    /// executable when it is Beaker's binary (`beaker`), else none: Z3 then runs in-process.
    pub fn discover() -> Option<WorkerCommand> {
        if let Some(p) = std::env::var_os("BEAKER_LOGIC_WORKER").filter(|p| !p.is_empty()) {
            if p == "in-process" {
                return None;
            }
            return Some(WorkerCommand { program: p.into() });
        }
        let exe = std::env::current_exe().ok()?;
        let stem = exe.file_stem()?.to_str()?;
        (stem == "beaker").then_some(WorkerCommand { program: exe })
    }
}

/// The worker's loop: one request per line on stdin (`{"params", "limits", "seed", "timeout_ms"}`), one answer
/// per line on stdout (`{"ok": result}` or `{"error": {"kind", "message"}}`). Returns the exit code.
pub fn main() -> i32 {
    let base = mapped_bytes();
    let solver = LogicSolver::in_process();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            return 1;
        };
        let (answer, sound) = match serde_json::from_str::<Value>(&line) {
            Ok(req) => answer(&solver, &req, base),
            Err(e) => (
                json!({"error": {"kind": ErrorKind::Internal, "message": format!("bad request: {e}")}}),
                true,
            ),
        };
        if writeln!(out, "{answer}")
            .and_then(|()| out.flush())
            .is_err()
        {
            return 1;
        }
        if !sound {
            // Z3 panicked: its state is not to be trusted with another call.
            return 1;
        }
    }
    0
}

/// The answer to one request, and whether this process may take another.
fn answer(solver: &LogicSolver, req: &Value, base: u64) -> (Value, bool) {
    let limits: Limits = match serde_json::from_value(req["limits"].clone()) {
        Ok(l) => l,
        Err(e) => {
            return (
                json!({"error": {"kind": ErrorKind::Internal, "message": format!("bad limits: {e}")}}),
                true,
            )
        }
    };
    // This process runs one call at a time: its limits are the call's.
    let memory = limits.max_memory_bytes.max(Z3_MIN_MEMORY);
    limit_address_space(base.saturating_add(memory).saturating_add(AS_SLACK));
    z3::set_global_param("memory_max_size", &(memory >> 20).max(1).to_string());
    let mut ctx = CallContext::new(limits);
    ctx.seed = req["seed"].as_u64().unwrap_or(0);
    let timeout = req["timeout_ms"].as_u64().unwrap_or(limits.timeout_ms);
    ctx.deadline = Some(Instant::now() + Duration::from_millis(timeout));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        solver.call_here(&req["params"], &ctx)
    }));
    match result {
        Ok(Ok(v)) => (json!({ "ok": v }), true),
        Ok(Err(e)) => (
            json!({"error": {"kind": e.kind, "message": e.message}}),
            true,
        ),
        Err(_) => (
            json!({"error": {"kind": ErrorKind::Internal, "message": "Z3 failed inside (a panic in its bindings); its worker process ended"}}),
            false,
        ),
    }
}

/// Bytes of address space this process has mapped (`/proc/self/statm`), 0 where unknown.
fn mapped_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |pages| {
            pages.saturating_mul(rustix::param::page_size() as u64)
        })
}

fn limit_address_space(bytes: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let hard = getrlimit(Resource::As).maximum;
    let soft = hard.map_or(bytes, |h| bytes.min(h));
    // Best effort: where the limit cannot be set, Z3's memory_max_size still bounds it.
    let _ = setrlimit(
        Resource::As,
        Rlimit {
            current: Some(soft),
            maximum: hard,
        },
    );
}

/// A running worker: its process, its stdin, and the lines it writes (read by a thread of its own, so the
/// caller can wait with a deadline).
struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Worker {
    fn start(command: &WorkerCommand) -> Result<Worker, ToolError> {
        let mut child = Command::new(&command.program)
            .arg(WORKER_ARG)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                ToolError::new(
                    ErrorKind::Internal,
                    format!(
                        "cannot start Z3's worker process ({}): {e}",
                        command.program.display()
                    ),
                )
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolError::new(
                ErrorKind::Internal,
                "Z3's worker process has no pipes",
            ));
        };
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("beaker-logic-worker".into())
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| {
                ToolError::new(ErrorKind::Internal, format!("cannot start a thread: {e}"))
            })?;
        Ok(Worker {
            child,
            stdin,
            lines,
        })
    }

    /// Writes one request line.
    fn send(&mut self, request: &Value) -> std::io::Result<()> {
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()
    }

    /// Ends the process and reaps it.
    fn kill(mut self) -> Option<std::process::ExitStatus> {
        let _ = self.child.kill();
        self.child.wait().ok()
    }
}

/// The worker processes of one tool: idle ones kept, busy ones owned by their call.
pub(crate) struct Pool {
    command: WorkerCommand,
    idle: Mutex<Vec<Worker>>,
}

impl Pool {
    pub(crate) fn new(command: WorkerCommand) -> Pool {
        Pool {
            command,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn take(&self) -> Result<Worker, ToolError> {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        match idle {
            Some(w) => Ok(w),
            None => Worker::start(&self.command),
        }
    }

    fn give_back(&self, worker: Worker) {
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < MAX_IDLE {
                idle.push(worker);
                return;
            }
        }
        let _ = worker.kill();
    }

    /// Runs one call in a worker and waits for its answer until the call's deadline (plus [`KILL_GRACE`]) or
    /// its cancellation, killing the worker then.
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
        let mut worker = self.take()?;
        if worker.send(&request).is_err() {
            // An idle worker that died since its last call: start a fresh one, once.
            let _ = worker.kill();
            worker = Worker::start(&self.command)?;
            worker.send(&request).map_err(|e| {
                ToolError::new(
                    ErrorKind::Internal,
                    format!("cannot write to Z3's worker: {e}"),
                )
            })?;
        }
        loop {
            match worker.lines.recv_timeout(Duration::from_millis(5)) {
                Ok(line) => {
                    self.give_back(worker);
                    return read_answer(&line);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let cancelled = ctx.cancel.reason();
                    if cancelled.is_some() || Instant::now() >= deadline + KILL_GRACE {
                        let _ = worker.kill();
                        return Err(match cancelled {
                            Some(CancelReason::Cancelled) => ToolError::new(
                                ErrorKind::Cancelled,
                                "the call was cancelled; Z3's worker was stopped",
                            ),
                            _ => ToolError::new(
                                ErrorKind::Timeout,
                                format!(
                                    "Z3 did not answer within timeout_ms ({} ms); its worker was stopped",
                                    ctx.limits.timeout_ms
                                ),
                            ),
                        });
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = worker.kill();
                    return Err(died(status, &ctx.limits));
                }
            }
        }
    }
}

/// A worker's answer line as the call's result.
fn read_answer(line: &str) -> Result<Value, ToolError> {
    let mut v: Value = serde_json::from_str(line).map_err(|e| {
        ToolError::new(
            ErrorKind::Internal,
            format!("Z3's worker answered something unreadable: {e}"),
        )
    })?;
    if let Some(ok) = v.get_mut("ok") {
        return Ok(ok.take());
    }
    let kind = serde_json::from_value(v["error"]["kind"].clone()).unwrap_or(ErrorKind::Internal);
    let message = v["error"]["message"].as_str().unwrap_or("").to_string();
    Err(ToolError::new(kind, message))
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
