import math

print(math.comb(52, 5), math.perm(10, 4), math.factorial(20))
print(math.gcd(1071, 462), math.lcm(4, 6, 10), math.isqrt(10**20 + 12345))
primes = [n for n in range(2, 60) if all(n % d for d in range(2, math.isqrt(n) + 1))]
print(primes)
print(pow(3, 200, 1000003), pow(17, -1, 3120))
print(f"{math.fsum([0.1] * 10):.17g} {sum([0.1] * 10):.17g}")
print(math.prod(range(1, 11)), math.dist((0, 0), (3, 4)), math.hypot(5, 12))
