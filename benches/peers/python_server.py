"""A Python tool server speaking Beaker's JSON Lines protocol, built the way a team would build one today.

It is the peer `beaker bench --compare` measures Beaker against (docs/PERFORMANCE.md): the same requests, the
same envelopes, computed with the libraries such users reach for:

- calculator: SymPy (exact integers and rationals, `N()` for the rest), mpmath underneath;
- unit_converter: Pint;
- numerical: NumPy (`linalg.solve`) and SciPy (`optimize.brentq`, `integrate.quad`), functions through SymPy's
  `lambdify`;
- statistics: SciPy (`stats.ttest_ind`, `describe`-style figures with NumPy);
- chemistry: `periodictable` (molar mass); physics: the constant-acceleration equations, written by hand;
- plotter: matplotlib (Agg, PNG, base64);
- pubchem: chemicals 1.5.2 (`search_chemical` over its whole identifier database, loaded at start, and its
  property functions), the package whose tables the tool reads;
- web_search: bm25s (its `lucene` scoring in float64) over an index `benches/search/bm25s_index.py` saved,
  memory-mapped, with `--web-search-index DIR` (docs/PERFORMANCE.md, web_search);
- execute_python: a fresh `python -c` subprocess per call (SandboxFusion's model), with this venv's packages.
- execute_code: SandboxFusion's model for other languages, without its sandbox: the source written to a fresh
  folder, compiled there (g++/gcc/javac/rustc) on every call, then run as a subprocess with its stdin.

Native tools run in a pool of worker processes (one per core by default, `--workers N`), so the GIL does not
serialise them; a call past its `timeout_ms` has its worker killed and restarted and is answered `timeout`.
Requests are read from stdin and answered on stdout as each finishes, under the request's id.

Set up its packages with `bash benches/peers/setup.sh`; run it with `~/.cache/beaker/peers/bin/python
benches/peers/python_server.py`.
"""
import argparse
import base64
import io
import json
import math
import multiprocessing as mp
import os
import queue
import re
import subprocess
import sys
import threading
import time

DEFAULT_TIMEOUT_MS = 5000
# How long a worker may take to import its libraries.
STARTUP_TIMEOUT_S = 120
PYTHON_TIMEOUT_MS = 60000


