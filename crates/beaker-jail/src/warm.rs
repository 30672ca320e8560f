//! Warm launchers: a sandbox started once that forks a fresh child per run, so a run pays neither bubblewrap's
//! namespace setup (5–6 ms here) nor an interpreter's start and imports.
//!
//! A launcher is `warm.py` run by a Python interpreter as pid 1 of a sandbox made as [`Jail::run`] makes one
//! (the same namespaces, mounts, seccomp filters and cgroups). It forks the next run's child ahead (the spare)
//! and hands Beaker a `SOCK_SEQPACKET` socket to it: Beaker sends the run to the spare directly, one message
//! carrying the command and, by descriptor, the run's stdin, the write ends of its stdout and stderr pipes, its
//! files' bytes and, for a compiled program, the binary (which the sandbox cannot otherwise see). A Python run
//! says on that socket when its script is over; the launcher says on its own socket when the spare's process
//! ended (with its wait status), then cleans up and hands over the next spare. Between runs it kills every
//! process left in its pid namespace and empties `/tmp`, `/dev/shm` and System V IPC, so runs are as isolated
//! from one another as runs of separate sandboxes, except for what the threat model lists (they share the
//! launcher's network, IPC and mount namespaces, one after another, never at once). The protocol is in
//! `warm.py`'s header.

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
/// How long a launcher may take to clean up after a run before the next run gives up on it.
const SETTLE: Duration = Duration::from_secs(30);
/// Idle launchers kept per kind.
const IDLE: usize = 8;
/// Idle launchers kept in all (the oldest goes first): a launcher holds its imports' memory.
const IDLE_TOTAL: usize = 16;
/// Launchers of a kind started in the background for runs that come one after another (see
/// [`Jail::start_another`]); more are started only for runs at once.
pub(crate) const TAKING_TURNS: usize = 3;
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
    /// Kinds a launcher is being started for in the background.
    starting: Mutex<Vec<Warm>>,
}

impl Launchers {
    /// An idle launcher of kind `warm` that is alive, and whether it had to be waited for; `None` when there is
    /// none. One done cleaning up after its last run is preferred; otherwise the newest still cleaning up is
    /// waited for. Dead ones found on the way are dropped.
    pub(crate) fn take(&self, warm: &Warm) -> Option<(Launcher, bool)> {
        // One bound for all the launchers waited for, not one each (a third review: 8 × 30 s).
        let until = Instant::now() + SETTLE;
        loop {
            let (taken, dead) = {
                let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
                let mut settled = None;
                let mut settling = None;
                let mut dead = Vec::new();
                for i in (0..idle.len()).rev() {
                    if idle[i].0 != *warm {
                        continue;
                    }
                    match idle[i].1.state() {
                        State::Idle => {
                            settled = Some(i);
                            break;
                        }
                        State::Settling => settling = settling.or(Some(i)),
                        State::Gone => dead.push(i),
                    }
                }
                let pick = settled.or(settling);
                // Indices are descending: removing one never moves another yet to be removed.
                let mut taken = None;
                let mut gone = Vec::new();
                let mut remove: Vec<usize> = dead.iter().copied().chain(pick).collect();
                remove.sort_unstable_by(|a, b| b.cmp(a));
                for i in remove {
                    let (_, l) = idle.remove(i);
                    if Some(i) == pick {
                        taken = Some(l);
                    } else {
                        gone.push(l);
                    }
                }
                (taken, gone)
            };
            // Killed and reaped outside the lock.
            drop(dead);
            let mut launcher = taken?;
            let waited = launcher.settling;
            if launcher.settle(until) {
                return Some((launcher, waited));
            }
        }
    }

    /// How many launchers of kind `warm` are idle (or cleaning up).
    #[cfg(test)]
    pub(crate) fn count(&self, warm: &Warm) -> usize {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        idle.iter().filter(|(w, _)| w == warm).count()
    }

