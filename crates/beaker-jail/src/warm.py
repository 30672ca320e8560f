"""Beaker's warm launcher: pid 1 of a native sandbox, it forks one child per run (see beaker-jail's warm.rs).

Started as `python -B warm.py CTL MODULES`: CTL is the descriptor of a SOCK_SEQPACKET socket to Beaker, MODULES
the comma-separated modules to import once, before the first run, so that runs find them imported.

The launcher forks the next run's child ahead (the spare) and hands Beaker a socket to it: Beaker gives the run
to the spare directly, and a Python run says it is over there, so a run crosses no process but its own.

    launcher -> Beaker   {"ready", "failed", "spare": N} with the spare's socket
    Beaker -> spare      {"mode": "exec"|"python", "report", "argv", "env", "cwd", "files": [[name, size,
                         mode]], "limits"} with descriptors: stdin, stdout, stderr, the files' bytes one after
                         another[, the binary (exec) or the report pipe (python with "report"), as descriptor 3]
    spare -> Beaker      b"done:STATUS:CPU_US" (a Python run, once its script is over)
    Beaker -> launcher   b"kill:N" (the deadline, a cancel or the output cap), b"over:N" (the run said done)
    launcher -> Beaker   {"status": wait status, "cpu_us", "killed", "spare": N}   (spare N's process ended)
    launcher -> Beaker   {"idle": true, "retire", "spare": N + 1} with the next spare's socket, once it has
                         cleaned up after the run

After each run every process left in the sandbox is killed (this process is pid 1 of its pid namespace, so
kill(-1) reaches all of them and nothing else), and /tmp, /dev/shm and System V IPC objects are emptied, so
that no run sees what another left. Beaker gives no run to a spare before the message that hands it over.

A Python run is over when its script is (its stdio flushed and closed, its exit status known), not when its
process has exited: the exit of a process forked from a launcher holding a scientific stack unmaps all of it,
which is most of a short run's time. A run can write "done" too: it can only end itself early, with a status it
could have exited with (and the CPU time it says, which Beaker only reports).

This process is not dumpable: a run, which has the same user, cannot read or write its memory through /proc or
ptrace (which the seccomp filter forbids besides).
"""

import atexit
import builtins
import ctypes
import fcntl
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
    spare = fork_spare(ctl, 1)
    hand_over(ctl, {"ready": True, "failed": failed}, spare)
    runs = 0
    while True:
        serve(ctl, spare)
        runs += 1
        retire = not settle() or runs >= RUNS_PER_LAUNCHER
        if retire:
            # A retired launcher waits for Beaker to close its end (its unread messages would otherwise reset
            # the connection before Beaker reads this).
            ctl.send(json.dumps({"idle": True, "retire": True}).encode())
            while ctl.recv(64):
                pass
            os._exit(0)
        spare = fork_spare(ctl, spare[1] + 1)
        hand_over(ctl, {"idle": True, "retire": False}, spare)


def hand_over(ctl, message, spare):
    """Says `message` to Beaker with the spare's socket, whose end this process then closes (Beaker then sees
    the spare's end when the spare ends)."""
    pid, number, sock = spare
    message["spare"] = number
    socket.send_fds(ctl, [json.dumps(message).encode()], [sock.fileno()])
    sock.close()


# Whether the spare warms up what a Python run touches (for launchers whose runs are Python scripts).
WARM_UP = os.environ.get("BEAKER_WARM_UP") == "1"

# The inodes of the last spare's socket pair: Beaker may still hold its end while the launcher cleans up.
SPARE_SOCKETS = set()


def fork_spare(ctl, number):
    """Forks the next run's child before its run comes, and has it do first what every run does (the pages a
    run writes are copied from the launcher's on first write: copied now, they are off the run's clock).
    Returns (its pid, its number, the socket its run comes on)."""
    ours, its = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    SPARE_SOCKETS.clear()
    SPARE_SOCKETS.update(str(os.fstat(s.fileno()).st_ino) for s in (ours, its))
    prepared, say_prepared = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            ctl.close()
            os.close(prepared)
            launcher_bytes = address_space()
            prepare()
            os.close(say_prepared)
            msg, fds, _, _ = socket.recv_fds(its, 1 << 16, 8)
            if not msg:
                os._exit(0)
            child(dict(json.loads(msg), launcher_bytes=launcher_bytes), fds, its.detach())
        except BaseException:
            os._exit(127)
    its.close()
    # Handed over once prepared: a run given to a spare still warming up would wait for it.
    os.close(say_prepared)
    os.read(prepared, 1)
    os.close(prepared)
    return pid, number, ours


