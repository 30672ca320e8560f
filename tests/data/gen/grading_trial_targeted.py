"""Second round: targeted probes of hypotheses from round one (whole-text last-number fallback, units in boxed
answers with bare references, unicode minus, choice fallbacks, percent-number rule, equations, identity domain).
Writes tests/data/grading/trial_targeted.jsonl.

    python3 tests/data/gen/grading_trial_targeted.py
"""
import json

CASES = []


def add(cat, answer, reference, truth, why="", **params):
    CASES.append(dict(cat=cat, answer=answer, reference=reference, truth=truth, why=why, params=params))


# -- unreadable unboxed answer -> last number in it (false positives)
for a, r, w in [
    ("x \\geq 2", "2", "an inequality is not the value 2"),
    ("x > 5", "5", "an inequality is not the value 5"),
    ("2 \\le x \\le 5", "5", "an interval is not 5"),
    ("1010_2", "2", "binary 1010 is ten, not 2"),
    ("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "2", "a vector is not 2"),
    ("1 \\pm \\sqrt{2}", "2", "1 +- sqrt2 is not 2"),
    ("3 \\pm 2", "2", "3 +- 2 is {1, 5}"),
    ("(-\\infty,1)\\cup(2,\\infty)", "2", "a union is not 2"),
    ("0.\\overline{3}", "3", "1/3 is not 3"),
    ("\\lfloor 7.5 \\rfloor", "7.5", "floor(7.5) = 7"),
    ("\\lceil 2.1 \\rceil", "2.1", "ceil(2.1) = 3"),
    ("\\max(3, 8)", "3", "max is 8"),
    ("\\gcd(12, 18)", "18", "gcd is 6"),
    ("12 \\bmod 5", "5", "12 mod 5 = 2"),
    ("\\sum_{k=1}^{10} k", "10", "sum is 55"),
    ("\\int_0^1 x\\,dx", "1", "integral is 1/2"),
    ("x = 3 \\text{ or } x = 7", "7", "two roots, reference one"),
    ("f'(2) = 3", "3", "reads f'(2)=3: value 3 (acceptable)"),
    ("\\approx 3.14", "3.14", "approximately pi (acceptable)"),
]:
    add("whole_fallback", a, r, r == "3" and a.startswith("f'") or a.startswith("\\approx"), w)

# the same boxed (expected: false, or correct where a value is stated)
for a, r, t, w in [
    ("\\boxed{\\lfloor 7.5 \\rfloor}", "7", True, "floor"),
    ("\\boxed{\\lceil 2.1 \\rceil}", "3", True, "ceil"),
    ("\\boxed{\\gcd(12, 18)}", "6", True, "gcd"),
    ("\\boxed{\\operatorname{lcm}(4, 6)}", "12", True, "lcm"),
    ("\\boxed{12 \\bmod 5}", "2", True, "mod"),
    ("\\boxed{\\sum_{k=1}^{10} k}", "55", None, "sum notation"),
]:
    add("boxed_funcs", a, r, t, w)

# -- unicode minus and other dashes in running text
for a, r, t, w in [
    ("The temperature dropped to −5 degrees.", "-5", True, "unicode minus in text"),
    ("The temperature dropped to −5 degrees.", "5", False, "unicode minus in text: -5, not 5"),
    ("So x = −3", "-3", True, "unicode minus"),
    ("So x = −3", "3", False, "unicode minus: -3, not 3"),
    ("The answer is −12.", "12", False, "unicode minus: -12"),
    ("\\boxed{−12}", "12", False, "unicode minus in box"),
    ("The change is –4 dollars.", "4", None, "en dash as minus"),
    ("The final balance is -$25.", "-25", True, "negative dollars"),
    ("The final balance is -$25.", "25", False, "negative dollars"),
    ("She owes $-25$ dollars.", "-25", True, "math span"),
    ("It fell by 5, to 15.", "15", True, "last number"),
]:
    add("minus", a, r, t, w)

# -- units written with a bare-number reference (models add units in boxes)
for a, r, t, w in [
    ("\\boxed{5 \\text{ cm}}", "5", True, "unit on answer, bare reference"),
    ("\\boxed{5\\text{ cm}}", "5", True, "unit on answer, bare reference"),
    ("\\boxed{6 \\text{ cm}}", "5", False, "unit on answer, bare reference"),
    ("\\boxed{12 \\text{ m}}", "12", True, "meters"),
    ("\\boxed{45 \\text{ mph}}", "45", True, "mph"),
    ("\\boxed{18 \\text{ dollars}}", "18", True, "dollars"),
    ("\\boxed{3 \\text{ hours}}", "3", True, "hours"),
    ("\\boxed{4 \\text{ hours}}", "3", False, "hours"),
    ("\\boxed{20 \\text{ minutes}}", "20", True, "minutes"),
    ("\\boxed{20\\%}", "20", True, "percent"),
    ("\\boxed{150 \\text{ students}}", "150", True, "count noun"),
    ("\\boxed{151 \\text{ students}}", "150", False, "count noun"),
    ("\\boxed{36 \\text{ square feet}}", "36", True, "square feet"),
    ("\\boxed{8 \\text{ cm}^2}", "8", True, "area unit"),
    ("\\boxed{64\\pi \\text{ cm}^3}", "64\\pi", True, "pi with unit"),
    ("\\boxed{10\\sqrt{2} \\text{ units}}", "10\\sqrt{2}", True, "radical with unit"),
    ("\\boxed{2 \\text{ m}}", "200", None, "2 m against 200 (cm implied)"),
    ("The answer is 18 dollars.", "18", True, "phrase with unit word"),
    ("The answer is 18 dollars.", "19", False, "phrase with unit word"),
    ("The answer is 3 hours.", "3", True, "phrase with unit"),
    ("Final answer: 42 cm", "42", True, "phrase with unit"),
    ("Final answer: 42 cm", "420", None, "42 cm = 420 mm; reference unitless"),
    ("The answer is 5 km.", "5000", None, "5 km = 5000 m; reference unitless"),
    ("\\boxed{3 \\text{ sec}}", "3 s", True, "sec as seconds"),
    ("\\boxed{3 \\text{ secs}}", "3 \\text{ s}", True, "secs"),
    ("\\boxed{10 \\text{ K}}", "10 \\text{ °C}", None, "temperature difference vs absolute"),
    ("\\boxed{1.5 \\times 10^{3} \\text{ J}}", "1500 \\text{ J}", True, "scientific with unit"),
    ("\\boxed{1.5 \\cdot 10^{3} \\text{ J}}", "1.5 \\text{ kJ}", True, "scientific with unit"),
    ("\\boxed{1.5e3 \\text{ J}}", "1.5 \\text{ kJ}", True, "E notation with unit"),
    ("\\boxed{1.6 \\times 10^{-19}\\ \\text{C}}", "1.6e-19 C", True, "scientific with unit"),
    ("\\boxed{\\frac{1}{2} \\text{ m}}", "0.5 m", True, "fraction with unit"),
    ("\\boxed{\\frac{1}{2} \\text{ m}}", "0.5 cm", False, "fraction with unit"),
    ("\\boxed{2\\sqrt{2} \\text{ m}}", "2.828427 m", True, "radical with unit (7 sig)"),
    ("\\boxed{5 \\text{ m}}", "5 \\text{ min}", False, "meters vs minutes"),
    ("\\boxed{5 \\text{ min}}", "5 \\text{ m}", False, "minutes vs meters"),
    ("\\boxed{5 \\text{ mm}}", "5 \\text{ m}", False, "milli"),
    ("\\boxed{5}", "5 \\text{ m}", True, "bare"),
    ("\\boxed{500}", "5 \\text{ m}", False, "bare 500 (in cm?) is not 5 m"),
    ("\\boxed{5 \\text{ Pa}}", "5 \\text{ N/m^2}", True, "pressure"),
    ("\\boxed{5 \\text{ N}}", "5 \\text{ kg}", False, "force vs mass"),
    ("\\boxed{9.8 \\text{ N}}", "1 \\text{ kgf}", None, "kgf"),
]:
    add("units2", a, r, t, w)

# -- percent: the 'reference may give the number of percent' rule
for a, r, t, w in [
    ("\\boxed{5\\%}", "5", None, "5% against 5 (question-dependent)"),
    ("\\boxed{0.2\\%}", "0.2", False, "0.2% is 0.002"),
    ("\\boxed{30\\%}", "0.3", True, "percent"),
    ("\\boxed{0.3}", "30\\%", True, "percent"),
    ("\\boxed{30}", "30\\%", True, "number of percent"),
    ("\\boxed{0.3\\%}", "30\\%", False, "0.3% is not 30%"),
    ("\\boxed{3000\\%}", "30", None, "3000% equals 30 as a number, but not if 30 means 30 percent"),
    ("The probability is 0.75%.", "0.75", False, "0.75% is not 0.75"),
    ("The probability is 75%.", "0.75", True, "75%"),
    ("\\boxed{\\frac{1}{4}\\%}", "\\frac14", False, "1/4 % is not 1/4"),
]:
    add("percent2", a, r, t, w)

# -- choice letters: more phrasing
for a, r, t, w in [
    ("The correct option is (B).", "B", True, "option"),
    ("The correct option is B.", "B", True, "no phrase, whole text"),
    ("Option (A) gives 10, option (B) gives 12. So the correct choice is B.", "B", True, "last (X) is B"),
    ("Options (A) and (C) fail. Hence B.", "B", True, "last (X) is C; model picked B"),
    ("Options (A) and (C) fail. Hence B.", "C", False, "model picked B"),
    ("**Answer: (D)**", "D", True, "bold"),
    ("Answer: D) 42", "D", True, "letter paren"),
    ("The answer is $\\boxed{\\text{B}}$", "B", True, "boxed text"),
    ("The answer is $\\boxed{\\textbf{(B)}}$", "B", True, "boxed bold"),
    ("The answer is $\\boxed{\\textbf{(B) } 12}$", "B", True, "AMC style"),
    ("$\\boxed{\\textbf{(C)}\\ 14}$", "C", True, "AMC style box"),
    ("$\\boxed{\\textbf{(C)}\\ 14}$", "B", False, "AMC style box"),
    ("\\boxed{B}", "B", True, "plain"),
    ("\\boxed{b}", "B", True, "lowercase box"),
    ("The answer is b.", "B", None, "lowercase unbracketed"),
    ("I choose C.", "C", True, "whole"),
    ("Answer: A and C", "A", False, "two letters"),
    ("Answer: A and C", "C", False, "two letters"),
    ("Answer: Both A and C", "B", False, "'Both' starts with B"),
    ("Answer: Both A and C", "A", False, "two letters"),
    ("The answer is C, not B.", "B", False, "explicit"),
    ("The answer is C, not B.", "C", True, "explicit"),
    ("(A) is wrong. (B) is wrong. (C) is wrong. (D) is wrong.", "D", False, "all rejected"),
    ("None of the options work.", "D", False, "none"),
    ("The answer is E.", "E", True, "E"),
    ("The answer is e.", "E", None, "lower e"),
    ("The answer is $e$.", "E", None, "math e (Euler)"),
    ("The answer is (I).", "I", True, "I"),
    ("Answer: It is (B).", "I", False, "It is not I"),
    ("Answer: It is (B).", "B", True, "It is B"),
    ("Answer: A", "\\text{(A)}", True, "text A"),
    ("Answer: A", "\\textbf{(A)}", True, "textbf A"),
    ("Answer: A", "\\mathrm{(A)}", True, "mathrm A"),
    ("Answer: A", "(A) 12", True, "reference with content"),
    ("\\boxed{12}", "(A) 12", None, "content instead of letter"),
]:
    add("choice2", a, r, t, w)

# -- text references
for a, r, t, w in [
    ("\\boxed{\\text{Yes}}", "Yes", True, "yes"),
    ("\\boxed{\\text{yes}}", "No", False, "yes vs no"),
    ("Yes, it is possible.", "Yes", True, "Yes with explanation"),
    ("No, it is not possible.", "Yes", False, "No"),
    ("The answer is no.", "No", True, "phrase"),
    ("The answer is not yes.", "Yes", False, "negated"),
    ("\\boxed{\\text{Alice}}", "Alice", True, "name"),
    ("\\boxed{\\text{Bob}}", "Alice", False, "name"),
    ("\\boxed{\\text{alice}}", "Alice", True, "case"),
    ("\\boxed{\\text{Alice and Bob}}", "Alice", False, "extra"),
    ("\\boxed{\\text{north}}", "\\text{North}", True, "direction"),
    ("\\boxed{\\text{northeast}}", "\\text{North}", False, "direction"),
    ("\\boxed{\\text{a parabola}}", "\\text{parabola}", None, "article"),
    ("\\boxed{\\text{circle}}", "\\text{parabola}", False, "shape"),
    ("\\boxed{\\text{Thursday}}", "\\text{Thursday}", True, "day"),
    ("\\boxed{\\text{Thursdays}}", "\\text{Thursday}", None, "plural"),
    ("\\boxed{\\text{undefined}}", "\\text{undefined}", True, "undefined"),
    ("\\boxed{\\text{DNE}}", "\\text{does not exist}", None, "abbr"),
    ("\\boxed{12}", "\\text{twelve}", None, "number word"),
    ("\\boxed{\\text{odd}}", "\\text{even}", False, "parity"),
    ("\\boxed{even}", "\\text{even}", True, "parity no text"),
    ("\\boxed{\\text{E}}", "\\text{even}", False, "abbr"),
]:
    add("text2", a, r, t, w)

# -- equations and assignments
for a, r, t, w in [
    ("\\boxed{y = 2x + 3}", "y = 2x+3", True, "same"),
    ("\\boxed{2x + 3}", "y = 2x+3", True, "rhs"),
    ("\\boxed{y = 2x + 3}", "2x+3", True, "rhs"),
    ("\\boxed{x + y = 5}", "5", False, "equation vs value"),
    ("\\boxed{x = 5, y = 3}", "(5, 3)", True, "assignments vs pair"),
    ("\\boxed{x = 3, y = 5}", "(5, 3)", False, "swapped assignments vs pair"),
    ("\\boxed{y = 5, x = 3}", "(3, 5)", True, "order of assignments, named"),
    ("\\boxed{y = 3, x = 5}", "x=5, y=3", True, "named assignments any order"),
    ("\\boxed{x = 3, y = 5}", "x=5, y=3", False, "named assignments swapped values"),
    ("\\boxed{a = 1, b = 2}", "b=1, a=2", False, "named assignments swapped values"),
    ("\\boxed{y=x^2}", "y - x^2 = 0", True, "same curve"),
    ("\\boxed{y=x^2}", "y + x^2 = 0", False, "different curve"),
    ("\\boxed{x^2+y^2=1}", "2x^2+2y^2=2", True, "multiple"),
    ("\\boxed{x^2+y^2=1}", "x^2+y^2=4", False, "different"),
    ("\\boxed{y = x + 1}", "y = x + 1.0000000001", False, "tiny difference in constant"),
    ("\\boxed{y = 1000x}", "y = 1000x + 0.000001", False, "tiny difference in constant"),
    ("\\boxed{x = 4}", "x^2 = 16", None, "one root of two"),
    ("\\boxed{x = 4}", "x = 4 \\text{ or } x = -4", False, "one root of two"),
    ("\\boxed{x = 4 \\text{ or } x = -4}", "x = 4", False, "extra root"),
    ("\\boxed{x = -4}", "x = 4 \\text{ or } x = -4", False, "one root of two"),
    ("\\boxed{17 \\cdot 23 = 391}", "391", True, "worked"),
    ("\\boxed{17 \\cdot 23 = 392}", "391", False, "worked, wrong result"),
    ("\\boxed{391 = 17 \\cdot 23}", "391", True, "reversed worked"),
    ("\\boxed{2 + 2 = 5}", "5", None, "false arithmetic, final 5"),
    ("\\boxed{x=2=y}", "2", True, "chain"),
    ("\\boxed{k=\\frac{1}{2}}", "0.5", True, "assignment"),
    ("\\boxed{k=\\frac{1}{2}}", "k=0.5", True, "assignment"),
    ("\\boxed{m=\\frac{1}{2}}", "k=0.5", False, "different variable"),
    ("\\boxed{P(A) = 0.3}", "0.3", True, "probability notation"),
    ("\\boxed{P(A) = 0.4}", "0.3", False, "probability notation"),
    ("\\boxed{a_n = 2n + 1}", "2n+1", True, "sequence formula"),
    ("\\boxed{a_n = 2n - 1}", "2n+1", False, "sequence formula"),
    ("\\boxed{f(x) = x^2}", "x^2", True, "function"),
    ("\\boxed{f(x) = x^3}", "x^2", False, "function"),
]:
    add("equations2", a, r, t, w)

# -- identity domain and precision edges
for a, r, t, w in [
    ("\\boxed{\\sqrt{x-4}}", "\\sqrt{x-4}", True, "domain x>=4"),
    ("\\boxed{\\sqrt{x-4}+1}", "\\sqrt{x-4}", False, "domain x>=4"),
    ("\\boxed{\\ln(x-3)}", "\\ln(x-3)", True, "domain x>3"),
    ("\\boxed{\\ln(x-3)+1}", "\\ln(x-3)", False, "domain x>3"),
    ("\\boxed{\\arcsin(x)}", "\\arcsin(x)", True, "domain |x|<=1"),
    ("\\boxed{\\arcsin(x)+0.001}", "\\arcsin(x)", False, "domain |x|<=1"),
    ("\\boxed{\\arccos(x/10)}", "\\arccos(x/10)", True, "domain wide"),
    ("\\boxed{\\sqrt{x^2-16}}", "\\sqrt{x^2-16}", True, "domain |x|>=4"),
    ("\\boxed{\\sqrt{x^2-16}}", "2\\sqrt{x^2-16}", False, "domain |x|>=4"),
    ("\\boxed{\\frac{1}{x-1}}", "\\frac{1}{x-1}", True, "pole"),
    ("\\boxed{e^{-x^2}}", "e^{-x^2}", True, "small values"),
    ("\\boxed{e^{-x^2}}", "2e^{-x^2}", False, "small values differ"),
    ("\\boxed{e^{-10x}}", "2e^{-10x}", False, "tiny values differ by factor 2"),
    ("\\boxed{e^{-20x^2}}", "0", False, "tiny but nonzero"),
    ("\\boxed{\\frac{x}{1000000}}", "\\frac{x}{2000000}", False, "tiny values"),
    ("\\boxed{10^{-9}x}", "0", False, "tiny but nonzero"),
    ("\\boxed{x^{30}}", "x^{30}+1", False, "big and small"),
    ("\\boxed{\\sin(100x)}", "\\sin(100x)", True, "oscillating"),
    ("\\boxed{\\sin(100x)}", "\\sin(100x+2\\pi)", True, "phase shift 2pi"),
    ("\\boxed{\\sin(1000000x)}", "\\sin(1000000x)+10^{-8}", False, "precision"),
    ("\\boxed{\\tan(x)}", "\\tan(x+\\pi)", True, "period"),
    ("\\boxed{|x-2|}", "x-2", False, "abs with offset: x<2 on the sample region"),
    ("\\boxed{|x-5|}", "5-x", False, "|x-5| equals 5-x on x<5 (all samples lie in |x|<3.25)"),
    ("\\boxed{\\max(x, 4)}", "4", None, "max"),
    ("\\boxed{\\frac{|x|}{x}}", "1", False, "sign function"),
    ("\\boxed{\\sqrt{(x-5)^2}}", "5-x", False, "equal only for x<=5"),
    ("\\boxed{\\sqrt{(x-5)^2}}", "|x-5|", True, "abs"),
    ("\\boxed{\\frac{x^2-25}{x-5}}", "x+5", True, "removable"),
    ("\\boxed{\\log_x 8}", "\\frac{3\\ln 2}{\\ln x}", True, "variable base"),
    ("\\boxed{n}", "N", None, "case of variable"),
    ("\\boxed{2\\pi r h}", "2 \\pi r h", True, "same"),
    ("\\boxed{\\pi r^2 h}", "\\pi r h^2", False, "swap"),
    ("\\boxed{\\theta}", "\\Theta", False, "different symbols"),
    ("\\boxed{x_1 + x_2}", "x_2 + x_1", True, "subscripts"),
    ("\\boxed{x_1 + x_2}", "x_{12}", False, "subscripts"),
    ("\\boxed{x_{1}x_{2}}", "x_1 x_2", True, "subscripts"),
    ("\\boxed{x_12}", "x_1 2", None, "plain subscript parse"),
]:
    add("identity2", a, r, t, w)

# -- closed values: precision and near-misses
for a, r, t, w in [
    ("\\boxed{\\frac{1}{3}}", "0.3333333333", True, "10-digit rounding"),
    ("\\boxed{\\frac{1}{3}}", "0.3333333334", False, "not a rounding of 1/3"),
    ("\\boxed{0.33333333333333333333333333}", "\\frac13", True, "long rounding"),
    ("\\boxed{\\pi}", "3.1415926535897932384626433832795028841971693993751058209749445923078164", True, "70 digits"),
    ("\\boxed{\\pi+10^{-65}}", "\\pi", False, "differs at 1e-65 (relative 3e-66)"),
    ("\\boxed{\\pi+10^{-50}}", "\\pi", False, "differs at 1e-50"),
    ("\\boxed{\\sqrt{2}+10^{-62}}", "\\sqrt{2}", False, "differs at 1e-62"),
    ("\\boxed{1+10^{-70}}", "1", False, "exact rationals differ"),
    ("\\boxed{\\frac{10^{80}+1}{10^{80}}}", "1", False, "exact rationals differ"),
    ("\\boxed{e^{100}}", "e^{100}+1", False, "differs by 1 at magnitude 2.7e43"),
    ("\\boxed{\\sqrt{10^{130}+1}}", "10^{65}", False, "differs by 5e-66"),
    ("\\boxed{\\ln(10^{70}+1)}", "70\\ln 10", False, "differs by 1e-70"),
    ("\\boxed{\\sin(10^{-70})}", "0", False, "tiny nonzero"),
    ("\\boxed{\\sin(10^{-70})}", "10^{-70}", False, "differs at 1e-210 relative? (sin x = x - x^3/6)"),
    ("\\boxed{\\tan(\\frac{\\pi}{4})}", "1", True, "exact trig"),
    ("\\boxed{\\cos(\\frac{2\\pi}{3})}", "-\\frac12", True, "exact trig"),
    ("\\boxed{\\cos(\\frac{\\pi}{5})}", "\\frac{1+\\sqrt5}{4}", True, "golden"),
    ("\\boxed{\\sin(\\frac{\\pi}{12})}", "\\frac{\\sqrt6-\\sqrt2}{4}", True, "exact"),
    ("\\boxed{\\cos^2(\\frac{\\pi}{8}) - \\frac{2+\\sqrt2}{4}}", "0", True, "cancellation to zero"),
    ("\\boxed{\\ln 2 + \\ln 3 - \\ln 6}", "0", True, "cancellation to zero"),
    ("\\boxed{e^{\\ln 2} - 2}", "0", True, "cancellation to zero"),
    ("\\boxed{\\sqrt{3}^2 - 3}", "0", True, "cancellation to zero"),
    ("\\boxed{(\\sqrt{5}+1)(\\sqrt{5}-1) - 4}", "0", True, "cancellation to zero"),
    ("\\boxed{\\frac{\\sqrt{2}}{2} - \\frac{1}{\\sqrt{2}}}", "0", True, "cancellation to zero"),
    ("\\boxed{\\sin^2(1) + \\cos^2(1) - 1}", "0", True, "cancellation to zero"),
    ("\\boxed{2\\sin(\\frac{\\pi}{6}) - 1}", "0", True, "cancellation to zero"),
    ("\\boxed{0.0}", "\\sqrt{2}-\\sqrt{2}", True, "zero"),
    ("\\boxed{1}", "\\sqrt{2}\\cdot\\sqrt{2} - 1", True, "equal"),
    ("\\boxed{0}", "\\sqrt{8}-2\\sqrt{2}", True, "zero reference"),
]:
    add("closed2", a, r, t, w)

# -- extraction: more chain-of-thought endings
for a, r, t, w in [
    ("Thus the final answer is $\\frac{1}{4}$, i.e. 25%.", "\\frac14", True, "phrase then restatement"),
    ("The final answer is 12. \nIn words, twelve.", "12", True, "phrase"),
    ("The answer is: $12$", "12", True, "phrase math"),
    ("The answer is:\n$$12$$", "12", True, "phrase on next line"),
    ("The answer is:\n$$13$$", "12", False, "phrase on next line"),
    ("Final Answer: $\\boxed{12}$\nI hope it is correct.", "12", True, "box"),
    ("## Final Answer\nThe total is 12 apples.", "12", True, "heading"),
    ("## Final Answer\nThe total is 13 apples.", "12", False, "heading"),
    ("**Answer:** 12", "12", True, "bold answer"),
    ("**Answer:** 13", "12", False, "bold answer"),
    ("**The answer is 12.**", "12", True, "bold phrase"),
    ("**The answer is 13.**", "12", False, "bold phrase"),
    ("Answer: \\(12\\)", "12", True, "paren math"),
    ("So the answer is \\[ 12 \\]", "12", True, "display math"),
    ("Thus, $x=12$. The answer is $12$.", "12", True, "phrase math"),
    ("Therefore, there are $\\boxed{12}$ ways.", "12", True, "box"),
    ("Therefore, there are 12 ways.", "12", True, "last number"),
    ("Therefore, there are twelve ways.", "12", None, "number word"),
    ("We have 3 cases, giving a total of 12 ways in all 4 colors.", "12", None, "last number is 4"),
    ("The final answer is $x = 12$ cm.", "12", True, "phrase with trailing unit"),
    ("The final answer is 12 (twelve).", "12", True, "parenthetical"),
    ("The final answer is 1/4 (0.25).", "\\frac14", True, "parenthetical restatement"),
    ("The final answer is 1/4 (0.3).", "\\frac14", False, "parenthetical restatement wrong"),
    ("The answer is 12, since 3*4=12.", "12", True, "phrase then reason"),
    ("The answer is 13, since 3*4=12.", "12", False, "phrase then reason"),
    ("The answer is 12 or 13.", "12", False, "hedged"),
    ("The answer is either 12 or 13.", "13", False, "hedged"),
    ("The answer is 12. Actually, no, it's 13.", "13", None, "self-correction on the same line"),
    ("The answer is 12. Actually, no, it's 13.", "12", False, "self-corrected"),
    ("\\boxed{12} \\boxed{13}", "13", None, "two boxes"),
    ("Answer: 12\nAnswer: 13", "13", True, "last phrase"),
    ("Answer: 12\nAnswer: 13", "12", False, "last phrase"),
    ("The answer is 3.5 hours.", "3.5", True, "unit word"),
    ("The answer is 1,250.", "1250", True, "comma"),
    ("The answer is 1,250 people.", "1250", True, "comma with noun"),
    ("The answer is 12!", "12", None, "exclamation or factorial"),
    ("The answer is 12%", "12", True, "percent"),
    ("x = 12.", "12", True, "assignment"),
    ("12 apples", "12", True, "number with noun"),
    ("12 apples", "13", False, "number with noun"),
    ("about 12", "12", True, "approx word"),
    ("I am not sure, maybe 12?", "12", True, "hedge"),
    ("I don't know.", "0", False, "no answer"),
    ("There are no solutions.", "0", False, "no solutions vs 0"),
    ("The answer is 0.", "0", True, "zero"),
    ("It costs 5 dollars and 50 cents.", "5.50", None, "compound amount"),
]:
    add("extract2", a, r, t, w)

# -- hostile, round 2 (timing)
for d in (12, 16, 18):
    s = "\\{" * d + "1" + "\\}" * d
    add("hostile2", "\\boxed{" + s + "}", s, True, f"{d} nested sets (exponential comparison)")
    s2 = "\\{" * d + "1, 2" + "\\}" * d
    add("hostile2", "\\boxed{" + s2 + "}", s2, True, f"{d} nested sets of two")
s = "(" * 20 + "1,2" + ")" * 20
add("hostile2", "\\boxed{\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{1\\})\\})\\})\\})\\})\\})\\})\\}}",
    "\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{(1,\\{1\\})\\})\\})\\})\\})\\})\\})\\}", True, "sets of tuples nested")
add("hostile2", "\\boxed{" + ",".join(["x"] * 999) + "}", ",".join(["x"] * 999), True, "999 identical symbolic items")
add("hostile2", "\\boxed{" + ",".join([f"\\sin({i}x)" for i in range(1, 250)]) + "}",
    ",".join([f"\\sin({i}x)" for i in range(249, 0, -1)]), True, "249 trig expressions reversed")
add("hostile2", "\\boxed{" + ",".join([f"\\sin(10^{{4000}}+{i})" for i in range(30)]) + "}",
    ",".join([f"\\sin(10^{{4000}}+{i})" for i in reversed(range(30))]), True, "30 huge-argument sines reversed")
add("hostile2", "\\boxed{\\sin(10^{99999})+\\sin(10^{99998})+\\sin(10^{99997})+\\sin(10^{99996})}", "1", False,
    "four huge-argument sines")
add("hostile2", "\\boxed{" + "+".join([f"\\sin(10^{{{99999 - i}}})" for i in range(30)]) + "}", "1", False,
    "thirty huge-argument sines")
add("hostile2", "The answer is " + "1" * 5000, "1", False, "5000-digit phrase")
add("hostile2", "$" + "x" * 4000 + "$", "x", False, "4000 x")
add("hostile2", "\\boxed{" + "(" * 60 + "x" + ")" * 60 + "}", "x", True, "60 parens")
add("hostile2", "\\boxed{" + "(" * 70 + "x" + ")" * 70 + "}", "x", True, "70 parens (beyond nesting 64)")
add("hostile2", "\\boxed{" + "\\frac{1}{" * 40 + "2" + "}" * 40 + "}", "2", True, "40 nested reciprocals: even count -> 2")

if __name__ == "__main__":
    import pathlib
    out = pathlib.Path(__file__).resolve().parents[3] / "tests/data/grading/trial_targeted.jsonl"
    with out.open("w") as f:
        for i, c in enumerate(CASES):
            c["id"] = 10000 + i
            # Kept: cases with a stated verdict and under 4 KB (the huge hostile ones are unit tests).
            if c.get("truth") is not None and len(str(c["answer"])) + len(str(c["reference"])) <= 4096:
                f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(len(CASES), "cases")
