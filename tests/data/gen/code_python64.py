"""Writes tests/data/code/python64.jsonl: issue 40's traps of a 32-bit Python (the WebAssembly CPython), which
execute_code's native Python must answer as CPython on a 64-bit host does, with its scientific stack importable,
threads and subprocesses working. Each case is a program and its expected stdout, computed here from the
mathematics (math.comb, closed-form sums) with the host's CPython integers, never by Beaker or numpy. The suite
`code::python64` runs each through execute_code's `tests` and requires `accepted`.

Needs nothing beyond the standard library. Run: python3 tests/data/gen/code_python64.py
"""

import json
import math
import os

N = 100_000
CASES = [
    ("numpy_sum_of_squares_is_int64",
     "import numpy as np\nprint((np.arange(100000)**2).sum())\n",
     f"{sum(k * k for k in range(N))}\n"),
    ("numpy_grid_path_count",
     "import numpy as np\ng = np.zeros((21, 21), dtype=int)\ng[0, :] = 1\ng[:, 0] = 1\n"
     "for i in range(1, 21):\n    for j in range(1, 21):\n        g[i, j] = g[i - 1, j] + g[i, j - 1]\nprint(g[20, 20])\n",
     f"{math.comb(40, 20)}\n"),
    ("numpy_astype_int_keeps_3e9",
     "import numpy as np\nprint(np.array([3e9]).astype(int)[0], np.dtype(int).itemsize, np.intp(0).itemsize)\n",
     "3000000000 8 8\n"),
    ("sys_maxsize_is_a_64_bit_sentinel",
     "import sys\nbest = sys.maxsize\nbest = min(best, 5_000_000_000)\nprint(best, sys.maxsize == 2**63 - 1)\n",
     "5000000000 True\n"),
    ("the_scientific_stack_is_importable",
     "import numpy, scipy, scipy.linalg, sympy, pandas, networkx, mpmath, matplotlib\n"
     "import matplotlib.pyplot as plt\n"
     "x = sympy.symbols('x')\nprint(sympy.integrate(x**2, (x, 0, 3)))\n"
     "print(round(float(scipy.linalg.solve([[3, 1], [1, 2]], [9, 8])[0]), 9))\n"
     "print(pandas.DataFrame({'a': [1, 2, 3]})['a'].sum())\n"
     "print(networkx.shortest_path_length(networkx.path_graph(5), 0, 4))\n"
     "print(mpmath.mp.dps)\n",
     f"{3**3 // 3}\n{2.0}\n{6}\n{4}\n15\n"),
    ("threads_run",
     "import threading\nout = []\nts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]\n"
     "[t.start() for t in ts]\n[t.join() for t in ts]\nprint(sorted(out))\n",
     f"{list(range(4))}\n"),
    ("a_subprocess_runs",
     "import subprocess, sys\nr = subprocess.run([sys.executable, '-c', 'print(6 * 7)'], capture_output=True, text=True)\n"
     "print(r.returncode, r.stdout.strip())\n",
     "0 42\n"),
    ("each_run_draws_fresh_random_numbers_but_the_same_hash_seed",
     "import random, numpy as np\nprint(len({random.random() for _ in range(3)}), hash('beaker') == hash('beaker'))\n",
     "3 True\n"),
]

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "code", "python64.jsonl")
with open(out, "w") as f:
    for name, code, expected in CASES:
        case = {"name": f"{name}/python", "language": "python", "code": code,
                "tests": [{"stdin": "", "expected_stdout": expected}]}
        f.write(json.dumps(case) + "\n")
print(f"wrote {len(CASES)} cases to {os.path.normpath(out)}")
