import numpy as np
import pandas as pd

s = pd.Series([4.0, np.nan, 7.5, 1.0, np.nan, 3.0], name="values")
print(s.isna().sum(), s.count())
print(s.fillna(s.mean()).round(4).tolist())
print(s.interpolate().tolist())
print(s.dropna().sort_values().to_dict())
cats = pd.cut(pd.Series([1, 7, 12, 18, 25]), bins=[0, 10, 20, 30])
print(cats.value_counts().sort_index().tolist())
s.describe().round(4).to_dict()
