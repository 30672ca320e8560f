from sympy import Rational, sqrt, nsimplify, Integer, binomial

a = Rational(3, 4)
b = Rational(5, 6)
print(a + b, a * b, a / b, a - b)
print((a + b)**3)
p = sum(Rational(1, k) for k in range(1, 11))
print(p, float(p))
print(sqrt(Rational(50, 9)))
print(Integer(2)**100 % 97)
print(binomial(30, 12))
nsimplify("0.125") + Rational(1, 8)
