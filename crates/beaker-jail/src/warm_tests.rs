//! Warm launchers: the same contract as cold runs (verdicts, limits, kills), and no run sees what another left.

use super::tests::{sh, text};
use super::*;
use crate::warm::TAKING_TURNS;
use std::sync::OnceLock;

/// One jail for all these tests, so its launchers are reused from test to test, as a server reuses them. One
/// launcher of a kind at a time (no background start of a second): a test's runs of its own kind follow one
/// another in one launcher, so the next run is the one that would see what the last left.
fn jail() -> &'static Jail {
    static JAIL: OnceLock<Jail> = OnceLock::new();
    JAIL.get_or_init(|| {
        let mut jail = Jail::discover()
            .expect("bubblewrap is installed (.ci/run installs it) and user namespaces work");
        jail.taking_turns = 1;
        jail
    })
}

/// A launcher run by Debian's Python, importing nothing more.
fn plain() -> Warm {
    Warm {
        python: "/usr/bin/python3".into(),
        preload: vec!["json".into()],
        mounts: Vec::new(),
        env: Vec::new(),
        tmpfs_bytes: 64 << 20,
        processes: 64,
    }
}

fn python(code: &str) -> Program {
    Program {
        argv: vec!["python3".into(), "/tmp/main.py".into()],
        files: vec![("main.py".into(), code.as_bytes().to_vec(), false)],
        ..Program::default()
    }
}

fn exec(p: &Program) -> Outcome {
    jail()
        .run_warm(&plain(), p, Start::Exec(None), &CancelToken::new())
        .expect("runs")
}

fn py(p: &Program) -> Outcome {
    jail()
        .run_warm(
            &plain(),
            p,
            Start::Python { report: false },
            &CancelToken::new(),
        )
        .expect("runs")
}

