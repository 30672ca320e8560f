//! The jail's two unsafe calls, each behind a safe function.
#![allow(unsafe_code)]

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Runs `f` in the child between fork and exec. `f` must only make raw syscalls (rustix's) on values it owns:
/// no allocation, no lock, since the parent's other threads may have held them at the fork.
pub(crate) fn between_fork_and_exec(
    command: &mut Command,
    f: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) {
    // SAFETY: the caller's closure is async-signal-safe (see above); it is the only code run before exec.
    unsafe {
        command.pre_exec(f);
    }
}

/// Waits for the child `pid` to end and reaps it, returning its wait status and resource usage (its own and
/// that of the descendants it waited for): the only call that gives a run's CPU time and peak memory.
pub(crate) fn wait4(pid: i32) -> std::io::Result<(i32, libc::rusage)> {
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is a valid value (plain integers and timevals).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: wait4 on a pid with valid pointers to values this frame owns.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}
