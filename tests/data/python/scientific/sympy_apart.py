import sympy as sp

x = sp.symbols("x")
expr = (3*x + 5) / ((x + 1) * (x + 2)**2)
parts = sp.apart(expr, x)
print(parts)
print(sp.together(parts))
print(sp.integrate(parts, x))
print(sp.cancel((x**3 - 8) / (x - 2)))
