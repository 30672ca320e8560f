import pandas as pd

students = pd.DataFrame({"id": [1, 2, 3, 4], "name": ["Ada", "Ben", "Cy", "Di"]})
grades = pd.DataFrame({"id": [1, 2, 2, 4, 5], "grade": [90, 85, 78, 88, 70]})
inner = students.merge(grades, on="id")
print(inner)
outer = students.merge(grades, on="id", how="outer", indicator=True)
print(outer)
print(inner.groupby("name")["grade"].mean().to_dict())
