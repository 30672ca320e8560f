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


# The call being answered: its limits and the names it declares as variables (set by `_beaker_tool`).
_CALL = {"limits": {}, "declared": set()}


def _limit(name, default):
    v = _CALL["limits"].get(name)
    return v if _isinstance(v, int) and v > 0 else default


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
    # CPython's parser, which SymPy's uses, stops at 200 nested brackets; the call's max_depth may be lower.
    cap = min(_limit("max_depth", 1000), 190)
    for i, c in enumerate(text):
        if c in "([{":
            stack.append((c, i))
            if _len(stack) > cap:
                raise _Failure(
                    "limit_exceeded",
                    "`%s` nests brackets more than %d deep (at column %d; max_depth, and the parser's own limit "
                    "of about 200)" % (key, cap, i + 1),
                )
        elif c in pairs:
            if not stack or stack[-1][0] != pairs[c]:
                raise _invalid("cannot parse `%s` %r: unmatched %r at column %d" % (key, _shown(text), c, i + 1))
            stack.pop()
    if stack:
        c, i = stack[-1]
        raise _invalid("cannot parse `%s` %r: %r at column %d is never closed" % (key, _shown(text), c, i + 1))


# Math as models type it: Unicode operators and constants, superscript powers, the square-root sign.
_UNICODE = {
    "\u03c0": " pi ", "\u221e": " oo ", "\u00d7": "*", "\u00b7": "*", "\u22c5": "*", "\u2217": "*",
    "\u00f7": "/", "\u2212": "-", "\u2013": "-", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=",
}
_SUPERSCRIPTS = {"\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4", "\u2075": "5",
                 "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9", "\u207b": "-"}
_SUPERSCRIPT_RUN = _re.compile("[%s]+" % "".join(_SUPERSCRIPTS))
_ROOT = _re.compile("\u221a\\s*([A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\\.[0-9]+)?)")


def _normalize(text):
    if text.isascii():
        return text
    for k, v in _UNICODE.items():
        text = text.replace(k, v)
    text = _SUPERSCRIPT_RUN.sub(lambda m: "**(%s)" % "".join(_SUPERSCRIPTS[c] for c in m.group(0)), text)
    text = _ROOT.sub(lambda m: "sqrt(%s)" % m.group(1), text)
    return text.replace("\u221a", "sqrt")


# Names models write for SymPy's functions.
_t = _sp.Dummy("t")
_ALIASES = {
    "arcsin": _sp.asin, "arccos": _sp.acos, "arctan": _sp.atan, "arccot": _sp.acot, "arcsec": _sp.asec,
    "arccsc": _sp.acsc, "arcsinh": _sp.asinh, "arccosh": _sp.acosh, "arctanh": _sp.atanh, "ln": _sp.log,
    "log10": _sp.Lambda(_t, _sp.log(_t, 10)), "log2": _sp.Lambda(_t, _sp.log(_t, 2)), "sgn": _sp.sign,
    "tg": _sp.tan, "ctg": _sp.cot,
}
# Functions written without brackets (`sin x`): these stay functions even when no `(` follows.
_APPLIED = set(
    "sin cos tan cot sec csc sinh cosh tanh coth asin acos atan acot asinh acosh atanh exp log sqrt cbrt "
    "Abs sign floor ceiling factorial".split()
) | set(_ALIASES)
_NAME = _re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `sin x` followed by an operator or another factor: the function takes that one token, as a reader means it
# (`sin x * 2` is sin(x)*2, `sin x cos x` is sin(x)*cos(x)); SymPy's implicit application would take the rest
# of the product (sin(2*x), sin(x*cos(x))). A power after the token (`sin x^2`) is left to SymPy: sin(x**2).
_BARE = _re.compile(
    r"\b(%s)\s+([A-Za-z0-9_.]+)(?=\s*(?:$|[-+*/)=,<>!]|\s+[A-Za-z0-9_(]))" % "|".join(sorted(_APPLIED, key=_len, reverse=True))
)


def _apply_bare(text):
    return _BARE.sub(lambda m: "%s(%s)" % (m.group(1), m.group(2)), text)


