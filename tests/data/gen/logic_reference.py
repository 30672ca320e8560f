#!/usr/bin/env python3
# Requires:  python3 -m venv ~/.cache/beaker-z3py && ~/.cache/beaker-z3py/bin/pip install z3-solver==4.13.0.0
#            (optional, for the cross-check) Debian's libz3-4 (4.8.12), the library the tool links:
#            /usr/lib/x86_64-linux-gnu/libz3.so.4
#
#   ~/.cache/beaker-z3py/bin/python tests/data/gen/logic_reference.py     # (re)writes tests/data/logic/reference.jsonl
#
"""Independent reference data for Beaker's `logic_solver` tool, generated with z3py (z3-solver 4.13.0.0).

Writes ``tests/data/logic/reference.jsonl``: one JSON object per line, lines starting with ``//``
are comments.  The output is deterministic (no randomness, no timing).

    {"name": ..., "params": {"operation": "check" | "prove" | "optimize" | "smtlib", ...},
     "expect": {KEY: VALUE, ...} [, "check": "model_satisfies" | "counterexample_refutes"] [, "note": ...]}

``expect`` holds only what every correct Z3 (the tool links Debian's 4.8.12, this script uses 4.13)
must answer, compared exactly:

* ``status`` / ``proved`` always;
* ``model`` only when the model is unique: the script proves it by adding the blocking clause
  ``Or(v1 != m1, ...)`` over every declared variable and getting ``unsat``.  Otherwise the case
  carries ``"check": "model_satisfies"`` (the harness substitutes the returned model back);
* ``objective`` (and ``unbounded``) for ``optimize``; ``model`` there too when the optimum is
  attained by exactly one assignment (proved the same way);
* ``unsat_core`` only when the minimal unsatisfiable subset of the constraints is unique (the
  script enumerates every subset and asserts there is exactly one MUS), listed in the constraints'
  own order; a case whose MUS is a proper subset of the constraints needs core minimisation
  (``smt.core.minimize=true``) in the tool, and its note says so;
* for ``smtlib``: ``answers`` (exact entries) only when Z3 4.8.12 and 4.13 print byte-identical
  output; ``answers_len`` (the number of entries) where an entry's text may differ (models,
  error messages); ``answers_prefix`` (a list as long as the answers: entry i starts with
  element i) where an entry is an ``(error ...)``.

Every expression string is parsed here with Python's ``ast`` and evaluated as z3py, after the
rewrites the tool's notation implies and plain Python evaluation cannot do on z3 terms: chained
comparisons ``a < b < c`` become ``And(a < b, b < c)``, ``and``/``or``/``not`` become
``And``/``Or``/``Not``.  Only the names the contract lists are in scope, so a case that used
anything else would fail here.  Operations on two bare literals are restricted to exact integer
``+ - *`` (Python's ``7 / 2`` would be a float, not Z3's integer division).

Cross-check: when Debian's libz3.so.4 (4.8.12) is present, each check/prove case is re-run there
through ``Z3_eval_smtlib2_string`` (status, and every value of a unique model via ``get-value``),
each optimize case through ``Z3_optimize_from_string`` (status and optimum), each expected core
through the solver API (``smt.core.minimize``, check with assumption literals; a script's own
``(set-option :produce-unsat-cores true)`` is refused by an API context), and every smtlib script
is run on both versions; any disagreement aborts the script.
"""

import ast
import ctypes
import itertools
import json
import os
import re
import sys
from fractions import Fraction

import z3

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "logic", "reference.jsonl")
LIB_413 = os.path.join(os.path.dirname(z3.__file__), "lib", "libz3.so")
LIB_4812 = "/usr/lib/x86_64-linux-gnu/libz3.so.4"

LINES = []
NAMES = set()
COUNTS = {}
CROSS = {"done": 0}

# ----------------------------------------------------------------------------------------------
# the expression notation -> z3py
# ----------------------------------------------------------------------------------------------

FUNCS = {
    name: getattr(z3, name)
    for name in ["And", "Or", "Not", "Implies", "Xor", "If", "Distinct", "Sum", "Product", "Abs",
                 "ToReal", "ToInt", "UDiv", "URem", "SRem", "LShR", "ULT", "ULE", "UGT", "UGE",
                 "Extract", "Concat", "ZeroExt", "SignExt", "BV2Int"]
}
ALLOWED_NODES = (ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Name,
                 ast.Constant, ast.Load, ast.And, ast.Or, ast.Not, ast.Add, ast.Sub, ast.Mult, ast.Div,
                 ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor, ast.Invert, ast.LShift, ast.RShift,
                 ast.USub, ast.UAdd, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _literal_only(node):
    return all(isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.USub, ast.UAdd, ast.Add, ast.Sub,
                              ast.Mult, ast.Div, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor,
                              ast.Invert, ast.LShift, ast.RShift))
               for n in ast.walk(node))


class Rewrite(ast.NodeTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "And" if isinstance(node.op, ast.And) else "Or"
        return ast.Call(func=ast.Name(id=fn, ctx=ast.Load()), args=node.values, keywords=[])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.Call(func=ast.Name(id="Not", ctx=ast.Load()), args=[node.operand], keywords=[])
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        operands = [node.left] + node.comparators
        parts = [ast.Compare(left=operands[i], ops=[op], comparators=[operands[i + 1]])
                 for i, op in enumerate(node.ops)]
        return ast.Call(func=ast.Name(id="And", ctx=ast.Load()), args=parts, keywords=[])


def sort_of(t):
    if t == "Int":
        return z3.IntSort()
    if t == "Real":
        return z3.RealSort()
    if t == "Bool":
        return z3.BoolSort()
    m = re.fullmatch(r"BitVec (\d+)", t)
    assert m and 1 <= int(m.group(1)) <= 512, t
    return z3.BitVecSort(int(m.group(1)))


def declare(variables):
    out = {}
    for name, t in variables.items():
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name not in FUNCS and name not in ("True", "False")
        out[name] = z3.Const(name, sort_of(t))
    return out


def to_z3(text, env, want_bool=True):
    tree = ast.parse(text, mode="eval")
    for n in ast.walk(tree):
        assert isinstance(n, ALLOWED_NODES), (text, type(n).__name__)
        if isinstance(n, ast.Constant):
            assert type(n.value) in (int, float, bool), (text, n.value)
        if isinstance(n, ast.Name):
            assert n.id in env or n.id in FUNCS or n.id in ("True", "False"), (text, n.id)
        if isinstance(n, ast.Call):
            assert isinstance(n.func, ast.Name) and n.func.id in FUNCS and not n.keywords, text
        if isinstance(n, ast.BinOp) and _literal_only(n):
            lits = [c.value for c in ast.walk(n) if isinstance(c, ast.Constant)]
            assert isinstance(n.op, (ast.Add, ast.Sub, ast.Mult)) and all(type(v) is int for v in lits), \
                ("operation on two literals would be evaluated by Python, not Z3", text)
    tree = ast.fix_missing_locations(Rewrite().visit(tree))
    scope = dict(FUNCS)
    scope.update(env)
    value = eval(compile(tree, "<expr>", "eval"), {"__builtins__": {}}, scope)
    if want_bool:
        assert z3.is_bool(value), (text, value)
    else:
        assert z3.is_arith(value) or z3.is_bv(value), (text, value)
    # ** only on reals: Int ** Int has sort Real in z3 4.13 (and may not in 4.8.12)
    for sub in _subterms(value):
        if z3.is_app_of(sub, z3.Z3_OP_POWER):
            assert all(a.sort() == z3.RealSort() and not z3.is_to_real(a) for a in sub.children()), \
                ("** only on reals", text)
    return value


def _subterms(e):
    seen, stack = set(), [e]
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        yield t
        if z3.is_app(t):
            stack.extend(t.children())


def constraint_list(params, env):
    cs = params.get("constraints", [])
    if isinstance(cs, dict):
        return [(label, to_z3(text, env)) for label, text in cs.items()]
    return [(i, to_z3(text, env)) for i, text in enumerate(cs)]


# ----------------------------------------------------------------------------------------------
# values in the contract's JSON form
# ----------------------------------------------------------------------------------------------

def json_int(v):
    return v if -(2 ** 53) <= v <= 2 ** 53 else str(v)


def json_value(val, sort):
    if sort == z3.BoolSort():
        assert z3.is_true(val) or z3.is_false(val)
        return bool(z3.is_true(val))
    if sort == z3.IntSort():
        return json_int(val.as_long())
    if z3.is_bv_sort(sort):
        return json_int(val.as_long())
    if sort == z3.RealSort():
        if z3.is_rational_value(val):
            return val.as_string()          # "3", "-3/2"
        assert z3.is_algebraic_value(val)
        return val.as_decimal(20)           # "1.41421356237309504880?"
    raise AssertionError(sort)


def model_json(model, env):
    return {name: json_value(model.eval(v, model_completion=True), v.sort()) for name, v in env.items()}


def unique_model(solver, model, env):
    """True when no other assignment of the declared variables satisfies what is in `solver`."""
    solver.push()
    solver.add(z3.Or([v != model.eval(v, model_completion=True) for v in env.values()]))
    r = solver.check()
    solver.pop()
    assert r in (z3.sat, z3.unsat), r
    return r == z3.unsat


# ----------------------------------------------------------------------------------------------
# cross-check on Debian's libz3 4.8.12 (and 4.13's own library for smtlib) through ctypes
# ----------------------------------------------------------------------------------------------

_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int)(lambda c, e: None)
_LIBS = {}


