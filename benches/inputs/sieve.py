n = 2000000
s = bytearray([1]) * (n + 1)
s[0] = s[1] = 0
i = 2
while i * i <= n:
    if s[i]:
        s[i*i::i] = bytearray(len(s[i*i::i]))
    i += 1
total = 0
for k in range(n + 1):
    if s[k]:
        total += k
print(total)
