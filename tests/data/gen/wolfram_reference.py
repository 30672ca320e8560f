"""Writes tests/data/wolfram/questions.jsonl: natural-language questions of the kinds models ask `wolfram`, each
with its answer from a source independent of Beaker:

- arithmetic: mpmath at 50 digits;
- calculus: SymPy 1.14 on the host (definite integrals and limits as numbers; derivatives and antiderivatives
  as values at sample points, antiderivatives compared by differences since they hold up to a constant;
  equations by their real solutions);
- conversions: Pint 0.25's default registry;
- constants: scipy.constants (CODATA 2022), converted with Pint where asked in other units;
- astronomy: astropy.constants (IAU nominal values), DE421's header GM over CODATA G for the masses of the
  Moon, Mercury, Venus and Mars (the table's own publication), and distances recomputed from ERFA's own planetary
  theories (pyerfa: epv00 for the Earth, plan94 for the planets, moon98 for the Moon; daily over 1900-2050),
  not from the DE421 table `wolfram` ships: they agree within 1e-4 relative (plan94's accuracy, and daily
  samples of the Moon's perigee);
- elements and compounds: the chemicals 1.5.2 package (its periodic table; its property functions, as
  tests/all/pubchem.rs).

Each case: {"query", "format"?, and one of "number" (+ "rtol", "unit"), "text" (exact), "solutions" (real
numbers), "samples" ({"variable", "points", "values", "up_to_constant"})}. Tolerances are per case and say why.

Needs: pip install mpmath sympy==1.14.0 pint==0.25.3 scipy==1.17.1 astropy==8.0.2 pyerfa==2.0.1.5
chemicals==1.5.2 jplephem==2.24 de421==2008.1. Run: python3 tests/data/gen/wolfram_reference.py
"""

import json
import os

import mpmath
import numpy as np
import pint
import sympy as sp
from scipy import constants as sc

mpmath.mp.dps = 50
ureg = pint.UnitRegistry()
cases = []


def add(query, **kw):
    cases.append({"query": query, **kw})


# Arithmetic: calculator answers with 15 significant digits, so 1e-14 relative.
ARITH = [
    ("What is 2^64 - 1?", mpmath.mpf(2) ** 64 - 1),
    ("2^10 + 5", mpmath.mpf(2) ** 10 + 5),
    ("square root of 2", mpmath.sqrt(2)),
    ("cube root of 27", mpmath.cbrt(27)),
    ("15% of 80", mpmath.mpf(15) / 100 * 80),
    ("20 factorial", mpmath.factorial(20)),
    ("7 squared", mpmath.mpf(49)),
    ("3 cubed", mpmath.mpf(27)),
    ("100 divided by 8", mpmath.mpf(100) / 8),
    ("12 times 7 plus 3", mpmath.mpf(87)),
    ("calculate 355/113", mpmath.mpf(355) / 113),
    ("e^pi", mpmath.e ** mpmath.pi),
    ("pi^2/6", mpmath.pi ** 2 / 6),
    ("sin(pi/6)", mpmath.mpf(1) / 2),
    ("cos(1)", mpmath.cos(1)),
    ("ln(2)", mpmath.log(2)),
    ("log10(1000)", mpmath.mpf(3)),
    ("log2(1024)", mpmath.mpf(10)),
    ("exp(1)", mpmath.e),
    ("what's 17 * 23", mpmath.mpf(17 * 23)),
    ("1/3 + 1/6", mpmath.mpf(1) / 2),
    ("0.1 + 0.2", mpmath.mpf("0.3")),
    ("(1 + sqrt(5))/2", (1 + mpmath.sqrt(5)) / 2),
    ("comb(52, 5)", mpmath.binomial(52, 5)),
    ("gcd(1071, 462)", mpmath.mpf(21)),
    ("atan(1)*4", mpmath.pi),
    ("2 to the power of 0.5", mpmath.sqrt(2)),
    ("1000 minus 1 divided by 3", 1000 - mpmath.mpf(1) / 3),
    ("compute 3.7 * 2.1", mpmath.mpf("3.7") * mpmath.mpf("2.1")),
    ("tanh(0.5)", mpmath.tanh(mpmath.mpf("0.5"))),
]
for q, v in ARITH:
    add(q, number=float(v), rtol=1e-14)

