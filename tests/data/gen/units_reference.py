#!/usr/bin/env python3
# Requires:  pip install pint==0.26.2      (Pint 0.26.x needs Python >= 3.12)
#
# The data in tests/data/units/reference.jsonl was last written with Pint 0.26.2 on CPython 3.12.1 (pyenv:
# /root/.pyenv/versions/3.12.1/bin/python3.12 on the build machine, whose default python3 is 3.11). Pint 0.26
# and not an older one that installs on 3.11 (0.24.4), because 0.24 still has CODATA 2018 constants and reads
# `acre` as the US survey acre, while Beaker's table follows 0.26 (CODATA 2022, the international acre).
#
#   python3.12 -m pip install pint==0.26.2
#   python3.12 tests/data/gen/units_reference.py            # (re)writes the .jsonl
#   python3.12 tests/data/gen/units_reference.py --defs     # also prints the exact factors
"""Independent reference data for Beaker's `unit_converter` tool, generated with Pint.

Writes ``tests/data/units/reference.jsonl`` (next to this folder), one JSON object per line,
in a fixed order (re-running gives identical bytes):

    {"value": "100", "from_unit": "km/h", "to_unit": "m/s",
     "expected": "27.77777777777777777777777778", "exact": false, "category": "speed"}
    {"value": "1", "from_unit": "m", "to_unit": "s", "error": "dimension", "category": "error"}

Fields
------
* ``value``     -- the input, a decimal string (plain like "2.54" or "-40", or scientific like
                   "1e-30" / "1e30").
* ``expected``  -- ``value`` converted, as a decimal string.  Plain notation when the decimal
                   exponent is in [-7, 27], otherwise ``d.ddd...e<N>`` (lower-case e, no "+").
* ``exact``     -- true:  ``expected`` IS the exact result (a terminating decimal, written out
                          in full, trailing zeros removed).  Compare for exact equality.
                   false: the exact result does not terminate (e.g. 250/9) or involves pi; then
                          ``expected`` is the exact result correctly rounded (half-even) to 28
                          significant digits (trailing zeros kept), so its relative error is
                          below 5e-28.
* ``error``     -- the conversion must fail: "dimension" (Pint raised DimensionalityError:
                   the two units measure different things) or "unknown_unit" (Pint raised
                   UndefinedUnitError, or could not parse the unit string at all, e.g. "kmh?").
* ``category``  -- grouping only.  "quirk" lines record a Pint behaviour that a tool may
                   deliberately NOT copy; they carry a ``note`` and a consumer may skip them.
* ``tolerance`` -- only present where only float64 could be had.  With Pint 0.26.2 every line
                   is computed exactly, so no line carries it (the code path is kept in case a
                   future unit needs it).

How exactness is ensured
------------------------
1. Every conversion is evaluated by Pint with ``UnitRegistry(non_int_type=fractions.Fraction)``:
   Pint then parses every number in its definition files (e.g. ``1.602176634e-19``,
   ``9.80665``, ``233.15 + 200 / 9``) into an exact Fraction and converts with exact rational
   arithmetic, including the affine (offset) temperature conversions.  The script asserts that
   the magnitude that comes back is a Fraction (not a float).
2. pi: Pint defines ``pi = 3.1415926535897932384626433832795028841971693993751`` (50 digits).
   Each conversion is also run in a second Fraction registry where pi is redefined with 136
   correct digits.  If the two answers differ the conversion depends on pi; ``expected`` is
   then taken from the 136-digit registry, rounded to 28 digits and marked ``exact: false``.
   (The rounding to 28 digits is therefore also correct for the true, infinite pi.)
3. Cross-checks, all of which must pass or the script aborts without writing:
   - Pint with ``non_int_type=decimal.Decimal`` at a 50-digit context agrees to 1e-40 relative;
   - plain Pint (float64) agrees to 1e-12 relative (temperature: 1e-12 absolute as well,
     because affine conversions of values near the offset lose relative precision in float);
   - ``PINT_DEFAULTS`` below pins, by exact equality, what the ambiguous symbols mean in Pint
     and the exact factors of the units Beaker's own table will carry.

Tolerance a consumer should use: lines with ``exact: true`` -- exact equality (or 1e-15
relative if the implementation computes in f64); lines with ``exact: false`` -- 1e-15 relative
is safe (the reference itself is good to 5e-28).  For temperatures whose exact result is 0
(e.g. 32 degF -> degC, 273.15 K -> degC) compare with an absolute tolerance (~1e-12), since
relative error is undefined there.

Spellings Pint 0.26.2 REJECTS (UndefinedUnitError or parse error), hence not used as
conversions here: m3, m2, cm3, kg/m3, rev, fl_oz, fl.oz, Torr, hz, KM, kmh, lbm, psia, psig,
Celsius, Fahrenheit, Kelvin, degrees_Celsius, kilometers_per_hour, square_meter, cubic_meter,
Nm (newton metre; write N*m, N m or N·m), ′ and ″ (prime signs for arcmin/arcsec), and "Ω"
written with U+2126 OHM SIGN (Pint accepts only U+03A9 GREEK CAPITAL OMEGA).

Spellings Beaker accepts that Pint does not (or reads otherwise) are computed from the Pint spelling in
``PINT_SPELLING`` below (e.g. Beaker's "cu ft" is Pint's "ft**3", "Mb" is "Mbit": the line keeps Beaker's
spelling, the number is Pint's), and the few units Pint lacks are defined in ``EXTRA_DEFS`` with their source.
Spellings Pint ACCEPTS but with a surprising meaning (not used, traps for a tool):
kb/Mb = kilo/mega-barn (area), Gb = gilbert, cfm = centi-fermi, kt = knot, a = year,
d = day, and "1 B -> rad" converts (bit/byte and radian are all dimensionless in Pint).
"""

import decimal
import json
import math
import os
import sys
from decimal import Decimal
from fractions import Fraction

