from mpmath import mp, quad, exp, inf, sin, pi, sqrt, log, nstr

mp.dps = 30
print(quad(lambda x: exp(-x**2), [-inf, inf]))
print(sqrt(pi))
print(quad(lambda x: sin(x) / x, [0, pi]))
print(quad(lambda x: log(x), [0, 1]))
print(nstr(quad(lambda x, y: x * y, [0, 1], [0, 2]), 20))