def _names(text, local):
    """What the names in `text` mean, beyond SymPy's: an unknown name called like a function is an undefined
    function (`f(x)`, not `f*x`); `arctan`, `ln`, `log10`... are SymPy's functions; a SymPy object that is not
    an expression (`beta`, `gamma`, `S`, `Q`, `O`, `N`), written without a call, is a symbol; `e` and `i` are
    Euler's number and the imaginary unit unless the call declares them as variables."""
    # A name is called when every use of it is followed by `(`: `f(x)` is a function, but in `x(x+1)` the `x` is
    # also used alone, so that is a product.
    uses = {}
    for m in _NAME.finditer(text):
        start = m.start()
        if start > 0 and text[start - 1] in ".'\"":
            continue
        called = text[m.end():].lstrip().startswith("(")
        uses[m.group(0)] = uses.get(m.group(0), True) and called
    for name, called in uses.items():
        if name in local:
            continue
        if called and name in _CALL["declared"]:
            called = False
        if name in _ALIASES:
            local[name] = _ALIASES[name]
        elif name == "e" and name not in _CALL["declared"]:
            local[name] = _sp.E
        elif name == "i" and name not in _CALL["declared"]:
            local[name] = _sp.I
        elif called:
            if not hasattr(_sp, name) and not hasattr(builtins, name):
                local[name] = _sp.Function(name)
        elif hasattr(_sp, name) and name not in _APPLIED:
            if not _isinstance(getattr(_sp, name), _Basic):
                local[name] = _Symbol(name)
    return local


def _parse(text, key, names=None, equation=False):
    """Text (or a JSON number) as a SymPy object; `equation`: `a = b` is Eq(a, b)."""
    if not _isinstance(text, _str):
        return _number(text, key)
    if not text.strip():
        raise _invalid("`%s` is empty" % key)
    cap = _limit("max_expression_len", 10000)
    if _len(text) > cap:
        raise _Failure(
            "limit_exceeded", "`%s` is %d characters; the limit is %d (max_expression_len)" % (key, _len(text), cap)
        )
    text = _apply_bare(_normalize(text))
    if equation:
        at = _top_level_equals(text)
        if at is not None:
            i, width = at
            lhs = _parse(text[:i], key, names)
            rhs = _parse(text[i + width :], key, names)
            return _Eq(lhs, rhs, evaluate=False)
    _brackets(text, key)
    local = _names(text, dict(names or {}))
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
    if _isinstance(value, _sp.MatrixBase):
        value = _sp.ImmutableMatrix(value)
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


def _check_digits(result):
    """max_digits: no integer (or numerator, denominator) in the result longer than the call allows."""
    cap = _limit("max_digits", 100000)
    atoms = result.atoms(_sp.Rational) if _isinstance(result, _Basic) else ()
    for a in atoms:
        for part in (a.p, a.q):
            digits = int(abs(int(part)).bit_length() * 0.30103) + 1
            if digits > cap:
                raise _Failure(
                    "limit_exceeded", "the result holds a number of about %d digits; the limit is %d (max_digits)"
                    % (digits, cap)
                )


def _exact(e):
    """Decimals as the exact numbers they are written as (0.1 is 1/10), not binary doubles."""
    if not _isinstance(e, _Basic):
        return e
    floats = e.atoms(_sp.Float)
    if not floats:
        return e
    return e.xreplace({f: _sp.Rational(_str(f)) for f in floats})