try:
    import pint
except ImportError:  # pragma: no cover
    sys.exit("needs Pint: python3.12 -m pip install pint==0.26.2")

PINT_VERSION = "0.26.2"
if pint.__version__ != PINT_VERSION and os.environ.get("UNITS_REF_ANY_PINT") != "1":
    sys.exit(
        f"this data was generated with Pint {PINT_VERSION}; found {pint.__version__}. "
        "Install it (python3.12 -m pip install pint==0.26.2) or set UNITS_REF_ANY_PINT=1."
    )

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "units", "reference.jsonl"))

SIG = 28  # significant digits of a rounded (exact: false) result
PI_136 = (
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620"
    "899862803482534211706798214808651328230664709384460955058223"
)

# ---------------------------------------------------------------------------------------
# Registries
# ---------------------------------------------------------------------------------------
# Units Pint 0.26.2 does not have (or has only in another system), defined exactly, each with its source.
# They are added to every registry below, so they convert through Pint like its own units.
EXTRA_DEFS = [
    # parts per billion / trillion (short scale), as ppm = 1e-6 in Pint: ISO 80000-1 annex, NIST SP 811 7.10.3.
    # Pint has no ppb, and reads "ppt" as a picopint.
    "ppb = 1e-9",
    "ppt = 1e-12",
    # gauss: 1 G = 1e-4 T exactly by convention (SI Brochure 8th ed., table 9; CGS-EMU). Pint keeps its gauss in
    # Gaussian dimensions, convertible to tesla only through a context that goes via mu_0 (not exact since 2019).
    "gauss_si = 1e-4 * tesla",
    # bytes per second (IEC 80000-13: 1 B = 8 bit); Pint has bps (bit/s) but no Bps.
    "Bps_iec = 8 * bit / second",
]

# Beaker spellings whose value is computed from Pint's spelling of the same unit (why, after each).
PINT_SPELLING = {
    "Mb": "Mbit", "Mb/s": "Mbit/s", "Gb": "Gbit", "kb": "kbit",  # Pint: b is the barn; Beaker: the bit
    "MBps": "MBps_iec", "GBps": "GBps_iec",  # no Bps in Pint (EXTRA_DEFS)
    "G": "gauss_si", "gauss": "gauss_si", "mG": "milligauss_si", "kG": "kilogauss_si",  # EXTRA_DEFS
    "cu ft": "ft**3", "cu in": "in**3", "sq m": "m**2", "sq ft": "ft**2", "sq. ft.": "ft**2",  # Pint: cu_ft, sq_ft
    "N.m": "N*m", "N-m": "N*m", "lbf-ft": "lbf*ft", "kilowatt-hours": "kWh",  # a dot or hyphen as a product
    "KPH": "kph", "PSI": "psi", "kWH": "kWh", "kOhm": "kohm", "KM": "km", "Kg": "kg",  # Beaker's case rule
    "KILOMETERS": "kilometer", "MILES": "mile",  # long names in any case
    "degrees Celsius": "degC", "degrees Fahrenheit": "degF", "henries": "henry", "teslas": "tesla",
    "parts per million": "ppm", "per mille": "permille", "1": "dimensionless",
}


def registry(**kw):
    reg = pint.UnitRegistry(**kw)
    for d in EXTRA_DEFS:
        reg.define(d)
    return reg


UF = registry(non_int_type=Fraction)  # the reference
UF_PI = registry(non_int_type=Fraction, on_redefinition="ignore")
UF_PI.define(f"pi = {PI_136} = π")  # same, but with a 136-digit pi (detects pi-dependence)
DEC_CTX = decimal.Context(prec=50)
decimal.setcontext(DEC_CTX)
UD = registry(non_int_type=Decimal)  # cross-check at 50 digits
UFLOAT = registry()  # cross-check: what plain Pint (float64) says

F = Fraction