# Calculus by SymPy: symbolic_math's 15-digit decimals, so 1e-13 relative.
x, t, y = sp.symbols("x t y")
DEFINITE = [
    ("integral of x^2 from 0 to 1", x**2, x, 0, 1),
    ("What is the integral of sin(x) from 0 to pi?", sp.sin(x), x, 0, sp.pi),
    ("integrate exp(-x) from 0 to infinity", sp.exp(-x), x, 0, sp.oo),
    ("integral of 1/(1+x^2) dx from -infinity to infinity", 1 / (1 + x**2), x, -sp.oo, sp.oo),
    ("integral of exp(-t^2) dt from -infinity to infinity", sp.exp(-(t**2)), t, -sp.oo, sp.oo),
    ("definite integral of x*exp(x) from 0 to 1", x * sp.exp(x), x, 0, 1),
    ("integrate ln(x) from 1 to e", sp.log(x), x, 1, sp.E),
    ("integral of cos(x)^2 from 0 to pi", sp.cos(x) ** 2, x, 0, sp.pi),
    ("integrate 1/x from 1 to 10", 1 / x, x, 1, 10),
    ("integral of sqrt(x) from 0 to 4", sp.sqrt(x), x, 0, 4),
    ("integral of x^3 - 2x from -1 to 2", x**3 - 2 * x, x, -1, 2),
]
for q, f, v, a, b in DEFINITE:
    add(q, number=float(sp.N(sp.integrate(f, (v, a, b)), 30)), rtol=1e-13)

LIMITS = [
    ("limit of sin(x)/x as x -> 0", sp.sin(x) / x, x, 0, "+-"),
    ("limit of (1 + 1/x)^x as x approaches infinity", (1 + 1 / x) ** x, x, sp.oo, "-"),
    ("limit of (exp(x) - 1)/x as x -> 0", (sp.exp(x) - 1) / x, x, 0, "+-"),
    ("the limit of (1 - cos(x))/x^2 as x goes to 0", (1 - sp.cos(x)) / x**2, x, 0, "+-"),
    ("limit of x*log(x) as x -> 0 from the right", x * sp.log(x), x, 0, "+"),
    ("limit of (x^2 - 4)/(x - 2) as x -> 2", (x**2 - 4) / (x - 2), x, 2, "+-"),
    ("limit of sqrt(x^2 + x) - x as x -> infinity", sp.sqrt(x**2 + x) - x, x, sp.oo, "-"),
]
LIMITS.append(("lim x->0 (1 - cos(x))/x^2", (1 - sp.cos(x)) / x**2, x, 0, "+-"))
for q, f, v, p, d in LIMITS:
    add(q, number=float(sp.N(sp.limit(f, v, p, d), 30)), rtol=1e-13)

POINTS = [0.3, 0.7, 1.3, 2.1]
DERIVATIVES = [
    ("derivative of x^3", x**3, x, 1),
    ("What is the derivative of sin(x)*x?", sp.sin(x) * x, x, 1),
    ("d/dx exp(2x)", sp.exp(2 * x), x, 1),
    ("differentiate log(x)/x", sp.log(x) / x, x, 1),
    ("the second derivative of x^4 - 3x^2", x**4 - 3 * x**2, x, 2),
    ("derivative of atan(x) with respect to x", sp.atan(x), x, 1),
    ("derivative of sqrt(1 + x^2)", sp.sqrt(1 + x**2), x, 1),
    ("third derivative of sin(x)", sp.sin(x), x, 3),
    ("derivative of t^2*exp(-t) with respect to t", t**2 * sp.exp(-t), t, 1),
]
for q, f, v, n in DERIVATIVES:
    d = sp.diff(f, v, n)
    add(q, samples={"variable": str(v), "points": POINTS,
                    "values": [float(sp.N(d.subs(v, p), 30)) for p in POINTS], "up_to_constant": False}, rtol=1e-12)

# A derivative at a point: SymPy's derivative evaluated there.
for q, f, v, p in [("derivative of x^3 - 2x at x = 2", x**3 - 2 * x, x, 2),
                   ("What is the derivative of sin(x) at pi/3?", sp.sin(x), x, sp.pi / 3),
                   ("derivative of t^2*exp(t) with respect to t evaluated at 1", t**2 * sp.exp(t), t, 1)]:
    add(q, number=float(sp.N(sp.diff(f, v).subs(v, p), 30)), rtol=1e-13)

