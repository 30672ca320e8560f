from sympy import Matrix

A = Matrix([[1, 2, 3], [4, 5, 6]])
print(A.shape)
print(A.T * A)
inv = A.inv()
print(inv)
