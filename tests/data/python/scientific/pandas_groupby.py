import pandas as pd

df = pd.DataFrame({
    "dept": ["math", "physics", "math", "chem", "physics", "chem", "math"],
    "score": [88, 92, 75, 64, 81, 90, 95],
    "hours": [10, 12, 7, 5, 9, 11, 13],
})
g = df.groupby("dept")
print(g["score"].mean().round(4))
print(g.agg(total=("hours", "sum"), best=("score", "max"), n=("score", "size")))
print(df.groupby("dept")["score"].rank(ascending=False).astype(int).tolist())
