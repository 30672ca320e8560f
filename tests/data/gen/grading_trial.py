"""Generates answer/reference pairs for Beaker's `grade` tool, with the verdict a demanding grader must give.

Each case: cat, answer, reference, params (extra grade params), truth (True/False, or None when the right
verdict is debatable), why. Written to tests/data/grading/trial.jsonl (by an adversarial trial of the grader; each verdict stated by hand).

    python3 tests/data/gen/grading_trial.py    # writes tests/data/grading/trial.jsonl
"""
import json
import random

random.seed(7)
CASES = []


def add(cat, answer, reference, truth, why="", **params):
    CASES.append(dict(cat=cat, answer=answer, reference=reference, truth=truth, why=why, params=params))


def wraps(x):
    """Surface forms a model uses for a final answer x."""
    return [x, f"\\boxed{{{x}}}", f"The final answer is $\\boxed{{{x}}}$.", f"Therefore the answer is ${x}$."]


# ---------------------------------------------------------------- fractions, negatives
for a, r, t, w in [
    ("-\\frac{3}{4}", "\\frac{-3}{4}", True, "same value"),
    ("\\frac{3}{-4}", "-\\frac{3}{4}", True, "same value"),
    ("-0.75", "-\\frac34", True, "same value"),
    ("\\frac{3}{4}", "-\\frac{3}{4}", False, "sign"),
    ("\\frac{6}{8}", "\\frac{3}{4}", True, "unreduced but equal"),
    ("\\frac{4}{3}", "\\frac{3}{4}", False, "reciprocal"),
    ("−5", "-5", True, "unicode minus"),
    ("-(5)", "-5", True, "same"),
    ("- 5", "-5", True, "same"),
    ("5", "-5", False, "sign"),
    ("\\frac{1}{2}", "0.5000", True, "same"),
    ("\\frac{22}{7}", "\\pi", False, "approximation"),
    ("0.142857", "\\frac{1}{7}", True, "6 sig digits rounding of 1/7"),
    ("0.142858", "\\frac{1}{7}", False, "not a rounding of 1/7 (1/7=0.1428571...)"),
    ("\\frac{a}{b}", "\\frac{a}{b}", True, "same"),
    ("\\frac{1}{2}\\cdot\\frac{2}{3}", "\\frac13", True, "product"),
    ("1/2/2", "\\frac14", True, "left assoc"),
]:
    for f in wraps(a)[:2]:
        add("fraction", f, r, t, w)

# ---------------------------------------------------------------- radicals
for a, r, t, w in [
    ("\\frac{\\sqrt{6}}{3}", "\\sqrt{\\frac{2}{3}}", True, "equal"),
    ("\\frac{2}{\\sqrt{6}}", "\\frac{\\sqrt{6}}{3}", True, "rationalised"),
    ("\\frac{\\sqrt{6}}{2}", "\\frac{\\sqrt{6}}{3}", False, "different"),
    ("3\\sqrt{2}", "\\sqrt{18}", True, "equal"),
    ("3\\sqrt{3}", "\\sqrt{18}", False, "different"),
    ("\\sqrt{2}+\\sqrt{3}", "\\sqrt{5+2\\sqrt{6}}", True, "denested"),
    ("\\sqrt[3]{16}", "2\\sqrt[3]{2}", True, "equal"),
    ("\\sqrt[3]{-8}", "-2", True, "real cube root"),
    ("-2", "\\sqrt[3]{-8}", True, "real cube root"),
    ("\\sqrt2", "\\sqrt{2}", True, "brace-less"),
    ("2^{1/2}", "\\sqrt{2}", True, "power form"),
    ("\\sqrt{2}", "1.414214", True, "7 sig rounding"),
    ("1.41421", "\\sqrt{2}", True, "6 sig rounding"),
    ("1.41422", "\\sqrt{2}", False, "not a rounding"),
    ("1.4142", "\\sqrt{2}", False, "5 digits: default 6 needed"),
    ("\\frac{1+\\sqrt{5}}{2}", "\\frac{\\sqrt{5}+1}{2}", True, "golden ratio"),
    ("\\frac{1-\\sqrt{5}}{2}", "\\frac{\\sqrt{5}+1}{2}", False, "conjugate"),
    ("4\\sqrt{3}", "\\sqrt{48}", True, "equal"),
    ("\\sqrt{48}", "6\\sqrt{2}", False, "different"),
    ("2\\sqrt{2}\\sqrt{3}", "2\\sqrt{6}", True, "equal"),
    ("\\sqrt{8}-2\\sqrt{2}", "0", True, "cancellation to zero"),
    ("\\sqrt{2}\\cdot\\sqrt{2}-2", "0", True, "cancellation to zero"),
    ("\\sqrt{3}-\\sqrt{2}", "\\frac{1}{\\sqrt{3}+\\sqrt{2}}", True, "equal"),
]:
    for f in wraps(a)[:2]:
        add("radical", f, r, t, w)

# ---------------------------------------------------------------- pi, trig, logs
for a, r, t, w in [
    ("\\frac{5\\pi}{6}", "\\frac{5}{6}\\pi", True, "same"),
    ("2\\pi - \\frac{\\pi}{6}", "\\frac{11\\pi}{6}", True, "same"),
    ("\\frac{11\\pi}{6}", "\\frac{7\\pi}{6}", False, "different"),
    ("3.14159", "\\pi", True, "6-digit rounding"),
    ("3.14", "\\pi", False, "too few digits"),
    ("\\pi r^2", "\\pi r^{2}", True, "same"),
    ("2\\pi r", "\\pi r", False, "different"),
    ("\\frac{\\sqrt{3}}{2}", "\\sin 60^\\circ", True, "sin of 60 degrees"),
    ("\\sin 30^\\circ", "\\frac{1}{2}", True, "sin of 30 degrees is 1/2"),
    ("\\cos 60^\\circ", "\\frac12", True, "cos of 60 degrees"),
    ("\\tan 45^\\circ", "1", True, "tan 45 degrees"),
    ("\\cos\\frac{\\pi}{3}", "\\frac12", True, "equal"),
    ("\\sin\\frac{\\pi}{3}", "\\frac12", False, "sqrt3/2"),
    ("\\sin(\\pi)", "0", True, "zero"),
    ("\\cos(\\frac{\\pi}{2})", "0", True, "zero"),
    ("\\tan\\pi", "0", True, "zero"),
    ("\\sin^2(1)+\\cos^2(1)", "1", True, "identity"),
    ("\\arctan 1", "\\frac{\\pi}{4}", True, "equal"),
    ("\\sin^{-1}\\left(\\frac12\\right)", "\\frac{\\pi}{6}", True, "equal"),
    ("\\arccos(-1)", "\\pi", True, "equal"),
    ("\\log_2 8", "3", True, "equal"),
    ("\\log_3 81", "4", True, "equal"),
    ("\\ln 8", "3\\ln 2", True, "equal"),
    ("\\ln 8", "2\\ln 3", False, "different"),
    ("\\log_{10} 1000", "3", True, "equal"),
    ("\\log 1000", "3", None, "\\log base is convention-dependent (10 in many contest sources)"),
    ("\\frac{\\ln 5}{\\ln 2}", "\\log_2 5", True, "change of base"),
    ("\\log_2 5", "2.32193", True, "6-digit rounding"),
    ("\\log_2 8 - 3", "0", True, "zero"),
    ("e^{\\ln 3}", "3", True, "equal"),
    ("\\ln(e^3)", "3", True, "equal"),
    ("\\log_4 2", "\\frac12", True, "equal"),
    ("\\log_{2}{32}", "5", True, "braced argument"),
    ("\\log_2(32)", "5", True, "parenthesised argument"),
    ("\\cot\\frac{\\pi}{4}", "1", True, "equal"),
    ("\\sec\\frac{\\pi}{3}", "2", True, "equal"),
    ("\\csc\\frac{\\pi}{6}", "2", True, "equal"),
    ("\\sin 2x", "2\\sin x\\cos x", True, "double angle"),
    ("\\cos^2 x - \\sin^2 x", "\\cos 2x", True, "double angle"),
    ("\\sec^2 x - \\tan^2 x", "1", True, "identity"),
    ("\\sin x", "\\cos x", False, "different"),
    ("\\tan x", "\\frac{\\sin x}{\\cos x}", True, "identity"),
]:
    for f in wraps(a)[:2]:
        add("trig_log", f, r, t, w)