ANTIDERIVATIVES = [
    ("integral of x^2", x**2, x),
    ("integrate sin(x) dx", sp.sin(x), x),
    ("antiderivative of 1/x", 1 / x, x),
    ("integral of x*cos(x) dx", x * sp.cos(x), x),
    ("integrate exp(3x)", sp.exp(3 * x), x),
    ("integral of 1/(1 + x^2)", 1 / (1 + x**2), x),
    ("indefinite integral of log(x)", sp.log(x), x),
]
for q, f, v in ANTIDERIVATIVES:
    F = sp.integrate(f, v)
    add(q, samples={"variable": str(v), "points": POINTS,
                    "values": [float(sp.N(F.subs(v, p), 30)) for p in POINTS], "up_to_constant": True}, rtol=1e-12)

SOLVE = [
    ("solve x^2 - 5x + 6 = 0", x**2 - 5 * x + 6),
    ("solve x^2 = 2 for x", x**2 - 2),
    ("roots of x^3 - x", x**3 - x),
    ("solve 2x + 3 = 11", 2 * x + 3 - 11),
    ("solve x^2 + x - 1 = 0", x**2 + x - 1),
    ("zeros of x^4 - 5x^2 + 4", x**4 - 5 * x**2 + 4),
]
for q, f in SOLVE:
    sols = sorted(float(s) for s in sp.solve(f, x) if s.is_real)
    add(q, solutions=sols, rtol=1e-13)

SIMPLIFY = [
    ("simplify (x^2 - 1)/(x - 1)", (x**2 - 1) / (x - 1)),
    ("simplify sin(x)^2 + cos(x)^2", sp.sin(x) ** 2 + sp.cos(x) ** 2),
    ("expand (x + 1)^3", (x + 1) ** 3),
    ("factor x^2 - 5x + 6", x**2 - 5 * x + 6),
]
for q, f in SIMPLIFY:
    add(q, samples={"variable": "x", "points": POINTS,
                    "values": [float(sp.N(f.subs(x, p), 30)) for p in POINTS], "up_to_constant": False}, rtol=1e-12)

# Conversions by Pint: unit_converter's exact factors, 15 significant digits: 1e-12 relative.
CONVERT = [
    ("convert 60 mph to km/h", 60, "mph", "km/h"),
    ("100 degrees Fahrenheit in Celsius", 100, "degF", "degC"),
    ("37 degrees Celsius to Fahrenheit", 37, "degC", "degF"),
    ("0 celsius to kelvin", 0, "degC", "K"),
    ("1500 m in feet", 1500, "m", "ft"),
    ("How many seconds are in a day?", 1, "day", "s"),
    ("how many ounces in 3 pounds", 3, "lb", "oz"),
    ("how many feet in a mile", 1, "mile", "ft"),
    ("how many centimeters in an inch", 1, "inch", "cm"),
    ("convert 5 km to miles", 5, "km", "mile"),
    ("10 kg to pounds", 10, "kg", "lb"),
    ("2.5 liters to gallons", 2.5, "L", "gallon"),
    ("1 atm to Pa", 1, "atm", "Pa"),
    ("760 mmHg in kPa", 760, "mmHg", "kPa"),
    ("1 eV to J", 1, "eV", "J"),
    ("1 kWh to MJ", 1, "kWh", "MJ"),
    ("100 km/h to m/s", 100, "km/h", "m/s"),
    ("1 light year to km", 1, "light_year", "km"),
    ("1 au in km", 1, "astronomical_unit", "km"),
    ("3 hours in minutes", 3, "hour", "minute"),
    ("1 year in seconds", 1, "year", "s"),
    ("180 degrees to radians", 180, "degree", "radian"),
    ("1 radian in degrees", 1, "radian", "degree"),
    ("250 mL to cups", 250, "mL", "cup"),
    # The acre is the international one (43,560 international square feet; NIST retired the US survey foot
    # in 2023); Pint 0.25's `acre` is still the survey acre, so the reference is written from the definition.
    ("1 acre in square meters", 43560, "ft^2", "m^2"),
    ("1 hectare to acres", 1 / 0.40468564224, "hectare", "hectare"),
    ("1 horsepower in watts", 1, "hp", "W"),
    ("1000 calories in joules", 1000, "cal", "J"),
    ("1 btu to joules", 1, "Btu", "J"),
    ("1 nautical mile in meters", 1, "nautical_mile", "m"),
    ("50 mph in m/s", 50, "mph", "m/s"),
    ("1 GB in MB", 1, "GB", "MB"),
    ("1 psi to kPa", 1, "psi", "kPa"),
]
for q, v, f, to in CONVERT:
    value = ureg.Quantity(v, f).to(to).magnitude
    add(q, number=float(value), rtol=1e-12)

