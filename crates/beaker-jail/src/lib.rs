//! The native process sandbox: a program (a compiler, an interpreter, a compiled binary) runs as a process of
//! the host's kernel, jailed the way SandboxFusion, nsjail and Flatpak jail untrusted code.
//!
//! Each [`Jail::run`] starts [bubblewrap](https://github.com/containers/bubblewrap) (`bwrap`, Debian's
//! `bubblewrap`), which puts the program in fresh namespaces (user, pid, mount, network with nothing in it,
//! IPC, UTS, cgroup) over a root made of read-only host directories ([`BASE_MOUNTS`] plus the program's own
//! [`Mount`]s) and a private size-capped tmpfs at `/tmp`, drops every capability, forbids further user
//! namespaces and installs the seccomp allowlist of [`seccomp`](crate::seccomp) before `execve`. Before
//! bwrap starts, resource limits are set that the program inherits (address space, CPU seconds, processes, file
//! size, open files, no core dumps); where the host lets Beaker make cgroups (as root, cgroup v1's pids
//! hierarchy), the run also gets a pids cgroup of its own, the process limit that binds root and counts only
//! the run's processes. The run is killed (bwrap,
//! and with it the whole pid namespace) at its deadline, on cancel, or when its output passes its cap.
//!
//! What it does not defend against, and the WebAssembly sandbox does: a bug in the Linux kernel reachable
//! through the allowed syscalls, and side channels between processes on one machine. See docs/ARCHITECTURE.md.
#![deny(missing_docs)]

mod seccomp;
mod sys;
mod warm;

pub use warm::{Start, Warm};

use beaker_core::CancelToken;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Host directories every jailed program sees, read-only, where the host has them: the system's programs and
/// libraries (Debian's toolchains live under `/usr`) and the links that name its default compilers
/// (`/usr/bin/cc` is `/etc/alternatives/cc`). Nothing else of `/etc`.
pub const BASE_MOUNTS: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib64",
    "/lib32",
    "/etc/alternatives",
];

/// The host user id runs have when Beaker runs as root: a user no one else has (far above the ids
/// distributions hand out), owning nothing on the host.
pub const SANDBOX_UID: u32 = 2_000_000_000;

/// The processes and threads all runs together may have, as the sandbox's user (each run is held to its own
/// limit by its pids cgroup).
const ALL_RUNS_PROCESSES: u64 = 16_384;

/// The size of a run's `/dev/shm` (POSIX shared memory, semaphores).
const DEV_SHM_BYTES: u64 = 64 << 20;

/// How long the output readers may go on after the run is over and its processes killed (a process that
/// escaped the kill would otherwise hold the pipes open, and the call, for ever).
const DRAIN: Duration = Duration::from_millis(200);

/// How often the waiting thread looks at the deadline and the cancel token.
const POLL: Duration = Duration::from_millis(5);

/// Why the native sandbox cannot run here.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum JailError {
    /// bubblewrap is not installed.
    #[error("the native sandbox needs bubblewrap (`bwrap`, Debian's `bubblewrap` package), which is not installed")]
    NoLauncher,
    /// Not x86_64 Linux (the seccomp allowlist is written for it).
    #[error("the native sandbox runs on x86_64 Linux only")]
    Unsupported,
    /// The jail could not be set up (no user namespaces, a seccomp error, a spawn failure).
    #[error("the native sandbox cannot run here: {0}")]
    Broken(String),
}

/// A host path a program sees at a path of the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Mount {
    /// The host's path.
    pub host: PathBuf,
    /// Where the program sees it.
    pub sandbox: PathBuf,
    /// Whether the program may write to it (a compile step's output directory); read-only otherwise.
    pub writable: bool,
}

impl Mount {
    /// `path` at the same place, read-only.
    pub fn read_only(path: impl Into<PathBuf>) -> Mount {
        let host = path.into();
        Mount {
            sandbox: host.clone(),
            host,
            writable: false,
        }
    }
}

