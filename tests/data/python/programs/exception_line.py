def ratio(a, b):
    return a / b

values = [4, 2, 0]
total = 0
for v in values:
    total += ratio(8, v)
print(total)
