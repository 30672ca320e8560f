import sympy as sp

print(sp.sympify("x**2 + 2*x + 1").factor())
expr = sp.sympify("sin(x) +* 3")
print(expr)