# ---------------------------------------------------------------- complex numbers
for a, r, t, w in [
    ("3+4i", "4i+3", True, "reordered"),
    ("3-4i", "3+4i", False, "conjugate"),
    ("i^2", "-1", True, "i squared"),
    ("(1+i)^2", "2i", True, "equal"),
    ("\\frac{1}{i}", "-i", True, "equal"),
    ("-i", "i", False, "sign"),
    ("\\frac{1-i}{2}", "\\frac{1}{1+i}", True, "equal"),
    ("|3+4i|", "5", True, "modulus"),
    ("e^{i\\pi}", "-1", True, "Euler"),
    ("(2+i)(2-i)", "5", True, "equal"),
    ("i^4", "1", True, "equal"),
    ("i^3", "i", False, "i^3 = -i"),
    ("\\frac{3+4i}{5}", "\\frac35+\\frac45i", True, "equal"),
    ("1+2i", "1+2j", None, "j notation"),
    ("5i", "5", False, "different"),
]:
    for f in wraps(a)[:2]:
        add("complex", f, r, t, w)

# ---------------------------------------------------------------- intervals and unions
for a, r, t, w in [
    ("(-\\infty,1)\\cup(2,\\infty)", "(-\\infty,1)\\cup(2,\\infty)", True, "same"),
    ("(2,\\infty)\\cup(-\\infty,1)", "(-\\infty,1)\\cup(2,\\infty)", True, "union order"),
    ("(-\\infty,1]\\cup(2,\\infty)", "(-\\infty,1)\\cup(2,\\infty)", False, "closed at 1"),
    ("(-\\infty,1)\\cup(3,\\infty)", "(-\\infty,1)\\cup(2,\\infty)", False, "different"),
    ("(-\\infty, -2] \\cup [2, \\infty)", "(-\\infty,-2]\\cup[2,\\infty)", True, "same"),
    ("[2,5)", "[2,5)", True, "same"),
    ("[2,5]", "[2,5)", False, "endpoint"),
    ("x \\in [2,5)", "[2,5)", True, "membership"),
    ("(0,\\infty)", "(0, \\infty)", True, "same"),
    ("(0,\\infty)", "[0, \\infty)", False, "endpoint"),
    ("x > 0", "(0,\\infty)", True, "inequality form"),
    ("x \\geq 2", "[2,\\infty)", True, "inequality form"),
    ("x \\ge 3", "[2,\\infty)", False, "different"),
    ("-1 \\le x \\le 1", "[-1,1]", True, "inequality form"),
    ("(-\\infty,\\infty)", "\\mathbb{R}", True, "all reals"),
    ("(-\\infty, 3)", "(-\\infty, 3)", True, "same"),
    ("(-\\infty, 3]", "(-\\infty, 3)", False, "endpoint"),
    ("(-3, \\infty)", "(-\\infty, 3)", False, "different"),
    ("[1, 4]", "[1,4]", True, "same"),
    ("\\left[ 1, 4 \\right]", "[1,4]", True, "left/right"),
    ("[1,4]", "[1,5]", False, "different"),
]:
    for f in wraps(a)[:2]:
        add("interval", f, r, t, w)

# ---------------------------------------------------------------- sets, tuples, lists
for a, r, t, w in [
    ("\\{1,2,3\\}", "\\{3,2,1\\}", True, "order"),
    ("\\{1,2\\}", "\\{1,2,3\\}", False, "missing item"),
    ("\\{1,2,3,4\\}", "\\{1,2,3\\}", False, "extra item"),
    ("1, 2, 3", "\\{1,2,3\\}", True, "list for set"),
    ("2, -2", "\\pm 2", True, "plus-minus"),
    ("\\pm 2", "2, -2", True, "plus-minus"),
    ("-2, 2", "2", False, "extra solution"),
    ("2", "-2, 2", False, "missing solution"),
    ("(1,2)", "(1, 2)", True, "same pair"),
    ("(2,1)", "(1,2)", False, "swapped pair"),
    ("(\\frac12, -3)", "(0.5,-3)", True, "same pair"),
    ("(1,2,3)", "(1,2)", False, "arity"),
    ("(3, -1)", "(3,-1)", True, "same"),
    ("(3, 1)", "(3,-1)", False, "sign"),
    ("x=1, y=2", "(1,2)", None, "assignment list for a pair"),
    ("\\{-1, 1\\}", "\\pm 1", True, "plus-minus"),
    ("\\emptyset", "\\varnothing", True, "empty set"),
    ("\\{\\}", "\\emptyset", True, "empty set"),
    ("\\{1\\}", "1", None, "singleton set vs value"),
    ("1,2,2", "1,2", None, "multiplicity"),
    ("\\{1, \\frac{1}{2}\\}", "\\{0.5, 1\\}", True, "set"),
    ("(1, 2), (3, 4)", "(3,4),(1,2)", True, "set of points"),
    ("(1, 2), (3, 5)", "(3,4),(1,2)", False, "set of points differs"),
    ("1, 3", "3, 1", True, "solutions in any order"),
    ("a=2, b=3", "a=2, b=3", True, "same"),
    ("a=3, b=2", "a=2, b=3", False, "swapped values"),
]:
    for f in wraps(a)[:2]:
        add("set_tuple", f, r, t, w)

# ---------------------------------------------------------------- matrices and vectors
for a, r, t, w in [
    ("\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", True, "same"),
    ("\\begin{pmatrix} 1 & 2 \\\\ 3 & 5 \\end{pmatrix}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", False, "entry"),
    ("\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", False, "transpose"),
    ("\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}", "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", True, "bracket style"),
    ("\\begin{pmatrix} 1/2 \\\\ 3 \\end{pmatrix}", "\\begin{pmatrix} \\frac12 \\\\ 3 \\end{pmatrix}", True, "same vector"),
    ("\\begin{pmatrix} 3 \\\\ 1/2 \\end{pmatrix}", "\\begin{pmatrix} \\frac12 \\\\ 3 \\end{pmatrix}", False, "swapped"),
    ("\\begin{pmatrix} -1 \\\\ 2 \\\\ 0 \\end{pmatrix}", "\\begin{pmatrix} -1 \\\\ 2 \\\\ 0 \\end{pmatrix}", True, "same"),
    ("\\begin{pmatrix} 1 \\\\ 2 \\\\ 0 \\end{pmatrix}", "\\begin{pmatrix} -1 \\\\ 2 \\\\ 0 \\end{pmatrix}", False, "sign"),
]:
    for f in wraps(a)[:2]:
        add("matrix", f, r, t, w)

