import numpy as np

col = np.arange(1, 5).reshape(4, 1)
row = np.arange(1, 6)
table = col * row
print(table)
print(table.shape, table.sum(), table.max())
pts = np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]])
d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(axis=-1))
print(d)
centered = table - table.mean(axis=0)
print(centered.sum(axis=0))
