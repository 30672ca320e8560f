import numpy as np

A = np.array([[3.0, 2.0, -1.0], [2.0, -2.0, 4.0], [-1.0, 0.5, -1.0]])
b = np.array([1.0, -2.0, 0.0])
x = np.linalg.solve(A, b)
print("x =", np.round(x, 10) + 0.0)
print("residual small:", np.allclose(A @ x, b))
print("cond:", f"{np.linalg.cond(A):.8f}")
