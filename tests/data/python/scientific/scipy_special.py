from scipy import special

print(special.gamma(5), f"{special.gamma(0.5) ** 2:.12f}")
print(special.comb(10, 3), special.comb(50, 25, exact=True))
print(special.perm(6, 2, exact=True), special.factorial(10, exact=True))
print(f"erf(1) = {special.erf(1):.12f}")
print(f"beta(2, 3) = {special.beta(2, 3):.12f}")
print(f"J0(1) = {special.j0(1.0):.12f}")
print(f"zeta(2) = {special.zeta(2):.12f}")
special.binom(7, 2)