def _finish(result, extra=None):
    """The fields every answer has: `result`, `latex`, and `decimal` for a number."""
    if _isinstance(result, _Basic) and result.has(_sp.nan):
        raise _domain("the result is undefined (nan): the limit, sum or integral does not exist")
    _check_digits(result)
    out = {"result": _str(result), "latex": _sp.latex(result)}
    if _is_plain_number(result):
        try:
            out["decimal"] = _str(_sp.N(result, 15)).rstrip(".")
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
            # An equation is made `lhs - rhs` first: Eq(x**2 + 1, 0) with x real would evaluate to False.
            eqs = [(_as_zero(q) if _isinstance(q, _Equality) else q).subs(swap) for q in eqs]
            unknowns = [swap[s] for s in unknowns]
    eqs = [_as_zero(q) if _isinstance(q, _Equality) else q for q in eqs]
    if _len(unknowns) == 1 and _len(eqs) == 1 and _isinstance(eqs[0], _Basic) and _sp.simplify(eqs[0]) == 0:
        # An identity: every value solves it (SymPy's solve answers [] here, which reads as "no solution").
        out = _finish(_sp.S.Reals if real else _sp.S.Complexes)
        out.update({"solutions": [], "count": 0, "all": True})
        return out
    free = set()
    for q in eqs:
        free |= q.free_symbols if _isinstance(q, _Basic) else set()
    missing = [u.name for u in unknowns if u not in free]
    if missing:
        raise _invalid(
            "%s not in the equation%s (its symbols: %s)"
            % (", ".join("`%s` is" % m for m in missing), "s" if _len(eqs) > 1 else "",
               ", ".join(sorted(x.name for x in free)) or "none")
        )
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
    many = args.get("variables")
    if many is None:
        x = _one_variable(e, args)
        n = _int_arg(args, "order", 1, 1, 200)
        return _finish(_sp.diff(e, x, n))
    # A mixed partial: differentiate by each name in turn (`["x", "y"]` is d2/dy dx; repeat a name for a higher
    # order in it). `order` would be ambiguous beside it.
    if args.get("variable") is not None or args.get("order") is not None:
        raise _invalid("give `variables` (a mixed partial, in order; repeat a name for a higher order) "
                       "or `variable` with `order`, not both")
    names = _symbol_names(args, "variable", "variables")
    by_name = {s.name: s for s in e.free_symbols}
    xs = [by_name.get(n) or _Symbol(n) for n in names]
    return _finish(_sp.diff(e, *xs))


def _op_integrate(args):
    e = _parse(_need(args, "expression"), "expression")
    x = _one_variable(e, args)
    lo, hi = args.get("lower"), args.get("upper")
    if (lo is None) != (hi is None):
        raise _invalid("a definite integral needs both `lower` and `upper`")
    steps = args.get("steps")
    if steps is not None and not _isinstance(steps, bool):
        raise _invalid("`steps` is true or false")
    if lo is None:
        r = _sp.integrate(e, x)
        definite = False
    else:
        r = _sp.integrate(e, (x, _parse(lo, "lower"), _parse(hi, "upper")))
        definite = True
    extra = {"definite": definite, "evaluated": not r.has(_sp.Integral)}
    if steps:
        extra.update(_integral_steps(e, x))
    return _finish(r, extra)


# Fields of manualintegrate's rules that are not a step's own data: its integral and its substeps.
_RULE_SKIP = ("integrand", "variable")


def _integral_steps(e, x):
    """The antiderivative's steps as SymPy's step-by-step integrator (manualintegrate) finds them: each rule
    in pre-order with its integrand, its own antiderivative and what it chose (u, dv, the constant...), or
    `steps: null` with a note where it has none (it covers what a calculus course does, not all of integrate)."""
    from sympy.integrals import manualintegrate as _mi
    import dataclasses as _dc

    rule = _mi.integral_steps(e, x)
    if rule.contains_dont_know():
        return {"steps": None, "steps_note": "SymPy's step-by-step integrator has no steps for this integrand; the result is integrate's"}
    out = []

    def walk(r, depth):
        # An AlternativeRule is a choice: its first alternative is the one manualintegrate evaluates.
        if _type(r).__name__ == "AlternativeRule":
            walk(r.alternatives[0], depth)
            return
        chose = {}
        children = []
        for f in _dc.fields(r):
            v = getattr(r, f.name)
            if f.name in _RULE_SKIP:
                continue
            if _isinstance(v, _mi.Rule):
                children.append(v)
            elif _isinstance(v, (list, tuple)) and v and all(_isinstance(w, _mi.Rule) for w in v):
                children.extend(v)
            elif _isinstance(v, _Basic):
                chose[f.name] = _str(v)
        name = _type(r).__name__
        out.append({
            "rule": name[:-4] if name.endswith("Rule") else name,
            "integrand": _str(r.integrand),
            "variable": _str(r.variable),
            "antiderivative": _str(r.eval()),
            "depth": depth,
            "with": chose,
        })
        for c in children:
            walk(c, depth + 1)

    walk(rule, 0)
    return {"steps": out}


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
    e = _exact(_parse(_need(args, "expression"), "expression"))
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
            pairs[by_name[name]] = _exact(_parse(value, "substitutions"))
        e = e.subs(pairs)
    digits = _int_arg(args, "precision", 15, 1, 10000)
    if digits > _limit("max_precision", 1000):
        raise _Failure(
            "limit_exceeded", "`precision` %d is above the limit %d (max_precision)" % (digits, _limit("max_precision", 1000))
        )
    if _isinstance(e, _Basic) and e.free_symbols:
        raise _invalid(
            "the expression still has free symbols (%s): give their values in `substitutions`"
            % ", ".join(sorted(x.name for x in e.free_symbols))
        )
    if _isinstance(e, _Basic) and e.has(_sp.zoo, _sp.nan):
        raise _domain("the value is undefined (%s): a division by zero or a pole" % e)
    if _isinstance(e, _Expr) and e.is_Integer:
        value = _str(e)
    else:
        value = _str(_sp.N(e, digits)).rstrip(".")
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