# ---------------------------------------------------------------------------------------
# Pint's own meaning of ambiguous symbols, and exact factors (checked by exact equality).
# Each entry: symbol, target unit, exact value of 1 symbol in target.
# ---------------------------------------------------------------------------------------
PINT_DEFAULTS = [
    # hp  = mechanical (imperial) horsepower: 550 ft*lbf/s = 745.69987158227022 W (not metric 735.49875 W, not electrical 746 W)
    ("hp", "W", F("745.69987158227022")),
    # ton = US short ton: 2000 lb = 907.18474 kg (long ton is long_ton, metric is t/tonne)
    ("ton", "kg", F("907.18474")),
    # gal = US liquid gallon: 231 in^3 = 3.785411784 L (UK is imperial_gallon = 4.54609 L)
    ("gal", "L", F("3.785411784")),
    # cal = thermochemical calorie: 4.184 J (international cal_it = 4.1868 J)
    ("cal", "J", F("4.184")),
    # kcal = kilo(thermochemical calorie) = 4184 J
    ("kcal", "J", F(4184)),
    # rad = radian, Pint's dimensionless base angle (radiation dose "rad" is spelled "rads" in Pint)
    ("rad", "deg", 180 / F(PI_136)),
    # t   = metric ton (tonne) = 1000 kg
    ("t", "kg", F(1000)),
    # oz  = avoirdupois ounce (mass) = lb/16 = 28.349523125 g; the fluid ounce is floz
    ("oz", "g", F("28.349523125")),
    # M   = molar = mol/L = 1000 mol/m^3 (not mega)
    ("M", "mol/m^3", F(1000)),
    # BTU = ISO British thermal unit: 1055.056 J (Btu_it = 1055.05585262 J, Btu_th ~ 1054.35 J)
    ("BTU", "J", F("1055.056")),
    # eV  = elementary charge * volt = 1.602176634e-19 J (exact since 2019 SI)
    ("eV", "J", F("1.602176634e-19")),
    # mmHg = milli(metre of mercury) = 1e-3 m * 13595.1 kg/m^3 * 9.80665 m/s^2 = 133.322387415 Pa (NOT torr)
    ("mmHg", "Pa", F("133.322387415")),
    # torr = atm / 760 = 101325/760 Pa = 133.3223684210526... Pa
    ("torr", "Pa", F(101325, 760)),
    # inHg = 0.0254 m * 13595.1 kg/m^3 * 9.80665 m/s^2 = 3386.388640341 Pa
    ("inHg", "Pa", F("3386.388640341")),
    # psi = lbf / in^2 = 4.4482216152605 N / 0.00064516 m^2
    ("psi", "Pa", F("4.4482216152605") / F("0.00064516")),
    # atm = standard atmosphere = 101325 Pa
    ("atm", "Pa", F(101325)),
    # kgf = kg * g_0 = 9.80665 N
    ("kgf", "N", F("9.80665")),
    # lbf = lb * g_0 = 0.45359237 kg * 9.80665 m/s^2 = 4.4482216152605 N
    ("lbf", "N", F("4.4482216152605")),
    # au  = 149597870700 m (IAU 2012)
    ("au", "m", F(149597870700)),
    # ly  = speed of light * julian year (365.25 d) = 9460730472580800 m
    ("ly", "m", F(9460730472580800)),
    # yr  = julian year = 365.25 days
    ("yr", "s", F(31557600)),
    # nmi = 1852 m
    ("nmi", "m", F(1852)),
    # survey_acre = US survey acre: 10 survey chains^2 = 43560 survey ft^2 (survey ft = 1200/3937 m)
    ("survey_acre", "m^2", F(43560) * F(1200, 3937) ** 2),
    # acre = international acre since Pint 0.26: 43560 ft^2 = 4046.8564224 m^2 (Pint <= 0.25 used the US survey acre, 4046.8726... m^2)
    ("acre", "m^2", F("4046.8564224")),
    # cup = US liquid cup = pint/2 = 236.5882365 mL
    ("cup", "mL", F("236.5882365")),
    # floz = US fluid ounce = pint/16 = 29.5735295625 mL
    ("floz", "mL", F("29.5735295625")),
    # pt  = US liquid pint = quart/2 = 473.176473 mL (not the typographic point)
    ("pt", "mL", F("473.176473")),
    # qt  = US liquid quart = gallon/4 = 946.352946 mL
    ("qt", "mL", F("946.352946")),
    # lb  = avoirdupois pound = 0.45359237 kg
    ("lb", "kg", F("0.45359237")),
    # mi  = international mile = 1609.344 m;  ft = 0.3048 m;  in = 0.0254 m
    ("mi", "m", F("1609.344")),
    ("ft", "m", F("0.3048")),
    ("in", "m", F("0.0254")),
    # kn  = knot = nmi/h = 1852/3600 m/s
    ("kn", "m/s", F(1852, 3600)),
    # degree = angle (π/180 rad), NOT temperature;  grad = gon = π/200 rad
    ("degree", "rad", F(PI_136) / 180),
    # rpm = revolution/minute, and revolution = 2π rad with rad dimensionless: 1 rpm = 2π/60 Hz (!)
    ("rpm", "Hz", 2 * F(PI_136) / 60),
    # kB = 1000 B (SI), KiB = 1024 B; B = byte = 8 bit
    ("kB", "B", F(1000)),
    ("KiB", "B", F(1024)),
    # bar = 1e5 Pa; mbar = 100 Pa
    ("bar", "Pa", F(100000)),
    # kWh = 3.6 MJ
    ("kWh", "J", F(3600000)),
    # erg = 1e-7 J, dyn = 1e-5 N
    ("erg", "J", F(1, 10**7)),
    ("dyn", "N", F(1, 10**5)),
]

# ---------------------------------------------------------------------------------------
# Cases: (category, value, from_unit, to_unit)
# ---------------------------------------------------------------------------------------
CASES = []


def add(category, rows):
    for r in rows:
        CASES.append((category,) + tuple(r))


