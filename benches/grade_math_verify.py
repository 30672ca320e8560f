"""Hugging Face math-verify's cost on the 302 pairs of tests/data/grading/pairs.jsonl, for the comparison with
`cargo bench --bench grade` (grade_302_pairs) in docs/PERFORMANCE.md.

    python3 -m venv /tmp/gen && /tmp/gen/bin/pip install math-verify==0.9.0
    /tmp/gen/bin/python benches/grade_math_verify.py
"""
import json
import pathlib
import statistics
import time

from math_verify import parse, verify

ROOT = pathlib.Path(__file__).resolve().parents[1]
rows = [json.loads(l) for l in (ROOT / "tests/data/grading/pairs.jsonl").open()]


def one_pass():
    for r in rows:
        ref = r["reference"]
        shown = ref if ("$" in ref or "\\boxed" in ref) else f"${ref}$"
        try:
            verify(parse(shown), parse(r["answer"]))
        except Exception:  # noqa: BLE001 - a failure is a verdict, as in the generator
            pass


one_pass()  # warm-up: imports, sympy caches
times = []
for _ in range(5):
    t = time.perf_counter()
    one_pass()
    times.append(time.perf_counter() - t)
print(f"math-verify 0.9.0, {len(rows)} pairs: median {statistics.median(times) * 1e3:.1f} ms a pass "
      f"({statistics.median(times) / len(rows) * 1e6:.0f} us a pair), over {len(times)} passes")
