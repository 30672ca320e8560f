"""Self-corrections and running totals, in the shapes model outputs take: which answer a final-answer extraction
takes (the last box when the text between boxes takes the first back; the stated total), each with the verdict
it must get and, beside it, math-verify's (0.9.0). Writes tests/data/grading/corrections.jsonl.

    python3 -m venv /tmp/mv && /tmp/mv/bin/pip install math-verify==0.9.0
    /tmp/mv/bin/python tests/data/gen/grading_corrections.py
"""
import json
import os

from math_verify import parse, verify

# (answer text, the answer it states, a wrong answer it also mentions)
SHAPES = [
    # Self-corrections on one line: the last box.
    (r"First \boxed{3}, then correcting: \boxed{4}", "4", "3"),
    (r"\boxed{5}. Wait, that's wrong. Actually \boxed{6}.", "6", "5"),
    (r"The answer is \boxed{12}... hmm, let me recheck: \boxed{14}", "14", "12"),
    (r"So $x = \boxed{2}$. Oops, sign error: $x = \boxed{-2}$.", "-2", "2"),
    (r"\boxed{\frac{1}{2}}, no, rather \boxed{\frac{1}{3}}", "\\frac{1}{3}", "\\frac{1}{2}"),
    (r"I get \boxed{100}. Sorry, I made a mistake in the last step; it is \boxed{120}.", "120", "100"),
    (r"\boxed{8} -- wait, I need to redo this: \boxed{9}", "9", "8"),
    (r"That gives \boxed{0.25}, or rather \boxed{0.5}.", "0.5", "0.25"),
    (r"\boxed{17}. Let me recalculate... \boxed{19}", "19", "17"),
    (r"Answer: \boxed{3\sqrt{2}}. Actually I dropped a factor: \boxed{6\sqrt{2}}", "6\\sqrt{2}", "3\\sqrt{2}"),
    (r"\boxed{42} is incorrect; the correct value is \boxed{24}.", "24", "42"),
    (r"$\boxed{7}$ (error above, revising) $\boxed{11}$", "11", "7"),
    # Self-corrections across lines: the last box already.
    ("The total is \\boxed{30}.\nWait, I double counted.\nThe total is \\boxed{25}.", "25", "30"),
    ("\\boxed{1}\n\nHmm, that cannot be right.\n\n\\boxed{2}", "2", "1"),
    ("Initially I found $\\boxed{64}$.\nRechecking the arithmetic gives $\\boxed{81}$.", "81", "64"),
    # Running totals: the stated total.
    ("First 5, then 7 more, so the total is 12.", "12", "5"),
    ("She has 3 apples and buys 4 more. In total, she has 7 apples.", "7", "3"),
    ("3 + 4 = 7, and 7 + 5 = 12, so the total is 12.", "12", "7"),
    ("Monday 10, Tuesday 15, Wednesday 20: the total is 45.", "45", "20"),
    ("He earns $20, then $30, then $50, so the total is $100.", "100", "50"),
    ("Adding the parts: 2 + 3 + 4. The total is 9.", "9", "4"),
    ("We count 6 red, 8 blue and 10 green marbles; in total, there are 24 marbles.", "24", "10"),
    ("Step 1: 12. Step 2: 12 + 8 = 20. Step 3: 20 + 5 = 25. So the total is 25.", "25", "20"),
    ("The first box holds 11, the second 13, so the total is 24.", "24", "13"),
    ("Running sum: 1, 3, 6, 10. The total is 10.", "10", "6"),
    ("After three rounds of 15 points each the total is 45 points.", "45", "15"),
    # Not corrections: several boxes on one line are a list.
    (r"The roots are \boxed{2} and \boxed{3}.", "2, 3", "3"),
    (r"$x = \boxed{1}$ and $y = \boxed{5}$", "1, 5", "5"),
    (r"The solutions are \boxed{-1}, \boxed{0} and \boxed{1}.", "-1, 0, 1", "1"),
    (r"\boxed{4} and \boxed{9} are the two squares.", "4, 9", "9"),
    # A stated total that is then corrected: the last statement.
    ("So the total is 40. Wait, I forgot one: the total is 41.", "41", "40"),
    ("The answer is 15, no wait, the answer is 16.", "16", "15"),
]


def main():
    rows = []
    for i, (answer, right, wrong) in enumerate(SHAPES):
        for reference, truth in [(right, True), (wrong, False)]:
            # math-verify reads references and answers as LaTeX in math mode.
            gold = parse(f"${reference}$")
            mv = bool(verify(gold, parse(answer)))
            rows.append({
                "id": 30000 + 2 * i + (0 if truth else 1),
                "answer": answer,
                "reference": reference,
                "truth": truth,
                "math_verify": mv,
            })
    out = os.path.join(os.path.dirname(__file__), "..", "grading", "corrections.jsonl")
    with open(out, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    agree = sum(r["truth"] == r["math_verify"] for r in rows)
    print(f"{len(rows)} pairs; math-verify agrees on {agree}")


main()
