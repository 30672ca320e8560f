import cmath
z = cmath.sqrt(-4)
print(z, abs(complex(3, 4)), cmath.phase(-1))
roots = [(-1 + cmath.sqrt(1 - 4 * 1 * 1)) / 2, (-1 - cmath.sqrt(1 - 4)) / 2]
[complex(round(r.real, 12), round(r.imag, 12)) for r in roots]
