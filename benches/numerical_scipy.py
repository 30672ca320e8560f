"""SciPy/NumPy timings for the inputs of benches/numerical.rs (same LCG), medians of repeated runs.

Run: python3 benches/numerical_scipy.py   (needs scipy, numpy)

Each case is timed twice: with the NumPy arrays already in hand (SciPy's best case), and from Python lists to
Python lists (array conversion and `.tolist()` included), which is what a JSON call would have to do.
"""
import math

import numpy as np
import scipy
from scipy import integrate, linalg, optimize

from bench_common import median_time, uniforms


def main():
    print(f"scipy {scipy.__version__}, numpy {np.__version__}")
    n = 100
    u = uniforms(1, n * n)
    a = [[u[i * n + j] - 0.5 for j in range(n)] for i in range(n)]
    b = [v - 0.5 for v in uniforms(2, n)]
    A, B = np.asarray(a), np.asarray(b)
    print(f"solve_linear_100x100 (arrays in hand): {median_time(lambda: linalg.solve(A, B), 301) * 1e6:.1f} us")
    # scipy.linalg.solve already runs LAPACK's gecon (the 1-norm condition estimate) as the tool does.
    solve_res = lambda: (lambda x: (x, np.linalg.norm(A @ x - B)))(linalg.solve(A, B))
    print(f"solve_linear_100x100 (+ residual norm, as the tool returns): {median_time(solve_res, 301) * 1e6:.1f} us")
    print(f"solve_linear_100x100 (lists in, lists out): "
          f"{median_time(lambda: linalg.solve(np.asarray(a), np.asarray(b)).tolist(), 301) * 1e6:.1f} us")

    t_eval = [20.0 * i / 999.0 for i in range(1000)]
    vdp = lambda t, y: [y[1], (1 - y[0] ** 2) * y[1] - y[0]]
    ode = lambda: integrate.solve_ivp(vdp, [0, 20], [2.0, 0.0], t_eval=t_eval, rtol=1e-6, atol=1e-9)
    print(f"ode_van_der_pol_1000_points: {median_time(ode, 21) * 1e3:.2f} ms")
    print(f"ode_van_der_pol_1000_points (lists out): {median_time(lambda: ode().y.tolist(), 21) * 1e3:.2f} ms")

    x = [v - 0.5 for v in uniforms(3, 1 << 16)]
    X = np.asarray(x)
    print(f"fft_65536 (array in hand): {median_time(lambda: np.fft.fft(X), 101) * 1e6:.1f} us")
    print(f"fft_65536 (list in, [re, im] pairs out): "
          f"{median_time(lambda: [[c.real, c.imag] for c in np.fft.fft(np.asarray(x)).tolist()], 31) * 1e3:.2f} ms")

    xs = [4.0 * i / 199.0 for i in range(200)]
    noise = uniforms(4, 200)
    ys = [2.5 * math.exp(-1.3 * xv) + 0.5 + 0.05 * (e - 0.5) for xv, e in zip(xs, noise)]
    XS, YS = np.asarray(xs), np.asarray(ys)
    model = lambda x, a, b, c: a * np.exp(-b * x) + c
    print(f"curve_fit_exponential_200: {median_time(lambda: optimize.curve_fit(model, XS, YS, p0=[1, 1, 1]), 101) * 1e3:.3f} ms")
    print(f"curve_fit_exponential_200 (lists in): "
          f"{median_time(lambda: optimize.curve_fit(model, np.asarray(xs), np.asarray(ys), p0=[1, 1, 1]), 101) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
