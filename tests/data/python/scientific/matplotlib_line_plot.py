import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

x = np.linspace(0, 2 * np.pi, 100)
fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(x, np.sin(x), label="sin")
ax.plot(x, np.cos(x), "--", label="cos")
ax.set_xlim(0, 2 * np.pi)
ax.set_ylim(-1.5, 1.5)
ax.set_title("Trig functions")
ax.legend()
print(len(ax.lines), ax.get_title())
print([round(v, 6) for v in ax.get_xlim()], ax.get_ylim())
print([t.get_text() for t in ax.get_legend().get_texts()])
print(fig.get_size_inches().tolist(), matplotlib.get_backend())
plt.close(fig)
