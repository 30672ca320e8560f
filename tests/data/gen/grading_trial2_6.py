"""Second adversarial trial of the `grade` tool, part 6 of 6: pairs aimed at the rules added after the first
trial, each with the verdict a demanding grader must give, stated by hand. Writes
tests/data/grading/trial2_6.jsonl.

    python3 tests/data/gen/grading_trial2_6.py
"""
import json
C = []
def add(cat, a, r, t, why="", **p): C.append(dict(cat=cat, answer=a, reference=r, truth=t, why=why, params=p))
F, T, N = False, True, None
for a, r, t, w in [
 ("The answer is 2 (x+1).", "2", F, "reason cut at ' (' removes a factor"),
 ("The answer is $2 (x+1)$.", "2", F, "cut inside math"),
 ("The answer is $2 (x+1)$.", "2x+2", T, ""),
 ("Final answer: 3 (2 + 1)", "3", F, "product 9"),
 ("Final answer: 5 (mod 7)", "5", T, ""),
 ("The answer is 10 (\\sqrt{2})", "10", F, ""),
 ("The answer is 4 (\\pi)", "4", F, ""),
 ("The answer is -1 (-1)", "-1", F, "product 1"),
 ("The answer is x (x - 1)", "x", F, ""),
 ("The answer is 12 because of 13", "12", T, ""),
 ("The answer is 2^{10} (1024)", "1024", T, ""),
 ("The answer is 1000 (approximately 1024)", "1000", N, ""),
 ("The answer is 12, which equals 3 \\times 4.", "12", T, ""),
 ("The answer is 1, 2, which are the roots", "1, 2", T, ""),
 ("The answer is 1, 2, which are the roots", "2", F, ""),
 ("The answer is 1 since, which", "1", T, ""),
 ("The answer is \\frac{1}{2} (one half)", "1/2", T, ""),
 ("The answer is \\frac{1}{2} (one third)", "1/3", F, ""),
 ("The answer is \\left(2, 3\\right)", "(2,3)", T, ""),
 ("The answer is f (x) = x^2", "x^2", N, ""),
 ("The answer is e (2.718)", "e", T, ""),
 ("Final Answer: \\boxed{} hmm 7", "7", N, ""),
 ("The answer is $\\pm 2$, both signs", "2", F, ""),
 ("\\boxed{x = \\pm 2 = 2}", "2", F, ""),
 ("\\boxed{\\pm 2 = 2}", "2", F, ""),
 ("\\boxed{2 = \\pm 2}", "2", F, ""),
 ("\\boxed{4 = 2 \\text{ or } 3}", "3", F, ""),
 ("\\boxed{2 \\text{ or } x = 3}", "3", F, ""),
 ("\\boxed{x = 2 \\text{ or } 3}", "3", F, ""),
 ("\\boxed{1 + 1 = 2 \\pm 1}", "1, 3", N, ""),
 ("\\boxed{x^2 = 9 \\Rightarrow x = 3}", "3", N, ""),
 ("\\boxed{x^2 = 9 \\Rightarrow x = \\pm 3}", "3", F, ""),
 ("\\boxed{3 \\implies 4}", "4", F, ""),
 ("\\boxed{3 \\to 4}", "4", F, ""),
 ("\\boxed{\\lim_{x \\to 0} f(x) = 4}", "4", T, ""),
 ("\\boxed{\\lim_{x \\to 4} f(x) = 0}", "4", F, ""),
 ("\\boxed{f^{-1}(3) = 5}", "5", T, ""),
 ("\\boxed{f(3) = 5}", "3", F, ""),
 ("\\boxed{f(x) = 5}", "f(x)", F, ""),
 ("\\boxed{g(x) = x+1}", "x+1", T, ""),
 ("\\boxed{y(x) = x + 1}", "x+1", T, ""),
 ("\\boxed{x(t) = t^2}", "t^2", T, ""),
 ("\\boxed{a(b+c) = ab+ac}", "ab+ac", N, "identity stated"),
 ("\\boxed{a(b+c) = 5}", "5", F, "a product equation is not an assignment"),
 ("\\boxed{2(3) = 5}", "5", F, ""),
 ("\\boxed{2(3) = 6}", "6", T, ""),
 ("\\boxed{x(2) = 5}", "5", N, ""),
 ("\\boxed{S_n = n^2}", "n^2", T, ""),
 ("\\boxed{a_n = 3}", "3", T, ""),
 ("\\boxed{a_2 = 3}", "3", T, ""),
 ("\\boxed{10_2 = 3}", "3", F, "10_2 = 2"),
 ("\\boxed{P = 0.3}", "0.3", T, ""),
 ("\\boxed{x = 0.3 = 30\\%}", "0.3", T, ""),
 ("\\boxed{\\$5 = 5}", "5", T, ""),
 ("\\boxed{\\sqrt{16} = \\pm 4}", "4", F, ""),
 ("\\boxed{\\sqrt{16} = 4}", "4", T, ""),
 ("\\boxed{2 \\times 3 = 6 \\text{ apples}}", "6", T, ""),
 ("\\boxed{2 \\times 3 = 5 \\text{ apples}}", "5", F, ""),
 ("\\boxed{2 \\times 3 \\text{ hundred}}", "6", F, "600"),
 ("\\boxed{6 \\text{ hundred} = 600}", "600", T, ""),
 ("\\boxed{6 = 600}", "600", F, ""),
 ("\\boxed{0.5 = 50\\%}", "50", T, ""),
 ("\\boxed{0.05 = 50\\%}", "50", F, ""),
 ("\\boxed{x \\approx 3.14}", "3.14", N, ""),
 ("\\boxed{\\sqrt{2} \\approx 1.41}", "1.41", N, ""),
 ("\\boxed{\\sqrt{3} \\approx 1.41}", "1.41", F, ""),
 ("\\boxed{\\sqrt{3} = 1.41}", "1.41", F, ""),
 ("\\boxed{\\pi \\cdot 2 = 6}", "6", F, ""),
 ("\\boxed{\\frac{22}{7} = \\pi}", "\\pi", F, ""),
 ("\\boxed{\\frac{22}{7} = 3.14}", "3.14", F, ""),
 ("\\boxed{99 = 100}", "100", F, ""),
 ("\\boxed{1 = 0}", "0", F, ""),
]: add("extra", a, r, t, w)
import pathlib
OUT = pathlib.Path(__file__).resolve().parents[3] / "tests/data/grading/trial2_6.jsonl"
with OUT.open("w") as f:
    for i, c in enumerate(C):
        c["id"] = 26000 + i
        # Kept: cases with a stated verdict (the arguable ones are left out).
        if c.get("truth") is not None:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
print(len(C))
