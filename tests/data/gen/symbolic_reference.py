#!/usr/bin/env python3
"""Independent reference data for Beaker's `symbolic_math` tool, computed with native SymPy.

Needs the SymPy and mpmath versions the sandbox runs (sympy 1.14.0, mpmath 1.3.0), e.g. the venv that
python_scientific_reference.py uses:

    python3.12 -m venv ~/.cache/beaker-refpy
    ~/.cache/beaker-refpy/bin/pip install sympy==1.14.0 mpmath==1.3.0 lark

Run (from anywhere):

    ~/.cache/beaker-refpy/bin/python tests/data/gen/symbolic_reference.py

It (re)writes ``tests/data/python/symbolic_reference.jsonl`` (the first line is a ``//`` header with the
versions used), one case per line, in a fixed order; the bytes do not depend on PYTHONHASHSEED (checked
with 0 and 1):

    {"name": ..., "params": {"operation": ..., ...}, "expect": {KEY: VALUE, ...},
     ["unordered": [KEY, ...]], ["note": ...]}
    {"name": ..., "params": {...}, "error_kind": "invalid_params" | "domain_error" | "tool_error", ["note": ...]}

``params`` is the tool's request exactly as crates/beaker-python/src/symbolic_math.md defines it; ``expect``
holds only the result keys to check, compared exactly (strings are SymPy's ``str``); a key listed in
``unordered`` holds a list (or an object) whose order means nothing: compare it as a multiset.

How it is independent of the tool: every expected value comes from calling SymPy's own functions
(``simplify``, ``solve``, ``integrate``, ``limit``, ``series``, ``summation``, ``dsolve``, ``N``,
``Matrix.*``, ``roots``) on expressions parsed here with
``parse_expr(s, transformations=standard_transformations + (implicit_multiplication,
implicit_application, convert_xor))`` (no ``split_symbols``: ``rate`` stays one symbol). The semantics
the tool must mirror:

* an equation ``lhs = rhs`` / ``lhs == rhs`` is ``Eq(lhs, rhs)``; where an expression is expected, its
  ``lhs - rhs`` (the script asserts the two give the same answers);
* symbols named in ``variable``/``variables`` are ``Symbol(name, real=True)`` only for ``solve`` with
  ``domain: "real"``; every other symbol is a plain ``Symbol(name)``;
* ``decimal`` is ``str(N(result, 15))`` whenever ``result`` is a finite number -- integers included
  ("6.00000000000000"), complex as SymPy prints them; left out for ``oo``/``zoo``/``nan``;
* ``solve``: one unknown -> ``[str(s) for s in solve(eq, x)]``; several unknowns or a list of equations ->
  ``solve(eqs, vars, dict=True)`` as ``[{var: value}]``; ``count`` is the length;
* ``limit`` without ``direction``: ``limit(.., '+')`` and ``limit(.., '-')`` must agree (else
  ``domain_error``); at ``oo``/``-oo`` just ``limit(expr, x, p)``;
* ``series``: ``result = str(series(expr, x, point, order))``, ``polynomial`` = its ``removeO()``;
* ``dsolve``: ``solutions`` are the ``rhs`` of ``dsolve(eq, y(t), ics=...)`` (a list); ``y'``/``y''`` and a
  bare ``y`` in prime notation mean ``Derivative(y(t), t)``, ``Derivative(y(t), (t, 2))``, ``y(t)``;
* ``evaluate``: ``value = str(N(expr.subs(substitutions), precision))`` (default 15), except that an
  exact integer value is written in full (``str(Integer)``); ``zoo``/``nan`` is a ``domain_error``;
* ``matrix``: det/rank/trace/charpoly -> ``result`` (charpoly in ``Symbol('lambda')``, ``rank`` also as
  the integer ``rank``); inverse/transpose/rref -> ``matrix`` (rows of ``str``), rref also ``pivots``;
  eigenvals -> ``eigenvalues`` {str: multiplicity}; eigenvects -> ``eigenvectors`` [{eigenvalue,
  multiplicity, vectors}]; nullspace -> ``vectors`` (each column vector as a list of ``str``);
* ``roots``: ``roots`` = {str(r): m} of ``roots(lhs - rhs, x)``, ``complete`` = sum(m) == degree;
* ``equivalent``: ``structural`` when the parsed trees are equal; else ``simplify(a - b)``: 0 -> true,
  a provably nonzero number -> false (method ``simplify``); else numeric sampling -> false (``numeric``)
  when the two differ at (almost) every point, ``null`` for identities SymPy's simplify cannot prove.
  The script samples real and complex points itself and keeps only cases whose numeric verdict does not
  depend on where the tool samples.

Every case is timed natively and must take under one second (the tool runs 5-20x slower in WebAssembly).
"""

import json
import os
import random
import re
import sys
import time

import mpmath
import sympy
from sympy import (Eq, Function, Integer, Integral, Matrix, N, Symbol, apart, cancel, diff, dsolve,
                   expand, factor, integrate, latex, limit, oo, roots, series, simplify, solve, summation,
                   zoo, nan)
from sympy.parsing.sympy_parser import (convert_xor, implicit_application, implicit_multiplication,
                                        parse_expr, standard_transformations)

assert sympy.__version__ == "1.14.0", sympy.__version__
assert mpmath.__version__ == "1.3.0", mpmath.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "python", "symbolic_reference.jsonl")
TRANSFORMS = standard_transformations + (implicit_multiplication, implicit_application, convert_xor)

KNOWN_OPS = ("simplify", "expand", "factor", "cancel", "apart", "solve", "diff", "integrate", "limit", "series",
             "summation", "dsolve", "evaluate", "matrix", "roots", "equivalent")
LINES = []
NAMES = set()
COUNTS = {}
TIMES = []
LATEX_TICK = [0]


# ----------------------------------------------------------------------------------------------
# parsing (what the contract says the tool's parser does)
# ----------------------------------------------------------------------------------------------

def P(text, local=None):
    return parse_expr(text, local_dict=dict(local or {}), transformations=TRANSFORMS)


_SINGLE_EQ = re.compile(r"(?<![<>!=])=(?!=)")


def split_eq(text):
    """'lhs = rhs' or 'lhs == rhs' -> (lhs, rhs) strings; None for a plain expression."""
    if "==" in text:
        lhs, rhs = text.split("==")
        return lhs, rhs
    parts = _SINGLE_EQ.split(text)
    if len(parts) == 2:
        return parts[0], parts[1]
    assert len(parts) == 1, text
    return None


def P_eq(text, local=None):
    """An equation or expression -> (Eq or None, lhs - rhs)."""
    sp = split_eq(text)
    if sp is None:
        e = P(text, local)
        if isinstance(e, sympy.Equality):
            return e, e.lhs - e.rhs
        return None, e
    lhs, rhs = P(sp[0], local), P(sp[1], local)
    return Eq(lhs, rhs), lhs - rhs


def syms(names, real=False):
    return {n: (Symbol(n, real=True) if real else Symbol(n)) for n in names}


def is_finite_number(r):
    return (isinstance(r, sympy.Basic) and r.is_number and not r.has(oo, -oo, zoo, nan)
            and not r.has(sympy.AccumBounds) and not isinstance(r, (sympy.Tuple, sympy.MatrixBase)))


# ----------------------------------------------------------------------------------------------
# writing cases
# ----------------------------------------------------------------------------------------------

def _canon(v):
    """Unordered values are written sorted, so the file's bytes never depend on SymPy's set order."""
    if isinstance(v, list):
        return sorted(v, key=lambda e: json.dumps(e, sort_keys=True))
    if isinstance(v, dict):
        return {k: v[k] for k in sorted(v)}
    return v


