from sympy import Rational, binomial, factorial, Sum, symbols, oo, S

# probability of exactly 2 sixes in 5 rolls, and expected rolls until a six
p = Rational(1, 6)
print(binomial(5, 2) * p**2 * (1 - p)**3)
k = symbols("k", integer=True, positive=True)
print(Sum(k * p * (1 - p)**(k - 1), (k, 1, oo)).doit())
birthday = 1 - factorial(365) / (factorial(365 - 23) * S(365)**23)
print(f"{float(birthday):.10f}")
print(Rational(4, 52) * Rational(3, 51))
