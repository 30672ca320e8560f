import numpy as np

S = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
w, v = np.linalg.eigh(S)
print("eigenvalues:", np.round(w, 10))
print("orthonormal:", np.allclose(v.T @ v, np.eye(3)))
A = np.array([[2.0, 0.0], [1.0, 3.0]])
vals = np.linalg.eigvals(A)
print(sorted(np.round(vals.real, 10).tolist()))
R = np.array([[0.0, -1.0], [1.0, 0.0]])
ev = np.linalg.eigvals(R)
print(sorted(f"{z.imag:+.10f}j" for z in ev), bool(np.allclose(ev.real, 0)))
