import numpy as np

# default integer arrays: int64 on 64-bit hosts, so none of these sums overflow there
n = np.arange(1, 100001)
print(n.sum(), n.sum() == 100000 * 100001 // 2)
print(np.prod(np.arange(1, 15)))
print((np.arange(1, 50001) ** 2).sum())
print(np.cumsum(np.full(5, 10**9))[-1])
print(np.arange(1, 100001, dtype=np.int64).sum())
