from scipy import stats

before = [72, 75, 68, 80, 77, 74, 69, 71, 78, 73]
after = [70, 72, 66, 77, 76, 70, 68, 69, 75, 70]
t, p = stats.ttest_rel(before, after)
print(f"paired t = {t:.8f}, p = {p:.8g}")
group_a = [5.1, 4.9, 5.6, 5.8, 6.0, 5.4]
group_b = [6.2, 6.8, 6.1, 7.0, 6.5, 6.9]
res = stats.ttest_ind(group_a, group_b, equal_var=False)
print(f"welch t = {res.statistic:.8f}, p = {res.pvalue:.8g}")
one = stats.ttest_1samp(group_a, 5.0)
print(f"one-sample t = {one.statistic:.8f}, p = {one.pvalue:.8g}")
