from itertools import combinations, permutations, product, accumulate, chain, groupby
from collections import Counter, defaultdict, deque, namedtuple, OrderedDict
print(list(combinations(range(4), 2)))
print(len(list(permutations("abcd"))), list(product([0, 1], repeat=2)))
print(list(accumulate([1, 2, 3, 4])), list(chain([1], [2, 3])))
print([(k, len(list(g))) for k, g in groupby("aaabccdd")])
c = Counter("mississippi")
print(sorted(c.items()))
d = defaultdict(list)
d["x"].append(1)
print(dict(d))
q = deque([1, 2, 3]); q.rotate(1); print(list(q))
P = namedtuple("P", "x y")
P(1, 2)
