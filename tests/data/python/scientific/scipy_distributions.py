from scipy.stats import norm, binom, poisson, t

print(f"P(Z < 1.96) = {norm.cdf(1.96):.10f}")
print(f"z_0.975 = {norm.ppf(0.975):.10f}")
print(f"P(|Z| > 2) = {2 * norm.sf(2):.10f}")
print(f"P(X = 3), X~Bin(10, 0.3) = {binom.pmf(3, 10, 0.3):.10f}")
print(f"P(X <= 5) = {binom.cdf(5, 10, 0.3):.10f}")
print(f"Poisson(4) P(X = 2) = {poisson.pmf(2, 4):.10f}")
print(f"t crit (df=9) = {t.ppf(0.975, 9):.10f}")
print(binom.mean(10, 0.3), binom.var(10, 0.3))
