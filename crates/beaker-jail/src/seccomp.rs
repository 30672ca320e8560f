//! The seccomp filters every jailed program runs under, compiled to BPF once per process (`seccompiler`).
//!
//! An allowlist: what programs in the supported languages call (file IO, memory, threads, signals, time,
//! sockets in the empty network namespace, IPC inside the private IPC namespace), and nothing that reaches the
//! kernel's shared state or another process: no `ptrace`, `process_vm_readv`, `mount`, `unshare`, `setns`,
//! `bpf`, `perf_event_open`, keyrings, `io_uring`, module or clock changes, POSIX message queues (nothing lists
//! their names, so a warm launcher could not remove what a run left in one for the next). A syscall not on the list fails
//! with `EPERM`, so a runtime probing for a feature carries on. `clone` is allowed only without namespace
//! flags, `prlimit64`, `setpriority` and the `sched_set*` calls only on the caller itself, `prctl` not to drop the death signal, `socket` only for `AF_UNIX`, `AF_INET` and `AF_INET6`; `clone3`, whose flags a filter cannot read, fails with `ENOSYS` so that libc falls back to `clone`.

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

/// The flags of `clone` that make new namespaces.
const NAMESPACE_FLAGS: u64 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u64
    | 0x80; // CLONE_NEWTIME

