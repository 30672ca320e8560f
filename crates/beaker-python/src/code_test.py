# code_test's guest side, run once after driver.py and before the snapshot.
#
# A test's verdict must not be something the program can forge: a program that runs in an interpreter can
# reach everything in it (the driver's globals, the reactor that runs each turn, frames, the collector), so no
# verdict decided in that interpreter can be trusted. code_test therefore uses two interpreters per test:
#
#   - the program's (P): a fresh instance runs the code (`_program_main`, mode "program"), then answers
#     requests, one turn each (`__beaker_rpc`): the names the code defined, calls, attributes and operators;
#   - the test's (T): a fresh instance that never runs a line of the program. It runs the test (`_test_main`,
#     mode "test") with every name the code defined bound to a `_Remote`, a proxy whose calls and operators
#     travel through the door (`_host.call`) to the host, which runs them as turns of P.
#
# Values cross the door as data (`_enc`/`_dec`): plain values (None, bool, int, float, complex, str, bytes,
# list, tuple, dict, set, range, slices, Fraction, Decimal, numpy arrays and scalars of numeric types) are
# rebuilt exactly in T, where the test compares them with T's own, untouched `==`; anything else stays in P and
# T holds a handle to it (an object of the program's own class compares by its own methods, as under pytest).
# T never evaluates text P sends, and P never sees the test, only the calls the test makes: a program cannot
# read the expected values, cannot touch the interpreter that decides, and an exit in P fails the test.

import operator as _operator
from fractions import Fraction as _QFraction
from decimal import Decimal as _QDecimal

try:
    import _host

    _host_call = _host.call
except BaseException:
    _host_call = None

# Deepest plain value sent whole; deeper parts travel as handles (P) or are refused (T).
_MAX_DEPTH = 100
# numpy dtypes rebuilt from bytes (no object or structured arrays: those stay handles).
_NP_DTYPES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 complex64 complex128".split()
)
_tuple = tuple
_list = list
_dict = dict
_set = set
_frozenset = frozenset
_range = range
_slice = slice
_bytes = bytes
_bytearray = bytearray
_int = int
_float = float
_complex = complex
_bool = bool
_object_setattr = object.__setattr__
_issubclass = issubclass
_getattr = getattr
_ModuleType_ = _ModuleType


class _TooDeep(Exception):
    pass


class _Unsendable(TypeError):
    pass


def _enc(v, handle, depth=0):
    """v as JSON-able data: plain values by value, anything else as `handle(v)`."""
    t = _type(v)
    if v is None or t is _bool:
        return v
    if t is _int:
        return {"i": format(v, "x")}
    if t is _float:
        return {"f": _repr(v)}
    if t is _str:
        return {"s": v}
    if t is _complex:
        return {"c": [_repr(v.real), _repr(v.imag)]}
    if t is _bytes:
        return {"b": _b64encode(v).decode("ascii")}
    if t is _bytearray:
        return {"ba": _b64encode(_bytes(v)).decode("ascii")}
    if depth >= _MAX_DEPTH:
        return handle(v)
    d = depth + 1
    if t is _list:
        return {"l": [_enc(x, handle, d) for x in v]}
    if t is _tuple:
        return {"t": [_enc(x, handle, d) for x in v]}
    if t is _dict:
        return {"d": [[_enc(k, handle, d), _enc(x, handle, d)] for k, x in v.items()]}
    if t is _set:
        return {"set": [_enc(x, handle, d) for x in v]}
    if t is _frozenset:
        return {"fs": [_enc(x, handle, d) for x in v]}
    if t is _range:
        return {"range": [_enc(v.start, handle, d), _enc(v.stop, handle, d), _enc(v.step, handle, d)]}
    if t is _slice:
        return {"slice": [_enc(v.start, handle, d), _enc(v.stop, handle, d), _enc(v.step, handle, d)]}
    if v is Ellipsis:
        return {"ellipsis": 1}
    if t is _QFraction:
        return {"q": [format(v.numerator, "x"), format(v.denominator, "x")]}
    if t is _QDecimal:
        return {"dec": _str(v)}
    if _np is not None:
        if t is _np.ndarray and v.dtype.name in _NP_DTYPES:
            a = _np.ascontiguousarray(v)
            return {"nd": [a.dtype.name, _list(a.shape), _b64encode(a.tobytes()).decode("ascii")]}
        if _isinstance(v, _np.generic) and t.__module__ == "numpy" and v.dtype.name in _NP_DTYPES:
            return {"ns": [v.dtype.name, _b64encode(v.tobytes()).decode("ascii")]}
    return handle(v)


