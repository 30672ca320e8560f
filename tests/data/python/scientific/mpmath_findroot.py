from mpmath import mp, findroot, cos, mpf, exp, polyroots, nstr

mp.dps = 35
print(findroot(lambda x: cos(x) - x, 0.7))
print(findroot(lambda x: x**3 - 2*x - 5, 2))
print(findroot([lambda x, y: x**2 + y**2 - 4, lambda x, y: x - y - 1], (1, 1)))
mp.dps = 20
print([nstr(r, 15) for r in polyroots([1, 0, -2, -5])])
print(nstr(exp(mpf(1)) ** (mp.pi), 25))
