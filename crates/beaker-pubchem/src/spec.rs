//! The `pubchem` tool's `ToolSpec`: params and result schemas, examples (`examples.json`) and the notes in
//! `pubchem.md`.

use crate::{MAX_IDENTIFIER_CHARS, MAX_SYNONYMS, PROPERTY_NAMES};
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The tool's spec.
pub(super) fn spec() -> ToolSpec {
    let measured = json!({
        "type": "object",
        "properties": {
            "value": {"type": "number"},
            "unit": {"type": "string"},
            "celsius": {"type": "number"},
            "temperature_K": {"type": "number"},
            "source": {"type": "string"},
            "method": {"type": "string"}
        },
        "required": ["value", "source"]
    });
    ToolSpec {
        name: "pubchem".into(),
        description: "Look up a chemical compound offline (about 71,000 compounds with PubChem identifiers): \
            `compound` (identity: CID, CAS, formula, molecular weight, SMILES, InChI, IUPAC name), `properties` \
            (PubChem's property names plus MeltingPoint, BoilingPoint, Density, RefractiveIndex and flammability \
            data, each with its source), `structure` (SMILES, InChI, InChIKey), `safety` (flash point, \
            autoignition, flammability limits, IARC/NTP carcinogen listings, exposure limits) and `synonyms`. \
            The identifier may be a name, synonym, CAS number, CID, formula, SMILES, InChI or InChIKey. No GHS \
            hazard statements or 2-D drawings."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": ["compound", "properties", "structure", "safety", "synonyms"], "description": "What to return."},
                "identifier": {
                    "anyOf": [
                        {"type": "string", "minLength": 1, "maxLength": MAX_IDENTIFIER_CHARS},
                        {"type": "integer", "minimum": 1}
                    ],
                    "description": "The compound: a name or synonym (any case), CAS number (`50-78-2`), CID (`2244` or 2244), formula (`C9H8O4`), SMILES, `InChI=1S/...` or an InChIKey."
                },
                "properties": {"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 64, "description": format!("For `properties`: which (default all known). PubChem's names: {}; snake_case and older names (IsomericSMILES, CanonicalSMILES) are read too.", PROPERTY_NAMES.join(", "))},
                "namespace": {"enum": ["name", "cid", "cas", "smiles", "inchi", "inchikey", "formula"], "description": "Read the identifier only as this (default: recognised from its form)."},
                "max_synonyms": {"type": "integer", "minimum": 1, "maximum": MAX_SYNONYMS, "default": 20, "description": "For `synonyms`: how many to return."}
            },
            "required": ["operation", "identifier"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "cid": {"type": ["integer", "null"]},
                "cas": {"type": "string"},
                "name": {"type": ["string", "null"]},
                "iupac_name": {"type": ["string", "null"]},
                "formula": {"type": ["string", "null"]},
                "molecular_weight": {"type": ["number", "null"]},
                "smiles": {"type": ["string", "null"]},
                "inchi": {"type": ["string", "null"]},
                "inchikey": {"type": ["string", "null"]},
                "read_as": {"type": "string", "description": "How the identifier was read: CID, CAS number, name, formula, SMILES, InChI, InChIKey, element, ..."},
                "properties": {"type": "object", "additionalProperties": {"type": "object", "required": ["value", "source"]}},
                "missing": {"type": "array", "items": {"type": "string"}, "description": "Properties asked for that the tables do not have for this compound."},
                "synonyms": {"type": "array", "items": {"type": "string"}},
                "count": {"type": "integer"},
                "flash_point": measured,
                "autoignition_temperature": measured,
                "lower_flammability_limit": measured,
                "upper_flammability_limit": measured,
                "carcinogen": {"type": "object"},
                "exposure_limits": {"type": "object"},
                "note": {"type": "string"},
                "ambiguous": {"type": "boolean", "description": "The formula names several compounds: they are in `candidates`."},
                "candidates": {"type": "array", "items": {"type": "object"}},
                "source": {"type": "string"}
            },
            "additionalProperties": false
        }),
        examples: examples(),
        notes: include_str!("pubchem.md").into(),
    }
}

fn examples() -> Vec<Example> {
    // An example's `elided` keys default to none (`Example`'s serde default).
    serde_json::from_str(include_str!("examples.json")).unwrap_or_default()
}
