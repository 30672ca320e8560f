"""Beaker's warm launcher: pid 1 of a native sandbox, it forks one child per run (see beaker-jail's warm.rs).

Started as `python -B warm.py CTL MODULES`: CTL is the descriptor of a SOCK_SEQPACKET socket to Beaker, MODULES
the comma-separated modules to import once, before the first run, so that runs find them imported. It answers
`{"ready": ...}`, then serves one run at a time:

    Beaker -> launcher   {"run", "mode": "exec"|"python", "report", "argv", "env", "cwd", "files": [[name, size,
                         mode]], "limits"} with descriptors: stdin, stdout, stderr, the files' bytes one after
                         another[, the binary (exec) or the report pipe (python with "report"), as descriptor 3]
    Beaker -> launcher   b"kill:RUN" (the deadline, a cancel or the output cap: run RUN is killed)
    launcher -> Beaker   {"status": wait status, "cpu_us", "killed", "retire"}

After each run every process left in the sandbox is killed (this process is pid 1 of its pid namespace, so
kill(-1) reaches all of them and nothing else), and /tmp, /dev/shm and System V IPC objects are emptied, so
that no run sees what another left. This process is not dumpable: a run, which has the same user, cannot read
or write its memory through /proc or ptrace (which the seccomp filter forbids besides).
"""

import atexit
import builtins
import ctypes
import io
import json
import os
import resource
import select
import signal
import socket
import sys
import types

CTL = int(sys.argv[1])
PRELOAD = [m for m in sys.argv[2].split(",") if m] if len(sys.argv) > 2 else []
LIMITS = {
    "as": resource.RLIMIT_AS,
    "cpu": resource.RLIMIT_CPU,
    "fsize": resource.RLIMIT_FSIZE,
    "nofile": resource.RLIMIT_NOFILE,
    "nproc": resource.RLIMIT_NPROC,
    "core": resource.RLIMIT_CORE,
}
# Runs retired after this many, whatever happens: what one run could leave behind does not pile up for ever.
RUNS_PER_LAUNCHER = 1000
LIBC = ctypes.CDLL(None, use_errno=True)


def main():
    LIBC.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 0
    # pid 1 gets no signal from inside its namespace that it has no handler for: none is left installed.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    failed = []
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception as e:  # a module the venv lacks: runs that import it fail as CPython would
            failed.append(f"{name}: {type(e).__name__}: {e}")
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
    if not clean():
        raise SystemExit("beaker: the sandbox is not clean at start")
    # What the launcher holds is never collected in a child: a collection there would touch every object and
    # copy every page of them (fork's copy-on-write), which is most of a run's cost (CPython's advice for forking
    # servers: freeze before fork).
    import gc
    gc.freeze()
    ctl = socket.socket(fileno=CTL)
    fork_spare(ctl)
    ctl.send(json.dumps({"ready": True, "failed": failed}).encode())
    runs = 0
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, 1 << 16, 8)
        except OSError:
            os._exit(0)
        if not msg:
            os._exit(0)  # Beaker closed its end
        if msg.startswith(b"kill:") or runs >= RUNS_PER_LAUNCHER:
            for fd in fds:
                os.close(fd)
            continue  # meant for a run that is over
        runs += 1
        reply = serve(ctl, json.loads(msg), fds)
        if reply["retire"]:
            runs = RUNS_PER_LAUNCHER
        reply["retire"] = runs >= RUNS_PER_LAUNCHER
        # A retired launcher waits for Beaker to close its end (its unread messages would otherwise reset the
        # connection before Beaker reads the reply).
        ctl.send(json.dumps(reply).encode())
        if not reply["retire"]:
            fork_spare(ctl)


# Whether the spare warms up what a Python run touches (for launchers whose runs are Python scripts).
WARM_UP = os.environ.get("BEAKER_WARM_UP") == "1"

# The next run's child, forked ahead while the launcher is idle: (pid, socket its run comes on), or None.
SPARE = None


def fork_spare(ctl):
    """Forks the next run's child before its request comes, and has it do first what every run does (the pages
    a run writes are copied from the launcher's on first write: copied now, they are off the run's clock)."""
    global SPARE
    ours, its = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            ctl.close()
            prepare()
            msg, fds, _, _ = socket.recv_fds(its, 1 << 16, 8)
            if not msg:
                os._exit(0)
            its.close()
            child(json.loads(msg), fds, prepared=True)
        except BaseException:
            os._exit(127)
    its.close()
    SPARE = (pid, ours)


