import numpy as np

rng = np.random.default_rng(42)
print(rng.integers(0, 100, size=8))
u = rng.random(5)
print(np.round(u, 12))
normal = rng.normal(loc=10.0, scale=2.0, size=10000)
print(f"mean={normal.mean():.6f} std={normal.std(ddof=1):.6f}")
print(rng.permutation(10))
print(rng.choice(["a", "b", "c"], size=6, p=[0.5, 0.3, 0.2]))
