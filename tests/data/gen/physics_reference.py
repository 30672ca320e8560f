#!/usr/bin/env python3
# Requires (pinned; the data was last written with exactly these, on CPython 3.11.7):
#     python3 -m venv ~/.cache/beaker-physref
#     ~/.cache/beaker-physref/bin/pip install mpmath==1.4.1 pint==0.25.3 scipy==1.17.1   (brings numpy 2.4.6)
#
#   ~/.cache/beaker-physref/bin/python tests/data/gen/physics_reference.py
#       (re)writes tests/data/physics/reference.jsonl
#
# Pint 0.25.3 is the newest that installs on Python 3.11; it is used only to convert unit strings (exactly, with
# Fraction magnitudes), never for constants, so its CODATA edition does not matter here.
#
"""Independent reference data for Beaker's `physics` tool (API: the physics tool's design doc).

Writes ``tests/data/physics/reference.jsonl``: `//` comment lines, then one JSON case per line, in a fixed
order (no randomness, no clock: re-running rewrites identical bytes):

    {"name": ..., "tool": "physics", "params": {"operation": OP, ...}, "expected": {subset of the result},
     "rtol": 1e-12, "atol": 0, "source": "closed form (mpmath 50 digits)" [, "note": ...]}
    {"name": ..., "tool": "physics", "params": {...}, "error_kind": "domain_error", "source": ... [, "note": ...]}

How the values are made, never from Beaker's output:

* every physical result is evaluated with mpmath at 50 significant digits from the closed-form formula stated
  in a comment next to it (no numerical solver anywhere); the resistor networks are solved exactly in rational
  arithmetic (fractions.Fraction, Gaussian elimination on the nodal Laplacian) and cross-checked against
  closed forms (cube 5/6, 7/12, 3/4; Wheatstone-bridge formula; ladder continued fraction = Fibonacci ratio);
* constants come from scipy.constants (CODATA 2022 in SciPy 1.17.1; asserted below): G, c, standard gravity
  g = 9.80665 (a conventional value, not CODATA), molar gas constant R = 8.31446261815324 (exact since 2019);
* unit strings in params ("20 m/s", "10 kohm", "25 degC", ...) are converted to SI by Pint with
  ``UnitRegistry(non_int_type=fractions.Fraction)``, i.e. exactly (a degree is pi/180 with Pint's 50-digit pi);
  the dimension of every string is asserted, so a typo here cannot slip a wrong dimension into a case;
* bare numbers are read as the decimal written in params (mpf('9.80665'), not the nearest double); the
  difference from the double the tool receives is below 1e-16 relative, far inside the tolerances;
* each expected number is the 50-digit value rounded once to the nearest float64; values that are exactly
  zero in exact arithmetic (ΔU of an isothermal process, energy lost in an elastic collision, ...) are written
  as 0.0 and their case carries an atol of 1e-12 times the case's scale.
"""
import fractions
import json
import math
import pathlib
import platform
import random
import re
import sys

import mpmath
import pint
import scipy
import scipy.constants as sc
from mpmath import mp, mpf

mp.dps = 50
F = fractions.Fraction

OUT = pathlib.Path(__file__).resolve().parent.parent / "physics" / "reference.jsonl"

# --- constants ---------------------------------------------------------------------------------------------
assert sc._codata._current_codata == "CODATA 2022", sc._codata._current_codata
G_VALUE, G_UNIT, _ = sc.physical_constants["Newtonian constant of gravitation"]
assert (G_VALUE, G_UNIT) == (6.6743e-11, "m^3 kg^-1 s^-2")
G = mpf(repr(G_VALUE))                       # 6.67430e-11 m^3 kg^-1 s^-2
C_LIGHT = mpf(repr(sc.c))                    # 299792458 m/s (exact)
G0 = mpf(repr(sc.g))                         # 9.80665 m/s^2 standard gravity (exact by definition)
R_GAS = mpf(repr(sc.R))                      # 8.31446261815324 J/(mol K) (exact: N_A k)
assert repr(sc.c) == "299792458.0" and repr(sc.g) == "9.80665" and repr(sc.R) == "8.31446261815324"
SOUND = mpf(343)                             # default wave speed of `doppler` (API doc)

SRC = "closed form (mpmath 50 digits)"
SRC_NET = "exact rational nodal analysis (fractions.Fraction), cross-checked with the closed form"

# --- unit strings -> SI (Pint, exact rationals) -------------------------------------------------------------
UREG = pint.UnitRegistry(non_int_type=F)
NUM_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")

DIMS = {
    "length": "[length]", "time": "[time]", "mass": "[mass]", "speed": "[length] / [time]",
    "acceleration": "[length] / [time] ** 2", "force": "[length] * [mass] / [time] ** 2",
    "energy": "[length] ** 2 * [mass] / [time] ** 2", "power": "[length] ** 2 * [mass] / [time] ** 3",
    "frequency": "1 / [time]", "angular_velocity": "1 / [time]", "temperature": "[temperature]",
    "resistance": "[length] ** 2 * [mass] / [current] ** 2 / [time] ** 3",
    "capacitance": "[current] ** 2 * [time] ** 4 / [length] ** 2 / [mass]",
    "inductance": "[length] ** 2 * [mass] / [current] ** 2 / [time] ** 2",
    "voltage": "[length] ** 2 * [mass] / [current] / [time] ** 3", "current": "[current]",
    "specific_heat": "[length] ** 2 / [temperature] / [time] ** 2", "specific_energy": "[length] ** 2 / [time] ** 2",
    "conductivity": "[length] * [mass] / [temperature] / [time] ** 3", "area": "[length] ** 2",
    "volume": "[length] ** 3", "delta_t": "[temperature]", "dimensionless": "dimensionless",
}


def fr2mpf(x):
    """An exact Fraction (or int) as an mpf at 50 digits."""
    x = F(x)
    return mpf(x.numerator) / mpf(x.denominator)


def quantity(x, dim):
    """A param value (number or "number unit" string) as an mpf in SI. Temperatures in K."""
    if not isinstance(x, str):
        return mpf(repr(x)) if isinstance(x, float) else mpf(x)
    m = NUM_UNIT.match(x)
    assert m, x
    q = UREG.Quantity(F(m.group(1)), m.group(2))
    want = UREG.get_dimensionality(DIMS[dim]) if DIMS[dim] != "dimensionless" else UREG.get_dimensionality("")
    assert q.dimensionality == want, (x, dim, q.dimensionality)
    if dim == "temperature":
        q = q.to("kelvin")
    elif dim == "delta_t":
        # a temperature *difference*: only K or delta_degC/delta_degF make sense here
        assert m.group(2) in ("K", "kelvin", "delta_degC", "delta_degF"), x
        q = q.to("kelvin")
    else:
        q = q.to_base_units()
    assert isinstance(q.magnitude, F), (x, type(q.magnitude))
    return fr2mpf(q.magnitude)


def angle_deg(x):
    """An angle param in degrees (mpf): bare numbers are degrees (API doc), strings carry their unit."""
    if not isinstance(x, str):
        return quantity(x, "dimensionless")
    m = NUM_UNIT.match(x)
    q = UREG.Quantity(F(m.group(1)), m.group(2))
    assert q.dimensionality == UREG.get_dimensionality(""), x
    if m.group(2) in ("deg", "degree", "degrees"):
        return fr2mpf(m.group(1))                       # exact, no pi involved
    assert m.group(2) in ("rad", "radian", "radians"), x
    return fr2mpf(m.group(1)) * 180 / mp.pi            # rad -> deg with mpmath's 50-digit pi


def ang_vel(x):
    """Angular velocity in rad/s: bare numbers are rad/s; "120 rpm" -> 4 pi rad/s (Pint's revolution = 2 pi)."""
    if not isinstance(x, str):
        return quantity(x, "dimensionless")
    m = NUM_UNIT.match(x)
    if m.group(2) == "rpm":
        return fr2mpf(m.group(1)) * 2 * mp.pi / 60    # 1 rpm = 2 pi rad / 60 s
    return quantity(x, "angular_velocity")


def deg(r):
    return r * 180 / mp.pi


def sind(d):
    """sin of an angle in degrees; mpmath's sinpi/cospi are exact at multiples of 90 deg (cos 90 deg = 0)."""
    return mp.sinpi(d / 180)


def cosd(d):
    return mp.cospi(d / 180)


# --- case bookkeeping ---------------------------------------------------------------------------------------
CASES = []
NAMES = set()


