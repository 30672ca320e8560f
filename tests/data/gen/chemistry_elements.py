#!/usr/bin/env python3
# Requires:  python3 -m venv ~/.cache/beaker-chemref && ~/.cache/beaker-chemref/bin/pip install \
#                molmass==2026.1.8 mendeleev==1.3.0 chempy==0.10.2 mpmath==1.3.0 periodictable==2.1.0
#            (written with CPython 3.11.7)
#
#   ~/.cache/beaker-chemref/bin/python tests/data/gen/chemistry_elements.py
#       # (re)writes crates/beaker-chemistry/src/elements.tsv and prints the cross-checks
"""The periodic table of Beaker's `chemistry` tool, from independent packages (never from Beaker).

Writes ``crates/beaker-chemistry/src/elements.tsv``: `#` comment lines (sources, generator), then one
line per element Z = 1..118, tab-separated:

    number  symbol  name  atomic_weight  weight_kind  group  period  block  electronegativity

Sources, column by column:

* number, symbol, period, block: mendeleev 1.3.0 (cross-checked against periodictable and molmass).
* name: mendeleev's English name with the IUPAC spellings "Aluminium" and "Caesium" (mendeleev has the US
  "Aluminum", "Cesium"); the tool's name lookup also accepts the US spellings.
* atomic_weight / weight_kind:
  - ``standard``: the CIAAW standard atomic weight, as the decimal digits CIAAW prints (uncertainty dropped):
    the table "Standard atomic weights of the elements 2021" (Prohaska et al., Pure Appl. Chem. 94 (2022)
    573, doi:10.1515/pac-2019-0603), taken from its transcription in periodictable 2.1.0 (`mass.py`,
    `element_mass`, copied from ciaaw.org on 2023-07-06), with the 2024 CIAAW revisions applied by hand:
    Zr 91.222(3) (was 91.224(2)), Gd 157.249(2) (was 157.25(3)), Lu 174.96669(5) (was 174.9668(1))
    (CIAAW, announced August 2024 after its 2023 meeting).
  - ``conventional``: the 14 elements whose standard atomic weight is an interval get CIAAW's conventional
    value (H 1.008, Li 6.94, B 10.81, C 12.011, N 14.007, O 15.999, Mg 24.305, Si 28.085, S 32.06, Cl 35.45,
    Ar 39.95, Br 79.904, Tl 204.38, Pb 207.2); the script checks that these are exactly the interval
    elements of the table above and equal its abridged values.
  - ``mass_number``: elements with no standard atomic weight (Tc, Pm, Po..Ac, Np..Og) get the mass number
    of their longest-lived isotope in mendeleev 1.3.0's isotope table (ties: the lower mass number).
  Why not molmass or mendeleev for the weights: molmass 2026.1.8 carries NIST's older table (H 1.007941,
  S 32.0648, ... computed from isotopic compositions, not CIAAW's conventional values; no Z > 109), and
  mendeleev 1.3.0 is behind CIAAW for about 20 elements (Ar 39.948, Hf 178.49, Au 196.966569, ...; its
  weight for Tc/Pm is an isotope mass, not a mass number). Both are compared below and the script prints
  every disagreement.
* group: mendeleev's ``group_id`` as is (IUPAC 1..18), empty when None. mendeleev gives La and Ac group 3
  (block d) and leaves Ce..Lu and Th..Lr without a group (block f).
* electronegativity: mendeleev's ``en_pauling``, empty when None.

Deterministic: re-running rewrites identical bytes.
"""
from __future__ import annotations

import functools
import importlib.metadata as md
import math
import pathlib
import re
import sys
from fractions import Fraction

GENERATOR = "tests/data/gen/chemistry_elements.py"
ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / "crates" / "beaker-chemistry" / "src" / "elements.tsv"

VERSIONS = {p: md.version(p) for p in ("mendeleev", "molmass", "periodictable")}