class ToolError(Exception):
    """A failure answered as an envelope: `kind` is the `error_kind`."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------- the tools (run inside worker processes)

_SYMPY = {}


def _sympy():
    if not _SYMPY:
        import sympy

        _SYMPY["sp"] = sympy
        _SYMPY["names"] = {
            "comb": sympy.binomial, "perm": lambda n, k: sympy.factorial(n) / sympy.factorial(n - k),
            "ln": sympy.log, "log10": lambda x: sympy.log(x, 10), "log2": lambda x: sympy.log(x, 2),
            "pi": sympy.pi, "e": sympy.E, "tau": 2 * sympy.pi, "sqrt": sympy.sqrt, "cbrt": sympy.cbrt,
            "factorial": sympy.factorial, "exp": sympy.exp, "abs": sympy.Abs,
        }
    return _SYMPY["sp"], _SYMPY["names"]


def calculator(p):
    sp, names = _sympy()
    expr = p.get("expression")
    if not isinstance(expr, str):
        raise ToolError("invalid_params", "params: \"expression\" is a required string")
    unknown = set(p) - {"expression", "precision"}
    if unknown:
        raise ToolError("invalid_params", f"params: unexpected {sorted(unknown)}")
    digits = int(p.get("precision", 10))
    try:
        v = sp.sympify(expr.replace("^", "**"), locals=names)
    except (sp.SympifyError, SyntaxError, TypeError) as e:
        raise ToolError("parse_error", str(e))
    if v.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ToolError("domain_error", "division by zero or a pole")
    if v.is_Integer:
        return {"value": str(int(v)), "exact": True}
    if v.is_Rational:
        return {"value": str(sp.N(v, max(digits, 15))), "exact": True, "fraction": f"{v.p}/{v.q}"}
    n = sp.N(v, digits + 5)
    if not n.is_real:
        raise ToolError("domain_error", "the result is not real")
    return {"value": str(sp.Float(n, digits + 1)), "exact": False}


_UREG = {}


def unit_converter(p):
    if "pint" not in _UREG:
        import pint

        _UREG["pint"] = pint
        _UREG["u"] = pint.UnitRegistry()
    pint, u = _UREG["pint"], _UREG["u"]
    try:
        q = u.Quantity(float(p["value"]), p["from_unit"]).to(p["to_unit"])
    except KeyError as e:
        raise ToolError("invalid_params", f"params: {e} is required")
    except (pint.errors.UndefinedUnitError, pint.errors.DimensionalityError) as e:
        raise ToolError("invalid_params", str(e))
    return {"value": float(q.magnitude), "unit": p["to_unit"], "from_unit": p["from_unit"]}


def _function(text):
    sp, names = _sympy()
    x = sp.Symbol("x")
    return sp.lambdify(x, sp.sympify(text, locals=names), "math")


def numerical(p):
    import numpy as np
    from scipy import integrate, optimize

    op, d = p.get("operation"), p.get("data", {})
    if op == "solve_linear":
        a, b = np.array(d["A"], dtype=float), np.array(d["b"], dtype=float)
        try:
            x = np.linalg.solve(a, b)
        except np.linalg.LinAlgError as e:
            raise ToolError("domain_error", str(e))
        return {"x": x.tolist(), "residual_norm": float(np.linalg.norm(a @ x - b))}
    if op == "root_find":
        f = _function(d["function"])
        lo, hi = d["bracket"]
        root, r = optimize.brentq(f, lo, hi, full_output=True)
        return {"root": root, "converged": bool(r.converged), "iterations": r.iterations,
                "function_value": f(root)}
    if op == "integrate_numeric":
        f = _function(d["function"])
        value, err, info = integrate.quad(f, d["a"], d["b"], full_output=True)[:3]
        return {"value": value, "abs_error": err, "evaluations": info["neval"]}
    raise ToolError("invalid_params", f"unknown operation {op!r}")


def statistics(p):
    import numpy as np
    from scipy import stats

    op, d = p.get("operation"), p.get("data")
    if op == "t_test":
        a, b = d["sample1"], d["sample2"]
        r = stats.ttest_ind(a, b)
        ci = r.confidence_interval(0.95)
        return {"statistic": float(r.statistic), "p_value": float(r.pvalue), "t_statistic": float(r.statistic),
                "df": float(r.df), "confidence_interval": [float(ci.low), float(ci.high)],
                "mean1": float(np.mean(a)), "mean2": float(np.mean(b)), "n1": len(a), "n2": len(b)}
    if op == "descriptive":
        x = np.array(d, dtype=float)
        q1, q3 = np.percentile(x, [25, 75])
        m = stats.mode(x, keepdims=False)
        return {"n": len(x), "mean": float(x.mean()), "median": float(np.median(x)), "mode": float(m.mode),
                "std": float(x.std(ddof=1)), "var": float(x.var(ddof=1)), "min": float(x.min()),
                "max": float(x.max()), "range": float(np.ptp(x)), "sum": float(x.sum()), "q1": float(q1),
                "q3": float(q3), "iqr": float(q3 - q1), "skew": float(stats.skew(x)),
                "kurtosis": float(stats.kurtosis(x)), "sem": float(stats.sem(x))}
    raise ToolError("invalid_params", f"unknown operation {op!r}")


def chemistry(p):
    import periodictable

    if p.get("operation") != "molar_mass":
        raise ToolError("invalid_params", f"unknown operation {p.get('operation')!r}")
    try:
        f = periodictable.formula(p["formula"])
    except (ValueError, KeyError) as e:
        raise ToolError("invalid_params", str(e))
    return {"formula": p["formula"], "molar_mass": round(f.mass, 3), "unit": "g/mol"}


def physics(p):
    if p.get("operation") != "kinematics":
        raise ToolError("invalid_params", f"unknown operation {p.get('operation')!r}")
    k = {n: float(v) for n, v in p.get("known", {}).items()}
    if {"u", "a", "t"} <= set(k):
        u, a, t = k["u"], k["a"], k["t"]
        return {"u": u, "v": u + a * t, "a": a, "t": t, "s": u * t + 0.5 * a * t * t}
    raise ToolError("invalid_params", "give u, a and t")


def plotter(p):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    kind, d = p.get("plot_type"), p.get("data", {})
    fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
    try:
        if kind == "function":
            lo, hi = d.get("x_range", [-10, 10])
            xs = np.linspace(lo, hi, 500)
            sp, names = _sympy()
            for text in d["functions"]:
                f = sp.lambdify(sp.Symbol("x"), sp.sympify(text, locals=names), "numpy")
                ax.plot(xs, np.broadcast_to(f(xs), xs.shape), label=text)
            ax.legend()
        elif kind == "scatter":
            ax.scatter(d["x"], d["y"])
        elif kind == "histogram":
            ax.hist(d["values"], bins=d.get("bins", 10))
        else:
            raise ToolError("invalid_params", f"unknown plot_type {kind!r}")
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
    finally:
        plt.close(fig)
    return {"image": base64.b64encode(buf.getvalue()).decode(), "format": "png", "width": 800, "height": 600}


_BM25S = {}


def _words(text):
    # web_search's analyzer, restated: runs of letters and digits, lower-cased character by character.
    out, cur = [], []
    for c in text:
        if c.isalpha() or c.isdigit() or c.isnumeric():
            cur.append(c.lower())
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def _host(url):
    rest = url.split("://", 1)[-1]
    host = re.split(r"[/?#]", rest, maxsplit=1)[0].rsplit("@", 1)[-1]
    name, _, port = host.rpartition(":")
    if name and port.isdigit():
        host = name
    host = host.rstrip(".").lower()
    return host[4:] if host.startswith("www.") else host


def _load_bm25s():
    folder = os.environ.get("BEAKER_PEER_BM25S")
    if folder and not _BM25S:
        import bm25s
        import numpy as np
        r = bm25s.BM25.load(folder, load_corpus=True, mmap=True)
        _BM25S["retriever"] = r
        # Every host and parent domain to the passages under it, for `site`.
        sites = {}
        for d in range(len(r.corpus)):
            url = r.corpus[d].get("url")
            if url:
                host = _host(url)
                while host:
                    sites.setdefault(host, []).append(d)
                    host = host.split(".", 1)[1] if "." in host else ""
        _BM25S["sites"] = {h: np.asarray(v) for h, v in sites.items()}


def web_search(p):
    import numpy as np
    r = _BM25S.get("retriever")
    if r is None:
        raise ToolError("tool_error", "no index: start the peer with --web-search-index DIR")
    k, offset = int(p.get("max_results", 5)), int(p.get("offset", 0))
    words = _words(p["query"])
    known = [w for w in words if w in r.vocab_dict]
    if not known:
        return {"results": []}
    scores = r.get_scores(known)
    matched = np.flatnonzero(scores > 0)
    if p.get("site"):
        matched = np.intersect1d(matched, _BM25S["sites"].get(_host(p["site"]), np.empty(0, dtype=int)))
    n = min(offset + k, len(matched))
    if n == 0:
        return {"results": []}
    # Everything scoring at least the n-th best, so ties at the cut are ordered by id as web_search orders them.
    kth = -np.partition(-scores[matched], n - 1)[n - 1]
    top = matched[scores[matched] >= kth]
    docs = {int(d): r.corpus[int(d)] for d in top}
    order = sorted(docs, key=lambda d: (-scores[d], docs[d]["id"]))[offset:offset + k]
    results = [{"title": docs[d]["title"], "url": docs[d].get("url"), "id": docs[d]["id"], "score": float(scores[d])}
               for d in order]
    return {"results": results}


def _chemicals_db():
    """chemicals' identifier database with its large table loaded (as the pubchem tool answers from)."""
    from chemicals.identifiers import get_pubchem_db
    db = get_pubchem_db()
    db.finish_loading()
    return db


