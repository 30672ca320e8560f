import numpy as np

x = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
y = np.array([1.1, 2.9, 5.2, 7.1, 8.8, 11.2])
A = np.column_stack([x, np.ones_like(x)])
coef, residuals, rank, sv = np.linalg.lstsq(A, y, rcond=None)
slope, intercept = coef
print(f"slope={slope:.10f} intercept={intercept:.10f}")
print(f"residual={residuals[0]:.10f} rank={rank}")
pred = A @ coef
r2 = 1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
print(f"R^2 = {r2:.8f}")