def prepare():
    """What every run's child does before its request matters: its own session, dumpable again, the first to
    go when memory runs out, and a warm-up of what a Python run touches (stdio objects, the compiler, exec)."""
    LIBC.prctl(4, 1, 0, 0, 0)  # dumpable again: the run's /proc/self is its own (the launcher's stays closed)
    os.setsid()
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")  # the run, not the launcher, is what the kernel kills when the sandbox is out of memory
    if WARM_UP:
        null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
        sink = io.TextIOWrapper(io.BufferedWriter(io.FileIO(null, "w")), encoding="utf-8")
        scope = {"__builtins__": builtins, "sink": sink}
        exec(compile("s = str(2**100)\nprint(s, [s], {1: s}, file=sink)\n", "<warm-up>", "exec"), scope)
        sink.close()
        dict(os.environ)


def serve(ctl, req, fds):
    """One run: its child forked (or the spare one given the run) and waited for, everything it left removed."""
    # The run's files are written by its child, never read into this process's memory: every later run is a
    # copy of it (a review read an earlier run's source there).
    # What this process holds now does not count against a Python run's address space (see child()).
    req["launcher_bytes"] = address_space()
    global SPARE
    pid = None
    if SPARE is not None:
        spare, sock = SPARE
        SPARE = None
        try:
            socket.send_fds(sock, [json.dumps(req).encode()], fds)
            pid = spare
        except OSError:
            os.kill(spare, signal.SIGKILL)
            os.waitpid(spare, 0)
        sock.close()
    if pid is None:
        pid = os.fork()
        if pid == 0:
            child(req, fds)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    killed = False
    retire = False
    while True:
        ready, _, _ = select.select([pidfd, ctl], [], [])
        if pidfd in ready:
            break
        msg = ctl.recv(64)
        if not msg:
            os._exit(0)  # Beaker is gone: so is the sandbox (pid 1's exit ends every process in it)
        if msg == f"kill:{req['run']}".encode() and not killed:
            killed = True
            os.kill(pid, signal.SIGKILL)
    os.close(pidfd)
    _, status, usage = os.wait4(pid, 0)
    try:
        retire = not clean()
    except BaseException as e:
        # Something a run left cannot be removed (a tree too deep, a name too long): this launcher serves no
        # other run, and its sandbox goes with it.
        os.write(2, f"beaker: cleaning up after a run: {type(e).__name__}: {e}\n".encode())
        retire = True
    cpu = int((usage.ru_utime + usage.ru_stime) * 1e6)
    return {"status": status, "cpu_us": cpu, "killed": killed, "retire": retire}


