import numpy as np

A = np.array([[1.0, 2.0], [2.0, 4.0]])
print("det is zero:", abs(np.linalg.det(A)) < 1e-12)
print("rank:", np.linalg.matrix_rank(A))
Ainv = np.linalg.inv(A)
print(Ainv)
