from sympy import isprime, primerange, factorint, totient, nextprime, mod_inverse, divisors, primepi

print(isprime(2**61 - 1), isprime(2**61 + 1))
print(list(primerange(90, 130)))
print(factorint(2**32 + 1))
print(totient(1000), nextprime(10**12))
print(mod_inverse(17, 3120))
print(divisors(360)[:10], len(divisors(360)))
primepi(10**5)
