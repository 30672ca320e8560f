import functools

@functools.lru_cache(maxsize=None)
def partitions(n, k):
    if n == 0:
        return 1
    if n < 0 or k == 0:
        return 0
    return partitions(n - k, k) + partitions(n, k - 1)

def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)

print(partitions(100, 100))
depth(500)
