import numpy as np
from scipy.optimize import minimize, minimize_scalar, rosen, rosen_der

res = minimize(rosen, x0=np.array([-1.2, 1.0]), jac=rosen_der, method="BFGS", options={"gtol": 1e-10})
print("success:", res.success)
print("x* =", np.round(res.x, 6) + 0.0)
print(f"f* < 1e-12: {res.fun < 1e-12}")
s = minimize_scalar(lambda x: (x - 2.5) ** 2 + 1, bounds=(0, 5), method="bounded")
print(f"scalar min at {s.x:.6f}, value {s.fun:.6f}")
cons = {"type": "eq", "fun": lambda v: v[0] + v[1] - 1}
c = minimize(lambda v: v[0] ** 2 + 2 * v[1] ** 2, [0.5, 0.5], constraints=[cons], method="SLSQP")
print("constrained:", np.round(c.x, 6) + 0.0)
