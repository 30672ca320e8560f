import pandas as pd

sales = pd.DataFrame({
    "region": ["N", "S", "N", "S", "N", "S", "E", "E"],
    "quarter": ["Q1", "Q1", "Q2", "Q2", "Q1", "Q2", "Q1", "Q2"],
    "amount": [100, 80, 120, 95, 40, 30, 60, 75],
})
table = sales.pivot_table(index="region", columns="quarter", values="amount", aggfunc="sum", fill_value=0)
print(table)
print(table.sum(axis=1).sort_values(ascending=False))
print(pd.crosstab(sales["region"], sales["quarter"]))