# CIAAW conventional values for the interval elements (Prohaska 2022, Table 3 / ciaaw.org).
CONVENTIONAL = {
    "H": "1.008", "Li": "6.94", "B": "10.81", "C": "12.011", "N": "14.007", "O": "15.999",
    "Mg": "24.305", "Si": "28.085", "S": "32.06", "Cl": "35.45", "Ar": "39.95", "Br": "79.904",
    "Tl": "204.38", "Pb": "207.2",
}
# CIAAW 2024 revisions (Zr, Gd, Lu), after the 2021 table.
REVISED_2024 = {"Zr": ("91.224", "91.222"), "Gd": ("157.25", "157.249"), "Lu": ("174.9668", "174.96669")}
# Elements without a CIAAW standard atomic weight.
NO_STANDARD = {43, 61} | set(range(84, 90)) | set(range(93, 119))
IUPAC_NAMES = {"Aluminum": "Aluminium", "Cesium": "Caesium"}

HALF_LIFE_UNIT = {
    "nsec": Fraction(1, 10**9), "usec": Fraction(1, 10**6), "msec": Fraction(1, 1000), "sec": Fraction(1),
    "minute": Fraction(60), "hour": Fraction(3600), "day": Fraction(86400),
    "year": Fraction(31556952), "kyear": Fraction(31556952 * 10**3), "Myear": Fraction(31556952 * 10**6),
}


@functools.lru_cache(maxsize=None)
def mel(z: int):
    """mendeleev's element Z (cached: each lookup costs a database query)."""
    import mendeleev

    return mendeleev.element(z)


def ciaaw_2021() -> dict[int, tuple[str, str, bool]]:
    """Z -> (symbol, value digits, is_interval) from periodictable's transcription of the CIAAW 2021 table."""
    from periodictable import mass as ptmass

    rows = {}
    for line in ptmass.element_mass.splitlines():
        parts = line.split("\t")
        z, sym, value = int(parts[0]), parts[1], parts[3].strip()
        m = re.match(r"^([0-9.]+)\(([0-9.]+)\)\s*(\[[0-9., ]+\])?$", value)
        if not m:
            raise SystemExit(f"unreadable CIAAW row: {line!r}")
        rows[z] = (sym, m.group(1), m.group(3) is not None)
    return rows


def longest_lived_mass_number(el) -> int:
    best = None
    for iso in el.isotopes:
        if iso.half_life is None or iso.half_life_unit is None:
            continue
        t = Fraction(str(iso.half_life)) * HALF_LIFE_UNIT[iso.half_life_unit]
        key = (t, -iso.mass_number)
        if best is None or key > best[0]:
            best = (key, iso.mass_number)
    if best is None:
        raise SystemExit(f"no half-lives for {el.symbol}")
    return best[1]


