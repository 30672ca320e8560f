"""execute_python's native backend: one call's code run as a notebook cell in a warm launcher's child (see
beaker-code's `native.rs`), reported in the shape of the WebAssembly driver's report.

The request is /tmp/.beaker-cell.json ({"code", "cap", "fetch_files", "workspace", "workspace_cap"}), read and
removed before the code runs, as is this file. In a trajectory, "workspace" holds its files (path -> base64),
written into /tmp, the working folder, before the code runs; what the code made, changed or deleted there is
reported back as the WebAssembly driver reports its /work. The program's stdin, stdout and stderr are the
process's own (what it prints reaches Beaker as it is printed, so a run stopped at its deadline keeps it). The
report goes to descriptor 3, which is closed on exec, as one JSON object: {"result", "exception", "phase",
"truncated", "figures", "files", "files_omitted", "workspace"}.
Its helpers (exit_status, user_frames, describe, compile_cell, figures, fetch) follow the WebAssembly driver's
(crates/beaker-python/src/driver.py) line for line, so the two backends answer alike; they are copies because
that driver is frozen into the runtime's snapshot, whose rebuild a shared module would force.

The report describes the program's own process, which the program could rewrite: it is an account of a run,
not a verdict (verdicts are execute_code's `tests`, compared outside the sandbox).
"""

import ast
import atexit
import base64
import json
import linecache
import os
import sys
import traceback
import types

REPORT_FD = 3


def clip(s, cap, state):
    """s as valid UTF-8 text of at most cap bytes; state[0] set when cut."""
    if s is None:
        return None
    b = s.encode("utf-8", "replace")
    if len(b) > cap:
        b = b[:cap]
        state[0] = True
    return b.decode("utf-8", "ignore")


def exit_status(exc):
    """(status, printed) of a SystemExit as CPython's own exit gives them."""
    code = exc.code
    if code is None:
        return 0, None
    if isinstance(code, int):
        v = int.__index__(code)
        if not -(1 << 63) <= v < (1 << 63):
            v = -1
        return v & 0xFF, None
    try:
        printed = str(code)
    except BaseException:
        printed = ""
    return 1, printed


def user_frames(te):
    """The TracebackException with only the frames of the user's code, in it and in what is chained to it."""
    seen = set()
    todo = [te]
    while todo:
        t = todo.pop()
        if t is None or id(t) in seen:
            continue
        seen.add(id(t))
        t.stack = traceback.StackSummary.from_list([f for f in t.stack if f.filename == "<code>"])
        todo.append(t.__cause__)
        todo.append(t.__context__)
        todo.extend(getattr(t, "exceptions", None) or ())
    return te


def describe(exc, cap, state):
    """{type, message, line, traceback[, exit]} of an uncaught exception, the user's frames only."""
    try:
        tb = traceback.extract_tb(exc.__traceback__)
    except BaseException:
        tb = []
    line = None
    for f in reversed(tb):
        if f.filename == "<code>":
            line = f.lineno
            break
    is_syntax = isinstance(exc, SyntaxError)
    if line is None and is_syntax and getattr(exc, "filename", None) == "<code>":
        line = exc.lineno
    try:
        message = str(exc.msg) if is_syntax and exc.msg is not None else str(exc)
    except BaseException:
        message = "<exception str() failed>"
    try:
        text = "".join(user_frames(traceback.TracebackException.from_exception(exc)).format())
    except BaseException:
        text = type(exc).__name__ + ": " + message + "\n"
    out = {"type": type(exc).__name__, "message": clip(message, cap, state), "line": line,
           "traceback": clip(text, cap, state)}
    if isinstance(exc, SystemExit):
        status, printed = exit_status(exc)
        out["exit"] = {"status": status, "printed": clip(printed, cap, state)}
    return out


