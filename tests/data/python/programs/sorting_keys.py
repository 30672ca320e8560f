people = [("ann", 31), ("bob", 25), ("cy", 31), ("di", 22)]
print(sorted(people, key=lambda p: (-p[1], p[0])))
print(max(people, key=lambda p: p[1]), min(range(-5, 5), key=abs))
print(list(zip("abc", range(3))), list(enumerate("xy", start=1)))
any(x > 30 for _, x in people), all(isinstance(n, str) for n, _ in people)
