import numpy as np

data = np.array([12.5, 15.0, 11.2, 18.9, 14.4, 16.1, 13.3, 17.8, 12.9, 15.6])
print(f"mean={data.mean():.6f} median={np.median(data):.6f}")
print(f"std={data.std():.8f} var(ddof=1)={data.var(ddof=1):.8f}")
print("percentiles:", np.percentile(data, [25, 50, 75]).round(6).tolist())
other = 2 * data + np.array([0.3, -0.2, 0.1, 0.0, -0.4, 0.2, 0.1, -0.1, 0.3, -0.3])
print(f"corr={np.corrcoef(data, other)[0, 1]:.10f}")
hist, edges = np.histogram(data, bins=4)
print(hist.tolist(), np.round(edges, 6).tolist())
