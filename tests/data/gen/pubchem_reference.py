#!/usr/bin/env python3
"""Writes tests/data/pubchem/reference.jsonl: what the `chemicals` package itself answers for 600 compounds drawn
at random (fixed seed) from its whole identifier database, each asked for by up to seven identifiers (common
name, a random synonym, CAS number, `PubChem=CID`, SMILES, `InChI=1S/...`, `InChIKey=...`) and by formula, plus
the elements' names and symbols and a set of everyday names; and, per compound, the properties the `pubchem` tool
takes from the same tables, by chemicals' own functions (Tm, Tb, RI, T_flash, T_autoignition, LFL, UFL,
Carcinogen, TWA, STEL, Ceiling, Skin) and its CRC tables (density).

The identifier lookups are `chemicals.identifiers.search_chemical(ID, cache=False)` with the whole database
loaded first (`get_pubchem_db().finish_loading()`: chemicals otherwise answers from a small table until a miss
loads the large one, so its answer would depend on what was asked before). A formula several compounds share is
recorded as ambiguous with chemicals' pick, which the tool must list among its candidates. Estimates (chemicals'
JOBACK method) are left out of the property sources, as the tool leaves them out.

tests/all/pubchem.rs compares every field exactly (the tool and chemicals read the same decimal texts into
float64), property values within 1e-12 relative.

    python3 -m venv /tmp/chemref && /tmp/chemref/bin/pip install chemicals==1.5.2
    /tmp/chemref/bin/python tests/data/gen/pubchem_reference.py
"""

import json
import math
import os
import random

import chemicals
from chemicals import identifiers, miscdata, phase_change, refractivity, safety
from chemicals.identifiers import get_pubchem_db, search_chemical

assert chemicals.__version__ == "1.5.2", chemicals.__version__

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "pubchem", "reference.jsonl")
N_COMPOUNDS = 600
SEED = 20261129

db = get_pubchem_db()
db.finish_loading()


def cas_text(obj):
    return identifiers.int_to_CAS(str(obj.CAS))


def identity(obj):
    return {
        "cid": obj.pubchemid if obj.pubchemid and obj.pubchemid > 0 else None,
        "cas": cas_text(obj),
        "formula": obj.formula,
        "molecular_weight": obj.MW,
        "smiles": obj.smiles,
        "inchi": "InChI=1S/" + obj.InChI,
        "inchikey": obj.InChI_key,
        "name": obj.common_name,
    }


def first(methods_fn, value_fn, cas):
    methods = [m for m in methods_fn(cas) if m != miscdata.JOBACK]
    if not methods:
        return None
    return methods[0], value_fn(cas, method=methods[0])


def number(v):
    if v is None:
        return None
    v = float(v)
    return None if math.isnan(v) else v


def density(cas):
    # The tool's order: the CRC inorganic table, then the organic one (rho, kg/m^3).
    for method, df in (("CRC_INORG", miscdata.CRC_inorganic_data), ("CRC_ORG", miscdata.CRC_organic_data)):
        if cas in df.index:
            v = df.at[cas, "rho"]
            if not hasattr(v, "__len__") and not math.isnan(v):
                return method, float(v)
    return None


def _spaced(keys):
    """Keys written with stray spaces (` 590-18-1`), by their stripped form: chemicals looks CAS numbers up as
    written and misses these; the tool strips them, so the reference asks chemicals with the key as written."""
    return {k.strip(): k for k in keys if isinstance(k, str) and k != k.strip()}


safety.Carcinogen("50-00-0")  # loads the tables
SPACED_ONTARIO = _spaced(safety.Ontario_exposure_limits_dict)
SPACED_IARC = _spaced(safety.IARC_data.index)
SPACED_NTP = _spaced(safety.NTP_data.index)


def facts(obj):
    """What a reference line says of a compound's properties and safety, as chemicals' functions give them."""
    cas = cas_text(obj)
    out = {}
    for name, methods_fn, value_fn in (
        ("MeltingPoint", phase_change.Tm_methods, phase_change.Tm),
        ("BoilingPoint", phase_change.Tb_methods, phase_change.Tb),
        ("FlashPoint", safety.T_flash_methods, safety.T_flash),
        ("AutoignitionTemperature", safety.T_autoignition_methods, safety.T_autoignition),
    ):
        got = first(methods_fn, value_fn, cas)
        if got:
            out[name] = {"method": got[0], "value": number(got[1])}
    for name, fn_methods, fn in (("LowerFlammabilityLimit", safety.LFL_methods, safety.LFL),
                                 ("UpperFlammabilityLimit", safety.UFL_methods, safety.UFL)):
        methods = [m for m in fn_methods(CASRN=cas) if m in (safety.IEC, safety.NFPA, miscdata.WIKIDATA)]
        if methods:
            out[name] = {"method": methods[0], "value": number(fn(CASRN=cas, method=methods[0]))}
    ri_methods = refractivity.RI_methods(cas)
    if ri_methods:
        ri, t = refractivity.RI(cas, method=ri_methods[0])
        entry = {"method": ri_methods[0], "value": number(ri)}
        if number(t) is not None:
            entry["temperature_K"] = number(t)
        out["RefractiveIndex"] = entry
    d = density(cas)
    if d:
        out["Density"] = {"method": d[0], "value": d[1]}
    carcinogen = safety.Carcinogen(cas)
    listed = {k: v for k, v in carcinogen.items() if v != safety.UNLISTED}
    for method, spaced in ((safety.IARC, SPACED_IARC), (safety.NTP, SPACED_NTP)):
        if method not in listed and cas in spaced:
            listed[method] = safety.Carcinogen(spaced[cas], method=method)
    exposure = {}
    key = cas if cas in safety.Ontario_exposure_limits_dict else SPACED_ONTARIO.get(cas, cas)
    for label, fn in (("TWA", safety.TWA), ("STEL", safety.STEL), ("ceiling", safety.Ceiling)):
        got = fn(key)
        if got:
            exposure[label] = {"value": float(got[0]), "unit": got[1]}
    skin = safety.Skin(key)
    line = {"properties": out, "carcinogen": listed}
    if exposure or skin:
        line["exposure"] = {"limits": exposure, "skin": bool(skin)}
    return line