def emit(name, params, expect=None, error_kind=None, unordered=None, note=None, elapsed=None):
    assert re.fullmatch(r"[a-z0-9_]+", name), name
    assert name not in NAMES, name
    NAMES.add(name)
    obj = {"name": name, "params": params}
    if error_kind is not None:
        assert error_kind in ("invalid_params", "domain_error", "tool_error"), error_kind
        assert expect is None
        obj["error_kind"] = error_kind
    else:
        assert expect, name
        if unordered:
            for k in unordered:
                assert k in expect, (name, k)
                expect[k] = _canon(expect[k])
        obj["expect"] = expect
        if unordered:
            obj["unordered"] = list(unordered)
    if note:
        obj["note"] = note
    LINES.append(json.dumps(obj, ensure_ascii=False))
    op = params.get("operation", "?")
    if op not in KNOWN_OPS:
        op = "(unknown operation)"
    COUNTS[op] = COUNTS.get(op, 0) + 1
    if elapsed is not None:
        TIMES.append((elapsed, name))
        assert elapsed < 1.0, f"{name} takes {elapsed:.2f} s natively"


def timed(fn):
    t0 = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t0


def with_result(r, expect=None, want_latex=None):
    """result (+ decimal when a finite number) (+ latex for about a third of the cases)."""
    e = {"result": str(r)}
    if is_finite_number(r):
        e["decimal"] = str(N(r, 15))
    # Cases that say whether they want the LaTeX do not move the tick, so adding them leaves the others as they were.
    if want_latex is None:
        LATEX_TICK[0] += 1
    if want_latex is True or (want_latex is None and LATEX_TICK[0] % 3 == 0):
        e["latex"] = latex(r)
    if expect:
        e.update(expect)
    return e


# ----------------------------------------------------------------------------------------------
# operations
# ----------------------------------------------------------------------------------------------

def rewrite_ops():
    """simplify, expand, factor, cancel, apart: result = str(op(expr))."""
    table = {
        "simplify": [
            ("trig_pythagoras", "sin(x)^2 + cos(x)^2", "1"),
            ("rational_cancels", "(x^2 - 1)/(x - 1)", "x + 1"),
            ("cubic_over_square", "(x^3 + x^2 - x - 1)/(x^2 + 2x + 1)", "x - 1"),
            ("double_angle", "2sin(x)cos(x)", "sin(2*x)"),
            ("exp_product", "exp(x)*exp(y)", "exp(x + y)"),
            ("gamma_ratio", "gamma(n + 1)/gamma(n)", "n"),
            ("factorial_ratio", "factorial(n + 1)/factorial(n)", "n + 1"),
            ("hyperbolic_identity", "cosh(x)^2 - sinh(x)^2", "1"),
            ("log_ratio", "log(8)/log(2)", "3"),
            ("tan_times_cos", "tan(x)*cos(x)", "sin(x)"),
            ("harmonic_mean", "1/(1/x + 1/y)", "x*y/(x + y)"),
            ("sqrt_square_stays", "sqrt(x^2)", "sqrt(x**2)",
             "no assumptions on x: sqrt(x**2) is not |x| or x, it stays"),
            ("syntax_implicit_mult", "(x + x y)/x", "y + 1", "implicit multiplication `x y`"),
        ],
        "expand": [
            ("cube", "(x+1)^3", "x**3 + 3*x**2 + 3*x + 1"),
            ("difference_of_squares", "(x + y)(x - y)", None),
            ("trinomial_square", "(a + b + c)^2", None),
            ("three_factors", "x(x+1)(x+2)", None),
            ("fourth_power", "(2x - 3)^4", None),
            ("mixed", "(x+1)^2 (x-1)", None),
            ("exp_of_sum", "exp(x + y)", "exp(x)*exp(y)"),
            ("log_power_stays", "log(x^2)", "log(x**2)", "expand does not split log(x**2) without x > 0"),
            ("complex_power", "(1 + I)^4", "-4"),
            ("surd_cube", "(sqrt(2) + 1)^3", "7 + 5*sqrt(2)"),
            ("complex_product", "(1 + 2I)(3 - I)", "5 + 5*I", "a complex number: decimal as N prints it"),
            ("trig_not_expanded", "sin(x + y)", "sin(x + y)", "expand() has trig=False by default"),
            ("syntax_number_paren", "3(x+1)", "3*x + 3", "`3(x+1)` is 3*(x+1)"),
        ],
        "factor": [
            ("seed_quadratic", "x^2 - 5x + 6", "(x - 3)*(x - 2)"),
            ("cube_minus_one", "x^3 - 1", None),
            ("fourth_minus_one", "x^4 - 1", None),
            ("two_variables", "x^2 y + x y^2", None),
            ("common_factor", "2x^2 + 4x + 2", "2*(x + 1)**2"),
            ("sophie_germain", "x^4 + 4", None),
            ("irreducible_over_q", "x^2 - 2", "x**2 - 2"),
            ("non_monic", "6x^2 - x - 2", None),
            ("perfect_cube", "x^3 - 3x^2 + 3x - 1", "(x - 1)**3"),
            ("difference_of_squares", "a^2 - b^2", None),
            ("integer_unchanged", "360", "360", "factor() of an integer is the integer (factorint is another function)"),
            ("syntax_caret_and_2x", "2x^3 - 2x", None, "`^` is power and `2x` is 2*x"),
        ],
        "cancel": [
            ("linear_factor", "(x^2 - 1)/(x - 1)", "x + 1"),
            ("cube_difference", "(x^3 - 8)/(x - 2)", None),
            ("common_binomial", "(x^2 + 2x + 1)/(x^2 - 1)", None),
            ("monomial_denominator", "(x y + x)/(x^2)", None),
            ("sum_of_fractions", "1/x + 1/(x+1)", None),
            ("numeric_content", "(2x^2 - 8)/(4x + 8)", "x/2 - 1"),
            ("quartic_over_quadratic", "(x^4 - 1)/(x^2 + 1)", None),
            ("two_symbols", "(a^2 - b^2)/(a + b)", "a - b"),
            ("exp_generator", "(exp(2x) - 1)/(exp(x) - 1)", None),
        ],
    }
    for op, cases in table.items():
        fn = {"simplify": simplify, "expand": expand, "factor": factor, "cancel": cancel}[op]
        for c in cases:
            name, text, want = c[0], c[1], c[2]
            note = c[3] if len(c) > 3 else None
            r, dt = timed(lambda: fn(P(text)))
            if want is not None:
                assert str(r) == want, (op, name, str(r), want)
            emit(f"{op}_{name}", {"operation": op, "expression": text}, with_result(r), note=note, elapsed=dt)

    apart_cases = [
        ("difference_of_squares", "1/(x^2 - 1)", "x"),
        ("two_linear", "(x + 3)/(x^2 + 3x + 2)", "x"),
        ("telescoping", "1/(x(x+1))", "x"),
        ("quadratic_factor", "(2x^2 + 3)/(x^3 + x)", "x"),
        ("repeated_zero", "1/(x^2 (x - 1))", "x"),
        ("improper", "x^3/(x^2 - 1)", "x"),
        ("symbolic_poles", "1/((x - a)(x - b))", "x"),
        ("no_variable_one_symbol", "(3x + 5)/(x + 1)^2", None),
        ("quartic", "1/(x^4 - 1)", "x"),
    ]
    for name, text, var in apart_cases:
        params = {"operation": "apart", "expression": text}
        if var:
            params["variable"] = var
        r, dt = timed(lambda: apart(P(text), Symbol(var)) if var else apart(P(text)))
        emit(f"apart_{name}", params, with_result(r), elapsed=dt,
             note=None if var else "no variable: the expression's only free symbol")


def bare_application_cases():
    """A function written without brackets takes one token when an operator or another factor follows it: the
    expected value is SymPy's on the bracketed text (`sin(x) * 2`), the params give the bare text."""
    x = Symbol("x")
    for name, op, bare, explicit in [
        ("times_two", "simplify", "sin x * 2", "sin(x) * 2"),
        ("product_of_two", "simplify", "sin x cos x", "sin(x)*cos(x)"),
        ("log_over_two", "expand", "log x / 2", "log(x) / 2"),
        ("power_stays_inside", "simplify", "sin x^2", "sin(x^2)"),
        ("coefficient_token", "simplify", "sin 2x", "sin(2*x)"),
    ]:
        f = {"simplify": simplify, "expand": expand}[op]
        r, dt = timed(lambda: f(P(explicit)))
        emit(f"bare_application_{name}", {"operation": op, "expression": bare}, with_result(r, want_latex=False),
             elapsed=dt, note=f"read as {explicit}")
    r, dt = timed(lambda: diff(P("sin(x)*cos(x)"), x))
    emit("bare_application_diff", {"operation": "diff", "expression": "sin x cos x", "variable": "x"},
         with_result(r, want_latex=False), elapsed=dt, note="read as sin(x)*cos(x)")


