#!/usr/bin/env python3
# Requires:  python3 -m venv ~/.cache/beaker-chemref && ~/.cache/beaker-chemref/bin/pip install \
#                molmass==2026.1.8 mendeleev==1.3.0 chempy==0.10.2 mpmath==1.3.0 periodictable==2.1.0
#            (written with CPython 3.11.7; chempy brings sympy 1.14.0)
#
#   ~/.cache/beaker-chemref/bin/python tests/data/gen/chemistry_reference.py
#       # (re)writes tests/data/chemistry/reference.jsonl
"""Independent reference data for Beaker's `chemistry` tool (never computed from Beaker's output).

Writes ``tests/data/chemistry/reference.jsonl``: `//` comment lines, then one JSON case per line:

    {"name": ..., "tool": "chemistry", "params": {"operation": ..., ...}, "expected": {subset of the result},
     "rtol": ..., "atol": ..., "source": ...}

The harness compares numbers with |got - want| <= atol + rtol*|want|, objects key by key for the keys in
``expected`` only, arrays element by element, strings, integers, booleans and null exactly.

Where the expected values come from:

* Atomic weights: the table of ``chemistry_elements.py`` (the same one the tool embeds as elements.tsv; the
  script checks that the file on disk is what that generator writes), as exact decimals (Fraction).
* molar_mass: element counts from molmass's formula parser (after rewriting the tool's notation for charges,
  states, hydrate dots and unicode digits into molmass's), checked against a small independent parser in this
  file and, for neutral species, molmass's Hill formula; the masses are exact rational sums of count*weight,
  rounded once to a double. ``hill_formula`` is given for neutral species only (see the report of the API).
* balance: chempy.balance_stoichiometry on the species (charges rewritten into chempy's notation), its
  coefficients put in the input order, checked for element and charge conservation and against an exact
  rational null space (sympy) of the element-and-charge matrix, which must be one-dimensional.
* stoichiometry, limiting_reagent, dilution, molarity, ideal_gas, empirical_formula: exact rational
  arithmetic (Fraction) on the inputs, the balanced coefficients and the table's weights; R = 8.31446261815324
  J/(mol K), 1 atm = 101325 Pa, 1 L = 1e-3 m^3, degC = K - 273.15.
* ph, buffer: the exact charge balance of the API solved with mpmath at 60 digits (bisection on log h, 400
  steps), pH = -log10(h); Kw = 1e-14 without temperature, else pKw = 4470.99/T - 6.0875 + 0.01706 T.
* element: mendeleev 1.3.0 (period, block, group_id, en_pauling, its electronic configuration rewritten
  as noble-gas core + subshells ordered by n then l with every count written); name and atomic weight from
  the element table (IUPAC spellings Aluminium/Caesium).

Tolerances: rtol 1e-12 where the value is a short chain of arithmetic on exact inputs (a double result may be
off by a few ulps of its terms); rtol 1e-10 for pH, pOH, concentrations and percentages from the charge
balance (the tool bisects in floating point: 1e-10 leaves room for log10 and the bracket's last bits);
atol 1e-10 for limiting_reagent, whose left-over amount of the limiting reactant is exactly 0 mathematically
but a rounding residue in doubles; atol 1e-15 for dilution (solvent_added 0 when c2 = c1) and 1e-12 for the
ideal_gas cases at 273.15 K (temperature_celsius 0). Everything else atol 0.

Deterministic: a fixed list of cases and no randomness; re-running writes identical bytes.
"""
from __future__ import annotations

import importlib.metadata as md
import json
import math
import pathlib
import re
import sys
from fractions import Fraction as F

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import chemistry_elements  # noqa: E402

import mpmath  # noqa: E402
import sympy  # noqa: E402
from chempy import balance_stoichiometry  # noqa: E402
from molmass import Formula  # noqa: E402

ROOT = HERE.parents[2]
OUT = ROOT / "tests" / "data" / "chemistry" / "reference.jsonl"
GENERATOR = "tests/data/gen/chemistry_reference.py"
V = {p: md.version(p) for p in ("molmass", "mendeleev", "chempy", "mpmath", "periodictable", "sympy")}

# ---------------------------------------------------------------------------------------------------------
# The element table

ROWS = chemistry_elements.build_table()
_disk = chemistry_elements.OUT.read_text(encoding="utf-8")
if _disk != chemistry_elements.render(ROWS):
    raise SystemExit("elements.tsv differs from what chemistry_elements.py writes: run that first")
W = {r["symbol"]: r["weight"] for r in ROWS}
BY_SYMBOL = {r["symbol"]: r for r in ROWS}

# ---------------------------------------------------------------------------------------------------------
# Formulas: the tool's notation -> (counts, charge), two ways

SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
SUP_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
STATE = re.compile(r"\((s|l|g|aq)\)$")


def split_charge(text: str) -> tuple[str, int, str]:
    """(body, charge, state) of a species in the API's notation."""
    s = text.strip()
    state = ""
    m = STATE.search(s)
    if m:
        state, s = m.group(1), s[: m.start()]
    if s in ("e-", "e^-"):
        return "", -1, state
    m = re.search(r"([⁰¹²³⁴⁵⁶⁷⁸⁹]*)([⁺⁻])$", s)
    if m:
        n = int(m.group(1).translate(SUP_DIGITS) or "1")
        return s[: m.start()], n if m.group(2) == "⁺" else -n, state
    m = re.search(r"\^(\d*)([+-])$", s)
    if m:
        n = int(m.group(1) or "1")
        return s[: m.start()], n if m.group(2) == "+" else -n, state
    m = re.search(r"(?<=[A-Za-z)\]}])([+-])(\d+)$", s)
    if m:
        n = int(m.group(2))
        return s[: m.start()], n if m.group(1) == "+" else -n, state
    m = re.search(r"(?<=[A-Za-z)\]}])([+-])$", s)
    if m:
        return s[: m.start()], 1 if m.group(1) == "+" else -1, state
    return s, 0, state


def my_counts(body: str) -> dict[str, int]:
    """An independent recursive-descent reading of a neutral formula body."""
    s = body.translate(SUB)
    parts = re.split(r"[.·*•]", s)
    total: dict[str, int] = {}
    for part in parts:
        m = re.match(r"^(\d+)", part)
        mult = int(m.group(1)) if m else 1
        part = part[m.end():] if m else part
        pos = 0

        def group(close: str | None) -> dict[str, int]:
            nonlocal pos
            acc: dict[str, int] = {}
            while pos < len(part):
                c = part[pos]
                if c in ")]}":
                    if close != c:
                        raise ValueError(f"unbalanced {c} in {body}")
                    pos += 1
                    return acc
                if c in "([{":
                    pos += 1
                    inner = group({"(": ")", "[": "]", "{": "}"}[c])
                else:
                    mm = re.match(r"[A-Z][a-z]?", part[pos:])
                    if not mm:
                        raise ValueError(f"bad character {c!r} in {body}")
                    if mm.group(0) not in W:
                        raise ValueError(f"unknown element {mm.group(0)}")
                    inner = {mm.group(0): 1}
                    pos += mm.end()
                mm = re.match(r"\d+", part[pos:])
                k = int(mm.group(0)) if mm else 1
                pos += mm.end() if mm else 0
                for el, n in inner.items():
                    acc[el] = acc.get(el, 0) + n * k
            if close is not None:
                raise ValueError(f"unclosed group in {body}")
            return acc

        for el, n in group(None).items():
            total[el] = total.get(el, 0) + n * mult
    return total