def tofloat(v, scale):
    """An mpf (or nested dict/list of them) rounded once to float64; |v| < 1e-40 * scale is an exact zero."""
    if isinstance(v, dict):
        return {k: tofloat(x, scale) for k, x in v.items()}
    if isinstance(v, list):
        return [tofloat(x, scale) for x in v]
    if isinstance(v, (bool, str)) or v is None:
        return v
    v = mpf(v)
    if v == 0:           # exact zeros only: every zero of this file is computed exactly (sinpi/cospi, x - x)
        return 0.0
    f = float(v)
    assert math.isfinite(f)
    return f


def numbers(v):
    if isinstance(v, dict):
        for x in v.values():
            yield from numbers(x)
    elif isinstance(v, list):
        for x in v:
            yield from numbers(x)
    elif isinstance(v, (int, float, mpmath.mpf)) and not isinstance(v, bool):
        yield abs(mpf(v))


SLACK = []   # (loosest relative slack that a case's atol gives a nonzero value, name): printed for review
SPLIT_SLACK = 1e-10


def split_zeros(exp):
    """(exp without its zero leaves, only its zero leaves), through nested objects (a list is kept whole)."""
    keep, zeros = {}, {}
    for k, v in exp.items():
        if isinstance(v, dict):
            a, b = split_zeros(v)
            if a:
                keep[k] = a
            if b:
                zeros[k] = b
        elif isinstance(v, float) and v == 0:
            zeros[k] = v
        else:
            keep[k] = v
    return keep, zeros


def case(name, op, params, expected, *, zero_scale=None, rtol=1e-12, note=None, source=SRC):
    """Record a case. atol is 0 unless some expected number is exactly zero; then it is 1e-12 * zero_scale, the
    natural size of the quantity that cancels (default: the largest magnitude among the expected numbers).
    When that atol would loosen another expected value by more than SPLIT_SLACK relative, the case is split in
    two with the same params: NAME with the nonzero values (atol 0) and NAME_zeros with the zeros (the atol)."""
    assert name not in NAMES, name
    NAMES.add(name)
    exp = tofloat(expected, 1)
    has_zero = any(x == 0 for x in numbers(exp))
    atol = 0
    if has_zero:
        scale = mpf(zero_scale) if zero_scale is not None else max(numbers(expected))
        assert scale > 0, name
        atol = float(mpf("1e-12") * scale)
        slack = max([atol / float(x) for x in numbers(exp) if x != 0] + [0.0])
        if slack > SPLIT_SLACK:
            keep, zeros = split_zeros(exp)
            assert keep and zeros and not any(x == 0 for x in numbers(keep)), name
            emit(name, op, params, keep, rtol, 0, note, source)
            NAMES.add(name + "_zeros")
            emit(name + "_zeros", op, params, zeros, rtol, atol,
                 "the exact zeros of " + name + " (split off so that their atol does not loosen the other values)",
                 source)
            return
        SLACK.append((slack, name))
    emit(name, op, params, exp, rtol, atol, note, source)


def emit(name, op, params, exp, rtol, atol, note, source):
    c = {"name": name, "tool": "physics", "params": {"operation": op, **params}, "expected": exp,
         "rtol": rtol, "atol": atol, "source": source}
    if note:
        c["note"] = note
    CASES.append(c)


def error_case(name, op, params, kind, note=None, source=SRC):
    assert name not in NAMES, name
    NAMES.add(name)
    c = {"name": name, "tool": "physics", "params": {"operation": op, **params}, "error_kind": kind,
         "source": source}
    if note:
        c["note"] = note
    CASES.append(c)


# =========================================================================================================
# kinematics (constant acceleration). Every known triple has its own closed form:
#   v = u + a t;  s = u t + a t^2/2;  v^2 = u^2 + 2 a s;  s = (u + v) t / 2;  s = v t - a t^2/2.
# When u or v comes from a square root both signs are tried; a solution is admissible when t >= 0.
# =========================================================================================================
def kin_solve(k):
    u, v, a, t, s = (k.get(x) for x in "uvats")
    have = frozenset(x for x in "uvats" if x in k)
    sols = []
    if {"u", "a", "t"} <= have:
        v = u + a * t                         # v = u + a t
        s = u * t + a * t ** 2 / 2            # s = u t + a t^2 / 2
        sols = [(u, v, a, t, s)]
    elif {"u", "v", "t"} <= have:
        a = (v - u) / t                       # a = (v - u) / t
        s = (u + v) * t / 2                   # s = (u + v) t / 2
        sols = [(u, v, a, t, s)]
    elif {"v", "a", "t"} <= have:
        u = v - a * t                         # u = v - a t
        s = v * t - a * t ** 2 / 2            # s = v t - a t^2 / 2
        sols = [(u, v, a, t, s)]
    elif {"v", "t", "s"} <= have:
        u = 2 * s / t - v                     # from s = (u + v) t / 2
        a = 2 * (v * t - s) / t ** 2          # from s = v t - a t^2 / 2
        sols = [(u, v, a, t, s)]
    elif {"u", "t", "s"} <= have:
        a = 2 * (s - u * t) / t ** 2          # from s = u t + a t^2 / 2
        v = 2 * s / t - u                     # from s = (u + v) t / 2
        sols = [(u, v, a, t, s)]
    elif {"a", "t", "s"} <= have:
        u = s / t - a * t / 2                 # from s = u t + a t^2 / 2
        v = s / t + a * t / 2                 # v = u + a t
        sols = [(u, v, a, t, s)]
    elif {"u", "v", "a"} <= have:
        t = (v - u) / a                       # t = (v - u) / a
        s = (v ** 2 - u ** 2) / (2 * a)       # v^2 = u^2 + 2 a s
        sols = [(u, v, a, t, s)]
    elif {"u", "v", "s"} <= have:
        t = 2 * s / (u + v)                   # s = (u + v) t / 2
        a = (v ** 2 - u ** 2) / (2 * s)       # v^2 = u^2 + 2 a s
        sols = [(u, v, a, t, s)]
    elif {"u", "a", "s"} <= have:
        d = u ** 2 + 2 * a * s                # v^2 = u^2 + 2 a s
        if d >= 0:
            for vv in (mp.sqrt(d), -mp.sqrt(d)):
                sols.append((u, vv, a, (vv - u) / a, s))   # t = (v - u) / a
    elif {"v", "a", "s"} <= have:
        d = v ** 2 - 2 * a * s                # u^2 = v^2 - 2 a s
        if d >= 0:
            for uu in (mp.sqrt(d), -mp.sqrt(d)):
                sols.append((uu, v, a, (v - uu) / a, s))   # t = (v - u) / a
    sols = [x for x in sols if x[3] >= 0]
    # a repeated root (v = 0 at the apex) would appear twice; the cases below avoid it
    sols.sort(key=lambda x: x[3])
    for x in sols:                            # every equation holds for every solution kept
        uu, vv, aa, tt, ss = x
        for lhs, rhs in ((vv, uu + aa * tt), (ss, uu * tt + aa * tt ** 2 / 2), (vv ** 2, uu ** 2 + 2 * aa * ss),
                         (ss, (uu + vv) * tt / 2), (ss, vv * tt - aa * tt ** 2 / 2)):
            assert abs(lhs - rhs) <= mpf("1e-40") * (1 + abs(lhs)), (k, x)
        for key in have:                      # and agrees with every known (over-determined input)
            assert abs(dict(zip("uvats", x))[key] - k[key]) <= mpf("1e-40") * (1 + abs(k[key])), (k, x)
    return [dict(zip("uvats", x)) for x in sols]


KIN_DIM = {"u": "speed", "v": "speed", "a": "acceleration", "t": "time", "s": "length"}


def kin(name, known, find=None, note=None, expect_two=False):
    k = {key: quantity(val, KIN_DIM[key]) for key, val in known.items()}
    sols = kin_solve(k)
    params = {"known": known}
    if find is not None:
        params["find"] = find
    if not sols:
        error_case(name, "kinematics", params, "domain_error", note=note)
        return
    if len(sols) == 1:
        assert not expect_two, name
        sol = sols[0]
        if find is not None:
            keys = [find] if isinstance(find, str) else find
            sol = {x: sol[x] for x in keys}
        case(name, "kinematics", params, sol, note=note)
    else:
        assert expect_two and find is None, name
        case(name, "kinematics", params, {"solutions": sols}, note=note)


