import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots()
ax.plot([1, 2, 3, 4], [10, 20, 15, 30])
print(ax.get_xlim(), ax.get_ylim())
ax.set_yscale("log")
print(ax.get_yscale(), ax.get_xscale())
ax.axhline(12, color="r")
ax.fill_between([1, 2], [10, 10], [20, 20], alpha=0.2)
print(len(ax.lines), len(ax.collections))
print([round(t, 4) for t in ax.get_xticks()])
