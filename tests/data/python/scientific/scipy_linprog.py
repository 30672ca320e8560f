from scipy.optimize import linprog

# maximize 3x + 5y subject to x <= 4, 2y <= 12, 3x + 2y <= 18
c = [-3, -5]
A_ub = [[1, 0], [0, 2], [3, 2]]
b_ub = [4, 12, 18]
res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(0, None), (0, None)], method="highs")
print(res.status, res.message)
print("x, y =", [round(float(v), 9) + 0.0 for v in res.x])
print("max profit =", round(-res.fun, 9))
