import itertools
import math

print(list(itertools.combinations("ABCD", 2)))
print(sum(1 for _ in itertools.permutations(range(6), 3)), math.perm(6, 3))
dice = [sum(r) for r in itertools.product(range(1, 7), repeat=3)]
print(dice.count(10) / len(dice), dice.count(10), len(dice))
subsets = [s for r in range(5) for s in itertools.combinations(range(1, 5), r) if sum(s) == 5]
print(subsets)
print(list(itertools.accumulate([1, 2, 3, 4, 5], lambda a, b: a * b)))
derangements = sum(all(p[i] != i for i in range(5)) for p in itertools.permutations(range(5)))
derangements