def _dec(x, handle, depth=0):
    """The value `x` (from `_enc`) stands for; `handle(x)` rebuilds a handle. Anything malformed raises."""
    if x is None or _type(x) is _bool:
        return x
    if _type(x) is not _dict or _len(x) < 1 or depth > _MAX_DEPTH + 1:
        raise ValueError("unreadable value")
    d = depth + 1
    if "i" in x:
        return _int(x["i"], 16)
    if "f" in x:
        return _float(x["f"])
    if "s" in x:
        s = x["s"]
        if _type(s) is not _str:
            raise ValueError("unreadable string")
        return s
    if "c" in x:
        return _complex(_float(x["c"][0]), _float(x["c"][1]))
    if "b" in x:
        return _b64decode(x["b"])
    if "ba" in x:
        return _bytearray(_b64decode(x["ba"]))
    if "l" in x:
        return [_dec(i, handle, d) for i in _items(x["l"])]
    if "t" in x:
        return _tuple(_dec(i, handle, d) for i in _items(x["t"]))
    if "d" in x:
        out = {}
        for pair in _items(x["d"]):
            k, v = _items(pair)
            out[_dec(k, handle, d)] = _dec(v, handle, d)
        return out
    if "set" in x:
        return {_dec(i, handle, d) for i in _items(x["set"])}
    if "fs" in x:
        return _frozenset(_dec(i, handle, d) for i in _items(x["fs"]))
    if "range" in x:
        a, b, c = (_dec(i, handle, d) for i in _items(x["range"]))
        return _range(a, b, c)
    if "slice" in x:
        a, b, c = (_dec(i, handle, d) for i in _items(x["slice"]))
        return _slice(a, b, c)
    if "ellipsis" in x:
        return Ellipsis
    if "q" in x:
        return _QFraction(_int(x["q"][0], 16), _int(x["q"][1], 16))
    if "dec" in x:
        return _QDecimal(_str(x["dec"]))
    if "nd" in x and _np is not None:
        dtype, shape, data = x["nd"]
        if dtype not in _NP_DTYPES or not all(_type(n) is _int and n >= 0 for n in shape):
            raise ValueError("unreadable array")
        raw = _b64decode(data)
        a = _np.frombuffer(raw, dtype=dtype)
        return a.reshape(_tuple(shape)).copy()
    if "ns" in x and _np is not None:
        dtype, data = x["ns"]
        if dtype not in _NP_DTYPES:
            raise ValueError("unreadable scalar")
        return _np.frombuffer(_b64decode(data), dtype=dtype)[0]
    return handle(x)


def _items(v):
    if _type(v) is not _list:
        raise ValueError("unreadable list")
    return v


# ---------------------------------------------------------------------------------------------------------
# The program's interpreter (P).

_PROGRAM = {"main": None, "handles": []}


def _p_handle(v):
    handles = _PROGRAM["handles"]
    handles.append(v)
    out = {"h": _len(handles) - 1, "type": _type(v).__name__}
    if _isinstance(v, _ModuleType_):
        out["module"] = _getattr(v, "__name__", None)
    return out


def _p_value(x):
    def handle(x):
        if "h" in x:
            return _PROGRAM["handles"][x["h"]]
        if "sympy" in x:
            import sympy

            return sympy.sympify(x["sympy"])
        raise ValueError("unreadable value")

    return _dec(x, handle)


def _p_enc(v):
    return _enc(v, _p_handle)


