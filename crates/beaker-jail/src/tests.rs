use super::*;

fn jail() -> Jail {
    Jail::discover()
        .expect("bubblewrap is installed (.ci/run installs it) and user namespaces work")
}

/// A shell script as a program (shared with the warm launchers' tests).
pub(super) fn sh(script: &str) -> Program {
    Program {
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        ..Program::default()
    }
}

fn run(program: &Program) -> Outcome {
    jail().run(program, &CancelToken::new()).expect("runs")
}

/// Bytes as text.
pub(super) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_program_reads_stdin_and_its_files_and_exits_with_its_code() {
    let mut p = sh("read x; echo \"got $x\"; cat /tmp/data.txt >&2; exit 3");
    p.stdin = b"42\n".to_vec();
    p.files
        .push(("data.txt".into(), b"file text".to_vec(), false));
    let out = run(&p);
    assert_eq!(out.ending, Ending::Exited);
    assert_eq!(out.exit_code, Some(3));
    assert_eq!(text(&out.stdout), "got 42\n");
    assert_eq!(text(&out.stderr), "file text");
}

#[test]
fn a_signal_is_reported_as_a_shell_reports_it() {
    let out = run(&sh("kill -SEGV $$"));
    assert_eq!(out.exit_code, Some(128 + libc::SIGSEGV), "{out:?}");
}

#[test]
fn a_run_past_its_deadline_is_killed_with_everything_it_started() {
    let mut p = sh("(sleep 30 &) ; echo started; sleep 30");
    p.limits.wall = Duration::from_millis(300);
    let t = Instant::now();
    let out = run(&p);
    assert_eq!(out.ending, Ending::TimedOut);
    assert_eq!(out.exit_code, None);
    assert_eq!(text(&out.stdout), "started\n");
    // The background sleep held the pipe open: the readers returning at all shows it died too.
    assert!(t.elapsed() < Duration::from_secs(10));
}

#[test]
fn output_past_the_cap_kills_the_run_and_keeps_the_cap() {
    let mut p = sh("yes 0123456789");
    p.limits.output_bytes = 100_000;
    let out = run(&p);
    assert_eq!(out.ending, Ending::OutputLimit);
    assert_eq!(out.stdout.len(), 100_000);
    assert!(out.output_bytes > 100_000);
}

#[test]
fn cancel_kills_the_run() {
    let cancel = CancelToken::new();
    let c = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        c.cancel(beaker_core::CancelReason::Cancelled);
    });
    let out = jail().run(&sh("sleep 30"), &cancel).expect("runs");
    assert_eq!(out.ending, Ending::Cancelled);
}

#[test]
fn the_host_is_out_of_sight_and_out_of_reach() {
    let script = r#"
        ls /root /home /etc/passwd /work 2>/dev/null && echo SEEN-HOST-FILES
        touch /usr/x 2>/dev/null && echo WROTE-USR
        touch /x 2>/dev/null && echo WROTE-ROOT
        touch /tmp/x && echo wrote-tmp
        ls /proc | grep -c '^[0-9]' 
        cat /proc/1/comm
        hostname
        id -u
    "#;
    let out = run(&sh(script));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("SEEN-HOST-FILES"), "{stdout}");
    assert!(!stdout.contains("WROTE"), "{stdout}");
    assert!(stdout.contains("wrote-tmp"), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    // Only the sandbox's own processes: bwrap's init, the shell, ls and grep at most.
    let pids: u32 = lines[1].trim().parse().expect("a count");
    assert!(pids <= 5, "{stdout}");
    assert!(lines[2].contains("bwrap"), "{stdout}");
    assert_eq!(lines[3], "sandbox");
    assert_ne!(lines[4], "0", "runs as root in the sandbox");
}

#[test]
fn there_is_no_network() {
    let out = run(&sh(
        "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; exec 3<>/dev/tcp/1.1.1.1/53 && echo CONNECTED",
    ));
    let stdout = text(&out.stdout);
    // Only the loopback device, down.
    assert_eq!(stdout.trim(), "lo", "{stdout}");
    assert!(!stdout.contains("CONNECTED"));
}

#[test]
fn a_fork_bomb_hits_the_process_limit_and_the_deadline() {
    let mut p = sh("b() { b | b & }; b; sleep 1; echo alive");
    p.limits.processes = 32;
    p.limits.wall = Duration::from_secs(3);
    let out = run(&p);
    // The host is fine: this returns, and the next run works.
    assert!(
        matches!(out.ending, Ending::Exited | Ending::TimedOut),
        "{out:?}"
    );
    assert_eq!(run(&sh("echo ok")).stdout, b"ok\n");
}