def kinematics_cases():
    kin("kinematics_uat_from_rest", {"u": 0, "a": 3, "t": 5})
    kin("kinematics_uat_braking", {"u": 25, "a": -4, "t": 3.5})
    kin("kinematics_uvt", {"u": 5, "v": 17, "t": 4})
    kin("kinematics_uva", {"u": 3, "v": 27, "a": 1.5})
    kin("kinematics_uvs", {"u": 10, "v": 30, "s": 200})
    kin("kinematics_uvs_zero_acceleration", {"u": 12.5, "v": 12.5, "s": 50},
        note="a = 0 exactly; atol scaled to the case")
    kin("kinematics_uas_unique", {"u": 4, "a": 2, "s": 21},
        note="v = -sqrt(u^2 + 2as) would need t < 0; only v = +10 is admissible")
    kin("kinematics_uas_two_solutions_upward_throw", {"u": 20, "a": -9.80665, "s": 15}, expect_two=True,
        note="ball thrown up at 20 m/s passes 15 m on the way up and on the way down: both t >= 0, ordered by t")
    kin("kinematics_uas_two_solutions_units", {"u": "15 m/s", "a": "-9.80665 m/s^2", "s": "10 m"},
        expect_two=True, note="two admissible solutions, inputs as unit strings")
    kin("kinematics_uas_cliff_below_start", {"u": 10, "a": -9.80665, "s": -20},
        note="thrown up from a cliff, lands 20 m below: v = +sqrt(...) gives t < 0, only the falling root remains")
    kin("kinematics_uas_return_to_start", {"u": 12, "a": -9.80665, "s": 0}, expect_two=True,
        note="s = 0: the roots are t = 0 (v = u) and t = 2u/g (v = -u); both have t >= 0, so per the API "
             "both are solutions, t = 0 first. Zeros compared with the case's atol")
    kin("kinematics_uts", {"u": 2, "t": 6, "s": 48})
    kin("kinematics_vat", {"v": 0, "a": -2.5, "t": 8}, note="braking to rest: u from v - a t")
    kin("kinematics_vas_two_solutions", {"v": 10, "a": 2, "s": 16}, expect_two=True,
        note="u^2 = v^2 - 2as = 36: u = 6 (t = 2) and u = -6 (moves back, turns, t = 8); both t >= 0. The API "
             "only states the sign rule for v derived from v^2; the same rule applied to u gives two solutions")
    kin("kinematics_vts", {"v": 0, "t": 4, "s": 30})
    kin("kinematics_ats", {"a": 9.80665, "t": 3, "s": 50})
    kin("kinematics_units_kmh_braking", {"u": "72 km/h", "a": "-2 m/s^2", "t": "5 s"},
        note="72 km/h = 20 m/s exactly")
    kin("kinematics_units_distance_to_speed", {"u": "36 km/h", "a": "1.5 m/s^2", "s": "100 m"})
    kin("kinematics_overdetermined_consistent", {"u": 2, "v": 14, "a": 3, "t": 4},
        note="four knowns that agree exactly; s = 32")
    kin("kinematics_find_t", {"u": 0, "a": 9.80665, "s": 45}, find="t",
        note="find: only t is checked")
    kin("kinematics_no_solution_negative_v2", {"u": 10, "a": -9.80665, "s": 10},
        note="v^2 = 100 - 196.133 < 0: the ball never reaches 10 m")
    kin("kinematics_no_solution_negative_t", {"u": 10, "v": 20, "a": -2},
        note="t = (v - u)/a = -5 s < 0")


# =========================================================================================================
# projectile: vx = v cos(theta), vy = v sin(theta), h = launch height above the landing level.
#   time_to_apex = vy / g;   max_height = h + vy^2 / (2 g)   (above the landing level)
#   time_of_flight T = (vy + sqrt(vy^2 + 2 g h)) / g   (the descending crossing of the landing level)
#   range = vx T;   impact_speed = sqrt(v^2 + 2 g h)   (energy)
#   impact_angle = atan2(sqrt(vy^2 + 2 g h), vx) in degrees below the horizontal
# =========================================================================================================
def projectile(name, velocity, angle, height=None, g=None, note=None):
    v = quantity(velocity, "speed")
    th = angle_deg(angle)
    h = quantity(height, "length") if height is not None else mpf(0)
    gg = quantity(g, "acceleration") if g is not None else G0
    vx, vy = v * cosd(th), v * sind(th)
    assert vy >= 0
    disc = vy ** 2 + 2 * gg * h
    assert disc >= 0
    tof = (vy + mp.sqrt(disc)) / gg
    res = {
        "range": vx * tof,
        "max_height": h + vy ** 2 / (2 * gg),
        "time_of_flight": tof,
        "impact_speed": mp.sqrt(v ** 2 + 2 * gg * h),
        "impact_angle": deg(mp.atan2(mp.sqrt(disc), vx)),
        "time_to_apex": vy / gg,
    }
    assert abs(res["impact_speed"] ** 2 - (vx ** 2 + disc)) < mpf("1e-40") * res["impact_speed"] ** 2
    params = {"velocity": velocity, "angle": angle}
    if height is not None:
        params["height"] = height
    if g is not None:
        params["g"] = g
    case(name, "projectile", params, res, note=note, zero_scale=v ** 2 / gg)   # zeros: range, time_to_apex


def projectile_cases():
    projectile("projectile_level_45deg", 20, 45)
    projectile("projectile_level_30deg_units", "20 m/s", "30 deg")
    projectile("projectile_level_45deg_kmh", "72 km/h", "45 deg", note="72 km/h = 20 m/s")
    projectile("projectile_level_60deg", 50, 60)
    projectile("projectile_level_15deg", 30, 15, note="same range as the 75 degree case")
    projectile("projectile_level_75deg", 30, 75, note="same range as the 15 degree case")
    projectile("projectile_height_10m_30deg", 15, 30, height=10,
               note="max_height is measured from the landing level: h + vy^2/(2g)")
    projectile("projectile_horizontal_from_cliff", 10, 0, height=20,
               note="angle 0: time_to_apex 0 and max_height = h; zeros compared with the case's atol")
    projectile("projectile_moon_g", 10, 45, g=1.625)
    projectile("projectile_vertical_90deg", 15, 90,
               note="range 0 (cos 90 deg in float64 is ~6e-17, hence the case's atol); impact_angle 90")
    projectile("projectile_shot_put_units", "14 m/s", "40 deg", height="1.8 m")
    projectile("projectile_angle_in_radians", 25, "0.5 rad", note="string angles may say rad")
    projectile("projectile_landing_above_launch", 25, 50, height=-5,
               note="negative height: landing level 5 m above the launch point; time_of_flight is the "
                    "descending crossing (the larger root)")
    projectile("projectile_g_string", "12 m/s", "35 deg", g="3.71 m/s^2", note="Mars surface gravity")


# =========================================================================================================
# circular_motion: v = omega r; omega = 2 pi / T = 2 pi f; a_c = v^2 / r = omega^2 r; F_c = m a_c
# =========================================================================================================
def circular(name, radius, *, velocity=None, angular_velocity=None, period=None, frequency=None, mass=None,
             note=None):
    r = quantity(radius, "length")
    params = {"radius": radius}
    if velocity is not None:
        v = quantity(velocity, "speed"); w = v / r; params["velocity"] = velocity
    elif angular_velocity is not None:
        w = ang_vel(angular_velocity); v = w * r; params["angular_velocity"] = angular_velocity
    elif period is not None:
        T = quantity(period, "time"); w = 2 * mp.pi / T; v = w * r; params["period"] = period
    else:
        f = quantity(frequency, "frequency"); w = 2 * mp.pi * f; v = w * r; params["frequency"] = frequency
    res = {"velocity": v, "angular_velocity": w, "period": 2 * mp.pi / w, "frequency": w / (2 * mp.pi),
           "centripetal_acceleration": v ** 2 / r}
    assert abs(res["centripetal_acceleration"] - w ** 2 * r) < mpf("1e-40") * res["centripetal_acceleration"]
    if mass is not None:
        params["mass"] = mass
        res["centripetal_force"] = quantity(mass, "mass") * v ** 2 / r
    case(name, "circular_motion", params, res, note=note)


def circular_cases():
    circular("circular_velocity_with_mass", 2, velocity=4, mass=3)
    circular("circular_frequency_units", "50 cm", frequency="2 Hz")
    circular("circular_period", 1, period=0.5)
    circular("circular_angular_velocity_number", 0.3, angular_velocity=10, mass=0.2,
             note="a bare angular_velocity is taken as rad/s (SI), not deg/s")
    circular("circular_angular_velocity_rpm", "0.25 m", angular_velocity="120 rpm",
             note="120 rpm = 4 pi rad/s")
    circular("circular_car_on_curve_units", "100 m", velocity="72 km/h", mass="1500 kg")
    circular("circular_earth_equator_24h", "6371 km", period="24 h")
    circular("circular_moon_orbit", 3.844e8, period="27.32 day", mass=7.342e22)


