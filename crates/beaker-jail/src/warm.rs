//! Warm launchers: a sandbox started once that forks a fresh child per run, so a run pays neither bubblewrap's
//! namespace setup (5–6 ms here) nor an interpreter's start and imports.
//!
//! A launcher is `warm.py` run by a Python interpreter as pid 1 of a sandbox made as [`Jail::run`] makes one
//! (the same namespaces, mounts, seccomp filters and cgroups). Beaker talks to it over a `SOCK_SEQPACKET`
//! socket: one message per run carries the command and, by descriptor, the run's stdin, the write ends of its
//! stdout and stderr pipes, its files' bytes and, for a compiled program, the binary (which the sandbox cannot
//! otherwise see); one message back carries the wait status. Between runs the launcher kills every process
//! left in its pid namespace and empties `/tmp`, `/dev/shm` and System V IPC, so runs are as isolated from one
//! another as runs of separate sandboxes, except for what the threat model lists (they share the launcher's
//! network, IPC and mount namespaces, one after another, never at once).

use crate::{
    broken, handed_file, pidfd_of, reopen, Ending, Group, Jail, JailError, Killer, Mount, Outcome,
    Output, Program, Rlimits, DRAIN, POLL,
};
use beaker_core::CancelToken;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use serde_json::{json, Value};
use std::io::Read;
use std::mem::MaybeUninit;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The launcher's code, copied read-only into each warm sandbox.
const LAUNCHER: &str = include_str!("warm.py");
/// Where a warm sandbox sees it.
const LAUNCHER_PATH: &str = "/.beaker/warm.py";
/// How long a launcher may take to import its modules and say it is ready.
const START: Duration = Duration::from_secs(120);
/// How long a launcher has, after a kill, to say the run is over; past it the whole sandbox is killed.
const GRACE: Duration = Duration::from_secs(2);
/// Idle launchers kept per kind.
const IDLE: usize = 8;
/// Idle launchers kept in all (the oldest goes first): a launcher holds its imports' memory.
const IDLE_TOTAL: usize = 16;
/// The memory cgroup limit of a launcher between runs (its imports, not a run's).
const LAUNCHER_MEMORY: u64 = 4 << 30;

/// A kind of warm launcher: the interpreter that runs it, the modules it imports before its first run, and the
/// sandbox it lives in. Launchers of one kind are interchangeable and pooled.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Warm {
    /// The Python interpreter, by its path in the sandbox (a virtual environment's `bin/python` works).
    pub python: PathBuf,
    /// Modules imported once, before the first run (a run finds them in `sys.modules`).
    pub preload: Vec<String>,
    /// Host paths the sandbox sees beyond [`crate::BASE_MOUNTS`] (the interpreter's environment, a JDK's
    /// configuration); a run's own [`Program::mounts`] are not used.
    pub mounts: Vec<Mount>,
    /// The launcher's environment (a run has its [`Program::env`] on top of the base one).
    pub env: Vec<(String, String)>,
    /// The size of the sandbox's `/tmp` (a run's [`crate::JailLimits::tmpfs_bytes`] is not used).
    pub tmpfs_bytes: u64,
    /// Processes and threads a run may have at once (a run's [`crate::JailLimits::processes`] is not used).
    pub processes: u64,
}

/// How a warm launcher starts a run.
#[derive(Debug)]
pub enum Start {
    /// `execve` of the run's `argv[0]`, a program the sandbox sees, or of this binary, by descriptor.
    Exec(Option<std::fs::File>),
    /// The Python script `argv[1]` run in the launcher's own interpreter with its preloaded modules, as
    /// `python SCRIPT ARGS...` would run it. With `report`, the script also has descriptor 3, the write end of
    /// a pipe read into [`Outcome::report`] (closed on exec: a driver's channel, not the program's).
    Python {
        /// Whether descriptor 3 is the report pipe.
        report: bool,
    },
}

/// The idle launchers of each kind.
#[derive(Default)]
pub(crate) struct Launchers {
    idle: Mutex<Vec<(Warm, Launcher)>>,
}

