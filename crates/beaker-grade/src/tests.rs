use super::Grade;
use beaker_core::{CallContext, Limits, Tool};
use proptest::prelude::*;
use serde_json::{json, Value};

fn grade(params: Value) -> Value {
    Grade::new()
        .call(&params, &CallContext::new(Limits::default()))
        .expect("grade answers")
}

/// (correct, method) for an answer against a reference with default settings.
fn verdict(answer: &str, reference: &str) -> (bool, String) {
    let out = grade(json!({"answer": answer, "reference": reference}));
    (
        out["correct"].as_bool().expect("correct is a boolean"),
        out["method"]
            .as_str()
            .expect("method is a string")
            .to_string(),
    )
}

#[track_caller]
fn yes(answer: &str, reference: &str, method: &str) {
    assert_eq!(
        verdict(answer, reference),
        (true, method.to_string()),
        "{answer} against {reference}"
    );
}

#[track_caller]
fn no(answer: &str, reference: &str) {
    let out = grade(json!({"answer": answer, "reference": reference}));
    assert_eq!(out["correct"], false, "{answer} against {reference}: {out}");
    assert!(out["why"].is_string(), "an incorrect grade says why: {out}");
}

#[test]
fn extraction_prefers_box_then_phrase_then_math_then_whole_then_last_number() {
    let from = |a: &str| grade(json!({"answer": a, "reference": "7"}));
    let out = from("First $x = 3$, so \\boxed{7}. Then 9.");
    assert_eq!(
        (out["extracted"].as_str(), out["extracted_from"].as_str()),
        (Some("7"), Some("boxed"))
    );
    let out = from("We get 3 and then 5. The final answer is 7.");
    assert_eq!(
        (out["extracted"].as_str(), out["extracted_from"].as_str()),
        (Some("7"), Some("phrase"))
    );
    let out = from("So she has $7$ apples.");
    assert_eq!(out["extracted_from"], "math");
    let out = from("\\frac{14}{2}");
    assert_eq!(
        (out["correct"].as_bool(), out["extracted_from"].as_str()),
        (Some(true), Some("whole"))
    );
    let out = from("Adding 3 and 4 gives 7 apples in total");
    assert_eq!(
        (out["extracted"].as_str(), out["extracted_from"].as_str()),
        (Some("7"), Some("last_number"))
    );
    // The outermost of nested boxes, and the last box when there are several.
    yes("\\boxed{\\boxed{7}}", "7", "exact");
    yes("\\boxed{3} no wait\n\\fbox{7}", "7", "exact");
    // Boxes on the final answer's line are its items.
    no("The roots are \\boxed{2} and \\boxed{3}.", "3");
    yes(
        "The roots are \\boxed{2} and \\boxed{3}.",
        "\\{2, 3\\}",
        "set",
    );
    // A box whose braces never close is no box.
    no("\\boxed{7", "8");
}

#[test]
fn numbers_are_exact_across_forms() {
    yes("\\frac{1}{2}", "0.5", "exact");
    yes("\\dfrac12", "1/2", "exact");
    yes("1,000,000", "1000000", "exact");
    yes("1{,}000", "1000", "exact");
    yes("-3.0", "-3", "exact");
    yes("1.5 \\times 10^{3}", "1500", "exact");
    yes("2.5e-7", "2.5 \\cdot 10^{-7}", "exact");
    yes("\\binom{5}{2}", "10", "exact");
    yes("5!", "120", "exact");
    no("0.33", "1/3");
    no("2/4", "1/4");
}

#[test]
fn irrational_values_agree_to_sixty_digits() {
    yes("2\\sqrt{2}", "\\sqrt{8}", "equal");
    yes("\\ln(e^{2})", "2", "equal");
    yes("\\frac{\\pi}{4}", "0.25\\pi", "equal");
    yes("\\sqrt[3]{27}", "3", "exact");
    yes("\\sqrt[3]{2}^3", "2", "equal");
    yes("\\sin^2 x + \\cos^2 x", "1", "identity");
    no("\\sqrt{3}", "\\sqrt{2}");
    // 1e-20 apart is not the same number.
    no("\\pi + 10^{-20}", "\\pi");
}