# =========================================================================================================
# gravitation: F = G m1 m2 / r^2;  U = -G m1 m2 / r
# orbit (circular): v = sqrt(G M / r); T = 2 pi sqrt(r^3 / (G M)); v_esc = sqrt(2 G M / r); g = G M / r^2
# =========================================================================================================
def gravitation(name, m1, m2, distance, note=None):
    a, b, r = quantity(m1, "mass"), quantity(m2, "mass"), quantity(distance, "length")
    case(name, "gravitation", {"m1": m1, "m2": m2, "distance": distance},
         {"force": G * a * b / r ** 2, "potential_energy": -G * a * b / r}, note=note)


def orbit(name, mass, radius, note=None):
    M, r = quantity(mass, "mass"), quantity(radius, "length")
    case(name, "orbit", {"mass": mass, "radius": radius},
         {"orbital_velocity": mp.sqrt(G * M / r), "period": 2 * mp.pi * mp.sqrt(r ** 3 / (G * M)),
          "escape_velocity": mp.sqrt(2 * G * M / r), "gravitational_acceleration": G * M / r ** 2}, note=note)


def gravity_cases():
    gravitation("gravitation_unit_masses", 1, 1, 1, note="F = G")
    gravitation("gravitation_earth_moon", 5.972e24, 7.342e22, 3.844e8)
    gravitation("gravitation_sun_earth", 1.989e30, 5.972e24, 1.496e11)
    gravitation("gravitation_person_earth_units", "70 kg", 5.972e24, "6371 km")
    gravitation("gravitation_two_ships_units", "50000 kg", "80000 kg", "100 m")
    orbit("orbit_earth_surface", 5.972e24, 6.371e6)
    orbit("orbit_earth_leo_400km", 5.972e24, "6771 km", note="radius from the centre: 6371 km + 400 km")
    orbit("orbit_earth_geostationary", 5.972e24, "42164 km")
    orbit("orbit_moon_surface", 7.342e22, 1.7374e6)
    orbit("orbit_sun_at_1au", 1.989e30, 1.496e11)
    orbit("orbit_mars_surface", 6.417e23, "3389.5 km")


# =========================================================================================================
# collision (1-D), restitution e (elastic e = 1, perfectly inelastic e = 0):
#   v1 = (m1 u1 + m2 u2 + m2 e (u2 - u1)) / (m1 + m2);  v2 = (m1 u1 + m2 u2 + m1 e (u1 - u2)) / (m1 + m2)
#   p = m1 u1 + m2 u2;  KE = m1 u^2/2 + m2 u^2/2;  energy_lost = KE_before - KE_after
#   = (1 - e^2) m1 m2 (u1 - u2)^2 / (2 (m1 + m2))  (exactly 0 for elastic; checked against the velocities)
#   (elastic: v1 = ((m1 - m2) u1 + 2 m2 u2)/(m1 + m2), v2 = ((m2 - m1) u2 + 2 m1 u1)/(m1 + m2), checked equal)
# =========================================================================================================
def collision(name, m1, u1, m2, u2, *, kind=None, restitution=None, note=None):
    M1, U1, M2, U2 = quantity(m1, "mass"), quantity(u1, "speed"), quantity(m2, "mass"), quantity(u2, "speed")
    e = {"elastic": mpf(1), "perfectly_inelastic": mpf(0)}[kind] if kind else quantity(restitution, "dimensionless")
    p = M1 * U1 + M2 * U2
    v1 = (p + M2 * e * (U2 - U1)) / (M1 + M2)
    v2 = (p + M1 * e * (U1 - U2)) / (M1 + M2)
    if e == 1:
        assert abs(v1 - ((M1 - M2) * U1 + 2 * M2 * U2) / (M1 + M2)) < mpf("1e-40") * (1 + abs(U1) + abs(U2))
        assert abs(v2 - ((M2 - M1) * U2 + 2 * M1 * U1) / (M1 + M2)) < mpf("1e-40") * (1 + abs(U1) + abs(U2))
    assert abs((v2 - v1) - e * (U1 - U2)) < mpf("1e-40") * (1 + abs(U1) + abs(U2))
    ke0 = M1 * U1 ** 2 / 2 + M2 * U2 ** 2 / 2
    # energy lost in closed form: (1 - e^2) * mu (u1 - u2)^2 / 2 with the reduced mass mu = m1 m2 / (m1 + m2)
    lost = (1 - e ** 2) * M1 * M2 * (U1 - U2) ** 2 / (2 * (M1 + M2))
    ke1 = ke0 - lost
    assert abs(ke1 - (M1 * v1 ** 2 / 2 + M2 * v2 ** 2 / 2)) < mpf("1e-40") * ke0
    params = {"m1": m1, "u1": u1, "m2": m2, "u2": u2}
    if kind:
        params["type"] = kind
    else:
        params["restitution"] = restitution
    case(name, "collision", params,
         {"v1": v1, "v2": v2, "momentum": p, "kinetic_energy_before": ke0, "kinetic_energy_after": ke1,
          "energy_lost": lost}, note=note, zero_scale=ke0)   # zeros: energy_lost, a velocity


def collision_cases():
    collision("collision_elastic_equal_masses", 1, 2, 1, 0, kind="elastic",
              note="velocities swap: v1 = 0 and energy_lost = 0, compared with the case's atol")
    collision("collision_elastic_head_on", 2, 3, 1, -1, kind="elastic")
    collision("collision_elastic_heavy_on_light", 10, 5, 1, 0, kind="elastic")
    collision("collision_elastic_light_rebounds", 0.1, 10, 5, 0, kind="elastic")
    collision("collision_elastic_cars_units", "1500 kg", "72 km/h", "1000 kg", "-36 km/h", kind="elastic")
    collision("collision_perfectly_inelastic_at_rest", 2, 3, 1, 0, kind="perfectly_inelastic")
    collision("collision_perfectly_inelastic_head_on", 1000, 20, 1500, -10, kind="perfectly_inelastic",
              note="head-on: 20000 - 15000 kg m/s leaves 5000 kg m/s, common velocity 2 m/s")
    collision("collision_restitution_half", 2, 4, 3, -2, restitution=0.5)
    collision("collision_restitution_half_target_at_rest", 1, 6, 1, 0, restitution=0.5)
    collision("collision_restitution_one_is_elastic", 3, 2, 1, -4, restitution=1,
              note="e = 1 is elastic: energy_lost 0 within the case's atol")
    collision("collision_restitution_zero_is_inelastic", "4 kg", "3 m/s", "2 kg", "0 m/s", restitution=0)


# =========================================================================================================
# work = F d cos(angle); kinetic_energy = m v^2 / 2, momentum = m v; potential_energy = m g h;
# power = W / t  or  F v
# =========================================================================================================
def mech_cases():
    def work(name, force, distance, angle=None, note=None):
        Fv, d = quantity(force, "force"), quantity(distance, "length")
        th = angle_deg(angle) if angle is not None else mpf(0)
        p = {"force": force, "distance": distance}
        if angle is not None:
            p["angle"] = angle
        case(name, "work", p, {"work": Fv * d * cosd(th)}, note=note, zero_scale=abs(Fv * d))

    work("work_parallel", 10, 5)
    work("work_60deg", 40, 3, angle=60)
    work("work_perpendicular", 25, 4, angle=90, note="cos 90 deg: exactly 0 work, atol 1e-12 * F d")
    work("work_units", "2 kN", "3 km", angle="30 deg")

    def ke(name, mass, velocity):
        m, v = quantity(mass, "mass"), quantity(velocity, "speed")
        case(name, "kinetic_energy", {"mass": mass, "velocity": velocity},
             {"kinetic_energy": m * v ** 2 / 2, "momentum": m * v})

    ke("kinetic_energy_numbers", 2, 3)
    ke("kinetic_energy_car_units", "1500 kg", "72 km/h")

    def pe(name, mass, height, g=None):
        m, h = quantity(mass, "mass"), quantity(height, "length")
        gg = quantity(g, "acceleration") if g is not None else G0
        p = {"mass": mass, "height": height}
        if g is not None:
            p["g"] = g
        case(name, "potential_energy", p, {"potential_energy": m * gg * h})

    pe("potential_energy_default_g", 2, 10)
    pe("potential_energy_units_g_override", "500 g", "3 m", g=9.81)

    case("power_work_time", "power", {"work": 1000, "time": 20}, {"power": mpf(1000) / 20})
    case("power_force_velocity_units", "power", {"force": 500, "velocity": "36 km/h"},
         {"power": 500 * quantity("36 km/h", "speed")})
    case("power_units_kj_per_min", "power", {"work": "1.5 kJ", "time": "1 min"},
         {"power": quantity("1.5 kJ", "energy") / quantity("1 min", "time")})