/// The syscalls a jailed program may make unconditionally.
#[rustfmt::skip]
const ALLOWED: &[libc::c_long] = &[
    libc::SYS_read, libc::SYS_write, libc::SYS_open, libc::SYS_close, libc::SYS_stat, libc::SYS_fstat,
    libc::SYS_lstat, libc::SYS_poll, libc::SYS_lseek, libc::SYS_mmap, libc::SYS_mprotect, libc::SYS_munmap,
    libc::SYS_brk, libc::SYS_rt_sigaction, libc::SYS_rt_sigprocmask, libc::SYS_rt_sigreturn, libc::SYS_ioctl,
    libc::SYS_pread64, libc::SYS_pwrite64, libc::SYS_readv, libc::SYS_writev, libc::SYS_access, libc::SYS_pipe,
    libc::SYS_select, libc::SYS_sched_yield, libc::SYS_mremap, libc::SYS_msync, libc::SYS_mincore,
    libc::SYS_madvise, libc::SYS_shmget, libc::SYS_shmat, libc::SYS_shmctl, libc::SYS_dup, libc::SYS_dup2,
    libc::SYS_pause, libc::SYS_nanosleep, libc::SYS_getitimer, libc::SYS_alarm, libc::SYS_setitimer,
    libc::SYS_getpid, libc::SYS_sendfile, libc::SYS_connect, libc::SYS_accept,
    libc::SYS_sendto, libc::SYS_recvfrom, libc::SYS_sendmsg, libc::SYS_recvmsg, libc::SYS_shutdown,
    libc::SYS_bind, libc::SYS_listen, libc::SYS_getsockname, libc::SYS_getpeername, libc::SYS_socketpair,
    libc::SYS_setsockopt, libc::SYS_getsockopt, libc::SYS_fork, libc::SYS_vfork, libc::SYS_execve,
    libc::SYS_exit, libc::SYS_wait4, libc::SYS_kill, libc::SYS_uname, libc::SYS_semget, libc::SYS_semop,
    libc::SYS_semctl, libc::SYS_shmdt, libc::SYS_msgget, libc::SYS_msgsnd, libc::SYS_msgrcv, libc::SYS_msgctl,
    libc::SYS_fcntl, libc::SYS_flock, libc::SYS_fsync, libc::SYS_fdatasync, libc::SYS_truncate,
    libc::SYS_ftruncate, libc::SYS_getdents, libc::SYS_getcwd, libc::SYS_chdir, libc::SYS_fchdir,
    libc::SYS_rename, libc::SYS_mkdir, libc::SYS_rmdir, libc::SYS_creat, libc::SYS_link, libc::SYS_unlink,
    libc::SYS_symlink, libc::SYS_readlink, libc::SYS_chmod, libc::SYS_fchmod, libc::SYS_chown,
    libc::SYS_fchown, libc::SYS_lchown, libc::SYS_umask, libc::SYS_gettimeofday, libc::SYS_getrlimit,
    libc::SYS_getrusage, libc::SYS_sysinfo, libc::SYS_times, libc::SYS_getuid, libc::SYS_getgid,
    libc::SYS_setuid, libc::SYS_setgid, libc::SYS_geteuid, libc::SYS_getegid, libc::SYS_setpgid,
    libc::SYS_getppid, libc::SYS_getpgrp, libc::SYS_setsid, libc::SYS_setreuid, libc::SYS_setregid,
    libc::SYS_getgroups, libc::SYS_setgroups, libc::SYS_setresuid, libc::SYS_getresuid, libc::SYS_setresgid,
    libc::SYS_getresgid, libc::SYS_getpgid, libc::SYS_setfsuid, libc::SYS_setfsgid, libc::SYS_getsid,
    libc::SYS_capget, libc::SYS_rt_sigpending, libc::SYS_rt_sigtimedwait, libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_sigsuspend, libc::SYS_sigaltstack, libc::SYS_utime, libc::SYS_statfs, libc::SYS_fstatfs,
    libc::SYS_getpriority, libc::SYS_sched_getparam,
    libc::SYS_sched_getscheduler, libc::SYS_sched_get_priority_max,
    libc::SYS_sched_get_priority_min, libc::SYS_sched_rr_get_interval, libc::SYS_mlock, libc::SYS_munlock,
    libc::SYS_mlockall, libc::SYS_munlockall, libc::SYS_arch_prctl, libc::SYS_setrlimit,
    libc::SYS_sync, libc::SYS_gettid, libc::SYS_readahead, libc::SYS_getxattr, libc::SYS_lgetxattr,
    libc::SYS_fgetxattr, libc::SYS_listxattr, libc::SYS_llistxattr, libc::SYS_flistxattr, libc::SYS_tkill,
    libc::SYS_time, libc::SYS_futex, libc::SYS_sched_getaffinity,
    libc::SYS_io_setup, libc::SYS_io_destroy, libc::SYS_io_getevents, libc::SYS_io_submit, libc::SYS_io_cancel,
    libc::SYS_epoll_create, libc::SYS_getdents64, libc::SYS_set_tid_address, libc::SYS_restart_syscall,
    libc::SYS_semtimedop, libc::SYS_fadvise64, libc::SYS_timer_create, libc::SYS_timer_settime,
    libc::SYS_timer_gettime, libc::SYS_timer_getoverrun, libc::SYS_timer_delete, libc::SYS_clock_gettime,
    libc::SYS_clock_getres, libc::SYS_clock_nanosleep, libc::SYS_exit_group, libc::SYS_epoll_wait,
    libc::SYS_epoll_ctl, libc::SYS_tgkill, libc::SYS_utimes, libc::SYS_mbind, libc::SYS_set_mempolicy,
    libc::SYS_get_mempolicy, libc::SYS_waitid,
    libc::SYS_inotify_init, libc::SYS_inotify_add_watch, libc::SYS_inotify_rm_watch, libc::SYS_openat,
    libc::SYS_mkdirat, libc::SYS_fchownat, libc::SYS_futimesat, libc::SYS_newfstatat, libc::SYS_unlinkat,
    libc::SYS_renameat, libc::SYS_linkat, libc::SYS_symlinkat, libc::SYS_readlinkat, libc::SYS_fchmodat,
    libc::SYS_faccessat, libc::SYS_pselect6, libc::SYS_ppoll, libc::SYS_set_robust_list,
    libc::SYS_get_robust_list, libc::SYS_splice, libc::SYS_tee, libc::SYS_sync_file_range, libc::SYS_vmsplice,
    libc::SYS_utimensat, libc::SYS_epoll_pwait, libc::SYS_signalfd, libc::SYS_timerfd_create, libc::SYS_eventfd,
    libc::SYS_fallocate, libc::SYS_timerfd_settime, libc::SYS_timerfd_gettime, libc::SYS_accept4,
    libc::SYS_signalfd4, libc::SYS_eventfd2, libc::SYS_epoll_create1, libc::SYS_dup3, libc::SYS_pipe2,
    libc::SYS_inotify_init1, libc::SYS_preadv, libc::SYS_pwritev, libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_recvmmsg, libc::SYS_syncfs, libc::SYS_sendmmsg, libc::SYS_getcpu,
    libc::SYS_sched_getattr, libc::SYS_renameat2, libc::SYS_seccomp,
    libc::SYS_getrandom, libc::SYS_memfd_create, libc::SYS_execveat, libc::SYS_membarrier,
    libc::SYS_copy_file_range, libc::SYS_preadv2, libc::SYS_pwritev2, libc::SYS_pkey_mprotect,
    libc::SYS_pkey_alloc, libc::SYS_pkey_free, libc::SYS_statx, libc::SYS_rseq, libc::SYS_pidfd_send_signal,
    libc::SYS_pidfd_open, libc::SYS_close_range, libc::SYS_faccessat2, libc::SYS_epoll_pwait2, libc::SYS_mlock2,
    libc::SYS_futex_waitv, libc::SYS_clone3,
];

