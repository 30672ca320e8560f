//! The grade tool's `ToolSpec`: params and result schemas, examples, and the notes in `grade.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The grade tool's spec.
pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "grade".into(),
        description: "Grades a final answer against a reference, as a reward function does. Extracts the answer from \
            model text (the last \\boxed{...}, else after 'final answer' / 'the answer is', else the last $...$ span, else \
            the whole text if it is mathematics, else its last number) and decides equality: numbers exactly (1/2 = 0.5 = \
            \\frac{1}{2} = 50%), irrational values by Ziv's test (2\\sqrt{2} = \\sqrt{8}, e^{200} != e^{200}+1), decimals written to 6 or more \
            significant digits as roundings (0.333333 = 1/3), expressions in variables by identity at seeded points \
            ((x-1)(x+1) = x^2-1), equations up to a constant factor, sets, tuples and intervals by their items, \
            quantities with units through the unit converter (1 km = 1000 m), choice letters ((B), b), Answer: B) and \
            words (Yes = yes). Never fails on what the answer says: an unreadable answer is graded false with `why`."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "answer": {"type": ["string", "number"], "description": "The model's answer or its whole output; the final answer is extracted from it."},
                "reference": {"type": ["string", "number"], "description": "The reference answer (LaTeX or plain text; a \\boxed{} in it is used)."},
                "kind": {"type": "string", "enum": ["auto", "math", "choice", "units", "text"], "description": "How to compare (default auto: a choice letter, words, a quantity with a unit, else mathematics, decided from the reference)."},
                "rel_tol": {"type": "number", "minimum": 0, "description": "Relative tolerance for numbers (default 0: exact, besides roundings)."},
                "abs_tol": {"type": "number", "minimum": 0, "description": "Absolute tolerance for numbers (default 0)."},
                "rounded_digits": {"type": "integer", "minimum": 0, "maximum": 50, "description": "A decimal written with at least this many significant digits is accepted when it is the other value rounded to its places (default 6; 0: never)."}
            },
            "required": ["answer", "reference"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "correct": {"type": "boolean", "description": "Whether the answer equals the reference."},
                "method": {"type": "string", "description": "How it was decided: exact, equal, rounded, tolerance, identity, identical, equation, assignment (`x = 2` against 2), equation_rhs (`17 * 23 = 391` against 391), percent, set, tuple, interval, units, number_in_reference_unit, number_without_unit, choice, text, structure, none (the answer gives nothing to compare) or reference_unreadable."},
                "extracted": {"type": "string", "description": "The final answer found in `answer`."},
                "extracted_from": {"type": "string", "enum": ["boxed", "phrase", "math", "whole", "last_number"], "description": "Where it was found."},
                "normalized": {"type": "object", "description": "Both sides as compared: `answer` and `reference` in the expression language (`(1)/(2)`, `2*sqrt(2)`), a letter, words, or a quantity."},
                "why": {"type": "string", "description": "Why an incorrect answer is incorrect (the values compared, the item that differs, what did not read)."}
            },
            "required": ["correct", "method", "extracted", "extracted_from"],
            "additionalProperties": false
        }),
        examples: vec![
            Example {
                params: json!({"answer": "so the probability is \\boxed{\\frac{1}{2}}", "reference": "0.5"}),
                result: json!({"correct": true, "method": "exact", "extracted": "\\frac{1}{2}", "extracted_from": "boxed", "normalized": {"answer": "(1/2)", "reference": "0.5"}}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"answer": "$x^2-1$", "reference": "(x-1)(x+1)"}),
                result: json!({"correct": true, "method": "identity", "extracted": "x^2-1", "extracted_from": "math", "normalized": {"answer": "x^2-1", "reference": "(x-1)*(x+1)"}}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"answer": "The answer is (C).", "reference": "B"}),
                result: json!({"correct": false, "method": "choice", "extracted": "C", "extracted_from": "phrase", "normalized": {"answer": "C", "reference": "B"}, "why": "C against B"}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
        ],
        notes: include_str!("grade.md").into(),
    }
}
