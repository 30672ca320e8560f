import sympy as sp

x = sp.symbols("x")
print(sp.integrate(x**2 * sp.exp(x), x))
print(sp.integrate(sp.sin(x)**2, (x, 0, sp.pi)))
print(sp.integrate(1 / (1 + x**2), (x, -sp.oo, sp.oo)))
print(sp.integrate(sp.exp(-x**2), (x, -sp.oo, sp.oo)))
area = sp.integrate(sp.log(x), (x, 1, sp.E))
print(f"area = {area}")