#[test]
fn roundings_need_enough_digits_and_can_be_turned_off() {
    yes("0.333333", "1/3", "rounded");
    yes("0.666667", "\\frac{2}{3}", "rounded");
    yes("1.41421", "\\sqrt{2}", "rounded");
    no("1.4142", "\\sqrt{2}");
    no("3.14", "\\pi");
    // The rounding must be right in its last place.
    no("0.333334", "1/3");
    let off = grade(json!({"answer": "0.333333", "reference": "1/3", "rounded_digits": 0}));
    assert_eq!(off["correct"], false);
    let fewer = grade(json!({"answer": "3.14", "reference": "\\pi", "rounded_digits": 3}));
    assert_eq!(
        (fewer["correct"].as_bool(), fewer["method"].as_str()),
        (Some(true), Some("rounded"))
    );
}

#[test]
fn tolerances_are_honoured() {
    let g = |tol: Value| {
        grade(json!({"answer": "9.9", "reference": "9.81", "rel_tol": tol}))["correct"].clone()
    };
    assert_eq!(g(json!(0.01)), true);
    assert_eq!(g(json!(0.001)), false);
    let abs = grade(json!({"answer": "1.04", "reference": "1", "abs_tol": 0.05}));
    assert_eq!(
        (abs["correct"].as_bool(), abs["method"].as_str()),
        (Some(true), Some("tolerance"))
    );
    let abs = grade(json!({"answer": "1.06", "reference": "1", "abs_tol": 0.05}));
    assert_eq!(abs["correct"], false);
}

#[test]
fn expressions_by_identity_at_seeded_points() {
    yes("x^2-1", "(x-1)(x+1)", "identity");
    yes("\\frac{1}{x}+\\frac{1}{y}", "\\frac{x+y}{xy}", "identity");
    yes("(a+b)^2", "a^2+2ab+b^2", "identity");
    yes("\\sin 2x", "2\\sin x \\cos x", "identity");
    yes("sin 2x", "2 sin x cos x", "identity");
    yes("\\sqrt{x^2}", "|x|", "identity");
    yes("\\lvert x \\rvert^2", "x^2", "identity");
    yes("e^{\\ln x}", "x", "identity");
    yes("\\log_2 x", "\\frac{\\ln x}{\\ln 2}", "identity");
    yes("x_1 + x_2", "x_2 + x_1", "identity");
    yes("\\alpha\\beta", "\\beta \\cdot \\alpha", "identity");
    // Negative points are sampled: |x| is not x, sqrt(x^2) is not x.
    no("|x|", "x");
    no("\\sqrt{x^2}", "x");
    no("x^2+1", "(x+1)^2");
    no("x", "y");
    // Defined nowhere real: nothing to compare by value, but written alike.
    yes("\\sqrt{-1-x^2}", "\\sqrt{-1-x^2}", "identical");
    no("\\sqrt{-1-x^2}", "\\sqrt{-2-x^2}");
}

#[test]
fn equations_assignments_percentages_and_structures() {
    yes("x = 2", "2", "assignment");
    yes("17 * 23 = 391", "391", "equation_rhs");
    no("17 * 23 = 381", "391");
    // A sentence is not mathematics: its last number is the answer.
    let out = grade(json!({"answer": "So 17 * 23 = 391.", "reference": "391"}));
    assert_eq!(
        (out["correct"].as_bool(), out["extracted_from"].as_str()),
        (Some(true), Some("last_number"))
    );
    yes("It is 12", "12", "exact");
    yes("2", "x=2", "assignment");
    yes("y = 2x + 1", "2x - y + 1 = 0", "equation");
    yes("2y = 4x + 2", "y = 2x + 1", "equation");
    no("x + y = 1", "x + y = 2");
    no("x = 4", "3");
    yes("25\\%", "0.25", "percent");
    yes("25%", "25", "percent");
    yes("0.25", "25\\%", "percent");
    no("30%", "0.25");
    yes("\\{1, 2, 3\\}", "\\{3, 2, 1\\}", "set");
    yes("1, 2, 3", "\\{3,2,1\\}", "set");
    yes("x = -1, 2", "2, -1", "set");
    no("\\{1, 2\\}", "\\{1, 2, 3\\}");
    yes("(2, 3)", "(2,3)", "tuple");
    no("(3, 2)", "(2, 3)");
    yes("x=1, y=2", "(1, 2)", "tuple");
    yes("[0, 1)", "[0,1)", "interval");
    yes("(-\\infty, 2]", "(-\\infty,2]", "interval");
    yes("x \\in [1, \\infty)", "[1, \\infty)", "interval");
    no("(0, 1]", "[0, 1]");
    no("(-\\infty, 2)", "(\\infty, 2)");
    no("\\{1, 2\\}", "(1, 2)");
}

