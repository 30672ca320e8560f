//! The native process sandbox: a program (a compiler, an interpreter, a compiled binary) runs as a process of
//! the host's kernel, jailed the way SandboxFusion, nsjail and Flatpak jail untrusted code.
//!
//! Each [`Jail::run`] starts [bubblewrap](https://github.com/containers/bubblewrap) (`bwrap`, Debian's
//! `bubblewrap`), which puts the program in fresh namespaces (user, pid, mount, network with nothing in it,
//! IPC, UTS, cgroup) over a root made of read-only host directories ([`BASE_MOUNTS`] plus the program's own
//! [`Mount`]s) and a private size-capped tmpfs at `/tmp`, drops every capability, forbids further user
//! namespaces and installs the seccomp allowlist of [`seccomp`](crate::seccomp) before `execve`. Before
//! bwrap starts, resource limits are set that the program inherits (address space, CPU seconds, processes, file
//! size, open files, no core dumps); when Beaker runs as root, the run also gets a user id of its own from a pool
//! (2,000,000,000 + slot), so that its process limit counts only its own processes. The run is killed (bwrap,
//! and with it the whole pid namespace) at its deadline, on cancel, or when its output passes its cap.
//!
//! What it does not defend against, and the WebAssembly sandbox does: a bug in the Linux kernel reachable
//! through the allowed syscalls, and side channels between processes on one machine. See docs/ARCHITECTURE.md.
#![deny(missing_docs)]

mod seccomp;
mod sys;

use beaker_core::CancelToken;
use std::io::{Read, Seek, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Host directories every jailed program sees, read-only, where the host has them: the system's programs and
/// libraries (Debian's toolchains live under `/usr`).
pub const BASE_MOUNTS: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"];

/// The first user id of the pool runs take when Beaker runs as root.
const UID_BASE: u32 = 2_000_000_000;

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
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// The largest resident set of any of its processes.
    pub peak_memory_bytes: u64,
}

/// The native sandbox: the launcher found, the seccomp filters compiled, the user ids of runs in flight.
pub struct Jail {
    bwrap: PathBuf,
    filters: Vec<Vec<u8>>,
    uids: Option<Mutex<Vec<bool>>>,
}

impl std::fmt::Debug for Jail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Jail").field("bwrap", &self.bwrap).finish()
    }
}

