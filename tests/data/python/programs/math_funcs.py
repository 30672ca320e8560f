import math
print(math.factorial(30))
print(math.comb(50, 25), math.perm(10, 3), math.gcd(462, 1071), math.lcm(4, 6, 10))
print(math.isqrt(10**20 + 12345))
print(round(math.sqrt(2), 12), round(math.pi, 10), round(math.e, 10))
print(math.floor(-2.5), math.ceil(2.1), math.log(1024, 2), math.log10(1000))
math.isclose(math.sin(math.pi / 6), 0.5)