# ---------------------------------------------------------------- degrees
for a, r, t, w in [
    ("30^\\circ", "30", True, "degrees"),
    ("30", "30^\\circ", True, "degrees"),
    ("30^{\\circ}", "30^\\circ", True, "same"),
    ("30°", "30^\\circ", True, "unicode degree"),
    ("60^\\circ", "30^\\circ", False, "different"),
    ("30 \\text{ degrees}", "30^\\circ", True, "degrees in words"),
    ("\\frac{\\pi}{6}", "30^\\circ", None, "radians for degrees"),
    ("150^\\circ", "150", True, "degrees"),
    ("120^\\circ", "150", False, "different"),
    ("45", "\\frac{\\pi}{4}", None, "degrees for radians (question-dependent)"),
]:
    for f in wraps(a)[:2]:
        add("degrees", f, r, t, w)

# ---------------------------------------------------------------- dollars
for a, r, t, w in [
    ("\\$5.00", "5", True, "dollars"),
    ("\\$5", "\\$5.00", True, "dollars"),
    ("\\$5.50", "\\$5.05", False, "different"),
    ("\\$18.90", "\\$18.90", True, "same"),
    ("\\$18.9", "18.90", True, "same"),
    ("\\$19.80", "\\$18.90", False, "different"),
    ("\\$1,000", "1000", True, "same"),
    ("\\$1{,}000", "\\$1000", True, "same"),
    ("\\$1,000", "\\$100", False, "different"),
    ("5 \\text{ dollars}", "\\$5", True, "words"),
    ("\\$0.75", "75 \\text{ cents}", True, "cents"),
    ("-\\$5", "-5", True, "negative"),
    ("\\$ 42", "42", True, "space"),
    ("\\$42", "24", False, "different"),
    ("\\$2.5 \\text{ million}", "2500000", None, "scale word"),
]:
    for f in wraps(a)[:2]:
        add("dollars", f, r, t, w)

# ---------------------------------------------------------------- percentages
for a, r, t, w in [
    ("12.5\\%", "\\frac18", True, "percent"),
    ("12.5", "12.5\\%", True, "number of percent"),
    ("0.125", "12.5\\%", True, "fraction for percent"),
    ("0.125\\%", "0.125", False, "0.125% is 0.00125, not 0.125"),
    ("0.5\\%", "\\frac{1}{2}", False, "0.5% is not one half"),
    ("0.5\\%", "0.5", False, "0.5% is not one half"),
    ("50\\%", "50", True, "number of percent"),
    ("5\\%", "0.5", False, "different"),
    ("20\\%", "25\\%", False, "different"),
    ("33\\frac{1}{3}\\%", "\\frac13", True, "mixed-number percent"),
    ("33.3\\%", "\\frac13", False, "too few digits"),
    ("40 \\text{ percent}", "40\\%", True, "word percent"),
    ("40 percent", "0.4", True, "word percent"),
    ("75\\%", "\\frac{3}{4}", True, "percent"),
    ("7.5\\%", "\\frac{3}{4}", False, "off by 10"),
]:
    for f in wraps(a)[:2]:
        add("percent", f, r, t, w)

# ---------------------------------------------------------------- scientific notation
for a, r, t, w in [
    ("3.0 \\times 10^8", "3 \\times 10^{8}", True, "same"),
    ("3 \\times 10^{-8}", "3 \\times 10^{8}", False, "exponent sign"),
    ("3e8", "3 \\times 10^{8}", True, "E notation"),
    ("3E8", "300000000", True, "E notation"),
    ("300,000,000", "3 \\times 10^{8}", True, "same"),
    ("3.00\\cdot 10^{8}", "3 \\times 10^8", True, "same"),
    ("2.998 \\times 10^8", "3 \\times 10^8", False, "not equal without tolerance"),
    ("6.022 \\times 10^{23}", "6.02 \\times 10^{23}", False, "different without tolerance"),
    ("1.6 \\times 10^{-19}", "1.6e-19", True, "same"),
    ("1.6 \\times 10^{-19}", "1.6e-18", False, "exponent"),
    ("10^{-3}", "0.001", True, "same"),
    ("1.5 \\times 10^{3}", "1500", True, "same"),
    ("15 \\times 10^{2}", "1.5 \\times 10^3", True, "unnormalised"),
    ("1.5*10^3", "1500", True, "plain"),
    ("1.5 x 10^3", "1500", None, "x as times"),
]:
    for f in wraps(a)[:2]:
        add("scientific", f, r, t, w)

# ---------------------------------------------------------------- large integers
for a, r, t, w in [
    ("1,000,000", "1000000", True, "commas"),
    ("1{,}000{,}000", "1000000", True, "braced commas"),
    ("1\\,000\\,000", "1000000", True, "thin spaces"),
    ("1 000 000", "1000000", None, "spaces as separators"),
    ("10^6", "1,000,000", True, "power"),
    ("1,000,001", "1000000", False, "different"),
    ("123,456,789", "123456789", True, "commas"),
    ("123,456,780", "123456789", False, "different"),
    ("12345678901234567890", "12,345,678,901,234,567,890", True, "big"),
    ("12345678901234567891", "12345678901234567890", False, "last digit"),
    ("2^{64}", "18446744073709551616", True, "power"),
    ("2^{64}-1", "18446744073709551616", False, "off by one"),
    ("100!", "100!", True, "factorial"),
    ("\\binom{52}{5}", "2598960", True, "binomial"),
    ("\\binom{52}{5}", "2598961", False, "off by one"),
    ("1,234", "1234", True, "commas"),
    ("1,23", "123", False, "not a thousands separator"),
]:
    for f in wraps(a)[:2]:
        add("bigint", f, r, t, w)

# ---------------------------------------------------------------- mixed numbers
for a, r, t, w in [
    ("2\\frac{1}{2}", "\\frac52", True, "mixed number 2 1/2"),
    ("2\\frac{1}{2}", "1", False, "mixed number is 5/2, not 2*(1/2)"),
    ("1 \\frac{3}{4}", "1.75", True, "mixed number"),
    ("\\frac{10}{3}", "3\\frac{1}{3}", True, "mixed-number reference"),
    ("1", "3\\frac{1}{3}", False, "mixed-number reference is 10/3"),
    ("2 1/2", "2.5", True, "plain mixed number"),
    ("2 1/2", "1", False, "plain mixed number is 5/2"),
    ("6\\frac{1}{4}", "6.25", True, "mixed"),
    ("-2\\frac{1}{2}", "-2.5", True, "negative mixed"),
    ("\\frac{3}{2}", "1\\tfrac{1}{2}", True, "mixed tfrac"),
    ("\\frac{1}{2}", "1\\tfrac{1}{2}", False, "1 1/2 is 3/2"),
]:
    for f in wraps(a)[:2]:
        add("mixed", f, r, t, w)

