# symbolic_math and latex_render: the guest side, run once after driver.py and before the snapshot, so
# every call finds SymPy imported and these functions defined. The host sends {"tool": NAME, "args": {...},
# "max_output_bytes": N} on stdin (through `__beaker_main`); `_beaker_tool` answers {"ok": result} or
# {"error": {"kind": KIND, "message": ...}} on stdout.
#
# Everything here runs inside the sandbox: parse_expr evaluates text, which is why it may only run here.

import sympy as _sp
from sympy.parsing import sympy_parser as _spp
import re as _re
import tokenize as _tokenize
from fractions import Fraction as _Fraction

_TRANSFORMS = _spp.standard_transformations + (
    _spp.implicit_multiplication,
    _spp.implicit_application,
    _spp.convert_xor,
)
_Expr = _sp.Expr
_Basic = _sp.Basic
_Eq = _sp.Eq
_Equality = _sp.Equality
_Symbol = _sp.Symbol


class _Failure(Exception):
    """A call's answer as an error: `kind` is one of Beaker's error kinds."""

    def __init__(self, kind, message):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message


def _invalid(message):
    return _Failure("invalid_params", message)


def _domain(message):
    return _Failure("domain_error", message)


def _shown(text, limit=80):
    return text if _len(text) <= limit else text[: limit - 3] + "..."


def _top_level_equals(text):
    """Where `text` splits into an equation's sides: the index and width of a top-level `=` or `==` (not
    `<=`, `>=`, `!=`, nor inside brackets or a keyword argument such as `evaluate=False` in a call)."""
    depth = 0
    i = 0
    n = _len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0:
            prev = text[i - 1] if i > 0 else ""
            if prev in "<>!=":
                i += 1
                continue
            width = 2 if i + 1 < n and text[i + 1] == "=" else 1
            return i, width
        i += 1
    return None


def _number(value, key):
    """A JSON number as an exact SymPy number (0.1 is 1/10: the decimal as written, not the binary double)."""
    if _isinstance(value, bool):
        raise _invalid("`%s` must be a number or an expression, got a boolean" % key)
    if _isinstance(value, int):
        return _sp.Integer(value)
    if _isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _invalid("`%s` must be finite" % key)
        return _sp.Rational(_Fraction(_repr(value)))
    raise _invalid("`%s` must be a number or an expression" % key)


def _locate(text, code, offset):
    """The 1-based column in the user's `text` of the error Python found at `offset` in `code`, the text after
    SymPy's transformations (`2x` became `Integer (2 )*Symbol ('x' )`). Operators and brackets survive the
    transformations unchanged (only `^` becomes `**`), so the failing one is found by its rank among its
    equals; None when that cannot be told."""
    if not code or offset < 1 or offset > _len(code):
        return None
    i = offset - 1
    after = False
    if code[i] == "*":
        # Implicit multiplication inserts `*`s of its own: find the operator before this one instead.
        i -= 1
        while i >= 0 and code[i] == " ":
            i -= 1
        after = True
    c = code[i] if i >= 0 else ""
    if not c or c.isalnum() or c in " _'\"*":
        return None
    rank = code[:i].count(c)
    at = -1
    for _ in range(rank + 1):
        at = text.find(c, at + 1)
        if at < 0:
            return None
    if after:
        at += 1
        while at < _len(text) and text[at] == " ":
            at += 1
    return at + 1


def _brackets(text, key):
    """An unbalanced bracket, named with its column (SymPy's transformations fail on them obscurely)."""
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for i, c in enumerate(text):
        if c in "([{":
            stack.append((c, i))
        elif c in pairs:
            if not stack or stack[-1][0] != pairs[c]:
                raise _invalid("cannot parse `%s` %r: unmatched %r at column %d" % (key, _shown(text), c, i + 1))
            stack.pop()
    if stack:
        c, i = stack[-1]
        raise _invalid("cannot parse `%s` %r: %r at column %d is never closed" % (key, _shown(text), c, i + 1))


