from fractions import Fraction
a = Fraction(1, 3) + Fraction(1, 6)
print(a, a.numerator, a.denominator)
s = sum(Fraction(1, n * (n + 1)) for n in range(1, 100))
print(s)
Fraction(3, 4) ** 3
