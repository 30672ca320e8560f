def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b

from itertools import islice
print(list(islice(fib(), 15)))
squares = (n * n for n in range(10))
print(sum(squares))
def countdown(n):
    while n > 0:
        yield n
        n -= 1
list(countdown(5))