def _parse(text, key, names=None, equation=False):
    """Text (or a JSON number) as a SymPy object; `equation`: `a = b` is Eq(a, b)."""
    if not _isinstance(text, _str):
        return _number(text, key)
    if not text.strip():
        raise _invalid("`%s` is empty" % key)
    if equation:
        at = _top_level_equals(text)
        if at is not None:
            i, width = at
            lhs = _parse(text[:i], key, names)
            rhs = _parse(text[i + width :], key, names)
            return _Eq(lhs, rhs, evaluate=False)
    _brackets(text, key)
    local = dict(names or {})
    try:
        value = _spp.parse_expr(text, local_dict=local, transformations=_TRANSFORMS)
    except (SyntaxError, _tokenize.TokenError) as e:
        where = ""
        offset = getattr(e, "offset", None)
        column = _locate(text, getattr(e, "text", None), offset) if offset else None
        if column is not None:
            where = " at column %d (%r)" % (column, text[column - 1 :][:10])
        elif _isinstance(e, _tokenize.TokenError) and _len(e.args) > 1:
            where = " (unclosed bracket or string)"
        msg = getattr(e, "msg", None) or (e.args[0] if e.args else "invalid syntax")
        raise _invalid("cannot parse `%s` %r%s: %s" % (key, _shown(text), where, msg))
    except (MemoryError, RecursionError):
        raise
    except BaseException as e:
        raise _invalid("cannot parse `%s` %r: %s: %s" % (key, _shown(text), _type(e).__name__, e))
    if _isinstance(value, (int, float)) and not _isinstance(value, bool):
        value = _sp.sympify(value)
    if not _isinstance(value, _Basic):
        raise _invalid("`%s` %r is not an expression (it is a %s)" % (key, _shown(text), _type(value).__name__))
    return value


def _symbol_names(args, key_one, key_many):
    """The unknowns named by `variable` or `variables` (None when neither is given)."""
    one = args.get(key_one)
    many = args.get(key_many)
    if one is not None and many is not None:
        raise _invalid("give `%s` or `%s`, not both" % (key_one, key_many))
    if one is not None:
        names = [one]
    elif many is not None:
        if not _isinstance(many, list) or not many:
            raise _invalid("`%s` must be a non-empty list of names" % key_many)
        names = many
    else:
        return None
    for n in names:
        if not _isinstance(n, _str) or not n.isidentifier():
            raise _invalid("%r is not a variable name (a letter or _ followed by letters, digits or _)" % (n,))
    return names


def _one_variable(expr, args, key="variable"):
    """The symbol `variable` names, else the expression's only free symbol."""
    name = args.get(key)
    if name is not None:
        if not _isinstance(name, _str) or not name.isidentifier():
            raise _invalid("`%s` must be a variable name" % key)
        for s in expr.free_symbols:
            if s.name == name:
                return s
        return _Symbol(name)
    free = sorted(expr.free_symbols, key=lambda s: s.name)
    if _len(free) == 1:
        return free[0]
    if not free:
        raise _invalid("`%s` is needed: the expression has no free symbol" % key)
    raise _invalid(
        "`%s` is needed: the expression has several free symbols (%s)" % (key, ", ".join(s.name for s in free))
    )


def _as_zero(e):
    """An equation as the expression that is zero when it holds."""
    if _isinstance(e, _Equality):
        return e.lhs - e.rhs
    return e


def _is_plain_number(e):
    return _isinstance(e, _Expr) and e.is_number and not e.has(_sp.zoo, _sp.oo, -_sp.oo, _sp.nan)


def _finish(result, extra=None):
    """The fields every answer has: `result`, `latex`, and `decimal` for a number."""
    out = {"result": _str(result), "latex": _sp.latex(result)}
    if _is_plain_number(result):
        try:
            out["decimal"] = _str(_sp.N(result, 15))
        except (MemoryError, RecursionError):
            raise
        except BaseException:
            pass
    if extra:
        out.update(extra)
    return out


def _need(args, key):
    v = args.get(key)
    if v is None:
        raise _invalid("`%s` is required for operation `%s`" % (key, args.get("operation")))
    return v