# =========================================================================================================
# heat: Q = m c dT (dT = T_final - T_initial, signed);  Q = m L (latent)
# =========================================================================================================
def heat_cases():
    def sens(name, mass, c, *, delta_t=None, ti=None, tf=None, note=None):
        m, cc = quantity(mass, "mass"), quantity(c, "specific_heat")
        p = {"mass": mass, "specific_heat": c}
        if delta_t is not None:
            dT = quantity(delta_t, "delta_t"); p["delta_t"] = delta_t
        else:
            dT = quantity(tf, "temperature") - quantity(ti, "temperature")
            p["initial_temperature"] = ti; p["final_temperature"] = tf
        case(name, "heat", p, {"heat": m * cc * dT}, note=note)

    sens("heat_water_delta_t", 1, 4186, delta_t=10)
    sens("heat_water_degc_strings", "500 g", "4186 J/(kg*K)", ti="20 degC", tf="100 degC")
    sens("heat_cooling_negative", 2, 900, ti=350, tf=300, note="heat is signed: negative when cooling")
    sens("heat_mixed_degc_and_kelvin", 0.25, 385, ti="25 degC", tf=350,
         note="25 degC = 298.15 K; final 350 K")
    sens("heat_delta_t_kelvin_string", "3 kg", "0.45 kJ/(kg*K)", delta_t="15 K",
         note="a temperature difference written in K (not degC, which would be an absolute temperature)")

    def latent(name, mass, L, note=None):
        case(name, "heat", {"mass": mass, "latent_heat": L},
             {"heat": quantity(mass, "mass") * quantity(L, "specific_energy")}, note=note)

    latent("heat_latent_fusion_ice", 2, "334 kJ/kg")
    latent("heat_latent_vaporization_units", "500 g", "2.26 MJ/kg")
    latent("heat_latent_numbers", 0.1, 2.5e5)


# =========================================================================================================
# gas_process (ideal gas, n moles): P = n R T / V;  cv default 3/2 R, gamma default 5/3
#   isothermal: W = n R T ln(V2/V1), Q = W, dU = 0
#   adiabatic:  T2 = T1 (V1/V2)^(gamma-1), P2 = P1 (V1/V2)^gamma, W = (P1 V1 - P2 V2)/(gamma-1), Q = 0, dU = -W
#   isobaric:   V2/V1 = T2/T1, W = P (V2 - V1) = n R dT, dU = n cv dT, Q = n (cv + R) dT
#   isochoric:  W = 0, Q = dU = n cv dT, P2 = n R T2 / V
# =========================================================================================================
def gas(name, process, moles, temperature, volume, *, final_volume=None, final_temperature=None, gamma=None,
        cv=None, note=None):
    n, T1, V1 = quantity(moles, "dimensionless"), quantity(temperature, "temperature"), quantity(volume, "volume")
    gam = quantity(gamma, "dimensionless") if gamma is not None else mpf(5) / 3
    cvv = quantity(cv, "dimensionless") if cv is not None else mpf(3) / 2 * R_GAS
    P1 = n * R_GAS * T1 / V1
    p = {"process": process, "moles": moles, "temperature": temperature, "volume": volume}
    if process == "isothermal":
        V2 = quantity(final_volume, "volume"); T2 = T1; P2 = n * R_GAS * T1 / V2
        W = n * R_GAS * T1 * mp.log(V2 / V1); Q = W; dU = mpf(0)
    elif process == "adiabatic":
        V2 = quantity(final_volume, "volume")
        T2 = T1 * (V1 / V2) ** (gam - 1)
        P2 = P1 * (V1 / V2) ** gam
        assert abs(P2 - n * R_GAS * T2 / V2) < mpf("1e-40") * P2
        W = (P1 * V1 - P2 * V2) / (gam - 1)
        Q = mpf(0); dU = -W
        if cv is not None:       # a cv given with gamma must be consistent: cv = R / (gamma - 1)
            assert abs(n * cvv * (T2 - T1) - dU) < mpf("1e-12") * abs(dU), name
    elif process == "isobaric":
        if final_volume is not None:
            V2 = quantity(final_volume, "volume"); T2 = T1 * V2 / V1
        else:
            T2 = quantity(final_temperature, "temperature"); V2 = V1 * T2 / T1
        P2 = P1
        W = P1 * (V2 - V1)
        assert abs(W - n * R_GAS * (T2 - T1)) < mpf("1e-40") * abs(W)
        dU = n * cvv * (T2 - T1); Q = dU + W
    else:
        V2 = V1; T2 = quantity(final_temperature, "temperature"); P2 = n * R_GAS * T2 / V2
        W = mpf(0); dU = n * cvv * (T2 - T1); Q = dU
    for key, val in (("final_volume", final_volume), ("final_temperature", final_temperature), ("gamma", gamma),
                     ("cv", cv)):
        if val is not None:
            p[key] = val
    res = {"work": W, "heat": Q, "delta_internal_energy": dU,
           "initial": {"pressure": P1, "volume": V1, "temperature": T1},
           "final": {"pressure": P2, "volume": V2, "temperature": T2}}
    case(name, "gas_process", p, res, note=note, zero_scale=n * R_GAS * T1)   # zeros: dU, Q or W; scale n R T1


def gas_cases():
    gas("gas_isothermal_expansion", "isothermal", 1, 300, 0.01, final_volume=0.02,
        note="dU = 0 exactly (atol scaled to the case)")
    gas("gas_isothermal_compression_units", "isothermal", 2, "25 degC", "10 L", final_volume="2.5 L")
    gas("gas_isothermal_stp_molar_volume", "isothermal", 1, "0 degC", "22.4 L", final_volume="44.8 L")
    gas("gas_adiabatic_expansion_default_gamma", "adiabatic", 1, 400, 0.01, final_volume=0.02,
        note="gamma 5/3 with the default cv = 3/2 R (consistent); Q = 0")
    gas("gas_adiabatic_diatomic_gamma_and_cv", "adiabatic", 1, 300, "10 L", final_volume="20 L", gamma=1.4,
        cv=20.7861565453831, note="cv = 5/2 R = R/(gamma - 1), consistent with gamma 1.4")
    gas("gas_adiabatic_compression_gamma_only", "adiabatic", 0.5, 300, "2 L", final_volume="1 L", gamma=1.4,
        note="gamma given, cv not: W = (P1V1 - P2V2)/(gamma - 1) and, with Q = 0, dU = -W (first law). A tool "
             "that kept the default cv = 3/2 R here would break the first law; cv must follow R/(gamma - 1)")
    gas("gas_isobaric_final_volume", "isobaric", 1, 300, 0.02, final_volume=0.03)
    gas("gas_isobaric_final_temperature_units", "isobaric", 2, "27 degC", "50 L", final_temperature="127 degC")
    gas("gas_isochoric_heating", "isochoric", 1, 300, 0.01, final_temperature=600,
        note="W = 0 exactly (atol scaled to the case)")
    gas("gas_isochoric_cooling_diatomic_cv", "isochoric", 3, "100 degC", "30 L", final_temperature="0 degC",
        cv=20.7861565453831, note="cv = 5/2 R given explicitly")


# =========================================================================================================
# carnot: eta = 1 - Tc/Th;  COP_refrigerator = Tc/(Th - Tc);  COP_heat_pump = Th/(Th - Tc)
# conduction: heat_rate = k A dT / L;  thermal_resistance = L / (k A)
# =========================================================================================================
def thermo_cases():
    def carnot(name, th, tc, note=None):
        Th, Tc = quantity(th, "temperature"), quantity(tc, "temperature")
        res = {"efficiency": 1 - Tc / Th, "cop_refrigerator": Tc / (Th - Tc), "cop_heat_pump": Th / (Th - Tc)}
        assert abs(res["cop_heat_pump"] - 1 / res["efficiency"]) < mpf("1e-40") * res["cop_heat_pump"]
        case(name, "carnot", {"t_hot": th, "t_cold": tc}, res, note=note)

    carnot("carnot_500k_300k", 500, 300)
    carnot("carnot_degc_strings", "500 degC", "25 degC", note="773.15 K and 298.15 K")
    carnot("carnot_boiling_freezing_water", "100 degC", "0 degC")
    carnot("carnot_kelvin_numbers_power_plant", 823.15, 303.15)
    carnot("carnot_fridge_kelvin_strings", "295 K", "255 K")

    def cond(name, k, area, thickness, *, delta_t=None, t_hot=None, t_cold=None, note=None):
        kk, A, L = quantity(k, "conductivity"), quantity(area, "area"), quantity(thickness, "length")
        p = {"conductivity": k, "area": area, "thickness": thickness}
        if delta_t is not None:
            dT = quantity(delta_t, "delta_t"); p["delta_t"] = delta_t
        else:
            dT = quantity(t_hot, "temperature") - quantity(t_cold, "temperature")
            p["t_hot"] = t_hot; p["t_cold"] = t_cold
        case(name, "conduction", p, {"heat_rate": kk * A * dT / L, "thermal_resistance": L / (kk * A)}, note=note)

    cond("conduction_copper_bar", 385, 0.01, 0.05, delta_t=100)
    cond("conduction_window_units", "0.8 W/(m*K)", "2 m^2", "4 mm", t_hot="20 degC", t_cold="-5 degC")
    cond("conduction_brick_wall_kelvin", 0.6, 12, 0.2, t_hot=295, t_cold=270)
    cond("conduction_insulation_delta_string", 0.04, "5 m^2", "10 cm", delta_t="30 K")


