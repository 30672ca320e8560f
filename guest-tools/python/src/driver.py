# The execute_python driver, compiled once into the interpreter (at wizer
# pre-initialisation when the host snapshots, else lazily on the first run).
# main.rs calls run(code, stdin, test, max_output_bytes) and serialises the
# 9-tuple it returns; see guest-tools/README.md for the ABI.
#
# Nothing here may read the environment or draw random numbers at import time:
# a snapshot would freeze them. run() reseeds `random` on every call.

import sys
import builtins
import io
import os
import types
import ast
import linecache
import traceback
import random
import gc

# Modules user code commonly imports, loaded now so that the snapshot holds them.
# A module missing from this build only costs its entry here.
_PRELOAD = (
    "abc array base64 binascii bisect calendar cmath codecs collections "
    "collections.abc colorsys contextlib copy copyreg csv dataclasses datetime "
    "decimal difflib enum errno fractions functools gc hashlib heapq hmac html "
    "inspect itertools json keyword locale math numbers operator pprint queue "
    "re reprlib shlex statistics string struct textwrap time timeit token "
    "tokenize typing unicodedata uuid warnings weakref zlib"
).split()
PRELOADED = []
for _name in _PRELOAD:
    try:
        __import__(_name)
        PRELOADED.append(_name)
    except BaseException:
        pass
del _name

# Keep our own references: user code may rebind module attributes.
_ModuleType = types.ModuleType
_StringIO = io.StringIO
_seed = random.seed
_extract_tb = traceback.extract_tb
_format_list = traceback.format_list
_format_exception_only = traceback.format_exception_only
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


class _BinaryOut:
    """sys.stdout.buffer: bytes are decoded as UTF-8 into the same capture."""

    def __init__(self, text):
        self._text = text

    def write(self, b):
        self._text.write(bytes(b).decode("utf-8", "replace"))
        return _len(b)

    def flush(self):
        pass

    def writable(self):
        return True

    def readable(self):
        return False

    def isatty(self):
        return False


class _TextOut:
    """sys.stdout / sys.stderr: write() is a native function appending to a
    capped buffer in main.rs (a Python-level write made print() loops ~3x slower)."""

    encoding = "utf-8"
    errors = "strict"
    newlines = None
    line_buffering = False
    closed = False

    def __init__(self, write, name):
        # An instance attribute: called as write(s), without binding self.
        self.write = write
        self.name = name
        self.mode = "w"
        self.buffer = _BinaryOut(self)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

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
    """(type, message, line, traceback) of an uncaught exception."""
    try:
        tb = _extract_tb(exc.__traceback__)
    except BaseException:
        tb = []
    frames = [f for f in tb if f.filename in ("<code>", "<test>")]
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
    if _isinstance(exc, RecursionError):
        # Raised by the native-stack guard, RustPython's message can be empty.
        message = message.strip() or "maximum recursion depth exceeded"
    parts = []
    try:
        if frames:
            parts.append("Traceback (most recent call last):\n")
            parts.extend(_format_list(frames))
        parts.extend(_format_exception_only(_type(exc), exc))
        text = "".join(parts)
    except BaseException:
        text = _type(exc).__name__ + ": " + message + "\n"
    name = _type(exc).__name__
    return (name, _clip(message, cap, state), line, _clip(text, cap, state))


def _compile_cell(code):
    """(code object, returns_value) for the user's code; see compile_cell in main.rs."""
    return _beaker_compile_cell(code)


def _os_exit(status):
    """os._exit(n). CPython ends the process at once; here the run ends as
    sys.exit(n) would, so what was printed is kept and the exit is reported as
    the program's (SystemExit with its status), not as a lost answer."""
    raise SystemExit(status)


def _exit_is_success(exc):
    return _isinstance(exc, SystemExit) and exc.code in (None, 0)


def run(seed, code, stdin, test, cap):
    """Run one request (seed: bytes from WASI random_get).

    Returns (result, exc_type, exc_message, exc_line, exc_traceback, phase,
    clipped); stdout and stderr are in main.rs's buffers, reset by the caller.
    """
    # Per-call entropy: the snapshot froze the generator state.
    _seed(int.from_bytes(seed, "big"))

    stdout = _TextOut(_beaker_write_stdout, "<stdout>")
    stderr = _TextOut(_beaker_write_stderr, "<stderr>")
    stdin_file = _StringIO(stdin if stdin is not None else "")
    _sys.stdout = _sys.__stdout__ = stdout
    _sys.stderr = _sys.__stderr__ = stderr
    _sys.stdin = _sys.__stdin__ = stdin_file
    _sys.argv = [""]
    os._exit = _os_exit

    main = _ModuleType("__main__")
    g = main.__dict__
    g["__builtins__"] = builtins
    _sys.modules["__main__"] = main

    state = [False]
    result = None
    exc_info = None
    phase = None

    _register_source("<code>", code)
    try:
        body, returns_value = _compile_cell(code)
        # eval() of a code object runs it and returns what it returns: for a
        # cell ending in an expression, that expression's value.
        v = _eval(body, g)
        if returns_value and v is not None:
            result = _repr(v)
    except BaseException as e:
        if not _exit_is_success(e):
            exc_info = _describe(e, cap, state)
            phase = "code"
    if exc_info is None and test is not None:
        _register_source("<test>", test)
        try:
            _exec(_compile(test, "<test>", "exec"), g)
        except BaseException as e:
            if not _exit_is_success(e):
                exc_info = _describe(e, cap, state)
                phase = "test"

    result = _clip(result, cap, state)
    if exc_info is None:
        exc_info = (None, None, None, None)
    return (
        result,
        exc_info[0],
        exc_info[1],
        exc_info[2],
        exc_info[3],
        phase,
        state[0],
    )


# Everything loaded so far survives every run: move it out of the collector's
# reach so that a collection during a run only walks the run's own objects.
gc.collect()
gc.freeze()