add("length", [
    ("1", "m", "ft"), ("1", "ft", "m"), ("1", "km", "mi"), ("1", "mi", "km"),
    ("5280", "ft", "mi"), ("1", "mi", "yd"), ("12", "in", "cm"),
    ("2.54", "cm", "in"), ("2.54", "in", "cm"), ("1", "in", "mm"), ("1", "yd", "m"),
    ("1", "m", "in"), ("6", "ft", "m"),
    ("1", "cm", "in"), ("1", "au", "km"),
    ("1", "ly", "km"), ("1", "ly", "au"), ("4.2", "ly", "km"),
    ("9.4607304725808e15", "m", "ly"), ("1", "nmi", "km"), ("1", "nmi", "mi"),
    ("1", "km", "nmi"), ("1", "µm", "nm"), ("1", "um", "m"),
    ("1", "μm", "mm"),  # U+03BC GREEK SMALL LETTER MU (the other one, "µ", is U+00B5 MICRO SIGN)
    ("550", "nm", "µm"), ("633", "nm", "m"), ("0.1", "mm", "µm"), ("0.001", "in", "um"),
    ("-3.5", "m", "ft"), ("0", "km", "mi"), ("1e-30", "m", "nm"), ("1e-30", "mi", "m"),
    ("1e30", "m", "ly"), ("1e30", "nm", "au"), ("42.195", "km", "mi"), ("26.2", "mi", "km"),
    ("8848.86", "m", "ft"),
])
add("mass", [
    ("1", "kg", "lb"), ("1", "lb", "kg"), ("1", "lb", "g"), ("16", "oz", "lb"), ("1", "oz", "g"),
    ("100", "g", "oz"), ("1", "ton", "kg"),
    ("1", "t", "kg"), ("1", "tonne", "ton"), ("1", "ton", "t"),
    ("2.5", "t", "lb"), ("500", "mg", "g"), ("1", "mg", "µg"), ("250", "µg", "mg"),
    ("1", "ug", "mg"), ("1", "kg", "µg"), ("0.1", "kg", "oz"),
    ("154", "lb", "kg"), ("2.54", "lb", "oz"), ("-2", "kg", "g"),
    ("0", "lb", "kg"), ("1e-30", "kg", "µg"), ("1e30", "kg", "t"), ("5.972e24", "kg", "ton"),
])
add("time", [
    ("1", "h", "s"), ("1", "hr", "min"), ("2.5", "hr", "min"), ("1", "day", "min"),
    ("1", "day", "week"), ("86400", "s", "day"), ("1", "week", "h"),
    ("1", "yr", "day"), ("1", "year", "s"), ("90", "min", "h"),
    ("250", "ms", "s"), ("0.1", "s", "ms"),
    ("1", "ms", "µs"), ("1", "µs", "ns"), ("1", "s", "ns"), ("1", "ns", "s"),
    ("-5", "min", "s"), ("0", "day", "h"), ("1e-30", "s", "ns"), ("1e30", "s", "yr"),
    ("13.8e9", "year", "s"),
])
add("temperature", [
    ("100", "°C", "°F"), ("-40", "°C", "°F"), ("-40", "degF", "degC"), ("0", "K", "°C"),
    ("0", "K", "degF"), ("25", "degC", "K"), ("0", "degC", "K"), ("32", "°F", "°C"),
    ("212", "degF", "degC"), ("98.6", "°F", "°C"), ("37", "°C", "°F"), ("300", "K", "degC"),
    ("300", "K", "degF"), ("273.15", "K", "degC"), ("-273.15", "degC", "K"), ("0", "degF", "degC"),
    ("0", "degF", "K"), ("451", "degF", "degC"), ("20", "degC", "degF"), ("373.15", "K", "degC"),
    ("-459.67", "degF", "K"), ("0", "degR", "K"), ("491.67", "degR", "degF"),
    ("491.67", "°R", "degC"), ("100", "K", "degR"), ("0", "degC", "degR"), ("0.1", "degC", "degF"),
    ("2.54", "°C", "K"), ("1e-30", "K", "degR"), ("1e30", "K", "degR"), ("1e30", "degC", "K"),
    ("1", "delta_degC", "delta_degF"), ("10", "delta_degC", "delta_degF"),
    ("9", "delta_degF", "delta_degC"), ("1", "delta_degC", "K"), ("1", "delta_degF", "K"),
    ("5", "K", "delta_degC"), ("1", "delta_degC", "degR"), ("-3", "delta_degF", "delta_degC"),
])
add("force", [
    ("1", "N", "dyn"), ("1", "dyn", "N"), ("1e5", "dyn", "N"), ("1", "kN", "N"),
    ("1", "lbf", "N"), ("1", "kgf", "N"), ("1", "kgf", "lbf"), ("1", "lbf", "kgf"),
    ("1", "N", "kgf"), ("9.80665", "N", "kgf"), ("100", "N", "lbf"), ("10", "kN", "kgf"),
    ("2.54", "kN", "lbf"), ("-50", "N", "lbf"), ("0", "lbf", "N"), ("1e-30", "N", "dyn"),
])
add("energy", [
    ("1", "cal", "J"), ("1", "kcal", "kJ"), ("1", "J", "kcal"),
    ("2000", "kcal", "MJ"), ("1", "eV", "J"), ("1", "keV", "eV"),
    ("1", "keV", "J"), ("1", "J", "eV"), ("13.6", "eV", "J"), ("1", "cal", "eV"),
    ("1", "kWh", "MJ"), ("1", "kW*h", "J"), ("3.6", "MJ", "kWh"),
    ("1", "Wh", "J"), ("1", "Wh", "BTU"), ("1", "BTU", "J"),
    ("1", "BTU", "kcal"), ("1", "kWh", "BTU"), ("1", "erg", "J"),
    ("1", "J", "erg"), ("2.54", "kJ", "Wh"), ("0.1", "kWh", "kJ"), ("-1", "kJ", "J"),
    ("0", "BTU", "J"), ("1e-30", "J", "eV"), ("1e30", "erg", "kWh"),
])
add("power", [
    ("1", "hp", "W"), ("1", "hp", "kW"), ("1", "kW", "hp"),
    ("1", "MW", "hp"), ("0.1", "hp", "W"),
    ("1", "W", "mW"), ("500", "mW", "W"), ("1", "BTU/h", "W"), ("1", "W", "BTU/h"),
    ("1", "kcal/h", "W"), ("1", "J/s", "W"), ("-5", "kW", "W"), ("0", "hp", "W"),
    ("1e-30", "W", "mW"), ("1e30", "W", "MW"),
])
add("pressure", [
    ("1", "atm", "Pa"), ("1", "atm", "kPa"), ("1", "atm", "psi"), ("1", "atm", "mmHg"),
    ("1", "atm", "torr"), ("1", "atm", "inHg"), ("1", "atm", "bar"), ("101325", "Pa", "atm"),
    ("1", "bar", "psi"), ("1", "psi", "Pa"),
    ("32", "psi", "kPa"), ("1", "kPa", "psi"), ("1", "MPa", "psi"),
    ("1", "mmHg", "Pa"), ("1", "torr", "Pa"), ("1", "mmHg", "torr"), ("760", "torr", "atm"),
    ("120", "mmHg", "kPa"), ("1", "inHg", "Pa"), ("1", "inHg", "mmHg"),
    ("29.92", "inHg", "hPa"), ("1013.25", "mbar", "atm"),
    ("2.54", "bar", "psi"), ("-1", "kPa", "Pa"), ("0", "psi", "Pa"), ("1e-30", "Pa", "atm"),
    ("1e30", "Pa", "MPa"),
])
add("speed", [
    ("100", "km/h", "m/s"),  # the seed example
    ("1", "m/s", "km/h"), ("60", "mph", "km/h"), ("100", "km/h", "mph"), ("1", "mph", "m/s"),
    ("88", "ft/s", "mph"), ("1", "ft/s", "m/s"), ("1", "m/s", "ft/s"),
    ("1", "kn", "km/h"), ("1", "knot", "m/s"),
    ("0.1", "m/s", "kn"), ("2.54", "kn", "m/s"), ("1", "kph", "m/s"), ("120", "kph", "mph"),
    ("343", "m/s", "mph"), ("299792458", "m/s", "km/h"), ("-10", "m/s", "km/h"),
    ("0", "mph", "km/h"), ("1e-30", "m/s", "km/h"), ("1e30", "km/h", "m/s"),
])
add("volume", [
    ("1", "L", "mL"), ("1", "l", "ml"), ("0.1", "L", "cm^3"), ("1", "m^3", "L"),
    ("1", "m³", "L"), ("1", "m**3", "L"), ("1", "cm^3", "mL"), ("1", "cm³", "mL"),
    ("1", "cc", "mL"), ("1", "gal", "L"), ("1", "L", "gal"), ("2.54", "gal", "L"),
    ("1", "gal", "qt"), ("1", "qt", "pt"), ("1", "pt", "cup"), ("1", "cup", "floz"),
    ("1", "cup", "mL"), ("1", "floz", "mL"),
    ("500", "mL", "floz"), ("1", "fluid_ounce", "mL"), ("1", "pt", "mL"), ("1", "qt", "L"),
    ("1", "gal", "in^3"), ("1", "ft^3", "L"),
    ("1", "ft^3", "gal"), ("1", "in^3", "cm^3"), ("1", "m^3", "ft^3"),
    ("-1", "L", "mL"), ("0", "gal", "L"), ("1e-30", "m^3", "mL"), ("1e30", "mL", "m^3"),
])
add("area", [
    ("1", "m^2", "ft^2"), ("1", "m²", "ft^2"), ("1", "ft^2", "m^2"),
    ("1", "ft^2", "in^2"), ("1", "in^2", "cm^2"), ("1", "km²", "m²"), ("1", "km^2", "ha"),
    ("1", "km²", "acre"), ("1", "ha", "m^2"), ("0.1", "ha", "m^2"), ("1", "hectare", "acre"),
    ("1", "acre", "m^2"), ("2.54", "acre", "m²"), ("1", "acre", "ft^2"),
    ("640", "acre", "km^2"), ("-2", "m^2", "ft^2"), ("0", "ha", "acre"),
    ("1e-30", "m^2", "in^2"), ("1e30", "in^2", "km^2"),
])
add("angle", [
    ("1", "rad", "deg"), ("0.1", "rad", "deg"), ("3.14159", "rad", "deg"), ("180", "deg", "rad"),
    ("90", "degree", "rad"), ("45", "°", "rad"), ("-45", "deg", "rad"), ("0", "rad", "deg"),
    ("1", "revolution", "deg"), ("1", "turn", "rad"),
    ("1", "turn", "deg"), ("1", "turn", "grad"), ("2.54", "rad", "turn"), ("100", "grad", "deg"),
    ("400", "gon", "turn"), ("1", "gon", "rad"), ("1", "deg", "arcmin"),
    ("1", "arcmin", "arcsec"), ("1", "deg", "arcsec"),
    ("1", "arcsec", "rad"), ("1e-30", "rad", "arcsec"), ("1e30", "arcsec", "turn"),
])
add("frequency", [
    ("1", "kHz", "Hz"), ("1", "MHz", "kHz"), ("0.1", "MHz", "kHz"), ("1", "GHz", "MHz"),
    ("2.4", "GHz", "Hz"), ("440", "Hz", "kHz"),
    ("1", "Hz", "1/s"), ("60", "rpm", "rps"), ("1", "rpm", "rad/s"), ("1", "rpm", "deg/s"),
    ("1", "rad/s", "rpm"), ("3000", "rpm", "rad/s"), ("-1", "kHz", "Hz"), ("0", "MHz", "Hz"),
    ("1e-30", "Hz", "GHz"), ("1e30", "Hz", "GHz"),
])
add("density", [
    ("1", "g/cm^3", "kg/m^3"), ("1", "g/mL", "kg/m^3"), ("1000", "kg/m^3", "g/cm^3"),
    ("1", "lb/ft^3", "kg/m^3"), ("1", "g/cm^3", "lb/ft^3"), ("62.4", "lb/ft^3", "g/cm^3"),
    ("1.225", "kg/m^3", "g/L"), ("1", "g/cc", "g/mL"), ("7.874", "g/cm^3", "lb/in^3"),
    ("13.5951", "g/cm^3", "kg/m^3"), ("0", "kg/m^3", "g/cm^3"),
])
add("charge", [
    ("1", "Ah", "C"), ("1", "mAh", "C"), ("3000", "mAh", "Ah"), ("1", "Ah", "mAh"),
    ("1", "C", "mC"), ("5", "mC", "C"), ("1", "C", "mAh"), ("-2", "Ah", "C"), ("1e-30", "C", "mC"),
])
add("voltage", [
    ("1", "kV", "V"), ("1", "V", "mV"), ("230", "V", "kV"), ("1500", "mV", "V"),
    ("1", "mV", "kV"), ("-12", "V", "mV"), ("0", "kV", "V"),
])
add("current", [
    ("1", "A", "mA"), ("1", "mA", "µA"), ("250", "µA", "mA"), ("20", "mA", "A"),
    ("1", "µA", "A"), ("0.1", "A", "µA"), ("-3", "A", "mA"),
])
add("resistance", [  # "Ω" here is U+03A9; Pint rejects U+2126 OHM SIGN
    ("1", "kΩ", "ohm"), ("4.7", "kΩ", "Ω"), ("1", "MΩ", "kΩ"), ("1", "MΩ", "ohm"),
    ("1", "ohm", "Ω"), ("220", "ohm", "kΩ"), ("0.1", "kohm", "ohm"), ("1", "V/A", "ohm"),
])
add("si_derived", [  # the named SI derived units and their prefixes
    ("1", "mT", "T"), ("1", "T", "Wb/m^2"), ("1", "Wb", "V*s"), ("2.5", "mWb", "Wb"),
    ("1", "µF", "F"), ("1", "F", "C/V"), ("470", "pF", "nF"), ("1", "nH", "H"), ("1", "H", "Wb/A"),
    ("1", "mS", "S"), ("1", "S", "A/V"), ("1", "lx", "lm/m^2"), ("1", "lm", "cd*sr"), ("800", "lm", "klm"),
    ("1", "kBq", "Bq"), ("1", "Bq", "1/s"), ("1", "mGy", "Gy"), ("1", "Gy", "J/kg"), ("1", "mSv", "Sv"),
    ("1", "Sv", "J/kg"), ("1", "kat", "mol/s"), ("1", "µkat", "mol/s"), ("1", "sr", "rad^2"),
    ("1", "MBq", "kBq"), ("1", "GS", "S"),
])
add("cgs_atomic", [  # CGS and atomic units, curie
    ("1", "G", "T"), ("1", "G", "mT"), ("1", "T", "gauss"), ("50", "µT", "G"), ("1", "mG", "nT"), ("1", "kG", "T"),
    ("1", "P", "Pa*s"), ("1", "cP", "mPa*s"), ("1", "St", "m^2/s"), ("1", "cSt", "mm^2/s"),
    ("1", "Ci", "Bq"), ("1", "mCi", "MBq"), ("1", "µCi", "kBq"), ("1", "GBq", "Ci"),
    ("1", "hartree", "eV"), ("1", "Eh", "J"), ("1", "hartree", "kcal"), ("1", "Ry", "eV"), ("1", "Ry", "hartree"),
    ("1", "mSv", "µSv"), ("1", "u", "kg"), ("1", "u", "Da"), ("1", "kDa", "u"), ("1", "Gyr", "yr"), ("1", "Myr", "s"),
])
add("ratios", [
    ("50", "%", "1"), ("1", "%", "ppm"), ("1", "ppm", "ppb"), ("1", "ppb", "ppt"), ("5", "‰", "%"),
    ("250", "ppm", "%"), ("1", "percent", "permille"), ("1", "mg/kg", "ppm"), ("3", "µg/kg", "ppb"),
    ("1", "ppt", "ppm"), ("1", "parts per million", "per mille"), ("1", "1", "%"),
])
add("data_rates", [
    ("1", "Mb", "kB"), ("8", "Mb", "MB"), ("1", "Gb", "MiB"), ("1", "kb", "bit"), ("1", "Mb/s", "kB/s"),
    ("1", "Mbps", "kB/s"), ("100", "Mbps", "MB/s"), ("1", "Gbps", "Mbps"), ("1", "MB/s", "Mbps"),
    ("1", "bit/s", "bps"), ("1", "kbps", "bit/s"), ("1", "MiB/s", "Mbps"), ("1", "MBps", "Mbps"),
    ("1", "GBps", "Gbps"), ("1", "kB", "KiB"), ("1", "TB", "TiB"), ("1", "PB", "PiB"), ("1", "GiB", "Gb"),
])
add("spellings", [  # spellings models write (Beaker's reading; the value from PINT_SPELLING's)
    ("1", "cu ft", "L"), ("1", "cu in", "mL"), ("1", "sq m", "sq ft"), ("1", "sq. ft.", "m^2"), ("1", "N.m", "J"),
    ("1", "N-m", "J"), ("1", "lbf-ft", "N*m"), ("1", "kilowatt-hours", "MJ"), ("60", "KPH", "m/s"),
    ("30", "PSI", "kPa"), ("60", "MPH", "km/h"), ("5", "KILOMETERS", "MILES"), ("1", "kWH", "MJ"),
    ("4.7", "kOhm", "ohm"), ("1", "KM", "mi"), ("1", "Kg", "lb"), ("20", "degrees Celsius", "degrees Fahrenheit"),
    ("2", "henries", "mH"), ("3", "teslas", "gauss"),
])
add("acre", [  # acre is the international acre (as Pint 0.26); survey_acre the US survey one
    ("1", "acre", "survey_acre"), ("1", "survey_acre", "m^2"), ("640", "survey_acre", "km^2"),
])
add("amount", [
    ("1", "mol", "mmol"), ("1", "kmol", "mol"), ("250", "mmol", "mol"), ("1", "kmol", "mmol"),
    ("1", "mol", "µmol"), ("0.1", "mol", "mmol"), ("-1", "mmol", "mol"), ("1e-30", "mol", "mmol"),
])
add("data", [
    ("1", "B", "bit"), ("1", "byte", "bit"), ("8", "bit", "B"), ("1", "kB", "B"),
    ("1", "KiB", "B"), ("1", "MB", "kB"), ("1", "MiB", "KiB"),
    ("1", "GB", "MB"), ("1", "GiB", "MiB"), ("1", "GiB", "GB"),
    ("1", "GB", "GiB"), ("1.5", "GiB", "MB"), ("1", "TB", "GB"), ("1", "TB", "GiB"),
    ("500", "GB", "TiB"), ("1", "kbit", "bit"), ("1", "Mbit", "kB"),
    ("0", "GB", "MB"), ("1e30", "bit", "TB"),
])
add("concentration", [
    ("1", "mol/L", "mmol/L"), ("1", "M", "mol/L"), ("1", "M", "mol/m^3"),
    ("1", "mmol/L", "mol/m^3"), ("1", "mM", "mmol/L"), ("150", "mmol/L", "M"),
    ("1", "mol/m^3", "M"), ("0.1", "M", "mM"), ("5", "mM", "M"), ("1", "µM", "mol/m^3"),
    ("1e-30", "M", "mol/L"),
])
add("compound", [
    ("1", "kg*m/s^2", "N"), ("1", "N·m", "J"), ("1", "N*m", "J"), ("1", "N m", "J"),
    ("1", "kW*h", "MJ"), ("1", "kg m^2 s^-2", "J"),
    ("1", "kg·m²·s⁻²", "J"), ("100", "(km/h)/s", "m/s^2"), ("1", "km/h/s", "m/s^2"),
    ("1", "m/s^2", "ft/s^2"), ("9.80665", "m/s^2", "ft/s^2"), ("1", "m/s²", "ft/s^2"),
    ("1000", "W/m^2", "kW/m^2"), ("1", "W/m^2", "BTU/(h*ft^2)"), ("1", "J/(kg*K)", "J/(g*K)"),
    ("4184", "J/(kg*K)", "cal/(g*K)"), ("1", "BTU/(lb*degR)", "J/(kg*K)"),
    ("1", "lbf*ft", "N*m"), ("1", "N*m", "lbf*in"), ("1", "kg/s", "lb/min"),
    ("1", "m^3/s", "L/min"), ("1", "km/L", "mi/gal"), ("1", "V*A", "W"),
    ("1", "A*s", "C"), ("1", "lbf/in^2", "psi"), ("1", "ft**2", "m**2"),
    ("1", "s^-1", "Hz"),
])
add("names", [  # long names and plurals as a person writes them
    ("100", "kilometers per hour", "miles per hour"), ("1", "meters", "feet"),
    ("1", "kilograms", "pounds"), ("5", "miles", "kilometers"), ("3", "feet", "meters"),
    ("1", "gallons", "liters"),
    ("1", "meter per second", "kilometer per hour"),
    ("1", "cubic meter", "liter"),
    ("1", "square meters", "square feet"), ("1", "degrees", "radians"),
    ("1", "joules", "calories"), ("1", "watts", "horsepower"), ("1", "newtons", "pound_force"),
    ("1", "pascals", "atmospheres"),
    ("1", "gigabytes", "megabytes"),
    ("1", "litres", "millilitres"), ("1", "metres", "feet"),
    ("1", "electronvolts", "joules"),
    ("1", "mile per hour", "meter per second"), ("100", "degree_Celsius", "degree_Fahrenheit"),
    ("300", "kelvin", "celsius"), ("451", "fahrenheit", "celsius"),
])