def write_files(files, bundle):
    """The run's files, read one after another from `bundle`, created in /tmp (names are checked by Beaker)."""
    for name, size, mode in files:
        path = os.path.join("/tmp", name)
        parent = os.path.dirname(path)
        if parent != "/tmp":
            os.makedirs(parent, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
        try:
            left = size
            while left:
                chunk = os.read(bundle, min(left, 1 << 20))
                if not chunk:
                    raise OSError("the files' bytes ended early")
                os.write(fd, chunk)
                left -= len(chunk)
        finally:
            os.close(fd)


# The folders runs write to, as the sandbox made them (mode, owner): a run may not leave them otherwise.
WRITABLE = ("/tmp", "/dev/shm")
PRISTINE = {}


def clean():
    """Kills and reaps every process but this one, then empties what a run can write to. False when something
    is left that this process cannot remove (a descriptor parked in a socket keeps its file, its socket's name
    and its memory until the sandbox ends): the launcher then retires."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    if not PRISTINE:
        PRISTINE.update({top: os.lstat(top) for top in WRITABLE if os.path.isdir(top)})
    for top, was in PRISTINE.items():
        now = os.lstat(top)
        if (now.st_ino, now.st_dev) != (was.st_ino, was.st_dev):
            return False
        if now.st_mode != was.st_mode:
            os.chmod(top, was.st_mode & 0o7777)
        empty(top)
        st = os.statvfs(top)
        if st.f_bfree != st.f_blocks:
            return False  # space still held by an unlinked file someone keeps open
    for kind, remove in (("shm", lambda i: LIBC.shmctl(i, 0, None)),
                         ("sem", lambda i: LIBC.semctl(i, 0, 0)),
                         ("msg", lambda i: LIBC.msgctl(i, 0, None))):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            remove(int(line.split()[1]))  # IPC_RMID
    # A Unix socket left in the sandbox's network namespace outlived every process: descriptors parked in it
    # (only Unix sockets carry descriptors, so a parked TCP socket shows here too). /proc/net/tcp is not read:
    # the kernel walks the host's whole TCP table for it (3 ms here).
    with open("/proc/net/unix") as f:
        return len(f.read().splitlines()) <= 1


def empty(folder):
    """Removes everything in `folder`, links not followed, without recursion (a run may leave a tree deeper
    than Python's recursion limit)."""
    stack, folders = [folder], []
    while stack:
        with os.scandir(stack.pop()) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    os.chmod(e.path, 0o700)
                    stack.append(e.path)
                    folders.append(e.path)
                else:
                    os.unlink(e.path)
    for f in reversed(folders):  # children before their parents
        os.rmdir(f)


def child(req, fds, prepared=False):
    """In the forked child: becomes the run (never returns)."""
    try:
        if not prepared:
            prepare()
        for i, fd in enumerate(fds[:3]):
            os.dup2(fd, i)  # received descriptors are all above 2: none is overwritten
        write_files(req["files"], fds[3])
        first_free = 3
        binary = None
        if len(fds) > 4:
            # The binary to exec, or (python mode with "report") the report pipe: descriptor 3, closed on exec.
            kept = os.dup2(fds[4], 3, inheritable=False)
            binary = kept if req["mode"] == "exec" else None
            first_free = 4
        os.closerange(first_free, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        os.chdir(req["cwd"])
        limits = req["limits"]
        if req["mode"] == "python" and "as" in limits:
            # What this process holds already (the preloaded modules) does not count against the run.
            limits = dict(limits, **{"as": limits["as"] + req["launcher_bytes"]})
        for key, value in limits.items():
            resource.setrlimit(LIMITS[key], (value, value))
        if req["mode"] == "exec":
            # As a shell starts a program: the signals Python ignores are the program's to take.
            for s in (signal.SIGPIPE, signal.SIGXFSZ):
                signal.signal(s, signal.SIG_DFL)
            os.execve(binary if binary is not None else req["argv"][0], req["argv"], req["env"])
        run_python(req)
    except BaseException as e:
        try:
            os.write(2, f"beaker: the run could not start: {type(e).__name__}: {e}\n".encode())
        finally:
            os._exit(127)


def address_space():
    """This process's address space in bytes (VmSize)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run_python(req):
    """Runs the script req["argv"][1] as `python SCRIPT ARGS` would: its own __main__, sys.argv and sys.path[0],
    stdio as CPython makes it for pipes, SystemExit and uncaught exceptions reported the same way."""
    script = req["argv"][1]
    os.environ.clear()
    os.environ.update(req["env"])
    sys.argv = req["argv"][1:]
    sys.path[0] = os.path.dirname(script)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.stdin = sys.__stdin__ = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                                 encoding="utf-8", errors="strict")
    sys.stdout = sys.__stdout__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                                   encoding="utf-8", errors="strict")
    sys.stderr = sys.__stderr__ = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                                   encoding="utf-8", errors="backslashreplace",
                                                   line_buffering=True)
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()  # the legacy global generator, seeded afresh as at a first import
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = builtins
    main.__cached__ = None
    sys.modules["__main__"] = main
    code = 0
    try:
        with open(script, "rb") as f:
            source = f.read()
        exec(compile(source, script, "exec", dont_inherit=True), main.__dict__)
    except SystemExit as e:
        code = exit_code(e)
    except BaseException as e:
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code is run_python.__code__:
            tb = tb.tb_next
        try:
            sys.excepthook(type(e), e.with_traceback(tb), tb)  # the hook prints the exception's own traceback
        except BaseException:
            pass
        code = 130 if isinstance(e, KeyboardInterrupt) else 1
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
        atexit._run_exitfuncs()
    except SystemExit as e:
        code = exit_code(e)
    except BaseException:
        pass
    try:
        sys.stdout.flush()
    except BaseException:
        code = 120  # as CPython when stdout cannot be flushed at exit
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


def exit_code(e):
    """The exit status of a SystemExit, as CPython's handle_system_exit gives it."""
    if e.code is None:
        return 0
    if isinstance(e.code, int):
        return e.code & 0xFF
    try:
        sys.stderr.write(f"{e.code}\n")
        sys.stderr.flush()
    except BaseException:
        pass
    return 1


if __name__ == "__main__":
    main()