def fmt_float(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else repr(float(x))


def build_table() -> list[dict]:
    """The 118 rows, as dicts with string fields plus 'weight' (a Fraction)."""
    ciaaw = ciaaw_2021()
    conventional_seen = set()
    rows = []
    for z in range(1, 119):
        el = mel(z)
        sym = el.symbol
        if z in NO_STANDARD:
            if z in ciaaw:
                raise SystemExit(f"{sym} has a CIAAW standard weight but is listed as having none")
            weight_text, kind = str(longest_lived_mass_number(el)), "mass_number"
        else:
            csym, digits, interval = ciaaw[z]
            if csym != sym:
                raise SystemExit(f"symbol mismatch at Z={z}: {csym} vs {sym}")
            if interval:
                conventional_seen.add(sym)
                weight_text, kind = CONVENTIONAL[sym], "conventional"
                if Fraction(weight_text) != Fraction(digits):
                    raise SystemExit(f"{sym}: conventional {weight_text} != abridged {digits}")
            else:
                weight_text, kind = digits, "standard"
                if sym in REVISED_2024:
                    old, new = REVISED_2024[sym]
                    if digits != old:
                        raise SystemExit(f"{sym}: expected the 2021 value {old}, found {digits}")
                    weight_text = new
        group = "" if el.group_id is None else str(int(el.group_id))
        rows.append({
            "number": str(z), "symbol": sym, "name": IUPAC_NAMES.get(el.name, el.name),
            "atomic_weight": weight_text, "weight_kind": kind, "group": group,
            "period": str(int(el.period)), "block": el.block, "electronegativity": fmt_float(el.en_pauling),
            "weight": Fraction(weight_text),
        })
    if conventional_seen != set(CONVENTIONAL):
        raise SystemExit(f"interval elements differ: {sorted(conventional_seen ^ set(CONVENTIONAL))}")
    return rows


COLUMNS = ["number", "symbol", "name", "atomic_weight", "weight_kind", "group", "period", "block",
           "electronegativity"]


def render(rows: list[dict]) -> str:
    head = [
        f"# Periodic table of the `chemistry` tool, written by {GENERATOR} (do not edit by hand; re-run it).",
        f"# Packages: mendeleev {VERSIONS['mendeleev']}, periodictable {VERSIONS['periodictable']}, "
        f"molmass {VERSIONS['molmass']} (cross-check only).",
        "# number, symbol, period, block: mendeleev. name: mendeleev, with the IUPAC spellings Aluminium, Caesium.",
        "# atomic_weight: CIAAW standard atomic weights 2021 (Prohaska et al., Pure Appl. Chem. 94 (2022) 573,",
        "#   doi:10.1515/pac-2019-0603; transcribed in periodictable's mass.py) with the CIAAW 2024 revisions",
        "#   Zr 91.222, Gd 157.249, Lu 174.96669; the decimal digits of the value, uncertainty dropped.",
        "# weight_kind: standard = that value; conventional = CIAAW's conventional value for the 14 elements whose",
        "#   standard atomic weight is an interval (H Li B C N O Mg Si S Cl Ar Br Tl Pb); mass_number = no standard",
        "#   atomic weight: the mass number of the longest-lived isotope in mendeleev's isotope table.",
        "# group: mendeleev group_id (IUPAC 1-18), empty when None (Ce-Lu, Th-Lr). electronegativity: mendeleev",
        "#   en_pauling (Pauling scale), empty when None.",
        "# " + "\t".join(COLUMNS),
    ]
    body = ["\t".join(r[c] for c in COLUMNS) for r in rows]
    return "\n".join(head + body) + "\n"


def cross_check(rows: list[dict]) -> None:
    """Print every atomic-weight disagreement above 1e-4 relative among molmass, mendeleev, periodictable
    and the chosen value, and every difference at all between the chosen value and mendeleev."""
    import periodictable
    from molmass import ELEMENTS

    print("atomic weights: relative disagreements > 1e-4 (chosen = this table)")
    n = 0
    for r in rows:
        z, sym = int(r["number"]), r["symbol"]
        vals = {"chosen": float(r["weight"]), "mendeleev": mel(z).atomic_weight,
                "periodictable": periodictable.elements[z].mass}
        try:
            vals["molmass"] = ELEMENTS[sym].mass
        except KeyError:
            pass
        vals = {k: v for k, v in vals.items() if v is not None and not math.isnan(v)}
        worst = max(abs(a - b) / b for a in vals.values() for b in vals.values())
        if worst > 1e-4:
            n += 1
            print(f"  {z:3d} {sym:2s} {r['weight_kind']:12s} " +
                  "  ".join(f"{k}={v!r}" for k, v in vals.items()) + f"  max_rel={worst:.2e}")
    print(f"  ({n} elements)")
    print("chosen standard/conventional value differs from mendeleev's atomic_weight at all:")
    for r in rows:
        if r["weight_kind"] == "mass_number":
            continue
        m = mel(int(r["number"])).atomic_weight
        if Fraction(repr(m)) != r["weight"]:
            print(f"  {r['symbol']:2s} chosen {r['atomic_weight']:>13s}  mendeleev {m!r}")
    print("mass_number elements where round(mendeleev atomic_weight) differs from the longest-lived isotope:")
    for r in rows:
        if r["weight_kind"] != "mass_number":
            continue
        m = mel(int(r["number"])).atomic_weight
        if round(m) != int(r["atomic_weight"]):
            print(f"  {r['symbol']:2s} longest-lived A={r['atomic_weight']}  mendeleev atomic_weight {m!r}")
    # Structure cross-checks.
    for r in rows:
        z = int(r["number"])
        p = periodictable.elements[z]
        if p.symbol != r["symbol"]:
            print(f"  symbol differs at Z={z}: periodictable {p.symbol}")
        if r["symbol"] in ELEMENTS:
            e = ELEMENTS[r["symbol"]]
            if e.period != int(r["period"]) or e.block != r["block"]:
                print(f"  molmass period/block differ for {r['symbol']}: {e.period}{e.block} vs "
                      f"{r['period']}{r['block']}")


def main() -> None:
    rows = build_table()
    text = render(rows)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(rows)} elements)")
    cross_check(rows)


if __name__ == "__main__":
    sys.exit(main())
