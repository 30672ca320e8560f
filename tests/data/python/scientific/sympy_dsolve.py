import sympy as sp

t = sp.symbols("t")
y = sp.Function("y")
ode = sp.Eq(y(t).diff(t, 2) + 4*y(t), 0)
sol = sp.dsolve(ode, y(t), ics={y(0): 1, y(t).diff(t).subs(t, 0): 0})
print(sol)
decay = sp.dsolve(sp.Eq(y(t).diff(t), -3*y(t)), y(t), ics={y(0): 5})
print(decay.rhs)
print(sp.N(decay.rhs.subs(t, 1), 12))