# Constants: scipy.constants' CODATA 2022, exact to the digit as published (1e-15 relative for the decimal
# text read back), and in other units via Pint from that value (1e-12 relative).
CONSTANTS = [
    ("speed of light", "speed of light in vacuum"),
    ("What is Planck's constant?", "Planck constant"),
    ("the reduced Planck constant", "reduced Planck constant"),
    ("gravitational constant", "Newtonian constant of gravitation"),
    ("Boltzmann constant", "Boltzmann constant"),
    ("Avogadro's number", "Avogadro constant"),
    ("elementary charge", "elementary charge"),
    ("mass of an electron", "electron mass"),
    ("proton mass", "proton mass"),
    ("neutron mass", "neutron mass"),
    ("fine structure constant", "fine-structure constant"),
    ("Rydberg constant", "Rydberg constant"),
    ("ideal gas constant", "molar gas constant"),
    ("permittivity of free space", "vacuum electric permittivity"),
    ("vacuum permeability", "vacuum mag. permeability"),
    ("Stefan-Boltzmann constant", "Stefan-Boltzmann constant"),
    ("Faraday constant", "Faraday constant"),
    ("Bohr radius", "Bohr radius"),
    ("standard gravity", "standard acceleration of gravity"),
    ("atomic mass unit", "atomic mass constant"),
    ("Wien's displacement constant", "Wien wavelength displacement law constant"),
    ("value of the Bohr magneton", "Bohr magneton"),
    ("inverse fine-structure constant", "inverse fine-structure constant"),
]
for q, name in CONSTANTS:
    add(q, number=sc.physical_constants[name][0], rtol=1e-15)
IN_UNITS = [
    ("speed of light in km/s", "speed of light in vacuum", "m/s", "km/s"),
    ("Planck constant in eV s", "Planck constant", "J*s", "eV*s"),
    ("proton mass in grams", "proton mass", "kg", "g"),
    ("Boltzmann constant in eV/K", "Boltzmann constant", "J/K", "eV/K"),
    ("standard atmosphere in psi", "standard atmosphere", "Pa", "psi"),
]
for q, name, f, to in IN_UNITS:
    value = ureg.Quantity(sc.physical_constants[name][0], f).to(to).magnitude
    add(q, number=float(value), rtol=1e-12)

# Astronomy: astropy's IAU values exactly (1e-15), in other units through Pint (1e-12).
from astropy import constants as ac  # noqa: E402

IAU = [
    ("mass of the Sun", ac.M_sun.si.value),
    ("solar radius", ac.R_sun.si.value),
    ("radius of the Earth", ac.R_earth.si.value),
    ("mass of the Earth", ac.M_earth.si.value),
    ("mass of Jupiter", ac.M_jup.si.value),
    ("luminosity of the Sun", ac.L_sun.si.value),
    ("astronomical unit", ac.au.si.value),
    ("parsec", ac.pc.si.value),
]
for q, v in IAU:
    add(q, number=float(v), rtol=1e-15)
# Masses of the Moon, Mercury, Venus and Mars: their publication, DE421's header GM (read here with jplephem)
# over scipy's CODATA 2022 G, to 1e-14.
import de421  # noqa: E402
from jplephem import Ephemeris  # noqa: E402

_e = Ephemeris(de421)
_si = (_e.AU * 1000.0) ** 3 / 86400.0**2
for q, gm in [("mass of Mars", _e.GM4), ("mass of the Moon", _e.GMB / (1 + _e.EMRAT)),
              ("What is the mass of Venus?", _e.GM2), ("Mercury's mass", _e.GM1)]:
    add(q, number=gm * _si / sc.G, rtol=1e-14, unit="kg")
add("light year in km", number=float(ureg.Quantity(365.25 * 86400 * sc.c, "m").to("km").magnitude), rtol=1e-12)
add("parsec in light years", number=float(ac.pc.si.value / (365.25 * 86400 * sc.c)), rtol=1e-12)

import erfa  # noqa: E402