# ---------------------------------------------------------------- repeating decimals
for a, r, t, w in [
    ("0.\\overline{3}", "\\frac13", True, "repeating"),
    ("\\frac13", "0.\\overline{3}", True, "repeating reference"),
    ("0.\\overline{36}", "\\frac{4}{11}", True, "repeating"),
    ("0.3\\overline{6}", "\\frac{11}{30}", True, "repeating"),
    ("0.\\overline{3}", "0.3", False, "different"),
    ("0.\\overline{6}", "\\frac13", False, "different"),
    ("0.333\\ldots", "\\frac13", None, "ellipsis"),
    ("0.\\dot{3}", "\\frac13", True, "dot notation"),
    ("1.\\overline{142857}", "\\frac87", True, "repeating"),
]:
    for f in wraps(a)[:2]:
        add("repeating", f, r, t, w)

# ---------------------------------------------------------------- or-solutions and pm
for a, r, t, w in [
    ("x=3 \\text{ or } x=-3", "3, -3", True, "both roots"),
    ("x=3 \\text{ or } x=-3", "-3", False, "extra root"),
    ("x=5 \\text{ or } x=-3", "-3", False, "extra (wrong) root"),
    ("x=5 \\text{ or } x=-3", "5", False, "extra (wrong) root"),
    ("x = \\pm 3", "\\pm 3", True, "pm"),
    ("x=\\pm3", "3,-3", True, "pm"),
    ("x = 3", "\\pm 3", False, "missing root"),
    ("x=3, x=-3", "-3, 3", True, "both"),
    ("3", "3, -3", False, "missing root"),
    ("x = 2 \\text{ and } x = 5", "2, 5", True, "both"),
    ("x = 2 \\text{ or } 5", "2, 5", True, "both"),
    ("1 \\pm \\sqrt{2}", "1+\\sqrt{2}, 1-\\sqrt{2}", True, "pm"),
    ("1 \\pm \\sqrt{2}", "1 \\pm \\sqrt{3}", False, "different"),
    ("1 + \\sqrt{2}", "1 \\pm \\sqrt{2}", False, "missing root"),
    ("\\pm\\sqrt{2}", "\\sqrt{2}", False, "extra root"),
    ("\\frac{-1 \\pm \\sqrt{5}}{2}", "\\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}", True, "pm"),
    ("x = -1 \\text{ or } x = 4", "x=4 \\text{ or } x=-1", True, "same"),
    ("x=4", "x=4 \\text{ or } x=-1", False, "missing root"),
    ("x = 1, 2", "1, 2", True, "both"),
]:
    for f in wraps(a)[:2]:
        add("or_pm", f, r, t, w)

# ---------------------------------------------------------------- base subscripts
for a, r, t, w in [
    ("1010_2", "1010_2", True, "same"),
    ("1011_2", "1010_2", False, "different"),
    ("1010", "1010_2", True, "digits without base"),
    ("10", "1010_2", None, "decimal value of base-2 reference"),
    ("123_4", "123_{4}", True, "same"),
    ("132_4", "123_{4}", False, "digits"),
    ("A3_{16}", "A3_{16}", True, "hex"),
    ("1000_2", "1010_2", False, "different"),
    ("41_6", "41_{6}", True, "same"),
    ("14_6", "41_6", False, "different"),
]:
    for f in wraps(a)[:2]:
        add("base", f, r, t, w)

# ---------------------------------------------------------------- text and choice
for a, r, t, w in [
    ("\\text{(A)}", "A", True, "choice"),
    ("(A)", "\\text{(A)}", True, "choice"),
    ("\\boxed{\\text{(C)}}", "\\text{(A)}", False, "wrong letter"),
    ("\\textbf{(B)}", "B", True, "bold"),
    ("The answer is \\text{(D)}.", "D", True, "phrase"),
    ("\\boxed{\\text{(E)}}", "\\text{(E)}", True, "same"),
    ("\\boxed{(A) 12}", "A", True, "letter with content"),
    ("\\boxed{A. 12}", "A", True, "letter with content"),
    ("\\boxed{B: 15}", "A", False, "wrong letter with content"),
    ("The correct answer is **B**.", "B", True, "bold markdown"),
    ("The correct answer is **B**.", "A", False, "bold markdown wrong letter"),
    ("Answer: **(C)**", "C", True, "bold markdown"),
    ("Let's check each option. (A) 12 is too small. (B) 15 works since 3*5=15. (C) 18 is too large. (D) 21 is too large. (E) 24 is too large. So the answer is option B.",
     "B", True, "option B after a list"),
    ("Let's check each option. (A) 12 is too small. (B) 15 works since 3*5=15. (C) 18 is too large. (D) 21 is too large. (E) 24 is too large. So the answer is option B.",
     "E", False, "model chose B, not E"),
    ("We test (A), (B), (C) and (D). Only B satisfies the equation. The answer is **B**.", "D", False, "model chose B"),
    ("We test (A), (B), (C) and (D). Only B satisfies the equation. The answer is **B**.", "B", True, "model chose B"),
    ("Answer: I believe it is (C).", "C", True, "I is not a choice here"),
    ("Answer: I believe it is (C).", "I", False, "I is a pronoun"),
    ("The answer is A because the slope is positive.", "A", True, "letter then reason"),
    ("The answer is A because the slope is positive.", "B", False, "wrong letter"),
    ("I think the answer is C", "C", True, "plain"),
    ("Final answer: (d)", "D", True, "lower case in brackets"),
    ("Final answer: (d)", "C", False, "lower case in brackets"),
    ("\\boxed{D}", "(D)", True, "boxed"),
    ("\\boxed{D}", "(C)", False, "boxed wrong"),
    ("Both (A) and (C) are wrong; the right choice is B.", "C", False, "model chose B"),
    ("Both (A) and (C) are wrong; the right choice is B.", "B", True, "model chose B"),
    ("\\text{even}", "\\text{odd}", False, "text"),
    ("Yes", "\\text{yes}", True, "case"),
    ("No", "yes", False, "text"),
    ("\\boxed{\\text{No}}", "No", True, "boxed text"),
    ("\\text{Monday}", "Monday", True, "day"),
    ("\\text{Tuesday}", "Monday", False, "day"),
    ("The answer is Monday.", "Monday", True, "phrase"),
    ("So it happens on a Monday.", "Monday", True, "sentence"),
    ("It is not even.", "even", False, "negated"),
    ("\\boxed{\\text{not even}}", "even", False, "negated"),
    ("\\text{odd}", "\\text{odd}", True, "same"),
    ("The number is odd, not even.", "even", False, "says odd"),
    ("\\boxed{\\text{Paris}}", "Paris", True, "city"),
    ("\\boxed{\\text{Lyon}}", "Paris", False, "city"),
    ("\\boxed{\\text{yes}}", "no", False, "text"),
    ("\\boxed{true}", "\\text{True}", True, "bool"),
    ("\\boxed{\\text{no solution}}", "\\text{no solution}", True, "text"),
    ("\\boxed{\\text{infinitely many}}", "\\text{no solution}", False, "text"),
]:
    add("text_choice", a, r, t, w)

