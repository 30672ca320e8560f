primes = [n for n in range(2, 60) if all(n % d for d in range(2, int(n ** 0.5) + 1))]
print(primes)
table = {n: n ** 3 for n in range(6)}
print(table)
matrix = [[i * j for j in range(4)] for i in range(3)]
print(matrix)
sorted({x % 7 for x in range(100)})
