"""Writes crates/beaker-core/src/pyjson_repr.tsv: doubles (as IEEE-754 bit patterns in hex) and CPython's
`repr` of each, the reference for `beaker_core::pyjson::py_float` (exact match, no tolerance).

    python3 tests/data/gen/pyjson_repr.py   # deterministic; CPython 3.x (repr is the same since 3.1)

The cases: exact halves and quarters at 16 and 17 significant digits (ties between two shortest digit
strings, which CPython breaks to the even digit), powers of two and ten, subnormals, the ends of the fixed
and scientific ranges, and 400 doubles drawn with a fixed seed across the exponent range.
"""
import random
import struct
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[3] / "crates" / "beaker-core" / "src" / "pyjson_repr.tsv"


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def cases():
    yield from [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.0001, 0.00001]
    yield from [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 2.0**-1074, 2.0**52, 2.0**53, 2.0**63]
    # Ties: integers plus a binary fraction, printed at the limit of a double's digits.
    for whole in [791344358601, 123456789012, 999999999999, 1, 70368744177663, 4503599627370495]:
        for frac in [0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875, 0.78125, 0.03125, 0.09375]:
            for sign in (1, -1):
                yield sign * (whole + frac)
    rng = random.Random(20261128)
    for _ in range(400):
        yield struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]


def main():
    lines = ["# bits (IEEE-754 double, hex)\tCPython repr; written by tests/data/gen/pyjson_repr.py"]
    seen = set()
    for x in cases():
        if x != x or x in (float("inf"), float("-inf")):
            continue
        b = bits(x)
        if b in seen:
            continue
        seen.add(b)
        lines.append(f"{b}\t{x!r}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines) - 1} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
