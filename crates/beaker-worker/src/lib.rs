//! Worker processes: native code that a request can drive to exhaust memory or to run deaf to its deadline (Z3,
//! a chat template given as source) runs in a child process, so that no call can take the server down.
//!
//! The child is Beaker's own executable started with a worker argument (`beaker __logic-worker`); it answers
//! one request at a time, one JSON line in and one out ([`serve`]), under an address-space limit it sets for
//! each request ([`limit_address_space`], above what it had mapped at start, [`mapped_bytes`]). The parent
//! keeps a [`Pool`] of them:
//!
//! - a request past its deadline or cancelled is answered at once and its worker killed (SIGKILL), so the
//!   caller's thread is free again within milliseconds, whatever the child was doing;
//! - a worker that dies (out of memory, an abort, a signal) answers its request with what the caller makes of
//!   its exit status; the next request starts a fresh worker;
//! - idle workers are kept (at most [`MAX_IDLE`] per pool) so a request costs a pipe round trip, not a
//!   process start.
//!
//! Where no worker can be started (an embedder whose executable is not Beaker's and that names none in
//! `BEAKER_WORKER`), [`WorkerCommand::discover`] finds none and callers run the code in-process.
#![deny(missing_docs)]

use beaker_core::{CallContext, CancelReason, ErrorKind, ToolError};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Idle workers a pool keeps for the next requests (each is one process, about 10 MB resident).
pub const MAX_IDLE: usize = 4;

/// How long past the request's deadline the worker may take to answer before it is killed (the code's own
/// timeout, where it has one, fires earlier; this covers code deaf to it).
const KILL_GRACE: Duration = Duration::from_millis(50);

/// How a worker process is started: Beaker's executable and the argument that makes it a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable: Beaker's binary.
    pub program: PathBuf,
    /// The argument that makes it a worker of one kind (`__logic-worker`).
    pub arg: &'static str,
}

impl WorkerCommand {
    /// The worker `arg` of `BEAKER_WORKER` (the path of a Beaker binary; `in-process` turns workers off;
    /// `BEAKER_LOGIC_WORKER` is read when it is unset, its older name), else of this process's executable when
    /// it is Beaker's binary (`beaker`), else none: callers then run the code in-process.
    pub fn discover(arg: &'static str) -> Option<WorkerCommand> {
        let named = ["BEAKER_WORKER", "BEAKER_LOGIC_WORKER"]
            .iter()
            .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()));
        if let Some(p) = named {
            if p == "in-process" {
                return None;
            }
            return Some(WorkerCommand {
                program: p.into(),
                arg,
            });
        }
        let exe = std::env::current_exe().ok()?;
        let stem = exe.file_stem()?.to_str()?;
        (stem == "beaker").then_some(WorkerCommand { program: exe, arg })
    }
}

/// The child's loop: one request per line on stdin, one answer per line on stdout, `answer` deciding each (and
/// whether this process may take another request: `false` after a panic in the code it runs). A request that
/// is not JSON is answered `{"error": {"kind": "internal", "message"}}`. Returns the process's exit code.
pub fn serve(mut answer: impl FnMut(&Value) -> (Value, bool)) -> i32 {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else {
            return 1;
        };
        let (reply, sound) = match serde_json::from_str::<Value>(&line) {
            Ok(req) => answer(&req),
            Err(e) => (
                error(ErrorKind::Internal, &format!("bad request: {e}")),
                true,
            ),
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return 1;
        }
        if !sound {
            return 1;
        }
    }
    0
}

/// A worker's answer for a result.
pub fn ok(result: Value) -> Value {
    json!({ "ok": result })
}

/// A worker's answer for an error.
pub fn error(kind: ErrorKind, message: &str) -> Value {
    json!({"error": {"kind": kind, "message": message}})
}

/// Bytes of address space this process has mapped (`/proc/self/statm`), 0 where unknown.
pub fn mapped_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |pages| {
            pages.saturating_mul(rustix::param::page_size() as u64)
        })
}

/// Sets this process's address-space limit (`RLIMIT_AS`) to `bytes`, below the hard limit; best effort.
pub fn limit_address_space(bytes: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let hard = getrlimit(Resource::As).maximum;
    let soft = hard.map_or(bytes, |h| bytes.min(h));
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
    fn start(command: &WorkerCommand, what: &str) -> Result<Worker, ToolError> {
        let mut child = Command::new(&command.program)
            .arg(command.arg)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| {
                ToolError::new(
                    ErrorKind::Internal,
                    format!(
                        "cannot start {what}'s worker process ({}): {e}",
                        command.program.display()
                    ),
                )
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolError::new(
                ErrorKind::Internal,
                format!("{what}'s worker process has no pipes"),
            ));
        };
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("beaker-worker-reader".into())
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

    fn send(&mut self, request: &Value) -> std::io::Result<()> {
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()
    }

    /// Ends the process and reaps it.
    fn kill(mut self) -> Option<ExitStatus> {
        let _ = self.child.kill();
        self.child.wait().ok()
    }
}

