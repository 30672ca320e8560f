import sympy as sp

x, y = sp.symbols("x y")
f = x**3 * sp.sin(y) + sp.exp(x * y)
print(sp.diff(f, x))
print(sp.diff(f, y, 2))
print(sp.diff(f, x, y))
g = sp.atan(x) * sp.log(x)
print(sp.simplify(sp.diff(g, x)))
crit = sp.solve(sp.diff(x**3 - 6*x**2 + 9*x + 1, x), x)
print(crit, [sp.diff(x**3 - 6*x**2 + 9*x + 1, x, 2).subs(x, c) for c in crit])
