"""SciPy/statsmodels timings for the inputs of benches/statistics.rs (same LCG), medians of repeated runs.

Run: python3 benches/statistics_scipy.py   (needs scipy, statsmodels, numpy)
"""
import math

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats

from bench_common import median_time, uniforms


def describe(x):
    # What `descriptive` returns: the scipy/numpy calls a user would make.
    x = np.asarray(x)
    return (len(x), x.mean(), np.median(x), stats.mode(x), x.std(ddof=1), x.var(ddof=1), x.min(), x.max(),
            np.percentile(x, [25, 75]), stats.skew(x), stats.kurtosis(x), stats.sem(x), x.sum())


def main():
    print(f"scipy {scipy.__version__}, statsmodels {statsmodels.__version__}, numpy {np.__version__}")
    big = [u * 100.0 for u in uniforms(1, 1_000_000)]
    arr = np.asarray(big)
    print(f"descriptive_1e6 (numpy array in hand): {median_time(lambda: describe(arr), 11) * 1e3:.2f} ms")
    print(f"descriptive_1e6 (from a Python list, as a JSON call would): "
          f"{median_time(lambda: describe(np.asarray(big)), 11) * 1e3:.2f} ms")
    a = uniforms(2, 50)
    b = [u + 0.1 for u in uniforms(3, 50)]
    print(f"welch_t_test_50: {median_time(lambda: stats.ttest_ind(a, b, equal_var=False), 2001) * 1e6:.1f} us")
    n = 10_000
    u = uniforms(4, 4 * n)
    X = np.array([[u[3 * i] * 2 - 1, u[3 * i + 1] * 2 - 1, u[3 * i + 2] * 2 - 1] for i in range(n)])
    y = np.array([1.0 if u[3 * n + i] < 1 / (1 + math.exp(-(0.5 + 1.5 * X[i, 0] - X[i, 1]))) else 0.0
                  for i in range(n)])
    Xc = sm.add_constant(X)
    fit = lambda: sm.Logit(y, Xc).fit(disp=0)
    print(f"logistic_1e4x3 (statsmodels Logit): {median_time(fit, 21) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