def _exit_text(e):
    if _isinstance(e, SystemExit):
        try:
            return "SystemExit(" + _repr(e.code) + ")"
        except BaseException:
            return "SystemExit"
    return _type(e).__name__


def _code_line(e):
    """The innermost line of the program's code in an exception's traceback, or None."""
    try:
        tb = _extract_tb(e.__traceback__)
    except BaseException:
        return None
    for f in reversed(tb):
        if f.filename == "<code>":
            return f.lineno
    return None


def _p_raised(e):
    try:
        message = _str(e)
    except BaseException:
        message = "<exception str() failed>"
    t = _type(e)
    try:
        args = _enc(_tuple(e.args), _p_unsendable)
    except BaseException:
        args = None
    # The nearest class of its MRO that is a genuine builtin exception (a class merely named `ValueError`
    # is not one): the test's stand-in derives from it, so `except ValueError` catches a subclass of it.
    base = "Exception"
    for c in t.__mro__:
        if _getattr(builtins, _getattr(c, "__name__", ""), None) is c and _issubclass(c, BaseException):
            base = c.__name__
            break
    return {
        "type": t.__name__,
        "base": base,
        "args": args,
        "message": message[:4096],
        "line": _code_line(e),
    }


def _p_unsendable(v):
    raise _Unsendable(_type(v).__name__)


_OPS = {
    name: _getattr(_operator, name)
    for name in (
        "add sub mul truediv floordiv mod pow matmul and_ or_ xor lshift rshift eq ne lt le gt ge "
        "getitem setitem delitem contains neg pos abs invert truth"
    ).split()
}
_OPS.update(
    {
        "len": len,
        "iter": iter,
        "repr": repr,
        "str": str,
        "hash": hash,
        "int": int,
        "float": float,
        "index": _operator.index,
        "round": round,
        "divmod": divmod,
        "isinstance": isinstance,
        "issubclass": issubclass,
        "format": format,
    }
)


# Containers a call may change in place: their new contents go back to the test's copies.
_IN_PLACE = (_list, _dict, _set, _bytearray)


def _p_changed(args):
    """What each argument now holds, for the arguments a call may have changed in place (None for the rest)."""
    return [_p_enc(a) if _type(a) in _IN_PLACE else None for a in args]


def _p_answer(req):
    op = req["op"]
    if op == "names":
        g = _PROGRAM["main"].__dict__
        names = [[{"s": k}, _p_handle(v)] for k, v in _list(g.items()) if not (k.startswith("__") and k.endswith("__"))]
        return {"ok": {"d": names}}
    if op == "next":
        it = _p_value(req["args"][0])
        try:
            return {"ok": _p_enc(next(it))}
        except StopIteration:
            return {"stop": True}
    if op == "call":
        target = _p_value(req["target"])
        args = [_p_value(a) for a in req["args"]]
        kwargs = {k: _p_value(v) for k, v in req["kwargs"].items()}
        result = target(*args, **kwargs)
        return {"ok": _p_enc(result), "args": _p_changed(args)}
    if op == "getattr":
        return {"ok": _p_enc(_getattr(_p_value(req["target"]), req["name"]))}
    if op == "setattr":
        setattr(_p_value(req["target"]), req["name"], _p_value(req["value"]))
        return {"ok": None}
    if op == "delattr":
        delattr(_p_value(req["target"]), req["name"])
        return {"ok": None}
    fn = _OPS.get(op)
    if fn is None:
        raise ValueError("unknown request " + _repr(op))
    args = [_p_value(a) for a in req["args"]]
    result = fn(*args)
    return {"ok": _p_enc(result), "args": _p_changed(args)}


