from mpmath import mp, zeta, pi, zetazero, nstr

mp.dps = 40
print(zeta(2))
print(pi**2 / 6)
print(zeta(3))
print(nstr(zeta(0.5), 30))
mp.dps = 20
print(zetazero(1))
print(zeta(-1))