    /// Kills the idle launchers of kind `warm` and waits for their end, leaving them in the pool (as a launcher
    /// the kernel's out-of-memory killer picked while idle is).
    #[cfg(test)]
    pub(crate) fn kill_idle(&self, warm: &Warm) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        for (_, l) in idle.iter_mut().filter(|(w, _)| w == warm) {
            let _ = rustix::process::pidfd_send_signal(&*l.pidfd, rustix::process::Signal::KILL);
            let _ = l.child.wait();
        }
    }

    /// A background start of a launcher of kind `warm` is over.
    fn started(&self, warm: &Warm) {
        let mut starting = self.starting.lock().unwrap_or_else(|p| p.into_inner());
        starting.retain(|w| w != warm);
    }

    /// Keeps an idle launcher for the next run of its kind, within the caps (the oldest idle one goes first).
    pub(crate) fn keep(&self, warm: &Warm, launcher: Launcher) {
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

/// One running launcher.
pub(crate) struct Launcher {
    child: std::process::Child,
    pidfd: Arc<OwnedFd>,
    ctl: Arc<OwnedFd>,
    pids: Option<Group>,
    memory: Option<Group>,
    /// Where the launcher's own stderr goes (a failed start or a crash explains itself there).
    log: std::fs::File,
    /// Whether it is still cleaning up after its last run (it says `{"idle"}` when done).
    settling: bool,
    /// The socket to its spare, the process the next run becomes, and the spare's number (kills name it, so a
    /// late kill meant for one run never reaches the next).
    spare: Option<(OwnedFd, u64)>,
}

/// Where an idle launcher is.
enum State {
    /// Ready for a run.
    Idle,
    /// Still cleaning up after its last run.
    Settling,
    /// Dead, retired or speaking out of turn: not to be used.
    Gone,
}

/// Why a run on a launcher failed.
enum Failure {
    /// The launcher was gone before it had the run: no part of the run happened.
    NotHandedOver(JailError),
    /// Anything else.
    Broken(JailError),
}

impl From<JailError> for Failure {
    fn from(e: JailError) -> Failure {
        Failure::Broken(e)
    }
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
        // A launcher found dead when its run is handed over never started the run: one retry, on a fresh one.
        let mut retried = false;
        loop {
            let mut launcher = match self.launchers.take(warm) {
                Some((l, waited)) => {
                    if waited {
                        self.start_another(warm);
                    }
                    l
                }
                None => self.launch(warm)?,
            };
            match launcher.run(self, program, &start, cancel) {
                Ok((outcome, healthy)) => {
                    if healthy {
                        self.launchers.keep(warm, launcher);
                    }
                    return Ok(outcome);
                }
                Err(Failure::NotHandedOver(_)) if !retried => retried = true,
                Err(Failure::NotHandedOver(e) | Failure::Broken(e)) => return Err(e),
            }
        }
    }

    /// Starts a launcher of kind `warm` in the background, unless one of that kind is idle or being started:
    /// the first run of the kind then finds it ready (a server calls this at its start for the common kinds).
    pub fn prestart(&self, warm: &Warm) {
        self.start_in_background(warm, 1);
    }

    /// Starts another launcher of kind `warm` in the background, unless one is being started: a run waited
    /// for the only idle one to clean up after the last run, so runs of this kind come faster than one launcher
    /// serves them, and two take turns (one cleans up while the other serves).
    fn start_another(&self, warm: &Warm) {
        // With the one serving this run: a third is started when two do not keep up, and no more.
        self.start_in_background(warm, self.taking_turns.saturating_sub(1));
    }

    /// Starts a launcher of kind `warm` on a thread of its own, unless `enough` of that kind are idle or one is
    /// being started.
    fn start_in_background(&self, warm: &Warm, enough: usize) {
        {
            let idle = self
                .launchers
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if idle.iter().filter(|(w, _)| w == warm).count() >= enough {
                return;
            }
            let mut starting = (self.launchers.starting.lock()).unwrap_or_else(|p| p.into_inner());
            if starting.contains(warm) {
                return;
            }
            starting.push(warm.clone());
        }
        let warm = warm.clone();
        let started = self.try_clone().map(|jail| {
            let warm = warm.clone();
            std::thread::Builder::new()
                .name("beaker-launcher-start".into())
                .spawn(move || {
                    if let Ok(launcher) = jail.launch(&warm) {
                        jail.launchers.keep(&warm, launcher);
                    }
                    jail.launchers.started(&warm);
                })
        });
        if !matches!(started, Ok(Ok(_))) {
            self.launchers.started(&warm);
        }
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
            settling: false,
            spare: None,
        };
        let failed = |why: String| {
            JailError::Broken(format!(
                "the warm launcher did not start ({why}): {}",
                launcher.log_text()
            ))
        };
        match launcher.receive(Instant::now() + START) {
            Ok(Some((ready, Some(spare)))) if ready["ready"] == json!(true) => {
                let mut launcher = launcher;
                launcher.spare = ready["spare"].as_u64().map(|n| (spare, n));
                Ok(launcher)
            }
            Ok(Some((other, _))) => Err(failed(format!("it said {other}"))),
            Ok(None) => Err(failed("it did not answer in time".into())),
            Err(e) => Err(failed(e.to_string())),
        }
    }
}

