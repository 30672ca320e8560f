import numpy as np
from scipy.integrate import solve_ivp

def oscillator(t, y):
    return [y[1], -4 * y[0]]

sol = solve_ivp(oscillator, (0, np.pi), [1.0, 0.0], rtol=1e-10, atol=1e-12, t_eval=[np.pi / 4, np.pi / 2, np.pi])
print(sol.status, sol.message)
print(np.round(sol.y[0], 6) + 0.0)
decay = solve_ivp(lambda t, y: -0.5 * y, (0, 2), [10.0], method="LSODA", rtol=1e-10, atol=1e-12)
print(f"y(2) = {decay.y[0, -1]:.6f} (exact {10 * np.exp(-1):.6f})")
