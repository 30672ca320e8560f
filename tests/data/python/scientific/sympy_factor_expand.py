import sympy as sp

x, y = sp.symbols("x y")
print(sp.factor(x**4 - 16))
print(sp.factor(x**3 - x**2*y - x*y**2 + y**3))
print(sp.expand((x + 2*y)**4))
print(sp.collect(sp.expand((x + 1)**3 + x*(x + y)), x))
print(sp.factorint(360))
sp.gcd(x**3 - 1, x**2 - 1)