impl Launcher {
    /// Where it is, without waiting: a launcher cleaning up may have finished since it was kept.
    fn state(&mut self) -> State {
        use rustix::event::{poll, PollFd, PollFlags};
        while self.settling {
            match self.receive(Instant::now()) {
                Ok(None) => return State::Settling,
                Ok(Some((m, spare))) => self.settled(&m, spare),
                Err(_) => return State::Gone,
            }
        }
        let Some((spare, _)) = &self.spare else {
            return State::Gone;
        };
        // An idle launcher and its spare say nothing: a message, a hang-up or an exit means they are gone.
        let mut fds = [
            PollFd::new(&*self.ctl, PollFlags::IN),
            PollFd::new(&*self.pidfd, PollFlags::IN),
            PollFd::new(spare, PollFlags::IN),
        ];
        match poll(&mut fds, Some(&timespec(Duration::ZERO))) {
            Ok(0) => State::Idle,
            _ => State::Gone,
        }
    }

    /// Waits until it has cleaned up after its last run, at most until `until`; false when it is gone, retired
    /// or still cleaning up.
    fn settle(&mut self, until: Instant) -> bool {
        while self.settling {
            match self.receive(until) {
                Ok(Some((m, spare))) => self.settled(&m, spare),
                Ok(None) | Err(_) => return false,
            }
        }
        matches!(self.state(), State::Idle)
    }

    /// Takes the message `m` (with the descriptor `spare`) said while it cleans up: the one that ends the
    /// clean-up hands over the next spare (none when it retires); the end of the last run's process, said
    /// after the run itself said it was done, is passed over.
    fn settled(&mut self, m: &Value, spare: Option<OwnedFd>) {
        if m.get("status").is_some() {
            return;
        }
        self.settling = false;
        self.spare = match (m["idle"] == json!(true), m["retire"] == json!(false), spare) {
            (true, true, Some(fd)) => m["spare"].as_u64().map(|n| (fd, n)),
            _ => None,
        };
    }