def _int_arg(args, key, default, lo, hi):
    v = args.get(key)
    if v is None:
        return default
    if _isinstance(v, bool) or not _isinstance(v, int) or not lo <= v <= hi:
        raise _invalid("`%s` must be an integer from %d to %d" % (key, lo, hi))
    return v


def _on_sides(fn, e):
    if _isinstance(e, _Equality):
        return _Eq(fn(e.lhs), fn(e.rhs), evaluate=False)
    return fn(e)


def _op_rewrite(args):
    op = args["operation"]
    e = _parse(_need(args, "expression"), "expression", equation=True)
    if op == "simplify":
        r = _on_sides(_sp.simplify, e)
    elif op == "expand":
        r = _on_sides(_sp.expand, e)
    elif op == "factor":
        r = _on_sides(_sp.factor, e)
    elif op == "cancel":
        r = _on_sides(_sp.cancel, e)
    else:
        if args.get("variable") is not None:
            x = _one_variable(_as_zero(e), args)
            r = _on_sides(lambda t: _sp.apart(t, x), e)
        else:
            r = _on_sides(_sp.apart, e)
    return _finish(r)


def _op_solve(args):
    names = _symbol_names(args, "variable", "variables")
    real = args.get("domain") == "real"
    if args.get("domain") not in (None, "real", "complex"):
        raise _invalid("`domain` must be `complex` or `real`")
    local = {}
    if names:
        for n in names:
            local[n] = _Symbol(n, real=True) if real else _Symbol(n)
    if args.get("expression") is not None and args.get("equations") is not None:
        raise _invalid("give `expression` or `equations`, not both")
    if args.get("equations") is not None:
        texts = args["equations"]
        if not _isinstance(texts, list) or not texts:
            raise _invalid("`equations` must be a non-empty list")
        system = True
    else:
        texts = [_need(args, "expression")]
        system = False
    eqs = [_parse(t, "equations" if system else "expression", local, equation=True) for t in texts]
    if names:
        unknowns = [local[n] for n in names]
    else:
        free = set()
        for q in eqs:
            free |= q.free_symbols
        unknowns = sorted(free, key=lambda s: s.name)
        if not unknowns:
            raise _invalid("nothing to solve for: no free symbols (name `variable`)")
        if real:
            swap = {s: _Symbol(s.name, real=True) for s in unknowns}
            eqs = [q.subs(swap) for q in eqs]
            unknowns = [swap[s] for s in unknowns]
    eqs = [_as_zero(q) if _isinstance(q, _Equality) else q for q in eqs]
    if _len(unknowns) == 1 and _len(eqs) == 1:
        sols = _sp.solve(eqs[0], unknowns[0])
        if not _isinstance(sols, list):
            sols = [sols]
        shown = [_str(s) for s in sols]
        out = _finish(sols)
        out.pop("decimal", None)
        out["solutions"] = shown
        out["count"] = _len(shown)
        return out
    sols = _sp.solve(eqs, unknowns, dict=True)
    shown = [{_str(k): _str(v) for k, v in s.items()} for s in sols]
    out = _finish(sols)
    out.pop("decimal", None)
    out["solutions"] = shown
    out["count"] = _len(shown)
    return out