def pubchem(p):
    """chemicals' search_chemical and property functions, the package the pubchem tool's tables come from."""
    from chemicals import identifiers, phase_change, safety
    _chemicals_db()
    try:
        c = identifiers.search_chemical(str(p["identifier"]).strip(), cache=False)
    except ValueError as e:
        raise ToolError("invalid_params", str(e))
    head = {"cid": c.pubchemid, "cas": c.CASs, "name": c.common_name, "formula": c.formula,
            "molecular_weight": c.MW}
    op = p.get("operation")
    if op in ("compound", "structure"):
        return {**head, "smiles": c.smiles, "inchi": "InChI=1S/" + c.InChI, "inchikey": c.InChI_key}
    if op == "synonyms":
        return {**head, "synonyms": c.synonyms[:int(p.get("max_synonyms", 20))]}
    if op == "properties":
        return {**head, "properties": {"MeltingPoint": phase_change.Tm(c.CASs), "BoilingPoint": phase_change.Tb(c.CASs)}}
    if op == "safety":
        return {**head, "flash_point": safety.T_flash(c.CASs), "carcinogen": safety.Carcinogen(c.CASs),
                "TWA": safety.TWA(c.CASs)}
    raise ToolError("invalid_params", f"unknown operation {op!r}")


TOOLS = {"calculator": calculator, "unit_converter": unit_converter, "numerical": numerical,
         "statistics": statistics, "chemistry": chemistry, "physics": physics, "plotter": plotter,
         "web_search": web_search, "pubchem": pubchem}


