import io
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
ax.plot([0, 1, 2, 3], [0, 1, 4, 9], marker="o")
ax.set_xlabel("x")
ax.set_ylabel("x squared")
buf = io.BytesIO()
fig.savefig(buf, format="png")
data = buf.getvalue()
print(data[:8], len(data) > 1000)
print(ax.get_xlabel(), "|", ax.get_ylabel())
print(fig.canvas.get_width_height())
line = ax.lines[0]
line.get_xydata().tolist()