# Pint behaviours a tool may deliberately not copy (a consumer may skip category "quirk").
QUIRKS = [
    ("60", "rpm", "Hz",
     "Pint: revolution = 2*pi rad and rad is dimensionless, so 60 rpm = 2*pi Hz, not 1 Hz"),
    ("1", "Hz", "rpm",
     "Pint: 1 Hz = 60/(2*pi) rpm, because Hz = 1/s and rpm = 2*pi rad/min"),
    ("1", "B", "rad",
     "Pint: byte, bit and radian are all dimensionless, so 1 B converts to 8 rad"),
]

# Errors: (value, from, to, kind)
ERRORS = [
    ("1", "m", "s", "dimension"), ("1", "kg", "N", "dimension"), ("1", "J", "W", "dimension"),
    ("1", "degC", "m", "dimension"), ("1", "N", "J", "dimension"), ("1", "Pa", "N", "dimension"),
    ("1", "L", "m^2", "dimension"), ("1", "mol", "g", "dimension"), ("1", "rad", "m", "dimension"),
    ("1", "Hz", "s", "dimension"), ("1", "V", "A", "dimension"), ("1", "ohm", "V", "dimension"),
    ("1", "C", "A", "dimension"), ("1", "mph", "m/s^2", "dimension"),
    ("1", "kg/m^3", "kg", "dimension"), ("1", "K", "J", "dimension"), ("1", "W", "Wh", "dimension"),
    ("1", "mAh", "Wh", "dimension"), ("1", "M", "mol", "dimension"), ("1", "eV", "K", "dimension"),
    ("1", "km/h", "km", "dimension"), ("1", "lb", "lbf", "dimension"),
    ("1", "kgf", "kg", "dimension"), ("1", "acre", "ft^3", "dimension"),
    ("1", "°F", "J", "dimension"), ("2.54", "ft", "m^2", "dimension"),
    ("-40", "degF", "Pa", "dimension"),
    ("1", "foobar", "m", "unknown_unit"), ("1", "kmh?", "m/s", "unknown_unit"),
    ("1", "meterz", "ft", "unknown_unit"), ("1", "m", "meterz", "unknown_unit"),
    ("1", "kg", "blorp", "unknown_unit"), ("5", "furlongz", "m", "unknown_unit"),
    # named derived units of different dimensions
    ("1", "T", "Wb", "dimension"), ("1", "F", "H", "dimension"), ("1", "S", "ohm", "dimension"),
    ("1", "kat", "mol", "dimension"), ("1", "P", "St", "dimension"), ("1", "Ci", "Gy", "dimension"),
    # spellings that match several units when case is ignored: Beaker refuses them, Pint does not know them
    ("1", "KB", "kB", "unknown_unit"), ("1", "MBar", "bar", "unknown_unit"), ("1", "MHZ", "Hz", "unknown_unit"),
]