impl Launchers {
    /// Keeps an idle launcher for the next run of its kind, within the caps (the oldest idle one goes first).
    fn keep(&self, warm: &Warm, launcher: Launcher) {
        let dropped = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            if idle.iter().filter(|(w, _)| w == warm).count() >= IDLE {
                return;
            }
            let dropped = (idle.len() >= IDLE_TOTAL).then(|| idle.remove(0));
            idle.push((warm.clone(), launcher));
            dropped
        };
        // Killed and reaped outside the lock.
        drop(dropped);
    }
}

/// Numbers runs, so a late kill meant for one run never reaches the next.
static RUN_IDS: AtomicU64 = AtomicU64::new(1);

/// One running launcher.
struct Launcher {
    child: std::process::Child,
    pidfd: Arc<OwnedFd>,
    ctl: Arc<OwnedFd>,
    pids: Option<Group>,
    memory: Option<Group>,
    /// Where the launcher's own stderr goes (a failed start or a crash explains itself there).
    log: std::fs::File,
}

impl Drop for Launcher {
    fn drop(&mut self) {
        // pid 1's death ends every process of its namespace.
        let _ = rustix::process::pidfd_send_signal(&*self.pidfd, rustix::process::Signal::KILL);
        let _ = self.child.wait();
    }
}

impl Jail {
    /// Runs `program` in a warm launcher of kind `warm` (started now when none of that kind is idle): as
    /// [`Jail::run`] does, with the same limits, verdicts and usage, except that the sandbox's mounts, `/tmp`
    /// size and process limit are the launcher's, and the program starts as `start` says.
    pub fn run_warm(
        &self,
        warm: &Warm,
        program: &Program,
        start: Start,
        cancel: &CancelToken,
    ) -> Result<Outcome, JailError> {
        let idle = {
            let mut idle = self
                .launchers
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            idle.iter()
                .rposition(|(w, _)| w == warm)
                .map(|i| idle.swap_remove(i).1)
        };
        let mut launcher = match idle {
            Some(l) => l,
            None => self.launch(warm)?,
        };
        let (outcome, healthy) = launcher.run(self, program, start, cancel)?;
        if healthy {
            self.launchers.keep(warm, launcher);
        }
        Ok(outcome)
    }