/// What a run may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JailLimits {
    /// Wall-clock time from start to kill.
    pub wall: Duration,
    /// Address space of each process (`RLIMIT_AS`); `None` for runtimes that reserve far more than they use
    /// (the JVM, V8), whose heap the language's own flag bounds instead.
    pub address_space: Option<u64>,
    /// Memory of all the run's processes together, page cache and `/tmp` included (a memory cgroup, where the
    /// host lets Beaker make one; `None`: no such limit).
    pub memory_bytes: Option<u64>,
    /// Processes and threads the run may have at once (`RLIMIT_NPROC`).
    pub processes: u64,
    /// The largest file it may write (`RLIMIT_FSIZE`).
    pub file_bytes: u64,
    /// The size of its `/tmp`.
    pub tmpfs_bytes: u64,
    /// Open files per process (`RLIMIT_NOFILE`).
    pub open_files: u64,
    /// Bytes of stdout and stderr together kept; past them the run is killed.
    pub output_bytes: u64,
}

impl Default for JailLimits {
    fn default() -> JailLimits {
        JailLimits {
            wall: Duration::from_secs(10),
            address_space: Some(1 << 30),
            memory_bytes: None,
            processes: 64,
            file_bytes: 64 << 20,
            tmpfs_bytes: 256 << 20,
            open_files: 1024,
            output_bytes: 8 << 20,
        }
    }
}

/// One program to run in the jail.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// The command and its arguments, as seen inside the sandbox.
    pub argv: Vec<String>,
    /// Its environment (nothing of the host's is passed; `PATH`, `HOME=/tmp` and `LANG=C.UTF-8` are set
    /// unless given here).
    pub env: Vec<(String, String)>,
    /// Host paths it sees beyond [`BASE_MOUNTS`].
    pub mounts: Vec<Mount>,
    /// Files created in its `/tmp` before it starts: a path relative to `/tmp`, the bytes, executable or not.
    pub files: Vec<(String, Vec<u8>, bool)>,
    /// Its working directory inside the sandbox (`/tmp` when empty).
    pub cwd: String,
    /// What it reads on stdin.
    pub stdin: Vec<u8>,
    /// Its limits.
    pub limits: JailLimits,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// It exited on its own (or was killed by a signal of its own doing: see [`Outcome::exit_code`]).
    Exited,
    /// Killed at its wall-clock deadline.
    TimedOut,
    /// Killed because the caller cancelled it.
    Cancelled,
    /// Killed because its output passed [`JailLimits::output_bytes`].
    OutputLimit,
    /// A process of it was killed by the kernel for passing [`JailLimits::memory_bytes`] (the run may have
    /// gone on, and [`Outcome::exit_code`] says how it ended).
    MemoryLimit,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// Its exit status as a shell reports it: the program's exit code, or 128 + the signal that killed it
    /// (bubblewrap reports a signalled program that way); `None` when the jail killed it.
    pub exit_code: Option<i32>,
    /// What it wrote to stdout, up to the output cap.
    pub stdout: Vec<u8>,
    /// What it wrote to stderr, up to the output cap.
    pub stderr: Vec<u8>,
    /// Bytes it wrote to stdout and stderr, kept or not.
    pub output_bytes: u64,
    /// Wall-clock time from start to end.
    pub wall: Duration,
    /// CPU time of all its processes (user and system).
    pub cpu: Duration,
    /// The most memory its processes held at once (its memory cgroup's peak: resident pages, page cache and its
    /// `/tmp`); `None` without a memory cgroup. Not `ru_maxrss`, which counts the server's own pages that the
    /// forked child held before exec.
    pub peak_memory_bytes: Option<u64>,
    /// What a warm Python run's driver wrote to its report descriptor ([`Start::Python`]); empty otherwise.
    pub report: Vec<u8>,
}

/// The native sandbox: the launcher found, the seccomp filters compiled, the runs' cgroups.
pub struct Jail {
    bwrap: PathBuf,
    /// The seccomp filters' BPF, written once to unnamed files; each run reads its own opening of them.
    filters: Vec<std::fs::File>,
    /// Where runs' pids cgroups are made, if the host lets this process make them.
    pids: Option<Arc<Groups>>,
    /// Where runs' memory cgroups are made, likewise.
    memory: Option<Arc<Groups>>,
    /// The host user runs are started as when Beaker runs as root (bwrap then makes an unprivileged user
    /// namespace whose only user is this one): never root, whose uid reaches `/proc/sys` and every root-owned
    /// file without any capability.
    sandbox_uid: Option<u32>,
    /// Idle warm launchers (see [`Jail::run_warm`]), shared with the jail's copies that start them.
    launchers: Arc<warm::Launchers>,
    /// How many launchers of a kind take turns for runs that come one after another (1: no background start).
    taking_turns: usize,
}

impl std::fmt::Debug for Jail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jail").field("bwrap", &self.bwrap).finish()
    }
}

