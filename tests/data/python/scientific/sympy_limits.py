from sympy import symbols, limit, sin, cos, exp, oo, log

x, n = symbols("x n")
print(limit(sin(x) / x, x, 0))
print(limit((1 - cos(x)) / x**2, x, 0))
print(limit((1 + 1/n)**n, n, oo))
print(limit(x * log(x), x, 0, "+"))
print(limit(1 / x, x, 0, "-"))
limit((exp(x) - 1 - x) / x**2, x, 0)
