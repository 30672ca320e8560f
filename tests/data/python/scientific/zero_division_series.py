from fractions import Fraction

terms = []
for n in range(4, -1, -1):
    terms.append(Fraction(1, n * (n + 1)) if n else Fraction(1, n))
    print(n, terms[-1])
print(sum(terms))
