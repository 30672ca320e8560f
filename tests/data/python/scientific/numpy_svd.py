import numpy as np

M = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]])
U, s, Vt = np.linalg.svd(M, full_matrices=False)
print("singular values:", np.round(s, 8) + 0.0)
print("rank:", np.linalg.matrix_rank(M))
rebuilt = U @ np.diag(s) @ Vt
print("reconstructs:", np.allclose(rebuilt, M))
print("shapes:", U.shape, s.shape, Vt.shape)
print(f"2-norm = {np.linalg.norm(M, 2):.10f}, fro = {np.linalg.norm(M):.10f}")
