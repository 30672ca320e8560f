import numpy as np

a = np.arange(1, 11)
print(np.cumsum(a))
print(np.cumprod(a[:6]))
print(np.diff(a**2))
print(np.diff(a**3, n=2))
m = np.arange(12).reshape(3, 4)
print(m.cumsum(axis=0))
print(m.sum(axis=1), m.mean(axis=0))
int(np.prod(np.arange(1, 21, dtype=np.int64)))