# ---------------------------------------------------------------------------------------
# Number formatting
# ---------------------------------------------------------------------------------------
def terminates(x: Fraction) -> bool:
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def to_decimal(x: Fraction, sig=None) -> Decimal:
    """Exact Decimal of a terminating x (sig=None), or x correctly rounded to `sig` digits."""
    if sig is None:
        k = 0
        while (x * 10**k).denominator != 1:
            k += 1
        n = int(x * 10**k)
        e = -k
        while n != 0 and n % 10 == 0:  # strip trailing zeros
            n //= 10
            e += 1
        return Decimal(f"{n}e{e}")  # exact: Decimal(str) never rounds
    ctx = decimal.Context(prec=sig, rounding=decimal.ROUND_HALF_EVEN)
    return ctx.divide(Decimal(x.numerator), Decimal(x.denominator))


def fmt(d: Decimal) -> str:
    if d.is_zero():
        return "0"
    sign, digits, exp = d.as_tuple()
    ds = "".join(map(str, digits))
    adj = exp + len(ds) - 1  # exponent of the leading digit
    s = "-" if sign else ""
    if -7 <= adj <= 27:
        if exp >= 0:
            return s + ds + "0" * exp
        point = len(ds) + exp
        if point > 0:
            return s + ds[:point] + "." + ds[point:]
        return s + "0." + "0" * (-point) + ds
    mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
    return f"{s}{mant}e{adj}"


