import numpy as np
from scipy.integrate import quad, dblquad

val, err = quad(lambda x: np.exp(-x**2), -np.inf, np.inf)
print(f"gaussian: {val:.12f} (sqrt(pi) = {np.sqrt(np.pi):.12f})")
print("error small:", err < 1e-6)
v2, _ = quad(lambda x: np.sin(x) / x, 1e-12, 10)
print(f"Si(10) ~ {v2:.10f}")
v3, _ = dblquad(lambda y, x: x * y, 0, 1, lambda x: 0, lambda x: x)
print(f"double integral = {v3:.12f}")
