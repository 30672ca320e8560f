import numpy as np

a = np.ones((3, 4))
b = np.ones((4, 2))
print((a @ b).shape)
c = a + np.arange(4)
print(c[0])
bad = a @ a
print(bad)