#[test]
fn a_program_reads_stdin_and_its_files_and_exits_with_its_code() {
    let mut p = sh("read x; echo \"got $x\"; cat /tmp/data.txt >&2; exit 3");
    p.stdin = b"42\n".to_vec();
    p.files
        .push(("data.txt".into(), b"file text".to_vec(), false));
    let out = exec(&p);
    assert_eq!(out.ending, Ending::Exited);
    assert_eq!(out.exit_code, Some(3), "{out:?} {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "got 42\n");
    assert_eq!(text(&out.stderr), "file text");
}

#[test]
fn a_signal_is_reported_as_a_shell_reports_it_and_sigpipe_is_the_programs() {
    assert_eq!(
        exec(&sh("kill -SEGV $$")).exit_code,
        Some(128 + libc::SIGSEGV)
    );
    // The launcher (Python) ignores SIGPIPE; a program started from it must not.
    let out = exec(&sh("yes | head -c 1 >/dev/null; echo ${PIPESTATUS:-done}"));
    assert_eq!(out.exit_code, Some(0), "{out:?}");
}

#[test]
fn a_python_script_runs_as_cpython_runs_it() {
    let out = py(&python(
        "import sys\nprint(__name__, sys.argv, sys.path[0])\nx = input()\nprint(int(x) * 2)\nsys.exit(4)",
    ));
    let mut p = python("import sys\nprint(__name__, sys.argv, sys.path[0])\nx = input()\nprint(int(x) * 2)\nsys.exit(4)");
    p.stdin = b"21\n".to_vec();
    let out2 = py(&p);
    assert_eq!(out2.exit_code, Some(4), "{out2:?}");
    assert_eq!(text(&out2.stdout), "__main__ ['/tmp/main.py'] /tmp\n42\n");
    // No stdin: input() raises EOFError, reported as CPython reports an uncaught exception.
    assert_eq!(out.exit_code, Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(
            "Traceback (most recent call last):\n  File \"/tmp/main.py\", line 3, in <module>"
        ),
        "{err}"
    );
    assert!(
        err.ends_with("EOFError: EOF when reading a line\n"),
        "{err}"
    );
}

#[test]
fn a_python_syntax_error_and_exit_messages_are_cpythons() {
    let out = py(&python("x = (\n"));
    assert_eq!(out.exit_code, Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("  File \"/tmp/main.py\", line 1\n"),
        "{err}"
    );
    assert!(err.contains("SyntaxError: '(' was never closed"), "{err}");
    let out = py(&python("raise SystemExit('bye')"));
    assert_eq!(
        (out.exit_code, text(&out.stderr)),
        (Some(1), "bye\n".into())
    );
    let out = py(&python("import os\nprint('buffered', end='')\nos._exit(0)"));
    // os._exit skips the flush, as in CPython writing to a pipe.
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn nothing_of_one_run_is_seen_by_the_next() {
    let first = exec(&sh(
        "echo secret > /tmp/left; mkdir -p /tmp/d/e; echo x > /dev/shm/shm-left; (setsid sleep 31.4159 &); echo ok",
    ));
    assert_eq!(text(&first.stdout), "ok\n", "{first:?}");
    for _ in 0..3 {
        let next = exec(&sh(
            "ls -A /tmp /dev/shm; ps -eo comm= 2>/dev/null || ls /proc | grep -c '^[0-9]'",
        ));
        let seen = text(&next.stdout);
        assert!(!seen.contains("left") && !seen.contains("sleep"), "{seen}");
    }
}

#[test]
fn the_launcher_cannot_be_read_or_signalled_by_a_run() {
    let out = exec(&sh(
        "head -c 16 /proc/1/mem >/dev/null 2>&1 && echo READ-MEM; ls -l /proc/1/fd >/dev/null 2>&1 && echo READ-FD; \
         kill -INT 1; kill -TERM 1; kill -KILL 1; echo sent",
    ));
    assert_eq!(text(&out.stdout), "sent\n", "{out:?}");
    // The launcher survived: the next run is served.
    assert_eq!(text(&exec(&sh("echo alive")).stdout), "alive\n");
}

#[test]
fn a_run_past_its_deadline_is_killed_with_everything_it_started() {
    let mut p = sh("(sleep 30 &) ; echo started; sleep 30");
    p.limits.wall = Duration::from_millis(300);
    let t = Instant::now();
    let out = exec(&p);
    assert_eq!(out.ending, Ending::TimedOut);
    assert_eq!(out.exit_code, None);
    assert_eq!(text(&out.stdout), "started\n");
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(text(&exec(&sh("echo next")).stdout), "next\n");
}

#[test]
fn output_past_the_cap_kills_the_run_and_keeps_the_cap() {
    let mut p = sh("yes 0123456789");
    p.limits.output_bytes = 100_000;
    let out = exec(&p);
    assert_eq!(out.ending, Ending::OutputLimit);
    assert_eq!(out.stdout.len(), 100_000);
    assert_eq!(text(&exec(&sh("echo next")).stdout), "next\n");
}

#[test]
fn cancel_kills_the_run() {
    let cancel = CancelToken::new();
    let c = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        c.cancel(beaker_core::CancelReason::Cancelled);
    });
    let out = jail()
        .run_warm(&plain(), &sh("sleep 30"), Start::Exec(None), &cancel)
        .expect("runs");
    assert_eq!(out.ending, Ending::Cancelled);
}

#[test]
fn a_python_run_is_held_to_its_address_space_above_the_launchers() {
    let mut p = python("b = bytearray(400 << 20)\nprint('allocated')");
    p.limits.address_space = Some(200 << 20);
    let out = py(&p);
    assert_eq!(out.exit_code, Some(1), "{out:?}");
    assert!(text(&out.stderr).contains("MemoryError"), "{out:?}");
    let mut p = python("b = bytearray(100 << 20)\nprint('allocated')");
    p.limits.address_space = Some(200 << 20);
    assert_eq!(text(&py(&p).stdout), "allocated\n");
}

#[test]
fn a_binary_the_sandbox_cannot_see_runs_by_descriptor() {
    let binary = std::fs::File::open("/bin/echo").expect("echo");
    let p = Program {
        argv: vec!["echo".into(), "by".into(), "descriptor".into()],
        ..Program::default()
    };
    let out = jail()
        .run_warm(&plain(), &p, Start::Exec(Some(binary)), &CancelToken::new())
        .expect("runs");
    assert_eq!(text(&out.stdout), "by descriptor\n", "{out:?}");
}