jd = np.arange(2415020.5, 2469807.5, 1.0)
pvh, _ = erfa.epv00(jd, np.zeros_like(jd))  # Earth heliocentric, au
earth = pvh["p"]
AU_KM = 149597870.7
PLANETS = {"mercury": 1, "venus": 2, "mars": 4, "jupiter": 5, "saturn": 6, "uranus": 7, "neptune": 8}


def earth_to(body):
    if body == "sun":
        return np.linalg.norm(earth, axis=1) * AU_KM
    if body == "moon":
        pv = erfa.moon98(jd, np.zeros_like(jd))  # geocentric, au
        return np.linalg.norm(pv["p"], axis=1) * AU_KM
    pv = erfa.plan94(jd, np.zeros_like(jd), PLANETS[body])
    return np.linalg.norm(pv["p"] - earth, axis=1) * AU_KM


# The two ephemerides agree within 3e-5 relative for the planets and the Sun (plan94's own accuracy); the
# Moon's daily samples miss its perigee by up to ~30 km of 356,000 (8e-5): 1e-4 for every case.
for q, body, stat, rtol in [
    ("distance from Earth to Mars", "mars", "mean", 1e-4),
    ("closest distance between Earth and Mars", "mars", "least", 1e-4),
    ("maximum distance from Earth to Mars", "mars", "greatest", 1e-4),
    ("distance from the Earth to the Sun", "sun", "mean", 1e-4),
    ("distance between the Earth and the Moon", "moon", "mean", 1e-4),
    ("minimum distance from Earth to the Moon", "moon", "least", 1e-4),
    ("how far is Venus from Earth", "venus", "mean", 1e-4),
    ("closest distance from Earth to Venus", "venus", "least", 1e-4),
    ("distance from Earth to Jupiter", "jupiter", "mean", 1e-4),
    ("farthest distance from Earth to Saturn", "saturn", "greatest", 1e-4),
    ("how far is Neptune", "neptune", "mean", 1e-4),
]:
    d = earth_to(body)
    v = {"mean": np.trapezoid(d, jd) / (jd[-1] - jd[0]), "least": d.min(), "greatest": d.max()}[stat]
    add(q, number=float(v), rtol=rtol, unit="km")

# Elements: chemicals' periodic table (its weights differ from CIAAW 2021's by up to 0.01 u: 1e-3 relative
# for weights; symbols, numbers, periods exactly).
from chemicals import periodic_table as pt  # noqa: E402

for name in ["iron", "gold", "carbon", "oxygen", "uranium", "sodium", "chlorine", "helium"]:
    e = pt[name.capitalize()] if name.capitalize() in pt else pt[name]
    add(f"atomic weight of {name}", number=float(e.MW), rtol=1e-3)
for name in ["silver", "lead", "tungsten", "potassium"]:
    e = pt[name.capitalize()]
    add(f"chemical symbol of {name}", text=e.symbol)
for name in ["neon", "mercury", "tin"]:
    e = pt[name.capitalize()]
    add(f"atomic number of {name}", number=float(e.number), rtol=0)
add("atomic weight of Fe", number=float(pt["Fe"].MW), rtol=1e-3)

# Compounds: chemicals' own functions (the tables pubchem reads), to 1e-9; a formula's molar mass by
# chemicals.molecular_weight of its atoms (weights within 1e-3 of CIAAW's, as above).
import chemicals  # noqa: E402

for q, name, fn in [
    ("boiling point of ethanol", "ethanol", chemicals.Tb),
    ("melting point of benzene", "benzene", chemicals.Tm),
    ("boiling point of water", "water", chemicals.Tb),
    ("melting point of acetic acid", "acetic acid", chemicals.Tm),
    ("flash point of acetone", "acetone", chemicals.T_flash),
]:
    cas = chemicals.CAS_from_any(name)
    add(q, number=float(fn(cas)), rtol=1e-9, unit="K")
for q, name in [("molecular weight of caffeine", "caffeine"), ("molar mass of aspirin", "aspirin"),
                ("molecular weight of glucose", "glucose")]:
    add(q, number=float(chemicals.search_chemical(name).MW), rtol=1e-9)
for q, formula in [("molar mass of H2SO4", "H2SO4"), ("molar mass of NaCl", "NaCl"),
                   ("molecular weight of C6H12O6", "C6H12O6"), ("molar mass of CuSO4·5H2O", "CuSO9H10")]:
    add(q, number=float(chemicals.molecular_weight(chemicals.simple_formula_parser(formula))), rtol=1e-3)
