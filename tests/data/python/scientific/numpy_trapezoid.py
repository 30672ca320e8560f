import numpy as np

x = np.linspace(0, np.pi, 1001)
area = np.trapezoid(np.sin(x), x)
print(f"integral of sin on [0, pi] ~ {area:.10f}")
xs = np.linspace(0, 1, 101)
print(f"integral of x^2 on [0, 1] ~ {np.trapezoid(xs**2, xs):.10f}")
h = xs[1] - xs[0]
f = np.exp(xs)
simpson = h / 3 * (f[0] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum() + f[-1])
print(f"simpson e-1 ~ {simpson:.12f}")
