import statistics as st
from fractions import Fraction

data = [2.5, 3.1, 4.7, 5.0, 3.1, 6.2, 4.4, 3.9]
print(st.mean(data), st.median(data), st.mode(data))
print(f"{st.stdev(data):.12f} {st.pvariance(data):.12f}")
print(st.quantiles(data, n=4))
print(st.mean([Fraction(1, 3), Fraction(1, 6), Fraction(1, 2)]))
x = [1, 2, 3, 4, 5]
y = [2.1, 3.9, 6.2, 7.8, 10.1]
slope, intercept = st.linear_regression(x, y)
print(f"{slope:.10f} {intercept:.10f} {st.correlation(x, y):.10f}")
nd = st.NormalDist(100, 15)
print(f"{nd.cdf(130):.10f} {nd.inv_cdf(0.95):.10f}")