add("formula of caffeine", text=chemicals.search_chemical("caffeine").formula)
add("CAS number of aspirin", text=chemicals.search_chemical("aspirin").CASs)

# Phrasings from a trial of the tool as users write (factorials, superscripts, words, trailing courtesy, a
# property in another unit, the electron's sign), each with its reference as above.
add("what is 10!?", number=float(mpmath.factorial(10)), rtol=0)
add("π²", number=float(mpmath.pi ** 2), rtol=1e-14)
add("what's the square root of 144?", number=12.0, rtol=0)
add("3 to the 4th power", number=81.0, rtol=0)
add("log of 100", number=float(mpmath.log(100)), rtol=1e-14)
add("integral of x^2 from 0 to 3 dx", number=9.0, rtol=1e-13)
add("solve x^2 - 4 = 0 please", solutions=[-2.0, 2.0], rtol=1e-13)
add("derivative of x squared at x = 5", number=10.0, rtol=1e-13)
add("lim (1 + 1/n)^n as n -> infinity", number=float(mpmath.e), rtol=1e-13)
add("charge of an electron", number=-sc.e, rtol=1e-15)
add("how many miles is 5 km", number=float(ureg.Quantity(5, "km").to("mile").magnitude), rtol=1e-12)
# The food Calorie is a kilocalorie (Pint has no `Cal`; from its definition, 4184 J).
add("1 Calorie in kJ", number=4.184, rtol=1e-15)
add("boiling point of water in fahrenheit",
    number=float(ureg.Quantity(chemicals.Tb("7732-18-5"), "K").to("degF").magnitude), rtol=1e-9)
add("Jupiter's mass", number=float(ac.M_jup.si.value), rtol=1e-15)
# From a second trial: a function applied without parentheses binds to its next token only; constants'
# integrals and derivatives are in x; "over the reals" with no real root; a molar mass in kg/mol.
add("solve sin x * 2 = 1", solutions=sorted(float(v) for v in sp.solve(sp.sin(x) * 2 - 1, x)), rtol=1e-13)
add("derivative of cos x * x at x = 0", number=float(sp.diff(sp.cos(x) * x, x).subs(x, 0)), rtol=0)
add("integral of sin x * x from 0 to pi", number=float(sp.integrate(sp.sin(x) * x, (x, 0, sp.pi))), rtol=1e-13)
add("integral of 3 from 0 to 2", number=6.0, rtol=0)
add("solve x^2 + 1 = 0 over the reals", solutions=[], rtol=0)
add("molar mass of H2O in kg/mol",
    number=float(chemicals.molecular_weight(chemicals.simple_formula_parser("H2O"))) / 1000, rtol=1e-3)
add("electron magnetic moment", number=sc.physical_constants["electron mag. mom."][0], rtol=1e-15)
add("1 Ah to C", number=float(ureg.Quantity(1, "A*h").to("C").magnitude), rtol=1e-15)
add("electron mass in MeV/c^2", number=float(ureg.Quantity(sc.m_e, "kg").to("MeV/c**2").magnitude), rtol=1e-12)

# The formats: full lists the calls, steps shows a definite integral's antiderivative first.
# steps: "Read as", SymPy's rules (manualintegrate's, as `sp.integrals.manualintegrate.integral_steps` names
# them), the antiderivative, then the evaluation between the bounds.
add("integral of x^2 from 0 to 3", format="steps", number=9.0, rtol=1e-13, steps=4,
    steps_contain=["Power rule (base = x, exp = 2)", "Evaluate between 0 and 3: 9"])
from sympy.integrals.manualintegrate import integral_steps  # noqa: E402

assert type(integral_steps(x * sp.cos(x), x)).__name__ == "PartsRule"
add("integral of x*cos(x) dx", format="steps", samples={"variable": "x", "points": POINTS, "values": [
    float(sp.N((x * sp.sin(x) + sp.cos(x)).subs(x, p), 30)) for p in POINTS], "up_to_constant": True},
    rtol=1e-12, steps=5, steps_contain=["Parts rule (u = x, dv = cos(x))"])
add("convert 1 mile to km", format="full", number=1.609344, rtol=1e-15, calls=1)

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "wolfram", "questions.jsonl")
with open(out, "w") as f:
    for c in cases:
        f.write(json.dumps(c) + "\n")
print(f"wrote {len(cases)} questions to {os.path.normpath(out)}")
