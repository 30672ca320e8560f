from scipy.optimize import brentq

def f(x):
    return x**2 + 1

print(f(0), f(2))
root = brentq(f, 0, 2)
print(root)