def solve_cases():
    def single(name, text, var, domain=None, note=None, want=None, variable_key=True):
        real = domain == "real"
        local = syms([var], real)
        x = local[var]
        eq, f = P_eq(text, local)

        def run():
            sols = solve(eq if eq is not None else f, x)
            if eq is not None:
                assert solve(f, x) == sols, name
            return sols
        sols, dt = timed(run)
        out = [str(s) for s in sols]
        if want is not None:
            assert sorted(out) == sorted(want), (name, out)
        params = {"operation": "solve", "expression": text}
        if variable_key:
            params["variable"] = var
        if domain:
            params["domain"] = domain
        emit(f"solve_{name}", params, {"solutions": out, "count": len(out)}, unordered=["solutions"],
             note=note, elapsed=dt)

    single("seed_quadratic", "x^2 - 5x + 6 = 0", "x", want=["2", "3"],
           note="the seed spec's example, with implicit multiplication 5x")
    single("imaginary_pair", "x^2 + 1", "x", want=["-I", "I"], note="an expression means expression = 0")
    single("imaginary_pair_real_domain", "x^2 + 1", "x", domain="real", want=[])
    single("imaginary_pair_real_domain_equation_no_variable", "x^2 + 1 = 0", "x", domain="real", want=[],
           variable_key=False, note="an equation with no real root and no `variable`: the unknown is inferred")
    single("cube_roots_of_unity", "x^3 - 1", "x", domain="complex")
    single("cube_roots_of_unity_real", "x^3 - 1", "x", domain="real", want=["1"])
    single("square_root_two", "x^2 = 2", "x", want=["-sqrt(2)", "sqrt(2)"])
    single("general_quadratic", "a x^2 + b x + c", "x", note="parameters a, b, c stay symbols")
    single("exponential", "exp(x) = 5", "x", want=["log(5)"])
    single("periodic_sine", "sin(x) = 1/2", "x", want=["pi/6", "5*pi/6"], note="one period, as solve gives")
    single("periodic_cosine", "cos(x) = 0", "x", want=["pi/2", "3*pi/2"])
    single("double_equals", "2x + 3 == 7", "x", want=["2"], note="`==` is an equation too")
    single("eq_function", "Eq(x^2, 4)", "x", want=["-2", "2"])
    single("biquadratic", "x^4 - 5x^2 + 4", "x", want=["-2", "-1", "1", "2"])
    single("logarithm", "log(x) = 2", "x", want=["exp(2)"])
    single("square_root", "sqrt(x) = 3", "x", want=["9"])
    single("complex_conjugates", "x^2 - 2x + 5", "x", want=["1 - 2*I", "1 + 2*I"])
    single("complex_conjugates_real_domain", "x^2 - 2x + 5", "x", domain="real", want=[])
    single("exp_negative_real_domain", "exp(x) = -1", "x", domain="real", want=[])
    single("multi_letter_names", "rate time = distance", "time", want=["distance/rate"],
           note="multi-letter names stay whole: rate*time, not r*a*t*e*t*i*m*e")
    single("cubic_integer_roots", "x^3 - 6x^2 + 11x - 6", "x", want=["1", "2", "3"])
    single("default_variable", "2y - 8", "y", want=["4"], variable_key=False,
           note="no variable: the only free symbol")
    single("abs_real_domain", "Abs(x) = 2", "x", domain="real", want=["-2", "2"],
           note="with x real SymPy can split |x|")
    single("lambert", "x exp(x) = 1", "x", want=["LambertW(1)"])

    def system(name, eqs, variables, want=None, note=None, domain=None):
        real = domain == "real"
        names = variables or sorted({s.name for e in eqs for s in P_eq(e)[1].free_symbols})
        local = syms(names, real)
        parsed = [P_eq(e, local) for e in eqs]
        vs = [local[n] for n in names]

        def run():
            sols = solve([q if q is not None else f for q, f in parsed], vs, dict=True)
            assert solve([f for _, f in parsed], vs, dict=True) == sols, name
            return sols
        sols, dt = timed(run)
        out = [{str(k): str(v) for k, v in sorted(s.items(), key=lambda kv: kv[0].name)} for s in sols]
        if want is not None:
            assert sorted(map(json.dumps, out)) == sorted(map(json.dumps, want)), (name, out)
        params = {"operation": "solve", "equations": eqs}
        if variables:
            params["variables"] = variables
        if domain:
            params["domain"] = domain
        emit(f"solve_system_{name}", params, {"solutions": out, "count": len(out)}, unordered=["solutions"],
             note=note, elapsed=dt)

    system("linear_2x2", ["x + y = 3", "x - y = 1"], ["x", "y"], want=[{"x": "2", "y": "1"}])
    system("circle_and_line", ["x^2 + y^2 = 25", "x - y = 1"], ["x", "y"],
           want=[{"x": "-3", "y": "-4"}, {"x": "4", "y": "3"}])
    system("linear_3x3", ["x + y + z = 6", "2x - y + z = 3", "x + 2y - z = 2"], ["x", "y", "z"],
           want=[{"x": "1", "y": "2", "z": "3"}])
    system("product_and_sum", ["x y = 6", "x + y = 5"], ["x", "y"])
    system("default_variables", ["x + 2y = 5", "3x - y = 1"], None,
           note="no variables: all free symbols (x, y)")
    system("inconsistent", ["x + y = 1", "x + y = 2"], ["x", "y"], want=[])
    system("symbolic_rhs", ["x + y = a", "x - y = b"], ["x", "y"], want=[{"x": "a/2 + b/2", "y": "a/2 - b/2"}])
    system("parabola_real_domain", ["y = x^2", "y = 4"], ["x", "y"], domain="real",
           want=[{"x": "-2", "y": "4"}, {"x": "2", "y": "4"}])
    system("complex_intersection", ["y = x^2", "y = -1"], ["x", "y"],
           want=[{"x": "-I", "y": "-1"}, {"x": "I", "y": "-1"}])
    system("complex_intersection_real_domain", ["y = x^2", "y = -1"], ["x", "y"], domain="real", want=[])


def diff_cases():
    cases = [
        ("seed_exp_sin", "exp(x) sin(x)", "x", None, "exp(x)*sin(x) + exp(x)*cos(x)"),
        ("second_order", "x^3", "x", 2, "6*x"),
        ("fourth_order_sine", "sin(x)", "x", 4, "sin(x)"),
        ("x_to_the_x", "x^x", "x", None, "x**x*(log(x) + 1)"),
        ("chain_log", "log(x^2 + 1)", "x", None, None),
        ("partial_y", "x^2 y^3", "y", None, "3*x**2*y**2"),
        ("arctangent", "atan(x)", "x", None, "1/(x**2 + 1)"),
        ("semicircle", "sqrt(1 - x^2)", "x", None, None),
        ("syntax_function_application", "tan x", "x", None, "tan(x)**2 + 1"),
        ("syntax_sin_x", "sin x", "x", None, "cos(x)"),
        ("fifth_order_constant", "x^5", "x", 5, "120"),
        ("default_variable", "exp(-t^2)", None, None, "-2*t*exp(-t**2)"),
        ("third_order_with_parameter", "sin(a t)", "t", 3, "-a**3*cos(a*t)"),
        ("order_beyond_degree", "x^10", "x", 11, "0"),
        ("quotient", "x/(1 + x^2)", "x", None, None),
    ]
    for name, text, var, order, want in cases:
        params = {"operation": "diff", "expression": text}
        e = P(text)
        v = Symbol(var) if var else next(iter(e.free_symbols))
        if var is None:
            assert len(e.free_symbols) == 1
        if var:
            params["variable"] = var
        if order:
            params["order"] = order
        r, dt = timed(lambda: diff(e, v, order or 1))
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"diff_{name}", params, with_result(r), elapsed=dt,
             note="no variable: the only free symbol" if var is None else None)


