import sympy as sp

x = sp.symbols("x")
print(sp.series(sp.exp(x), x, 0, 6))
print(sp.series(sp.sin(x) / x, x, 0, 8))
print(sp.series(sp.log(1 + x), x, 0, 5).removeO())
taylor = sp.series(sp.cos(x), x, sp.pi, 4).removeO()
print(sp.simplify(taylor))