# ---------------------------------------------------------------- units (physics)
for a, r, t, w in [
    ("9.8 \\text{ m/s}^2", "9.8 m/s^2", True, "same"),
    ("100 \\text{ cm}", "1 \\text{ m}", True, "conversion"),
    ("1 \\text{ m}", "100 \\text{ m}", False, "different"),
    ("5 \\text{ km}", "5000 m", True, "conversion"),
    ("3 \\text{ hours}", "180 \\text{ minutes}", True, "conversion"),
    ("2.5 \\text{ hours}", "2 \\text{ hours}", False, "different"),
    ("20 \\text{ N}", "20 \\text{ kg m/s^2}", True, "derived unit"),
    ("10 \\text{ J}", "10 \\text{ N m}", True, "derived unit"),
    ("10 \\text{ J}", "10 \\text{ W}", False, "different dimension"),
    ("300 K", "26.85 °C", True, "temperature"),
    ("24 \\text{ cm}^2", "24 \\text{ cm}^2", True, "area"),
    ("24", "24 \\text{ cm}^2", True, "bare number in reference unit"),
    ("24 \\text{ cm}", "24 \\text{ cm}^2", False, "wrong dimension"),
    ("24", "24\\text{ square units}", True, "square units"),
    ("25", "24\\text{ square units}", False, "different"),
    ("40", "40 \\text{ cents}", True, "cents"),
    ("4", "4 \\text{ apples}", True, "count noun"),
    ("5", "4 \\text{ apples}", False, "count noun"),
    ("12 \\text{ inches}", "1 \\text{ foot}", True, "conversion"),
    ("5 \\text{ kg}", "5000 g", True, "conversion"),
    ("5 \\text{ kg}", "5 g", False, "different"),
    ("2 \\text{ L}", "2000 \\text{ mL}", True, "conversion"),
    ("1.5 \\times 10^3 \\text{ J}", "1500 J", True, "scientific with unit"),
    ("1.5 \\times 10^3 \\text{ J}", "150 J", False, "scientific with unit"),
    ("3 \\times 10^8 \\text{ m/s}", "3e8 m/s", True, "scientific"),
    ("0.5 \\text{ A}", "500 \\text{ mA}", True, "conversion"),
    ("5 \\mu m", "5000 nm", True, "micro"),
    ("5 \\mu\\text{m}", "5 \\text{ nm}", False, "micro vs nano"),
    ("60 \\text{ mph}", "60 \\text{ miles per hour}", True, "mph"),
    ("9.81 \\text{ m/s}^2", "9.8 \\text{ m/s}^2", False, "not equal without tolerance"),
    ("9.81 \\text{ m/s}^2", "9.8 \\text{ m/s}^2", True, "within 1% rel_tol"),
    ("1 \\text{ kWh}", "3.6 \\text{ MJ}", True, "conversion"),
    ("2 \\text{ days}", "48 \\text{ hours}", True, "conversion"),
    ("10 \\text{ days}", "10", True, "days"),
    ("10", "10 \\text{ days}", True, "days"),
    ("11", "10 \\text{ days}", False, "days"),
    ("20 \\text{ inches}", "20", True, "inches"),
    ("0 °C", "32 °F", True, "temperature"),
    ("100 °C", "212 °F", True, "temperature"),
    ("100 °C", "100 °F", False, "temperature"),
    ("The car travels at 25 m/s.", "90 km/h", True, "sentence"),
    ("The car travels at 25 m/s.", "25 km/h", False, "sentence"),
    ("The mass is 2 kg, so the force is 19.6 N.", "19.6 N", True, "last quantity"),
    ("The mass is 2 kg, so the force is 19.6 N.", "2 kg", False, "last quantity is the force"),
    ("The current is 2 A and the resistance is 5 ohms.", "10 V", False, "no voltage given"),
    ("\\boxed{12 \\, \\text{V}}", "12 V", True, "boxed"),
    ("\\boxed{12 \\, \\text{mV}}", "12 V", False, "boxed milli"),
    ("\\boxed{3.0 \\text{ s}}", "3 s", True, "seconds"),
    ("\\boxed{3.0}", "3 \\text{ s}", True, "bare"),
    ("\\boxed{3.0 \\text{ ms}}", "3 s", False, "milliseconds"),
    ("6.67 \\times 10^{-11} \\text{ N m}^2/\\text{kg}^2", "6.67e-11 N m^2/kg^2", True, "G"),
]:
    params = {"rel_tol": 0.01} if w == "within 1% rel_tol" else {}
    add("units", a, r, t, w, **params)
    if not a.startswith("\\boxed") and not a.startswith("The "):
        add("units", f"\\boxed{{{a}}}", r, t, w, **params)

# ---------------------------------------------------------------- equations and expressions
for a, r, t, w in [
    ("y = 2x + 3", "2x - y + 3 = 0", True, "same line"),
    ("y=2x+3", "y=2x-3", False, "different line"),
    ("x^2+y^2=25", "x^2+y^2=5", False, "different circle"),
    ("y = -\\frac{1}{2}x + 4", "x + 2y = 8", True, "same line"),
    ("2x+3y=6", "\\frac{x}{3}+\\frac{y}{2}=1", True, "same line"),
    ("y=3", "3", True, "assignment"),
    ("f(x) = 2x+1", "2x+1", True, "function definition"),
    ("f^{-1}(x) = \\frac{x-1}{2}", "\\frac{x-1}{2}", True, "inverse function"),
    ("(x+1)^2", "x^2+2x+1", True, "expanded"),
    ("x^2+2x+1", "x^2+2x-1", False, "constant"),
    ("\\frac{x+1}{x-1}", "1+\\frac{2}{x-1}", True, "rational"),
    ("\\sqrt{x-5}", "\\sqrt{x-5}", True, "same (domain x>=5)"),
    ("\\sqrt{x-5}", "\\sqrt{x-6}", False, "different (domain x>=6)"),
    ("\\ln(x-10)", "\\ln(x-10)", True, "same (domain x>10)"),
    ("\\sqrt{x^2}", "|x|", True, "abs"),
    ("\\sqrt{x^2}", "x", False, "abs"),
    ("\\frac{1}{\\sqrt{x}}", "x^{-1/2}", True, "power"),
    ("\\frac{n(n+1)}{2}", "\\frac{n^2+n}{2}", True, "poly"),
    ("\\binom{n}{2}", "\\frac{n(n-1)}{2}", True, "binomial"),
    ("2^n", "2^{n}", True, "same"),
    ("2^{n+1}", "2^{n}", False, "different"),
    ("n!", "n!", True, "same"),
    ("(n+1)!", "(n+1)n!", True, "factorial identity"),
    ("10^{10}x+1", "10^{10}x", False, "differ by 1"),
    ("\\frac{x}{10^{12}}+10^{-10}", "\\frac{x}{10^{12}}", False, "differ by 1e-10"),
    ("x^{1000}", "x^{1001}", False, "different powers"),
    ("x^{60}", "x^{61}", False, "different powers"),
    ("ab", "ba", True, "commutative"),
    ("a^2-b^2", "(a-b)(a+b)", True, "factored"),
    ("a^2-b^2", "(a-b)^2", False, "different"),
    ("\\frac{1}{x}+\\frac{1}{y}", "\\frac{x+y}{xy}", True, "sum"),
    ("x(x-1)(x+1)", "x^3-x", True, "factored"),
    ("x^3+x", "x^3-x", False, "sign"),
    ("4x^2-12x+9", "(2x-3)^2", True, "square"),
    ("e^{x}\\cdot e^{y}", "e^{x+y}", True, "exp"),
    ("\\cos(x+y)", "\\cos x\\cos y - \\sin x\\sin y", True, "identity"),
    ("\\cos(x+y)", "\\cos x\\cos y + \\sin x\\sin y", False, "wrong sign"),
    ("\\lfloor x \\rfloor", "\\lfloor x \\rfloor", True, "floor"),
    ("\\max(a,b)", "\\max(b,a)", True, "max"),
    ("3e+2", "3e+2", True, "same text"),
    ("300", "3e+2", None, "3e+2 is 300 in E notation, or 3e+2=10.15 in math"),
    ("\\frac{d}{dx} x^2", "2x", None, "derivative notation"),
    ("y = x^2", "x^2 = y", True, "sides swapped"),
    ("5 = x", "5", True, "reversed assignment"),
    ("a = 2", "b = 2", False, "different variable"),
]:
    params = {}
    for f in wraps(a)[:2]:
        add("expr_eq", f, r, t, w, **params)