def ask(identifier):
    try:
        return search_chemical(identifier, cache=False)
    except Exception:
        return None


def main():
    rng = random.Random(SEED)
    canonical = sorted(db.CAS_index.values(), key=lambda o: o.CAS)
    sample = rng.sample(canonical, N_COMPOUNDS)
    lines = []
    by_formula = {}
    for o in canonical:
        by_formula.setdefault(o.formula, 0)
        by_formula[o.formula] += 1
    for obj in sample:
        asks = [obj.common_name]
        if obj.synonyms:
            asks.append(rng.choice(obj.synonyms))
        asks.append(cas_text(obj))
        if obj.pubchemid and obj.pubchemid > 0:
            asks.append(f"PubChem={obj.pubchemid}")
        asks += [obj.smiles, "InChI=1S/" + obj.InChI, "InChIKey=" + obj.InChI_key]
        for identifier in dict.fromkeys(a for a in asks if a and a.strip()):
            hit = ask(identifier)
            if hit is None:
                lines.append({"identifier": identifier, "found": False})
                continue
            line = {"identifier": identifier, "found": True, "expect": identity(hit)}
            if identifier == obj.common_name or identifier == cas_text(obj):
                line.update(facts(hit))
            lines.append(line)
        # The formula: one compound, or the candidates must include chemicals' pick.
        hit = ask(obj.formula)
        if hit is not None:
            n = by_formula.get(hit.formula, 0)
            line = {"identifier": obj.formula, "found": True, "formula_compounds": n}
            if n > 1:
                line["includes_cas"] = cas_text(hit)
            else:
                line["expect"] = identity(hit)
            lines.append(line)
    everyday = ["water", "ethanol", "aspirin", "caffeine", "benzene", "acetone", "glucose", "sodium chloride",
                "methane", "ammonia", "sulfuric acid", "acetic acid", "toluene", "hydrogen peroxide",
                "carbon dioxide", "ibuprofen", "paracetamol", "nicotine", "formaldehyde", "chloroform", "Na", "Fe",
                "sodium", "iron", "hydrogen", "Hydrogen", "oxygen", "O", "C", "helium", "mercury", "gold", "Cl",
                "chlorine", "water (H2O)", "ETHANOL", "Acetic Acid", "iso-propanol", "64-17-5", "50-78-2",
                "CCO", "c1ccccc1", "CO", "NO", "InChIKey=BSYNRYMUTXBXSQ-UHFFFAOYSA-N", "PubChem=2244",
                # the review's (2026-11-29): a Boiling point CRC organic lists before CRC inorganic, Ontario and
                # IARC keys with stray spaces, a name with a shared formula, a Kelvin sign in a prefix
                "557-20-0", "75-15-0", "74-90-8", "590-18-1", "7440-02-0", "dimethyl ether (C2H6O)",
                "InChI\u212aey=XLYOFNOQVPJJNP-UHFFFAOYSA-N"]
    for identifier in everyday:
        hit = ask(identifier)
        if hit is None:
            lines.append({"identifier": identifier, "found": False})
            continue
        line = {"identifier": identifier, "found": True}
        # A formula route (CO, NO) with several compounds is ambiguous in the tool.
        n = by_formula.get(hit.formula, 0)
        if identifier in ("CO", "NO") and n > 1:
            line["formula_compounds"] = n
            line["includes_cas"] = cas_text(hit)
        else:
            line["expect"] = identity(hit)
            line.update(facts(hit))
        lines.append(line)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write(f"// chemicals {chemicals.__version__}: search_chemical over the whole database; written by "
                "tests/data/gen/pubchem_reference.py (do not edit)\n")
        for line in lines:
            f.write(json.dumps(line, sort_keys=True) + "\n")
    found = sum(1 for l in lines if l["found"])
    print(f"{len(lines)} identifiers ({found} found) for {N_COMPOUNDS} compounds -> {OUT}")


if __name__ == "__main__":
    main()