#[test]
fn a_fork_bomb_hits_the_process_limit_and_the_launcher_lives_on() {
    let mut p = sh("b() { b | b & }; b; sleep 1; echo alive");
    p.limits.wall = Duration::from_secs(3);
    let out = exec(&p);
    assert!(
        matches!(out.ending, Ending::Exited | Ending::TimedOut),
        "{out:?}"
    );
    assert_eq!(text(&exec(&sh("echo next")).stdout), "next\n");
}

#[test]
fn ipc_objects_of_one_run_are_gone_for_the_next_and_message_queues_refused() {
    let make = python(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n\
         print(libc.shmget(0x6265616b, 4096, 0o1666) >= 0)\n\
         libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]\n\
         print(libc.mq_open(b'/beaker', 0o100 | 2, 0o666, None), ctypes.get_errno())\n",
    );
    assert_eq!(
        text(&py(&make).stdout),
        format!("True\n-1 {}\n", libc::EPERM)
    );
    let look = python(
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nprint(libc.shmget(0x6265616b, 0, 0))\n",
    );
    for _ in 0..3 {
        assert_eq!(text(&py(&look).stdout), "-1\n");
    }
}

#[test]
fn a_python_driver_reports_on_descriptor_3_apart_from_the_programs_output() {
    let p = python(
        "import os, subprocess\nprint('out')\nos.write(3, b'{\"report\": 1}')\n\
         r = subprocess.run(['sh', '-c', 'echo x >&3'], capture_output=True)\nprint(r.returncode)\n",
    );
    let out = jail()
        .run_warm(
            &plain(),
            &p,
            Start::Python { report: true },
            &CancelToken::new(),
        )
        .expect("runs");
    assert_eq!(text(&out.report), "{\"report\": 1}");
    // Closed on exec: a program the driver starts cannot write the report.
    assert_eq!(text(&out.stdout), "out\n2\n", "{out:?}");
}

/// A launcher kind of its own, so that one test's runs follow one another in one launcher whatever the other
/// tests run at the same time.
fn own(tag: &str) -> Warm {
    let mut w = plain();
    w.env.push(("BEAKER_TEST_KIND".into(), tag.into()));
    w
}

fn run_in_own(warm: &Warm, p: &Program, start: Start) -> Outcome {
    jail()
        .run_warm(warm, p, start, &CancelToken::new())
        .expect("runs")
}

#[test]
fn dev_cannot_be_changed_for_the_next_run() {
    // A review replaced /dev/stdin and /dev/stdout with files of its own: the next run read them.
    let w = own("dev");
    let attack = sh("rm -f /dev/stdin /dev/stdout 2>/dev/null; echo x > /dev/planted 2>/dev/null; \
                     head -c 200000000 /dev/zero > /dev/shm/fill 2>/dev/null; ls /dev/stdin /dev/planted 2>&1 | head -2");
    let out = run_in_own(&w, &attack, Start::Exec(None));
    assert!(text(&out.stdout).contains("/dev/stdin"), "{out:?}");
    assert!(!text(&out.stdout).contains("/dev/planted\n"), "{out:?}");
    let mut victim = sh("cat /dev/stdin; ls /dev/shm | wc -l");
    victim.stdin = b"mine\n".to_vec();
    assert_eq!(
        text(&run_in_own(&w, &victim, Start::Exec(None)).stdout),
        "mine\n0\n"
    );
}

#[test]
fn the_launchers_memory_keeps_nothing_of_a_runs_files() {
    // A review found the previous run's source in its own memory, a copy of the launcher's.
    let w = own("memory");
    let secret = "TOPSECRET-of-the-run-before";
    let mut first = python("print('first')");
    // Big enough to be malloc's, not pymalloc's: freed, its bytes stay where they were.
    first
        .files
        .push(("data.txt".into(), secret.repeat(400).into_bytes(), false));
    run_in_own(&w, &first, Start::Python { report: false });
    let scan = python(
        "import re\nneedle = re.compile(rb'TOPSECRET-of-the-run-befor[e]')  # never the secret's bytes itself\nfound = False\nwith open('/proc/self/maps') as m, open('/proc/self/mem', 'rb', 0) as mem:\n\
         \x20   for line in m:\n\
         \x20       a, b = (int(x, 16) for x in line.split()[0].split('-'))\n\
         \x20       if 'r' not in line.split()[1] or b - a > 1 << 28: continue\n\
         \x20       try:\n\
         \x20           mem.seek(a); found |= needle.search(mem.read(b - a)) is not None\n\
         \x20       except OSError: pass\nprint(found)\n",
    );
    let out = run_in_own(&w, &scan, Start::Python { report: false });
    assert_eq!(text(&out.stdout), "False\n", "{out:?}");
}