#[test]
fn quantities_convert_through_the_unit_engine() {
    yes("1 km", "1000 m", "units");
    yes("60 km/h", "16.6667 m/s", "units");
    yes("100 \\text{ J}", "0.1 kJ", "units");
    yes("The speed is 9.81 \\text{ m/s}^2", "9.81 m/s^2", "units");
    yes("273.15 K", "0 \\degree C", "units");
    yes("1 atm", "101.325 kPa", "units");
    no("5 N", "5 kg");
    no("3 m", "3 cm");
    // A bare number is read in the reference's unit.
    yes("1000", "1000 m", "number_in_reference_unit");
    no("1", "1000 m");
    // A letter joined to a number is a product, not a unit: 2e is 2·e.
    yes("2e", "e + e", "equal");
}

#[test]
fn choices_and_words() {
    for a in [
        "(B)",
        "B",
        "b)",
        "The answer is (B).",
        "\\boxed{B}",
        "Answer: B",
        "\\boxed{\\text{(B)}}",
        "So the answer is option B.",
        "**Answer:** **B**",
        "\\boxed{\\textbf{(B)}\\ 14}",
        "\\boxed{B. 12}",
        "The correct option is B.",
        "I choose B.",
    ] {
        yes(a, "B", "choice");
    }
    yes("(C)", "\\text{C}", "choice");
    no("(A)", "B");
    no("a", "A"); // the article, not a choice
    no("I am not sure", "B");
    // A letter mentioned in running text is not the answer; a pronoun or an article is not a letter.
    no(
        "Let's check each option. (A) is too small. (B) is too large.",
        "B",
    );
    no("Answer: I believe it is (C).", "I");
    no("Answer: A and C", "A");
    yes("Yes", "yes", "text");
    yes("No.", "no", "text");
    yes("\\text{even}", "even", "text");
    yes("\\boxed{\\text{Paris}}", "Paris", "text");
    no("yes", "no");
    let forced = grade(json!({"answer": "ab", "reference": "ab", "kind": "text"}));
    assert_eq!(forced["method"], "text");
}

#[test]
fn params_are_checked() {
    let call = |p: Value| Grade::new().call(&p, &CallContext::new(Limits::default()));
    for bad in [
        json!({"answer": "1"}),
        json!({"reference": "1"}),
        json!({"answer": ["1"], "reference": "1"}),
        json!({"answer": "1", "reference": "1", "kind": "fuzzy"}),
        json!({"answer": "1", "reference": "1", "rel_tol": -1}),
        json!({"answer": "1", "reference": "1", "rounded_digits": 51}),
        json!({"answer": "1", "reference": "2 + 3", "kind": "choice"}),
        json!({"answer": "1", "reference": "2", "kind": "units"}),
    ] {
        let e = call(bad.clone()).expect_err("refused");
        assert_eq!(
            e.kind,
            beaker_core::ErrorKind::InvalidParams,
            "{bad}: {e:?}"
        );
    }
    // Numbers are read as the text they were written as.
    let out = grade(json!({"answer": "\\boxed{42}", "reference": 42}));
    assert_eq!(out["correct"], true);
}

