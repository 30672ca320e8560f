import numpy as np

F = np.array([[1, 1], [1, 0]], dtype=np.int64)
for n in (10, 50, 90):
    print(n, np.linalg.matrix_power(F, n)[0, 1])
P = np.array([[0.9, 0.1], [0.5, 0.5]])
steady = np.linalg.matrix_power(P, 200)[0]
print("steady state:", np.round(steady, 10))
np.linalg.matrix_power(F, 5).tolist()