def mixed_partial_cases():
    """`variables` with `diff`: differentiate by each name in turn, as ``diff(e, *names)``."""
    cases = [
        ("xy", "x^2 y^3", ["x", "y"], "6*x*y**2"),
        ("yx_is_xy", "sin(x y)", ["y", "x"], None),
        ("repeated_name", "exp(x y)", ["x", "x", "y"], None),
        ("three_variables", "x y z + x^2 z", ["x", "y", "z"], "1"),
        ("one_name_is_first_order", "x^3 y", ["x"], "3*x**2*y"),
    ]
    for name, text, names, want in cases:
        e = P(text)
        r, dt = timed(lambda: diff(e, *[Symbol(n) for n in names]))
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"diff_mixed_{name}", {"operation": "diff", "expression": text, "variables": names},
             with_result(r, want_latex=True), elapsed=dt)


def latex_cases():
    """LaTeX input, read here by SymPy's own LaTeX parser (``parse_latex(s, backend="lark")``), not by the tool's
    reader. Its conventions differ from the tool's in two documented ways, applied here: ``e`` is Euler's number
    (lark reads a symbol e), and ``x_{1}`` is the symbol ``x_1`` (lark names it ``x_{1}``)."""
    from sympy import E as EULER
    from sympy.parsing.latex import parse_latex

    def read(s):
        e = parse_latex(s, backend="lark")
        subs = {}
        for sym in e.free_symbols:
            name = str(sym).replace("{", "").replace("}", "")
            subs[sym] = EULER if name == "e" else Symbol(name)
        return e.xreplace(subs)

    def one(name, params, compute, want=None):
        r, dt = timed(compute)
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"latex_{name}", params, with_result(r, want_latex=False), elapsed=dt)

    x = Symbol("x")
    t = r"\frac{x^2-1}{x-1}"
    one("fraction_simplified", {"operation": "simplify", "expression": t}, lambda: simplify(read(t)), "x + 1")
    t = r"\left(x+1\right)^{3}"
    one("power_expanded", {"operation": "expand", "expression": t}, lambda: expand(read(t)))
    t = r"\sin^2 x"
    one("function_power_differentiated", {"operation": "diff", "expression": t, "variable": "x"},
        lambda: diff(read(t), x))
    t = r"\frac{\sin x}{x}"
    one("limit_of_a_fraction", {"operation": "limit", "expression": t, "variable": "x", "point": 0},
        lambda: limit(read(t), x, 0), "1")
    t = r"\binom{10}{3} + \log_2 8"
    one("binomial_and_log_base", {"operation": "evaluate", "expression": t}, lambda: read(t), "123")
    t = r"e^{x^2}"
    one("euler_power_differentiated", {"operation": "diff", "expression": t, "variable": "x"},
        lambda: diff(read(t), x))
    t = r"\frac{1}{\sqrt{2}} \cdot \theta"
    one("greek_and_root", {"operation": "simplify", "expression": t}, lambda: simplify(read(t)))
    t = r"x_{1} + x_{2} \cdot |x_{1}|"
    one("subscripts_and_abs", {"operation": "simplify", "expression": t}, lambda: simplify(read(t)))
    t, u = r"\lfloor x \rfloor", "3/2"
    one("floor_substituted", {"operation": "evaluate", "expression": t, "substitutions": {"x": u}},
        lambda: read(t).subs(x, sympy.Rational(3, 2)), "1")
    eq = r"x^{2} - 5x + 6 = 0"
    one("equation_solved", {"operation": "solve", "expression": eq, "variable": "x"},
        lambda: solve(read(eq), x), "[2, 3]")
    t = r"\frac{1}{x^2}"
    one("integrand_and_latex_bound", {"operation": "integrate", "expression": t, "variable": "x", "lower": 1,
                                      "upper": r"\infty"},
        lambda: integrate(read(t), (x, 1, read(r"\infty"))), "1")


def integrate_cases():
    indefinite = [
        ("seed_x2_sin", "x^2 sin(x)", "x", "-x**2*cos(x) + 2*x*sin(x) + 2*cos(x)"),
        ("reciprocal", "1/x", "x", "log(x)"),
        ("exponential", "exp(2x)", "x", "exp(2*x)/2"),
        ("arctangent", "1/(1 + x^2)", "x", "atan(x)"),
        ("by_parts", "x exp(x)", "x", None),
        ("sine_squared", "sin(x)^2", "x", None),
        ("logarithm", "log(x)", "x", "x*log(x) - x"),
        ("other_variable", "x y", "y", "x*y**2/2"),
        ("power_with_symbolic_exponent", "x^n", "x", None),
        ("rational_function", "1/(x^2 - 1)", "x", None),
    ]
    for name, text, var, want in indefinite:
        r, dt = timed(lambda: integrate(P(text), Symbol(var)))
        assert not r.has(Integral), name
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"integrate_{name}", {"operation": "integrate", "expression": text, "variable": var},
             with_result(r, {"definite": False, "evaluated": True}), elapsed=dt)

    definite = [
        ("polynomial_unit", "x^2", "x", 0, 1, "1/3", None),
        ("sine_half_period", "sin(x)", "x", 0, "pi", "2", None),
        ("exp_improper", "exp(-x)", "x", 0, "oo", "1", "improper: upper limit oo"),
        ("gaussian", "exp(-x^2)", "x", "-oo", "oo", "sqrt(pi)", "both limits infinite"),
        ("inverse_square_tail", "1/x^2", "x", 1, "oo", "1", None),
        ("lorentzian", "1/(1+x^2)", "x", "-oo", "oo", "pi", None),
        ("sqrt", "sqrt(x)", "x", 0, 4, "16/3", None),
        ("cosine_quarter", "cos(x)", "x", 0, "pi/2", "1", "a limit given as an expression string"),
        ("singular_endpoint", "1/sqrt(x)", "x", 0, 1, "2", "integrable singularity at 0"),
        ("dirichlet", "sin(x)/x", "x", 0, "oo", "pi/2", None),
        ("log_to_e", "1/x", "x", 1, "E", "1", None),
        ("symbolic_limits", "t", "t", "a", "b", None, None),
    ]
    for name, text, var, lo, hi, want, note in definite:
        x = Symbol(var)
        r, dt = timed(lambda: integrate(P(text), (x, P(str(lo)), P(str(hi)))))
        assert not r.has(Integral), name
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"integrate_definite_{name}",
             {"operation": "integrate", "expression": text, "variable": var, "lower": lo, "upper": hi},
             with_result(r, {"definite": True, "evaluated": True}), note=note, elapsed=dt)

    # `steps`: SymPy's step-by-step integrator's rules (manualintegrate.integral_steps), pre-order, an
    # AlternativeRule standing for its first alternative (the one manualintegrate evaluates); each with its
    # integrand, variable, own antiderivative (`eval`), depth and the expressions it chose (u, dv, constant...).
    from sympy.integrals import manualintegrate as mi
    import dataclasses

    def steps_of(e, x):
        rule = mi.integral_steps(e, x)
        if rule.contains_dont_know():
            return None
        out = []

        def walk(r, depth):
            if type(r).__name__ == "AlternativeRule":
                walk(r.alternatives[0], depth)
                return
            chose, children = {}, []
            for f in dataclasses.fields(r):
                v = getattr(r, f.name)
                if f.name in ("integrand", "variable"):
                    continue
                if isinstance(v, mi.Rule):
                    children.append(v)
                elif isinstance(v, (list, tuple)) and v and all(isinstance(w, mi.Rule) for w in v):
                    children.extend(v)
                elif isinstance(v, sympy.Basic):
                    chose[f.name] = str(v)
            n = type(r).__name__
            out.append({"rule": n[:-4] if n.endswith("Rule") else n, "integrand": str(r.integrand),
                        "variable": str(r.variable), "antiderivative": str(r.eval()), "depth": depth,
                        "with": chose})
            for c in children:
                walk(c, depth + 1)

        walk(rule, 0)
        return out

    for name, text in [("power", "x^2"), ("by_parts", "x cos(x)"), ("substitution", "x exp(x^2)"),
                       ("arctangent", "1/(1 + x^2)"), ("log_by_parts", "log(x)"), ("sum", "3x^2 + sin(x)"),
                       ("no_steps", "besselj(0, x)")]:
        x = Symbol("x")
        r, dt = timed(lambda: integrate(P(text), x))
        e = with_result(r, {"definite": False, "evaluated": not r.has(Integral)})
        st = steps_of(P(text), x)
        if st is None:
            e["steps"] = None
        else:
            e["steps"] = st
        emit(f"integrate_steps_{name}", {"operation": "integrate", "expression": text, "variable": "x",
                                          "steps": True}, e, elapsed=dt)

    # a definite integral SymPy leaves unevaluated (quickly): evaluated false, result the Integral
    x = Symbol("x")
    r, dt = timed(lambda: integrate(P("x^x"), (x, 0, 1)))
    assert isinstance(r, Integral), r
    e = {"result": str(r), "definite": True, "evaluated": False}
    emit("integrate_definite_not_elementary", {"operation": "integrate", "expression": "x^x", "variable": "x",
                                               "lower": 0, "upper": 1}, e,
         note="SymPy returns Integral(x**x, (x, 0, 1)) unevaluated: evaluated false (not an error); "
              "no decimal is expected", elapsed=dt)


