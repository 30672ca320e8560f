import pandas as pd

df = pd.DataFrame({
    "height": [1.62, 1.75, 1.80, 1.68, 1.71, 1.90, 1.55, 1.77],
    "mass": [55.0, 72.5, 80.1, 61.3, 68.0, 92.4, 50.2, 75.5],
})
df["bmi"] = df["mass"] / df["height"] ** 2
print(df.describe().round(4))
print(df.corr().round(6))
print(df.shape, list(df.columns))
