"""Second adversarial trial of the `grade` tool, part 5 of 6: pairs aimed at the rules added after the first
trial, each with the verdict a demanding grader must give, stated by hand. Writes
tests/data/grading/trial2_5.jsonl.

    python3 tests/data/gen/grading_trial2_5.py
"""
"""Regression: ordinary correct/incorrect pairs in common answer formats."""
import json, random
from fractions import Fraction
random.seed(7)
C = []
def add(cat, a, r, t, why="", **p): C.append(dict(cat=cat, answer=a, reference=r, truth=t, why=why, params=p))
wraps = [
 lambda s: f"\\boxed{{{s}}}",
 lambda s: f"Thus the final answer is $\\boxed{{{s}}}$.",
 lambda s: f"So the answer is ${s}$.",
 lambda s: f"Step 1: compute 17.\nStep 2: add 4.\n#### {s}",
 lambda s: f"**Final Answer:** ${s}$",
 lambda s: f"Answer: {s}",
 lambda s: f"We get 12 and 7 along the way. The final answer is \\boxed{{{s}}}",
]
def texfrac(f):
    if f.denominator == 1: return str(f.numerator)
    s = "-" if f < 0 else ""
    return f"{s}\\frac{{{abs(f.numerator)}}}{{{f.denominator}}}"
for i in range(120):
    kind = i % 6
    if kind == 0:
        n = random.randint(-500, 5000); ref = str(n); good = [str(n), f"{n}.0", f"{n:,}" if abs(n) >= 1000 else str(n)]; bad = [str(n + random.choice([1, -1, 10])), str(-n) if n else "1", str(n * 10)]
    elif kind == 1:
        f = Fraction(random.randint(-30, 30) or 1, random.randint(2, 13))
        if f.denominator == 1: f += Fraction(1, 2)
        ref = texfrac(f); good = [texfrac(f), f"{f.numerator}/{f.denominator}", f"\\dfrac{{{f.numerator}}}{{{f.denominator}}}"]; bad = [texfrac(f + Fraction(1, f.denominator)), texfrac(1 / f), texfrac(-f)]
    elif kind == 2:
        a, b = random.randint(2, 9), random.choice([2, 3, 5, 6, 7])
        ref = f"{a}\\sqrt{{{b}}}"; good = [ref, f"\\sqrt{{{a*a*b}}}", f"{a}\\cdot\\sqrt{{{b}}}"]; bad = [f"{a+1}\\sqrt{{{b}}}", f"\\sqrt{{{a*b}}}", f"{a}\\sqrt{{{b+1}}}"]
    elif kind == 3:
        a, b = random.randint(1, 9), random.randint(2, 9)
        ref = f"\\frac{{{a}\\pi}}{{{b}}}"; good = [ref, f"{a}\\pi/{b}", f"\\frac{{{a}}}{{{b}}}\\pi"]; bad = [f"\\frac{{{a+1}\\pi}}{{{b}}}", f"\\frac{{{a}}}{{{b}}}", f"\\frac{{{b}\\pi}}{{{a}}}" if a != b else "\\pi + 1"]
    elif kind == 4:
        a, b = random.randint(1, 9), random.randint(-9, 9) or 1
        ref = f"{a}x{b:+d}"; good = [ref, f"{b}+{a}x", (f"{a}(x{b//a:+d})" if b % a == 0 else f"{a}x + ({b})")]; bad = [f"{a}x{-b:+d}", f"{a+1}x{b:+d}", f"{a}x^2{b:+d}"]
    else:
        p, q = random.randint(-5, 5), random.randint(-5, 5)
        ref = f"({p}, {q})"; good = [ref, f"({p},{q})", f"\\left({p}, {q}\\right)"]; bad = [f"({q}, {p})" if p != q else f"({p}, {q+1})", f"({p}, {q+1})", f"[{p}, {q}]"]
    w = wraps[i % len(wraps)]
    for g in good: add("regress", w(g), ref, True)
    for b in bad: add("regress", w(b), ref, False)
# GSM8K-like texts
for i in range(40):
    n = random.randint(2, 900); m = random.randint(2, 50)
    t = f"Natalia sold {m} clips in April and half as many in May. Altogether she sold {m} + {m//2} = {m + m//2} clips.\n#### {n}"
    add("regress_gsm", t, str(n), True); add("regress_gsm", t, str(n + 1), False)
    t2 = f"He earns ${m} per hour and works {n} hours, so he earns {m} * {n} = ${m*n}. The answer is {m*n}."
    add("regress_gsm", t2, str(m * n), True); add("regress_gsm", t2, str(m * n + m), False)
    t3 = f"The total cost is \\${m*n}.00"
    add("regress_gsm", t3, str(m * n), True); add("regress_gsm", t3, str(m * n - 1), False)
import pathlib
OUT = pathlib.Path(__file__).resolve().parents[3] / "tests/data/grading/trial2_5.jsonl"
with OUT.open("w") as f:
    for i, c in enumerate(C):
        c["id"] = 25000 + i
        # Kept: cases with a stated verdict (the arguable ones are left out).
        if c.get("truth") is not None:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C))