# =========================================================================================================
# resistors: series R = sum R_i; parallel 1/R = sum 1/R_i; networks: nodal analysis on the Laplacian, exact
# capacitors: parallel C = sum C_i; series 1/C = sum 1/C_i. inductors (no mutual inductance): like resistors
# =========================================================================================================
def exact(x):
    """A param value as an exact Fraction in SI (numbers from their decimal repr; strings via Pint)."""
    if isinstance(x, str):
        m = NUM_UNIT.match(x)
        q = UREG.Quantity(F(m.group(1)), m.group(2)).to_base_units()
        return F(q.magnitude)
    return F(repr(x)) if isinstance(x, float) else F(x)


def network_resistance(edges, a, b):
    """Equivalent resistance between a and b: inject 1 A at a, ground b, solve L V = I exactly. None: no path."""
    nodes = sorted({e["from"] for e in edges} | {e["to"] for e in edges})
    adj = {n: set() for n in nodes}
    for e in edges:
        adj[e["from"]].add(e["to"]); adj[e["to"]].add(e["from"])
    seen, stack = {a}, [a]
    while stack:
        for m in adj[stack.pop()]:
            if m not in seen:
                seen.add(m); stack.append(m)
    if b not in seen:
        return None
    comp = sorted(n for n in seen if n != b)
    idx = {n: i for i, n in enumerate(comp)}
    N = len(comp)
    L = [[F(0)] * (N + 1) for _ in range(N)]
    for e in edges:
        if e["from"] not in seen:
            continue
        g = 1 / exact(e["resistance"])
        for x, y in ((e["from"], e["to"]), (e["to"], e["from"])):
            if x in idx:
                L[idx[x]][idx[x]] += g
                if y in idx:
                    L[idx[x]][idx[y]] -= g
    L[idx[a]][N] = F(1)
    for col in range(N):                  # Gauss-Jordan, exact
        piv = next(r for r in range(col, N) if L[r][col] != 0)
        L[col], L[piv] = L[piv], L[col]
        for r in range(N):
            if r != col and L[r][col] != 0:
                f = L[r][col] / L[col][col]
                L[r] = [x - f * y for x, y in zip(L[r], L[col])]
    return L[idx[a]][N] / L[idx[a]][idx[a]]


def resistor_cases():
    def series(name, rs, note=None):
        total = sum(quantity(r, "resistance") for r in rs)
        case(name, "resistors", {"series": rs}, {"equivalent_resistance": total}, note=note)

    def parallel(name, rs, note=None):
        total = 1 / sum(1 / quantity(r, "resistance") for r in rs)
        case(name, "resistors", {"parallel": rs}, {"equivalent_resistance": total}, note=note)

    def network(name, edges, between, closed_form, note=None):
        r = network_resistance(edges, *between)
        if closed_form is None:
            assert r is None
            error_case(name, "resistors", {"network": edges, "between": between}, "domain_error",
                       note=note, source="graph connectivity (no path between the nodes)")
            return
        assert r == closed_form, (name, r, closed_form)
        case(name, "resistors", {"network": edges, "between": between},
             {"equivalent_resistance": fr2mpf(r)}, note=note, source=SRC_NET)

    series("resistors_series_numbers", [100, 220, 330])
    series("resistors_series_units", ["10 kohm", "4.7 kohm", "220 ohm"])
    parallel("resistors_parallel_numbers", [100, 220, 330])
    parallel("resistors_parallel_units", ["1 kohm", "2.2 kohm", "4.7 kohm", "10 kohm"])

    def bridge(r1, r2, r3, r4, r5):
        # a-c R1, c-b R2, a-d R3, d-b R4, c-d R5 (galvanometer). Closed form between a and b:
        # R = [R1 R3 (R2 + R4) + R2 R4 (R1 + R3) + R5 (R1 + R2)(R3 + R4)] / [(R1 + R3)(R2 + R4) + R5 (R1+R2+R3+R4)]
        edges = [{"from": "a", "to": "c", "resistance": r1}, {"from": "c", "to": "b", "resistance": r2},
                 {"from": "a", "to": "d", "resistance": r3}, {"from": "d", "to": "b", "resistance": r4},
                 {"from": "c", "to": "d", "resistance": r5}]
        R1, R2, R3, R4, R5 = (exact(x) for x in (r1, r2, r3, r4, r5))
        cf = (R1 * R3 * (R2 + R4) + R2 * R4 * (R1 + R3) + R5 * (R1 + R2) * (R3 + R4)) / (
            (R1 + R3) * (R2 + R4) + R5 * (R1 + R2 + R3 + R4))
        return edges, cf

    e, cf = bridge(100, 200, 300, 600, 50)
    assert cf == F(300 * 900, 1200)       # balanced: R5 carries no current, R = (R1+R2) || (R3+R4)
    network("resistors_wheatstone_balanced", e, ["a", "b"], cf,
            note="R1/R2 = R3/R4: the bridge arm carries no current, R = (R1+R2)||(R3+R4) = 225")
    e, cf = bridge(100, 200, 300, 400, 50)
    network("resistors_wheatstone_unbalanced", e, ["a", "b"], cf, note="general bridge formula")
    e, cf = bridge("1 kohm", "2.2 kohm", "3.3 kohm", "4.7 kohm", "10 kohm")
    network("resistors_wheatstone_unbalanced_units", e, ["a", "b"], cf)

    cube = [{"from": f"v{i}", "to": f"v{i ^ (1 << k)}", "resistance": 1} for i in range(8) for k in range(3)
            if i < i ^ (1 << k)]
    assert len(cube) == 12
    network("resistors_cube_opposite_corners", cube, ["v0", "v7"], F(5, 6), note="12 one-ohm edges: 5/6 ohm")
    network("resistors_cube_adjacent_corners", cube, ["v0", "v1"], F(7, 12), note="7/12 ohm")
    network("resistors_cube_face_diagonal", cube, ["v0", "v3"], F(3, 4), note="3/4 ohm")

    def ladder(n, r):
        # n sections: series r from top node i-1 to i, shunt r from top node i to ground g (i = 1..n).
        # Closed form from the far end: the last section is series r + shunt r, Z = 2r; each earlier section
        # adds Z <- r + (r || Z). With r = 1 this is F(2n+1)/F(2n) (Fibonacci numbers).
        edges = []
        for i in range(1, n + 1):
            edges.append({"from": f"n{i - 1}", "to": f"n{i}", "resistance": r})
            edges.append({"from": f"n{i}", "to": "g", "resistance": r})
        R = exact(r)
        z = 2 * R
        for _ in range(n - 1):
            z = R + R * z / (R + z)
        return edges, z

    e, z = ladder(5, 1)
    fib = [0, 1]
    while len(fib) < 12:
        fib.append(fib[-1] + fib[-2])
    assert z == F(fib[11], fib[10]) == F(89, 55)
    network("resistors_ladder_5_sections", e, ["n0", "g"], z,
            note="5 sections of 1-ohm series + 1-ohm shunt: 89/55 = F11/F10, tends to the golden ratio")
    e, z = ladder(8, "2.2 kohm")
    network("resistors_ladder_8_sections_units", e, ["n0", "g"], z)

    tri = [{"from": "x", "to": "y", "resistance": 1}, {"from": "y", "to": "z", "resistance": 2},
           {"from": "z", "to": "x", "resistance": 3}, {"from": "x", "to": "y", "resistance": 6}]
    network("resistors_network_triangle_with_parallel_edge", tri, ["x", "y"],
            1 / (1 / F(1) + 1 / F(6) + 1 / F(5)),
            note="two parallel x-y edges (1 and 6 ohm) and the path y-z-x (5 ohm): 1/(1 + 1/6 + 1/5) = 30/41")
    # Larger networks with no closed form: the exact Fraction solution above is the reference. A dense one of
    # many distinct resistances outgrows exact arithmetic in the tool, which then eliminates in 256-bit floats.
    rng = random.Random(2026)

    def dense(n):
        return [{"from": f"n{i}", "to": f"n{j}", "resistance": f"{rng.randint(100, 999999) / 1000} kohm"}
                for i in range(n) for j in range(i + 1, n)]

    for n in (25, 40):
        e = dense(n)
        network(f"resistors_dense_random_{n}_nodes", e, ["n0", f"n{n - 1}"], network_resistance(e, "n0", f"n{n - 1}"),
                note=f"complete graph on {n} nodes, resistances 0.1 to 1000 kohm (seeded): exact Fraction elimination")
    grid = []
    for i in range(10):
        for j in range(10):
            if i < 9:
                grid.append({"from": f"g{i}_{j}", "to": f"g{i + 1}_{j}", "resistance": 1})
            if j < 9:
                grid.append({"from": f"g{i}_{j}", "to": f"g{i}_{j + 1}", "resistance": 1})
    network("resistors_grid_10x10_opposite_corners", grid, ["g0_0", "g9_9"], network_resistance(grid, "g0_0", "g9_9"),
            note="100 nodes, 180 one-ohm edges: exact Fraction elimination")
    split = [{"from": "a", "to": "b", "resistance": 10}, {"from": "c", "to": "d", "resistance": 20}]
    network("resistors_network_no_path", split, ["a", "d"], None,
            note="a and d are in different components: open circuit")


