import numpy as np

a = np.array([2**62, 2**62], dtype=np.int64)
with np.errstate(over="ignore"):
    print(a.sum(), a.dtype)
print(np.iinfo(np.int64).max, np.finfo(np.float64).eps)
print(np.array([1, 2, 3], dtype=np.uint8) - np.uint8(2))
print(np.float32(1) / np.float32(3), np.float64(1) / 3)
np.array([0.1, 0.2]).sum() == 0.3