impl Jail {
    /// The jail of this host: bubblewrap from `PATH`, checked by running `true` in it once.
    pub fn discover() -> Result<Jail, JailError> {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            return Err(JailError::Unsupported);
        }
        let bwrap = find_in_path("bwrap").ok_or(JailError::NoLauncher)?;
        let filters = seccomp::programs()
            .map_err(JailError::Broken)?
            .iter()
            .map(seccomp::bytes)
            .collect();
        let root = rustix::process::geteuid().is_root();
        let jail = Jail {
            bwrap,
            filters,
            uids: root.then(|| Mutex::new(Vec::new())),
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

    /// Runs `program` to its end, its deadline, its output cap or `cancel`, whichever comes first.
    pub fn run(&self, program: &Program, cancel: &CancelToken) -> Result<Outcome, JailError> {
        let broken = |what: &str, e: std::io::Error| JailError::Broken(format!("{what}: {e}"));
        let slot = self.uids.as_ref().map(UidSlot::take);
        let uid = slot.as_ref().map(|s| UID_BASE + s.index as u32);
        // Every file the sandbox reads at start goes in as an unnamed temporary file, handed over by descriptor.
        let mut handed: Vec<std::fs::File> = Vec::new();
        let mut args: Vec<String> = vec![
            "--unshare-all".into(),
            "--unshare-user".into(),
            "--disable-userns".into(),
            "--die-with-parent".into(),
            "--new-session".into(),
            "--cap-drop".into(),
            "ALL".into(),
            "--hostname".into(),
            "sandbox".into(),
            "--clearenv".into(),
        ];
        for mount in BASE_MOUNTS {
            mount_base(Path::new(mount), &mut args);
        }
        for m in &program.mounts {
            let kind = if m.writable { "--bind" } else { "--ro-bind" };
            args.extend([
                kind.into(),
                m.host.display().to_string(),
                m.sandbox.display().to_string(),
            ]);
        }
        args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
        args.extend([
            "--size".into(),
            program.limits.tmpfs_bytes.to_string(),
            "--tmpfs".into(),
            "/tmp".into(),
        ]);
        for (path, bytes, executable) in &program.files {
            let file = handed_file(bytes).map_err(|e| broken("writing a file for the sandbox", e))?;
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
            let file = handed_file(filter).map_err(|e| broken("writing the seccomp filter", e))?;
            args.extend(["--add-seccomp-fd".into(), file.as_raw_fd().to_string()]);
            handed.push(file);
        }
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), "/tmp".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        for (k, v) in &program.env {
            env.retain(|(have, _)| have != k);
            env.push((k.clone(), v.clone()));
        }
        for (k, v) in env {
            args.extend(["--setenv".into(), k, v]);
        }
        // The root bwrap builds is a tmpfs of its own, writable until now: only /tmp stays writable.
        args.extend(["--remount-ro".into(), "/".into()]);
        let cwd = if program.cwd.is_empty() {
            "/tmp"
        } else {
            &program.cwd
        };
        args.extend(["--chdir".into(), cwd.into(), "--".into()]);
        args.extend(program.argv.iter().cloned());

        let stdin = handed_file(&program.stdin).map_err(|e| broken("writing stdin", e))?;
        let handed = Arc::new(handed);
        let limits = program.limits;
        // Not root: the process limit counts every process of this user, so it is set above what they have now.
        let processes = match uid {
            Some(_) => limits.processes + 2,
            None => processes_of_this_user() + limits.processes + 2,
        };
        let mut command = Command::new(&self.bwrap);
        command
            .args(&args)
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        {
            let handed = handed.clone();
            sys::between_fork_and_exec(&mut command, move || {
                pre_exec(&handed, limits, processes, uid)
            });
        }
        let start = Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| broken("starting bwrap", e))?;
        drop(command);
        drop(handed);
        let pid = child.id() as i32;
        // Signalled through a pidfd, which cannot name another process once this one is reaped.
        let pidfd = rustix::process::Pid::from_raw(pid)
            .ok_or_else(|| JailError::Broken("bwrap has no pid".into()))
            .and_then(|p| {
                rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty())
                    .map_err(|e| broken("pidfd_open", e.into()))
            })?;
        let pidfd = Arc::new(pidfd);
        let kill = {
            let pidfd = pidfd.clone();
            Arc::new(move || {
                // Fails only once the process is gone, which is what the kill is for.
                let _ = rustix::process::pidfd_send_signal(&*pidfd, rustix::process::Signal::KILL);
            })
        };
        let total = Arc::new(AtomicU64::new(0));
        let over = Arc::new(AtomicBool::new(false));
        let reader = |pipe: Option<Box<dyn Read + Send>>| {
            let (total, over, kill) = (total.clone(), over.clone(), kill.clone());
            let cap = limits.output_bytes;
            std::thread::spawn(move || {
                let mut kept = Vec::new();
                let Some(mut pipe) = pipe else {
                    return kept;
                };
                let mut buf = [0u8; 1 << 16];
                loop {
                    let n = match pipe.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    let before = total.fetch_add(n as u64, Ordering::AcqRel);
                    let room = cap.saturating_sub(before) as usize;
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    if before + n as u64 > cap && !over.swap(true, Ordering::AcqRel) {
                        kill();
                    }
                }
                kept
            })
        };
        let out = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
        let err = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
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
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        drop(slot);
        if ending == Ending::Exited && over.load(Ordering::Acquire) {
            ending = Ending::OutputLimit;
        }
        let exit_code = match ending {
            Ending::Exited if libc::WIFEXITED(status) => Some(libc::WEXITSTATUS(status)),
            Ending::Exited if libc::WIFSIGNALED(status) => Some(128 + libc::WTERMSIG(status)),
            _ => None,
        };
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        Ok(Outcome {
            ending,
            exit_code,
            stdout,
            stderr,
            output_bytes: total.load(Ordering::Acquire),
            wall: ended.saturating_duration_since(start),
            cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
            peak_memory_bytes: (usage.ru_maxrss as u64).saturating_mul(1024),
        })
    }
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
    let mut f = tempfile::tempfile()?;
    f.write_all(bytes)?;
    f.rewind()?;
    Ok(f)
}

/// In the child between fork and exec: hand the files over, set the limits, take the run's own user id. Raw
/// syscalls only (see [`sys::between_fork_and_exec`]).
fn pre_exec(
    handed: &[std::fs::File],
    limits: JailLimits,
    processes: u64,
    uid: Option<u32>,
) -> std::io::Result<()> {
    use rustix::process::{setrlimit, Resource, Rlimit};
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
    set(Resource::Cpu, limits.wall.as_secs() + 2)?;
    set(Resource::Fsize, limits.file_bytes)?;
    set(Resource::Nofile, limits.open_files)?;
    set(Resource::Core, 0)?;
    set(Resource::Nproc, processes)?;
    if let Some(uid) = uid {
        use rustix::thread::{set_thread_groups, set_thread_res_gid, set_thread_res_uid};
        // The child is single-threaded: setting the thread's ids sets the process's.
        let (u, g) = (rustix::process::Uid::from_raw(uid), rustix::process::Gid::from_raw(uid));
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
        .filter(|e| e.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == me))
        .map(|e| {
            std::fs::read_dir(e.path().join("task")).map_or(1, |t| t.count() as u64)
        })
        .sum()
}

/// The first executable named `name` in `PATH`.
fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A user id of the pool, held for one run.
struct UidSlot<'a> {
    pool: &'a Mutex<Vec<bool>>,
    index: usize,
}

impl<'a> UidSlot<'a> {
    fn take(pool: &'a Mutex<Vec<bool>>) -> UidSlot<'a> {
        let mut used = pool.lock().unwrap_or_else(|p| p.into_inner());
        let index = match used.iter().position(|u| !u) {
            Some(i) => i,
            None => {
                used.push(false);
                used.len() - 1
            }
        };
        used[index] = true;
        UidSlot { pool, index }
    }
}

impl Drop for UidSlot<'_> {
    fn drop(&mut self) {
        let mut used = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        used[self.index] = false;
    }
}

#[cfg(test)]
mod tests;
