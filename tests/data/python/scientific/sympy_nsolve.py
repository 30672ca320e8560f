import sympy as sp

x, y = sp.symbols("x y")
root = sp.nsolve(sp.cos(x) - x, x, 1)
print(sp.N(root, 20))
sol = sp.nsolve([x**2 + y**2 - 4, x - y - 1], [x, y], [1, 1])
print([sp.N(v, 15) for v in sol])
print(sp.N(sp.pi, 30))
print(sp.N(sp.sqrt(2) + sp.E, 25))
