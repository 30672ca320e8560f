import cmath
import math

def quadratic(a, b, c):
    d = cmath.sqrt(b * b - 4 * a * c)
    return (-b + d) / (2 * a), (-b - d) / (2 * a)

for coeffs in [(1, -3, 2), (1, 2, 5), (2, 0, 8)]:
    roots = quadratic(*coeffs)
    print(coeffs, [f"{z.real:z.6g}{z.imag:+z.6g}j" for z in roots])
z = cmath.exp(1j * math.pi / 3)
print(f"{z.real:.12f} {z.imag:.12f} {abs(z):.12f}")
print(cmath.polar(complex(1, 1)))