# ---------------------------------------------------------------- GSM8K-style chains of thought
def cot(final_line, num_in_text=(48, 24, 72)):
    a, b, c = num_in_text
    return (f"Natalia sold {a} clips in April. In May she sold half as many, which is {a}/2 = <<{a}/2={b}>>{b} clips.\n"
            f"Altogether she sold {a} + {b} = <<{a}+{b}={c}>>{c} clips.\n{final_line}")


for ref, wrong in [("72", "71"), ("1200", "1100"), ("18", "81"), ("5", "6")]:
    for line, t in [
        (f"#### {ref}", True), (f"#### {wrong}", False),
        (f"The answer is {ref}.", True), (f"The answer is {wrong}.", False),
        (f"\\boxed{{{ref}}}", True), (f"\\boxed{{{wrong}}}", False),
        (f"**Final Answer:** {ref}", True), (f"**Final Answer:** {wrong}", False),
        (f"**Final Answer**\n\n{ref}", True), (f"**Final Answer**\n\n{wrong}", False),
        (f"### Final Answer\n{ref}", True),
        (f"Answer: ${ref}", True), (f"Answer: ${wrong}", False),
        (f"The answer is ${ref}.", True), (f"The answer is ${wrong}.", False),
        (f"So, the answer is {ref} clips.", True), (f"So, the answer is {wrong} clips.", False),
        (f"The answer is {ref} because that is the total.", True),
        (f"The answer is {wrong} because that is the total.", False),
        (f"Therefore, the final answer is:\n\n{ref}", True),
        (f"Therefore, the final answer is:\n\n{wrong}", False),
        (f"So she sold {ref} clips in total. I hope this helps!", True),
        (f"So she sold {wrong} clips in total. Step 3 done.", False),
        (f"The answer is **{ref}**.", True), (f"The answer is **{wrong}**.", False),
        (f"The final answer is $\\boxed{{{ref}}}$. I hope it is correct.", True),
        (f"#### {ref}\n\nNote: this took 3 steps.", True),
    ]:
        add("gsm8k", cot(line), ref, t, "final line: " + line.replace("\n", " | "))

# dollars in running text (GSM8K money problems) with #### final answers
base = "She pays $5 for the book and $3 for the pen. The bag costs $22, so she spends 5 + 3 + 22 = $30.\n"
add("gsm8k_money", base + "#### 30", "30", True, "#### line is the final answer")
add("gsm8k_money", base + "#### 30", "22", False, "#### line is the final answer")
add("gsm8k_money", base + "#### 31", "30", False, "#### line is the final answer (31)")
add("gsm8k_money", base + "#### 31", "31", True, "#### line is the final answer")
add("gsm8k_money", "He earns $10 per hour. He works 4 hours, so he earns $40.\n#### 40", "40", True, "#### 40")
add("gsm8k_money", "He earns $10 per hour. He works 4 hours, so he earns $40.\n#### 40", "10", False, "#### 40")
add("gsm8k_money", "He earns $10 per hour and works 4 hours, so he earns 10 * 4 = $40.", "40", True, "last amount")
add("gsm8k_money", "He earns $10 per hour and works 4 hours, so he earns 10 * 4 = $40.", "10", False, "last amount is 40")
add("gsm8k_money", "Each ticket is $12. Four tickets cost $48. The answer is $48.", "48", True, "answer is $48")
add("gsm8k_money", "Each ticket is $12. Four tickets cost $48. The answer is $48.", "12", False, "answer is $48")
add("gsm8k_money", "The total is $1,250.50.", "1250.5", True, "money with commas")
add("gsm8k_money", "The total is $1,250.50.", "1250", False, "money with commas")
add("gsm8k_money", "Total cost: $6 + $4 = $10\nThe answer is 10", "10", True, "phrase")
add("gsm8k_money", "She had $20 and spent $12, leaving $8.\n#### 8", "8", True, "####")
add("gsm8k_money", "She had $20 and spent $12, leaving $8.\n#### 8", "12", False, "####")
add("gsm8k_money", "She had $20 and spent $12, leaving $8.\n#### 8", "20", False, "####")