def molmass_counts(body: str, charge: int) -> dict[str, int]:
    s = body.translate(SUB)
    s = re.sub(r"[·*•]", ".", s)
    if charge:
        s = f"[{s}]{abs(charge) if abs(charge) > 1 else ''}{'+' if charge > 0 else '-'}"
    f = Formula(s)
    if f.charge != charge:
        raise SystemExit(f"molmass charge {f.charge} != {charge} for {body}")
    return {k: v.count for k, v in f.composition().items() if k != "e-"}


def species(text: str) -> tuple[dict[str, int], int]:
    body, charge, _ = split_charge(text)
    if body == "":
        return {}, charge
    a = my_counts(body)
    b = molmass_counts(body, charge)
    if a != b:
        raise SystemExit(f"counts differ for {text}: mine {a} molmass {b}")
    return a, charge


def hill_order(counts: dict[str, int]) -> list[str]:
    if "C" in counts:
        return ["C"] + (["H"] if "H" in counts else []) + sorted(k for k in counts if k not in ("C", "H"))
    return sorted(counts)


def hill(counts: dict[str, int]) -> str:
    return "".join(el + (str(counts[el]) if counts[el] != 1 else "") for el in hill_order(counts))


def molar_mass(counts: dict[str, int]) -> F:
    return sum((n * W[el] for el, n in counts.items()), F(0))


# ---------------------------------------------------------------------------------------------------------
# Quantities with units (exact)

UNITS = {
    "mass": {"g": F(1), "kg": F(1000), "mg": F(1, 1000)},
    "amount": {"mol": F(1), "mmol": F(1, 1000)},
    "volume": {"L": F(1), "mL": F(1, 1000)},
    "concentration": {"M": F(1), "mol/L": F(1), "mmol/L": F(1, 1000), "mM": F(1, 1000)},
    "pressure": {"Pa": F(1), "kPa": F(1000), "atm": F(101325), "bar": F(100000)},
    "temperature": {"K": F(1)},
}


def q(v, kind: str) -> F:
    if isinstance(v, (int, float)):
        return F(str(v)) if isinstance(v, float) else F(v)
    num, unit = v.split(None, 1)
    if kind == "temperature" and unit == "degC":
        return F(num) + F("273.15")
    return F(num) * UNITS[kind][unit]


def num(x) -> float | int:
    if isinstance(x, int):
        return x
    if isinstance(x, F):
        return float(x)
    return float(x)


R_GAS = F("8.31446261815324")
ATM = F(101325)

CASES: list[dict] = []


def case(name, params, expected, rtol, source, atol=0.0):
    CASES.append({"name": name, "tool": "chemistry", "params": params, "expected": expected,
                  "rtol": rtol, "atol": atol, "source": source})


# ---------------------------------------------------------------------------------------------------------
# molar_mass

MM_SRC = f"molmass {V['molmass']} counts + CIAAW table (elements.tsv), exact sum"
MOLAR_MASS = [
    ("water", "H2O"), ("carbon_dioxide", "CO2"), ("sodium_chloride", "NaCl"), ("glucose", "C6H12O6"),
    ("sulfuric_acid", "H2SO4"), ("ammonia", "NH3"), ("methane", "CH4"), ("ethanol_condensed", "C2H5OH"),
    ("acetic_acid_condensed", "CH3COOH"), ("calcium_carbonate", "CaCO3"), ("sodium_hydroxide", "NaOH"),
    ("potassium_permanganate", "KMnO4"), ("calcium_phosphate", "Ca3(PO4)2"),
    ("potassium_ferrocyanide", "K4[Fe(CN)6]"), ("potassium_ferricyanide_braces", "K3{Fe(CN)6}"),
    ("aluminium_sulfate", "Al2(SO4)3"), ("magnesium_hydroxide", "Mg(OH)2"), ("ammonium_sulfate", "(NH4)2SO4"),
    ("iron_iii_oxide", "Fe2O3"), ("tetraamminecopper_sulfate", "[Cu(NH3)4]SO4"),
    ("copper_sulfate_pentahydrate_middot", "CuSO4·5H2O"), ("copper_sulfate_pentahydrate_dot", "CuSO4.5H2O"),
    ("sodium_carbonate_decahydrate_star", "Na2CO3*10H2O"), ("epsom_salt_bullet", "MgSO4•7H2O"),
    ("cobalt_chloride_hexahydrate", "CoCl2·6H2O"), ("sucrose", "C12H22O11"), ("caffeine", "C8H10N4O2"),
    ("aspirin", "C9H8O4"), ("butane_groups", "CH3(CH2)2CH3"), ("buckminsterfullerene", "C60"),
    ("lead_acetate", "Pb(C2H3O2)2"), ("uranyl_nitrate", "UO2(NO3)2"), ("cobalt_element", "Co"),
    ("carbon_monoxide", "CO"), ("sulfate_caret", "SO4^2-"), ("ammonium_caret", "NH4^+"),
    ("iron_iii_caret", "Fe^3+"), ("sodium_ion_sign", "Na+"), ("hydroxide_sign", "OH-"),
    ("iron_iii_chempy_style", "Fe+3"), ("sulfate_unicode", "SO₄²⁻"), ("iron_iii_unicode", "Fe³⁺"),
    ("dichromate_caret", "Cr2O7^2-"), ("phosphate_caret", "PO4^3-"), ("water_unicode_subscripts", "H₂O"),
    ("sodium_chloride_aq", "NaCl(aq)"), ("water_liquid", "H2O(l)"), ("glucose_solid", "C6H12O6(s)"),
    ("pertechnetate_mass_number", "TcO4^-"),
]
for name, formula in MOLAR_MASS:
    counts, charge = species(formula)
    m = molar_mass(counts)
    comp = {}
    for el in hill_order(counts):
        part = counts[el] * W[el]
        comp[el] = {"count": counts[el], "mass": num(part), "mass_fraction": num(part / m)}
    exp = {"formula": formula, "molar_mass": num(m), "unit": "g/mol", "charge": charge, "composition": comp}
    if charge == 0:
        h = hill(counts)
        body = split_charge(formula)[0].translate(SUB)
        mm_hill = Formula(re.sub(r"[·*•]", ".", body)).formula
        if mm_hill != h:
            raise SystemExit(f"Hill formula differs for {formula}: mine {h} molmass {mm_hill}")
        exp["hill_formula"] = h
    src = MM_SRC
    if any(BY_SYMBOL[el]["weight_kind"] == "mass_number" for el in counts):
        src += "; Tc has no standard atomic weight: mass number 97 (the tool adds a note)"
    case(f"molar_mass_{name}", {"operation": "molar_mass", "formula": formula}, exp, 1e-12, src)

# ---------------------------------------------------------------------------------------------------------
# balance

