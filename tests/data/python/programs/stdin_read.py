n = int(input())
nums = [int(x) for x in input().split()]
print(n, sum(nums), max(nums))
import sys
rest = sys.stdin.read()
print(repr(rest))
