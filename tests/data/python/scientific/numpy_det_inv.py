import numpy as np

A = np.array([[4, 7], [2, 6]], dtype=float)
print(f"det = {np.linalg.det(A):.10f}")
Ainv = np.linalg.inv(A)
print(np.round(Ainv, 10))
print(np.allclose(A @ Ainv, np.eye(2)))
H = np.array([[1 / (i + j + 1) for j in range(4)] for i in range(4)])
print(f"hilbert det = {np.linalg.det(H):.6e}")
sign, logdet = np.linalg.slogdet(H)
print(sign, f"{logdet:.8f}")