# long chain of thought, reconsiderations
add("cot", "First I get $x = 4$. Wait, that is wrong: rechecking, 2x + 1 = 11 gives $x = 5$.", "5", True, "last math")
add("cot", "First I get $x = 4$. Wait, that is wrong: rechecking, 2x + 1 = 11 gives $x = 5$.", "4", False, "corrected")
add("cot", "I thought the answer is 4, but checking again gives 2x+1=11, so x=5.", "5", None, "phrase picks the abandoned value")
add("cot", "I thought the answer is 4, but checking again gives 2x+1=11, so x=5.", "4", False, "abandoned value 4; the final is 5")
add("cot", "Let me double-check that the answer is consistent. Substituting back, $2(5)+1 = 11$. So $x = 5$.", "5", True, "last math is x=5")
add("cot", "The answer is not 4. Solving properly, we find $x = 5$.", "5", None, "negated phrase")
add("cot", "The answer is not 4. Solving properly, we find $x = 5$.", "4", False, "model says not 4")
add("cot", "Solving gives \\boxed{5}. Hmm, actually I made an arithmetic error; the correct value is 6.", "6", None, "box then correction")
add("cot", "The roots are \\boxed{2} and \\boxed{3}.", "2, 3", True, "two boxes")
add("cot", "The roots are \\boxed{2} and \\boxed{3}.", "3", False, "two boxes, one root in reference")
add("cot", "The roots are $x=2$ and $x=3$, so the sum of the roots is $5$.", "5", True, "last math")
add("cot", "We get $\\frac{1}{2}$. \n\n**Final Answer**\n\\[\\boxed{\\frac{1}{2}}\\]", "0.5", True, "box")
add("cot", "**Final Answer**\n\\[ \\frac{3}{4} \\]", "0.75", True, "display math after heading")
add("cot", "**Final Answer**\n\\[ \\frac{3}{4} \\]", "0.5", False, "display math after heading")
add("cot", "The final answer is $\\frac{3}{4}$. This is because 3 of the 4 parts are shaded.", "\\frac34", True, "phrase math")
add("cot", "The probability is $\\frac{3}{8}$, which is less than $\\frac{1}{2}$.", "\\frac38", None, "last math is a comparison value")
add("cot", "The probability is $\\frac{3}{8}$, which is less than $\\frac{1}{2}$.", "\\frac12", False, "the answer is 3/8")
add("cot", "Since $x^2 = 9$, we have $x = 3$ (taking the positive root).", "3", True, "last math")
add("cot", "The area is 12 square units.", "12", True, "last number")
add("cot", "The area is 12 square units.", "13", False, "last number")
add("cot", "The answer: 7 apples and 3 oranges, so 10 fruits.", "10", None, "answer phrase line")
add("cot", "Final answer: x = 7", "7", True, "phrase assignment")
add("cot", "Final answer: x = 7", "-7", False, "phrase assignment")
add("cot", "final answer: \\(\\frac{7}{2}\\)", "3.5", True, "inline paren math")
add("cot", "The answer is $\\boxed{-\\frac{1}{3}}$", "-1/3", True, "neg")
add("cot", "The answer is $\\boxed{-\\frac{1}{3}}$", "1/3", False, "sign")
add("cot", "So the total is 3+4=7.", "7", True, "equation rhs")
add("cot", "So the total is 3+4=7.", "3", False, "equation rhs")
add("cot", "The slope is $m = -\\frac{2}{3}$.", "-\\frac23", True, "assignment")
add("cot", "The slope is $m = -\\frac{2}{3}$.", "\\frac23", False, "sign")
add("cot", "\\boxed 5", "5", True, "box without braces")
add("cot", "\\boxed 5", "6", False, "box without braces")
add("cot", "Thus $a+b = \\boxed{11}$ and we are done.", "11", True, "box")
add("cot", "The answer is \\( \\boxed{ 42 } \\).", "42", True, "box in paren math")
add("cot", "The answer is 42.\n\nWait, let me verify: 6*7 = 42. Yes.", "42", True, "phrase")
add("cot", "<think>Maybe 41? No, 6*7=42.</think>\nThe answer is 42.", "42", True, "think block")
add("cot", "<think>The answer is 41.</think>\n\\boxed{42}", "41", False, "think block then box")
add("cot", "x = 3 is extraneous, so the only solution is x = -3", "-3", True, "last number")
add("cot", "x = 3 is extraneous, so the only solution is x = -3", "3", False, "3 is rejected")
add("cot", "Answer: $\\frac{\\sqrt{3}}{2}$", "\\frac{\\sqrt3}{2}", True, "phrase math")
add("cot", "The value is approximately 0.866, exactly $\\frac{\\sqrt{3}}{2}$.", "\\frac{\\sqrt3}{2}", True, "last math")
add("cot", "The value is exactly $\\frac{\\sqrt{3}}{2} \\approx 0.866$.", "\\frac{\\sqrt3}{2}", True, "approx in math")
add("cot", "The value is $\\frac{\\sqrt{3}}{2} \\approx 0.866$.", "0.866", None, "approx")
add("cot", "The answer is 3/4 = 0.75", "3/4", True, "phrase")
add("cot", "The answer is 3/4 = 0.75", "0.7", False, "phrase")
add("cot", "The sum is $1+2+\\cdots+10 = 55$.", "55", True, "cdots")
add("cot", "The answer is $x \\approx 2.5$", "2.5", True, "approx")

# ---------------------------------------------------------------- numbers passed as JSON numbers
CASES.append(dict(cat="json_number", answer="12345678901234567890123", reference=12345678901234567890123, truth=True,
                  why="big JSON integer reference", params={}))
CASES.append(dict(cat="json_number", answer="12345678901234567890124", reference=12345678901234567890123, truth=False,
                  why="big JSON integer reference, last digit differs", params={}))
CASES.append(dict(cat="json_number", answer="0.1", reference=0.1, truth=True, why="float", params={}))
CASES.append(dict(cat="json_number", answer=42, reference="42", truth=True, why="int answer", params={}))
CASES.append(dict(cat="json_number", answer="100000000000000000000", reference=1e20, truth=True, why="1e20 float", params={}))
CASES.append(dict(cat="json_number", answer="0.30000000000000004", reference=0.3, truth=False, why="float repr", params={}))

# ---------------------------------------------------------------- closeness traps (false-positive hunters)
for a, r, t, w in [
    ("\\pi^{100}+1", "\\pi^{100}", False, "differ by 1"),
    ("2^{200}\\sqrt{2}+1", "2^{200}\\sqrt{2}", False, "differ by 1"),
    ("e^{200}", "e^{200}+1", False, "differ by 1"),
    ("\\sqrt{10^{100}+1}", "10^{50}", False, "differ by 5e-51"),
    ("\\sqrt{10^{100}+1}-10^{50}", "0", False, "nonzero (5e-51)"),
    ("\\frac{1}{10^{70}}", "0", False, "nonzero"),
    ("10^{-70}\\pi", "0", False, "nonzero"),
    ("\\pi", "3.14159265358979323846264338327950288419716939937510582097494459", True, "65-digit pi"),
    ("\\pi", "3.14159265358979323846264338327950288419716939937510582097494458", None, "65-digit pi, last digit off"),
    ("0.9999999", "1", False, "7 sig digits, not a rounding of 1 (needs |diff|<=5e-8)"),
    ("0.99999995", "1", False, "8 places: 1 is 5e-8 away, more than half a unit (5e-9)"),
    ("1.000000", "1", True, "same"),
    ("1000000.4", "1000000", False, "not equal"),
    ("123456.5", "123456", False, "not equal"),
    ("123456.0", "123456", True, "equal"),
    ("0.1666667", "\\frac16", True, "rounding"),
    ("0.1666666", "\\frac16", False, "truncation"),
    ("0.166667", "0.1666666666", True, "rounding of reference"),
    ("2.0000001", "2", False, "not equal"),
    ("100", "100.000001", None, "reference with many digits"),
    ("3.000000", "\\pi", False, "not pi"),
    ("0.000000", "0.0000001", None, "zero vs 1e-7"),
    ("0", "0.000000", True, "zero"),
]:
    add("closeness", f"\\boxed{{{a}}}", r, t, w)

