import sympy as sp

M = sp.Matrix([[4, 1], [2, 3]])
print(M.eigenvals())
for val, mult, vecs in M.eigenvects():
    print(val, mult, [list(v) for v in vecs])
lam = sp.symbols("lambda")
print(sp.factor(M.charpoly(lam).as_expr()))
P, D = M.diagonalize()
print(D)
S = sp.Matrix([[2, 0, 0], [0, 3, 4], [0, 4, 9]])
print(sorted(S.eigenvals().items()))