#[test]
fn degenerate_answers_are_graded_false_never_errors() {
    let long = "x".repeat(5000);
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let braces = format!("\\boxed{{{}", "{".repeat(100_000));
    let boxes = "\\boxed{".repeat(50_000);
    for a in [
        "",
        "\\boxed{",
        "\\frac{1}{0}",
        "10^{10^{10}}",
        &long,
        "\\sqrt{-1}",
        "}}}}",
        "NaN",
        "inf",
        "1/0",
        &deep,
        &braces,
        &boxes,
        "\\frac",
        "x^",
        "|x",
        "\u{0}",
        "\\boxed{}",
        "$$",
        "((",
        "\\left(\\right)",
        "1e999999999",
        "0^{-1}",
    ] {
        let out = grade(json!({"answer": a, "reference": "3"}));
        assert_eq!(out["correct"], false, "{}: {out}", &a[..a.len().min(40)]);
    }
    yes("((((((((((3))))))))))", "3", "exact");
}

#[test]
fn the_time_limit_applies() {
    let set: Vec<String> = (0..400).map(|i| format!("x+{i}")).collect();
    let answer = format!("\\{{{}\\}}", set.join(", "));
    let ctx = CallContext::new(Limits::default());
    // The watchdog's work: the deadline has passed.
    ctx.cancel.cancel(beaker_core::CancelReason::Timeout);
    let e = Grade::new()
        .call(&json!({"answer": answer, "reference": answer}), &ctx)
        .expect_err("stops at its deadline");
    assert_eq!(e.kind, beaker_core::ErrorKind::Timeout);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Any text, graded against any reference: an answer, never a panic.
    #[test]
    fn any_text_is_graded(answer in "[ -~\\\\{}$]{0,80}", reference in "[0-9a-zA-Z\\\\{}()\\[\\],.=%^ +-/]{1,30}") {
        let out = Grade::new().call(&json!({"answer": answer, "reference": reference}), &CallContext::new(Limits::default()));
        if let Ok(v) = out {
            prop_assert!(v["correct"].is_boolean());
        }
    }

    /// Any Unicode, mixed with the characters the reader treats specially: a verdict, never a panic (a byte
    /// offset inside a multi-byte character once was one).
    #[test]
    fn any_unicode_is_graded(parts in proptest::collection::vec(prop_oneof![
        "\\PC{0,6}",
        prop::sample::select(vec![
            "−", "°", "√", "π", "²", "½", "θ", "∈", "∪", "±", "\\pm", "\\cup", "$", "\\$", " or ", "_2",
            "\\overline{3}", "\\frac{1}{2}", "^\\circ", "\\boxed{", "}", "1",
        ]).prop_map(str::to_string),
    ], 0..16), reference in prop_oneof![Just("3"), Just("B"), Just("yes"), Just("1 km"), Just("x^2"), Just("\\{1,2\\}")]) {
        let a: String = parts.concat();
        let out = Grade::new().call(&json!({"answer": a, "reference": reference}), &CallContext::new(Limits::default()));
        prop_assert!(out.is_ok_and(|v| v["correct"].is_boolean()));
    }

    /// LaTeX-shaped fragments: a verdict, never a panic, and an answer always equals itself unless it is
    /// unreadable.
    #[test]
    fn latex_fragments_equal_themselves(parts in proptest::collection::vec(prop_oneof![
        Just("\\frac{"), Just("}{"), Just("}"), Just("\\sqrt{"), Just("x"), Just("2"), Just("^"), Just("+"),
        Just("\\pi"), Just("("), Just(")"), Just("\\cdot "), Just("\\sin "), Just("|"), Just("!"), Just("\\{"),
        Just(","), Just("="), Just("\\%"), Just("_1"), Just("\\left("), Just("\\right)"), Just("e"), Just("."),
    ], 0..24)) {
        let a: String = parts.concat();
        let v = grade(json!({"answer": format!("\\boxed{{{a}}}"), "reference": "3"}));
        prop_assert!(v["correct"].is_boolean());
        let same = grade(json!({"answer": format!("\\boxed{{{a}}}"), "reference": format!("\\boxed{{{a}}}")}));
        if same["correct"] == false {
            prop_assert!(same["why"].is_string());
        }
    }
}