def _op_diff(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    n = _int_arg(args, "order", 1, 1, 100)
    return _finish(_sp.diff(e, x, n))


def _op_integrate(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    lo, hi = args.get("lower"), args.get("upper")
    if (lo is None) != (hi is None):
        raise _invalid("a definite integral needs both `lower` and `upper`")
    if lo is None:
        r = _sp.integrate(e, x)
        definite = False
    else:
        r = _sp.integrate(e, (x, _parse(lo, "lower"), _parse(hi, "upper")))
        definite = True
    return _finish(r, {"definite": definite, "evaluated": not r.has(_sp.Integral)})


def _op_limit(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    p = _parse(_need(args, "point"), "point")
    d = args.get("direction")
    if d not in (None, "+", "-"):
        raise _invalid("`direction` must be `+` (from above) or `-` (from below)")
    if d is not None or p in (_sp.oo, -_sp.oo):
        return _finish(_sp.limit(e, x, p, d or "+"))
    right = _sp.limit(e, x, p, "+")
    left = _sp.limit(e, x, p, "-")
    if right == left or _sp.simplify(right - left) == 0:
        return _finish(right)
    raise _domain(
        "the limit does not exist: from the left it is %s, from the right %s (give `direction` for one side)"
        % (left, right)
    )


def _op_series(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    p = _parse(args.get("point", 0), "point")
    n = _int_arg(args, "order", 6, 1, 200)
    r = _sp.series(e, x, p, n)
    return _finish(r, {"polynomial": _str(r.removeO())})


def _op_summation(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    r = _sp.summation(e, (x, _parse(_need(args, "lower"), "lower"), _parse(_need(args, "upper"), "upper")))
    return _finish(r, {"evaluated": not r.has(_sp.Sum)})


_FUNCTION = _re.compile(r"^\s*([A-Za-z_][A-Za-z_0-9]*)\s*\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*\)\s*$")


def _primes(text, f, t):
    """`y'`, `y''(t)` → Derivative(y(t), t, k); a bare `y` → y(t)."""
    # A digit may come before the name (`2y'`: implicit multiplication), a letter may not (`xy` is a name).
    text = _re.sub(
        r"(?<![A-Za-z_])%s('+)(\s*\(\s*%s\s*\))?" % (f, t),
        lambda m: "Derivative(%s(%s), %s, %d)" % (f, t, t, _len(m.group(1))),
        text,
    )
    return _re.sub(r"(?<![A-Za-z_])%s(?![A-Za-z_0-9])(?!\s*\()" % f, "%s(%s)" % (f, t), text)


def _op_dsolve(args):
    spec = _need(args, "function")
    m = _FUNCTION.match(spec) if _isinstance(spec, _str) else None
    if m is None:
        raise _invalid("`function` must name the unknown function and its variable, such as `y(t)`")
    fname, tname = m.group(1), m.group(2)
    f = _sp.Function(fname)
    t = _Symbol(tname)
    local = {fname: f, tname: t}
    text = _need(args, "equation")
    if not _isinstance(text, _str):
        raise _invalid("`equation` must be a string")
    eq = _parse(_primes(text, fname, tname), "equation", local, equation=True)
    if not _isinstance(eq, _Equality):
        eq = _Eq(eq, 0)
    if not eq.has(_sp.Derivative):
        raise _invalid("`equation` has no derivative of %s: not a differential equation" % spec)
    ics = None
    given = args.get("ics")
    if given is not None:
        if not _isinstance(given, dict):
            raise _invalid("`ics` must be an object such as {\"y(0)\": 1, \"y'(0)\": 0}")
        ics = {}
        at = _re.compile(r"^\s*%s('*)\s*\((.+)\)\s*$" % fname)
        for key, value in given.items():
            k = at.match(key)
            if k is None:
                raise _invalid("ics: %r is not a condition on %s (write `%s(0)` or `%s'(0)`)" % (key, fname, fname, fname))
            point = _parse(k.group(2), "ics")
            order = _len(k.group(1))
            lhs = f(point) if order == 0 else f(t).diff(t, order).subs(t, point)
            ics[lhs] = _parse(value, "ics")
    sol = _sp.dsolve(eq, f(t), ics=ics)
    sols = sol if _isinstance(sol, list) else [sol]
    result = sols[0] if _len(sols) == 1 else sols
    out = _finish(result)
    out.pop("decimal", None)
    out["solutions"] = [_str(s.rhs) for s in sols]
    out["equation"] = _str(eq)
    return out


def _op_evaluate(args):
    e = _parse(_need(args, "expression"), "expression")
    subs = args.get("substitutions")
    if subs is not None:
        if not _isinstance(subs, dict):
            raise _invalid("`substitutions` must be an object of name -> value")
        by_name = {s.name: s for s in e.free_symbols}
        pairs = {}
        for name, value in subs.items():
            if name not in by_name:
                raise _invalid(
                    "substitutions: `%s` is not a symbol of the expression (its symbols: %s)"
                    % (name, ", ".join(sorted(by_name)) or "none")
                )
            pairs[by_name[name]] = _parse(value, "substitutions")
        e = e.subs(pairs)
    digits = _int_arg(args, "precision", 15, 1, 10000)
    if _isinstance(e, _Basic) and e.has(_sp.zoo, _sp.nan):
        raise _domain("the value is undefined (%s): a division by zero or a pole" % e)
    if _isinstance(e, _Expr) and e.is_Integer:
        value = _str(e)
    else:
        value = _str(_sp.N(e, digits))
    return _finish(e, {"value": value})


_KINDS = ("det", "inverse", "transpose", "eigenvals", "eigenvects", "rref", "rank", "nullspace", "charpoly", "trace")
_SQUARE = ("det", "inverse", "eigenvals", "eigenvects", "charpoly", "trace")


def _rows(m):
    return [[_str(m[i, j]) for j in range(m.cols)] for i in range(m.rows)]


def _op_matrix(args):
    rows = _need(args, "matrix")
    if not _isinstance(rows, list) or not rows or not all(_isinstance(r, list) and r for r in rows):
        raise _invalid("`matrix` must be a non-empty list of non-empty rows")
    width = _len(rows[0])
    if any(_len(r) != width for r in rows):
        raise _invalid("`matrix` rows must all have the same length")
    if _len(rows) > 40 or width > 40:
        raise _Failure("limit_exceeded", "`matrix` is %dx%d; at most 40x40" % (_len(rows), width))
    m = _sp.Matrix([[_parse(v, "matrix[%d][%d]" % (i, j)) for j, v in enumerate(r)] for i, r in enumerate(rows)])
    opargs = args.get("operation_args") or {}
    if not _isinstance(opargs, dict):
        raise _invalid("`operation_args` must be an object such as {\"kind\": \"det\"}")
    kind = opargs.get("kind")
    if kind not in _KINDS:
        raise _invalid("`operation_args.kind` must be one of %s" % ", ".join(_KINDS))
    if kind in _SQUARE and not m.is_square:
        raise _invalid("`%s` needs a square matrix; this one is %dx%d" % (kind, m.rows, m.cols))
    if kind == "det":
        return _finish(m.det())
    if kind == "trace":
        return _finish(m.trace())
    if kind == "rank":
        r = m.rank()
        return _finish(_sp.Integer(r), {"rank": r})
    if kind == "transpose":
        t = m.T
        return _finish(t, {"matrix": _rows(t)})
    if kind == "inverse":
        if m.det() == 0:
            raise _domain("the matrix is singular (its determinant is 0): it has no inverse")
        inv = m.inv()
        return _finish(inv, {"matrix": _rows(inv)})
    if kind == "rref":
        r, pivots = m.rref()
        return _finish(r, {"matrix": _rows(r), "pivots": list(pivots)})
    if kind == "charpoly":
        lam = _Symbol("lambda")
        return _finish(m.charpoly(lam).as_expr())
    if kind == "nullspace":
        vs = m.nullspace()
        return _finish(vs, {"vectors": [[_str(x) for x in v] for v in vs]})
    if kind == "eigenvals":
        ev = m.eigenvals()
        return _finish(ev, {"eigenvalues": {_str(k): v for k, v in ev.items()}})
    vects = m.eigenvects()
    shown = [
        {"eigenvalue": _str(val), "multiplicity": mult, "vectors": [[_str(x) for x in v] for v in vs]}
        for val, mult, vs in vects
    ]
    return _finish(vects, {"eigenvectors": shown})


def _op_roots(args):
    e = _as_zero(_parse(_need(args, "expression"), "expression", equation=True))
    x = _one_variable(e, args)
    try:
        poly = _sp.Poly(e, x)
    except _sp.PolynomialError as err:
        raise _invalid("`expression` is not a polynomial in %s: %s" % (x, err))
    found = _sp.roots(poly)
    total = sum(found.values())
    shown = {_str(k): v for k, v in found.items()}
    out = _finish(found)
    out["roots"] = shown
    out["complete"] = total == poly.degree()
    return out


def _sample_points(symbols):
    # Fixed, exact sample points: a mix of signs and sizes that avoids the usual singular points (0, ±1,
    # small integers, multiples of pi).
    base = [
        _sp.Rational(7, 13), _sp.Rational(-5, 11), _sp.Rational(23, 7), _sp.Rational(-17, 9),
        _sp.Rational(3, 29), _sp.Rational(41, 19), _sp.Rational(-31, 37), _sp.Rational(11, 43),
    ]
    points = []
    for i in range(8):
        points.append({s: base[(i + 3 * k) % 8] + _sp.Rational(k, 101) for k, s in enumerate(symbols)})
    return points


def _differ_numerically(a, b):
    """(False, None) when a − b is 0 at every usable sample point, (True, point) at the first where it is not."""
    symbols = sorted((a - b).free_symbols, key=lambda s: s.name)
    usable = 0
    for point in _sample_points(symbols):
        try:
            va = _sp.N(a.subs(point), 30)
            vb = _sp.N(b.subs(point), 30)
        except (MemoryError, RecursionError):
            raise
        except BaseException:
            continue
        if not (va.is_number and vb.is_number) or va.has(_sp.zoo, _sp.nan, _sp.oo) or vb.has(_sp.zoo, _sp.nan, _sp.oo):
            continue
        usable += 1
        diff = abs(_sp.N(va - vb, 30))
        scale = max(abs(va), abs(vb), 1)
        if diff > _sp.Float("1e-20", 30) * scale:
            return True, point, usable
    return False, None, usable


def _same_solutions(da, db):
    """Two equations in one unknown (`da = 0`, `db = 0`): equivalent when their solution sets are equal."""
    free = da.free_symbols | db.free_symbols
    if _len(free) != 1:
        return None, "simplify"
    x = next(iter(free))
    try:
        sa = set(_sp.solve(da, x))
        sb = set(_sp.solve(db, x))
    except (MemoryError, RecursionError):
        raise
    except BaseException:
        return None, "simplify"
    return sa == sb, "solve"


def _op_equivalent(args):
    a = _parse(_need(args, "expression"), "expression", equation=True)
    b = _parse(_need(args, "other"), "other", equation=True)
    out = {}
    if _isinstance(a, _Equality) != _isinstance(b, _Equality):
        out.update({"equivalent": False, "method": "structural", "why": "one is an equation and the other is not"})
        return out
    if _isinstance(a, _Equality):
        da, db = a.lhs - a.rhs, b.lhs - b.rhs
        if da == db or _sp.expand(da - db) == 0:
            verdict, method = True, "structural"
        else:
            ratio = _sp.simplify(da / db)
            if ratio.is_number and ratio.is_zero is False and ratio.is_finite:
                verdict, method = True, "simplify"
            else:
                verdict, method = _same_solutions(da, db)
        out.update({"equivalent": verdict, "method": method})
        return out
    if a == b:
        out.update({"equivalent": True, "method": "structural"})
        return out
    d = _sp.simplify(a - b)
    if d == 0:
        out.update({"equivalent": True, "method": "simplify", "difference": "0"})
        return out
    if _isinstance(d, _Expr) and d.is_number and d.is_zero is False:
        out.update({"equivalent": False, "method": "simplify", "difference": _str(d)})
        return out
    differ, point, usable = _differ_numerically(a, b)
    if differ:
        out.update(
            {
                "equivalent": False,
                "method": "numeric",
                "difference": _str(d),
                "counterexample": {s.name: _str(v) for s, v in point.items()},
            }
        )
        return out
    out.update(
        {
            "equivalent": None,
            "method": "numeric",
            "difference": _str(d),
            "why": "equal at %d sample points, but simplify could not prove the difference is 0" % usable
            if usable
            else "neither simplify nor evaluation at sample points could decide",
        }
    )
    return out


_OPERATIONS = {
    "simplify": _op_rewrite,
    "expand": _op_rewrite,
    "factor": _op_rewrite,
    "cancel": _op_rewrite,
    "apart": _op_rewrite,
    "solve": _op_solve,
    "diff": _op_diff,
    "integrate": _op_integrate,
    "limit": _op_limit,
    "series": _op_series,
    "summation": _op_summation,
    "dsolve": _op_dsolve,
    "evaluate": _op_evaluate,
    "matrix": _op_matrix,
    "roots": _op_roots,
    "equivalent": _op_equivalent,
}


def _symbolic_math(args):
    op = args.get("operation")
    fn = _OPERATIONS.get(op)
    if fn is None:
        raise _invalid("unknown operation %r (known: %s)" % (op, ", ".join(_OPERATIONS)))
    out = fn(args)
    if op == "equivalent":
        # The verdict is the result: True, False or None (undecided).
        out = dict({"result": _str(out["equivalent"]), "latex": "\\text{%s}" % out["equivalent"]}, **out)
    return out


# latex_render ---------------------------------------------------------------------------------------------

_LATEX_FORMATS = ("latex", "png", "svg")


def _render_latex(latex, fmt, fontsize, dpi):
    """LaTeX drawn by matplotlib's mathtext into PNG or SVG bytes, fixed metadata so equal input gives equal
    bytes."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401 - Figure needs a canvas

    fig = Figure(figsize=(0.01, 0.01))
    fig.text(0, 0, "$%s$" % latex, fontsize=fontsize)
    buf = _BytesIO()
    meta = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
    with matplotlib.rc_context({"svg.hashsalt": "beaker", "svg.fonttype": "path", "mathtext.fontset": "dejavusans"}):
        fig.savefig(buf, format=fmt, dpi=dpi, bbox_inches="tight", pad_inches=0.05, metadata=meta, transparent=False, facecolor="white")
    return buf.getvalue()


def _latex_render(args):
    text = args.get("expression")
    if not _isinstance(text, _str) or not text.strip():
        raise _invalid("`expression` must be a non-empty string")
    kind = args.get("input") or "sympy"
    fmt = args.get("format") or "latex"
    if kind not in ("sympy", "latex"):
        raise _invalid("`input` must be `sympy` or `latex`")
    if fmt not in _LATEX_FORMATS:
        raise _invalid("`format` must be `latex`, `png` or `svg`")
    fontsize = args.get("fontsize", 20)
    dpi = args.get("dpi", 100)
    if kind == "sympy":
        expr = _parse(text, "expression", equation=True)
        latex = _sp.latex(expr)
    else:
        latex = text.strip()
        if _len(latex) >= 2 and latex[0] == "$" and latex[-1] == "$":
            latex = latex.strip("$")
    out = {"latex": latex}
    if fmt == "latex" and kind == "sympy":
        return out
    try:
        data = _render_latex(latex, "png" if fmt == "latex" else fmt, fontsize, dpi)
    except (MemoryError, RecursionError):
        raise
    except ValueError as e:
        raise _invalid("matplotlib's mathtext cannot render this LaTeX: %s" % _str(e).strip())
    if fmt == "latex":
        return out
    out["format"] = fmt
    out["image"] = _b64encode(data).decode("ascii")
    if fmt == "png":
        out["width"] = int.from_bytes(data[16:20], "big")
        out["height"] = int.from_bytes(data[20:24], "big")
    return out


_TOOLS = {"symbolic_math": _symbolic_math, "latex_render": _latex_render}


def _beaker_tool(req):
    """One call of a tool implemented in this guest: {"ok": result} or {"error": {kind, message}}."""
    cap = int(req.get("max_output_bytes") or (1 << 20))
    sink = _Capture("<stdout>", [0, False])
    _sys.stdout = _sys.__stdout__ = sink
    _sys.stderr = _sys.__stderr__ = sink
    try:
        fn = _TOOLS.get(req.get("tool"))
        if fn is None:
            raise _Failure("internal", "no guest tool %r" % (req.get("tool"),))
        answer = {"ok": fn(req.get("args") or {})}
    except _Failure as f:
        answer = {"error": {"kind": f.kind, "message": f.message}}
    except MemoryError:
        answer = {"error": {"kind": "limit_exceeded", "message": "SymPy ran out of memory (limit max_memory_bytes)"}}
    except RecursionError:
        answer = {"error": {"kind": "limit_exceeded", "message": "SymPy recursed too deeply (the sandbox's stack)"}}
    except (ZeroDivisionError,) as e:
        answer = {"error": {"kind": "domain_error", "message": "%s: %s" % (_type(e).__name__, e)}}
    except NotImplementedError as e:
        answer = {"error": {"kind": "tool_error", "message": "SymPy cannot do this: %s" % (_str(e) or "not implemented")}}
    except (ValueError, TypeError, AttributeError, KeyError, IndexError) as e:
        answer = {"error": {"kind": "tool_error", "message": "SymPy failed: %s: %s" % (_type(e).__name__, e)}}
    except BaseException as e:
        answer = {"error": {"kind": "tool_error", "message": "%s: %s" % (_type(e).__name__, e)}}
    finally:
        _sys.stdin, _sys.stdout, _sys.stderr = _REAL_STREAMS
        _sys.__stdin__, _sys.__stdout__, _sys.__stderr__ = _REAL_STREAMS
    if "ok" in answer:
        size = _len(_dumps(answer["ok"], ensure_ascii=False, default=_str))
        if size > cap:
            answer = {
                "error": {
                    "kind": "limit_exceeded",
                    "message": "the result is %d bytes; the output limit is %d (max_output_bytes)" % (size, cap),
                }
            }
    _write_report(answer)


def _symbolic_warm_up():
    for args in (
        {"operation": "simplify", "expression": "sin(t)^2 + cos(t)^2"},
        {"operation": "solve", "expression": "t^2 - 7t + 12 = 0", "variable": "t"},
        {"operation": "solve", "equations": ["a + b = 3", "a - b = 1"], "variables": ["a", "b"]},
        {"operation": "integrate", "expression": "t*exp(t)", "variable": "t", "lower": 0, "upper": 1},
        {"operation": "limit", "expression": "(1 - cos(t))/t^2", "variable": "t", "point": 0},
        {"operation": "dsolve", "equation": "u'' + 4u = 0", "function": "u(s)", "ics": {"u(0)": 1, "u'(0)": 0}},
        {"operation": "evaluate", "expression": "sqrt(3) + a", "substitutions": {"a": 2}, "precision": 20},
        {"operation": "matrix", "matrix": [[1, 2], [3, 4]], "operation_args": {"kind": "eigenvects"}},
        {"operation": "roots", "expression": "t^3 - 3t + 2", "variable": "t"},
        {"operation": "equivalent", "expression": "(t+1)^2", "other": "t^2 + 2t + 1"},
        {"operation": "equivalent", "expression": "sin(2t)", "other": "2 sin(t)"},
        {"operation": "summation", "expression": "1/k^2", "variable": "k", "lower": 1, "upper": "oo"},
        {"operation": "series", "expression": "exp(t)", "variable": "t"},
    ):
        try:
            _symbolic_math(args)
        except BaseException:
            pass
    for args in (
        {"expression": "sqrt(t)/2", "format": "png"},
        {"expression": r"\frac{a}{b} + \sqrt{c}", "input": "latex", "format": "svg"},
    ):
        try:
            _latex_render(args)
        except BaseException:
            pass
    if _plt is not None:
        from matplotlib import font_manager

        clear = getattr(getattr(font_manager, "_get_font", None), "cache_clear", None)
        if clear is not None:
            clear()


try:
    _symbolic_warm_up()
except BaseException:
    pass

# What the warm-up built survives every call: out of the collector's reach, as the driver's objects are.
gc.collect()
gc.freeze()