class _Discard:
    """Where the program's prints go while it answers the test's requests (code_test reports no output)."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, s):
        return _len(s)

    def flush(self):
        pass

    def isatty(self):
        return False

    @property
    def buffer(self):
        return self


_DISCARD = _Discard()


def __beaker_rpc(request):
    """One request of the test's interpreter, as a turn of the program's: the answer is the turn's report."""
    try:
        req = _loads(_b64decode(request))
    except BaseException as e:
        _write_report({"raise": {"type": "ValueError", "base": "ValueError", "args": None, "message": _str(e), "line": None}})
        return
    saved = (_sys.stdout, _sys.stderr)
    _sys.stdout = _sys.stderr = _DISCARD
    _STREAMS[1] = _STREAMS[2] = _DISCARD
    _sys.modules["__main__"] = _PROGRAM["main"]
    try:
        answer = _p_answer(req)
    except (SystemExit, KeyboardInterrupt, GeneratorExit) as e:
        answer = {"exit": _exit_text(e)}
    except BaseException as e:
        answer = {"raise": _p_raised(e)}
    _sys.stdout, _sys.stderr = saved
    _sys.modules["__main__"] = _DRIVER_MAIN
    # ASCII JSON: a string with lone surrogates crosses exactly (as \\udXXX escapes), not as "?".
    try:
        data = _dumps(answer, ensure_ascii=True, allow_nan=False).encode("ascii")
    except BaseException as e:
        data = _dumps({"raise": {"type": _type(e).__name__, "args": None, "message": _str(e), "line": None}}).encode("ascii")
    _write_all(1, data + _len(data).to_bytes(4, "little") + b"\xffBKR")


def _program_main(req):
    """code_test's first turn in the program's interpreter: run the code in `__main__` and keep that module for
    the test's requests. The report says whether the code raised or exited (either fails the test)."""
    code = req.get("code") or ""
    cap = int(req.get("max_output_bytes") or (1 << 20))
    _reseed()
    _VFS.clear()
    _VFS_MADE.clear()
    _set_streams(_DISCARD, _DISCARD, "")
    main = _ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    _PROGRAM["main"] = main
    _sys.modules["__main__"] = main
    _register_source("<code>", code)
    state = [False]
    exception = None
    exited = None
    try:
        _exec(_compile(code, "<code>", "exec"), main.__dict__)
    except (SystemExit, KeyboardInterrupt, GeneratorExit) as e:
        exited = _exit_text(e)
    except BaseException as e:
        exception = _describe(e, cap, state)
    _restore_streams()
    _write_report({"exception": exception, "exit": exited})


# ---------------------------------------------------------------------------------------------------------
# The test's interpreter (T). Nothing here runs the program's code; what P answers is data, read by `_dec`.


class _ProgramExited(BaseException):
    """The program exited (SystemExit, os._exit, KeyboardInterrupt) while it answered the test."""


class _ProgramStopped(BaseException):
    """The program's interpreter was stopped (a limit, a trap) or answered something unreadable."""


_REMOTE_CLASSES = {}

# How the program's interpreter ended while this test ran (an exit, a stop), remembered so that a test that
# catches what was raised (`except BaseException`) still fails: an exit is never a pass.
_ENDED = [None]


def _remote_class(name, base):
    """A stand-in for an exception class the program raised that T has no copy of: named like it, derived from
    its nearest builtin base (an `Exception` one; exits are handled apart)."""
    key = (name, base)
    cls = _REMOTE_CLASSES.get(key)
    if cls is None:
        cls = _type(_str(name), (base,), {"__module__": "<code>"})
        _REMOTE_CLASSES[key] = cls
    return cls


def _t_handle_of(x):
    if "h" not in x or _type(x["h"]) is not _int:
        raise ValueError("unreadable value")
    module = x.get("module")
    if _type(module) is _str and module in _sys.modules and module != "__main__":
        # A module the program imported: the test gets T's own copy (the program's may be altered).
        return _sys.modules[module]
    return _Remote(x["h"], _str(x.get("type", "object")))


def _t_value(x):
    return _dec(x, _t_handle_of)


def _t_handle(v):
    if _type(v) is _Remote:
        return {"h": _object_getattr(v, "_beaker_h")}
    try:
        import sympy

        if _isinstance(v, sympy.Basic):
            return {"sympy": sympy.srepr(v)}
    except ImportError:
        pass
    raise _Unsendable(
        "code_test cannot pass an object of type " + _type(v).__name__ + " from the test to the code "
        "(plain data, numpy arrays, SymPy objects and the code's own objects can be passed)"
    )