#[test]
fn the_address_space_limit_holds() {
    let mut p = sh("x=$(head -c 300000000 /dev/zero | tr '\\0' a); echo ${#x}");
    p.limits.address_space = Some(64 << 20);
    let out = run(&p);
    assert_ne!(text(&out.stdout).trim(), "300000000", "{out:?}");
}

#[test]
fn files_past_the_size_limit_are_cut() {
    let mut p = sh("head -c 2000000 /dev/zero > /tmp/big; echo $?; wc -c < /tmp/big");
    p.limits.file_bytes = 1 << 20;
    let out = run(&p);
    let stdout = text(&out.stdout);
    assert!(stdout.ends_with("1048576\n"), "{stdout}");
}

#[test]
fn ptrace_is_refused_and_no_capability_is_left() {
    let script = r#"
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.ptrace(0, 0, 0, 0), ctypes.get_errno())
print([l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0])
"#;
    let out = run(&Program {
        argv: vec!["/usr/bin/python3".into(), "-c".into(), script.into()],
        ..Program::default()
    });
    assert_eq!(
        text(&out.stdout),
        format!("-1 {}\n0000000000000000\n", libc::EPERM),
        "{out:?}"
    );
}

#[test]
fn denied_syscalls_fail_with_eperm() {
    // unshare(1) calls unshare(2), which the filter (and --disable-userns) refuses.
    let out = run(&sh("unshare -U true; echo $?"));
    assert_ne!(text(&out.stdout).trim(), "0", "{out:?}");
}

#[test]
fn groups_of_ended_processes_are_removed_and_others_kept() {
    let parent = tempfile::tempdir().expect("tempdir");
    // No process has pid 4194304 (past Linux's pid_max of 2^22).
    let dead = parent.path().join("run-4194304-0");
    let mine = parent.path().join(format!("run-{}-0", std::process::id()));
    let other = parent.path().join("something-else");
    for d in [&dead, &mine, &other] {
        std::fs::create_dir(d).expect("mkdir");
    }
    remove_stale_groups(parent.path());
    assert!(!dead.exists());
    assert!(mine.exists() && other.exists());
}

#[test]
fn a_reused_memory_group_measures_each_run_alone() {
    let jail = jail();
    if jail.memory.is_none() {
        eprintln!("no writable memory cgroup here (not root, or no cgroup v1): nothing to check");
        return;
    }
    let mut big = sh("head -c 50000000 /dev/zero > /tmp/fill; echo done");
    big.limits.memory_bytes = Some(1 << 30);
    let mut small = sh("echo small");
    small.limits.memory_bytes = Some(1 << 30);
    let first = run_in(&jail, &big).peak_memory_bytes.unwrap_or(0);
    // Let the group go back to the pool, emptied, and be taken again.
    std::thread::sleep(Duration::from_millis(300));
    let second = run_in(&jail, &small).peak_memory_bytes.unwrap_or(u64::MAX);
    assert!(first > 45_000_000, "the 50 MB file in /tmp counts: {first}");
    assert!(
        second < 20_000_000,
        "the first run's pages are not the second's: {second}"
    );
}

fn run_in(jail: &Jail, program: &Program) -> Outcome {
    jail.run(program, &CancelToken::new()).expect("runs")
}

#[test]
fn nothing_of_a_run_outlives_it() {
    let jail = jail();
    if jail.pids.is_none() {
        eprintln!("no writable pids cgroup here: processes are ended by the pid namespace alone");
    }
    let out = run_in(
        &jail,
        &sh("(setsid sleep 31.337 &); (nohup sleep 31.337 >/dev/null 2>&1 &); echo started"),
    );
    assert_eq!(out.stdout, b"started\n");
    std::thread::sleep(Duration::from_millis(300));
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("31.337"))
        .collect();
    assert!(survivors.is_empty(), "{survivors:?}");
}

#[test]
fn runs_are_not_root_on_the_host() {
    let jail = std::sync::Arc::new(jail());
    let j = jail.clone();
    let run = std::thread::spawn(move || run_in(&j, &sh("sleep 1.4142")));
    std::thread::sleep(Duration::from_millis(500));
    let uids: Vec<u32> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("1.4142"))
        })
        .filter_map(|e| {
            use std::os::unix::fs::MetadataExt;
            std::fs::metadata(e.path()).ok().map(|m| m.uid())
        })
        .collect();
    run.join().expect("run");
    assert!(!uids.is_empty());
    let me = rustix::process::geteuid().as_raw();
    let want = jail.sandbox_uid().unwrap_or(me);
    assert!(
        uids.iter()
            .all(|&u| u == want && u != 0 || me != 0 && u == me),
        "{uids:?}"
    );
}
