import statistics
data = [2.5, 3.1, 4.7, 5.0, 6.2, 7.9]
print(statistics.mean(data), statistics.median(data))
print(round(statistics.stdev(data), 12), round(statistics.pvariance(data), 12))
statistics.mode([1, 2, 2, 3, 3, 3])