def prepare():
    """What every run's child does before its request matters: its own session, dumpable again, the first to
    go when memory runs out, and a warm-up of what a Python run touches (stdio objects, the compiler, exec)."""
    LIBC.prctl(4, 1, 0, 0, 0)  # dumpable again: the run's /proc/self is its own (the launcher's stays closed)
    os.setsid()
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")  # the run, not the launcher, is what the kernel kills when the sandbox is out of memory
    if "numpy" in sys.modules:
        # The legacy global generator, seeded afresh as at a first import (each spare is a run of its own).
        sys.modules["numpy"].random.seed()
    # A run's environment is its own (a Python run's is set from its request; exec passes it).
    os.environ.clear()
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if WARM_UP:
        # The pages a first execution writes (the interpreter's inline caches, the allocator's pools) are copied
        # here rather than on the run's clock.
        os.environ.update({"BEAKER_WARM_UP": "1"})
        os.environ.clear()
        r, w = os.pipe2(os.O_CLOEXEC)
        sink_in, sink, _ = stdio(r, w, w)
        scope = {"__builtins__": builtins, "sink": sink}
        exec(compile("s = str(2**100)\nprint(s, [s], {1: s}, file=sink)\n", "<warm-up>", "exec"), scope)
        sink.flush()
        sink_in.readline()
        os.close(r)
        os.close(w)
        types.ModuleType("__main__")


def serve(ctl, spare):
    """Waits until the spare's run is over: its process ended (said to Beaker) or it said "done" (Beaker says
    "over"). The run's own messages go to Beaker, never through this process."""
    pid, number, _ = spare
    pidfd = os.pidfd_open(pid)
    killed = False
    while True:
        ready, _, _ = select.select([pidfd, ctl], [], [])
        if pidfd in ready:
            _, status, usage = os.wait4(pid, 0)
            cpu = int((usage.ru_utime + usage.ru_stime) * 1e6)
            reply = {"status": status, "cpu_us": cpu, "killed": killed, "spare": number}
            ctl.send(json.dumps(reply).encode())
            break
        msg = ctl.recv(64)
        if not msg:
            os._exit(0)  # Beaker is gone: so is the sandbox (pid 1's exit ends every process in it)
        if msg == f"over:{number}".encode():
            break  # killed and reaped with the rest by settle()
        if msg == f"kill:{number}".encode() and not killed:
            killed = True
            os.kill(pid, signal.SIGKILL)
        # anything else is meant for a run that is over
    os.close(pidfd)


def settle():
    """Cleans up after a run; False when the launcher must retire."""
    try:
        return clean()
    except BaseException as e:
        # Something a run left cannot be removed (a tree too deep, a name too long): this launcher serves no
        # other run, and its sandbox goes with it.
        os.write(2, f"beaker: cleaning up after a run: {type(e).__name__}: {e}\n".encode())
        return False


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
    # the kernel walks the host's whole TCP table for it (3 ms here). The last spare's own pair is not counted:
    # Beaker closes its end when it has read the run's end, which may come after this.
    with open("/proc/net/unix") as f:
        left = [line.split() for line in f.read().splitlines()[1:]]
    return all(len(line) > 6 and line[6] in SPARE_SOCKETS for line in left)


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


# A Python run's socket to the launcher, where it says it is done (see the module's doc).
DONE = None


def child(req, fds, done):
    """In the spare, once its run came: becomes the run (never returns)."""
    global DONE
    try:
        # Above every descriptor the moves below write to (received ones may take the lowest free numbers).
        done = fcntl.fcntl(done, fcntl.F_DUPFD_CLOEXEC, 16)
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
        if req["mode"] == "python":
            DONE = os.dup2(done, first_free, inheritable=False)
            first_free += 1
            # Only the run's own process ends the run: a child it forks that finishes the script (returns
            # through run_python) must not say "done" for it, so the socket is closed in every fork.
            global RUN_PID
            RUN_PID = os.getpid()
            os.register_at_fork(after_in_child=forget_done)
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
    os.environ.clear()  # empty since prepare()
    os.environ.update(req["env"])
    sys.argv = req["argv"][1:]
    sys.path[0] = os.path.dirname(script)
    sys.stdin, sys.stdout, sys.stderr = stdio(0, 1, 2)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
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
    say_done(code)
    os._exit(code)


# The run's own process (a fork of it is not the run).
RUN_PID = None


def forget_done():
    """In a process the run forks: no "done" from here."""
    global DONE
    if DONE is not None:
        try:
            os.close(DONE)
        except OSError:
            pass
        DONE = None


def say_done(code):
    """Ends the run before the process's exit: every descriptor but DONE closed (Beaker's pipes end now), then
    the status and CPU time said to the launcher. Only from the run's own process."""
    if DONE is None or os.getpid() != RUN_PID:
        return
    try:
        os.closerange(0, DONE)
        os.closerange(DONE + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        own = resource.getrusage(resource.RUSAGE_SELF)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime
        os.write(DONE, f"done:{code & 0xFF}:{int(cpu * 1e6)}".encode())
    except BaseException:
        pass


def stdio(i, o, e):
    """Text streams over descriptors i, o and e as CPython makes sys.stdin, sys.stdout and sys.stderr for
    pipes."""
    return (io.TextIOWrapper(io.BufferedReader(io.FileIO(i, "r", closefd=False)), encoding="utf-8",
                             errors="strict"),
            io.TextIOWrapper(io.BufferedWriter(io.FileIO(o, "w", closefd=False)), encoding="utf-8",
                             errors="strict"),
            io.TextIOWrapper(io.BufferedWriter(io.FileIO(e, "w", closefd=False)), encoding="utf-8",
                             errors="backslashreplace", line_buffering=True))


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