def compile_cell(code):
    """(body, last expression or None): a cell whose last statement is an expression returns its value."""
    tree = compile(code, "<code>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body.pop()
        return (compile(tree, "<code>", "exec", dont_inherit=True),
                compile(ast.Expression(last.value), "<code>", "eval", dont_inherit=True))
    return compile(tree, "<code>", "exec", dont_inherit=True), None


def figures(cap, state):
    """Every open matplotlib figure as a base64 PNG at 100 dpi, then closed."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None or not plt.get_fignums():
        return []
    out = []
    try:
        for num in plt.get_fignums():
            import io
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", dpi=100)
            data = base64.b64encode(buf.getvalue()).decode("ascii")
            if len(data) > cap:
                state[0] = True
                continue
            cap -= len(data)
            out.append(data)
    finally:
        plt.close("all")
    return out


def fetch(names, cap):
    """`fetch_files`: each named file of the working folder as base64, within `cap` bytes in all."""
    out, omitted = {}, []
    for name in names or []:
        path = os.path.normpath(os.path.join("/tmp", name))
        if not (path == "/tmp" or path.startswith("/tmp/")) or not os.path.isfile(path):
            omitted.append({"name": name, "why": "no such file in /tmp"})
            continue
        with open(path, "rb") as f:
            enc = base64.b64encode(f.read(cap + 1)).decode("ascii")
        if len(enc) > cap:
            omitted.append({"name": name, "why": "past the output limit (max_output_bytes)"})
            continue
        cap -= len(enc)
        out[name] = enc
    return out, omitted


def load_workspace(files):
    """The trajectory's files (path -> base64) into /tmp; returns path -> (size, mtime_ns, bytes) as written."""
    loaded = {}
    for name, enc in (files or {}).items():
        path = os.path.normpath(os.path.join("/tmp", name))
        if not path.startswith("/tmp/") or os.path.basename(path).startswith(".beaker-"):
            continue
        data = base64.b64decode(enc)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        st = os.stat(path)
        loaded[path[5:]] = (st.st_size, st.st_mtime_ns, data)
    return loaded


def workspace_changes(loaded, cap):
    """Files under /tmp the code made or changed (base64, within `cap` bytes) and workspace files it deleted."""
    written, deleted, refused = {}, [], []
    found = []
    for root, dirs, names in os.walk("/tmp"):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.extend(os.path.join(root, name)[5:] for name in names)
    # In path order, as the WebAssembly driver reports (and spends `cap`).
    found.sort()
    seen = set()
    for rel in found:
        path = "/tmp/" + rel
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        seen.add(rel)
        st = os.stat(path)
        was = loaded.get(rel)
        if was is not None and was[0] == st.st_size and was[1] == st.st_mtime_ns:
            continue
        with open(path, "rb") as f:
            data = f.read(cap + 1)
        if was is not None and was[2] == data:
            continue
        enc = base64.b64encode(data).decode("ascii")
        if len(enc) > cap:
            refused.append({"path": rel, "why": "larger than the workspace can hold (its max_bytes)"})
            continue
        cap -= len(enc)
        written[rel] = enc
    for rel in sorted(loaded):
        if rel not in seen:
            deleted.append(rel)
    return {"written": written, "deleted": deleted, "refused": refused}


def main():
    with open("/tmp/.beaker-cell.json", "rb") as f:
        req = json.loads(f.read())
    os.unlink("/tmp/.beaker-cell.json")
    os.unlink(__file__)
    code = req.get("code") or ""
    cap = int(req.get("cap") or (1 << 20))
    loaded = load_workspace(req.get("workspace")) if req.get("workspace") is not None else None
    sys.argv = [""]
    sys.path[0] = "/tmp"
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    main_module = types.ModuleType("__main__")
    main_module.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main_module
    state = [False]
    result = exception = phase = None
    try:
        body, value = compile_cell(code)
        exec(body, main_module.__dict__)
        if value is not None:
            v = eval(value, main_module.__dict__)
            if v is not None:
                result = repr(v)
    except BaseException as e:
        if not (isinstance(e, SystemExit) and exit_status(e)[0] == 0):
            exception = describe(e, cap, state)
            phase = "code"
    try:
        figs = figures(cap, state)
    except BaseException:
        figs = []
    fetched = None
    if req.get("fetch_files") is not None:
        try:
            fetched = fetch(req.get("fetch_files"), cap)
        except BaseException:
            fetched = ({}, [])
    changes = None
    if loaded is not None:
        try:
            changes = workspace_changes(loaded, int(req.get("workspace_cap") or cap))
        except BaseException:
            changes = {"written": {}, "deleted": [], "refused": [{"path": "*", "why": "could not be read back"}]}
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()  # as CPython waits for the program's threads at exit
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    report = {
        "result": clip(result, cap, state),
        "exception": exception,
        "phase": phase,
        "truncated": state[0],
        "figures": figs,
        "files": None if fetched is None else fetched[0],
        "files_omitted": None if fetched is None else fetched[1],
        "workspace": changes,
    }
    data = json.dumps(report).encode()
    while data:
        data = data[os.write(REPORT_FD, data):]
    os.close(REPORT_FD)
    # The cell is over: the launcher ends the run from here (its "done", without waiting for this process's
    # exit). Exit handlers the code registered do not run, as in the WebAssembly driver's interpreter.
    atexit._clear()


main()