def limit_cases():
    def one(name, text, var, point, direction=None, want=None, note=None):
        x = Symbol(var)
        e = P(text)
        p = P(str(point))

        def run():
            if direction:
                return limit(e, x, p, direction)
            if p in (oo, -oo):
                return limit(e, x, p)
            right, left = limit(e, x, p, "+"), limit(e, x, p, "-")
            assert right == left, (name, right, left)
            return right
        r, dt = timed(run)
        if want is not None:
            assert str(r) == want, (name, str(r))
        params = {"operation": "limit", "expression": text, "variable": var, "point": point}
        if direction:
            params["direction"] = direction
        emit(f"limit_{name}", params, with_result(r), note=note, elapsed=dt)

    one("seed_sinc", "sin(x)/x", "x", 0, want="1", note="two-sided: both one-sided limits are 1")
    one("compound_interest", "(1 + 1/x)^x", "x", "oo", want="E")
    one("reciprocal_right", "1/x", "x", 0, "+", want="oo")
    one("reciprocal_left", "1/x", "x", 0, "-", want="-oo")
    one("removable", "(x^2 - 4)/(x - 2)", "x", 2, want="4")
    one("one_minus_cos", "(1 - cos(x))/x^2", "x", 0, want="1/2")
    one("x_log_x_right", "x log(x)", "x", 0, "+", want="0")
    one("x_exp_minus_x", "x exp(-x)", "x", "oo", want="0")
    one("rational_at_infinity", "(3x^2 + 1)/(2x^2 - x)", "x", "oo", want="3/2")
    one("both_sides_infinite", "1/x^2", "x", 0, want="oo", note="both sides oo: the limit is oo")
    one("arctan_minus_infinity", "atan(x)", "x", "-oo", want="-pi/2")
    one("floor_left", "floor(x)", "x", 1, "-", want="0")
    one("floor_right", "floor(x)", "x", 1, "+", want="1")
    one("x_to_the_x", "x^x", "x", 0, "+", want="1")
    one("sqrt_difference", "sqrt(x^2 + x) - x", "x", "oo", want="1/2")
    one("exp_derivative", "(exp(x) - 1)/x", "x", 0, want="1")
    one("symbolic_point", "(x^2 - a^2)/(x - a)", "x", "a", want="2*a")
    one("pi_over_two", "(x - pi/2) tan(x)", "x", "pi/2", want="-1")


def series_cases():
    cases = [
        ("sine", "sin(x)", "x", None, None),
        ("exp_order_4", "exp(x)", "x", None, 4),
        ("cosine", "cos(x)", "x", 0, None),
        ("geometric", "1/(1 - x)", "x", None, 5),
        ("log1p", "log(1 + x)", "x", None, 5),
        ("exp_at_1", "exp(x)", "x", 1, 3),
        ("log_at_1", "log(x)", "x", 1, 4),
        ("sqrt_at_4", "sqrt(x)", "x", 4, 3),
        ("tangent", "tan(x)", "x", None, 8),
        ("sinc", "sin(x)/x", "x", None, None),
        ("arctangent", "atan(x)", "x", None, 8),
        ("exp_of_sin", "exp(sin(x))", "x", None, 5),
        ("cos_at_pi", "cos(x)", "x", "pi", 4),
        ("laurent", "1/(x (1 - x))", "x", None, 4),
        ("other_variable", "1/(1 + t^2)", "t", None, 7),
    ]
    for name, text, var, point, order in cases:
        x = Symbol(var)
        r, dt = timed(lambda: series(P(text), x, P(str(point)) if point is not None else 0,
                                     order if order is not None else 6))
        params = {"operation": "series", "expression": text, "variable": var}
        if point is not None:
            params["point"] = point
        if order is not None:
            params["order"] = order
        emit(f"series_{name}", params, with_result(r, {"polynomial": str(r.removeO())}), elapsed=dt)


def summation_cases():
    cases = [
        ("arithmetic", "k", "k", 1, "n", "n**2/2 + n/2", None),
        ("squares_to_10", "k^2", "k", 1, 10, "385", None),
        ("basel", "1/n^2", "n", 1, "oo", "pi**2/6", "the Basel problem"),
        ("geometric_half", "1/2^k", "k", 0, "oo", "2", None),
        ("exponential_series", "x^k/factorial(k)", "k", 0, "oo", "exp(x)", None),
        ("cubes", "k^3", "k", 1, "n", None, None),
        ("telescoping", "1/(k(k+1))", "k", 1, "oo", "1", None),
        ("alternating_harmonic", "(-1)^(k+1)/k", "k", 1, "oo", "log(2)", None),
        ("binomial_row", "binomial(n, k)", "k", 0, "n", None,
         "n has no assumptions: SymPy answers a Piecewise whose first branch is 2**n"),
        ("zeta_4", "1/n^4", "n", 1, "oo", "pi**4/90", None),
        ("geometric_symbolic", "r^k", "k", 0, "n - 1", None, "SymPy's Piecewise for r = 1"),
        ("gauss_100", "k", "k", 1, 100, "5050", None),
        ("harmonic_diverges", "1/k", "k", 1, "oo", "oo", "a divergent series sums to oo (not an error)"),
    ]
    for name, text, var, lo, hi, want, note in cases:
        k = Symbol(var)
        r, dt = timed(lambda: summation(P(text), (k, P(str(lo)), P(str(hi)))))
        if want is not None:
            assert str(r) == want, (name, str(r))
        emit(f"summation_{name}", {"operation": "summation", "expression": text, "variable": var,
                                    "lower": lo, "upper": hi}, with_result(r), note=note, elapsed=dt)


