import numpy as np
from scipy.sparse import diags
from scipy.sparse.linalg import spsolve

n = 6
T = diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
print(T.nnz, T.shape)
b = np.ones(n)
u = spsolve(T, b)
print(np.round(u, 10))
print(T.toarray()[:3, :3])
