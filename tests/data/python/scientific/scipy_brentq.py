from scipy.optimize import brentq, newton, bisect
import math

f = lambda x: x**3 - 2 * x - 5
root = brentq(f, 2, 3, xtol=1e-14)
print(f"brentq root: {root:.12f}")
print(f"newton root: {newton(f, 2.0, fprime=lambda x: 3 * x**2 - 2):.12f}")
print(f"bisect root: {bisect(math.cos, 0, 2, xtol=1e-13):.10f}")
r, info = brentq(lambda x: math.exp(-x) - x, 0, 1, full_output=True)
print(f"{r:.12f}", info.converged)