def dsolve_cases():
    def one(name, equation, meaning, function="y(t)", ics=None, want=None, note=None):
        """`meaning` is the equation written out in SymPy (prime notation expanded by hand here)."""
        fname, arg = re.fullmatch(r"(\w+)\((\w+)\)", function).groups()
        f, v = Function(fname), Symbol(arg)
        local = {fname: f, arg: v}
        eq, g = P_eq(meaning, local)
        ics_sym = None
        if ics:
            ics_sym = {}
            for key, val in ics.items():
                m = re.fullmatch(r"(\w+)('*)\((.+)\)", key)
                assert m and m.group(1) == fname, key
                at = P(m.group(3))
                nd = len(m.group(2))
                lhs = f(at) if nd == 0 else f(v).diff(v, nd).subs(v, at)
                ics_sym[lhs] = P(str(val))

        def run():
            s = dsolve(eq if eq is not None else g, f(v), ics=ics_sym)
            if eq is not None:
                s2 = dsolve(g, f(v), ics=ics_sym)
                assert s2 == s, (name, s, s2)
            return s if isinstance(s, list) else [s]
        sols, dt = timed(run)
        out = [str(s.rhs) for s in sols]
        if want is not None:
            assert out == want, (name, out)
        params = {"operation": "dsolve", "equation": equation, "function": function}
        if ics:
            params["ics"] = ics
        emit(f"dsolve_{name}", params, {"solutions": out}, unordered=["solutions"] if len(out) > 1 else None,
             note=note, elapsed=dt)

    one("harmonic_general", "Derivative(y(t), t, 2) + y(t)", "Derivative(y(t), t, 2) + y(t)",
        want=["C1*sin(t) + C2*cos(t)"], note="an expression means expression = 0")
    one("exponential_growth", "Derivative(y(t), t) = 2*y(t)", "Derivative(y(t), t) = 2*y(t)",
        want=["C1*exp(2*t)"])
    one("harmonic_ics_prime", "y'' + y = 0", "Derivative(y(t), t, 2) + y(t) = 0", ics={"y(0)": 1, "y'(0)": 0},
        want=["cos(t)"], note="prime notation: y'' is Derivative(y(t), (t, 2)), bare y is y(t)")
    one("growth_ics_prime", "y' = 3*y", "Derivative(y(t), t) = 3*y(t)", ics={"y(0)": 2}, want=["2*exp(3*t)"])
    one("method_call_form", "y(t).diff(t) - y(t)", "y(t).diff(t) - y(t)", want=["C1*exp(t)"])
    one("linear_first_order", "Derivative(y(t), t) + y(t) = t", "Derivative(y(t), t) + y(t) = t",
        want=["C1*exp(-t) + t - 1"])
    one("distinct_real_roots", "Derivative(y(t), t, 2) - 3*Derivative(y(t), t) + 2*y(t)",
        "Derivative(y(t), t, 2) - 3*Derivative(y(t), t) + 2*y(t)")
    one("separable_ics", "Derivative(y(t), t) = t*y(t)", "Derivative(y(t), t) = t*y(t)", ics={"y(0)": 1},
        want=["exp(t**2/2)"])
    one("oscillator_ics", "Derivative(y(t), t, 2) + 4*y(t) = 0", "Derivative(y(t), t, 2) + 4*y(t) = 0",
        ics={"y(0)": 0, "y'(0)": 2}, want=["sin(2*t)"])
    one("repeated_root_prime", "y'' - 2y' + y = 0", "Derivative(y(t), t, 2) - 2*Derivative(y(t), t) + y(t) = 0",
        want=["(C1 + C2*t)*exp(t)"], note="prime notation with implicit multiplication 2y'")
    one("riccati_square", "Derivative(y(t), t) = y(t)^2", "Derivative(y(t), t) = y(t)^2", want=["-1/(C1 + t)"])
    one("quadrature_ics_prime", "y' = sin(t)", "Derivative(y(t), t) = sin(t)", ics={"y(0)": 0},
        want=["1 - cos(t)"])
    one("other_independent_variable", "y'' + 9y = 0", "Derivative(y(x), x, 2) + 9*y(x) = 0", function="y(x)",
        want=["C1*sin(3*x) + C2*cos(3*x)"], note="the unknown is y(x): y'' means Derivative(y(x), (x, 2))")
    one("forced_oscillator", "Derivative(y(t), t, 2) + y(t) = sin(2*t)",
        "Derivative(y(t), t, 2) + y(t) = sin(2*t)")
    one("two_branches", "Derivative(y(t), t) = t/y(t)", "Derivative(y(t), t) = t/y(t)",
        note="SymPy finds two solutions (the two square-root branches)")


def evaluate_cases():
    def one(name, text, subs=None, precision=None, want=None, note=None):
        loc = {}
        e = P(text)
        if subs:
            e = e.subs({Symbol(k): (sympy.sympify(v) if not isinstance(v, str) else P(v)) for k, v in subs.items()})
        prec = precision or 15
        r, dt = timed(lambda: e if e.is_Integer else N(e, prec))
        assert not r.has(zoo, nan), name
        value = str(r)
        if want is not None:
            assert value == want, (name, value)
        params = {"operation": "evaluate", "expression": text}
        if subs:
            params["substitutions"] = subs
        if precision:
            params["precision"] = precision
        emit(f"evaluate_{name}", params, {"value": value}, note=note, elapsed=dt)

    one("pi_50", "pi", precision=50, want="3.1415926535897932384626433832795028841971693993751")
    one("sqrt2_50", "sqrt(2)", precision=50)
    one("gelfond_minus_pi_50", "E^pi - pi", precision=50, note="e^pi - pi = 19.99909997918947...")
    one("e_default_precision", "exp(1)", want="2.71828182845905")
    one("integer_substitution", "x^2 + 1", {"x": 3}, want="10", note="an integer value is written exactly")
    one("exact_half", "sin(x)", {"x": "pi/6"}, want="0.500000000000000",
        note="a substitution given as an expression string")
    one("big_power_exact", "2^100", want="1267650600228229401496703205376")
    one("factorial_exact", "factorial(25)", want="15511210043330985984000000")
    one("log10_30", "log(10)", precision=30)
    one("rational_value", "a b + c", {"a": 2, "b": 3, "c": "1/3"}, want="6.33333333333333")
    one("apery_40", "zeta(3)", precision=40)
    one("compound_limit_approx", "(1 + 1/n)^n", {"n": 1000})
    one("gamma_half_20", "gamma(1/2)", precision=20)
    one("imaginary", "sqrt(-4)", want="2.0*I", note="complex values as SymPy's N prints them")
    one("euler_identity", "exp(I pi)", want="-1", note="exactly the integer -1")
    one("third_20", "x/3", {"x": 1}, precision=20, want="0.33333333333333333333")
    one("euler_gamma_30", "EulerGamma", precision=30)
    one("golden_ratio_25", "(1 + sqrt(5))/2", precision=25)
    one("float_substitution", "x^2", {"x": 0.5}, want="0.250000000000000", note="a JSON float substitution")
    one("e_100", "E", precision=100)
    emit("evaluate_division_by_zero", {"operation": "evaluate", "expression": "1/0"}, error_kind="domain_error",
         note="1/0 parses to zoo: a division by zero")
    emit("evaluate_pole_substitution", {"operation": "evaluate", "expression": "1/(x - 2)",
                                        "substitutions": {"x": 2}}, error_kind="domain_error",
         note="the substitution lands on a pole (zoo)")
    emit("evaluate_precision_too_large", {"operation": "evaluate", "expression": "pi", "precision": 20000},
         error_kind="invalid_params", note="precision is at most 10000")


