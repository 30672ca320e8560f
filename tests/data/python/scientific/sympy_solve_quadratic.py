import sympy as sp

x = sp.symbols("x")
roots = sp.solve(x**2 - 5*x + 6, x)
print(roots)
complex_roots = sp.solve(x**2 + 2*x + 5, x)
print(complex_roots)
print(sp.solve(sp.Eq(x**3, 8), x))
sp.nroots(x**3 - 2*x - 5, n=15)