    /// Starts a launcher and waits for it to be ready.
    fn launch(&self, warm: &Warm) -> Result<Launcher, JailError> {
        use rustix::net::{socketpair, AddressFamily, SocketFlags, SocketType};
        let (ctl, theirs) = socketpair(
            AddressFamily::UNIX,
            SocketType::SEQPACKET,
            SocketFlags::CLOEXEC,
            None,
        )
        .map_err(|e| broken("socketpair", e.into()))?;
        let theirs = std::fs::File::from(theirs);
        let env = vec![
            ("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string()),
            ("PYTHONHASHSEED".into(), "0".into()),
            // One thread per BLAS call: forks of a launcher with BLAS threads running would inherit locks
            // held, and results are deterministic.
            ("OPENBLAS_NUM_THREADS".into(), "1".into()),
            ("OMP_NUM_THREADS".into(), "1".into()),
            ("MKL_NUM_THREADS".into(), "1".into()),
            ("MPLBACKEND".into(), "Agg".into()),
            ("MPLCONFIGDIR".into(), "/tmp/.matplotlib".into()),
        ];
        let env = crate::merged_env(env, &warm.env);
        let program = Program {
            argv: vec![
                warm.python.display().to_string(),
                "-B".into(),
                LAUNCHER_PATH.into(),
                theirs.as_raw_fd().to_string(),
                warm.preload.join(","),
            ],
            env,
            mounts: warm.mounts.clone(),
            files: Vec::new(),
            cwd: "/tmp".into(),
            stdin: Vec::new(),
            limits: crate::JailLimits {
                tmpfs_bytes: warm.tmpfs_bytes,
                ..crate::JailLimits::default()
            },
        };
        let script = handed_file(LAUNCHER.as_bytes())
            .map_err(|e| broken("writing the launcher for the sandbox", e))?;
        let mut handed = vec![theirs];
        let mut args = self.sandbox_args(&program, &mut handed, true)?;
        // Read-only at a path outside /tmp, which runs write to and the launcher empties.
        let at = args
            .iter()
            .position(|a| a == "--remount-ro")
            .unwrap_or(args.len());
        let data = [
            "--perms".to_string(),
            "0444".into(),
            "--ro-bind-data".into(),
            script.as_raw_fd().to_string(),
            LAUNCHER_PATH.into(),
        ];
        args.splice(at..at, data);
        handed.push(script);
        let log = tempfile::tempfile().map_err(|e| broken("a log file", e))?;
        let log_for_child = log.try_clone().map_err(|e| broken("a log file", e))?;
        let pids = (self.pids.as_ref()).and_then(|p| p.take(&[("pids.max", warm.processes + 2)]));
        let memory = (self.memory.as_ref())
            .and_then(|p| p.take(&[("memory.limit_in_bytes", LAUNCHER_MEMORY)]));
        let rlimits = Rlimits {
            // Each run sets its own address space and CPU limits; the launcher's own are its imports'.
            address_space: None,
            cpu_seconds: 1 << 32,
            file_bytes: crate::JailLimits::default().file_bytes,
            open_files: crate::JailLimits::default().open_files,
            processes: self.processes(warm.processes, pids.is_some()),
        };
        let join = crate::procs_of(&[&pids, &memory])?;
        let (bwrap, uid) = (self.bwrap.clone(), self.sandbox_uid);
        // bwrap dies with the thread that started it (`--die-with-parent` is a parent-death signal, which follows
        // the thread): a launcher outlives the call that started it, so it is started from a thread that lives
        // as long as the process.
        let child = on_lasting_thread(move || {
            crate::spawn_bwrap(
                &bwrap,
                args,
                Stdio::null(),
                Stdio::null(),
                Stdio::from(log_for_child),
                handed,
                rlimits,
                join,
                uid,
            )
        })?;
        let pidfd = Arc::new(pidfd_of(child.id() as i32)?);
        let launcher = Launcher {
            child,
            pidfd,
            ctl: Arc::new(ctl),
            pids,
            memory,
            log,
        };
        let failed = |why: String| {
            JailError::Broken(format!(
                "the warm launcher did not start ({why}): {}",
                launcher.log_text()
            ))
        };
        match launcher.receive(Instant::now() + START) {
            Ok(Some(ready)) if ready["ready"] == json!(true) => Ok(launcher),
            Ok(Some(other)) => Err(failed(format!("it said {other}"))),
            Ok(None) => Err(failed("it did not answer in time".into())),
            Err(e) => Err(failed(e.to_string())),
        }
    }
}

impl Launcher {
    /// One run: its outcome, and whether the launcher can take another.
    fn run(
        &mut self,
        jail: &Jail,
        program: &Program,
        start: Start,
        cancel: &CancelToken,
    ) -> Result<(Outcome, bool), JailError> {
        let limits = program.limits;
        let memory_before = self.memory.as_ref().and_then(|g| {
            let base = g.read("memory.usage_in_bytes")?;
            let limit = limits.memory_bytes.map_or(LAUNCHER_MEMORY, |m| base + m);
            std::fs::write(g.dir.join("memory.limit_in_bytes"), limit.to_string()).ok()?;
            std::fs::write(g.dir.join("memory.max_usage_in_bytes"), "0").ok()?;
            Some(base)
        });
        let ooms_before = self.memory.as_ref().map_or(0, Group::ooms);
        let stdin = handed_file(&program.stdin)
            .and_then(|f| reopen(&f))
            .map_err(|e| broken("writing stdin", e))?;
        let mut bundle = Vec::new();
        let mut files = Vec::new();
        for (name, bytes, executable) in &program.files {
            bundle.extend_from_slice(bytes);
            files.push(json!([
                name,
                bytes.len(),
                if *executable { 0o755 } else { 0o644 }
            ]));
        }
        let bundle = handed_file(&bundle).map_err(|e| broken("writing the run's files", e))?;
        let (out_r, out_w) = pipe()?;
        let (err_r, err_w) = pipe()?;
        let env: serde_json::Map<String, Value> = crate::run_env(&program.env)
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let mut rlimits = json!({
            "cpu": limits.wall.as_secs() + 2,
            "fsize": limits.file_bytes,
            "nofile": limits.open_files,
            "core": 0,
        });
        if let Some(bytes) = limits.address_space {
            rlimits["as"] = json!(bytes);
        }
        if self.pids.is_none() {
            rlimits["nproc"] = json!(jail.processes(limits.processes, false));
        }
        let id = RUN_IDS.fetch_add(1, Ordering::Relaxed);
        let header = json!({
            "run": id,
            "mode": if matches!(start, Start::Python { .. }) { "python" } else { "exec" },
            "report": matches!(start, Start::Python { report: true }),
            "argv": program.argv,
            "env": env,
            "cwd": if program.cwd.is_empty() { "/tmp" } else { &program.cwd },
            "files": files,
            "limits": rlimits,
        });
        let mut fds: Vec<BorrowedFd<'_>> =
            vec![stdin.as_fd(), out_w.as_fd(), err_w.as_fd(), bundle.as_fd()];
        if let Start::Exec(Some(binary)) = &start {
            fds.push(binary.as_fd());
        }
        let report_pipe = match start {
            Start::Python { report: true } => Some(pipe()?),
            _ => None,
        };
        if let Some((_, w)) = &report_pipe {
            fds.push(w.as_fd());
        }
        let started = Instant::now();
        self.send_with(header.to_string().as_bytes(), &fds)?;
        drop((out_w, err_w, stdin, bundle, start));
        let report_r = report_pipe.map(|(r, _)| r);
        let kill: Killer = {
            let ctl = self.ctl.clone();
            let message = format!("kill:{id}");
            Arc::new(move || {
                let _ =
                    rustix::net::send(&*ctl, message.as_bytes(), rustix::net::SendFlags::empty());
            })
        };
        let output = Output::new(limits.output_bytes, kill.clone());
        let out = output.read(Some(Box::new(std::fs::File::from(out_r))));
        let err = output.read(Some(Box::new(std::fs::File::from(err_r))));
        // The report has a cap of its own: it is the driver's, not the program's output.
        let report_output = Output::new(limits.output_bytes, kill.clone());
        let report = report_r.map(|r| report_output.read(Some(Box::new(std::fs::File::from(r)))));
        let deadline = started + limits.wall;
        let mut ending = Ending::Exited;
        let mut killed_at: Option<Instant> = None;
        let mut healthy = true;
        let reply = loop {
            let wait_until = Instant::now() + POLL;
            match self.receive(wait_until) {
                Ok(Some(reply)) => break Some(reply),
                Ok(None) => {}
                Err(_) => {
                    healthy = false;
                    break None;
                }
            }
            if ending == Ending::Exited {
                if cancel.reason().is_some() {
                    ending = Ending::Cancelled;
                } else if Instant::now() >= deadline {
                    ending = Ending::TimedOut;
                }
                if ending != Ending::Exited {
                    kill();
                    killed_at = Some(Instant::now());
                }
            }
            if killed_at.is_some_and(|t| t.elapsed() > GRACE) {
                healthy = false;
                break None;
            }
        };
        let ended = Instant::now();
        if !healthy {
            // The launcher died (the kernel's out-of-memory killer may pick it) or hung: the whole sandbox goes.
            let _ = rustix::process::pidfd_send_signal(&*self.pidfd, rustix::process::Signal::KILL);
        }
        let drain_until = Instant::now() + DRAIN;
        let stdout = out.collect(drain_until);
        let stderr = err.collect(drain_until);
        let report = report.map(|r| r.collect(drain_until)).unwrap_or_default();
        let out_of_memory = self.memory.as_ref().is_some_and(|g| g.ooms() > ooms_before);
        let peak_memory_bytes = match (&self.memory, memory_before) {
            (Some(g), Some(base)) => g
                .read("memory.max_usage_in_bytes")
                .map(|peak| peak.saturating_sub(base)),
            _ => None,
        };
        let status = match &reply {
            Some(r) => r["status"].as_i64().unwrap_or(libc::SIGKILL as i64) as i32,
            None => libc::SIGKILL,
        };
        if reply.as_ref().is_some_and(|r| r["retire"] == json!(true)) {
            healthy = false;
        }
        if reply.as_ref().is_some_and(|r| r["status"].is_null()) {
            return Err(JailError::Broken(format!(
                "the warm launcher could not start the run: {}",
                reply.as_ref().map_or(Value::Null, |r| r["error"].clone())
            )));
        }
        let cpu = Duration::from_micros(
            reply
                .as_ref()
                .and_then(|r| r["cpu_us"].as_u64())
                .unwrap_or(0),
        );
        let mut outcome = output.outcome(
            ending,
            out_of_memory,
            status,
            stdout,
            stderr,
            ended.saturating_duration_since(started),
            cpu,
            peak_memory_bytes,
        );
        outcome.report = report;
        Ok((outcome, healthy))
    }

