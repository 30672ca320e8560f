"""p50 latency of each symbolic_math, latex_render and logic_solver operation through `beaker serve`.

Usage: python3 benches/tool_ops.py BEAKER_BINARY [REPS] [--native PYTHON]

Sends each call of benches/inputs/tool_ops.jsonl REPS times (default 30, after 3 warm-up calls) one at a time
to one `beaker serve` and reports, per call, the median and p90 of the server's `elapsed_us` (the tool's work:
a fresh sandboxed interpreter for SymPy and mathtext, a fresh Z3 context for Z3) and of the client's round trip.

With --native PYTHON (a CPython with SymPy 1.14 and matplotlib, e.g. ~/.cache/beaker-refpy/bin/python), the
symbolic_math and latex_render calls are also timed in that native interpreter, warm but with SymPy's cache
cleared before each call, running the same guest code (crates/beaker-python/src/symbolic.py): the ratio is the
price of WebAssembly and of a fresh interpreter per call.
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

NATIVE = r'''
import io, json, sys, time, base64, statistics
_isinstance=isinstance; _len=len; _str=str; _repr=repr; _type=type; _BytesIO=io.BytesIO; _b64encode=base64.b64encode
_sys=sys; _dumps=json.dumps
class _Capture(io.StringIO):
    def __init__(self, name, budget): super().__init__()
_REAL_STREAMS=(sys.stdin, sys.stdout, sys.stderr)
_OUT=[]
def _write_report(r): _OUT.append(r)
def _reseed(): pass
import gc, matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as _plt
exec(compile(open(sys.argv[1]).read(), "symbolic.py", "exec"), globals())
from sympy.core.cache import clear_cache
reps = int(sys.argv[2])
for line in sys.stdin:
    c = json.loads(line)
    ts = []
    for i in range(reps + 3):
        _OUT.clear()
        # Each sandboxed call starts from the snapshot, where SymPy's cache has never seen this input.
        clear_cache()
        t = time.perf_counter()
        _beaker_tool({"tool": c["tool"], "args": c["params"]})
        if i >= 3:
            ts.append(time.perf_counter() - t)
    assert "ok" in _OUT[0], (c["name"], _OUT[0])
    print(json.dumps({"name": c["name"], "p50_us": statistics.median(ts) * 1e6}), flush=True)
'''


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    args = sys.argv[1:]
    native = None
    if "--native" in args:
        i = args.index("--native")
        native = args[i + 1]
        del args[i : i + 2]
    binary = args[0]
    reps = int(args[1]) if len(args) > 1 else 30
    cases = [json.loads(l) for l in open(os.path.join(HERE, "inputs", "tool_ops.jsonl")) if l.strip()]
    server = subprocess.Popen([binary, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rows = []
    for c in cases:
        server_us, trip_us = [], []
        for i in range(reps + 3):
            req = json.dumps({"id": i, "tool": c["tool"], "params": c["params"]})
            t = time.perf_counter()
            server.stdin.write(req + "\n")
            server.stdin.flush()
            env = json.loads(server.stdout.readline())
            dt = time.perf_counter() - t
            if not env.get("success"):
                sys.exit(f"{c['name']}: {env}")
            if i >= 3:
                server_us.append(env["elapsed_us"])
                trip_us.append(dt * 1e6)
        rows.append((c, statistics.median(server_us), pct(server_us, 0.9), statistics.median(trip_us)))
    server.stdin.close()
    server.wait()
    natives = {}
    if native:
        lines = "".join(json.dumps(c) + "\n" for c in cases if c["tool"] != "logic_solver")
        out = subprocess.run(
            [native, "-c", NATIVE, os.path.join(ROOT, "crates/beaker-python/src/symbolic.py"), str(reps)],
            input=lines, capture_output=True, text=True, check=True,
        ).stdout
        natives = {r["name"]: r["p50_us"] for r in map(json.loads, out.splitlines())}
    print(f"{'call':<22} {'tool':<14} {'p50 ms':>8} {'p90 ms':>8} {'trip ms':>8} {'native ms':>10} {'ratio':>6}")
    for c, p50, p90, trip in rows:
        n = natives.get(c["name"])
        ns = f"{n / 1000:10.2f} {p50 / n:6.1f}" if n else f"{'':>10} {'':>6}"
        print(f"{c['name']:<22} {c['tool']:<14} {p50 / 1000:8.2f} {p90 / 1000:8.2f} {trip / 1000:8.2f} {ns}")


if __name__ == "__main__":
    main()