def reactive_cases():
    def cap(name, kind, cs):
        vals = [quantity(c, "capacitance") for c in cs]
        total = sum(vals) if kind == "parallel" else 1 / sum(1 / c for c in vals)
        case(name, "capacitors", {kind: cs}, {"equivalent_capacitance": total})

    cap("capacitors_series_units", "series", ["4.7 uF", "10 uF"])
    cap("capacitors_parallel_numbers", "parallel", [1e-6, 2.2e-6, 4.7e-7])
    cap("capacitors_series_three_units", "series", ["100 nF", "220 nF", "1 uF"])
    cap("capacitors_parallel_units", "parallel", ["2.2 mF", "470 uF"])

    def ind(name, kind, ls):
        vals = [quantity(x, "inductance") for x in ls]
        total = sum(vals) if kind == "series" else 1 / sum(1 / x for x in vals)
        case(name, "inductors", {kind: ls}, {"equivalent_inductance": total})

    ind("inductors_series_units", "series", ["2 mH", "500 uH", "1.5 mH"])
    ind("inductors_parallel_numbers", "parallel", [0.01, 0.02, 0.05])
    ind("inductors_parallel_units", "parallel", ["10 mH", "10 mH"])


# =========================================================================================================
# ohm: V = I R; P = V I = I^2 R = V^2 / R (from P and R: I = sqrt(P/R), V = sqrt(P R), taken positive)
# =========================================================================================================
def ohm_cases():
    def ohm(name, note=None, **given):
        g = {k: quantity(v, {"voltage": "voltage", "current": "current", "resistance": "resistance",
                             "power": "power"}[k]) for k, v in given.items()}
        V, I, R, P = (g.get(k) for k in ("voltage", "current", "resistance", "power"))
        if V is not None and I is not None:
            R = V / I; P = V * I
        elif V is not None and R is not None:
            I = V / R; P = V ** 2 / R
        elif I is not None and R is not None:
            V = I * R; P = I ** 2 * R
        elif P is not None and V is not None:
            I = P / V; R = V ** 2 / P
        elif P is not None and I is not None:
            V = P / I; R = P / I ** 2
        else:
            I = mp.sqrt(P / R); V = mp.sqrt(P * R)
        assert abs(V - I * R) < mpf("1e-40") * V and abs(P - V * I) < mpf("1e-40") * P
        case(name, "ohm", dict(given), {"voltage": V, "current": I, "resistance": R, "power": P}, note=note)

    ohm("ohm_voltage_current", voltage=12, current=0.5)
    ohm("ohm_voltage_resistance_units", voltage="9 V", resistance="10 kohm")
    ohm("ohm_current_resistance_units", current="2 mA", resistance="4.7 kohm")
    ohm("ohm_power_voltage_bulb", power="60 W", voltage="230 V")
    ohm("ohm_power_current", power=100, current=2.5)
    ohm("ohm_power_resistance", power=0.25, resistance=1000, note="I = sqrt(P/R), V = sqrt(P R), positive roots")


# =========================================================================================================
# rc_circuit: tau = R C; charging: V_C = V0 (1 - e^{-t/tau}), I = (V0/R) e^{-t/tau}; discharging:
# V_C = V0 e^{-t/tau}; Q = C V_C. rl_circuit: tau = L / R; rising: I = (V/R)(1 - e^{-t/tau}),
# V_L = V e^{-t/tau}; decaying: I = (V/R) e^{-t/tau}
# =========================================================================================================
def circuit_cases():
    def rc(name, r, c, voltage=None, time=None, mode=None, note=None):
        R, C = quantity(r, "resistance"), quantity(c, "capacitance")
        tau = R * C
        p = {"resistance": r, "capacitance": c}
        res = {"time_constant": tau}
        if voltage is not None:
            V0, t = quantity(voltage, "voltage"), quantity(time, "time")
            p["voltage"] = voltage; p["time"] = time
            if mode is not None:
                p["mode"] = mode
            x = mp.exp(-t / tau)
            if mode in (None, "charging"):
                vc = V0 * (1 - x)
                res.update(voltage=vc, current=V0 / R * x, charge=C * vc)
            else:
                vc = V0 * x
                res.update(voltage=vc, charge=C * vc)   # current: sign convention unspecified, not checked
        case(name, "rc_circuit", p, res, note=note)

    rc("rc_time_constant_only", 1000, 1e-6)
    rc("rc_charging_one_tau_units", "10 kohm", "4.7 uF", voltage="5 V", time="47 ms",
       note="t = tau: V = 5 (1 - 1/e)")
    rc("rc_charging_default_mode", 2000, 0.001, voltage=12, time=3, note="mode absent: charging (the default)")
    rc("rc_charging_at_t0", 1000, 1e-3, voltage=10, time=0, mode="charging",
       note="t = 0: V_C = 0 and Q = 0 (atol scaled to the case), I = V/R")
    rc("rc_discharging_two_tau", 1e6, 1e-6, voltage=9, time=2, mode="discharging",
       note="current not checked: the API does not say whether the discharge current is signed")
    rc("rc_discharging_units", "470 kohm", "100 nF", voltage="3.3 V", time="0.1 s", mode="discharging",
       note="current not checked (sign convention unspecified)")

    def rl(name, r, l, voltage=None, time=None, mode=None, note=None):
        R, L = quantity(r, "resistance"), quantity(l, "inductance")
        tau = L / R
        p = {"resistance": r, "inductance": l}
        res = {"time_constant": tau}
        if voltage is not None:
            V, t = quantity(voltage, "voltage"), quantity(time, "time")
            p.update(voltage=voltage, time=time, mode=mode)
            x = mp.exp(-t / tau)
            if mode == "rising":
                res.update(current=V / R * (1 - x), voltage_inductor=V * x)
            else:
                res.update(current=V / R * x)          # voltage_inductor: sign unspecified, not checked
        case(name, "rl_circuit", p, res, note=note)

    rl("rl_time_constant_only", 10, 0.5)
    rl("rl_rising_two_tau_units", "100 ohm", "50 mH", voltage="12 V", time="1 ms", mode="rising")
    rl("rl_rising_one_tau", 5, 2, voltage=10, time=0.4, mode="rising")
    rl("rl_decaying_two_tau", 20, 0.1, voltage=6, time=0.01, mode="decaying",
       note="I = (V/R) e^{-t/tau}; voltage_inductor not checked (its sign during decay is unspecified)")


# =========================================================================================================
# thin_lens / mirror: 1/f = 1/d_o + 1/d_i -> d_i = f d_o / (d_o - f); m = -d_i/d_o; real iff d_i > 0;
# inverted iff m < 0; power = 1/f (dioptres). mirror: f = R/2, same equation (real image in front, d_i > 0)
# =========================================================================================================
def optics(op, name, do, *, f=None, radius=None, note=None):
    o = quantity(do, "length")
    p = {}
    if f is not None:
        ff = quantity(f, "length"); p["focal_length"] = f
    else:
        ff = quantity(radius, "length") / 2; p["radius"] = radius
    p["object_distance"] = do
    if o == ff:
        error_case(name, op, p, "domain_error", note=note)
        return
    di = ff * o / (o - ff)
    assert abs(1 / ff - (1 / o + 1 / di)) < mpf("1e-40") * abs(1 / ff)
    m = -di / o
    case(name, op, p, {"image_distance": di, "magnification": m, "image": "real" if di > 0 else "virtual",
                       "orientation": "inverted" if m < 0 else "upright", "power": 1 / ff}, note=note)