def _worker(conn):
    """A worker process: answers (tool, params) jobs from `conn` until it is closed."""
    # Imported up front, as a long-running server would have them: a first call should not pay for them.
    import matplotlib.pyplot  # noqa: F401
    import periodictable  # noqa: F401
    try:
        _chemicals_db()
    except ImportError:
        pass  # a venv set up before chemicals was pinned: pubchem calls fail, the rest serve
    import scipy.integrate  # noqa: F401
    import scipy.optimize  # noqa: F401
    import scipy.stats  # noqa: F401

    _sympy()
    unit_converter({"value": 1, "from_unit": "m", "to_unit": "m"})
    _load_bm25s()
    # Warm: from here on a call's time is the call's own.
    conn.send("ready")
    while True:
        try:
            tool, params = conn.recv()
        except EOFError:
            return
        try:
            out = {"success": True, "result": TOOLS[tool](params)}
        except ToolError as e:
            out = {"success": False, "error": str(e), "error_kind": e.kind}
        except (KeyError, TypeError, ValueError, IndexError) as e:
            out = {"success": False, "error": f"{type(e).__name__}: {e}", "error_kind": "invalid_params"}
        except ZeroDivisionError as e:
            out = {"success": False, "error": str(e), "error_kind": "domain_error"}
        except Exception as e:  # noqa: BLE001 - every failure must reach the caller as an envelope
            out = {"success": False, "error": f"{type(e).__name__}: {e}", "error_kind": "tool_error"}
        conn.send(out)


