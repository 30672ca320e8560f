//! The `chemistry` tool's `ToolSpec`: params and result schemas, examples, and the notes in `chemistry.md`.

use beaker_core::operations::example;
use beaker_core::ToolSpec;
use serde_json::json;

/// The chemistry tool's spec.
pub(super) fn spec() -> ToolSpec {
    let quantity = |what: &str| json!({"type": ["number", "string"], "description": what});
    // A number or a numeric string (`"1.8e-5"`), as the tool's other numbers; a list for a polyprotic acid.
    let constant = |what: &str| json!({"anyOf": [{"type": ["number", "string"]}, {"type": "array", "items": {"type": ["number", "string"]}, "minItems": 1, "maxItems": 10}], "description": what});
    let amount = json!({"anyOf": [
        {"type": "object", "properties": {"mass": {"type": ["number", "string"]}, "moles": {"type": ["number", "string"]}}, "additionalProperties": false},
        {"type": "string"}
    ]});
    ToolSpec {
        name: "chemistry".into(),
        description: "Chemistry with exact methods: molar_mass (formula with brackets, hydrates CuSO4·5H2O, \
            charges SO4^2-), balance (smallest integer coefficients by an exact null space; ions and e- allowed), \
            stoichiometry and limiting_reagent (masses or moles), ph (strong, weak and polyprotic acids and bases \
            by the full charge balance incl. water: 1e-8 M HCl is pH 6.98), buffer, dilution, molarity, \
            ideal_gas, empirical_formula and element (weight, group, electronegativity, configuration). \
            Quantities are numbers (g, mol, L, mol/L, Pa, K) or strings with units (\"500 mL\", \"25 degC\", \
            \"1 atm\"). Atomic weights are IUPAC/CIAAW standard values."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": ["molar_mass", "balance", "stoichiometry", "limiting_reagent", "ph", "buffer", "dilution", "molarity", "ideal_gas", "empirical_formula", "element"], "description": "What to compute; each operation reads only its own keys."},
                "formula": {"type": "string", "maxLength": 1000, "description": "A chemical formula: `Ca3(PO4)2`, `K4[Fe(CN)6]`, `CuSO4·5H2O`, `SO4^2-`, `NH4^+`, `Fe³⁺`, `H₂O`."},
                "equation": {"type": "string", "maxLength": 10000, "description": "A reaction: species joined by ` + `, sides by `->`, `=`, `→` or `<=>` (`C3H8 + O2 -> CO2 + H2O`)."},
                "given": {"type": "object", "properties": {"substance": {"type": "string"}, "mass": {"type": ["number", "string"]}, "moles": {"type": ["number", "string"]}}, "required": ["substance"], "additionalProperties": false, "description": "stoichiometry: the known substance and its mass (g) or moles."},
                "find": {"type": "string", "description": "stoichiometry: the substance to compute."},
                "amounts": {"type": "object", "additionalProperties": amount, "description": "limiting_reagent: reactant → {\"mass\": g} or {\"moles\": mol} or \"10 g\"."},
                "concentration": quantity("ph: the formal concentration (mol/L)."),
                "type": {"enum": ["acid", "base"], "description": "ph: an acid or a base."},
                "strong": {"type": "boolean", "description": "ph: a strong (fully dissociated) acid or base; default: true unless a constant is given."},
                "ka": constant("Acid dissociation constant(s), Ka1, Ka2, ... for polyprotic acids."),
                "pka": constant("pKa value(s), instead of ka."),
                "kb": constant("Base constant(s)."),
                "pkb": constant("pKb value(s), instead of kb."),
                "equivalents": {"type": "integer", "minimum": 1, "maximum": 10, "description": "ph, strong only: H+ or OH- per formula unit (2 for Ba(OH)2)."},
                "temperature": quantity("Temperature (K, or \"25 degC\"): Kw for ph and buffer; T for ideal_gas."),
                "acid_concentration": quantity("buffer: the weak acid (mol/L)."),
                "base_concentration": quantity("buffer: its conjugate base (mol/L)."),
                "c1": quantity("dilution: initial concentration (mol/L)."),
                "v1": quantity("dilution: initial volume (L)."),
                "c2": quantity("dilution: final concentration (mol/L)."),
                "v2": quantity("dilution: final volume (L)."),
                "molarity": quantity("molarity: concentration (mol/L)."),
                "volume": quantity("Volume (L, or \"500 mL\")."),
                "moles": quantity("Amount of substance (mol)."),
                "mass": quantity("Mass (g, or \"2.5 kg\"); needs `formula`."),
                "pressure": quantity("ideal_gas: pressure (Pa, or \"1 atm\")."),
                "composition": {"type": "object", "additionalProperties": {"type": "number"}, "description": "empirical_formula: element symbol → mass percent (or grams)."},
                "molar_mass": quantity("empirical_formula: the compound's molar mass (g/mol), for the molecular formula."),
                "symbol": {"type": "string", "description": "element: a symbol (`Fe`)."},
                "name": {"type": "string", "description": "element: a name (`iron`)."},
                "number": {"type": "integer", "description": "element: an atomic number."}
            },
            "required": ["operation"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "description": "Keys depend on the operation (see the notes); amounts in mol, masses in g, volumes in L (ideal_gas: m³ and L), concentrations in mol/L, pressures in Pa, temperatures in K.",
            "properties": {
                "molar_mass": {"type": "number"},
                "coefficients": {"type": "array", "items": {"type": "integer"}},
                "balanced": {"type": "string"},
                "pH": {"type": "number"},
                "notes": {"type": "array", "items": {"type": "string"}}
            }
        }),
        examples: vec![
            example(
                json!({"operation": "balance", "equation": "C3H8 + O2 -> CO2 + H2O"}),
                json!({"coefficients": [1, 5, 3, 4], "balanced": "C3H8 + 5 O2 -> 3 CO2 + 4 H2O",
                    "reactants": [{"species": "C3H8", "coefficient": 1}, {"species": "O2", "coefficient": 5}],
                    "products": [{"species": "CO2", "coefficient": 3}, {"species": "H2O", "coefficient": 4}]}),
            ),
            example(
                json!({"operation": "ph", "concentration": 0.1, "type": "acid", "ka": 1.8e-5}),
                json!({"pH": 2.8752770603192666, "pOH": 11.124722939680733, "H+_concentration": 0.0013326709768550068,
                    "OH-_concentration": 7.503727606944042e-12, "pKw": 14.0, "approximate_pH": 2.8723637474483468, "approximation_valid": true,
                    "percent_ionization": 1.3326709693512684}),
            ),
            example(
                json!({"operation": "molar_mass", "formula": "CuSO4·5H2O"}),
                json!({"formula": "CuSO4·5H2O", "hill_formula": "CuH10O9S", "molar_mass": 249.677, "unit": "g/mol", "charge": 0,
                    "composition": {"Cu": {"count": 1, "mass": 63.546, "mass_fraction": 0.2545128305771056},
                        "H": {"count": 10, "mass": 10.08, "mass_fraction": 0.04037216083179468},
                        "O": {"count": 9, "mass": 143.991, "mass_fraction": 0.5767091081677528},
                        "S": {"count": 1, "mass": 32.06, "mass_fraction": 0.12840590042334699}}}),
            ),
            example(
                json!({"operation": "stoichiometry", "equation": "C3H8 + O2 -> CO2 + H2O", "given": {"substance": "C3H8", "mass": "44 g"}, "find": "H2O"}),
                json!({"balanced": "C3H8 + 5 O2 -> 3 CO2 + 4 H2O", "coefficients": [1, 5, 3, 4], "given": {"substance": "C3H8", "moles": 0.9978003038755471, "mass": 44.0, "molar_mass": 44.097}, "find": {"substance": "H2O", "moles": 3.9912012155021883, "mass": 71.90148989727193, "molar_mass": 18.015}}),
            ),
            example(
                json!({"operation": "limiting_reagent", "equation": "N2 + H2 -> NH3", "amounts": {"N2": "28 g", "H2": "4 g"}}),
                json!({"balanced": "N2 + 3 H2 -> 2 NH3", "coefficients": [1, 3, 2], "limiting_reagent": "H2", "extent": 0.6613756613756614, "reactants": {"N2": {"moles": 0.9995002498750625, "mass": 28.0, "moles_used": 0.6613756613756614, "mass_used": 18.52777777777778, "moles_left": 0.3381245884994011, "mass_left": 9.472222222222221}, "H2": {"moles": 1.9841269841269842, "mass": 4.0, "moles_used": 1.9841269841269842, "mass_used": 4.0, "moles_left": 0.0, "mass_left": 0.0}}, "theoretical_yield": {"NH3": {"moles": 1.3227513227513228, "mass": 22.52777777777778}}}),
            ),
            example(
                json!({"operation": "buffer", "acid_concentration": 0.1, "base_concentration": 0.2, "pka": 4.76}),
                json!({"pH": 5.061086585817822, "pOH": 8.938913414182178, "H+_concentration": 8.687872008600883e-06, "OH-_concentration": 1.1510298482873743e-09, "henderson_hasselbalch": 5.061029995663981}),
            ),
            example(
                json!({"operation": "dilution", "c1": "1 M", "v1": "50 mL", "v2": "250 mL"}),
                json!({"c1": 1.0, "v1": 0.05, "c2": 0.2, "v2": 0.25, "solvent_added": 0.2}),
            ),
            example(
                json!({"operation": "molarity", "mass": "5.85 g", "formula": "NaCl", "volume": "250 mL"}),
                json!({"molarity": 0.4004122584379923, "volume": 0.25, "moles": 0.10010306460949807, "mass": 5.8500000000000005, "molar_mass": 58.43976928}),
            ),
            example(
                json!({"operation": "ideal_gas", "pressure": "1 atm", "volume": "22.4 L", "temperature": "0 degC"}),
                json!({"pressure": 101325.0, "pressure_atm": 1.0, "volume": 0.0224, "volume_L": 22.4, "moles": 0.9993767482825351, "temperature": 273.15, "temperature_celsius": 0.0}),
            ),
            example(
                json!({"operation": "empirical_formula", "composition": {"C": 40.0, "H": 6.7, "O": 53.3}, "molar_mass": 180}),
                json!({"empirical_formula": "CH2O", "empirical_molar_mass": 30.026, "mole_ratio": {"C": 1.0, "H": 1.9958754960317462, "O": 1.0003536158509907}, "molecular_formula": "C6H12O6", "multiplier": 6, "molecular_molar_mass": 180.156}),
            ),
            example(
                json!({"operation": "element", "symbol": "Fe"}),
                json!({"symbol": "Fe", "name": "Iron", "atomic_number": 26, "atomic_weight": 55.845, "atomic_weight_kind": "standard", "group": 8, "period": 4, "block": "d", "electronegativity": 1.83, "electron_configuration": "[Ar] 3d6 4s2", "electron_configuration_full": "1s2 2s2 2p6 3s2 3p6 3d6 4s2"}),
            ),
        ],
        notes: include_str!("chemistry.md").into(),
    }
}
