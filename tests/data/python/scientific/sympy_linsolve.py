from sympy import symbols, linsolve, Eq, solve

x, y, z = symbols("x y z")
eqs = [x + y + z - 6, 2*x - y + z - 3, x + 2*y - z - 2]
print(linsolve(eqs, [x, y, z]))
print(linsolve([x + y - 2, 2*x + 2*y - 4], [x, y]))
print(linsolve([x + y - 2, x + y - 3], [x, y]))
solve([Eq(3*x + 2*y, 12), Eq(x - y, -1)], [x, y], dict=True)
