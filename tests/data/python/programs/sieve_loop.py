N = 100000
sieve = bytearray([1]) * (N + 1)
sieve[0] = sieve[1] = 0
for i in range(2, int(N ** 0.5) + 1):
    if sieve[i]:
        sieve[i * i :: i] = bytearray(len(range(i * i, N + 1, i)))
print(sum(sieve))
sum(i for i in range(N + 1) if sieve[i]) % 1000
