x = [3, 1, 2]
x.sort()
print(x)
None
