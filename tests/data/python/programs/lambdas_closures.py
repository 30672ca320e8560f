def make_counter():
    count = 0
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc

c = make_counter()
c(); c(5)
print(c())
compose = lambda f, g: lambda x: f(g(x))
print(compose(abs, lambda x: x - 10)(3))
print(sorted(["pear", "fig", "banana"], key=len), list(map(lambda x: x * 2, range(4))))
from functools import reduce
reduce(lambda a, b: a * b, range(1, 11))