    /// One run: its outcome, and whether the launcher can take another (once it has cleaned up).
    fn run(
        &mut self,
        jail: &Jail,
        program: &Program,
        start: &Start,
        cancel: &CancelToken,
    ) -> Result<(Outcome, bool), Failure> {
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
        let (spare, number) = self.spare.take().ok_or_else(|| {
            Failure::NotHandedOver(JailError::Broken("the warm launcher has no spare".into()))
        })?;
        let header = json!({
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
        if let Start::Exec(Some(binary)) = start {
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
        send_with(&spare, header.to_string().as_bytes(), &fds).map_err(Failure::NotHandedOver)?;
        let mut spare = Some(spare);
        drop((out_w, err_w, stdin, bundle));
        let kill: Killer = {
            let ctl = self.ctl.clone();
            let message = format!("kill:{number}");
            Arc::new(move || {
                let _ = rustix::net::send(
                    &*ctl,
                    message.as_bytes(),
                    rustix::net::SendFlags::NOSIGNAL | rustix::net::SendFlags::DONTWAIT,
                );
            })
        };
        let output = Output::new(limits.output_bytes, kill.clone());
        // The report has a cap of its own: it is the driver's, not the program's output.
        let report_output = Output::new(limits.output_bytes, kill.clone());
        let mut streams = vec![Pumped::new(out_r, &output), Pumped::new(err_r, &output)];
        if let Some((r, w)) = report_pipe {
            // Only the run holds the write end now: the report ends when the run closes it.
            drop(w);
            streams.push(Pumped::new(r, &report_output));
        }
        let deadline = started + limits.wall;
        let mut ending = Ending::Exited;
        let mut killed_at: Option<Instant> = None;
        let mut healthy = true;
        // The run's streams are read on this thread, in the loop that waits for the run's end.
        let mut said_done = false;
        let reply = loop {
            match self.pump(&mut streams, &mut spare, Instant::now() + POLL) {
                Ok(Event::Ended(reply)) => break Some(reply),
                Ok(Event::Done(reply)) => {
                    said_done = true;
                    break Some(reply);
                }
                Ok(Event::Nothing) => {}
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
        // Closed before the launcher cleans up: its check for sockets left over passes over this pair only
        // because Beaker holds no end of it past the run.
        drop(spare);
        if said_done {
            // The launcher kills what is left of the run and cleans up.
            let over = format!("over:{number}");
            if rustix::net::send(
                &*self.ctl,
                over.as_bytes(),
                rustix::net::SendFlags::NOSIGNAL,
            )
            .is_err()
            {
                healthy = false;
            }
        }
        let ended = Instant::now();
        if !healthy {
            // The launcher died (the kernel's out-of-memory killer may pick it) or hung: the whole sandbox goes.
            let _ = rustix::process::pidfd_send_signal(&*self.pidfd, rustix::process::Signal::KILL);
        }
        // What is left in the pipes; a process that escaped the kill may hold them open, hence the bound.
        let drain_until = Instant::now() + DRAIN;
        while streams.iter().any(|s| s.fd.is_some()) && Instant::now() < drain_until {
            let _ = drain(&mut streams, drain_until);
        }
        let mut kept = streams.into_iter().map(|s| s.kept);
        let (stdout, stderr) = (
            kept.next().unwrap_or_default(),
            kept.next().unwrap_or_default(),
        );
        let report = kept.next().unwrap_or_default();
        let out_of_memory = self.memory.as_ref().is_some_and(|g| g.ooms() > ooms_before);
        let peak_memory_bytes = match (&self.memory, memory_before) {
            (Some(g), Some(base)) => g
                .read("memory.max_usage_in_bytes")
                .map(|peak| peak.saturating_sub(base)),
            _ => None,
        };
        if reply.as_ref().is_some_and(|r| r["status"].is_null()) {
            return Err(Failure::Broken(JailError::Broken(format!(
                "the warm launcher could not start the run: {}",
                reply.as_ref().map_or(Value::Null, |r| r["error"].clone())
            ))));
        }
        let status = match &reply {
            Some(r) => r["status"].as_i64().unwrap_or(libc::SIGKILL as i64) as i32,
            None => libc::SIGKILL,
        };
        // It now cleans up after the run, and says when it is done.
        self.settling = true;
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

    /// Reads what the run's open streams have until `until` (or the first read), and the run's end when it
    /// comes: the spare's "done" or the launcher's word that the spare's process ended. An error when the
    /// launcher is gone.
    fn pump(
        &self,
        streams: &mut [Pumped<'_>],
        spare: &mut Option<OwnedFd>,
        until: Instant,
    ) -> std::io::Result<Event> {
        let mut extra = vec![self.ctl.as_fd()];
        extra.extend(spare.as_ref().map(|fd| fd.as_fd()));
        let Some(ready) = poll_streams(&extra, streams, until)? else {
            return Ok(Event::Nothing);
        };
        let launcher = ready[0];
        let spare_ready = ready.get(1).copied().unwrap_or(false);
        if spare_ready {
            if let Some(done) = spare.as_ref().and_then(said_done) {
                return Ok(Event::Done(done));
            }
            // Its end (an exec closes it) or nonsense: the launcher's word on the process decides.
            *spare = None;
        }
        if launcher {
            if let Some((m, _)) = self.receive(Instant::now())? {
                if m.get("status").is_some() {
                    return Ok(Event::Ended(m));
                }
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the warm launcher said {m} during a run"),
                ));
            }
        }
        Ok(Event::Nothing)
    }

    /// The start of what the launcher wrote to its stderr.
    fn log_text(&self) -> String {
        let mut text = String::new();
        let mut log = &self.log;
        let _ = std::io::Seek::rewind(&mut log);
        let _ = log.take(4096).read_to_string(&mut text);
        text.trim().to_string()
    }

    /// The launcher's next message and the descriptor it carries, or `None` when none came before `until`; an
    /// error when it is gone.
    fn receive(&self, until: Instant) -> std::io::Result<Option<(Value, Option<OwnedFd>)>> {
        use rustix::event::{poll, PollFd, PollFlags};
        use rustix::net::{recvmsg, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags};
        let timeout = timespec(until.saturating_duration_since(Instant::now()));
        let mut fds = [PollFd::new(&*self.ctl, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let mut buf = vec![0u8; 1 << 16];
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let n = recvmsg(
            &*self.ctl,
            &mut [std::io::IoSliceMut::new(&mut buf)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        )?
        .bytes;
        let mut passed = None;
        for message in control.drain() {
            if let RecvAncillaryMessage::ScmRights(fds) = message {
                for fd in fds {
                    passed.get_or_insert(fd);
                }
            }
        }
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the launcher ended",
            ));
        }
        serde_json::from_slice(&buf[..n])
            .map(|m| Some((m, passed)))
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// How a wait for a run's end went.
enum Event {
    /// Nothing yet.
    Nothing,
    /// The spare's process ended: the launcher's `{"status", "cpu_us", "killed"}`.
    Ended(Value),
    /// The Python run said its script is over, as `{"status", "cpu_us"}`.
    Done(Value),
}

/// What the spare said on its socket, if it is a well-formed "done:STATUS:CPU_US" (its words are the run's:
/// only that form is taken, as a status it could have exited with).
fn said_done(spare: &OwnedFd) -> Option<Value> {
    let mut buf = [0u8; 64];
    let (n, _) = rustix::net::recv(spare, &mut buf, rustix::net::RecvFlags::DONTWAIT).ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let mut parts = text.strip_prefix("done:")?.split(':');
    let code: u8 = parts.next()?.parse().ok()?;
    let cpu: u64 = parts.next()?.parse().ok()?;
    if parts.next().is_some() {
        return None;
    }
    Some(json!({"status": i32::from(code) << 8, "cpu_us": cpu}))
}

/// Sends `message` with the descriptors `fds` on `socket`.
fn send_with(socket: &OwnedFd, message: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), JailError> {
    use rustix::net::{sendmsg, SendAncillaryBuffer, SendAncillaryMessage, SendFlags};
    let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(5))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if !control.push(SendAncillaryMessage::ScmRights(fds)) {
        return Err(JailError::Broken("too many descriptors for one run".into()));
    }
    sendmsg(
        socket,
        &[std::io::IoSlice::new(message)],
        &mut control,
        SendFlags::NOSIGNAL,
    )
    .map_err(|e| broken("sending a run to the warm launcher", e.into()))?;
    Ok(())
}

/// Reads what the run's open streams have until `until` (or the first read).
fn drain(streams: &mut [Pumped<'_>], until: Instant) -> std::io::Result<()> {
    poll_streams(&[], streams, until).map(drop)
}

/// Waits until one of `extra` or of the open `streams` is ready or `until` passes, reads the ready streams,
/// and says which of `extra` are ready (`None`: nothing was, in time).
fn poll_streams(
    extra: &[BorrowedFd<'_>],
    streams: &mut [Pumped<'_>],
    until: Instant,
) -> std::io::Result<Option<Vec<bool>>> {
    use rustix::event::{poll, PollFd, PollFlags};
    let open: Vec<usize> = (0..streams.len())
        .filter(|&i| streams[i].fd.is_some())
        .collect();
    let mut fds: Vec<PollFd<'_>> = extra
        .iter()
        .map(|fd| PollFd::new(fd, PollFlags::IN))
        .chain(
            open.iter()
                .filter_map(|&i| streams[i].fd.as_ref())
                .map(|fd| PollFd::new(fd, PollFlags::IN)),
        )
        .collect();
    let timeout = timespec(until.saturating_duration_since(Instant::now()));
    match poll(&mut fds, Some(&timeout)) {
        Ok(0) | Err(rustix::io::Errno::INTR) => return Ok(None),
        Ok(_) => {}
        Err(e) => return Err(e.into()),
    }
    let ready: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
    drop(fds);
    let (extra_ready, streams_ready) = ready.split_at(extra.len());
    for (&i, &r) in open.iter().zip(streams_ready) {
        if r {
            streams[i].read();
        }
    }
    Ok(Some(extra_ready.to_vec()))
}

/// One of a run's streams (stdout, stderr, a report) read on the thread that waits for the run.
struct Pumped<'a> {
    /// The read end, until it ends.
    fd: Option<OwnedFd>,
    kept: Vec<u8>,
    /// The cap it counts against.
    output: &'a Output,
}

impl<'a> Pumped<'a> {
    fn new(fd: OwnedFd, output: &'a Output) -> Pumped<'a> {
        Pumped {
            fd: Some(fd),
            kept: Vec::new(),
            output,
        }
    }

    /// One read of what is there (the stream was found readable); its end closes it.
    fn read(&mut self) {
        let Some(fd) = &self.fd else { return };
        let mut buf = [0u8; 1 << 16];
        match rustix::io::read(fd, &mut buf) {
            Err(rustix::io::Errno::INTR) => {}
            Ok(0) | Err(_) => self.fd = None,
            Ok(n) => self.output.take(&mut self.kept, &buf[..n]),
        }
    }
}

/// `d` as poll's timeout.
fn timespec(d: Duration) -> rustix::event::Timespec {
    rustix::event::Timespec {
        tv_sec: d.as_secs() as i64,
        tv_nsec: d.subsec_nanos() as i64,
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