/// The worker processes of one kind: idle ones kept, busy ones owned by their request.
pub struct Pool {
    command: WorkerCommand,
    /// What runs in them, for messages ("Z3", "the chat template").
    what: &'static str,
    idle: Mutex<Vec<Worker>>,
}

impl Pool {
    /// A pool starting `command`, whose workers run `what`.
    pub fn new(command: WorkerCommand, what: &'static str) -> Pool {
        Pool {
            command,
            what,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn take(&self) -> Result<Worker, ToolError> {
        let idle = self.idle.lock().ok().and_then(|mut v| v.pop());
        match idle {
            Some(w) => Ok(w),
            None => Worker::start(&self.command, self.what),
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

    /// Sends `request` to a worker and waits for its answer until `deadline` (plus a short grace) or `ctx`'s
    /// cancellation, killing the worker then; a worker that dies is answered by `died` from its exit status.
    pub fn call(
        &self,
        request: &Value,
        deadline: Instant,
        ctx: &CallContext,
        died: impl FnOnce(Option<ExitStatus>) -> ToolError,
    ) -> Result<Value, ToolError> {
        let what = self.what;
        let mut worker = self.take()?;
        if worker.send(request).is_err() {
            // An idle worker that died since its last request: start a fresh one, once.
            let _ = worker.kill();
            worker = Worker::start(&self.command, what)?;
            worker.send(request).map_err(|e| {
                ToolError::new(
                    ErrorKind::Internal,
                    format!("cannot write to {what}'s worker: {e}"),
                )
            })?;
        }
        loop {
            match worker.lines.recv_timeout(Duration::from_millis(5)) {
                Ok(line) => {
                    self.give_back(worker);
                    return read_answer(&line, what);
                }
                Err(RecvTimeoutError::Timeout) => {
                    let cancelled = ctx.cancel.reason();
                    if cancelled.is_some() || Instant::now() >= deadline + KILL_GRACE {
                        let _ = worker.kill();
                        return Err(match cancelled {
                            Some(CancelReason::Cancelled) => ToolError::new(
                                ErrorKind::Cancelled,
                                format!("the call was cancelled; {what}'s worker was stopped"),
                            ),
                            _ => ToolError::new(
                                ErrorKind::Timeout,
                                format!(
                                    "{what} did not answer within timeout_ms ({} ms); its worker was stopped",
                                    ctx.limits.timeout_ms
                                ),
                            ),
                        });
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = worker.kill();
                    return Err(died(status));
                }
            }
        }
    }
}

/// A worker's answer line as the request's result.
fn read_answer(line: &str, what: &str) -> Result<Value, ToolError> {
    let mut v: Value = serde_json::from_str(line).map_err(|e| {
        ToolError::new(
            ErrorKind::Internal,
            format!("{what}'s worker answered something unreadable: {e}"),
        )
    })?;
    if let Some(ok) = v.get_mut("ok") {
        return Ok(ok.take());
    }
    let kind = serde_json::from_value(v["error"]["kind"].clone()).unwrap_or(ErrorKind::Internal);
    let message = v["error"]["message"].as_str().unwrap_or("").to_string();
    Err(ToolError::new(kind, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_back_as_results_or_errors() {
        assert_eq!(read_answer(r#"{"ok": 3}"#, "x").ok(), Some(json!(3)));
        let e = read_answer(
            r#"{"error": {"kind": "limit_exceeded", "message": "m"}}"#,
            "x",
        )
        .expect_err("an error");
        assert_eq!(
            (e.kind, e.message.as_str()),
            (ErrorKind::LimitExceeded, "m")
        );
        assert_eq!(
            read_answer("{", "Z3").map_err(|e| e.kind),
            Err(ErrorKind::Internal)
        );
    }

    #[test]
    fn a_missing_program_is_an_internal_error_not_a_panic() {
        let pool = Pool::new(
            WorkerCommand {
                program: "/nonexistent/beaker".into(),
                arg: "__x",
            },
            "the test",
        );
        let ctx = CallContext::new(beaker_core::Limits::default());
        let e = pool
            .call(
                &json!({}),
                Instant::now() + Duration::from_secs(1),
                &ctx,
                |_| ToolError::new(ErrorKind::ToolError, "died"),
            )
            .expect_err("no worker");
        assert_eq!(e.kind, ErrorKind::Internal);
        assert!(e.message.contains("the test"), "{}", e.message);
    }
}
