//! The `wolfram` tool's `ToolSpec`: params and result schemas, examples (`examples.json`) and the notes in
//! `wolfram.md`.

use crate::MAX_QUERY_CHARS;
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The tool's spec.
pub(super) fn spec() -> ToolSpec {
    ToolSpec {
        name: "wolfram".into(),
        description: "Answer one natural-language question offline: arithmetic and calculus (routed to \
            calculator and symbolic_math), unit conversions (unit_converter), physical constants (CODATA 2022), \
            astronomy (IAU nominal values; distances between the Sun, Moon and planets with their least, \
            time-averaged and greatest values from JPL's DE421), elements and compounds (chemistry, pubchem). \
            The result names the route taken and the source of every fact; a question it cannot read is \
            refused with what it can answer."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS, "description": "The question, e.g. \"distance from Earth to Mars\", \"integral of x^2 from 0 to 1\", \"60 mph to km/h\", \"Planck constant in eV s\"."},
                "format": {"enum": ["short", "full", "steps"], "default": "short", "description": "short: the answer and its source; full: also every call made, with its whole result; steps: also the steps (a definite integral's antiderivative, then its value)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The question as asked."},
                "interpretation": {"type": "string", "description": "What it was read as."},
                "kind": {"enum": ["compute", "convert", "data", "properties", "live"], "description": "Seed 003's query types (live: the WolframAlpha provider answered)."},
                "route": {"enum": ["calculator", "symbolic_math", "unit_converter", "chemistry", "pubchem", "codata", "iau", "ephemeris", "wolframalpha"], "description": "The tool or table that answered."},
                "value": {"type": "string", "description": "The answer, with its unit."},
                "number": {"type": "number", "description": "The answer as a number, when it is one."},
                "unit": {"type": "string", "description": "`number`'s unit."},
                "source": {"type": "string", "description": "Where the answer comes from."},
                "note": {"description": "What the answer assumes (a distance's range; a unit's reading)."},
                "name": {"type": "string", "description": "A fact's name in its table."},
                "exact": {"type": "boolean", "description": "A constant exact by definition."},
                "uncertainty": {"type": "string", "description": "A constant's standard uncertainty, as published."},
                "least": {"type": ["number", "null"]},
                "mean": {"type": ["number", "null"]},
                "greatest": {"type": ["number", "null"]},
                "latex": {"type": "string"},
                "derivative": {"type": "string", "description": "A derivative asked for at a point: the derivative itself."},
                "compound": {"type": ["string", "null"]},
                "celsius": {"type": "number"},
                "calls": {"type": "array", "description": "full and steps: each call made, with its params and result."},
                "steps": {"type": "array", "items": {"type": "string"}},
                "text": {"type": "string", "description": "The live provider's whole answer (full, steps)."}
            },
            "required": ["query", "kind", "route", "value", "source"]
        }),
        examples: examples(),
        notes: include_str!("wolfram.md").into(),
    }
}

fn examples() -> Vec<Example> {
    // Checked by the conformance suite; a malformed file shows there as a tool without examples.
    serde_json::from_str(include_str!("examples.json")).unwrap_or_default()
}
