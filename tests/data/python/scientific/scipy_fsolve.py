import numpy as np
from scipy.optimize import fsolve, root

def equations(v):
    x, y = v
    return [x**2 + y**2 - 10, x * y - 3]

sol = fsolve(equations, [3.0, 1.0], xtol=1e-12)
print("fsolve:", np.round(sol, 8) + 0.0)
r = root(equations, [0.5, 2.5], method="hybr", tol=1e-12)
print("root:", r.success, np.round(r.x, 8) + 0.0)
print("residual:", np.allclose(equations(r.x), 0))
