import numpy as np

x = np.linspace(-2, 2, 9)
y = 3 * x**2 - 2 * x + 1
coeffs = np.polyfit(x, y, 2)
print("coefficients:", np.round(coeffs, 8) + 0.0)
p = np.poly1d(np.round(coeffs, 8))
print("p(3) =", round(float(p(3)), 6))
print("derivative:", np.round(p.deriv().coeffs, 8) + 0.0)
print("integral at 1:", round(float(p.integ()(1)), 8))
