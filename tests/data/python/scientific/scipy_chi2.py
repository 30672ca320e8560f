import numpy as np
from scipy.stats import chi2_contingency, chisquare, chi2

table = np.array([[30, 10], [20, 40]])
stat, p, dof, expected = chi2_contingency(table)
print(f"chi2 = {stat:.8f}, p = {p:.8g}, dof = {dof}")
print(expected)
gof = chisquare([18, 22, 20, 25, 15], f_exp=[20, 20, 20, 20, 20])
print(f"goodness of fit: stat = {gof.statistic:.6f}, p = {gof.pvalue:.8f}")
print(f"critical value (0.05, df=4) = {chi2.ppf(0.95, 4):.8f}")
