"""Answer/reference pairs for grading, with Hugging Face math-verify's verdict on each.

The pairs are of the kinds math datasets hold (GSM8K-style integers, MATH-style LaTeX, multiple choice, physics
with units), each written in several surface forms a model uses, correct and near-miss. For every pair the file
records math-verify's verdict (`parse("$" + reference + "$")`, `parse(answer)`, `verify(gold, answer)`), and, where this
script states one, `truth`: the verdict a demanding grader must give, with `why` (the pairs where math-verify
is expected to be wrong, e.g. bare choice letters and units, which it does not handle). Beaker's grader is held to
`truth` where given and to math-verify elsewhere, and its disagreements are reported.

    python3 -m venv /tmp/gen && /tmp/gen/bin/pip install math-verify==0.9.0
    /tmp/gen/bin/python tests/data/gen/grading.py    # writes tests/data/grading/pairs.jsonl
"""
import json
import pathlib

import math_verify
from math_verify import parse, verify

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / "tests/data/grading/pairs.jsonl"


def pairs():
    """(kind, answer, reference, truth or None, why)."""
    out = []

    def add(kind, answer, reference, truth=None, why=""):
        out.append((kind, answer, reference, truth, why))

    # Integers, as GSM8K answers: bare, boxed, in a sentence, with separators, signs, trailing units of count.
    for ref in ["42", "7", "0", "-3", "1000", "123456", "2024", "18", "96", "350"]:
        n = int(ref)
        add("integer", ref, ref)
        add("integer", f"\\boxed{{{ref}}}", ref)
        add("integer", f"The answer is {ref}.", ref)
        add("integer", f"Final answer: {ref}", ref)
        add("integer", f"So she has ${ref}$ apples left.", ref)
        add("integer", f"{n:,}", ref)
        add("integer", f"\\boxed{{{n + 1}}}", ref, False, "off by one")
        add("integer", f"{n}.0", ref)
    # Decimals and fractions: the same number written as a decimal, a fraction, a LaTeX fraction, a percentage.
    for num, den in [(1, 2), (1, 4), (3, 4), (2, 5), (1, 8), (7, 20), (-3, 2), (5, 2), (9, 10), (1, 3), (2, 3), (1, 7)]:
        val = num / den
        frac = f"\\frac{{{num}}}{{{den}}}" if num > 0 else f"-\\frac{{{-num}}}{{{den}}}"
        add("fraction", f"\\boxed{{{frac}}}", f"{num}/{den}")
        add("fraction", f"{num}/{den}", frac)
        add("fraction", f"\\dfrac{{{abs(num)}}}{{{den}}}" if num > 0 else f"-\\dfrac{{{-num}}}{{{den}}}", frac, True,
            "\\dfrac is \\frac in display style: the same number")
        if den in (2, 4, 5, 8, 10, 20):
            add("fraction", f"{val:g}", frac)
            add("fraction", f"\\boxed{{{val:g}}}", f"{num}/{den}")
        else:
            add("fraction", f"{val:.6f}", frac, None, "a rounded decimal of a repeating fraction")
            add("fraction", f"{val:.2f}", frac, False, "rounded to two places: not the exact value")
        add("fraction", f"{num + 1}/{den}", frac, False, "a different fraction")
    # Percentages against their decimal and fraction forms.
    for p in ["25", "50", "12.5", "80", "3"]:
        v = float(p) / 100
        add("percent", f"{p}\\%", f"{v:g}", True, "p% is p/100")
        add("percent", f"{p}%", f"{p}\\%")
        add("percent", f"\\boxed{{{p}\\%}}", f"{p}", True, "a reference may give the number of percent")
        add("percent", f"{v:g}", f"{p}\\%")
    # Scientific notation.
    for m, e in [(1.5, 3), (6.02, 23), (3, -4), (2.5, -7), (9.81, 0)]:
        v = m * 10 ** e
        add("scientific", f"{m} \\times 10^{{{e}}}", f"{v:.6g}", True, "scientific notation for the same number")
        add("scientific", f"{m}e{e}", f"{m} \\times 10^{{{e}}}", True, "E notation for the same number")
        add("scientific", f"{m * 1.01:.4g} \\times 10^{{{e}}}", f"{m} \\times 10^{{{e}}}", False, "1% off")
    # Irrational and symbolic numbers.
    for a, b, t in [
        ("\\sqrt{2}", "\\sqrt{2}", True), ("2\\sqrt{2}", "\\sqrt{8}", True), ("\\frac{\\sqrt{3}}{2}", "\\frac{1}{2}\\sqrt{3}", True),
        ("\\pi", "\\pi", True), ("2\\pi", "\\pi \\cdot 2", True), ("\\frac{\\pi}{4}", "0.25\\pi", True),
        ("1.4142", "\\sqrt{2}", None), ("3.14", "\\pi", None), ("e^{2}", "e^2", True), ("\\ln(e^{2})", "2", True),
        ("\\sqrt{3}", "\\sqrt{2}", False), ("\\frac{\\pi}{3}", "\\frac{\\pi}{6}", False), ("2^{10}", "1024", True),
        ("\\binom{5}{2}", "10", True), ("5!", "120", True), ("3^{-1}", "\\frac{1}{3}", True),
    ]:
        add("symbolic_number", f"\\boxed{{{a}}}", b, t if t is not None else None,
            "a decimal approximation of an irrational value" if t is None else "")
    # Expressions: expanded against factored, reordered terms, equivalent rational functions.
    for a, b, t in [
        ("x^2-1", "(x-1)(x+1)", True), ("x^2+2x+1", "(x+1)^2", True), ("2x+3", "3+2x", True),
        ("\\frac{x^2-1}{x-1}", "x+1", True), ("x(x+1)", "x^2+x", True), ("(a+b)^2", "a^2+2ab+b^2", True),
        ("\\sin^2 x + \\cos^2 x", "1", True), ("x^2+1", "(x+1)^2", False), ("2x", "x^2", False),
        ("\\frac{1}{x}+\\frac{1}{y}", "\\frac{x+y}{xy}", True), ("3x-2", "3x+2", False), ("x^3", "x \\cdot x^2", True),
    ]:
        add("expression", f"${a}$", f"${b}$", t)
        add("expression", f"\\boxed{{{a}}}", b, t)
    # Equations and assignments: `x = 2` against `2`, systems as tuples.
    for a, b, t in [
        ("x = 2", "2", True), ("y=-\\frac{1}{2}", "-0.5", True), ("x=3", "x=3", True), ("x = 4", "3", False),
        ("(2, 3)", "(2,3)", True), ("(3, 2)", "(2, 3)", False), ("x=1, y=2", "(1, 2)", None),
    ]:
        add("equation", f"\\boxed{{{a}}}", b, t, "an assignment against its value" if t is None else "")
    # Sets and intervals.
    for a, b, t in [
        ("\\{1, 2, 3\\}", "\\{3, 2, 1\\}", True), ("\\{1, 2\\}", "\\{1, 2, 3\\}", False), ("[0, 1]", "[0,1]", True),
        ("(0, 1]", "[0, 1]", False), ("(-\\infty, 2)", "(-\\infty,2)", True), ("[1, \\infty)", "[1, \\infty)", True),
        ("1, 2, 3", "\\{1,2,3\\}", None), ("x \\in [0, 1]", "[0, 1]", None),
    ]:
        add("set_interval", f"\\boxed{{{a}}}", b, t, "a list or membership against a set" if t is None else "")
    # Multiple choice: the letter in its many spellings. math-verify parses math, not choice labels.
    for ref in ["A", "B", "C", "D"]:
        for ans in [f"({ref})", ref, ref.lower() + ")", f"The answer is ({ref}).", f"\\boxed{{{ref}}}", f"Answer: {ref}"]:
            add("choice", ans, ref, True, "the same choice letter")
        wrong = "ABCD"[("ABCD".index(ref) + 1) % 4]
        add("choice", f"({wrong})", ref, False, "another choice")
        add("choice", f"\\boxed{{{wrong}}}", f"({ref})", False, "another choice")
    # Units: the same quantity in other units. math-verify ignores units.
    for a, b, t in [
        ("1 km", "1000 m", True), ("2.5 kg", "2500 g", True), ("60 km/h", "16.6667 m/s", True), ("1 h", "3600 s", True),
        ("3 m", "3 cm", False), ("100 \\text{ J}", "0.1 kJ", True), ("5 N", "5 kg", False), ("9.81 m/s^2", "9.81 \\text{ m/s}^2", True),
        ("1 atm", "101.325 kPa", True), ("500 mL", "0.5 L", True), ("2 kg", "2000 m", False), ("273.15 K", "0 \\degree C", True),
    ]:
        add("units", a, b, t,
            "the same quantity in other units" if t else "a different quantity")
    # Text answers.
    for a, b, t in [("Yes", "yes", True), ("No.", "no", True), ("yes", "no", False), ("\\text{even}", "even", True)]:
        add("text", a, b, t)
    # Hostile and degenerate inputs: must be answered (false), never crash or hang.
    for a in ["", "\\boxed{", "\\frac{1}{0}", "10^{10^{10}}", "x" * 5000, "\\sqrt{-1}", "((((((((((1))))))))))",
              "}}}}", "NaN", "inf", "\\boxed{\\boxed{\\boxed{3}}}", "1/0"]:
        add("hostile", a, "3", None, "a degenerate answer: any verdict, never a crash or a hang")
    return out