#[test]
fn descriptors_parked_in_sockets_do_not_outlive_their_run() {
    // A review parked an unlinked file and a listening socket in a pair of sockets referring to each other.
    let w = own("parked");
    let park = python(
        "import os, socket\na, b = socket.socketpair()\nfd = os.open('/tmp/big', os.O_CREAT | os.O_RDWR)\n\
         os.write(fd, b'x' * (8 << 20))\nos.unlink('/tmp/big')\n\
         s = socket.socket(socket.AF_UNIX)\ns.bind('\\0squat')\ns.listen()\n\
         socket.send_fds(a, [b'x'], [fd, s.fileno(), a.fileno(), b.fileno()])\nprint('parked')\n",
    );
    assert_eq!(
        text(&run_in_own(&w, &park, Start::Python { report: false }).stdout),
        "parked\n"
    );
    let look = python(
        "import os, socket\nst = os.statvfs('/tmp')\nprint((st.f_blocks - st.f_bfree) * st.f_frsize < 1 << 20)\n\
         s = socket.socket(socket.AF_UNIX)\ns.bind('\\0squat')\nprint('bound')\n",
    );
    let out = run_in_own(&w, &look, Start::Python { report: false });
    assert_eq!(text(&out.stdout), "True\nbound\n", "{out:?}");
}

#[test]
fn a_run_cannot_close_tmp_to_the_next() {
    let w = own("chmod");
    run_in_own(
        &w,
        &sh("chmod 555 /tmp /dev/shm 2>/dev/null; echo done"),
        Start::Exec(None),
    );
    let mut next = sh("cat /tmp/in.txt; echo more > /tmp/out && echo wrote");
    next.files
        .push(("in.txt".into(), b"given\n".to_vec(), false));
    let out = run_in_own(&w, &next, Start::Exec(None));
    assert_eq!(text(&out.stdout), "given\nwrote\n", "{out:?}");
}

#[test]
fn a_deep_folder_tree_is_removed_and_the_launcher_lives() {
    let w = own("deep");
    let deep = python(
        "import os\nos.chdir('/tmp')\nfor i in range(1500):\n    os.mkdir('d')\n    os.chdir('d')\nprint('deep')\n",
    );
    let out = run_in_own(&w, &deep, Start::Python { report: false });
    assert_eq!(
        (out.exit_code, text(&out.stdout)),
        (Some(0), "deep\n".into()),
        "{out:?}"
    );
    let out = run_in_own(&w, &sh("ls -A /tmp | wc -l"), Start::Exec(None));
    assert_eq!(text(&out.stdout), "0\n", "{out:?}");
}

#[test]
fn a_run_cannot_change_the_launchers_limits_or_scheduling() {
    // A review lowered pid 1's limits with prlimit: every later run of the launcher inherited them.
    let w = own("prlimit");
    let attack = python(
        "import os, resource as R\nout = []\n\
         for f in (lambda: R.prlimit(1, R.RLIMIT_NOFILE, (64, 64)), lambda: R.prlimit(1, R.RLIMIT_DATA, (12 << 20, 12 << 20)),\n\
                   lambda: os.setpriority(os.PRIO_PROCESS, 1, 19), lambda: os.sched_setaffinity(1, {0}),\n\
                   lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))):\n\
         \x20   try:\n\
         \x20       f(); out.append('changed')\n\
         \x20   except OSError:\n\
         \x20       out.append('refused')\n\
         R.setrlimit(R.RLIMIT_NOFILE, (256, 256))\nos.setpriority(os.PRIO_PROCESS, 0, 5)\nprint(out)\n",
    );
    let out = run_in_own(&w, &attack, Start::Python { report: false });
    assert_eq!(
        text(&out.stdout),
        "['refused', 'refused', 'refused', 'refused', 'refused']\n",
        "{out:?}"
    );
    let look = python("import os, resource as R\nprint(R.getrlimit(R.RLIMIT_NOFILE)[1] > 256, os.getpriority(os.PRIO_PROCESS, 0))\n");
    assert_eq!(
        text(&run_in_own(&w, &look, Start::Python { report: false }).stdout),
        "True 0\n"
    );
}