def optics_cases():
    optics("thin_lens", "thin_lens_converging_real_units", "30 cm", f="10 cm", note="power 10 dioptres")
    optics("thin_lens", "thin_lens_converging_2f", 0.4, f=0.2, note="d_o = 2f: d_i = 2f, m = -1")
    optics("thin_lens", "thin_lens_object_inside_f_virtual", 0.05, f=0.1,
           note="object inside f: virtual, upright, magnified (m = 2)")
    optics("thin_lens", "thin_lens_magnifier_units", "4 cm", f="5 cm", note="virtual, upright, m = 5")
    optics("thin_lens", "thin_lens_diverging", 0.3, f=-0.2, note="diverging: always virtual, upright, d_i = -0.12")
    optics("thin_lens", "thin_lens_diverging_units", "10 cm", f="-10 cm")
    optics("thin_lens", "thin_lens_distant_object", 2, f=0.5)
    optics("thin_lens", "thin_lens_object_at_focus", 0.1, f=0.1, note="image at infinity")
    optics("mirror", "mirror_concave_radius_units", "30 cm", radius="40 cm", note="f = 20 cm: d_i = 60 cm, m = -2")
    optics("mirror", "mirror_concave_inside_f_virtual", 0.1, f=0.15)
    optics("mirror", "mirror_convex_radius", 0.1, radius=-0.3, note="convex, f = -15 cm: virtual, upright")
    optics("mirror", "mirror_concave_focal_numbers", 1.5, f=0.5)
    optics("mirror", "mirror_convex_units", "1 m", f="-25 cm")


# =========================================================================================================
# snell: n1 sin(t1) = n2 sin(t2); critical angle asin(n2/n1) when n1 > n2; TIR when n1 sin(t1) / n2 > 1
# =========================================================================================================
def snell_cases():
    def snell(name, n1, n2, angle, note=None, zero_scale=None):
        a, b = quantity(n1, "dimensionless"), quantity(n2, "dimensionless")
        th = angle_deg(angle)
        s = a * sind(th) / b
        tir = s > 1
        res = {"refraction_angle": None if tir else deg(mp.asin(s)), "total_internal_reflection": bool(tir)}
        if a > b:
            res["critical_angle"] = deg(mp.asin(b / a))
            assert (th > res["critical_angle"]) == tir
        case(name, "snell", {"n1": n1, "n2": n2, "angle": angle}, res, note=note, zero_scale=zero_scale)

    snell("snell_air_to_water_30deg", 1.0, 1.333, 30)
    snell("snell_air_to_glass_45deg_units", 1, 1.5, "45 deg")
    snell("snell_glass_to_air_30deg", 1.5, 1.0, 30, note="below the critical angle 41.81 deg: refracts")
    snell("snell_glass_to_air_45deg_tir", 1.5, 1.0, 45,
          note="45 deg > critical angle asin(1/1.5) = 41.81 deg: total internal reflection, refraction_angle null")
    snell("snell_water_to_air_60deg_tir", 1.333, 1, 60, note="TIR")
    snell("snell_normal_incidence", 1.0, 1.5, 0, note="refraction angle exactly 0 (atol 1e-12 * 90 deg)",
          zero_scale=90)
    snell("snell_angle_in_radians", 1.0, 1.33, "0.5 rad")
    snell("snell_diamond_to_air_20deg", 2.417, 1.0, 20, note="critical angle 24.4 deg; 20 deg still refracts")


# =========================================================================================================
# wave: v = f lambda; T = 1/f.  doppler: f' = f (v + v_o)/(v - v_s), both positive toward the other
# =========================================================================================================
def wave_cases():
    def wave(name, note=None, **given):
        dims = {"speed": "speed", "frequency": "frequency", "wavelength": "length"}
        g = {k: quantity(v, dims[k]) for k, v in given.items()}
        v, f, lam = g.get("speed"), g.get("frequency"), g.get("wavelength")
        if v is None:
            v = f * lam
        elif f is None:
            f = v / lam
        else:
            lam = v / f
        case(name, "wave", dict(given), {"speed": v, "frequency": f, "wavelength": lam, "period": 1 / f}, note=note)

    wave("wave_sound_a440", speed=343, frequency=440)
    wave("wave_light_500nm", speed=299792458, wavelength="500 nm")
    wave("wave_frequency_wavelength", frequency=50, wavelength=0.3)
    wave("wave_ultrasound_in_water_units", speed="1500 m/s", wavelength="3 mm")

    def doppler(name, f, vs=None, vo=None, wave_speed=None, note=None):
        ff = quantity(f, "frequency")
        s = quantity(vs, "speed") if vs is not None else mpf(0)
        o = quantity(vo, "speed") if vo is not None else mpf(0)
        v = quantity(wave_speed, "speed") if wave_speed is not None else SOUND
        p = {"frequency": f}
        for k, x in (("source_velocity", vs), ("observer_velocity", vo), ("wave_speed", wave_speed)):
            if x is not None:
                p[k] = x
        if abs(s) >= v:
            error_case(name, "doppler", p, "domain_error", note=note)
            return
        case(name, "doppler", p, {"observed_frequency": ff * (v + o) / (v - s)}, note=note)

    doppler("doppler_source_approaching", 500, vs=30)
    doppler("doppler_source_receding", 500, vs=-30)
    doppler("doppler_observer_approaching", 440, vo=20)
    doppler("doppler_observer_receding", 440, vo=-20)
    doppler("doppler_both_approaching_units", "1 kHz", vs="72 km/h", vo="36 km/h")
    doppler("doppler_sonar_in_water", 40000, vs=10, wave_speed=1500)
    doppler("doppler_source_at_wave_speed", 500, vs=343, note="source speed >= wave speed")


# =========================================================================================================
def main():
    kinematics_cases()
    projectile_cases()
    circular_cases()
    gravity_cases()
    collision_cases()
    mech_cases()
    heat_cases()
    gas_cases()
    thermo_cases()
    resistor_cases()
    reactive_cases()
    ohm_cases()
    circuit_cases()
    optics_cases()
    snell_cases()
    wave_cases()

    header = [
        "Reference data for Beaker's `physics` tool. Generated by tests/data/gen/physics_reference.py -- do not edit.",
        f"versions: python {platform.python_version()}, mpmath {mpmath.__version__} (mp.dps = {mp.dps}), "
        f"pint {pint.__version__} (Fraction registry), scipy {scipy.__version__} ({sc._codata._current_codata})",
        f"constants: G = {G_VALUE!r} m^3 kg^-1 s^-2, c = {sc.c!r} m/s, g = {sc.g!r} m/s^2 (standard gravity), "
        f"R = {sc.R!r} J/(mol K); doppler default wave speed 343 m/s",
        "Format: {name, tool, params {operation, ...}, expected {subset of the result}, rtol, atol, source[, note]}; "
        "or error_kind instead of expected/rtol/atol.",
        "Compare: |got - want| <= atol + rtol*|want|; objects key by key for the keys in expected (null: absent "
        "or null); arrays element by element; strings and bools exactly.",
        "Tolerances: rtol 1e-12 everywhere: every value is a closed form of well-conditioned operations (no "
        "cancellation worse than ~10x in the chosen inputs) that the tool evaluates in float64 (~1e-15), and the "
        "50-digit reference is rounded once.",
        "atol is 0 unless the case has an expected value that is exactly 0 in exact arithmetic (float64 may give "
        "~1e-16 instead, e.g. cos 90 deg); then atol = 1e-12 x the natural size of the quantity that cancels "
        "(F d for work, v^2/g for projectile, n R T1 for gas_process, the initial kinetic energy for collision, "
        "90 deg for angles, otherwise the largest |expected| of the case).",
        "Unit strings in params were converted with Pint exactly (non_int_type=Fraction); bare angles are degrees, "
        "bare angular velocities rad/s. No value here comes from Beaker.",
    ]
    lines = ["// " + h for h in header]
    lines += [json.dumps(c, ensure_ascii=False) for c in CASES]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts = {}
    for c in CASES:
        op = c["params"]["operation"]
        counts[op] = counts.get(op, 0) + 1
    errs = sum(1 for c in CASES if "error_kind" in c)
    print(f"wrote {OUT} ({len(CASES)} cases, {errs} error cases)", file=sys.stderr)
    for op, n in counts.items():
        print(f"  {op}: {n}", file=sys.stderr)
    for slack, name in sorted(SLACK, reverse=True):
        print(f"  atol/|smallest nonzero expected| = {slack:.1e}  {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