def main():
    rows = []
    for i, (kind, answer, reference, truth, why) in enumerate(pairs()):
        try:
            # A dataset's reference is bare LaTeX (`\sqrt{2}`); math-verify reads LaTeX inside math delimiters
            # or `\boxed`, so references are given to it as `$...$`, as its README shows for gold answers.
            shown = reference if ("$" in reference or "\\boxed" in reference) else f"${reference}$"
            gold, pred = parse(shown), parse(answer)
            mv = bool(verify(gold, pred))
            mv_parsed = [str(x) for x in pred]
        except Exception as e:  # noqa: BLE001 - math-verify's own failure is a verdict of false
            mv, mv_parsed = False, [f"error: {type(e).__name__}"]
        row = {"n": i, "kind": kind, "answer": answer, "reference": reference, "math_verify": mv,
               "math_verify_parsed": mv_parsed}
        if truth is not None:
            row["truth"] = truth
        if why:
            row["why"] = why
        rows.append(row)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    disagree = [r for r in rows if "truth" in r and r["truth"] != r["math_verify"]]
    print(f"wrote {OUT.relative_to(ROOT)}: {len(rows)} pairs (math-verify {math_verify.__version__ if hasattr(math_verify, '__version__') else '0.9.0'}); "
          f"math-verify differs from the stated truth on {len(disagree)}")
    kinds = {}
    for r in disagree:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    print("by kind:", kinds)


if __name__ == "__main__":
    main()