def rel_close(a, b, rel, abs_tol=0.0):
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_tol)


# ---------------------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------------------
def pint_spelling(unit):
    return PINT_SPELLING.get(unit, unit)


def convert(reg, value, frm, to):
    return reg.Quantity(value, pint_spelling(frm)).to(pint_spelling(to)).magnitude


def exact_line(category, value, frm, to):
    mag = convert(UF, Fraction(value), frm, to)
    if isinstance(mag, int):
        mag = Fraction(mag)
    line = {"value": value, "from_unit": frm, "to_unit": to}
    if not isinstance(mag, Fraction):  # pragma: no cover - never happens with Pint 0.26.2
        try:
            dm = convert(UD, Decimal(value), frm, to)
            line["expected"] = fmt(DEC_CTX.plus(dm).normalize())  # 50-digit Decimal path
            line["exact"] = False
            line["tolerance"] = 1e-40
        except Exception:
            fl = convert(UFLOAT, float(value), frm, to)
            line["expected"] = repr(float(fl))
            line["exact"] = False
            line["tolerance"] = 1e-12
        line["category"] = category
        return line, None

    mag_pi = convert(UF_PI, Fraction(value), frm, to)
    pi_dependent = Fraction(mag_pi) != mag
    if pi_dependent:
        exp = to_decimal(Fraction(mag_pi), SIG)
        assert exp == to_decimal(mag, SIG), (frm, to, "50-digit pi changes the 28-digit result")
        line["expected"], line["exact"] = fmt(exp), False
    elif terminates(mag):
        line["expected"], line["exact"] = fmt(to_decimal(mag)), True
    else:
        line["expected"], line["exact"] = fmt(to_decimal(mag, SIG)), False
    line["category"] = category

    # Cross-check 1: Pint with Decimal at 50 digits.
    dm = convert(UD, Decimal(value), frm, to)
    assert rel_close(Fraction(dm), mag, F(1, 10**40), F(1, 10**40)), (frm, to, dm, float(mag))
    # Cross-check 2: plain float Pint.
    fl = convert(UFLOAT, float(value), frm, to)
    abs_tol = 1e-12 if category == "temperature" else 0.0
    assert rel_close(float(fl), float(mag), 1e-12, abs_tol), (frm, to, fl, float(mag))
    return line, mag