#[test]
fn a_launcher_that_died_idle_is_replaced_without_failing_the_run() {
    // The second review: a launcher the kernel killed while idle answered its next run `internal` or 137.
    let w = own("died-idle");
    assert_eq!(
        text(&run_in_own(&w, &sh("echo one"), Start::Exec(None)).stdout),
        "one\n"
    );
    let jail = jail();
    // Its clean-up over, so that it is idle, not settling, when it is killed.
    let taken = jail.launchers.take(&w);
    assert!(taken.is_some());
    if let Some((l, _)) = taken {
        jail.launchers.keep(&w, l);
    }
    jail.launchers.kill_idle(&w);
    let out = run_in_own(&w, &python("print('two')"), Start::Python { report: false });
    assert_eq!(
        (out.exit_code, text(&out.stdout)),
        (Some(0), "two\n".into()),
        "{out:?}"
    );
}

#[test]
fn a_python_run_that_says_done_ends_there_and_nonsense_is_not_taken() {
    // The run's end comes on its own socket to Beaker: a run can write there, but only ends itself with a
    // status it could have exited with; anything else on it is not a status.
    let w = own("done");
    let socket_fds = "import os, stat\nfds = []\nfor f in os.listdir('/proc/self/fd'):\n    try:\n        fds += [int(f)] if stat.S_ISSOCK(os.fstat(int(f)).st_mode) else []\n    except OSError:\n        pass\n";
    let early = python(&format!(
        "{socket_fds}print('before', flush=True)\nfor fd in fds: os.write(fd, b'done:7:0')\nimport time\ntime.sleep(30)\nprint('after')\n"
    ));
    let mut early = early;
    early.limits.wall = Duration::from_secs(10);
    let out = run_in_own(&w, &early, Start::Python { report: false });
    assert_eq!(
        (out.ending, out.exit_code, text(&out.stdout)),
        (Ending::Exited, Some(7), "before\n".into()),
        "{out:?}"
    );
    assert!(out.wall < Duration::from_secs(10), "{out:?}");
    let nonsense = python(&format!(
        "{socket_fds}for fd in fds: os.write(fd, b'done:0:x')\nprint('on')\nraise SystemExit(3)\n"
    ));
    let out = run_in_own(&w, &nonsense, Start::Python { report: false });
    assert_eq!(
        (out.exit_code, text(&out.stdout)),
        (Some(3), "on\n".into()),
        "{out:?}"
    );
    // And the launcher serves on.
    let out = run_in_own(&w, &sh("echo next"), Start::Exec(None));
    assert_eq!(text(&out.stdout), "next\n", "{out:?}");
}

#[test]
fn runs_one_after_another_get_launchers_that_take_turns_and_no_more() {
    // A jail of its own: the shared one keeps one launcher a kind.
    let jail = Jail::discover().expect("the jail works");
    let w = own("turns");
    for i in 0..40 {
        let out = jail
            .run_warm(
                &w,
                &python(&format!("print({i})")),
                Start::Python { report: false },
                &CancelToken::new(),
            )
            .expect("runs");
        assert_eq!(text(&out.stdout), format!("{i}\n"), "{out:?}");
    }
    // Background starts end within a launcher's start time.
    std::thread::sleep(Duration::from_secs(2));
    let n = jail.launchers.count(&w);
    assert!((1..=TAKING_TURNS).contains(&n), "{n} launchers");
}

#[test]
fn a_forked_child_that_finishes_the_script_does_not_end_the_run() {
    // The third review: the child inherited the run's socket and its `done` ended the run with its status.
    let w = own("fork-done");
    let p = python(
        "import os, sys, time\nif os.fork() == 0:\n    print('child', flush=True)\n    sys.exit(3)\ntime.sleep(0.3)\nos.wait()\nprint('parent finished')\n",
    );
    let out = run_in_own(&w, &p, Start::Python { report: false });
    assert_eq!(
        (out.exit_code, text(&out.stdout)),
        (Some(0), "child\nparent finished\n".into()),
        "{out:?}"
    );
}
