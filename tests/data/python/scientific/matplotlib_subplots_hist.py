import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

rng = np.random.default_rng(42)
data = rng.normal(0, 1, 500)
fig, axes = plt.subplots(2, 2, figsize=(8, 6))
counts, edges, patches = axes[0, 0].hist(data, bins=10, range=(-4, 4))
print(counts.astype(int).tolist(), len(patches))
axes[0, 1].bar(["a", "b", "c"], [3, 7, 5])
axes[1, 0].scatter([1, 2, 3], [4, 5, 6])
axes[1, 1].set_axis_off()
print(len(fig.axes), len(axes[0, 1].patches), len(axes[1, 0].collections))
print(axes[0, 0].get_xlim(), axes[1, 1].axison)
plt.close("all")
