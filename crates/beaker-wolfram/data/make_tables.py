"""Writes the reference tables `wolfram` answers facts from, each from its publication as a registry ships it:

- codata-2022.txt: CODATA 2022 (NIST, May 2024), the "allascii" table verbatim as SciPy 1.17 embeds it
  (scipy/constants/_codata.py, txt2022).
- codata-2022-exact.tsv: the 62 exact constants the table prints cut short ("8.314 462 618..."), each as the
  float64 SciPy derives from the defining constants (its `exact2022`: R = N_A k, sigma = pi^2 k^4/(60 hbar^3
  c^2), ...).
- distances.tsv: the distance between every two of the Sun, the Moon, the planets and Pluto (centres; the
  outer planets' system barycentres), least, time-averaged and greatest over 1900-01-01 to 2050-01-01, from
  JPL's DE421 ephemeris (PyPI's `de421` 2008.1, read with `jplephem`): sampled every 6 hours, each extreme then
  refined to a minute by bounded minimisation.
- astronomy.tsv: IAU 2015 Resolution B3 nominal solar and planetary values and the IAU 2012 astronomical
  unit, as astropy.constants 8 holds them, with the light year (Julian year x c) and the parsec; and for the
  Moon, Mercury, Venus and Mars DE421's own GM values (masses over CODATA 2022 G).

Needs: pip install scipy==1.17.1 jplephem==2.24 astropy==8.0.2 de421==2008.1 (de421 from its sdist).
Run: python3 crates/beaker-wolfram/data/make_tables.py
"""

import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def codata():
    from scipy.constants import _codata

    text = _codata.txt2022
    with open(os.path.join(here, "codata-2022.txt"), "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")
    from scipy.constants import physical_constants

    with open(os.path.join(here, "codata-2022-exact.tsv"), "w") as f:
        f.write("# name\tvalue: CODATA 2022's exact constants printed cut short, as SciPy derives them (make_tables.py)\n")
        for line in text.splitlines():
            name = line[:60].rstrip()
            if "..." in line[60:85]:
                f.write(f"{name}\t{physical_constants[name][0]!r}\n")


BODIES = ["sun", "mercury", "venus", "earth", "moon", "mars", "jupiter", "saturn", "uranus", "neptune", "pluto"]
START, END = 2415020.5, 2469807.5  # 1900-01-01 and 2050-01-01, TDB


def distances():
    import de421
    from jplephem import Ephemeris
    from scipy.optimize import minimize_scalar

    e = Ephemeris(de421)
    emrat = e.EMRAT

    def positions(jd):
        """Every body's barycentric position (km) at the Julian dates `jd`."""
        em = e.position("earthmoon", jd)
        moon = e.position("moon", jd)  # geocentric
        earth = em - moon / (1.0 + emrat)
        p = {"earth": earth, "moon": earth + moon}
        for b in BODIES:
            if b not in p:
                p[b] = e.position(b, jd)
        return p

    jd = np.arange(START, END, 0.25)
    p = positions(jd)
    rows = []
    for i, a in enumerate(BODIES):
        for b in BODIES[i + 1:]:
            d = np.linalg.norm(p[a] - p[b], axis=0)

            def dist(t, a=a, b=b):
                q = positions(np.array([t]))
                return float(np.linalg.norm(q[a] - q[b]))

            # The least and greatest 6-hourly samples, each refined within half a day either side.
            least = float(d.min())
            k = int(np.argmin(d))
            r = minimize_scalar(dist, bounds=(max(jd[k] - 0.5, START), min(jd[k] + 0.5, END)),
                                method="bounded", options={"xatol": 1 / 1440})
            least = min(least, float(r.fun))
            greatest = float(d.max())
            k = int(np.argmax(d))
            r = minimize_scalar(lambda t: -dist(t), bounds=(max(jd[k] - 0.5, START), min(jd[k] + 0.5, END)),
                                method="bounded", options={"xatol": 1 / 1440})
            greatest = max(greatest, float(-r.fun))
            best = [least, greatest]
            # The time average: the trapezoid rule over the 6-hour samples.
            mean = float(np.trapezoid(d, jd) / (jd[-1] - jd[0]))
            rows.append((a, b, best[0], mean, best[1]))
    with open(os.path.join(here, "distances.tsv"), "w") as f:
        f.write("# body_a\tbody_b\tleast_km\tmean_km\tgreatest_km: JPL DE421, 1900-01-01 to 2050-01-01 (make_tables.py)\n")
        for a, b, lo, mean, hi in rows:
            f.write(f"{a}\t{b}\t{lo:.0f}\t{mean:.0f}\t{hi:.0f}\n")