class Worker:
    """One worker process and its pipe; restarted after a timeout kills it."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.launch()

    def start(self):
        self.launch()
        self.wait_ready()

    def launch(self):
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()
        child.close()

    def wait_ready(self):
        # The imports take seconds (4 s on a loaded 2-core machine); they are the server's start-up, not the next
        # call's time, so a call's timeout never counts them (or a restart after one timeout would time out the
        # next call too, and every call after it).
        if not self.conn.poll(STARTUP_TIMEOUT_S):
            raise RuntimeError(f"the worker did not start within {STARTUP_TIMEOUT_S} s")
        self.conn.recv()

    def call(self, tool, params, timeout_s):
        self.conn.send((tool, params))
        if self.conn.poll(timeout_s):
            return self.conn.recv()
        self.proc.kill()
        self.proc.join()
        self.start()
        return {"success": False, "error": f"the call ran past {timeout_s * 1000:.0f} ms", "error_kind": "timeout"}


# ---------------------------------------------------------------- execute_python: a fresh interpreter per call

def execute_python(params, timeout_s):
    code = params.get("code")
    if not isinstance(code, str):
        return {"success": False, "error": "params: \"code\" is a required string", "error_kind": "invalid_params"}
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=timeout_s,
                           stdin=subprocess.DEVNULL, env={"PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"})
    except subprocess.TimeoutExpired:
        return {"success": False, "error": f"the call ran past {timeout_s * 1000:.0f} ms", "error_kind": "timeout"}
    stderr = r.stderr.decode("utf-8", "replace")
    exception = None
    if r.returncode != 0:
        lines = stderr.strip().splitlines()
        exception = {"type": lines[-1].split(":")[0] if lines else "", "message": lines[-1] if lines else ""}
    return {"success": True, "result": {"stdout": r.stdout.decode("utf-8", "replace"), "stderr": stderr,
                                        "result": None, "exception": exception, "truncated": False,
                                        "figures": []}}


# ---------------------------------------------------------------- execute_code: compile and run per call

# esbuild where scripts/install-python-runtime.py puts it.
ESBUILD = os.path.join(os.environ.get("BEAKER_TYPESCRIPT") or ("/var/lib/beaker/typescript" if os.geteuid() == 0 else
                       os.path.expanduser("~/.cache/beaker/typescript")), "bin", "esbuild")

CODE_LANGUAGES = {
    # language: (source name, compile argv or None, run argv); {src} and {dir} are filled in.
    # This venv's Python, which has numpy (SandboxFusion's image has the scientific stack too).
    "python": ("main.py", None, [sys.executable, "-u", "{dir}/main.py"]),
    "c": ("main.c", ["gcc", "-O2", "-std=gnu17", "-pipe", "-o", "{dir}/main", "{dir}/main.c", "-lm"], ["{dir}/main"]),
    "cpp": ("main.cpp", ["g++", "-O2", "-std=gnu++17", "-pipe", "-o", "{dir}/main", "{dir}/main.cpp"], ["{dir}/main"]),
    "rust": ("main.rs", ["rustc", "-O", "--edition", "2021", "-o", "{dir}/main", "{dir}/main.rs"], ["{dir}/main"]),
    "java": ("Main.java", ["javac", "-encoding", "UTF-8", "-d", "{dir}", "{dir}/Main.java"],
             ["java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", "{dir}", "Main"]),
    "nodejs": ("main.js", None, ["node", "{dir}/main.js"]),
    "bash": ("main.sh", None, ["bash", "{dir}/main.sh"]),
    # SandboxFusion runs `tsx main.ts`, esbuild's transform then node: the same two steps, per call.
    "typescript": ("main.ts", [ESBUILD, "{dir}/main.ts", "--outfile={dir}/main.js", "--format=cjs", "--platform=node",
                               "--log-level=warning"], ["node", "{dir}/main.js"]),
}


def execute_code(params, timeout_s):
    import tempfile
    lang = CODE_LANGUAGES.get(params.get("language"))
    code = params.get("code")
    if lang is None or not isinstance(code, str):
        return {"success": False, "error": "params: a known `language` and a `code` string", "error_kind": "invalid_params"}
    source, compile_argv, run_argv = lang
    fill = lambda argv, d: [a.replace("{dir}", d) for a in argv]
    text = lambda b: b.decode("utf-8", "replace")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, source), "w") as f:
            f.write(code)
        result = {"language": params["language"]}
        try:
            if compile_argv:
                c = subprocess.run(fill(compile_argv, d), capture_output=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
                if c.returncode != 0:
                    result.update(compile={"exit_code": c.returncode, "stdout": text(c.stdout), "stderr": text(c.stderr)},
                                  status="compile_error", exit_code=None, stdout=None, stderr=None)
                    return {"success": True, "result": result}
                result["compile"] = {"exit_code": 0, "stdout": "", "stderr": ""}
            r = subprocess.run(fill(run_argv, d), capture_output=True, timeout=timeout_s, cwd=d,
                               input=params.get("stdin", "").encode())
        except subprocess.TimeoutExpired:
            return {"success": False, "error": f"the call ran past {timeout_s * 1000:.0f} ms", "error_kind": "timeout"}
        code_ = r.returncode if r.returncode >= 0 else 128 - r.returncode
        result.update(status="ok" if code_ == 0 else "runtime_error", exit_code=code_,
                      stdout=text(r.stdout), stderr=text(r.stderr))
        return {"success": True, "result": result}


# ---------------------------------------------------------------- the server loop

REQUEST_KEYS = {"id", "tool", "params", "limits", "meta", "tag", "seed"}


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("a key appears twice in one object")
    return dict(pairs)


def parse(line):
    """(id, tool, params, timeout_s) or an error envelope."""
    try:
        req = json.loads(line, object_pairs_hook=_no_duplicates)
    except ValueError as e:
        m = re.search(r'"id"\s*:\s*(-?\d+)', line)
        return {"id": int(m.group(1)) if m else None, "success": False, "error": f"not a request: {e}",
                "error_kind": "parse_error"}
    if not isinstance(req, dict) or "tool" not in req or set(req) - REQUEST_KEYS:
        rid = req.get("id") if isinstance(req, dict) else None
        return {"id": rid, "success": False, "error": "this server takes tool calls only",
                "error_kind": "parse_error"}
    tool = req["tool"]
    if tool not in ("execute_python", "execute_code") and tool not in TOOLS:
        return {"id": req.get("id"), "success": False, "error": f"unknown tool `{tool}`",
                "error_kind": "unknown_tool"}
    limits = req.get("limits") or {}
    default = PYTHON_TIMEOUT_MS if tool in ("execute_python", "execute_code") else DEFAULT_TIMEOUT_MS
    return req.get("id"), tool, req.get("params") or {}, limits.get("timeout_ms", default) / 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count(), help="worker processes (default: one per core)")
    ap.add_argument("--web-search-index", help="a bm25s index saved by benches/search/bm25s_index.py")
    args = ap.parse_args()
    if args.web_search_index:
        # Read by each worker as it starts (spawned workers inherit the environment).
        os.environ["BEAKER_PEER_BM25S"] = args.web_search_index
    # spawn, not fork: a worker restarted after a timeout is started while the serving threads run.
    ctx = mp.get_context("spawn")
    jobs = queue.Queue()
    out_lock = threading.Lock()

    def answer(envelope):
        line = json.dumps(envelope, separators=(",", ":")) + "\n"
        with out_lock:
            sys.stdout.write(line)
            sys.stdout.flush()

    def serve(worker):
        while True:
            job = jobs.get()
            if job is None:
                return
            rid, tool, params, timeout_s = job
            t = time.perf_counter()
            if tool == "execute_python":
                env = execute_python(params, timeout_s)
            elif tool == "execute_code":
                env = execute_code(params, timeout_s)
            else:
                env = worker.call(tool, params, timeout_s)
            answer({"id": rid, "tool": tool, **env, "elapsed_us": int((time.perf_counter() - t) * 1e6)})

    # Python calls are subprocesses: they wait on I/O, so more of them than cores may run at once.
    workers = [Worker(ctx) for _ in range(max(1, args.workers))]
    # Launched together, so their imports overlap; each is warm before the first request is read.
    for w in workers:
        w.wait_ready()
    threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in workers]
    for t in threads:
        t.start()
    for line in sys.stdin:
        if not line.strip():
            continue
        job = parse(line)
        if isinstance(job, dict):
            answer(job)
        else:
            jobs.put(job)
    for _ in threads:
        jobs.put(None)
    for t in threads:
        t.join()


if __name__ == "__main__":
    main()