ARROWS = ["<=>", "<->", "⇌", "->", "→", "=>", "="]


def parse_equation(eq: str) -> tuple[list[str], list[str]]:
    for a in ARROWS:
        if f" {a} " in eq or (a != "=" and a in eq):
            left, right = eq.split(a, 1)
            break
    else:
        raise SystemExit(f"no arrow in {eq}")

    def side(t: str) -> list[str]:
        out = []
        for sp in re.split(r"\s+\+\s+", t.strip()):
            sp = re.sub(r"^\d+\s*(?=[A-Z(\[{e])", "", sp.strip())
            out.append(sp)
        return out

    return side(left), side(right)


def to_chempy(sp: str) -> str:
    body, charge, _ = split_charge(sp)
    if body == "":
        return "e-"
    body = re.sub(r"[.*•]", "·", body.translate(SUB))
    if charge == 0:
        return body
    sign = "+" if charge > 0 else "-"
    return body + sign + (str(abs(charge)) if abs(charge) > 1 else "")


def balance(eq: str) -> dict:
    reac, prod = parse_equation(eq)
    allsp = reac + prod
    comps = [species(s) for s in allsp]
    elements = sorted({el for c, _ in comps for el in c})
    for el in elements:
        if not any(el in comps[i][0] for i in range(len(reac))) or \
                not any(el in comps[i][0] for i in range(len(reac), len(allsp))):
            raise SystemExit(f"{el} on one side only in {eq}")
    # Exact null space of the element-and-charge matrix (products negative).
    rows = [[(1 if i < len(reac) else -1) * comps[i][0].get(el, 0) for i in range(len(allsp))] for el in elements]
    rows.append([(1 if i < len(reac) else -1) * comps[i][1] for i in range(len(allsp))])
    ns = sympy.Matrix(rows).nullspace()
    if len(ns) != 1:
        raise SystemExit(f"null space of dimension {len(ns)} for {eq}")
    vec = list(ns[0])
    den = sympy.ilcm(*[sympy.fraction(x)[1] for x in vec])
    ints = [int(x * den) for x in vec]
    g = math.gcd(*ints)
    ints = [x // g for x in ints]
    if ints[0] < 0:
        ints = [-x for x in ints]
    if any(x <= 0 for x in ints):
        raise SystemExit(f"no positive balance for {eq}: {ints}")
    # chempy, in the input order.
    cr = [to_chempy(s) for s in reac]
    cp = [to_chempy(s) for s in prod]
    r, p = balance_stoichiometry(set(cr), set(cp))
    chem = [int(r[s]) for s in cr] + [int(p[s]) for s in cp]
    g = math.gcd(*chem)
    chem = [x // g for x in chem]
    if chem != ints:
        raise SystemExit(f"chempy {chem} != null space {ints} for {eq}")
    # Conservation.
    for el in elements:
        lhs = sum(ints[i] * comps[i][0].get(el, 0) for i in range(len(reac)))
        rhs = sum(ints[i] * comps[i][0].get(el, 0) for i in range(len(reac), len(allsp)))
        assert lhs == rhs, (eq, el)
    assert sum(ints[i] * comps[i][1] for i in range(len(reac))) == \
        sum(ints[i] * comps[i][1] for i in range(len(reac), len(allsp))), eq

    def term(c, s):
        return s if c == 1 else f"{c} {s}"

    text = " + ".join(term(c, s) for c, s in zip(ints, reac)) + " -> " + \
        " + ".join(term(c, s) for c, s in zip(ints[len(reac):], prod))
    return {"reac": reac, "prod": prod, "coef": ints, "balanced": text, "comps": dict(zip(allsp, comps))}


BAL_SRC = f"chempy {V['chempy']} balance_stoichiometry, checked by an exact null space and conservation"
BALANCE = [
    ("propane_combustion", "C3H8 + O2 -> CO2 + H2O"),
    ("methane_combustion_states", "CH4(g) + O2(g) -> CO2(g) + H2O(l)"),
    ("ethane_combustion", "C2H6 + O2 -> CO2 + H2O"),
    ("octane_combustion", "C8H18 + O2 -> CO2 + H2O"),
    ("glucose_respiration", "C6H12O6 + O2 -> CO2 + H2O"),
    ("ethanol_combustion_arrow_unicode", "C2H5OH + O2 → CO2 + H2O"),
    ("butane_combustion_equals", "C4H10 + O2 = CO2 + H2O"),
    ("sucrose_combustion", "C12H22O11 + O2 -> CO2 + H2O"),
    ("water_synthesis_coefficients_ignored", "2 H2 + O2 -> 2 H2O"),
    ("water_synthesis_attached_coefficients", "2H2 + O2 = 2H2O"),
    ("haber_equilibrium", "N2 + H2 <=> NH3"),
    ("haber_harpoons", "N2 + H2 ⇌ NH3"),
    ("thermite_reduction", "Fe2O3 + CO -> Fe + CO2"),
    ("aluminium_oxidation", "Al + O2 -> Al2O3"),
    ("chlorate_decomposition", "KClO3 -> KCl + O2"),
    ("iron_chlorine", "Fe + Cl2 => FeCl3"),
    ("phosphate_rock", "Ca3(PO4)2 + H2SO4 -> CaSO4 + H3PO4"),
    ("neutralisation", "NaOH + H2SO4 -> Na2SO4 + H2O"),
    ("aluminium_hcl", "Al + HCl -> AlCl3 + H2"),
    ("ostwald", "NH3 + O2 -> NO + H2O"),
    ("pyrite_roasting", "FeS2 + O2 -> Fe2O3 + SO2"),
    ("copper_nitric_acid", "Cu + HNO3 -> Cu(NO3)2 + NO + H2O"),
    ("dichromate_hcl", "K2Cr2O7 + HCl -> KCl + CrCl3 + Cl2 + H2O"),
    ("permanganate_hcl", "KMnO4 + HCl -> KCl + MnCl2 + H2O + Cl2"),
    ("dehydration_hydrate", "CuSO4·5H2O -> CuSO4 + H2O"),
    ("limestone_states", "CaCO3(s) -> CaO(s) + CO2(g)"),
    ("baking_soda", "NaHCO3 -> Na2CO3 + H2O + CO2"),
    ("silver_chloride_precipitation", "AgNO3 + NaCl -> AgCl + NaNO3"),
    ("lead_iodide_precipitation", "Pb(NO3)2 + KI -> PbI2 + KNO3"),
    ("barium_sulfate_precipitation", "BaCl2 + Na2SO4 -> BaSO4 + NaCl"),
    ("net_ionic_silver_chloride", "Ag^+ + Cl^- -> AgCl(s)"),
    ("net_ionic_lead_iodide", "Pb^2+(aq) + I^-(aq) -> PbI2(s)"),
    ("net_ionic_sign_charges", "Na+ + Cl- -> NaCl"),
    ("permanganate_iron", "MnO4^- + Fe^2+ + H^+ -> Mn^2+ + Fe^3+ + H2O"),
    ("dichromate_iron", "Cr2O7^2- + Fe^2+ + H^+ -> Cr^3+ + Fe^3+ + H2O"),
    ("copper_nitrate_ionic", "Cu + NO3^- + H^+ -> Cu^2+ + NO + H2O"),
    ("permanganate_oxalate", "MnO4^- + C2O4^2- + H^+ -> Mn^2+ + CO2 + H2O"),
    ("permanganate_sulfite_basic", "MnO4^- + SO3^2- + H2O -> MnO2 + SO4^2- + OH^-"),
    ("half_iron", "Fe^3+ + e- -> Fe^2+"),
    ("half_dichromate", "Cr2O7^2- + H^+ + e- -> Cr^3+ + H2O"),
    ("half_oxygen_e_caret", "O2 + H^+ + e^- -> H2O"),
    ("half_zinc_oxidation", "Zn -> Zn^2+ + e-"),
    ("half_chlorine_arrow_lr", "Cl2 + e- <-> Cl-"),
    ("half_iron_chempy_style", "Fe+3 + e- -> Fe+2"),
]
BALANCED: dict[str, dict] = {}
for name, eq in BALANCE:
    b = balance(eq)
    BALANCED[eq] = b
    exp = {"coefficients": b["coef"], "balanced": b["balanced"],
           "reactants": [{"species": s, "coefficient": c} for s, c in zip(b["reac"], b["coef"])],
           "products": [{"species": s, "coefficient": c} for s, c in zip(b["prod"], b["coef"][len(b["reac"]):])]}
    case(f"balance_{name}", {"operation": "balance", "equation": eq}, exp, 0.0, BAL_SRC)

# ---------------------------------------------------------------------------------------------------------
# stoichiometry


def species_mass(sp: str) -> F:
    return molar_mass(species(sp)[0])


def coef_of(b: dict, sp: str) -> int:
    allsp = b["reac"] + b["prod"]
    return b["coef"][allsp.index(sp)]


STOICH_SRC = "balanced coefficients (chempy) x molar masses (elements.tsv), exact rationals"
STOICH = [
    ("propane_mass_to_co2", "C3H8 + O2 -> CO2 + H2O", {"substance": "C3H8", "mass": 44.1}, "CO2"),
    ("propane_mass_to_water", "C3H8 + O2 -> CO2 + H2O", {"substance": "C3H8", "mass": "2.5 kg"}, "H2O"),
    ("propane_oxygen_needed", "C3H8 + O2 -> CO2 + H2O", {"substance": "CO2", "moles": 3}, "O2"),
    ("haber_hydrogen_to_ammonia", "N2 + H2 -> NH3", {"substance": "H2", "mass": 10}, "NH3"),
    ("haber_ammonia_from_mmol", "N2 + H2 -> NH3", {"substance": "N2", "moles": "250 mmol"}, "NH3"),
    ("glucose_to_co2", "C6H12O6 + O2 -> CO2 + H2O", {"substance": "C6H12O6", "mass": 90}, "CO2"),
    ("thermite_iron_yield", "Fe2O3 + CO -> Fe + CO2", {"substance": "Fe2O3", "mass": "1 kg"}, "Fe"),
    ("chlorate_oxygen", "KClO3 -> KCl + O2", {"substance": "KClO3", "mass": 12.25}, "O2"),
    ("aluminium_hydrogen", "Al + HCl -> AlCl3 + H2", {"substance": "Al", "mass": 5.4}, "H2"),
    ("silver_chloride_mass", "AgNO3 + NaCl -> AgCl + NaNO3", {"substance": "AgNO3", "mass": "500 mg"}, "AgCl"),
    ("octane_co2", "C8H18 + O2 -> CO2 + H2O", {"substance": "C8H18", "mass": 1000}, "CO2"),
    ("pyrite_so2", "FeS2 + O2 -> Fe2O3 + SO2", {"substance": "FeS2", "moles": 0.4}, "SO2"),
    ("copper_nitric_no", "Cu + HNO3 -> Cu(NO3)2 + NO + H2O", {"substance": "Cu", "mass": 6.354}, "NO"),
    ("permanganate_iron_ionic", "MnO4^- + Fe^2+ + H^+ -> Mn^2+ + Fe^3+ + H2O",
     {"substance": "Fe^2+", "moles": 0.01}, "MnO4^-"),
    ("calcium_carbonate_co2", "CaCO3 -> CaO + CO2", {"substance": "CaCO3", "mass": 100}, "CO2"),
    ("ostwald_water", "NH3 + O2 -> NO + H2O", {"substance": "O2", "mass": 16}, "H2O"),
]
for name, eq, given, find in STOICH:
    b = BALANCED.get(eq) or balance(eq)
    gs = given["substance"]
    mg, mf = species_mass(gs), species_mass(find)
    if "mass" in given:
        mass_g = q(given["mass"], "mass")
        mol_g = mass_g / mg
    else:
        mol_g = q(given["moles"], "amount")
        mass_g = mol_g * mg
    mol_f = mol_g * coef_of(b, find) / coef_of(b, gs)
    exp = {"balanced": b["balanced"], "coefficients": b["coef"],
           "given": {"substance": gs, "moles": num(mol_g), "mass": num(mass_g)},
           "find": {"substance": find, "moles": num(mol_f), "mass": num(mol_f * mf)}}
    case(f"stoichiometry_{name}", {"operation": "stoichiometry", "equation": eq, "given": given, "find": find},
         exp, 1e-12, STOICH_SRC)

# ---------------------------------------------------------------------------------------------------------
# limiting_reagent


def amount_moles(spec, sp: str) -> tuple[F, F]:
    mm = species_mass(sp)
    if isinstance(spec, dict):
        if "mass" in spec:
            g = q(spec["mass"], "mass")
            return g / mm, g
        n = q(spec["moles"], "amount")
        return n, n * mm
    numtxt, unit = spec.split(None, 1)
    if unit in UNITS["mass"]:
        g = q(spec, "mass")
        return g / mm, g
    n = q(spec, "amount")
    return n, n * mm


LIM_SRC = "extent = min(n_i/coef_i) from chempy's coefficients; exact rationals with elements.tsv masses"
LIMITING = [
    ("hydrogen_oxygen_masses", "H2 + O2 -> H2O", {"H2": {"mass": 10}, "O2": {"mass": 64}}),
    ("hydrogen_oxygen_tie_first_listed", "H2 + O2 -> H2O", {"H2": {"moles": 2}, "O2": {"moles": 1}}),
    ("haber_strings", "N2 + H2 -> NH3", {"N2": "28 g", "H2": "10 g"}),
    ("haber_hydrogen_limiting", "N2 + H2 -> NH3", {"N2": "2 mol", "H2": "3 mol"}),
    ("propane_oxygen", "C3H8 + O2 -> CO2 + H2O", {"C3H8": {"mass": 44}, "O2": {"mass": 128}}),
    ("thermite", "Fe2O3 + Al -> Al2O3 + Fe", {"Fe2O3": {"mass": 100}, "Al": {"mass": 30}}),
    ("aluminium_chlorine", "Al + Cl2 -> AlCl3", {"Al": {"mass": 2.7}, "Cl2": {"mass": 7.1}}),
    ("silver_chloride", "AgNO3 + NaCl -> AgCl + NaNO3", {"AgNO3": "1.7 g", "NaCl": "1 g"}),
    ("single_reactant_given", "C6H12O6 + O2 -> CO2 + H2O", {"C6H12O6": {"mass": "1 kg"}}),
    ("ostwald_kg", "NH3 + O2 -> NO + H2O", {"NH3": {"mass": "1 kg"}, "O2": {"mass": "2 kg"}}),
    ("copper_nitric", "Cu + HNO3 -> Cu(NO3)2 + NO + H2O", {"Cu": {"mass": 10}, "HNO3": {"mass": 20}}),
    ("zinc_hcl_mmol", "Zn + HCl -> ZnCl2 + H2", {"Zn": "150 mmol", "HCl": "250 mmol"}),
    ("precipitation_lead_iodide", "Pb(NO3)2 + KI -> PbI2 + KNO3", {"Pb(NO3)2": {"mass": 3.31}, "KI": {"mass": 5}}),
    ("methane_oxygen_moles", "CH4 + O2 -> CO2 + H2O", {"CH4": {"moles": 1.5}, "O2": {"moles": 2.5}}),
    ("calcium_phosphate", "Ca3(PO4)2 + H2SO4 -> CaSO4 + H3PO4", {"Ca3(PO4)2": {"mass": 31}, "H2SO4": {"mass": 40}}),
]
for name, eq, amounts in LIMITING:
    b = BALANCED.get(eq) or balance(eq)
    reac = b["reac"]
    have = {}
    for sp in reac:
        if sp in amounts:
            have[sp] = amount_moles(amounts[sp], sp)
    extent, lim = None, None
    for sp in reac:  # equation order: ties go to the first listed
        if sp in have:
            e = have[sp][0] / coef_of(b, sp)
            if extent is None or e < extent:
                extent, lim = e, sp
    reactants = {}
    for sp, (n, g) in have.items():
        mm = species_mass(sp)
        used = extent * coef_of(b, sp)
        reactants[sp] = {"moles": num(n), "mass": num(g), "moles_used": num(used), "mass_used": num(used * mm),
                         "moles_left": num(n - used), "mass_left": num((n - used) * mm)}
    yields = {}
    for sp in b["prod"]:
        n = extent * coef_of(b, sp)
        yields[sp] = {"moles": num(n), "mass": num(n * species_mass(sp))}
    exp = {"balanced": b["balanced"], "limiting_reagent": lim, "extent": num(extent), "reactants": reactants,
           "theoretical_yield": yields}
    case(f"limiting_reagent_{name}", {"operation": "limiting_reagent", "equation": eq, "amounts": amounts},
         exp, 1e-12, LIM_SRC, atol=1e-10)

# ---------------------------------------------------------------------------------------------------------
# ph and buffer (mpmath, 60 digits)

mpmath.mp.dps = 60
MP = mpmath.mpf


def pkw_of(temperature) -> mpmath.mpf:
    if temperature is None:
        return MP(14)
    t = q(temperature, "temperature")
    t = MP(t.numerator) / t.denominator
    return MP("4470.99") / t - MP("6.0875") + MP("0.01706") * t


def mpq(x) -> mpmath.mpf:
    x = x if isinstance(x, F) else F(str(x))
    return MP(x.numerator) / x.denominator


def bisect_log(f, lo=-40, hi=5) -> mpmath.mpf:
    """Root of increasing f(h) for h = 10**x, x in [lo, hi]."""
    a, b = MP(lo), MP(hi)
    assert f(mpmath.power(10, a)) < 0 < f(mpmath.power(10, b))
    for _ in range(400):
        m = (a + b) / 2
        if f(mpmath.power(10, m)) < 0:
            a = m
        else:
            b = m
    return mpmath.power(10, (a + b) / 2)


def alphas(ks: list, x) -> list:
    terms = [MP(1)]
    p = MP(1)
    for i, k in enumerate(ks, 1):
        p *= k
        terms.append(p / x**i)
    s = sum(terms)
    return [t / s for t in terms]


def ph_case(p: dict) -> dict:
    c = mpq(q(p["concentration"], "concentration"))
    pkw = pkw_of(p.get("temperature"))
    kw = mpmath.power(10, -pkw)
    base = p["type"] == "base"
    ks = None
    for key in ("ka", "pka", "kb", "pkb"):
        if key in p:
            v = p[key] if isinstance(p[key], list) else [p[key]]
            ks = [mpq(x) for x in v]
            if key.startswith("p"):
                ks = [mpmath.power(10, -x) for x in ks]
    strong = p.get("strong", ks is None)
    out = {}
    if strong:
        eq = p.get("equivalents", 1)
        ceq = c * eq
        x = bisect_log(lambda x: x - ceq - kw / x)  # x is h (acid) or oh (base)
        closed = (ceq + mpmath.sqrt(ceq**2 + 4 * kw)) / 2
        assert abs(x / closed - 1) < MP(10) ** -50
        x = closed
        approx = -mpmath.log10(ceq)
    else:
        x = bisect_log(lambda x: x - c * sum(i * a for i, a in enumerate(alphas(ks, x))) - kw / x)
        approx = -mpmath.log10(mpmath.sqrt(ks[0] * c))
        out["percent_ionization"] = 100 * (1 - alphas(ks, x)[0])
    if base:
        poh = -mpmath.log10(x)
        ph = pkw - poh
        h, oh = kw / x, x
        approx_ph = pkw - approx
    else:
        ph = -mpmath.log10(x)
        poh = pkw - ph
        h, oh = x, kw / x
        approx_ph = approx
    out.update({"pH": ph, "pOH": poh, "H+_concentration": h, "OH-_concentration": oh, "pKw": pkw,
                "approximate_pH": approx_ph})
    out = {k: float(v) for k, v in out.items()}
    # The shortcut counts as valid within 0.02 pH of the exact value (about 5 % in [H+]).
    out["approximation_valid"] = bool(abs(approx_ph - ph) <= MP("0.02"))
    return out


PH_SRC = f"exact charge balance, mpmath {V['mpmath']} at 60 digits (bisection on log10 h)"
PH = [
    ("hcl_0_1", {"concentration": 0.1, "type": "acid"}),
    ("hcl_0_01", {"concentration": 0.01, "type": "acid", "strong": True}),
    ("hcl_1e_3_string", {"concentration": "1 mmol/L", "type": "acid"}),
    ("hcl_2_molar_negative_ph", {"concentration": 2, "type": "acid"}),
    ("hcl_1e_7", {"concentration": 1e-7, "type": "acid"}),
    ("hcl_1e_8_very_dilute", {"concentration": 1e-8, "type": "acid"}),
    ("naoh_0_1", {"concentration": 0.1, "type": "base"}),
    ("naoh_1e_8_very_dilute", {"concentration": 1e-8, "type": "base"}),
    ("baoh2_equivalents_2", {"concentration": 0.05, "type": "base", "equivalents": 2}),
    ("acetic_ka_0_1", {"concentration": 0.1, "type": "acid", "ka": 1.8e-5}),
    ("acetic_ka_1e_3", {"concentration": 1e-3, "type": "acid", "ka": 1.8e-5}),
    ("acetic_ka_1e_6_mostly_dissociated", {"concentration": 1e-6, "type": "acid", "ka": 1.8e-5}),
    ("acetic_pka_0_1", {"concentration": "0.1 M", "type": "acid", "pka": 4.76}),
    ("hf_0_1", {"concentration": 0.1, "type": "acid", "ka": 6.8e-4}),
    ("hcn_0_1", {"concentration": 0.1, "type": "acid", "ka": 4.9e-10}),
    ("hcn_1e_4_water_matters", {"concentration": 1e-4, "type": "acid", "ka": 4.9e-10}),
    ("ammonium_ka", {"concentration": 0.1, "type": "acid", "ka": 5.6e-10}),
    ("ammonia_kb_0_1", {"concentration": 0.1, "type": "base", "kb": 1.8e-5}),
    ("ammonia_kb_0_01", {"concentration": 0.01, "type": "base", "kb": 1.8e-5}),
    ("ammonia_pkb", {"concentration": 0.1, "type": "base", "pkb": 4.74}),
    ("pyridine_kb", {"concentration": 0.1, "type": "base", "kb": 1.7e-9}),
    ("methylamine_kb", {"concentration": 0.05, "type": "base", "kb": 4.4e-4}),
    ("phosphoric_0_1", {"concentration": 0.1, "type": "acid", "ka": [7.5e-3, 6.2e-8, 4.8e-13]}),
    ("phosphoric_1e_3", {"concentration": 1e-3, "type": "acid", "ka": [7.5e-3, 6.2e-8, 4.8e-13]}),
    ("phosphoric_pka_list", {"concentration": 0.05, "type": "acid", "pka": [2.12, 7.21, 12.32]}),
    ("carbonic_0_033", {"concentration": 0.033, "type": "acid", "ka": [4.3e-7, 4.8e-11]}),
    ("carbonic_1e_5", {"concentration": 1e-5, "type": "acid", "ka": [4.3e-7, 4.8e-11]}),
    ("sulfuric_weak_diprotic_0_1", {"concentration": 0.1, "type": "acid", "ka": [1e3, 1.2e-2]}),
    ("sulfuric_weak_diprotic_0_01", {"concentration": 0.01, "type": "acid", "ka": [1e3, 1.2e-2]}),
    ("carbonate_dibasic_kb", {"concentration": 0.1, "type": "base", "kb": [2.1e-4, 2.3e-8]}),
    ("pure_water_limit_310_15", {"concentration": 1e-9, "type": "acid", "temperature": 310.15}),
    ("naoh_0_01_310_15", {"concentration": 0.01, "type": "base", "temperature": 310.15}),
    ("acetic_273_15", {"concentration": 0.1, "type": "acid", "ka": 1.8e-5, "temperature": 273.15}),
    ("hcl_1e_8_37_degc", {"concentration": 1e-8, "type": "acid", "temperature": "37 degC"}),
    ("ammonia_333_15", {"concentration": 0.1, "type": "base", "kb": 1.8e-5, "temperature": 333.15}),
    ("naoh_298_15_harned_owen", {"concentration": 1e-3, "type": "base", "temperature": 298.15}),
]
for name, p in PH:
    exp = ph_case(p)
    case(f"ph_{name}", {"operation": "ph", **p}, exp, 1e-10, PH_SRC)

BUF_SRC = f"buffer charge balance h + Cb = Kw/h + (Ca+Cb) Ka/(h+Ka), mpmath {V['mpmath']} 60 digits"
BUFFER = [
    ("acetate_equal", {"acid_concentration": 0.1, "base_concentration": 0.1, "pka": 4.76}),
    ("acetate_1_to_2_ka", {"acid_concentration": 0.1, "base_concentration": 0.2, "ka": 1.8e-5}),
    ("acetate_very_dilute", {"acid_concentration": 1e-5, "base_concentration": 1e-5, "pka": 4.76}),
    ("acetate_strings", {"acid_concentration": "50 mmol/L", "base_concentration": "0.1 M", "pka": 4.76}),
    ("ammonium_ammonia", {"acid_concentration": 0.1, "base_concentration": 0.1, "pka": 9.25}),
    ("phosphate_h2po4_hpo4", {"acid_concentration": 0.05, "base_concentration": 0.08, "pka": 7.21}),
    ("bicarbonate_carbonate", {"acid_concentration": 0.02, "base_concentration": 0.01, "pka": 10.33}),
    ("formate_310_15", {"acid_concentration": 0.1, "base_concentration": 0.15, "pka": 3.75,
                        "temperature": 310.15}),
    ("hypochlorite_ka_dilute", {"acid_concentration": 1e-4, "base_concentration": 1e-3, "ka": 3.0e-8}),
]
for name, p in BUFFER:
    ca = mpq(q(p["acid_concentration"], "concentration"))
    cb = mpq(q(p["base_concentration"], "concentration"))
    ka = mpmath.power(10, -mpq(p["pka"])) if "pka" in p else mpq(p["ka"])
    pka = -mpmath.log10(ka)
    pkw = pkw_of(p.get("temperature"))
    kw = mpmath.power(10, -pkw)
    h = bisect_log(lambda h: h + cb - kw / h - (ca + cb) * ka / (h + ka))
    ph = -mpmath.log10(h)
    exp = {"pH": float(ph), "henderson_hasselbalch": float(pka + mpmath.log10(cb / ca)), "pOH": float(pkw - ph),
           "H+_concentration": float(h)}
    case(f"buffer_{name}", {"operation": "buffer", **p}, exp, 1e-10, BUF_SRC)

# ---------------------------------------------------------------------------------------------------------
# dilution, molarity, ideal_gas

DIL_SRC = "c1 v1 = c2 v2, exact rationals"
DILUTION = [
    ("find_v2", {"c1": 2, "v1": "50 mL", "c2": 0.5}),
    ("find_c2", {"c1": "1 M", "v1": 0.1, "v2": 0.25}),
    ("find_v1_stock", {"c1": 12, "c2": "0.1 M", "v2": "500 mL"}),
    ("find_c1", {"v1": "25 mL", "c2": 0.05, "v2": "1 L"}),
    ("mmol_per_l", {"c1": "100 mmol/L", "v1": "10 mL", "c2": "1 mmol/L"}),
    ("no_dilution", {"c1": 0.3, "v1": 1.5, "c2": 0.3}),
    ("serial_tenfold", {"c1": 0.001, "v1": "1 mL", "v2": "10 mL"}),
    ("large_volume", {"c1": 18, "v1": "27.8 mL", "v2": "1 L"}),
]
for name, p in DILUTION:
    c1 = q(p["c1"], "concentration") if "c1" in p else None
    c2 = q(p["c2"], "concentration") if "c2" in p else None
    v1 = q(p["v1"], "volume") if "v1" in p else None
    v2 = q(p["v2"], "volume") if "v2" in p else None
    if c1 is None:
        c1 = c2 * v2 / v1
    elif c2 is None:
        c2 = c1 * v1 / v2
    elif v1 is None:
        v1 = c2 * v2 / c1
    else:
        v2 = c1 * v1 / c2
    exp = {"c1": num(c1), "v1": num(v1), "c2": num(c2), "v2": num(v2), "solvent_added": num(v2 - v1)}
    case(f"dilution_{name}", {"operation": "dilution", **p}, exp, 1e-12, DIL_SRC, atol=1e-15)

MOL_SRC = "n = c V, n = m / M (elements.tsv), exact rationals"
MOLARITY = [
    ("moles_volume", {"moles": 0.5, "volume": "250 mL"}),
    ("molarity_volume", {"molarity": "0.1 M", "volume": 2}),
    ("molarity_moles", {"molarity": 0.5, "moles": 0.25}),
    ("mass_formula_volume_nacl", {"mass": "5.844 g", "formula": "NaCl", "volume": "100 mL"}),
    ("mass_formula_volume_glucose", {"mass": 90, "formula": "C6H12O6", "volume": 1}),
    ("molarity_volume_formula_gives_mass", {"molarity": "100 mmol/L", "volume": "500 mL", "formula": "NaCl"}),
    ("mass_formula_molarity_hydrate", {"mass": 24.97, "formula": "CuSO4·5H2O", "molarity": 0.2}),
    ("mmol_in_ml", {"moles": "250 mmol", "volume": "500 mL"}),
    ("kmno4_mass_kg", {"mass": "0.001 kg", "formula": "KMnO4", "volume": "250 mL"}),
]
for name, p in MOLARITY:
    mm = molar_mass(species(p["formula"])[0]) if "formula" in p else None
    c = q(p["molarity"], "concentration") if "molarity" in p else None
    vol = q(p["volume"], "volume") if "volume" in p else None
    n = None
    if "moles" in p:
        n = q(p["moles"], "amount")
    elif "mass" in p:
        n = q(p["mass"], "mass") / mm
    if c is None:
        c = n / vol
    elif vol is None:
        vol = n / c
    elif n is None:
        n = c * vol
    exp = {"molarity": num(c), "volume": num(vol), "moles": num(n)}
    if mm is not None:
        exp["mass"] = num(n * mm)
    case(f"molarity_{name}", {"operation": "molarity", **p}, exp, 1e-12, MOL_SRC)

GAS_SRC = "PV = nRT, R = 8.31446261815324 J/(mol K) exact, exact rationals"
GAS = [
    ("stp_volume", {"pressure": "1 atm", "moles": 1, "temperature": 273.15}),
    ("moles_from_22_4_l", {"pressure": "1 atm", "volume": "22.4 L", "temperature": "0 degC"}),
    ("pressure_500_ml", {"volume": "500 mL", "moles": 0.02, "temperature": "25 degC"}),
    ("temperature_from_kpa", {"pressure": "101.325 kPa", "volume": 24.5, "moles": 1}),
    ("bare_si_units", {"pressure": 200000, "volume": 10, "temperature": 300}),
    ("mass_formula_oxygen", {"pressure": "1 atm", "mass": "16 g", "formula": "O2", "temperature": "25 degC"}),
    ("mass_formula_co2_pressure", {"volume": "2 L", "mass": 44.0095, "formula": "CO2", "temperature": 298.15}),
    ("balloon_helium", {"pressure": "1 atm", "volume": "5 L", "temperature": "20 degC"}),
    ("tank_bar", {"pressure": "200 bar", "volume": "50 L", "temperature": "15 degC"}),
    ("cold_gas_mmol", {"pressure": "101.325 kPa", "moles": "250 mmol", "temperature": "-40 degC"}),
]
for name, p in GAS:
    P = q(p["pressure"], "pressure") if "pressure" in p else None
    Vl = q(p["volume"], "volume") if "volume" in p else None
    T = q(p["temperature"], "temperature") if "temperature" in p else None
    n = None
    if "moles" in p:
        n = q(p["moles"], "amount")
    elif "mass" in p:
        n = q(p["mass"], "mass") / molar_mass(species(p["formula"])[0])
    Vm3 = Vl / 1000 if Vl is not None else None
    if P is None:
        P = n * R_GAS * T / Vm3
    elif Vm3 is None:
        Vm3 = n * R_GAS * T / P
    elif n is None:
        n = P * Vm3 / (R_GAS * T)
    else:
        T = P * Vm3 / (n * R_GAS)
    exp = {"pressure": num(P), "pressure_atm": num(P / ATM), "volume": num(Vm3), "volume_L": num(Vm3 * 1000),
           "moles": num(n), "temperature": num(T), "temperature_celsius": num(T - F("273.15"))}
    # temperature_celsius is exactly 0 at 273.15 K: allow the residue of a K <-> degC round trip there.
    case(f"ideal_gas_{name}", {"operation": "ideal_gas", **p}, exp, 1e-12, GAS_SRC,
         atol=1e-12 if T == F("273.15") else 0.0)

# ---------------------------------------------------------------------------------------------------------
# empirical_formula

EMPIRICAL = [
    ("glucose_percent", {"C": 40.0, "H": 6.7, "O": 53.3}, 180,
     "textbook glucose problem (40.0% C, 6.7% H, 53.3% O; M = 180 g/mol -> C6H12O6)"),
    ("hematite_grams", {"Fe": 34.97, "O": 15.03}, None,
     "OpenStax Chemistry 2e, Example 3.10 / Atoms First Example 6.5: hematite, 34.97 g Fe + 15.03 g O -> Fe2O3"),
    ("fermentation_gas", {"C": 27.29, "O": 72.71}, None,
     "OpenStax Chemistry 2e, Example 3.11: fermentation gas 27.29% C, 72.71% O -> CO2"),
    ("nicotine", {"C": 74.02, "H": 8.710, "N": 17.27}, 162.1,
     "OpenStax Chemistry 2e, Example 3.12: nicotine 74.02% C, 8.710% H, 17.27% N, M = 162.1 -> C10H14N2"),
    ("ascorbic_acid", {"C": 40.92, "H": 4.58, "O": 54.50}, 176.12,
     "Brown et al., Chemistry: The Central Science: vitamin C 40.92% C, 4.58% H, 54.50% O -> C3H4O3, C6H8O6"),
    ("benzene", {"C": 92.3, "H": 7.7}, 78.11, "textbook benzene problem: 92.3% C, 7.7% H, M = 78 -> CH, C6H6"),
    ("magnetite_thirds", {"Fe": 72.36, "O": 27.64}, None,
     "magnetite Fe3O4 (72.36% Fe, 27.64% O): ratio 1.333 needs the multiplier 3"),
    ("copper_oxide_grams", {"Cu": 1.271, "O": 0.320}, None, "textbook copper oxide: 1.271 g Cu + 0.320 g O -> CuO"),
    ("hydrazine_hill_order", {"N": 87.42, "H": 12.58}, 32.05,
     "hydrazine (87.42% N, 12.58% H, M = 32.05) -> NH2, N2H4; written in Hill order H2N, H4N2"),
]


def empirical(comp: dict, molar: float | None) -> dict:
    moles = {el: F(str(v)) / W[el] for el, v in comp.items()}
    small = min(moles.values())
    ratio = {el: m / small for el, m in moles.items()}
    mult = None
    for n in range(1, 13):
        if all(abs(r * n - round(r * n)) <= F(1, 10) for r in ratio.values()):
            mult = n
            break
    assert mult is not None
    # Keep away from the 0.1 edge so that the tool's floating point cannot decide differently.
    for r in ratio.values():
        assert abs(abs(r * mult - round(r * mult)) - F(1, 10)) > F(1, 100)
    counts = {el: int(round(r * mult)) for el, r in ratio.items()}
    g = math.gcd(*counts.values())
    counts = {el: c // g for el, c in counts.items()}
    emm = molar_mass(counts)
    out = {"empirical_formula": hill(counts), "empirical_molar_mass": num(emm),
           "mole_ratio": {el: num(ratio[el]) for el in hill_order(counts)}}
    if molar is not None:
        k = F(str(molar)) / emm
        m = int(round(k))
        assert abs(k - m) < F(5, 100) * m
        out["molecular_formula"] = hill({el: c * m for el, c in counts.items()})
        out["multiplier"] = m
    return out


for name, comp, molar, src in EMPIRICAL:
    params = {"operation": "empirical_formula", "composition": comp}
    if molar is not None:
        params["molar_mass"] = molar
    case(f"empirical_formula_{name}", params, empirical(comp, molar), 1e-12, src + "; ratios from elements.tsv")

# ---------------------------------------------------------------------------------------------------------
# element

L_ORDER = "spdf"
CORES = [(86, "Rn"), (54, "Xe"), (36, "Kr"), (18, "Ar"), (10, "Ne"), (2, "He")]


def configuration(z: int) -> str:
    """mendeleev's configuration as [core] + subshells by n then l, every count written."""
    conf = chemistry_elements.mel(z).ec.conf  # {(n, 'l'): count}
    core = next(((cz, cs) for cz, cs in CORES if cz < z), None)
    shells = dict(conf)
    prefix = ""
    if core:
        cconf = chemistry_elements.mel(core[0]).ec.conf
        for key, cnt in cconf.items():
            if shells.get(key) != cnt:
                raise SystemExit(f"{z}: core {core[1]} not contained in {conf}")
            del shells[key]
        prefix = f"[{core[1]}] "
    text = prefix + " ".join(f"{n}{l}{c}" for (n, l), c in sorted(shells.items(), key=lambda kv: (kv[0][0],
                                                                     L_ORDER.index(kv[0][1]))))
    # mendeleev's own short form (it drops counts of 1 and orders by filling) must agree on the multiset.
    mine = sorted(text.split()[1:] if core else text.split())
    theirs = sorted(re.sub(r"^(\d[spdf])$", r"\g<1>1", t) for t in chemistry_elements.mel(z).econf.split()
                    if not t.startswith("["))
    if mine != theirs:
        raise SystemExit(f"{z}: {text} vs mendeleev {chemistry_elements.mel(z).econf}")
    return text


EL_SRC = f"mendeleev {V['mendeleev']} (group_id, period, block, en_pauling, ec) + elements.tsv (name, weight)"
ELEMENT = [
    ("chromium_symbol", {"symbol": "Cr"}), ("copper_symbol", {"symbol": "Cu"}), ("iron_number", {"number": 26}),
    ("gadolinium_symbol", {"symbol": "Gd"}), ("palladium_symbol", {"symbol": "Pd"}),
    ("gold_name", {"name": "gold"}), ("uranium_symbol", {"symbol": "U"}),
    ("lawrencium_symbol", {"symbol": "Lr"}), ("carbon_number", {"number": 6}),
    ("oxygen_name_lowercase", {"name": "oxygen"}), ("sodium_name", {"name": "Sodium"}),
    ("chlorine_symbol", {"symbol": "Cl"}), ("helium_number", {"number": 2}), ("argon_symbol", {"symbol": "Ar"}),
    ("lead_symbol", {"symbol": "Pb"}), ("bromine_symbol", {"symbol": "Br"}),
    ("technetium_mass_number", {"symbol": "Tc"}), ("oganesson_number", {"number": 118}),
    ("aluminium_name_iupac", {"name": "aluminium"}), ("hydrogen_symbol", {"symbol": "H"}),
    ("lanthanum_symbol", {"symbol": "La"}),
]
for name, p in ELEMENT:
    if "symbol" in p:
        r = BY_SYMBOL[p["symbol"]]
    elif "number" in p:
        r = ROWS[p["number"] - 1]
    else:
        r = next(x for x in ROWS if x["name"].lower() == p["name"].lower())
    z = int(r["number"])
    el = chemistry_elements.mel(z)
    assert el.symbol == r["symbol"]
    exp = {"symbol": r["symbol"], "name": r["name"], "atomic_number": z, "atomic_weight": num(r["weight"]),
           "group": None if el.group_id is None else int(el.group_id), "period": int(el.period),
           "block": el.block, "electronegativity": None if el.en_pauling is None else float(el.en_pauling),
           "electron_configuration": configuration(z)}
    case(f"element_{name}", {"operation": "element", **p}, exp, 1e-12, EL_SRC)

# ---------------------------------------------------------------------------------------------------------
# write


def main() -> None:
    ops: dict[str, int] = {}
    for c in CASES:
        op = c["params"]["operation"]
        ops[op] = ops.get(op, 0) + 1
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    head = [
        f"// Reference cases for the `chemistry` tool, written by {GENERATOR} (do not edit; re-run it).",
        f"// Packages: molmass {V['molmass']}, mendeleev {V['mendeleev']}, chempy {V['chempy']}, "
        f"mpmath {V['mpmath']}, periodictable {V['periodictable']}, sympy {V['sympy']}; "
        f"CPython {sys.version.split()[0]}.",
        "// Format: one JSON object per line: name, tool, params, expected (a subset of the result), rtol, atol,",
        "// source. Numbers match when |got - want| <= atol + rtol*|want|; objects are compared key by key for",
        "// the keys in expected only; arrays element by element; strings, integers, booleans and null exactly.",
        "// Values are independent of Beaker: atomic weights from the CIAAW table that chemistry_elements.py",
        "// writes to elements.tsv, formula counts from molmass, balances from chempy (checked by an exact",
        "// null space), pH and buffers from the exact charge balance with mpmath at 60 digits, the rest in exact",
        "// rational arithmetic, each rounded once to a double.",
        "// Tolerances: rtol 1e-12 for arithmetic on exact inputs (a few ulps of slack); rtol 1e-10 for ph and",
        "// buffer (floating-point bisection and log10 in the tool); atol 1e-10 in limiting_reagent (a reactant",
        "// used up leaves exactly 0 mol and 0 g, a rounding residue of up to ~1e-12 for kilogram amounts in",
        "// doubles), atol 1e-15 in dilution (solvent_added can be 0) and atol 1e-12 in the ideal_gas cases at",
        "// 273.15 K (temperature_celsius is 0); balance is exact (integers and text).",
        "// Cases per operation: " + ", ".join(f"{k} {v}" for k, v in ops.items()) + f"; total {len(CASES)}.",
    ]
    lines = head + [json.dumps(c, ensure_ascii=False) for c in CASES]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(CASES)} cases: {ops}")


if __name__ == "__main__":
    main()
