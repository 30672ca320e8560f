import numpy as np

r = np.roots([1, -6, 11, -6])
print(np.round(np.sort(r.real), 10))
c = np.roots([1, 0, 1])
print(sorted(f"{z.imag:+.10f}j" for z in c), bool(np.allclose(c.real, 0)))
print(np.round(np.poly([1, 2, 3]), 10))
print(np.polyval([2, -3, 1], 4))
np.polymul([1, 1], [1, -1])