def _inequality(r):
    """An inequality as (d, strict) with `d > 0` (or `d >= 0`) equivalent to it."""
    if _isinstance(r, (_sp.StrictGreaterThan, _sp.GreaterThan)):
        return r.lhs - r.rhs, _isinstance(r, _sp.StrictGreaterThan)
    return r.rhs - r.lhs, _isinstance(r, _sp.StrictLessThan)


def _op_equivalent(args):
    a = _exact(_parse(_need(args, "expression"), "expression", equation=True))
    b = _exact(_parse(_need(args, "other"), "other", equation=True))
    out = {}
    ineq = (_sp.StrictGreaterThan, _sp.GreaterThan, _sp.StrictLessThan, _sp.LessThan)
    if _isinstance(a, ineq) or _isinstance(b, ineq):
        if not (_isinstance(a, ineq) and _isinstance(b, ineq)):
            out.update({"equivalent": False, "method": "structural", "why": "one is an inequality and the other is not"})
            return out
        (da, sa), (db, sb) = _inequality(a), _inequality(b)
        ratio = _sp.simplify(da / db)
        if ratio.is_number and ratio.is_positive:
            if sa == sb:
                out.update({"equivalent": True, "method": "simplify"})
            else:
                out.update({"equivalent": False, "method": "simplify", "why": "one is strict and the other is not"})
        else:
            out.update({"equivalent": None, "method": "simplify",
                        "why": "the two sides are not positive multiples of each other; not decided"})
        return out
    if _isinstance(a, _Equality) != _isinstance(b, _Equality):
        out.update({"equivalent": False, "method": "structural", "why": "one is an equation and the other is not"})
        return out
    if _isinstance(a, _Equality):
        da, db = a.lhs - a.rhs, b.lhs - b.rhs
        gap = _sp.simplify(da - db)
        if da == db or gap == 0:
            verdict, method = True, "structural"
        elif gap.is_number and gap.is_zero is False and (da.free_symbols | db.free_symbols):
            # lhs - rhs differ by a nonzero constant: the two can never hold together, so (unless neither can
            # ever hold) their solution sets differ.
            verdict, method = _same_solutions(da, db) if _len(da.free_symbols | db.free_symbols) == 1 else (False, "simplify")
        else:
            ratio = _sp.simplify(da / db)
            if ratio.is_number and ratio.is_zero is False and ratio.is_finite:
                verdict, method = True, "simplify"
            else:
                verdict, method = _same_solutions(da, db)
        out.update({"equivalent": verdict, "method": method})
        if verdict is None:
            out["why"] = (
                "equations in several unknowns that are not constant multiples of each other: not decided"
            )
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


# The keys each operation reads: any other key is refused, so that no parameter is silently ignored.
_KEYS = {
    "simplify": ("expression",),
    "expand": ("expression",),
    "factor": ("expression",),
    "cancel": ("expression",),
    "apart": ("expression", "variable"),
    "solve": ("expression", "equations", "variable", "variables", "domain"),
    "diff": ("expression", "variable", "variables", "order"),
    "integrate": ("expression", "variable", "lower", "upper", "steps"),
    "limit": ("expression", "variable", "point", "direction"),
    "series": ("expression", "variable", "point", "order"),
    "summation": ("expression", "variable", "lower", "upper"),
    "dsolve": ("equation", "function", "ics"),
    "evaluate": ("expression", "substitutions", "precision"),
    "matrix": ("matrix", "operation_args"),
    "roots": ("expression", "variable"),
    "equivalent": ("expression", "other"),
}


