import pandas as pd

s = pd.Series([3, 5, 2, 8, 6, 9, 4, 7, 10, 1], index=pd.date_range("2024-01-01", periods=10, freq="D"))
print(s.rolling(3).mean().round(4))
print(s.rolling(window=4, min_periods=2).max().tolist())
print(s.expanding().sum().tolist())
print(s.ewm(span=3, adjust=False).mean().round(6).tolist())
print(s.pct_change().round(6).iloc[1:4].tolist())