def _t_enc(v):
    return _enc(v, _t_handle)


_object_getattr = object.__getattribute__


def _t_raise(info):
    name = _str(info.get("type") or "Exception")
    message = _str(info.get("message") or "")
    base = _getattr(builtins, _str(info.get("base") or "Exception"), None)
    if not (_isinstance(base, _type) and _issubclass(base, Exception)):
        base = Exception
    # The builtin class itself when that is what was raised, else a stand-in derived from it.
    cls = base if base.__name__ == name else _remote_class(name, base)
    args = info.get("args")
    try:
        exc = cls(*_t_value(args)) if args is not None else cls(message)
    except BaseException:
        exc = cls(message)
    line = info.get("line")
    exc.__beaker_remote__ = (name, message, line if _type(line) is _int else None)
    raise exc


def _rpc(req, passed=None):
    """Sends one request to the program's interpreter and returns the value of its answer."""
    if _host_call is None:
        raise _ProgramStopped("this interpreter has no door to the program's")
    try:
        frame = _dumps(req, ensure_ascii=True, allow_nan=False).encode("ascii")
    except ValueError as e:
        raise _Unsendable(_str(e))
    try:
        answer = _loads(_host_call(frame))
    except OSError as e:
        raise _ProgramStopped("the door to the program's interpreter failed: " + _str(e))
    except ValueError:
        raise _ProgramStopped("the program's interpreter answered something unreadable")
    if _type(answer) is not _dict:
        raise _ProgramStopped("the program's interpreter answered something unreadable")
    if "stopped" in answer:
        _ENDED[0] = _ProgramStopped(_str(answer["stopped"]))
        raise _ENDED[0]
    if "exit" in answer:
        _ENDED[0] = _ProgramExited(_str(answer["exit"]))
        raise _ENDED[0]
    if "raise" in answer and _type(answer["raise"]) is _dict:
        _t_raise(answer["raise"])
    if "stop" in answer:
        raise StopIteration
    try:
        value = _t_value(answer.get("ok"))
        back = answer.get("args")
        if passed is not None and _type(back) is _list:
            for original, new in zip(passed, back):
                if new is not None and _type(original) in _IN_PLACE:
                    _restore(original, _t_value(new))
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as e:
        raise _ProgramStopped("the program's interpreter answered something unreadable (" + _str(e) + ")")
    return value


def _restore(original, new):
    """Copies a container's new contents (after the program changed it in place) into the test's object."""
    t = _type(original)
    if t is not _type(new):
        return
    if t is _list or t is _bytearray:
        original[:] = new
    else:
        original.clear()
        original.update(new)


def _op(name, *args):
    return _rpc({"op": name, "args": [_t_enc(a) for a in args]}, args)


def _binary(name, reflected=False):
    def method(self, other):
        try:
            return _op(name, other, self) if reflected else _op(name, self, other)
        except _Unsendable:
            return NotImplemented

    method.__name__ = name
    return method


def _unary(name):
    def method(self, *args):
        return _op(name, self, *args)

    method.__name__ = name
    return method


class _Remote:
    """An object that lives in the program's interpreter, seen from the test's: every use is a request."""

    __slots__ = ("_beaker_h", "_beaker_type")

    def __init__(self, h, type_name):
        _object_setattr(self, "_beaker_h", h)
        _object_setattr(self, "_beaker_type", type_name)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _rpc({"op": "getattr", "target": {"h": _object_getattr(self, "_beaker_h")}, "name": name})

    def __setattr__(self, name, value):
        _rpc({"op": "setattr", "target": {"h": _object_getattr(self, "_beaker_h")}, "name": name, "value": _t_enc(value)})

    def __delattr__(self, name):
        _rpc({"op": "delattr", "target": {"h": _object_getattr(self, "_beaker_h")}, "name": name})

    def __call__(self, *args, **kwargs):
        req = {
            "op": "call",
            "target": {"h": _object_getattr(self, "_beaker_h")},
            "args": [_t_enc(a) for a in args],
            "kwargs": {_str(k): _t_enc(v) for k, v in kwargs.items()},
        }
        return _rpc(req, args)

    def __iter__(self):
        it = _op("iter", self)
        return it if _type(it) is _Remote else iter(it)

    def __next__(self):
        return _rpc({"op": "next", "args": [_t_enc(self)]})

    def __instancecheck__(self, obj):
        return _op("isinstance", obj, self)

    def __subclasscheck__(self, cls):
        return _op("issubclass", cls, self)

    def __bool__(self):
        return _op("truth", self)


