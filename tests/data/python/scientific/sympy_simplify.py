import sympy as sp

x, y = sp.symbols("x y")
print(sp.simplify(sp.sin(x)**2 + sp.cos(x)**2))
print(sp.simplify((x**2 - 1) / (x - 1)))
print(sp.trigsimp(2*sp.sin(x)*sp.cos(x)))
print(sp.expand_trig(sp.cos(2*x)))
print(sp.powsimp(x**y * x**2))
print(sp.nsimplify(0.333333333333333))
sp.radsimp(1 / (1 + sp.sqrt(2)))