def _symbolic_math(args):
    op = args.get("operation")
    fn = _OPERATIONS.get(op)
    if fn is None:
        raise _invalid("unknown operation %r (known: %s)" % (op, ", ".join(_OPERATIONS)))
    extra = [k for k in args if k != "operation" and k not in _KEYS[op] and args[k] is not None]
    if extra:
        raise _invalid(
            "`%s` does not take %s (it takes: %s)"
            % (op, ", ".join("`%s`" % k for k in extra), ", ".join(_KEYS[op]))
        )
    declared = set()
    for key in ("variable", "function"):
        if _isinstance(args.get(key), _str):
            declared.add(args[key].split("(")[0].strip())
    for key in ("variables",):
        if _isinstance(args.get(key), list):
            declared.update(v for v in args[key] if _isinstance(v, _str))
    if _isinstance(args.get("substitutions"), dict):
        declared.update(args["substitutions"])
    if _isinstance(args.get("function"), _str) and "(" in args["function"]:
        declared.add(args["function"].split("(", 1)[1].rstrip(") "))
    _CALL["declared"] = declared
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


# LaTeX that mathtext does not know, rewritten to what it does (or dropped where it only changes spacing).
_TEX_REWRITES = (
    (_re.compile(r"\\(?:no)?limits(?![A-Za-z])"), ""),
    (_re.compile(r"\\(?:display|text|script)style(?![A-Za-z])"), ""),
    (_re.compile(r"\\[dt]frac(?![A-Za-z])"), r"\\frac"),
    (_re.compile(r"\\le(?![A-Za-z])"), r"\\leq"),
    (_re.compile(r"\\ge(?![A-Za-z])"), r"\\geq"),
    (_re.compile(r"\\ne(?![A-Za-z])"), r"\\neq"),
    (_re.compile(r"\\bmod(?![A-Za-z])"), r"\\ \\mathrm{mod}\\ "),
    (_re.compile(r"\\operatorname\{"), r"\\mathrm{"),
    (_re.compile(r"\\boxed(?![A-Za-z])"), ""),
)


def _for_mathtext(latex):
    """Display delimiters dropped (`$$`, `\\[ \\]`, `\\( \\)`, `$`) and the rewrites above applied."""
    t = latex.strip()
    for open_, close in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if t.startswith(open_) and t.endswith(close) and _len(t) >= _len(open_) + _len(close):
            t = t[_len(open_) : _len(t) - _len(close)].strip()
            break
    for pattern, repl in _TEX_REWRITES:
        t = pattern.sub(repl, t)
    return t


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
        latex = _for_mathtext(text)
        trailing = _len(latex) - _len(latex.rstrip("\\"))
        if not latex or trailing % 2 == 1 or "$" in latex.replace("\\$", ""):
            raise _invalid("`expression` is not LaTeX math that can be drawn (empty, a lone `\\` at the end, or a `$` inside)")
    out = {"latex": latex}
    if fmt == "latex" and kind == "sympy":
        return out
    try:
        data = _render_latex(_for_mathtext(latex) if kind == "sympy" else latex, "png" if fmt == "latex" else fmt, fontsize, dpi)
    except (MemoryError, RecursionError):
        raise
    except ValueError as e:
        why = _str(e).strip().replace("$" + latex + "$", latex)
        if kind == "sympy":
            # SymPy wrote this LaTeX: that mathtext cannot draw it is a limit of the tool, not the caller's mistake.
            raise _Failure("tool_error", "matplotlib's mathtext cannot draw SymPy's LaTeX for this expression "
                           "(environments such as matrices and piecewise functions are beyond it): %s" % why)
        raise _invalid("matplotlib's mathtext cannot render this LaTeX: %s" % why)
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
    _CALL["limits"] = req.get("limits") or {}
    _CALL["declared"] = set()
    # SymPy's integers are Python's: lift CPython's 4,300-digit guard on printing them (max_digits and the
    # output cap bound them instead).
    _sys.set_int_max_str_digits(0)
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