impl Jail {
    /// Another handle on this jail (the same launchers and cgroups), for a thread that starts a launcher.
    fn try_clone(&self) -> std::io::Result<Jail> {
        Ok(Jail {
            bwrap: self.bwrap.clone(),
            filters: (self.filters.iter())
                .map(std::fs::File::try_clone)
                .collect::<std::io::Result<_>>()?,
            pids: self.pids.clone(),
            memory: self.memory.clone(),
            sandbox_uid: self.sandbox_uid,
            launchers: self.launchers.clone(),
            taking_turns: self.taking_turns,
        })
    }

    /// The jail of this host: bubblewrap from `PATH`, checked by running `true` in it once.
    pub fn discover() -> Result<Jail, JailError> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err(JailError::Unsupported);
        }
        let bwrap = find_in_path("bwrap").ok_or(JailError::NoLauncher)?;
        let filters = seccomp::programs()
            .map_err(JailError::Broken)?
            .iter()
            .map(|p| handed_file(&seccomp::bytes(p)))
            .collect::<std::io::Result<_>>()
            .map_err(|e| JailError::Broken(format!("writing the seccomp filters: {e}")))?;
        let jail = Jail {
            bwrap,
            filters,
            pids: cgroup_parent("pids").map(Groups::new),
            memory: cgroup_parent("memory").map(Groups::new),
            sandbox_uid: rustix::process::geteuid().is_root().then_some(SANDBOX_UID),
            launchers: Arc::default(),
            taking_turns: warm::TAKING_TURNS,
        };
        let probe = Program {
            argv: vec!["/bin/true".into()],
            ..Program::default()
        };
        let out = jail.run(&probe, &CancelToken::new())?;
        if out.exit_code != Some(0) {
            return Err(JailError::Broken(format!(
                "bwrap could not start a program (exit {:?}): {}",
                out.exit_code,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(jail)
    }

    /// Whether a run can see the host path `path` through a [`Mount`]: when runs have a user of their own, every
    /// folder above it must let others through (bwrap resolves the path as that user).
    pub fn reachable(&self, path: &Path) -> bool {
        use std::os::unix::fs::PermissionsExt;
        if self.sandbox_uid.is_none() {
            return path.exists();
        }
        path.exists()
            && path
                .ancestors()
                .skip(1)
                .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
    }

    /// The host user runs are started as, when not Beaker's own (see [`SANDBOX_UID`]).
    pub fn sandbox_uid(&self) -> Option<u32> {
        self.sandbox_uid
    }

    /// Runs `program` to its end, its deadline, its output cap or `cancel`, whichever comes first.
    pub fn run(&self, program: &Program, cancel: &CancelToken) -> Result<Outcome, JailError> {
        let pids = (self.pids.as_ref())
            .and_then(|p| p.take(&[("pids.max", program.limits.processes + 2)]));
        // A reused group's peak starts again from what it holds now (nothing: see `Groups::give_back`).
        let memory = match (&self.memory, program.limits.memory_bytes) {
            (Some(p), Some(bytes)) => p.take(&[
                ("memory.limit_in_bytes", bytes),
                ("memory.max_usage_in_bytes", 0),
            ]),
            _ => None,
        };
        let ooms_before = memory.as_ref().map_or(0, Group::ooms);
        // Every file the sandbox reads at start goes in as an unnamed temporary file, handed over by descriptor.
        let mut handed: Vec<std::fs::File> = Vec::new();
        let args = self.sandbox_args(program, &mut handed, false)?;
        // Read-only: a run may not write through its stdin onto the host's disk.
        let stdin = handed_file(&program.stdin)
            .and_then(|f| reopen(&f))
            .map_err(|e| broken("writing stdin", e))?;
        let limits = program.limits;
        let rlimits = Rlimits {
            address_space: limits.address_space,
            cpu_seconds: limits.wall.as_secs() + 2,
            file_bytes: limits.file_bytes,
            open_files: limits.open_files,
            processes: self.processes(limits.processes, pids.is_some()),
        };
        let join = procs_of(&[&pids, &memory])?;
        let start = Instant::now();
        let mut child = spawn_bwrap(
            &self.bwrap,
            args,
            Stdio::from(stdin),
            Stdio::piped(),
            Stdio::piped(),
            handed,
            rlimits,
            join,
            self.sandbox_uid,
        )?;
        let pid = child.id() as i32;
        // Signalled through a pidfd, which cannot name another process once this one is reaped.
        let pidfd = Arc::new(pidfd_of(pid)?);
        let kill: Killer = {
            let pidfd = pidfd.clone();
            Arc::new(move || {
                // Fails only once the process is gone, which is what the kill is for.
                let _ = rustix::process::pidfd_send_signal(&*pidfd, rustix::process::Signal::KILL);
            })
        };
        let output = Output::new(limits.output_bytes, kill.clone());
        let out = output.read(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let err = output.read(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send((sys::wait4(pid), Instant::now()));
        });
        let deadline = start + limits.wall;
        let mut ending = Ending::Exited;
        let (waited, ended) = loop {
            match rx.recv_timeout(POLL.min(deadline.saturating_duration_since(Instant::now()))) {
                Ok(done) => break done,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(JailError::Broken("the reaper thread died".into()))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if ending == Ending::Exited {
                if cancel.reason().is_some() {
                    ending = Ending::Cancelled;
                    kill();
                } else if Instant::now() >= deadline {
                    ending = Ending::TimedOut;
                    kill();
                }
            }
        };
        let (status, usage) = waited.map_err(|e| broken("waiting for bwrap", e))?;
        drop(child);
        // bwrap is gone; whatever of the run is left (a process that made itself immune to its parent's death)
        // is killed through its cgroup, and the readers get a short drain, not a wait for an end of file that
        // such a process could withhold.
        if let Some(g) = &pids {
            g.kill_all();
        }
        let drain_until = Instant::now() + DRAIN;
        let stdout = out.collect(drain_until);
        let stderr = err.collect(drain_until);
        let peak_memory_bytes = memory
            .as_ref()
            .and_then(|g| g.read("memory.max_usage_in_bytes"));
        let out_of_memory = memory.as_ref().is_some_and(|g| g.ooms() > ooms_before);
        if let (Some(pool), Some(g)) = (&self.pids, pids) {
            Groups::give_back(pool, g);
        }
        if let (Some(pool), Some(g)) = (&self.memory, memory) {
            Groups::give_back(pool, g);
        }
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        Ok(output.outcome(
            ending,
            out_of_memory,
            status,
            stdout,
            stderr,
            ended.saturating_duration_since(start),
            tv(usage.ru_utime) + tv(usage.ru_stime),
            peak_memory_bytes,
        ))
    }

    /// The `RLIMIT_NPROC` of a run allowed `processes`. It counts every process of a user. Runs started as the
    /// sandbox's own user share that user: with a pids cgroup per run, the cgroup is the per-run limit and this
    /// one only bounds all runs together; without one, it is the limit of all runs together. Runs of Beaker's
    /// own (non-root) user get it above what that user has now.
    fn processes(&self, processes: u64, own_cgroup: bool) -> u64 {
        match (self.sandbox_uid, own_cgroup) {
            (Some(_), true) => ALL_RUNS_PROCESSES,
            (Some(_), false) => processes + 2,
            (None, _) => processes_of_this_user() + processes + 2,
        }
    }

    /// bwrap's arguments for `program` (its files included; its stdin not), the descriptors they name pushed
    /// onto `handed`. With `as_pid_1` the program is the pid namespace's init (a warm launcher).
    fn sandbox_args(
        &self,
        program: &Program,
        handed: &mut Vec<std::fs::File>,
        as_pid_1: bool,
    ) -> Result<Vec<String>, JailError> {
        let mut args: Vec<String> = vec![
            "--unshare-all".into(),
            "--unshare-user".into(),
            // `nobody` inside: not the namespace's root, whatever user Beaker runs as.
            "--uid".into(),
            "65534".into(),
            "--gid".into(),
            "65534".into(),
            "--disable-userns".into(),
            "--die-with-parent".into(),
            "--new-session".into(),
            "--cap-drop".into(),
            "ALL".into(),
            "--hostname".into(),
            "sandbox".into(),
            "--clearenv".into(),
        ];
        if as_pid_1 {
            args.push("--as-pid-1".into());
        }
        for mount in BASE_MOUNTS {
            mount_base(Path::new(mount), &mut args);
        }
        for m in &program.mounts {
            // Opened here and bound by descriptor, so the folder bound is the one opened now. (bwrap still resolves
            // its path as the run's user: callers mount only what `Jail::reachable` allows.)
            let dir = std::fs::File::open(&m.host)
                .map_err(|e| broken(&format!("opening {}", m.host.display()), e))?;
            let kind = if m.writable {
                "--bind-fd"
            } else {
                "--ro-bind-fd"
            };
            args.extend([
                kind.into(),
                dir.as_raw_fd().to_string(),
                m.sandbox.display().to_string(),
            ]);
            handed.push(dir);
        }
        args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
        // /dev/shm a tmpfs of its own with a cap, and /dev read-only: a run could otherwise replace /dev/stdin or
        // /dev/fd for the runs after it in a warm launcher, or fill /dev without a limit (a review did both).
        args.extend([
            "--size".into(),
            DEV_SHM_BYTES.to_string(),
            "--tmpfs".into(),
            "/dev/shm".into(),
        ]);
        // The kernel's settings and triggers, read-only whoever the run's user is.
        for covered in [
            "/proc/sys",
            "/proc/sysrq-trigger",
            "/proc/irq",
            "/proc/bus",
            "/proc/fs",
        ] {
            if Path::new(covered).exists() {
                args.extend(["--ro-bind-try".into(), covered.into(), covered.into()]);
            }
        }
        // The namespace's init (bwrap's, the program's parent, of the program's user and dumpable; or a warm
        // launcher): its memory and environment are covered, else a program could write code into it and
        // outlive its run (a review found it; the program stays pid 2, so signals and exit statuses are a
        // host's).
        for covered in ["/proc/1/mem", "/proc/1/environ"] {
            args.extend(["--ro-bind-try".into(), "/dev/null".into(), covered.into()]);
        }
        args.extend([
            "--size".into(),
            program.limits.tmpfs_bytes.to_string(),
            "--tmpfs".into(),
            "/tmp".into(),
        ]);
        for (path, bytes, executable) in &program.files {
            let file =
                handed_file(bytes).map_err(|e| broken("writing a file for the sandbox", e))?;
            args.extend([
                "--perms".into(),
                if *executable { "0755" } else { "0644" }.into(),
                "--file".into(),
                file.as_raw_fd().to_string(),
                format!("/tmp/{path}"),
            ]);
            handed.push(file);
        }
        for filter in &self.filters {
            let file = reopen(filter).map_err(|e| broken("opening the seccomp filter", e))?;
            args.extend(["--add-seccomp-fd".into(), file.as_raw_fd().to_string()]);
            handed.push(file);
        }
        for (k, v) in run_env(&program.env) {
            args.extend(["--setenv".into(), k, v]);
        }
        // The root bwrap builds is a tmpfs of its own, writable until now: only /tmp and /dev/shm stay writable.
        args.extend(["--remount-ro".into(), "/dev".into()]);
        args.extend(["--remount-ro".into(), "/".into()]);
        let cwd = if program.cwd.is_empty() {
            "/tmp"
        } else {
            &program.cwd
        };
        args.extend(["--chdir".into(), cwd.into(), "--".into()]);
        args.extend(program.argv.iter().cloned());
        Ok(args)
    }
}

/// The `cgroup.procs` files of `groups` (those there are), open for a child to write itself into.
fn procs_of(groups: &[&Option<Group>]) -> Result<Vec<std::fs::File>, JailError> {
    groups
        .iter()
        .filter_map(|g| g.as_ref())
        .map(Group::procs)
        .collect::<std::io::Result<_>>()
        .map_err(|e| broken("opening the run's cgroup", e))
}

/// Starts `bwrap` with `args`, joining the cgroups whose `cgroup.procs` are `join` from its first
/// instruction, under `rlimits`, as `uid` when given; `handed` are the descriptors the arguments name.
#[allow(clippy::too_many_arguments)]
fn spawn_bwrap(
    bwrap: &Path,
    args: Vec<String>,
    stdin: Stdio,
    stdout: Stdio,
    stderr: Stdio,
    handed: Vec<std::fs::File>,
    rlimits: Rlimits,
    join: Vec<std::fs::File>,
    uid: Option<u32>,
) -> Result<std::process::Child, JailError> {
    let handed = Arc::new(handed);
    let mut command = Command::new(bwrap);
    command
        .env_clear()
        .args(&args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr);
    {
        let handed = handed.clone();
        sys::between_fork_and_exec(&mut command, move || pre_exec(&handed, rlimits, &join, uid));
    }
    command.spawn().map_err(|e| broken("starting bwrap", e))
}

/// A run's environment: `PATH`, `HOME=/tmp` and `LANG=C.UTF-8`, then `over` (which replaces them).
fn run_env(over: &[(String, String)]) -> Vec<(String, String)> {
    let base = vec![
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), "/tmp".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    merged_env(base, over)
}

/// `base` with the variables of `over` set (replacing those of the same name).
fn merged_env(mut base: Vec<(String, String)>, over: &[(String, String)]) -> Vec<(String, String)> {
    for (k, v) in over {
        base.retain(|(have, _)| have != k);
        base.push((k.clone(), v.clone()));
    }
    base
}

/// An I/O error as a [`JailError`], saying what was being done.
fn broken(what: &str, e: std::io::Error) -> JailError {
    JailError::Broken(format!("{what}: {e}"))
}

/// A pidfd of the child `pid`.
fn pidfd_of(pid: i32) -> Result<rustix::fd::OwnedFd, JailError> {
    rustix::process::Pid::from_raw(pid)
        .ok_or_else(|| JailError::Broken("bwrap has no pid".into()))
        .and_then(|p| {
            rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty())
                .map_err(|e| broken("pidfd_open", e.into()))
        })
}

/// What kills a run (its bwrap, or its warm launcher's child).
type Killer = Arc<dyn Fn() + Send + Sync>;

/// A run's stdout and stderr as they are read: the bytes kept, the bytes written, whether the cap was passed.
#[derive(Clone)]
struct Output {
    cap: u64,
    total: Arc<AtomicU64>,
    over: Arc<AtomicBool>,
    kill: Killer,
}

/// One stream being read on a thread of its own: what it kept, and word when it ends.
struct Stream {
    kept: Arc<std::sync::Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

impl Output {
    fn new(cap: u64, kill: Killer) -> Output {
        Output {
            cap,
            total: Arc::new(AtomicU64::new(0)),
            over: Arc::new(AtomicBool::new(false)),
            kill,
        }
    }

    /// Reads `pipe` to its end on a thread, keeping what fits under the cap shared by both streams and killing
    /// the run when the cap is passed.
    fn read(&self, pipe: Option<Box<dyn Read + Send>>) -> Stream {
        let output = self.clone();
        let kept = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (done_tx, done) = mpsc::channel::<()>();
        let shared = kept.clone();
        std::thread::spawn(move || {
            let _done = done_tx;
            let Some(mut pipe) = pipe else {
                return;
            };
            let mut buf = [0u8; 1 << 16];
            loop {
                let n = match pipe.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if let Ok(mut kept) = shared.lock() {
                    output.take(&mut kept, &buf[..n]);
                }
            }
        });
        Stream { kept, done }
    }

    /// Counts `bytes` read from one of the run's streams, keeps what fits under the cap in `kept`, and kills
    /// the run when the cap is passed.
    fn take(&self, kept: &mut Vec<u8>, bytes: &[u8]) {
        let n = bytes.len() as u64;
        let before = self.total.fetch_add(n, Ordering::AcqRel);
        let room = self.cap.saturating_sub(before) as usize;
        kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if before + n > self.cap && !self.over.swap(true, Ordering::AcqRel) {
            (self.kill)();
        }
    }

    /// The run's outcome from how it ended and its wait status.
    #[allow(clippy::too_many_arguments)]
    fn outcome(
        &self,
        mut ending: Ending,
        out_of_memory: bool,
        status: i32,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
        wall: Duration,
        cpu: Duration,
        peak_memory_bytes: Option<u64>,
    ) -> Outcome {
        if ending == Ending::Exited && self.over.load(Ordering::Acquire) {
            ending = Ending::OutputLimit;
        }
        if ending == Ending::Exited && out_of_memory {
            ending = Ending::MemoryLimit;
        }
        let exit_code = match ending {
            Ending::Exited | Ending::MemoryLimit if libc::WIFEXITED(status) => {
                Some(libc::WEXITSTATUS(status))
            }
            Ending::Exited | Ending::MemoryLimit if libc::WIFSIGNALED(status) => {
                Some(128 + libc::WTERMSIG(status))
            }
            _ => None,
        };
        Outcome {
            ending,
            exit_code,
            stdout,
            stderr,
            output_bytes: self.total.load(Ordering::Acquire),
            wall,
            cpu,
            peak_memory_bytes,
            report: Vec::new(),
        }
    }
}

impl Stream {
    /// What the stream kept, once it ended or `until` passed (a process that escaped the kill may hold the
    /// pipe open).
    fn collect(self, until: Instant) -> Vec<u8> {
        let _ = self
            .done
            .recv_timeout(until.saturating_duration_since(Instant::now()));
        let bytes = self.kept.lock().map(|k| k.clone()).unwrap_or_default();
        bytes
    }
}

/// The resource limits a jailed process starts under.
#[derive(Debug, Clone, Copy)]
struct Rlimits {
    address_space: Option<u64>,
    cpu_seconds: u64,
    file_bytes: u64,
    open_files: u64,
    processes: u64,
}

/// A base directory as the host has it: a symlink (`/bin -> usr/bin` on merged-/usr systems) stays one, a
/// directory is bound read-only, a missing one is left out.
fn mount_base(path: &Path, args: &mut Vec<String>) {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    let at = path.display().to_string();
    if meta.file_type().is_symlink() {
        if let Ok(target) = std::fs::read_link(path) {
            args.extend(["--symlink".into(), target.display().to_string(), at]);
        }
    } else if meta.is_dir() {
        args.extend(["--ro-bind".into(), at.clone(), at]);
    }
}

/// An unnamed temporary file holding `bytes`, read from its start by whoever inherits it.
fn handed_file(bytes: &[u8]) -> std::io::Result<std::fs::File> {
    // In memory (a memfd), not a file on disk: a run's stdin and files never touch the host's disk.
    let mut f = std::fs::File::from(rustix::fs::memfd_create(
        "beaker-handed",
        rustix::fs::MemfdFlags::CLOEXEC,
    )?);
    f.write_all(bytes)?;
    f.rewind()?;
    Ok(f)
}

/// A new read-only opening of `file`, reading from its start whatever the other openings have read.
fn reopen(file: &std::fs::File) -> std::io::Result<std::fs::File> {
    std::fs::File::open(format!("/proc/self/fd/{}", file.as_raw_fd()))
}

/// In the child between fork and exec: join the run's cgroups, hand the files over, set the limits. Raw syscalls
/// only (see [`sys::between_fork_and_exec`]).
fn pre_exec(
    handed: &[std::fs::File],
    limits: Rlimits,
    cgroup_procs: &[std::fs::File],
    uid: Option<u32>,
) -> std::io::Result<()> {
    use rustix::process::{setrlimit, Resource, Rlimit};
    for procs in cgroup_procs {
        // "0" is the writing process: bwrap and all it starts are in the group from their first instruction.
        rustix::io::write(procs, b"0")?;
    }
    for f in handed {
        rustix::io::fcntl_setfd(f, rustix::io::FdFlags::empty())?;
    }
    let set = |resource, value: u64| {
        setrlimit(
            resource,
            Rlimit {
                current: Some(value),
                maximum: Some(value),
            },
        )
    };
    if let Some(bytes) = limits.address_space {
        set(Resource::As, bytes)?;
    }
    set(Resource::Cpu, limits.cpu_seconds)?;
    set(Resource::Fsize, limits.file_bytes)?;
    set(Resource::Nofile, limits.open_files)?;
    set(Resource::Core, 0)?;
    set(Resource::Nproc, limits.processes)?;
    if let Some(uid) = uid {
        use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
        // The child is single-threaded: the thread's ids are the process's. Last: the cgroup and the limits
        // above need root.
        let (u, g) = (
            rustix::process::Uid::from_raw(uid),
            rustix::process::Gid::from_raw(uid),
        );
        set_thread_groups(&[])?;
        set_thread_res_gid(g, g, g)?;
        set_thread_res_uid(u, u, u)?;
    }
    Ok(())
}

/// Processes (threads included, as `RLIMIT_NPROC` counts them) of this process's real user.
fn processes_of_this_user() -> u64 {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::getuid().as_raw();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == me))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |t| t.count() as u64))
        .sum()
}