def _lib(path):
    if path not in _LIBS:
        L = ctypes.CDLL(path)
        V, P, U, I = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int
        for fn, res, args in [("Z3_mk_config", V, []), ("Z3_del_config", None, [V]), ("Z3_mk_context", V, [V]),
                              ("Z3_del_context", None, [V]), ("Z3_set_error_handler", None, [V, V]),
                              ("Z3_eval_smtlib2_string", P, [V, P]), ("Z3_get_error_code", I, [V]),
                              ("Z3_mk_optimize", V, [V]), ("Z3_optimize_inc_ref", None, [V, V]),
                              ("Z3_optimize_dec_ref", None, [V, V]),
                              ("Z3_optimize_from_string", None, [V, V, P]), ("Z3_optimize_check", I, [V, V, U, V]),
                              ("Z3_optimize_get_upper", V, [V, V, U]), ("Z3_optimize_get_lower", V, [V, V, U]),
                              ("Z3_ast_to_string", P, [V, V]), ("Z3_get_full_version", P, []),
                              ("Z3_set_param_value", None, [V, P, P]), ("Z3_global_param_set", None, [P, P]),
                              ("Z3_mk_solver", V, [V]), ("Z3_solver_inc_ref", None, [V, V]),
                              ("Z3_solver_dec_ref", None, [V, V]), ("Z3_solver_from_string", None, [V, V, P]),
                              ("Z3_mk_string_symbol", V, [V, P]), ("Z3_mk_bool_sort", V, [V]),
                              ("Z3_mk_const", V, [V, V, V]), ("Z3_solver_get_unsat_core", V, [V, V]),
                              ("Z3_solver_check_assumptions", I, [V, V, U, ctypes.POINTER(V)]),
                              ("Z3_ast_vector_inc_ref", None, [V, V]), ("Z3_ast_vector_dec_ref", None, [V, V]),
                              ("Z3_ast_vector_size", U, [V, V]), ("Z3_ast_vector_get", V, [V, V, U])]:
            f = getattr(L, fn)
            f.restype = res
            f.argtypes = args
        _LIBS[path] = L
    return _LIBS[path]


def have_4812():
    return os.path.exists(LIB_4812)


def eval_smtlib(path, script, config=()):
    """Z3_eval_smtlib2_string on a fresh context (made with Z3_mk_config + `config` pairs)."""
    L = _lib(path)
    cfg = L.Z3_mk_config()
    for k, v in config:
        L.Z3_set_param_value(cfg, k.encode(), v.encode())
    ctx = L.Z3_mk_context(cfg)
    L.Z3_del_config(cfg)
    L.Z3_set_error_handler(ctx, ctypes.cast(_HANDLER, ctypes.c_void_p))
    out = L.Z3_eval_smtlib2_string(ctx, script.encode()).decode()
    L.Z3_del_context(ctx)
    return out


def optimize_4812(decls, asserts, direction, objective):
    L = _lib(LIB_4812)
    cfg = L.Z3_mk_config()
    ctx = L.Z3_mk_context(cfg)
    L.Z3_del_config(cfg)
    L.Z3_set_error_handler(ctx, ctypes.cast(_HANDLER, ctypes.c_void_p))
    opt = L.Z3_mk_optimize(ctx)
    L.Z3_optimize_inc_ref(ctx, opt)
    L.Z3_optimize_from_string(ctx, opt, (decls + asserts + "(%s %s)\n" % (direction, objective)).encode())
    assert L.Z3_get_error_code(ctx) == 0
    r = L.Z3_optimize_check(ctx, opt, 0, None)
    value = None
    if r == 1:
        ast_ = (L.Z3_optimize_get_upper if direction == "maximize" else L.Z3_optimize_get_lower)(ctx, opt, 0)
        value = L.Z3_ast_to_string(ctx, ast_).decode()
    L.Z3_optimize_dec_ref(ctx, opt)
    L.Z3_del_context(ctx)
    return {1: "sat", -1: "unsat", 0: "unknown"}[r], value


def core_4812(decls, labelled):
    """The minimised unsat core on libz3 4.8.12 through the solver API (check with assumption literals)."""
    L = _lib(LIB_4812)
    L.Z3_global_param_set(b"smt.core.minimize", b"true")
    cfg = L.Z3_mk_config()
    ctx = L.Z3_mk_context(cfg)
    L.Z3_del_config(cfg)
    L.Z3_set_error_handler(ctx, ctypes.cast(_HANDLER, ctypes.c_void_p))
    s = L.Z3_mk_solver(ctx)
    L.Z3_solver_inc_ref(ctx, s)
    names = ["track__%s" % lab for lab, _ in labelled]
    text = decls + "".join("(declare-fun %s () Bool)\n(assert (=> %s %s))\n" % (n, n, e.sexpr())
                           for n, (_, e) in zip(names, labelled))
    L.Z3_solver_from_string(ctx, s, text.encode())
    assert L.Z3_get_error_code(ctx) == 0
    lits = (ctypes.c_void_p * len(names))(*[
        L.Z3_mk_const(ctx, L.Z3_mk_string_symbol(ctx, n.encode()), L.Z3_mk_bool_sort(ctx)) for n in names])
    r = L.Z3_solver_check_assumptions(ctx, s, len(names), lits)
    core = None
    if r == -1:
        v = L.Z3_solver_get_unsat_core(ctx, s)
        L.Z3_ast_vector_inc_ref(ctx, v)
        core = sorted(names.index(L.Z3_ast_to_string(ctx, L.Z3_ast_vector_get(ctx, v, i)).decode())
                      for i in range(L.Z3_ast_vector_size(ctx, v)))
        L.Z3_ast_vector_dec_ref(ctx, v)
    L.Z3_solver_dec_ref(ctx, s)
    L.Z3_del_context(ctx)
    L.Z3_global_param_set(b"smt.core.minimize", b"false")
    return {1: "sat", -1: "unsat", 0: "unknown"}[r], core


