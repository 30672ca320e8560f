import numpy as np
from scipy.interpolate import interp1d, CubicSpline, lagrange

x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
y = x**3 - 2 * x
lin = interp1d(x, y)
print(f"linear at 2.5: {float(lin(2.5)):.8f}")
cs = CubicSpline(x, y, bc_type="natural")
print(f"natural spline at 2.5: {float(cs(2.5)):.8f}")
clamped = CubicSpline(x, y, bc_type=((1, -2.0), (1, 46.0)))
print(f"clamped spline at 2.5: {float(clamped(2.5)):.8f} (exact {2.5**3 - 5:.8f})")
poly = lagrange(x[:4], y[:4])
print("lagrange coeffs:", np.round(poly.coeffs, 8) + 0.0)
