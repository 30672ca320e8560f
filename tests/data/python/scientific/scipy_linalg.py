import numpy as np
from scipy import linalg

A = np.array([[4.0, 3.0, 0.0], [3.0, 4.0, -1.0], [0.0, -1.0, 4.0]])
P, L, U = linalg.lu(A)
print("LU ok:", np.allclose(P @ L @ U, A))
print("U diagonal:", np.round(np.diag(U), 8))
C = linalg.cholesky(A, lower=True)
print("cholesky:", np.round(C, 8) + 0.0)
E = linalg.expm(np.array([[0.0, 1.0], [-1.0, 0.0]]))
print("expm(rotation):", np.round(E, 8) + 0.0)
print(f"det = {linalg.det(A):.8f}")