def parse_sexpr(text):
    toks = re.findall(r'\(|\)|[^\s()]+', text)
    pos = [0]

    def rd():
        t = toks[pos[0]]
        pos[0] += 1
        if t == "(":
            lst = []
            while toks[pos[0]] != ")":
                lst.append(rd())
            pos[0] += 1
            return lst
        return t

    return rd()


def smt_value(s):
    """An SMT-LIB value as printed by Z3 -> int / Fraction / bool / str ('oo', '-oo', 'N.NNN?')."""
    if isinstance(s, str):
        if s in ("true", "false"):
            return s == "true"
        if s == "oo":
            return "oo"
        if s.startswith("#x"):
            return int(s[2:], 16)
        if s.startswith("#b"):
            return int(s[2:], 2)
        if s.endswith("?"):
            return s
        if re.fullmatch(r"\d+\.\d+", s):
            return Fraction(s)
        return int(s)
    if s[0] == "-" and len(s) == 2:
        v = smt_value(s[1])
        return "-" + v if isinstance(v, str) else -v
    if s[0] == "/":
        return Fraction(smt_value(s[1])) / Fraction(smt_value(s[2]))
    if s[0] == "*" and s[1:] == [["-", "1"], "oo"]:
        return "-oo"
    if s[0] == "_" and s[1].startswith("bv"):
        return int(s[1][2:])
    raise AssertionError(s)