def matrix_cases():
    lam = Symbol("lambda")

    def M(rows):
        return Matrix([[P(v) if isinstance(v, str) else Integer(v) for v in row] for row in rows])

    def rows(m):
        return [[str(m[i, j]) for j in range(m.cols)] for i in range(m.rows)]

    def one(name, rows_in, kind, note=None):
        m = M(rows_in)

        def run():
            if kind in ("det", "trace"):
                r = m.det() if kind == "det" else m.trace()
                return with_result(r), None
            if kind == "rank":
                r = m.rank()
                return with_result(Integer(r), {"rank": r}), None
            if kind == "charpoly":
                return with_result(m.charpoly(lam).as_expr()), None
            if kind == "inverse":
                return {"matrix": rows(m.inv())}, None
            if kind == "transpose":
                return {"matrix": rows(m.T)}, None
            if kind == "rref":
                r, piv = m.rref()
                return {"matrix": rows(r), "pivots": list(piv)}, None
            if kind == "eigenvals":
                return {"eigenvalues": {str(k): int(v) for k, v in m.eigenvals().items()}}, ["eigenvalues"]
            if kind == "eigenvects":
                ev = [{"eigenvalue": str(val), "multiplicity": int(mult),
                       "vectors": [[str(c) for c in vec] for vec in vecs]} for val, mult, vecs in m.eigenvects()]
                return {"eigenvectors": ev}, ["eigenvectors"]
            if kind == "nullspace":
                return {"vectors": [[str(c) for c in vec] for vec in m.nullspace()]}, None
            raise AssertionError(kind)
        (expect, unordered), dt = timed(run)
        emit(f"matrix_{kind}_{name}", {"operation": "matrix", "matrix": rows_in, "operation_args": {"kind": kind}},
             expect, unordered=unordered, note=note, elapsed=dt)

    one("2x2", [[1, 2], [3, 4]], "det")
    one("3x3", [[2, 0, 1], [1, 3, 2], [1, 1, 2]], "det")
    one("symbolic", [["a", "b"], ["c", "d"]], "det", note="entries may be expression strings")
    one("rationals", [["1/2", "1/3"], ["1/4", "1/5"]], "det")
    one("2x2", [[1, 2], [3, 4]], "inverse")
    one("symbolic", [["a", "b"], ["c", "d"]], "inverse")
    one("3x3", [[2, 0, 1], [1, 3, 2], [1, 1, 2]], "inverse")
    one("rectangular", [[1, 2, 3], [4, 5, 6]], "transpose")
    one("symbolic", [["x", "y"], ["z", "w"]], "transpose")
    one("symmetric", [[2, 1], [1, 2]], "eigenvals")
    one("jordan_block", [[1, 1], [0, 1]], "eigenvals", note="a double eigenvalue: multiplicity 2")
    one("rotation", [[0, -1], [1, 0]], "eigenvals", note="complex eigenvalues")
    one("3x3_triangular", [[2, 1, 0], [0, 2, 0], [0, 0, 5]], "eigenvals")
    one("3x3_symmetric", [[2, -1, 0], [-1, 2, -1], [0, -1, 2]], "eigenvals")
    one("diagonal", [[2, 0], [0, 3]], "eigenvects")
    one("jordan_block", [[1, 1], [0, 1]], "eigenvects", note="defective: one vector for multiplicity 2")
    one("symmetric", [[2, 1], [1, 2]], "eigenvects")
    one("singular_3x3", [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "rref")
    one("full_rank", [[2, 1, -1], [-3, -1, 2], [-2, 1, 2]], "rref")
    one("augmented", [[1, 2, 1, 4], [2, 4, 0, 6]], "rref")
    one("singular_3x3", [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "rank")
    one("identity", [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "rank")
    one("rank_one", [[1, 2], [2, 4], [3, 6]], "rank")
    one("singular_3x3", [[1, 2, 3], [4, 5, 6], [7, 8, 9]], "nullspace")
    one("full_rank", [[1, 2], [3, 4]], "nullspace", note="no null vectors: an empty list")
    one("wide", [[1, 1, 1, 1]], "nullspace")
    one("2x2", [[1, 2], [3, 4]], "charpoly", note="the polynomial in the symbol lambda")
    one("3x3", [[2, 0, 1], [1, 3, 2], [1, 1, 2]], "charpoly")
    one("2x2", [[1, 2], [3, 4]], "trace")
    one("symbolic", [["a", "b"], ["c", "d"]], "trace")
    emit("matrix_inverse_singular", {"operation": "matrix", "matrix": [[1, 2], [2, 4]],
                                     "operation_args": {"kind": "inverse"}}, error_kind="domain_error",
         note="a singular matrix has no inverse")
    emit("matrix_ragged_rows", {"operation": "matrix", "matrix": [[1, 2], [3]],
                                "operation_args": {"kind": "det"}}, error_kind="invalid_params",
         note="rows of different lengths are not a matrix")
    emit("matrix_unknown_kind", {"operation": "matrix", "matrix": [[1, 2], [3, 4]],
                                 "operation_args": {"kind": "pseudoinverse"}}, error_kind="invalid_params")


def roots_cases():
    def one(name, text, var="x", note=None, want=None):
        x = Symbol(var)
        _, f = P_eq(text, {var: x})

        def run():
            rs = roots(f, x)
            deg = sympy.Poly(f, x).degree()
            return rs, deg
        (rs, deg), dt = timed(run)
        out = {str(k): int(v) for k, v in rs.items()}
        if want is not None:
            assert out == want, (name, out)
        emit(f"roots_{name}", {"operation": "roots", "expression": text, "variable": var},
             {"roots": out, "complete": sum(rs.values()) == deg}, unordered=["roots"], note=note, elapsed=dt)

    one("triple_and_simple", "(x - 1)^3 (x + 2)", want={"1": 3, "-2": 1})
    one("seed_quadratic", "x^2 - 5x + 6", want={"2": 1, "3": 1})
    one("fourth_roots_of_unity", "x^4 - 1", want={"1": 1, "-1": 1, "I": 1, "-I": 1})
    one("double_root_equation", "x^2 + 2x + 1 = 0", want={"-1": 2}, note="an equation: roots of lhs - rhs")
    one("double_and_simple", "x^3 - 3x + 2", want={"1": 2, "-2": 1})
    one("quintic_no_radicals", "x^5 - x + 1", want={},
        note="no radical roots: an empty map and complete false")
    one("cube_roots_of_two", "x^3 - 2")
    one("complex_pair", "x^2 - 2x + 5", want={"1 - 2*I": 1, "1 + 2*I": 1})
    one("double_surds", "(x^2 - 2)^2", want={"sqrt(2)": 2, "-sqrt(2)": 2})
    one("sixth_roots_of_unity", "x^6 - 1")
    one("equation_form", "x^4 = 16", want={"2": 1, "-2": 1, "2*I": 1, "-2*I": 1})
    one("zero_triple", "x^3", want={"0": 3})
    one("other_variable", "t^2 - t - 1", var="t")


def equivalent_cases():
    rng = random.Random(20240611)

    def numeric_verdict(a, b):
        """Sample real and complex points; 'false' if they differ (almost) everywhere, 'null' if they agree
        everywhere; anything in between depends on the tool's sample points: refuse the case."""
        fs = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
        diffs = []
        for i in range(24):
            pt = {}
            for s in fs:
                re_, im = rng.uniform(-3, 3), (rng.uniform(-3, 3) if i % 2 else 0.0)
                pt[s] = sympy.Float(re_, 30) + sympy.I * sympy.Float(im, 30)
            va, vb = complex(N(a.subs(pt), 30)), complex(N(b.subs(pt), 30))
            scale = max(abs(va), abs(vb), 1.0)
            diffs.append(abs(va - vb) / scale > 1e-12)
            if not fs:
                break
        if all(diffs):
            return False
        if not any(diffs):
            return None
        raise AssertionError("sampling-dependent")

    def one(name, expr, other, want, method_expected, note=None, emit_method=True):
        def run():
            a, b = P(expr), P(other)
            if a == b:
                return True, "structural"
            d = simplify(a - b)
            if d == 0:
                return True, "simplify"
            if d.is_number and d.is_zero is False:
                return False, "simplify"
            return numeric_verdict(a, b), "numeric"
        (verdict, method), dt = timed(run)
        assert verdict == want and method == method_expected, (name, verdict, method)
        e = {"equivalent": verdict}
        if emit_method:
            e["method"] = method
        emit(f"equivalent_{name}", {"operation": "equivalent", "expression": expr, "other": other}, e,
             note=note, elapsed=dt)

    one("structural_same_tree", "x^2 + 2x", "2*x + x**2", True, "structural",
        note="the same tree after parsing (`^`, `2x`, term order)")
    one("structural_implicit_mult", "3(x+1)", "3*x + 3", True, "structural",
        note="3*(x + 1) is auto-distributed by SymPy, so both parse to 3*x + 3")
    one("expanded_square", "x^2 + 2x + 1", "(x + 1)^2", True, "simplify")
    one("trig_pythagoras", "sin(x)^2 + cos(x)^2", "1", True, "simplify")
    one("triple_angle", "sin(3x)", "3sin(x) - 4sin(x)^3", True, "simplify")
    one("rational_cancel", "(x^2-1)/(x-1)", "x + 1", True, "simplify")
    one("exp_product", "exp(x)*exp(y)", "exp(x+y)", True, "simplify")
    one("nested_radical", "sqrt(2 + sqrt(3))", "(sqrt(6) + sqrt(2))/2", True, "simplify")
    one("off_by_constant", "x + 1", "x", False, "simplify", note="a - b simplifies to the nonzero constant 1")
    one("trig_off_by_one", "sin(x)^2", "-cos(x)^2", False, "simplify", note="a - b simplifies to 1")
    one("different_trig", "sin(x)", "cos(x)", False, "numeric", note="counterexample depends on the sample points")
    one("wrong_expansion", "(x + 1)^3", "x^3 + 1", False, "numeric")
    one("wrong_exponent_rule", "exp(2x)", "2exp(x)", False, "numeric")
    one("power_vs_product", "x^2", "2x", False, "numeric")
    one("asin_plus_acos", "asin(x) + acos(x)", "pi/2", None, "numeric", emit_method=False,
        note="a true identity simplify does not prove: numbers alone give null (undecided)")
    one("erf_plus_erfc", "erf(x) + erfc(x)", "1", None, "numeric", emit_method=False,
        note="a true identity simplify does not prove")
    one("half_angle_tangent", "tan(x/2)", "sin(x)/(1 + cos(x))", None, "numeric", emit_method=False,
        note="a true identity simplify does not prove")
    one("sixth_powers", "sin(x)^6 + cos(x)^6", "1 - 3sin(x)^2 cos(x)^2", None, "numeric", emit_method=False,
        note="a true identity simplify does not prove")
    one("double_angle_tangent", "tan(2x)", "2tan(x)/(1 - tan(x)^2)", None, "numeric", emit_method=False)
    one("sinc_definition", "sin(x)/x", "sinc(x)", None, "numeric", emit_method=False)
    # Left out on purpose: cos(pi/7)*cos(2pi/7)*cos(4pi/7) vs -1/8. simplify leaves the constant
    # 1/8 - sin(pi/14)*cos(pi/7)*cos(2*pi/7), which is 0 but not structurally 0 (is_zero None, equals(0) True):
    # the contract allows null (numeric agreement) or true (if the tool proves it), never false.
    # equations: equivalent when lhs - rhs of one is a nonzero constant multiple of the other's
    a, b = P("2x") - P("4"), P("x") - P("2")
    ratio = simplify(a / b)
    assert ratio.is_number and ratio != 0
    emit("equivalent_equations_scaled", {"operation": "equivalent", "expression": "2x = 4", "other": "x = 2"},
         {"equivalent": True}, note="(2x - 4) = 2 (x - 2): a nonzero constant multiple")
    a, b = P("x^2") - P("4"), P("x") - P("2")
    ratio = simplify(a / b)
    assert not ratio.is_number
    emit("equivalent_equations_not_multiple", {"operation": "equivalent", "expression": "x^2 = 4", "other": "x = 2"},
         {"equivalent": False}, note="(x**2 - 4)/(x - 2) = x + 2 is not a constant: x = -2 tells them apart")


def error_cases():
    E = lambda name, params, kind, note=None: emit(name, params, error_kind=kind, note=note)
    E("limit_two_sided_disagree", {"operation": "limit", "expression": "1/x", "variable": "x", "point": 0},
      "domain_error", "limit(1/x, x, 0, '+') = oo but '-' gives -oo")
    E("limit_abs_ratio_disagree", {"operation": "limit", "expression": "Abs(x)/x", "variable": "x", "point": 0},
      "domain_error", "the one-sided limits are 1 and -1")
    E("limit_exp_reciprocal_disagree", {"operation": "limit", "expression": "exp(1/x)", "variable": "x",
                                        "point": 0}, "domain_error", "the one-sided limits are oo and 0")
    x = Symbol("x")
    for e in ("1/x", "Abs(x)/x", "exp(1/x)"):
        assert limit(P(e), x, 0, "+") != limit(P(e), x, 0, "-"), e
    E("integrate_missing_variable_two_symbols", {"operation": "integrate", "expression": "x y"}, "invalid_params",
      "two free symbols and no variable")
    E("integrate_lower_without_upper", {"operation": "integrate", "expression": "x^2", "variable": "x", "lower": 0},
      "invalid_params", "lower and upper come both or neither")
    E("parse_error_operator", {"operation": "simplify", "expression": "x +* 2"}, "invalid_params",
      "text that does not parse")
    E("parse_error_unbalanced", {"operation": "expand", "expression": "(x + 1"}, "invalid_params")
    E("missing_expression", {"operation": "factor"}, "invalid_params")
    E("unknown_operation", {"operation": "frobnicate", "expression": "x"}, "invalid_params")
    E("limit_missing_point", {"operation": "limit", "expression": "sin(x)/x", "variable": "x"}, "invalid_params")
    E("limit_bad_direction", {"operation": "limit", "expression": "1/x", "variable": "x", "point": 0,
                              "direction": "up"}, "invalid_params", "direction is + or -")
    E("diff_variables_with_order", {"operation": "diff", "expression": "x y", "variables": ["x", "y"],
                                    "order": 2}, "invalid_params", "a mixed partial lists its order in `variables`")
    E("latex_not_read", {"operation": "integrate", "expression": r"\int_0^1 x\,dx", "variable": "x"},
      "invalid_params", "LaTeX the reader does not read (an integral sign) is refused with the command named")
    E("diff_ambiguous_variable", {"operation": "diff", "expression": "x y"}, "invalid_params",
      "two free symbols and no variable")
    E("solve_bad_domain", {"operation": "solve", "expression": "x^2 - 1", "variable": "x", "domain": "integers"},
      "invalid_params", "domain is complex or real")
    E("dsolve_missing_function", {"operation": "dsolve", "equation": "y'' + y = 0"}, "invalid_params")
    # SymPy cannot: NotImplementedError -> tool_error (both checked here to be quick)
    for text, var, real in (("exp(x) + log(x) + x", "x", False), ("Abs(x) = 2", "x", False)):
        xs = Symbol(var, real=True) if real else Symbol(var)
        eq, f = P_eq(text, {var: xs})
        t0 = time.perf_counter()
        try:
            solve(eq if eq is not None else f, xs)
            raise AssertionError(text)
        except NotImplementedError:
            pass
        assert time.perf_counter() - t0 < 1.0, text
    E("solve_transcendental_not_implemented", {"operation": "solve", "expression": "exp(x) + log(x) + x",
                                               "variable": "x"}, "tool_error",
      "SymPy: NotImplementedError (multiple generators [x, exp(x), log(x)])")
    E("solve_abs_complex_not_implemented", {"operation": "solve", "expression": "Abs(x) = 2", "variable": "x"},
      "tool_error", "SymPy: NotImplementedError (solving Abs(x) when the argument is not real or imaginary); "
                    "with domain real it works (solve_abs_real_domain)")


def main():
    for fn in (rewrite_ops, bare_application_cases, solve_cases, diff_cases, mixed_partial_cases, latex_cases, integrate_cases, limit_cases, series_cases, summation_cases,
               dsolve_cases, evaluate_cases, matrix_cases, roots_cases, equivalent_cases, error_cases):
        fn()
    header = {"generator": "tests/data/gen/symbolic_reference.py", "python": sys.version.split()[0],
              "sympy": sympy.__version__, "mpmath": mpmath.__version__}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("// " + json.dumps(header) + "\n")
        for ln in LINES:
            f.write(ln + "\n")
    print(f"wrote {os.path.normpath(OUT)}: {len(LINES)} cases", file=sys.stderr)
    for op in sorted(COUNTS):
        print(f"  {op}: {COUNTS[op]}", file=sys.stderr)
    TIMES.sort(reverse=True)
    print("slowest (native): " + ", ".join(f"{n} {t:.2f}s" for t, n in TIMES[:5]), file=sys.stderr)


if __name__ == "__main__":
    main()
