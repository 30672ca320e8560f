from sympy import Matrix, Rational

A = Matrix([[2, 1, 1], [1, 3, 2], [1, 0, 0]])
print("det:", A.det())
print("inverse:", A.inv())
print("rank:", A.rank())
b = Matrix([4, 5, 6])
print("x =", A.LUsolve(b).T)
print(A * A.inv() == Matrix.eye(3))
B = Matrix([[Rational(1, 2), Rational(1, 3)], [Rational(1, 4), Rational(1, 5)]])
B.inv()
