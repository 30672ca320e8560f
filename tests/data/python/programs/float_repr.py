print(0.1 + 0.2, 1 / 3, 2 ** 0.5, 1e300 * 10, -0.0)
print(float("nan") != float("nan"), round(2.675, 2), 7 // 2, -7 // 2, 7 % -3, divmod(17, 5))
complex(1, 2) * complex(3, -1)