    /// The start of what the launcher wrote to its stderr.
    fn log_text(&self) -> String {
        let mut text = String::new();
        let mut log = &self.log;
        let _ = std::io::Seek::rewind(&mut log);
        let _ = log.take(4096).read_to_string(&mut text);
        text.trim().to_string()
    }

    /// Sends `message` with the descriptors `fds`.
    fn send_with(&self, message: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), JailError> {
        use rustix::net::{sendmsg, SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(5))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !control.push(SendAncillaryMessage::ScmRights(fds)) {
            return Err(JailError::Broken("too many descriptors for one run".into()));
        }
        sendmsg(
            &*self.ctl,
            &[std::io::IoSlice::new(message)],
            &mut control,
            SendFlags::NOSIGNAL,
        )
        .map_err(|e| broken("sending a run to the warm launcher", e.into()))?;
        Ok(())
    }

    /// The launcher's next message, or `None` when none came before `until`; an error when it is gone.
    fn receive(&self, until: Instant) -> std::io::Result<Option<Value>> {
        use rustix::event::{poll, PollFd, PollFlags, Timespec};
        let left = until.saturating_duration_since(Instant::now());
        let timeout = Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: left.subsec_nanos() as i64,
        };
        let mut fds = [PollFd::new(&*self.ctl, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let mut buf = vec![0u8; 1 << 16];
        let (n, _) = rustix::net::recv(&*self.ctl, &mut buf[..], rustix::net::RecvFlags::empty())?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the launcher ended",
            ));
        }
        serde_json::from_slice(&buf[..n])
            .map(Some)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// Runs `f` on a thread that lives as long as the process.
fn on_lasting_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    type Job = Box<dyn FnOnce() + Send>;
    static JOBS: OnceLock<Mutex<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("beaker-launchers".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .map(drop)
            .unwrap_or_default();
        Mutex::new(tx)
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    let sent = jobs.lock().unwrap_or_else(|p| p.into_inner()).send(job);
    if let Err(std::sync::mpsc::SendError(job)) = sent {
        // The thread could not be started: run here (the launcher then lives as long as this thread).
        job();
    }
    // The job hangs up without an answer only if `f` panicked, which is passed on.
    rx.recv()
        .unwrap_or_else(|_| panic!("the launchers' thread panicked"))
}

/// A pipe, both ends closed on exec (the write end reaches the run by descriptor passing, not inheritance).
fn pipe() -> Result<(OwnedFd, OwnedFd), JailError> {
    rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| broken("pipe", e.into()))
}