#[test]
fn forms_math_answers_take() {
    // Mixed numbers, in LaTeX and plain text; other numbers side by side do not read.
    yes("2\\frac{1}{2}", "\\frac52", "exact");
    yes("-1\\tfrac12", "-1.5", "exact");
    yes("2 1/2", "5/2", "exact");
    no("2\\frac{1}{2}", "1");
    no("3 4", "12");
    // Several answers: `or`, `and`, `\pm` (anywhere in the answer), unions, the empty set.
    no("x=5 \\text{ or } x=-3", "-3");
    yes("x=5 \\text{ or } x=-3", "-3, 5", "set");
    yes(
        "\\frac{-1 \\pm \\sqrt{5}}{2}",
        "\\frac{-1+\\sqrt5}{2}, \\frac{-1-\\sqrt5}{2}",
        "set",
    );
    yes("\\pm 2", "2, -2", "set");
    yes(
        "(-\\infty,1)\\cup(2,\\infty)",
        "(2,\\infty) \\cup (-\\infty, 1)",
        "set",
    );
    no("(-\\infty,1)\\cup(2,\\infty)", "2");
    yes("\\emptyset", "\\{\\}", "set");
    yes("\\{\\{1,2\\},\\{3\\}\\}", "\\{\\{3\\},\\{2,1\\}\\}", "set");
    // Money, bases, repeating decimals, functions of LaTeX.
    yes("\\$18.90", "18.9", "exact");
    yes("The answer is $48.", "48", "exact");
    no("The final balance is -$25.", "25");
    yes("1010_2", "10", "exact");
    yes("0.\\overline{3}", "\\frac13", "exact");
    yes("0.1\\overline{6}", "\\frac16", "exact");
    yes("\\lfloor 7.5 \\rfloor", "7", "exact");
    yes("\\gcd(12, 18)", "6", "exact");
    yes("\\operatorname{lcm}(4, 6)", "12", "exact");
    no("\\max(3, 8)", "3");
    // Degrees are a number alone and radians inside a function; the real cube root of a negative.
    yes("30^\\circ", "30", "exact");
    yes("\\sin 30^\\circ", "\\frac12", "exact");
    yes("\\tan 45^\\circ", "1", "exact");
    yes("\\sqrt[3]{-8}", "-2", "exact");
    // Unicode a model writes.
    yes("−5", "-5", "exact");
    yes("x²", "x^2", "identity");
    yes("½", "0.5", "exact");
    yes("θ", "\\theta", "identity");
}

#[test]
fn irrational_equality_is_decided_by_precision_not_a_threshold() {
    // Ziv's test: a real difference, however small, stays when the precision doubles; a residue shrinks.
    no("e^{200}", "e^{200}+1");
    no("\\sqrt{10^{100}+1}", "10^{50}");
    no("\\sin(10^{-70})", "10^{-70}");
    no("\\pi + 10^{-100}", "\\pi");
    yes("\\sqrt{8}-2\\sqrt{2}", "0", "equal");
    yes("\\ln 2+\\ln 3-\\ln 6", "0", "equal");
    yes("\\sin^2(1) + \\cos^2(1) - 1", "0", "equal");
    // Identity testing is not fooled by a small constant or a region the points miss.
    no("10^{10}x+1", "10^{10}x");
    no("\\frac{x}{10^{12}}+10^{-10}", "\\frac{x}{10^{12}}");
    no("|x-5|", "5-x");
    yes("\\sqrt{x-5}", "\\sqrt{x-5}", "identity");
    yes("\\sqrt{(x-5)^2}", "|x-5|", "identity");
    yes("\\binom{n}{2}", "\\frac{n(n-1)}{2}", "identity");
    yes("n!", "n \\cdot (n-1)!", "identity");
}