def astronomy():
    import astropy
    from astropy import constants as c
    from astropy import units as u

    julian_year = 365.25 * 86400
    rows = [
        # name, value, unit, source
        ("astronomical unit", c.au.si.value, "m", "IAU 2012 Resolution B2 (exact)"),
        ("light year", julian_year * c.c.si.value, "m", "IAU: Julian year (365.25 d) times c (exact)"),
        ("parsec", c.pc.si.value, "m", "IAU 2015 Resolution B2: 648000/pi au (exact)"),
        ("solar radius", c.R_sun.si.value, "m", "IAU 2015 Resolution B3 nominal solar radius"),
        ("solar luminosity", c.L_sun.si.value, "W", "IAU 2015 Resolution B3 nominal solar luminosity"),
        ("solar mass parameter", c.GM_sun.si.value, "m^3/s^2", "IAU 2015 Resolution B3 nominal GM of the Sun"),
        ("solar mass", c.M_sun.si.value, "kg", "IAU 2015 Resolution B3 GM over CODATA 2022 G (astropy)"),
        ("solar effective temperature", 5772.0, "K", "IAU 2015 Resolution B3 nominal solar effective temperature"),
        ("earth equatorial radius", c.R_earth.si.value, "m", "IAU 2015 Resolution B3 nominal terrestrial equatorial radius"),
        ("earth mass parameter", c.GM_earth.si.value, "m^3/s^2", "IAU 2015 Resolution B3 nominal GM of the Earth"),
        ("earth mass", c.M_earth.si.value, "kg", "IAU 2015 Resolution B3 GM over CODATA 2022 G (astropy)"),
        ("jupiter equatorial radius", c.R_jup.si.value, "m", "IAU 2015 Resolution B3 nominal jovian equatorial radius"),
        ("jupiter mass parameter", c.GM_jup.si.value, "m^3/s^2", "IAU 2015 Resolution B3 nominal GM of Jupiter"),
        ("jupiter mass", c.M_jup.si.value, "kg", "IAU 2015 Resolution B3 GM over CODATA 2022 G (astropy)"),
    ]
    # The other bodies from DE421's own constants: GM of each planet's system (au^3/day^2, the ephemeris's au),
    # the Moon's from the Earth-Moon GM and mass ratio, and the radii the ephemeris integrates with.
    import de421
    from jplephem import Ephemeris

    e = Ephemeris(de421)
    to_si = (e.AU * 1000.0) ** 3 / 86400.0**2
    g = c.G.si.value
    # Only bodies whose system GM is the body's own within 1e-7 (Mars's moons weigh 2e-8 of it): Saturn's,
    # Uranus's, Neptune's and Pluto's moons weigh 1e-4 to 0.12 of them, so their system GM is no planet's mass.
    gm = {"mercury": e.GM1, "venus": e.GM2, "mars": e.GM4, "moon": e.GMB / (1.0 + e.EMRAT)}
    name = {"moon": "the Moon"}
    for body, v in gm.items():
        shown = name.get(body, body.capitalize())
        rows.append((f"{body} mass parameter", v * to_si, "m^3/s^2", f"JPL DE421 header: GM of {shown}"))
        rows.append((f"{body} mass", v * to_si / g, "kg",
                     f"JPL DE421 header: GM of {shown} over CODATA 2022 G (G's 2.2e-5 relative uncertainty)"))
    # DE421's radii (RAD1, RAD2, RAD4, AM) are the values its model used, up to 0.4 % from the IAU's current
    # mean radii: left out rather than answered.
    with open(os.path.join(here, "astronomy.tsv"), "w") as f:
        f.write(f"# name\tvalue\tunit\tsource: astropy {astropy.__version__} constants (make_tables.py)\n")
        for name, value, unit, source in rows:
            f.write(f"{name}\t{float(value)!r}\t{unit}\t{source}\n")


codata()
distances()
astronomy()
print("wrote codata-2022.txt, distances.tsv, astronomy.tsv")