# ---------------------------------------------------------------- hostile inputs
add("hostile", "\\boxed{" + "{" * 5000 + "1" + "}" * 5000 + "}", "1", None, "5000 nested braces")
add("hostile", "(" * 10000 + "1" + ")" * 10000, "1", None, "10000 nested parens")
add("hostile", "\\sqrt{" * 200 + "2" + "}" * 200, "2", False, "200 nested sqrt (2^(1/2^200) is not 2)")
add("hostile", "\\frac{" * 100 + "1" + "}{2}" * 100, "1", False, "100 nested fractions")
add("hostile", "x" * 100000, "x", False, "100k letters")
add("hostile", "a" * 4000, "a" * 4000, True, "4000 letters both sides")
add("hostile", "1+" * 2000 + "1", "2001", True, "2001 terms")
add("hostile", "1" * 4000, "1" * 4000, True, "4000-digit integer")
add("hostile", "9" * 4096, "1" + "0" * 4096 + "-1", True, "4096 nines vs 10^4096-1 (reference 4098 bytes)")
add("hostile", "The answer is 5. " * 50000, "5", True, "1MB repeated")
add("hostile", "lorem ipsum " * 100000 + "\\boxed{7}", "7", True, "1.2MB then a box")
add("hostile", "{" * 100000 + "\\boxed{7}", "7", True, "100k open braces then box")
add("hostile", " {" * 50000 + "\\boxed{7}", "7", True, "50k spaced open braces then box")
add("hostile", "\\boxed{" * 50000 + "7", "7", False, "50k unclosed boxes")
add("hostile", "$" * 100001 + "7", "7", None, "100001 dollars")
add("hostile", "\\(" * 50000 + "7" + "\\)" * 50000, "7", True, "many paren delims")
add("hostile", "9^{9^{9^{9}}}", "1", False, "tower")
add("hostile", "10^{10^{10}}", "10^{10^{10}}", None, "too large")
add("hostile", "100000!", "100000!", None, "big factorial")
add("hostile", "99999!", "1", False, "big factorial vs 1")
add("hostile", "(10^{5})!", "1", False, "big factorial vs 1")
add("hostile", "2^{2^{20}}", "2^{2^{20}}+1", False, "huge")
add("hostile", "2^{300000}", "2^{300000}", True, "90k digits")
add("hostile", "3^{200000}", "3^{200000}+1", False, "95k digits, differ by one")
add("hostile", "\\binom{100000}{50000}", "1", False, "big binomial")
add("hostile", "\\sin(10^{100000})", "0", False, "huge argument")
add("hostile", "\\tan(\\frac{\\pi}{2})", "\\tan(\\frac{\\pi}{2})", None, "undefined")
add("hostile", "\\frac{1}{0}", "\\frac{1}{0}", None, "undefined")
add("hostile", "0^0", "1", None, "0^0")
add("hostile", "\\frac{0}{0}", "0", False, "undefined")
add("hostile", "\\sqrt{-1}", "i", None, "imaginary")
add("hostile", "\\ln(-1)", "i\\pi", None, "complex log")
add("hostile", "\\boxed{\x00 5}", "5", None, "NUL")
add("hostile", "\\boxed{5\x07}", "5", None, "BEL")
add("hostile", "\\boxed{5\u200b}", "5", None, "zero-width space")
add("hostile", "\\boxed{\u202e5\u202c}", "5", None, "RTL override")
add("hostile", "\\boxed{５}", "5", None, "full-width digit")
add("hostile", "\\boxed{½}", "\\frac12", True, "vulgar fraction")
add("hostile", "\\boxed{x²}", "x^2", True, "superscript two")
add("hostile", "\\boxed{3²}", "9", True, "superscript two")
add("hostile", "\\boxed{√2}", "\\sqrt2", True, "root sign")
add("hostile", "\\boxed{2√3}", "\\sqrt{12}", True, "root sign")
add("hostile", "\\boxed{π/2}", "\\frac{\\pi}{2}", True, "unicode pi")
add("hostile", "\\boxed{θ}", "\\theta", True, "unicode theta")
add("hostile", "\\boxed{θ}", "\\phi", False, "unicode theta")
add("hostile", "\\boxed{👍}", "1", False, "emoji")
add("hostile", "\\boxed{e\u0301}", "e", None, "combining accent")
add("hostile", "\\boxed{}", "0", False, "empty box")
add("hostile", "", "0", False, "empty answer")
add("hostile", "5", "", None, "empty reference")
add("hostile", "   ", "   ", None, "blank both")
add("hostile", "\\boxed{\\boxed{\\boxed{5}}}", "5", True, "nested boxes")
add("hostile", "\\boxed{5", "5", None, "unclosed box")
add("hostile", "\\fbox{5}", "5", True, "fbox")
add("hostile", "\\boxed{\\}5}", "5", None, "escaped brace")
add("hostile", "}}}}\\boxed{5}{{{{", "5", True, "stray braces")
add("hostile", "\\boxed{1,2,3}" , "\\{" + ",".join(str(i) for i in range(1000)) + "\\}", False, "1000-item set")
lst = [str(i) for i in range(900)]
add("hostile", "\\boxed{\\{" + ",".join(lst) + "\\}}", "\\{" + ",".join(reversed(lst)) + "\\}", True, "900-item sets reversed")
add("hostile", "\\boxed{\\{" + ",".join(f"\\sqrt{{{i}}}" for i in range(300)) + "\\}}",
    "\\{" + ",".join(f"\\sqrt{{{i}}}" for i in reversed(range(300))) + "\\}", True, "300 radicals reversed")
add("hostile", "\\boxed{" + ",".join(f"x^{{{i}}}" for i in range(400)) + "}",
    ",".join(f"x^{{{i}}}" for i in reversed(range(400))), True, "400 expressions reversed")
add("hostile", "\\boxed{" + "\\{" * 60 + "1" + "\\}" * 60 + "}", "\\{" * 60 + "1" + "\\}" * 60, True, "60 nested sets")
add("hostile", "\\boxed{" + "(" * 30 + "1,2" + ")" * 30 + "}", "(" * 30 + "1,2" + ")" * 30, True, "30 nested tuples")
add("hostile", "\\boxed{" + "+".join(["x"] * 1500) + "}", "1500x", True, "1500 x's")
add("hostile", "\\boxed{" + "".join(chr(ord('a') + i % 26) for i in range(3000)) + "}",
    "".join(chr(ord('a') + i % 26) for i in range(3000)), True, "3000-letter product of variables")
add("hostile", "\\boxed{" + "x_{" + "1" * 3000 + "}" + "}", "x_{" + "1" * 3000 + "}", True, "long subscript")
add("hostile", "\\boxed{" + "\\sin(" * 60 + "x" + ")" * 60 + "}", "\\sin(" * 60 + "x" + ")" * 60, True, "60 nested sin")
add("hostile", "\\boxed{" + "x^{" * 60 + "2" + "}" * 60 + "}", "1", False, "60 nested powers")
add("hostile", "\\boxed{" + "|" * 1000 + "}", "1", False, "bars")
add("hostile", "\\boxed{" + "-" * 3000 + "1}", "1", True, "3000 minus signs (even): 1")
add("hostile", "\\boxed{" + "!" * 10 + "}", "1", False, "bangs")
add("hostile", "\\boxed{3!!!!}", "3!!!!", None, "factorial tower: 720!! ...")
add("hostile", "\\boxed{10!!!}", "1", False, "huge factorial tower")
add("hostile", "\\boxed{" + "\\left(" * 100 + "1" + "\\right)" * 100 + "}", "1", None, "100 left/right")
add("hostile", "\\boxed{x^{x^{x^{x^{x}}}}}", "x^{x^{x^{x^{x}}}}", True, "power tower in a variable")
add("hostile", "\\boxed{\\text{" + "a" * 4000 + "}}", "\\text{" + "a" * 4000 + "}", True, "long words")


if __name__ == "__main__":
    import pathlib
    out = pathlib.Path(__file__).resolve().parents[3] / "tests/data/grading/trial.jsonl"
    with out.open("w") as f:
        for i, c in enumerate(CASES):
            c["id"] = i
            # Kept: cases with a stated verdict and under 4 KB (the huge hostile ones are unit tests).
            if c.get("truth") is not None and len(str(c["answer"])) + len(str(c["reference"])) <= 4096:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(CASES), "cases")