def error_line(value, frm, to, kind):
    try:
        got = convert(UF, Fraction(value), frm, to)
    except pint.DimensionalityError:
        found = "dimension"
    except (pint.UndefinedUnitError, pint.errors.DefinitionSyntaxError):
        found = "unknown_unit"
    else:
        raise AssertionError(f"{frm} -> {to} should fail ({kind}) but gave {got}")
    assert found == kind, (frm, to, found, kind)
    return {"value": value, "from_unit": frm, "to_unit": to, "error": kind, "category": "error"}


def check_defaults(show):
    for sym, target, want in PINT_DEFAULTS:
        got = Fraction(convert(UF_PI, Fraction(1), sym, target))
        assert got == want, f"Pint's {sym} is {got} {target}, expected {want}"
        if show:
            if terminates(got):
                txt = fmt(to_decimal(got))
            else:
                txt = fmt(to_decimal(got, 30)) + "..."
            rat = f"{got.numerator}/{got.denominator}"
            rat = f"  (= {rat})" if got.denominator != 1 and len(rat) < 60 else ""
            print(f"1 {sym:7} = {txt} {target}{rat}")


def main():
    show = "--defs" in sys.argv
    check_defaults(show)

    lines = []
    seen = set()
    for category, value, frm, to in CASES:
        key = (value, frm, to)
        assert key not in seen, f"duplicate case {key}"
        seen.add(key)
        line, _ = exact_line(category, value, frm, to)
        lines.append(line)
    for value, frm, to, note in QUIRKS:
        line, _ = exact_line("quirk", value, frm, to)
        line["note"] = note
        lines.append(line)
    for value, frm, to, kind in ERRORS:
        lines.append(error_line(value, frm, to, kind))

    # The seed example must come out exactly as given in the spec.
    seed = next(x for x in lines if (x["value"], x["from_unit"], x["to_unit"]) == ("100", "km/h", "m/s"))
    assert seed["expected"] == "27.77777777777777777777777778", seed

    # Every non-error expected value has >= 25 significant digits unless it is exact.
    for x in lines:
        if "expected" in x and not x["exact"]:
            digits = x["expected"].lstrip("-").split("e")[0].replace(".", "").lstrip("0")
            assert len(digits) >= 25, x

    text = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)

    # Validate what was written.
    cats = {}
    with open(OUT, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            obj = json.loads(raw)
            assert isinstance(obj["value"], str) and obj["category"], n
            assert ("expected" in obj) != ("error" in obj), n
            if "expected" in obj:
                Decimal(obj["expected"])  # parses as a decimal
                assert math.isfinite(float(obj["expected"])), n
            cats[obj["category"]] = cats.get(obj["category"], 0) + 1
    total = sum(cats.values())
    print(f"wrote {total} lines to {os.path.relpath(OUT)} (Pint {pint.__version__})", file=sys.stderr)
    for c in sorted(cats):
        print(f"  {c:14} {cats[c]}", file=sys.stderr)


if __name__ == "__main__":
    main()