def json_to_py(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?\d+(/\d+)?", v):
        return Fraction(v)
    return v


def smt_decls(env):
    return "".join("(declare-fun %s () %s)\n" % (n, v.sort().sexpr()) for n, v in env.items())


def cross_check_check(case, env, asserts, expect, core_labels=None):
    if not have_4812():
        return
    decls = smt_decls(env)
    algebraic = any(isinstance(v, str) and v.endswith("?") for v in expect.get("model", {}).values())
    script = "(set-option :pp.decimal true)\n(set-option :pp.decimal_precision 20)\n" if algebraic else ""
    body = "".join("(assert %s)\n" % e.sexpr() for e in asserts)
    names = list(env) if "model" in expect else []
    script += decls + body + "(check-sat)\n" + "".join("(get-value (%s))\n" % n for n in names)
    if algebraic:
        # pp.* options are process-global in libz3: they outlive the context, so put them back
        script += "(set-option :pp.decimal false)\n(set-option :pp.decimal_precision 10)\n"
    out = split_answers(eval_smtlib(LIB_4812, script))
    assert out[0] == expect["status"], (case, out)
    for n, ans in zip(names, out[1:]):
        got = smt_value(parse_sexpr(ans)[0][1])
        want = json_to_py(expect["model"][n])
        if isinstance(want, str) and want.endswith("?"):
            assert got == want, (case, n, got, want)
        else:
            assert got == (int(want) if isinstance(want, str) and not isinstance(got, Fraction) else want), \
                (case, n, got, want)
    if core_labels is not None:
        # (set-option :produce-unsat-cores true) is refused in a Z3_eval_smtlib2_string context ("cannot be
        # modified after initialization"), so the core is checked through the solver API.
        st, core = core_4812(decls, core_labels)
        assert st == "unsat" and [core_labels[i][0] for i in core] == expect["unsat_core"], (case, core)
    CROSS["done"] += 1


# ----------------------------------------------------------------------------------------------
# emitting cases
# ----------------------------------------------------------------------------------------------

def emit(name, params, expect, check=None, note=None):
    assert re.fullmatch(r"[a-z][a-z0-9_]*", name) and name not in NAMES, name
    NAMES.add(name)
    case = {"name": name, "params": params, "expect": expect}
    if check:
        case["check"] = check
    if note:
        case["note"] = note
    LINES.append(json.dumps(case, separators=(", ", ": "), ensure_ascii=False))
    COUNTS[params["operation"]] = COUNTS.get(params["operation"], 0) + 1


def check_case(name, variables, constraints, unique=None, status="sat", core=False, note=None):
    """unique: True -> expect the model (asserted unique); False -> model_satisfies (asserted not unique).
    core: True -> expect the unique minimal unsat core."""
    params = {"operation": "check", "variables": variables, "constraints": constraints}
    env = declare(variables)
    labelled = constraint_list(params, env)
    s = z3.Solver()
    for _, e in labelled:
        s.add(e)
    r = s.check()
    assert str(r) == status, (name, r)
    expect = {"status": status}
    check = None
    if r == z3.sat:
        m = s.model()
        is_unique = unique_model(s, m, env)
        assert unique is not None and is_unique == unique, (name, is_unique)
        if is_unique:
            expect["model"] = model_json(m, env)
        else:
            check = "model_satisfies"
    elif core:
        mus = unique_mus(name, labelled)
        expect["unsat_core"] = mus
        if len(mus) < len(labelled):
            extra = "the unique minimal core is a proper subset: the tool must minimise the core (smt.core.minimize=true)"
            note = (note + "; " + extra) if note else extra
    cross_check_check(name, env, [e for _, e in labelled], expect,
                      core_labels=labelled if core else None)
    emit(name, params, expect, check, note)


def unique_mus(name, labelled):
    n = len(labelled)
    assert n <= 12
    unsat_sets = []
    for k in range(1, n + 1):
        for idx in itertools.combinations(range(n), k):
            if any(set(u) <= set(idx) for u in unsat_sets):
                continue
            s = z3.Solver()
            s.add([labelled[i][1] for i in idx])
            r = s.check()
            assert r in (z3.sat, z3.unsat)
            if r == z3.unsat:
                unsat_sets.append(idx)
    # unsat_sets now holds exactly the minimal unsatisfiable subsets
    assert len(unsat_sets) == 1, (name, "MUS not unique", unsat_sets)
    # z3's own minimised core agrees
    s = z3.Solver()
    s.set("core.minimize", True)
    trackers = []
    for lab, e in labelled:
        t = z3.Bool("track__%s" % lab)
        trackers.append(t)
        s.assert_and_track(e, t)
    assert s.check() == z3.unsat
    got = sorted(trackers.index(t) for t in s.unsat_core())
    assert got == list(unsat_sets[0]), (name, got, unsat_sets)
    return [labelled[i][0] for i in unsat_sets[0]]


def prove_case(name, variables, claim, assumptions=None, proved=True, note=None):
    params = {"operation": "prove", "variables": variables, "claim": claim}
    if assumptions is not None:
        params["assumptions"] = assumptions
    env = declare(variables)
    c = to_z3(claim, env)
    hyps = [to_z3(a, env) for a in (assumptions or [])]
    s = z3.Solver()
    s.add(hyps)
    s.add(z3.Not(c))
    r = s.check()
    assert r in (z3.sat, z3.unsat), (name, r)
    assert (r == z3.unsat) == proved, (name, r)
    if have_4812():
        out = split_answers(eval_smtlib(LIB_4812, smt_decls(env) + "".join(
            "(assert %s)\n" % e.sexpr() for e in hyps + [z3.Not(c)]) + "(check-sat)\n"))
        assert out == ["unsat" if proved else "sat"], (name, out)
        CROSS["done"] += 1
    emit(name, params, {"proved": proved}, None if proved else "counterexample_refutes", note)


def optimize_case(name, variables, constraints, direction, objective, unique=None, status="sat", note=None):
    params = {"operation": "optimize", "variables": variables, "constraints": constraints, direction: objective}
    env = declare(variables)
    cs = [e for _, e in constraint_list(params, env)]
    obj = to_z3(objective, env, want_bool=False)
    o = z3.Optimize()
    o.add(cs)
    h = o.maximize(obj) if direction == "maximize" else o.minimize(obj)
    r = o.check()
    assert str(r) == status, (name, r)
    expect = {"status": status}
    if r == z3.sat:
        v = h.value()
        text = str(v)
        if text in ("oo", "-1*oo"):
            expect["objective"] = "oo" if text == "oo" else "-oo"
            expect["unbounded"] = True
            assert unique is None
        else:
            assert "epsilon" not in text and "oo" not in text, (name, text)
            # h.value() of a Real objective can come back as an Int numeral (4.13 gives Int 12 for a Real 12):
            # the optimum is the objective evaluated in the optimal model, in the objective's own sort.
            attained = o.model().eval(obj, model_completion=True)
            num = lambda t: t.as_long() if z3.is_bv_value(t) or z3.is_int_value(t) else Fraction(str(t.as_fraction()))
            assert num(attained) == num(v), (name, attained, v)
            expect["objective"] = json_value(attained, obj.sort())
            s = z3.Solver()
            s.add(cs)
            s.add(obj == attained)
            assert s.check() == z3.sat
            m = s.model()
            is_unique = unique_model(s, m, env)
            assert unique is not None and is_unique == unique, (name, is_unique)
            if is_unique:
                expect["model"] = model_json(m, env)
    if have_4812():
        st, val = optimize_4812(smt_decls(env), "".join("(assert %s)\n" % e.sexpr() for e in cs),
                                direction, obj.sexpr())
        assert st == status, (name, st)
        if st == "sat":
            got = smt_value(parse_sexpr(val))
            assert got == json_to_py(expect["objective"]) or str(got) == str(expect["objective"]), (name, got, expect)
        CROSS["done"] += 1
    emit(name, params, expect, None, note)


# ----------------------------------------------------------------------------------------------
# smtlib
# ----------------------------------------------------------------------------------------------

def split_answers(out):
    """Z3's output -> entries: each top-level s-expression (possibly spanning lines) or bare line."""
    entries, cur, depth = [], [], 0
    for line in out.split("\n"):
        if not cur and not line.strip():
            continue
        cur.append(line)
        in_str = in_bar = False
        for ch in line:
            if in_str:
                in_str = ch != '"'      # "" escapes re-enter at the next quote
            elif in_bar:
                in_bar = ch != "|"
            elif ch == '"':
                in_str = True
            elif ch == "|":
                in_bar = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
        if depth <= 0:
            entries.append("\n".join(cur).strip())
            cur, depth = [], 0
    if cur:
        entries.append("\n".join(cur).strip())
    return entries


def smtlib_case(name, script, exact=True, note=None):
    """exact=True: answers must be identical on 4.8.12 and 4.13 and are expected verbatim.
    exact=False: only the count, and '(error' prefixes where an entry is an error."""
    out13 = eval_smtlib(LIB_413, script)
    a13 = split_answers(out13)
    expect = {}
    if have_4812():
        a12 = split_answers(eval_smtlib(LIB_4812, script))
        CROSS["done"] += 1
        assert len(a12) == len(a13), (name, a12, a13)
        for x, y in zip(a12, a13):
            assert x.startswith("(error") == y.startswith("(error"), (name, x, y)
        if exact:
            assert a12 == a13, (name, a12, a13)
    errors = [a.startswith("(error") for a in a13]
    if exact:
        assert not any(errors) and all("\n" not in a for a in a13), (name, a13)
        expect["answers"] = a13
    else:
        expect["answers_len"] = len(a13)
        if any(errors):
            expect["answers_prefix"] = ["(error" if e else a for e, a in zip(errors, a13)]
            for e, a in zip(errors, a13):
                assert e or "\n" not in a, (name, a)
    emit(name, {"operation": "smtlib", "script": script}, expect, None, note)


# ----------------------------------------------------------------------------------------------
# the cases
# ----------------------------------------------------------------------------------------------

def digits(names):
    return {n: "Int" for n in names}


def cases_check():
    # --- puzzles ---------------------------------------------------------------------------------
    letters = list("SENDMORY")
    check_case("send_more_money", digits(letters), [
        "And(" + ", ".join("0 <= %s <= 9" % c for c in letters) + ")",
        "Distinct(" + ", ".join(letters) + ")",
        "S != 0", "M != 0",
        "1000*S + 100*E + 10*N + D + 1000*M + 100*O + 10*R + E == 10000*M + 1000*O + 100*N + 10*E + Y",
    ], unique=True, note="9567 + 1085 = 10652, the only solution")

    q = ["q%d" % i for i in range(8)]
    check_case("eight_queens", digits(q), [
        *("0 <= %s < 8" % v for v in q),
        "Distinct(%s)" % ", ".join(q),
        "Distinct(%s)" % ", ".join("%s + %d" % (v, i) for i, v in enumerate(q)),
        "Distinct(%s)" % ", ".join("%s - %d" % (v, i) for i, v in enumerate(q)),
    ], unique=False, note="92 solutions: the model is checked by substitution")

    grid = ["53..7....", "6..195...", ".98....6.", "8...6...3", "4..8.3..1",
            "7...2...6", ".6....28.", "...419..5", "....8..79"]
    cell = lambda r, c: "r%dc%d" % (r + 1, c + 1)
    sv = {cell(r, c): "Int" for r in range(9) for c in range(9)}
    cons = ["1 <= %s <= 9" % v for v in sv]
    cons += ["Distinct(%s)" % ", ".join(cell(r, c) for c in range(9)) for r in range(9)]
    cons += ["Distinct(%s)" % ", ".join(cell(r, c) for r in range(9)) for c in range(9)]
    cons += ["Distinct(%s)" % ", ".join(cell(3 * br + i, 3 * bc + j) for i in range(3) for j in range(3))
             for br in range(3) for bc in range(3)]
    cons += ["%s == %s" % (cell(r, c), grid[r][c]) for r in range(9) for c in range(9) if grid[r][c] != "."]
    check_case("sudoku_unique", sv, cons, unique=True,
               note="the Wikipedia sudoku (30 givens); its solution is unique, so all 81 cells are expected")

    empty = {cell(r, c): "Int" for r in range(4) for c in range(4)}
    cons = ["1 <= %s <= 4" % v for v in empty]
    cons += ["Distinct(%s)" % ", ".join(cell(r, c) for c in range(4)) for r in range(4)]
    cons += ["Distinct(%s)" % ", ".join(cell(r, c) for r in range(4)) for c in range(4)]
    cons += ["Distinct(%s)" % ", ".join(cell(2 * br + i, 2 * bc + j) for i in range(2) for j in range(2))
             for br in range(2) for bc in range(2)]
    cons += ["r1c1 == 1", "r1c2 == 2"]
    check_case("sudoku_4x4_many_solutions", empty, cons, unique=False,
               note="a 4x4 sudoku with two givens has many solutions")

    ms = {"m%d" % i: "Int" for i in range(9)}
    m = lambda i: "m%d" % i
    check_case("magic_square_3x3", ms, [
        "Distinct(%s)" % ", ".join(ms), *("1 <= %s <= 9" % v for v in ms),
        *("%s + %s + %s == 15" % (m(3 * r), m(3 * r + 1), m(3 * r + 2)) for r in range(3)),
        *("%s + %s + %s == 15" % (m(c), m(c + 3), m(c + 6)) for c in range(3)),
        "m0 + m4 + m8 == 15", "m2 + m4 + m6 == 15",
    ], unique=False, note="8 magic squares (rotations and reflections)")

    check_case("magic_square_3x3_pinned", ms, [
        "Distinct(%s)" % ", ".join(ms), *("1 <= %s <= 9" % v for v in ms),
        *("%s + %s + %s == 15" % (m(3 * r), m(3 * r + 1), m(3 * r + 2)) for r in range(3)),
        *("%s + %s + %s == 15" % (m(c), m(c + 3), m(c + 6)) for c in range(3)),
        "m0 + m4 + m8 == 15", "m2 + m4 + m6 == 15", "m0 == 2", "m1 == 7",
    ], unique=True, note="two corner givens pick one of the 8 squares")

    # --- knights and knaves, boolean SAT -----------------------------------------------------------
    check_case("knights_knaves_both_knaves", {"A": "Bool", "B": "Bool"}, [
        "A == And(Not(A), Not(B))",
    ], unique=True, note="A says 'we are both knaves': A is a knave, B a knight (True = knight)")
    check_case("knights_knaves_three", {"A": "Bool", "B": "Bool", "C": "Bool"}, [
        "A == (A == B)",                      # A: "B and I are of the same kind"  -> B is a knight
        "B == (not C)",                       # B: "C is a knave"
        "C == (A or B)",                      # C: "A or B is a knight"
    ], status="unsat", note="no consistent assignment: B knight -> C knave -> not(A or B) contradicts B")
    check_case("knights_knaves_keywords", {"A": "Bool", "B": "Bool", "C": "Bool"}, [
        "A == (not B and not C)",             # A: "B and C are both knaves"
        "B == (A or C)",                      # B: "A or C is a knight"
        "C == Xor(A, B)",                     # C: "exactly one of A and B is a knight"
    ], unique=True, note="and/or/not keywords; precedence: not > and > or, comparisons bind tighter than not")
    check_case("bool_operators_amp_pipe_tilde", {"p": "Bool", "q": "Bool", "r": "Bool"}, [
        "(p | q) & ~r", "~p", "Implies(q, r | q)",
    ], unique=True, note="& | ~ on booleans are And/Or/Not; parenthesised because & binds tighter than ==")
    check_case("bool_sat_many", {"p": "Bool", "q": "Bool", "r": "Bool", "s": "Bool"}, [
        "Or(p, q, r)", "Or(Not(p), s)", "Xor(q, r)",
    ], unique=False)
    check_case("bool_true_false_literals", {"p": "Bool", "q": "Bool"}, [
        "p == True", "q != True", "Or(q, p) == True", "And(p, False) == False",
    ], unique=True)

    # pigeonhole
    P = [[("p%d%d" % (i, j)) for j in range(4)] for i in range(5)]
    pv = {v: "Bool" for row in P for v in row}
    cons = ["Or(%s)" % ", ".join(row) for row in P]
    cons += ["Not(And(%s, %s))" % (P[i][j], P[k][j]) for j in range(4) for i in range(5) for k in range(i + 1, 5)]
    check_case("pigeonhole_5_into_4_bool", pv, cons, status="unsat",
               note="pXY: pigeon X sits in hole Y; 5 pigeons, 4 holes")
    check_case("pigeonhole_5_into_4_int", digits(["h%d" % i for i in range(5)]), [
        "Distinct(h0, h1, h2, h3, h4)", *("1 <= h%d <= 4" % i for i in range(5)),
    ], status="unsat")
    check_case("graph_coloring_k4_three_colors", digits(["a", "b", "c", "d"]), [
        *("0 <= %s < 3" % v for v in "abcd"), "Distinct(a, b, c, d)",
    ], status="unsat", note="K4 needs four colours")
    check_case("graph_coloring_cycle5_three_colors", digits(["v%d" % i for i in range(5)]), [
        *("0 <= v%d < 3" % i for i in range(5)), *("v%d != v%d" % (i, (i + 1) % 5) for i in range(5)),
    ], unique=False)

    # --- integer linear systems ------------------------------------------------------------------
    check_case("int_linear_2x2", digits("xy"), ["x + y == 10", "x - y == 4"], unique=True)
    check_case("int_linear_3x3_negative", digits("xyz"), [
        "2*x + 3*y - z == -9", "x - y + 4*z == 21", "-3*x + 2*y + z == -8",
    ], unique=True, note="x = 2, y = -3, z = 4 (determinant -56)")
    check_case("int_linear_parity_unsat", digits("xy"), ["2*x + 4*y == 7"], status="unsat",
               note="no integer solution (left side even); as reals it would be sat")
    check_case("int_linear_underdetermined", digits("xy"), ["x + y == 10", "x >= 0", "y >= 0"], unique=False)
    check_case("int_big_values", digits(["x", "y"]), [
        "x == 1152921504606846977", "y == -x - 1",
    ], unique=True, note="integers beyond 2^53 are decimal strings")
    check_case("int_around_two_pow_53", digits(["x", "y"]), [
        "x == 9007199254740991", "y == x + 2",
    ], unique=True, note="2^53 - 1 is a JSON number, 2^53 + 1 a string (2^53 itself is avoided: either reading of "
                         "'fits in +-2^53' is accepted)")

    # --- reals -----------------------------------------------------------------------------------
    check_case("real_rational_solution", {"x": "Real", "y": "Real"}, [
        "2*x + 3*y == 1", "x - y == 2",
    ], unique=True, note="x = 7/5, y = -3/5: rationals are 'p/q' strings, the sign on p")
    check_case("real_integral_values", {"x": "Real", "y": "Real"}, ["x + y == 5", "x - y == 1"], unique=True,
               note="integer-valued reals print as '3' (Z3's numeral string), not 3 or '3/1'")
    check_case("real_decimal_literals", {"x": "Real", "y": "Real"}, ["y == 0.2", "x == 1.5 * y"], unique=True,
               note="decimal literals are exact rationals: 0.2 = 1/5, 1.5*1/5 = 3/10")
    check_case("real_third", {"x": "Real"}, ["3*x == 1"], unique=True)
    check_case("real_strict_bounds_sat", {"x": "Real"}, ["0 < x < 1"], unique=False,
               note="a chained strict comparison on reals")
    check_case("real_vs_int_strict", {"x": "Int", "r": "Real"}, ["0 < x < 1"], status="unsat",
               note="no integer strictly between 0 and 1 (r unused)")
    check_case("mixed_int_division_then_real", {"i": "Int", "r": "Real", "s": "Real"}, [
        "i == 7", "r == i / 2", "s == ToReal(i) / 2",
    ], unique=True, note="i / 2 on two integers is integer division (3) before becoming real; ToReal(i) / 2 is 7/2")
    check_case("real_power_operator", {"r": "Real"}, ["r**2 == 6.25", "r < 0"], unique=True,
               note="** on reals; r = -5/2")
    check_case("real_sqrt2_algebraic", {"x": "Real"}, ["x*x == 2", "x > 0"], unique=True,
               note="an irrational value prints as Z3's 20-digit decimal with a trailing '?'")
    check_case("to_int_floor", {"r": "Real", "s": "Real", "n": "Int", "m": "Int"}, [
        "r == 2.5", "s == -2.5", "n == ToInt(r)", "m == ToInt(s)",
    ], unique=True, note="ToInt is floor: ToInt(-2.5) = -3")

    # --- nonlinear integers ----------------------------------------------------------------------
    check_case("nonlinear_xy_12_unique", digits("xy"), ["x*y == 12", "2 <= x < y <= 5"], unique=True,
               note="3*4 is the only factorisation with 2 <= x < y <= 5")
    check_case("nonlinear_xy_12_many", digits("xy"), ["x*y == 12", "1 <= x <= 12", "1 <= y <= 12"], unique=False)
    check_case("nonlinear_xy_prime_unsat", digits("xy"), ["x*y == 13", "2 <= x <= 12", "2 <= y <= 12"],
               status="unsat", note="13 is prime")
    check_case("pythagorean_triple", digits("abc"), ["a*a + b*b == c*c", "0 < a < b", "c == 13", "a > 4"],
               unique=True, note="5, 12, 13")

    # --- chained comparisons ---------------------------------------------------------------------
    check_case("chained_bounds", digits("x"), ["0 <= x < 10", "x > 8"], unique=True)
    check_case("chained_strict_ascending", digits("xyz"), ["1 < x < y < z < 5"], unique=True)
    check_case("chained_equality", digits("xy"), ["x == y == 3"], unique=True,
               note="x == y == 3 means x == y and y == 3")
    check_case("chained_mixed_ops", digits("xy"), ["0 < x != y > 5", "x + y == 7"], unique=True,
               note="0 < x, x != y, y > 5 and x + y == 7: y = 6, x = 1")

    # --- integer division and modulus (z3's: Euclidean, the remainder is never negative) ----------
    check_case("int_div_mod_signs", digits(["a1", "b1", "q1", "r1", "a2", "b2", "q2", "r2",
                                            "a3", "b3", "q3", "r3", "a4", "b4", "q4", "r4"]), [
        "a1 == 7", "b1 == 2", "q1 == a1 / b1", "r1 == a1 % b1",
        "a2 == -7", "b2 == 2", "q2 == a2 / b2", "r2 == a2 % b2",
        "a3 == 7", "b3 == -2", "q3 == a3 / b3", "r3 == a3 % b3",
        "a4 == -7", "b4 == -2", "q4 == a4 / b4", "r4 == a4 % b4",
    ], unique=True, note="Z3 div/mod: 7/2=3 r1; -7/2=-4 r1; 7/-2=-3 r1; -7/-2=4 r1 (remainder always >= 0, "
                         "unlike Python's -7 % -2 == -1 and C's -7 / 2 == -3)")
    check_case("int_div_by_literal", digits("x"), ["x / 3 == -3", "x % 3 == 1"], unique=True,
               note="x = -8: -8 = 3*(-3) + 1")
    check_case("int_mod_negative_divisor", digits("x"), ["x % -5 == 3", "-5 < x < 0"], unique=True,
               note="x = -2: mod by -5 still yields 0..4")

    # --- bit-vectors -----------------------------------------------------------------------------
    check_case("bv8_wraparound", {"x": "BitVec 8"}, ["x + 1 == 0"], unique=True, note="values are unsigned")
    check_case("bv8_multiplicative_inverse", {"x": "BitVec 8"}, ["x * 3 == 1"], unique=True,
               note="171 * 3 = 513 = 2*256 + 1")
    check_case("bv8_shifts_extract", {"x": "BitVec 8"}, ["x >> 1 == 192", "LShR(x, 1) == 64",
                                                          "Extract(0, 0, x) == 0"], unique=True,
               note=">> is arithmetic: 128 >> 1 = 192; LShR(128, 1) = 64")
    check_case("bv8_left_shift", {"x": "BitVec 8"}, ["1 << x == 32"], unique=True,
               note="shift amounts >= 8 give 0, so x = 5 only")
    check_case("bv_concat", {"hi": "BitVec 8", "lo": "BitVec 8"}, ["Concat(hi, lo) == 4660"], unique=True,
               note="4660 = 0x1234")
    check_case("bv_zero_sign_ext", {"x": "BitVec 8", "y": "BitVec 8"}, [
        "SignExt(8, x) == 65408", "ZeroExt(8, y) == 128",
    ], unique=True, note="SignExt(8, 128) = 0xFF80; ZeroExt(8, 128) = 0x0080")
    check_case("bv_unsigned_div_rem", {"x": "BitVec 8", "q": "BitVec 8", "r": "BitVec 8", "s": "BitVec 8"}, [
        "x == -6", "q == UDiv(x, 4)", "r == URem(x, 4)", "s == SRem(x, 4)",
    ], unique=True, note="x = -6 = 250 unsigned; UDiv 62, URem 2; SRem(-6, 4) = -2 = 254")
    check_case("bv_signed_div_mod_operators", {"x": "BitVec 8", "q": "BitVec 8", "r": "BitVec 8"}, [
        "x == -6", "q == x / 4", "r == x % 4",
    ], unique=True, note="z3py: / on bit-vectors is signed division (bvsdiv: -6/4 = -1 = 255), "
                         "% is signed modulus (bvsmod: sign of the divisor, -6 % 4 = 2)")
    check_case("bv_signed_vs_unsigned_compare", {"x": "BitVec 8"}, ["x < 0", "x > -3", "UGE(x, 255)"],
               unique=True, note="< and > on bit-vectors are signed (x in {-2, -1}); UGE picks 255")
    check_case("bv_unsigned_compares", {"x": "BitVec 8"}, ["ULT(x, 10)", "UGT(x, 8)", "ULE(x, 9)"],
               unique=True)
    check_case("bv_bv2int", {"a": "BitVec 8", "n": "Int"}, ["BV2Int(a) == 200", "n == BV2Int(a) + 1000"],
               unique=True, note="BV2Int is unsigned")
    check_case("bv64_all_ones", {"x": "BitVec 64"}, ["~x == 0"], unique=True,
               note="2^64 - 1 is beyond 2^53: a decimal string")
    check_case("bv128_big", {"x": "BitVec 128"}, ["x == 170141183460469231731687303715884105729"], unique=True,
               note="2^127 + 1")

    # --- misc functions --------------------------------------------------------------------------
    check_case("abs_if_sum_product", digits(["x", "y", "a", "b", "c"]), [
        "Abs(x - 5) == 3", "x < 5",
        "If(y > 0, y, -y) == 4", "y < 0",
        "Sum(a, b, c) == 6", "Product(a, b, c) == 6", "1 <= a < b < c",
    ], unique=True)
    check_case("constraints_empty", {"x": "Int"}, [], unique=False,
               note="no constraints: sat with any model")


def cases_core():
    check_case("core_labels_budget", {"a": "Int", "b": "Int", "c": "Int"}, {
        "a_min": "a >= 5", "b_min": "b >= 6", "c_pos": "c > 0", "total": "a + b <= 10", "c_small": "c < 100",
    }, status="unsat", core=True)
    check_case("core_labels_all_needed", {"x": "Int", "y": "Int"}, {
        "x_pos": "x > 0", "y_pos": "y > 0", "sum_small": "x + y < 2",
    }, status="unsat", core=True, note="every constraint is needed (integers)")
    check_case("core_labels_bool_chain", {"p": "Bool", "q": "Bool", "r": "Bool", "s": "Bool"}, {
        "fact": "p", "rule1": "Implies(p, q)", "rule2": "Implies(q, r)", "deny": "Not(r)", "other": "Or(s, r)",
    }, status="unsat", core=True)
    check_case("core_labels_real", {"x": "Real", "y": "Real"}, {
        "lo": "x >= 1.5", "hi": "x <= 1.25", "y_range": "0 <= y <= 1", "link": "y <= x",
    }, status="unsat", core=True)
    check_case("core_labels_bitvector", {"x": "BitVec 8", "y": "BitVec 8"}, {
        "x_small": "ULT(x, 4)", "y_big": "UGT(y, 200)", "x_big": "UGT(x, 10)", "y_even": "Extract(0, 0, y) == 0",
    }, status="unsat", core=True)
    check_case("core_indices_list", {"x": "Int", "y": "Int"}, [
        "x > 10", "y == 1", "x < 5", "y < 100",
    ], status="unsat", core=True, note="constraints given as a list: the core is their 0-based indices")
    check_case("core_labels_sat", {"x": "Int"}, {"lo": "x >= 1", "hi": "x <= 1"}, unique=True,
               note="labelled constraints that are satisfiable: a model, no core")


def cases_prove():
    bv32 = {"x": "BitVec 32", "y": "BitVec 32"}
    prove_case("bv_xor_involution", bv32, "x ^ y ^ y == x")
    prove_case("bv_lowest_set_bit", {"x": "BitVec 32"},
               "And((x & -x) & ((x & -x) - 1) == 0, (x & -x) != 0, x & (x & -x) == (x & -x), x & ((x & -x) - 1) == 0)",
               assumptions=["x != 0"],
               note="x & -x is a single set bit of x with no set bit of x below it")
    prove_case("bv_lowest_bit_identity", {"x": "BitVec 32"}, "(x & -x) == (x & ~(x - 1))")
    prove_case("bv_add_as_xor_and", bv32, "x + y == (x ^ y) + 2*(x & y)")
    prove_case("bv_de_morgan", bv32, "~(x & y) == (~x | ~y)")
    prove_case("bv_and_ule", bv32, "ULE(x & y, x)")
    prove_case("bv_ashr_is_not_lshr", {"x": "BitVec 32"}, "x >> 1 == LShR(x, 1)", proved=False,
               note="false for x with the top bit set")
    prove_case("bv_signed_increment_overflow", {"x": "BitVec 8"}, "x + 1 > x", proved=False,
               note="signed >: false at x = 127")
    prove_case("bv_unsigned_div_mul", {"x": "BitVec 16"}, "ULE(UDiv(x, 3) * 3, x)")
    prove_case("real_square_ge_self_false", {"x": "Real"}, "x*x >= x", proved=False,
               note="false for 0 < x < 1")
    prove_case("real_square_nonneg", {"x": "Real"}, "x*x >= 0")
    prove_case("real_division_inverse", {"x": "Real", "y": "Real"}, "x / y * y == x", assumptions=["y != 0"])
    prove_case("real_half_less", {"x": "Real"}, "x / 2 < x", assumptions=["x > 0"])
    prove_case("int_transitivity", {"x": "Int", "y": "Int"}, "y > 2", assumptions=["x > 2", "y > x"])
    prove_case("int_half_less", {"x": "Int"}, "x / 2 < x", assumptions=["x > 0"], note="integer division")
    prove_case("int_half_times_two_false", {"x": "Int"}, "x / 2 * 2 == x", proved=False,
               note="false for odd x")
    prove_case("int_half_times_two_even", {"x": "Int"}, "x / 2 * 2 == x", assumptions=["x % 2 == 0"])
    prove_case("int_div_mod_identity", {"x": "Int"}, "x == (x / 7) * 7 + x % 7")
    prove_case("int_mod_range", {"x": "Int"}, "0 <= x % 5 < 5", note="chained comparison as the claim")
    prove_case("int_mod_negative_divisor_nonneg", {"x": "Int"}, "0 <= x % -3 < 3",
               note="Z3's mod is never negative, even for a negative divisor (Python's x % -3 would be <= 0)")
    prove_case("int_abs_triangle", {"x": "Int", "y": "Int"}, "Abs(x + y) <= Abs(x) + Abs(y)")
    prove_case("int_abs_equality_false", {"x": "Int", "y": "Int"}, "Abs(x + y) == Abs(x) + Abs(y)", proved=False)
    prove_case("int_to_real_to_int", {"n": "Int"}, "ToInt(ToReal(n) + 0.5) == n")
    prove_case("bool_modus_ponens", {"p": "Bool", "q": "Bool"}, "Implies(And(p, Implies(p, q)), q)")
    prove_case("bool_peirce", {"p": "Bool", "q": "Bool"}, "Implies(Implies(Implies(p, q), p), p)")
    prove_case("bool_converse_false", {"p": "Bool", "q": "Bool"}, "Implies(Implies(p, q), Implies(q, p))",
               proved=False)
    prove_case("bool_xor_keywords", {"p": "Bool", "q": "Bool"}, "Xor(p, q) == ((p or q) and not (p and q))")
    prove_case("int_assumption_contradiction", {"x": "Int"}, "x == 42", assumptions=["x > 5", "x < 3"],
               note="contradictory assumptions prove anything")


def cases_optimize():
    items = [(12, 4), (10, 6), (8, 5), (11, 7), (14, 3), (7, 1), (9, 6)]   # (value, weight)
    kv = {"t%d" % i: "Bool" for i in range(len(items))}
    optimize_case("knapsack_01", kv, [
        "Sum(%s) <= 15" % ", ".join("If(t%d, %d, 0)" % (i, w) for i, (_, w) in enumerate(items)),
    ], "maximize", "Sum(%s)" % ", ".join("If(t%d, %d, 0)" % (i, v) for i, (v, _) in enumerate(items)),
        unique=True, note="0/1 knapsack, capacity 15")
    optimize_case("knapsack_bounded_int", {"a": "Int", "b": "Int", "c": "Int"}, [
        "0 <= a <= 3", "0 <= b <= 2", "0 <= c <= 5", "5*a + 7*b + 3*c <= 30",
    ], "maximize", "9*a + 13*b + 5*c", unique=True, note="bounded integer knapsack; one selection reaches the optimum")
    optimize_case("minimize_with_bounds", {"x": "Int", "y": "Int"}, [
        "x >= 3", "y >= 2*x - 1", "x + y >= 12",
    ], "minimize", "x + y", unique=False)
    optimize_case("minimize_unique", {"x": "Int", "y": "Int"}, ["x >= 3", "y >= 2*x - 1"], "minimize",
                  "2*x + y", unique=True)
    optimize_case("minimize_sum_of_abs", {"x": "Int"}, [], "minimize", "Abs(x - 7) + Abs(x - 3) + Abs(x - 10)",
                  unique=True, note="the median minimises the sum of distances")
    optimize_case("lp_real_vertex", {"x": "Real", "y": "Real"}, [
        "x + y <= 4", "x + 3*y <= 6", "x >= 0", "y >= 0",
    ], "maximize", "3*x + 2*y", unique=True, note="a Real objective prints like a Real model value: '12'")
    optimize_case("lp_real_fractional", {"x": "Real", "y": "Real"}, ["2*x + y <= 4", "x + 2*y <= 4"],
                  "maximize", "x + y", unique=True, note="optimum 8/3 at x = y = 4/3 (as a string, like Real model values)")
    optimize_case("ilp_integer_optimum", {"x": "Int", "y": "Int"}, ["2*x + y <= 4", "x + 2*y <= 4", "x >= 0", "y >= 0"],
                  "maximize", "x + y", unique=False, note="the LP relaxation gives 8/3; integers give 2")
    optimize_case("maximize_unbounded", {"x": "Int", "y": "Int"}, ["x > 0", "y == 2*x"], "maximize", "x + y",
                  note="no upper bound: objective 'oo' and unbounded: true")
    optimize_case("minimize_unbounded_real", {"r": "Real"}, ["r <= 5"], "minimize", "r",
                  note="no lower bound: objective '-oo' and unbounded: true")
    optimize_case("optimize_unsat", {"x": "Int"}, ["x > 5", "x < 3"], "maximize", "x", status="unsat")
    optimize_case("maximize_bitvector_unsigned", {"b": "BitVec 8"}, ["ULT(b, 200)", "b != 199"], "maximize", "b",
                  unique=True, note="bit-vector objectives are unsigned")
    optimize_case("maximize_big_int", {"x": "Int"}, ["x <= 1152921504606846976"], "maximize", "x", unique=True,
                  note="an optimum beyond 2^53 is a decimal string")
    optimize_case("schedule_makespan", {"s1": "Int", "s2": "Int", "s3": "Int", "end": "Int"}, [
        "s1 >= 0", "s2 >= 0", "s3 >= 0",
        "s2 >= s1 + 3",                                 # job 2 after job 1 (3 long)
        "Or(s3 >= s2 + 4, s2 >= s3 + 2)",               # jobs 2 (4 long) and 3 (2 long) share a machine
        "end >= s1 + 3", "end >= s2 + 4", "end >= s3 + 2",
    ], "minimize", "end", unique=False)


def cases_smtlib():
    smtlib_case("smt_basic_sat_get_value",
                "(declare-const x Int)\n(declare-const y Int)\n(assert (= (+ x y) 10))\n(assert (= (- x y) 4))\n"
                "(check-sat)\n(get-value (x))\n(get-value (y))\n")
    smtlib_case("smt_unsat", "(declare-const x Int)\n(assert (> x 5))\n(assert (< x 3))\n(check-sat)\n")
    smtlib_case("smt_push_pop",
                "(declare-const x Int)\n(assert (> x 0))\n(check-sat)\n(push 1)\n(assert (< x 0))\n(check-sat)\n"
                "(pop 1)\n(check-sat)\n(assert (= x 7))\n(check-sat)\n(get-value (x))\n",
                note="sat, unsat inside the scope, sat again after pop")
    smtlib_case("smt_get_value_negative_and_rational",
                "(declare-const x Int)\n(declare-const r Real)\n(assert (= x (- 3)))\n(assert (= (* 2 r) 1))\n"
                "(check-sat)\n(get-value (x))\n(get-value (r))\n(get-value ((+ x 1)))\n",
                note="Z3 prints (- 3), (/ 1.0 2.0) and the term itself as the key")
    smtlib_case("smt_undeclared_symbol_error",
                "(declare-const x Int)\n(assert (> x 2))\n(assert (< x 4))\n(check-sat)\n(get-value (y))\n"
                "(get-value (x))\n",
                exact=False, note="an error answer, then Z3 continues (error-behavior continued-execution)")
    smtlib_case("smt_sort_mismatch_error",
                "(declare-const x Int)\n(assert (+ x true))\n(check-sat)\n", exact=False,
                note="the error text differs between Z3 versions; only the prefix is fixed")
    # Z3 itself would run the commands before the broken one; Beaker refuses a script whose brackets do not
    # balance before Z3 sees it (it checks every command against its allowlist), so this one is an error.
    emit("smt_syntax_error_unbalanced", {"operation": "smtlib", "script": "(declare-const x Int)\n(assert (> x 1)\n"},
         None, note="unbalanced parenthesis: refused as invalid_params before Z3 runs")
    LINES[-1] = LINES[-1].replace('"expect": null', '"error_kind": "invalid_params"')
    smtlib_case("smt_get_model_len",
                "(declare-const x Int)\n(declare-const b Bool)\n(assert (= x 3))\n(assert b)\n(check-sat)\n(get-model)\n",
                exact=False, note="a model is one answer; its text differs between versions")
    smtlib_case("smt_bitvector_hex",
                "(declare-const x (_ BitVec 32))\n(assert (= (bvadd x #x00000001) #x00000000))\n(check-sat)\n"
                "(get-value (x))\n", note="bit-vector values print in hex for widths divisible by 4")
    smtlib_case("smt_bitvector_binary",
                "(declare-const x (_ BitVec 5))\n(assert (= (bvmul x #b00011) #b00001))\n(check-sat)\n(get-value (x))\n",
                note="widths not divisible by 4 print in binary")
    smtlib_case("smt_echo_and_info",
                "(echo \"hello world\")\n(get-info :error-behavior)\n(get-info :name)\n",
                note="echo prints its string without quotes")
    smtlib_case("smt_check_sat_assuming",
                "(declare-const a Bool)\n(declare-const b Bool)\n(assert (or a b))\n"
                "(check-sat-assuming ((not a) (not b)))\n(check-sat-assuming ((not a)))\n(get-value (b))\n")
    smtlib_case("smt_define_fun",
                "(define-fun sq ((n Int)) Int (* n n))\n(declare-const x Int)\n(assert (= (sq x) 49))\n"
                "(assert (> x 0))\n(check-sat)\n(get-value (x))\n")
    smtlib_case("smt_arrays",
                "(declare-const a (Array Int Int))\n(declare-const i Int)\n(assert (= (select (store a i 5) i) 6))\n"
                "(check-sat)\n", note="read-over-write: always 5, so unsat")
    smtlib_case("smt_div_mod_semantics",
                "(declare-const q Int)\n(declare-const r Int)\n(assert (= q (div (- 7) 2)))\n(assert (= r (mod (- 7) (- 2))))\n"
                "(check-sat)\n(get-value (q))\n(get-value (r))\n")
    smtlib_case("smt_exit_stops",
                "(declare-const x Int)\n(assert (= x 1))\n(check-sat)\n(exit)\n(check-sat)\n(get-value (x))\n",
                note="nothing after (exit) is answered")
    smtlib_case("smt_named_assertions_unsat",
                "(declare-const x Int)\n(assert (! (> x 10) :named big))\n"
                "(assert (! (< x 5) :named small))\n(assert (! (> x 0) :named pos))\n(check-sat)\n",
                note="named assertions need no option; (set-option :produce-unsat-cores true) itself is an error in a "
                     "Z3_eval_smtlib2_string context ('cannot be modified after initialization'), so no core here")
    smtlib_case("smt_datatype_enum",
                "(declare-datatypes ((Color 0)) (((red) (green) (blue))))\n(declare-const c Color)\n"
                "(assert (not (= c red)))\n(assert (not (= c blue)))\n(check-sat)\n(get-value (c))\n")
    smtlib_case("smt_quantifier_mbqi",
                "(declare-const x Int)\n(assert (forall ((y Int)) (=> (> y x) (> y 0))))\n(assert (>= x 0))\n"
                "(assert (< x 1))\n(check-sat)\n(get-value (x))\n", note="x must be 0")


def main():
    cases_check()
    cases_core()
    cases_prove()
    cases_optimize()
    cases_smtlib()
    v12 = _lib(LIB_4812).Z3_get_full_version().decode() if have_4812() else "absent"
    head = [
        "// Reference data for Beaker's `logic_solver` tool. Generated by tests/data/gen/logic_reference.py -- do not edit.",
        "// versions: python %s, z3-solver %s; cross-checked on libz3 %s (%d runs)" % (
            sys.version.split()[0], z3.get_version_string(), v12, CROSS["done"]),
        "// Fields: name, params {operation, ...}, expect {key: value} (exact; only the keys to check), optional check, optional note.",
        "// check: model_satisfies -> the model must satisfy the constraints (the harness substitutes it back: expect sat);",
        "//        counterexample_refutes -> the counterexample satisfies the assumptions and falsifies the claim.",
        "// expect.model is present only when the model is unique (proved by a blocking clause); all declared variables.",
        "// expect.unsat_core is present only when the minimal unsat subset is unique; constraints' own order",
        "//   (labels, or 0-based indices for a list) -- compare as a set if the tool orders otherwise.",
        "// smtlib: answers = exact entries (identical on Z3 4.8.12 and 4.13); answers_len = number of entries;",
        "//   answers_prefix[i] = a prefix of entry i ('(error' for error answers). Entries are top-level s-expressions",
        "//   or bare lines of Z3's output, leading/trailing whitespace trimmed.",
        "// Value forms: Int/BitVec -> JSON integer while |v| <= 2^53, else decimal string; BitVec unsigned;",
        "//   Real -> Z3's numeral string '3', '7/5', '-3/5'; algebraic -> 20-digit decimal + '?'; Bool -> true/false.",
        "// Objectives: as model values of the objective's sort; unbounded -> 'oo' / '-oo' with unbounded: true.",
        "// counts: " + ", ".join("%s %d" % kv for kv in sorted(COUNTS.items())),
    ]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("\n".join(head + LINES) + "\n")
    print("wrote %s: %d cases (%s); %d cross-checks on libz3 %s" % (
        os.path.relpath(OUT), len(LINES), ", ".join("%s %d" % kv for kv in sorted(COUNTS.items())),
        CROSS["done"], v12))


if __name__ == "__main__":
    main()
