from sympy import symbols, summation, oo, pi, factorial, Rational, simplify

k, n = symbols("k n", integer=True, positive=True)
print(summation(k, (k, 1, n)).factor())
print(summation(k**2, (k, 1, n)).factor())
print(summation(1 / k**2, (k, 1, oo)))
print(summation(Rational(1, 2)**k, (k, 0, oo)))
print(summation(1 / factorial(k), (k, 0, oo)))
print(simplify(summation(1 / (k * (k + 1)), (k, 1, n))))
summation(k**3, (k, 1, 100))
