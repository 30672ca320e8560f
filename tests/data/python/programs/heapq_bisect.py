import heapq, bisect
h = [5, 1, 8, 3, 9, 2]
heapq.heapify(h)
print([heapq.heappop(h) for _ in range(3)], heapq.nlargest(2, [4, 7, 1, 9]))
a = [1, 3, 5, 7]
bisect.insort(a, 4)
print(a, bisect.bisect_left(a, 5))