/// The filters, in the order bwrap installs them: the allowlist, then the one that turns `clone3` into
/// `ENOSYS` (the kernel applies the strictest answer of all installed filters).
pub(crate) fn programs() -> Result<Vec<BpfProgram>, String> {
    let arch = TargetArch::x86_64;
    let mut allowed: BTreeMap<i64, Vec<SeccompRule>> =
        ALLOWED.iter().map(|&nr| (nr, Vec::new())).collect();
    let no_namespaces = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Qword,
        SeccompCmpOp::MaskedEq(NAMESPACE_FLAGS),
        0,
    )
    .map_err(|e| e.to_string())?;
    allowed.insert(
        libc::SYS_clone,
        vec![SeccompRule::new(vec![no_namespaces]).map_err(|e| e.to_string())?],
    );
    // prctl, but not PR_SET_PDEATHSIG: the run dies with bwrap, and may not opt out of it.
    let keeps_death_signal = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Ne,
        libc::PR_SET_PDEATHSIG as u64,
    )
    .map_err(|e| e.to_string())?;
    allowed.insert(
        libc::SYS_prctl,
        vec![SeccompRule::new(vec![keeps_death_signal]).map_err(|e| e.to_string())?],
    );
    // Sockets of the families programs use (local, IPv4, IPv6 in the empty network namespace): not vsock,
    // netlink or packet sockets, which reach past the namespace or the host's kernel.
    let mut families = Vec::new();
    for family in [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6] {
        let is = SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, family as u64)
            .map_err(|e| e.to_string())?;
        families.push(SeccompRule::new(vec![is]).map_err(|e| e.to_string())?);
    }
    allowed.insert(libc::SYS_socket, families);
    // Limits, priority and scheduling of the calling process only (pid 0): a run may not change its warm
    // launcher's, which every later run of that launcher would inherit (a review did, with prlimit on pid 1).
    for (nr, pid_arg) in [
        (libc::SYS_prlimit64, 0),
        (libc::SYS_setpriority, 1),
        (libc::SYS_sched_setscheduler, 0),
        (libc::SYS_sched_setparam, 0),
        (libc::SYS_sched_setattr, 0),
        (libc::SYS_sched_setaffinity, 0),
    ] {
        let own = SeccompCondition::new(pid_arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, 0)
            .map_err(|e| e.to_string())?;
        allowed.insert(
            nr,
            vec![SeccompRule::new(vec![own]).map_err(|e| e.to_string())?],
        );
    }
    let allowlist = SeccompFilter::new(
        allowed,
        SeccompAction::Errno(libc::EPERM as u32),
        SeccompAction::Allow,
        arch,
    )
    .map_err(|e| e.to_string())?;
    let no_clone3 = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    [allowlist, no_clone3]
        .into_iter()
        .map(|f| BpfProgram::try_from(f).map_err(|e| e.to_string()))
        .collect()
}

/// A BPF program's bytes, as bwrap reads them from a file descriptor (`struct sock_filter` after another).
pub(crate) fn bytes(program: &BpfProgram) -> Vec<u8> {
    let mut out = Vec::with_capacity(program.len() * 8);
    for f in program {
        out.extend_from_slice(&f.code.to_ne_bytes());
        out.push(f.jt);
        out.push(f.jf);
        out.extend_from_slice(&f.k.to_ne_bytes());
    }
    out
}
