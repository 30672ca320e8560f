import numpy as np
from scipy.optimize import curve_fit

def model(t, a, k, c):
    return a * np.exp(-k * t) + c

t = np.linspace(0, 4, 25)
noise = 0.01 * np.sin(7 * t)
y = model(t, 2.5, 1.3, 0.5) + noise
popt, pcov = curve_fit(model, t, y, p0=[1, 1, 0])
print("a, k, c =", [round(float(p), 5) for p in popt])
perr = np.sqrt(np.diag(pcov))
print("errors below 0.05:", bool(np.all(perr < 0.05)))
print(f"fitted y(1) = {model(1.0, *popt):.5f}")