for _name in "eq ne lt le gt ge add sub mul truediv floordiv mod pow matmul and_ or_ xor lshift rshift divmod".split():
    _dunder = "__" + _name.rstrip("_") + "__"
    setattr(_Remote, _dunder, _binary(_name))
    if _name not in ("eq", "ne", "lt", "le", "gt", "ge"):
        setattr(_Remote, "__r" + _dunder[2:], _binary(_name, True))
for _name in "getitem setitem delitem contains neg pos abs invert len repr str hash int float index round format".split():
    setattr(_Remote, "__" + _name + "__", _unary(_name))
del _name, _dunder


def _t_where(e):
    """Where a test failed: in the program's code (its line) or in the test (its line)."""
    remote = _getattr(e, "__beaker_remote__", None)
    if remote is not None:
        line = remote[2]
        return "in the code, line %d" % line if line is not None else "in the code"
    try:
        tb = _extract_tb(e.__traceback__)
    except BaseException:
        tb = []
    for f in reversed(tb):
        if f.filename == "<test>":
            return "test line %d" % f.lineno
    if _isinstance(e, SyntaxError) and _getattr(e, "filename", None) == "<test>" and e.lineno:
        return "test line %d" % e.lineno
    return None


def _test_main(req):
    """code_test's test, in an interpreter that never runs the program: the program's names are handles, its
    answers data; the report is this interpreter's own verdict."""
    test = req.get("test") or ""
    cap = int(req.get("max_output_bytes") or (1 << 20))
    _ENDED[0] = None
    _reseed()
    _VFS.clear()
    _VFS_MADE.clear()
    _open_streams(cap, "")
    main = _ModuleType("__main__")
    g = main.__dict__
    g["__builtins__"] = builtins
    _sys.modules["__main__"] = main
    _register_source("<test>", test)
    passed = False
    error = None
    try:
        names = _rpc({"op": "names"})
        if _type(names) is not _dict:
            raise _ProgramStopped("the program's interpreter answered something unreadable")
        for k, v in names.items():
            # Only the code's own names: a dunder (`__builtins__`, `__name__`) is the test interpreter's to set,
            # whatever the program's interpreter answers.
            if _type(k) is _str and k.isidentifier() and not k.startswith("__"):
                g[k] = v
        _exec(_compile(test, "<test>", "exec"), g)
        if _ENDED[0] is not None:
            raise _ENDED[0]
        passed = True
    except _ProgramExited as e:
        error = {"type": "SystemExit", "message": "the code exited while the test ran (" + _str(e) + ")", "where": "in the code"}
    except _ProgramStopped as e:
        error = {"stopped": _str(e)}
    except SystemExit as e:
        error = {"type": "SystemExit", "message": "the test exited (" + _exit_text(e) + ") before its end", "where": _t_where(e)}
    except BaseException as e:
        remote = _getattr(e, "__beaker_remote__", None)
        try:
            message = remote[1] if remote is not None else _str(e)
        except BaseException:
            message = "<exception str() failed>"
        error = {
            "type": remote[0] if remote is not None else _type(e).__name__,
            "message": _clip(message, 4096, [False]),
            "where": _t_where(e),
        }
    _restore_streams()
    _OUT.flush()
    _ERR.flush()
    _write_report({"passed": passed, "error": error})
