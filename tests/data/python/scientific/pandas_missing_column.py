import pandas as pd

df = pd.DataFrame({"x": [1, 2, 3], "y": [4.0, 5.5, 6.1]})
print(df.sum())
print(df.columns.tolist())
total = df["z"].sum()
print(total)
