from fractions import Fraction

h = sum(Fraction(1, k) for k in range(1, 21))
print(h)
def egyptian(f):
    parts = []
    while f.numerator:
        d = -(-f.denominator // f.numerator)
        parts.append(d)
        f -= Fraction(1, d)
    return parts
print(egyptian(Fraction(5, 121)))
print(Fraction(0.1), Fraction("0.1"), Fraction(3.75).limit_denominator())
Fraction(355, 113) - Fraction(22, 7)
