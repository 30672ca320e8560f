from mpmath import mp, mpf, pi, e, sqrt, log, nstr

mp.dps = 50
print(pi)
print(e)
print(sqrt(2))
print(log(10))
mp.dps = 30
print(nstr(mpf(1) / 7, 25))
print(mp.phi)
+pi