/// The first file named `name` in `PATH`.
pub fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A cgroup of one run (cgroup v1): its pids group is the one process limit that binds root (`RLIMIT_NPROC`
/// does not) and counts only the run's processes; its memory group bounds and measures all of them together.
struct Group {
    dir: PathBuf,
}

/// Numbers the runs' cgroups.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// Idle groups kept for the next runs.
const IDLE_GROUPS: usize = 32;

/// The groups of one controller: made under `parent`, and kept for the next runs once empty, since making and
/// removing a cgroup costs a run about a millisecond each (measured: 1.6 ms `mkdir`, 1.1 ms `rmdir` for a
/// memory cgroup on this 2-core machine), where reusing one costs two writes.
struct Groups {
    parent: PathBuf,
    idle: std::sync::Mutex<Vec<Group>>,
}

impl Groups {
    fn new(parent: PathBuf) -> Arc<Groups> {
        Arc::new(Groups {
            parent,
            idle: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// An empty group with `settings` written, or `None` when one cannot be made.
    fn take(&self, settings: &[(&str, u64)]) -> Option<Group> {
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let group = match idle {
            Some(g) => g,
            None => {
                let n = RUNS.fetch_add(1, Ordering::Relaxed);
                let dir = self.parent.join(format!("run-{}-{n}", std::process::id()));
                std::fs::create_dir(&dir).ok()?;
                Group { dir }
            }
        };
        for (file, value) in settings {
            std::fs::write(group.dir.join(file), value.to_string()).ok()?;
        }
        Some(group)
    }

    /// Keeps `group` for another run once the run's last processes have left it (they die a moment after
    /// bwrap is reaped) and, for a memory group, once the page cache charged to it is reclaimed (else the next
    /// run's peak would count it); off the run's path, on a thread of its own.
    fn give_back(pool: &Arc<Groups>, group: Group) {
        let pool = pool.clone();
        std::thread::spawn(move || {
            for _ in 0..200 {
                let procs = std::fs::read_to_string(group.dir.join("cgroup.procs"));
                if procs.is_ok_and(|p| p.trim().is_empty()) {
                    let memory = group.dir.join("memory.force_empty");
                    if memory.exists() && std::fs::write(&memory, "0").is_err() {
                        return;
                    }
                    let mut idle = pool.idle.lock().unwrap_or_else(|p| p.into_inner());
                    if idle.len() < IDLE_GROUPS {
                        idle.push(group);
                    }
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
    }
}

impl Group {
    /// Its `cgroup.procs`, open for the child to write itself into.
    fn procs(&self) -> std::io::Result<std::fs::File> {
        std::fs::OpenOptions::new()
            .write(true)
            .open(self.dir.join("cgroup.procs"))
    }

    /// Sends SIGKILL to every process in it (they are in the host's pid namespace here).
    fn kill_all(&self) {
        let Ok(procs) = std::fs::read_to_string(self.dir.join("cgroup.procs")) else {
            return;
        };
        for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
    }

    /// A number its `file` holds.
    fn read(&self, file: &str) -> Option<u64> {
        std::fs::read_to_string(self.dir.join(file))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// How many of its processes the kernel has killed for want of memory.
    fn ooms(&self) -> u64 {
        self.read_key("memory.oom_control", "oom_kill").unwrap_or(0)
    }

    /// The number after `key` in its `file` of `key value` lines.
    fn read_key(&self, file: &str, key: &str) -> Option<u64> {
        let text = std::fs::read_to_string(self.dir.join(file)).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.trim().parse().ok())
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        // The run's last processes die with bwrap, a moment after it is reaped: removed once they are gone.
        if std::fs::remove_dir(&self.dir).is_ok() {
            return;
        }
        let dir = std::mem::take(&mut self.dir);
        std::thread::spawn(move || {
            for _ in 0..200 {
                std::thread::sleep(Duration::from_millis(10));
                if std::fs::remove_dir(&dir).is_ok() || !dir.exists() {
                    return;
                }
            }
        });
    }
}

/// This process's parent of run cgroups of `controller`, where the host has a writable cgroup v1 hierarchy
/// of it (`/sys/fs/cgroup/pids`, `/sys/fs/cgroup/memory`, as root); `None` otherwise.
fn cgroup_parent(controller: &str) -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup").join(controller);
    let mine = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let tag = format!(":{controller}:");
    let path = mine.lines().find_map(|l| {
        l.split_once(&tag)
            .map(|(_, p)| p.trim_start_matches('/').to_string())
    })?;
    let parent = root.join(path).join("beaker");
    std::fs::create_dir_all(&parent).ok()?;
    remove_stale_groups(&parent);
    Some(parent)
}

/// Removes the groups of runs whose Beaker process has ended (`run-PID-N` with no process PID): a process that
/// exits while its last runs' processes are still dying leaves their empty groups behind. A group still holding
/// processes is not removed (`rmdir` refuses).
fn remove_stale_groups(parent: &Path) {
    let Ok(dir) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in dir.filter_map(Result::ok) {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-"))
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod warm_tests;