#[test]
fn sentences_and_units_around_answers() {
    yes("#### 72", "72", "exact");
    yes(
        "Natalia sold 48 clips in April.\n#### 72\n\nNote: this took 3 steps.",
        "72",
        "exact",
    );
    yes("**Final Answer:** 72", "72", "exact");
    yes("**Final Answer**\n\n72", "72", "exact");
    yes("The answer is **72**.", "72", "exact");
    yes("The answer is 72 clips.", "72", "exact");
    yes("The answer is 1,250 people.", "1250", "exact");
    yes("The answer is 12, since 3*4=12.", "12", "exact");
    yes("## Final Answer\nThe total is 12 apples.", "12", "exact");
    no("The answer is either 12 or 13.", "13");
    yes(
        "He earns $10 per hour and works 4 hours, so he earns 10 * 4 = $40.",
        "40",
        "exact",
    );
    // Mathematics that does not read is never graded by a number picked out of it.
    no("x \\geq 2", "2");
    no("\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "2");
    // A unit on the answer against a plain reference.
    yes("\\boxed{5 \\text{ cm}}", "5", "number_without_unit");
    yes(
        "\\boxed{64\\pi \\text{ cm}^3}",
        "64\\pi",
        "number_without_unit",
    );
    yes("1.5 \\times 10^3 \\text{ J}", "1500 J", "units");
    // Percentages: a reference below 1 is a fraction, not a number of percent.
    no("\\boxed{0.5\\%}", "0.5");
    yes("\\boxed{50\\%}", "0.5", "percent");
    no("The probability is 0.75%.", "0.75");
    // Assignments in either order, and to a function.
    yes("5 = x", "5", "assignment");
    yes("f(x) = 2x+1", "2x+1", "assignment");
    yes("Yes, it is possible.", "Yes", "text");
    // `\approx`: a name's approximate value, or an exact value with its rounding after it.
    yes("The answer is $x \\approx 2.5$", "2.5", "exact");
    yes(
        "The value is exactly $\\frac{\\sqrt{3}}{2} \\approx 0.866$.",
        "\\frac{\\sqrt3}{2}",
        "equal",
    );
    no("\\frac{\\sqrt{3}}{2} \\approx 0.866", "0.866");
    // A reference that never reads says so, apart from a wrong answer.
    let out = grade(json!({"answer": "1", "reference": "\\begin{pmatrix} 1 \\end{pmatrix}"}));
    assert_eq!(out["method"], "reference_unreadable", "{out}");
}

#[test]
fn comparisons_are_budgeted() {
    // 400 items against 400 others, none alike: past the budget, not correct, and quickly.
    let a: Vec<String> = (0..400).map(|i| format!("x+{i}")).collect();
    let b: Vec<String> = (0..400).map(|i| format!("x-{i}")).collect();
    let out = grade(
        json!({"answer": format!("\\{{{}\\}}", a.join(",")), "reference": format!("\\{{{}\\}}", b.join(","))}),
    );
    assert_eq!(out["correct"], false);
    // A set against itself reordered needs no pairwise comparison.
    let mut r = a.clone();
    r.reverse();
    let out = grade(
        json!({"answer": format!("\\{{{}\\}}", a.join(",")), "reference": format!("\\{{{}\\}}", r.join(","))}),
    );
    assert_eq!(
        (out["correct"].as_bool(), out["method"].as_str()),
        (Some(true), Some("set"))
    );
}

#[test]
fn rules_do_not_accept_wrong_answers() {
    // A worked computation must hold; a chain is judged by its last step.
    no("2+2 = 5", "5");
    no("\\boxed{12 = 2 \\cdot 6 = 13}", "13");
    no("\\boxed{x = 5 = 7}", "7");
    yes("x = 2 + 3 = 5", "5", "equation_rhs");
    no("e = 3", "3");
    // Words that change a number keep it from being read as that number.
    for a in [
        "\\boxed{5 \\text{ hundred}}",
        "3 million",
        "2 dozen",
        "5 squared",
        "\\boxed{0.5 \\text{ percent}}",
    ] {
        no(
            a,
            if a.starts_with('3') {
                "3"
            } else if a.starts_with('2') {
                "2"
            } else if a.contains("0.5") {
                "0.5"
            } else {
                "5"
            },
        );
    }
    yes("\\boxed{10 \\text{ percent}}", "0.1", "percent");
    // Prose that changes or doubts its number gives none.
    for a in [
        "The answer is definitely not 7.",
        "## Final Answer\nIt is not 7.",
        "The answer is at least 7.",
        "Therefore x > 7",
        "I think it's 6 or maybe 7",
        "## Final Answer\nThe value is \\sqrt{7}",
    ] {
        no(a, "7");
    }
    // A restatement in brackets is cut; a factor is not.
    no("The answer is 2 (x+1).", "2");
    yes("The final answer is 1/4 (0.25).", "\\frac14", "exact");
    // Several letters, or a denial, are no choice.
    for a in [
        "Answer: (B) is wrong, it is (C)",
        "The answer is (B), no wait, (C)",
        "The answer is not (B)",
        "\\boxed{B, C}",
        "The answer is \\boxed{A} or \\boxed{B}",
        "Answer: **B** is incorrect",
    ] {
        no(a, "B");
    }
    // Yes and no at once is neither.
    no("Yes and no", "yes");
    no("\\boxed{Yes} \\boxed{No}", "No");
    // `2½` is two and a half.
    yes("2½", "5/2", "exact");
    // Identity testing reaches negative, tiny and far values.
    no("|x+4|", "x+4");
    no("\\sqrt{x^2+8x+16}", "x+4");
    no("e^{-1000x^2}", "0");
    no("|x-41|", "41-x");
    // Ziv's test sees a difference that appears only past 512 bits.
    no("\\ln(1+10^{-200})", "0");
}

#[test]
fn an_angle_in_degrees_is_the_same_angle_in_radians() {
    yes(
        "\\boxed{\\frac{\\pi}{4}}",
        "45^\\circ",
        "degrees_as_radians",
    );
    yes("\\frac{2\\pi}{3}", "120°", "degrees_as_radians");
    yes("45^\\circ", "\\frac{\\pi}{4}", "degrees_as_radians");
    yes("45", "45^\\circ", "exact");
    no("\\frac{\\pi}{3}", "45^\\circ");
    no("\\frac{\\pi}{4}", "45");
}

#[test]
fn an_inequality_on_one_variable_is_an_interval() {
    yes("\\boxed{-2 < x < 3}", "(-2, 3)", "tuple");
    yes("-1 \\le x \\le 1", "[-1,1]", "interval");
    yes("3 \\geq x > -2", "(-2, 3]", "interval");
    yes("x \\geq 2", "[2,\\infty)", "interval");
    yes("5 > x", "(-\\infty, 5)", "tuple");
    no("-2 < x < 3", "[-2, 3]");
    no("-2 < x \\le 3", "(-2, 3)");
    no("x \\geq 2", "2");
    // Signs pointing both ways, or two variables, are no interval.
    no("1 < x > 3", "(1, 3)");
    no("x < y", "(-\\infty, y)");
}

#[test]
fn euler_at_whole_multiples_of_pi_is_real() {
    yes("\\boxed{e^{i\\pi}}", "-1", "exact");
    yes("e^{2\\pi i}", "1", "exact");
    yes("e^{-i\\pi} + 1", "0", "exact");
    no("e^{i\\pi}", "1");
    no("e^{i\\pi/2}", "-1");
}

#[test]
fn a_self_correction_takes_the_last_box_and_a_list_stays_a_list() {
    yes(
        "First \\boxed{3}, then correcting: \\boxed{4}",
        "4",
        "exact",
    );
    yes("\\boxed{5}. Wait, actually \\boxed{6}.", "6", "exact");
    no("First \\boxed{3}, then correcting: \\boxed{4}", "3, 4");
    yes("The roots are \\boxed{2} and \\boxed{3}.", "2, 3", "set");
    yes("First 5, then 7 more, so the total is 12.", "12", "exact");
    yes("Total: 99", "99", "exact");
}
