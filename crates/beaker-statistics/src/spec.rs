//! The tool's spec: JSON Schemas, description, examples and notes (`statistics.md`).

use beaker_core::{Example, ToolSpec};
use serde_json::json;

pub(crate) fn spec() -> ToolSpec {
    ToolSpec {
        name: "statistics".into(),
        description: "Statistics with scipy.stats' definitions. operation: descriptive (data: array), \
            distribution (data.distribution: normal, t, chi2, f, binomial, poisson, uniform, exponential, gamma, \
            beta, lognormal, geometric, hypergeometric, negative_binomial, weibull, cauchy with SciPy's parameter \
            names as data keys; data.function: pdf, pmf, cdf, sf, ppf, isf, logpdf, logcdf, logsf, mean, var, std, \
            median, sample; data.x), hypothesis tests t_test (data.sample1, data.sample2 or data.mu; \
            options.equal_var, options.paired), chi_square (data.observed 1-D or 2-D), anova and kruskal \
            (data.groups), mann_whitney, wilcoxon, ks_test (data.sample1, data.sample2, or a distribution), \
            shapiro, fisher_exact (data.table 2x2); regression (data.x, data.y; options.type linear, polynomial \
            with options.degree, logistic), correlation (data.x, data.y; options.method pearson, spearman, \
            kendall), confidence_interval (options.type mean, proportion, difference). Tests take \
            options.alpha (0.05) and options.alternative (two-sided, less, greater) and return statistic, \
            p_value, significant and conclusion."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": crate::OPERATIONS, "description": "What to compute."},
                "data": {
                    "type": ["array", "object"],
                    "description": "The sample (an array) for descriptive, shapiro and a mean's confidence interval; otherwise an object with the operation's keys (sample1, sample2, groups, observed, table, x, y, distribution, ...)."
                },
                "options": {
                    "type": "object",
                    "description": "alpha, alternative, level, ddof, bias, percentiles, equal_var, paired, correction, method, type, degree, n and seed (sampling), ...",
                    "properties": {
                        "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                        "level": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                        "alternative": {"enum": ["two-sided", "less", "greater"]}
                    }
                }
            },
            "required": ["operation", "data"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "description": "Operation-specific keys (see the notes). Tests: statistic, p_value, significant, conclusion, alternative, alpha, test, and df where defined. An infinite value is the string \"inf\" or \"-inf\"; a key whose value is undefined for the data (the skew of constant data) is null."
        }),
        // One per operation (checked by the test below; docs/TOOLS.md shows them all, prompt catalogs
        // the first).
        examples: vec![
            Example {
                params: json!({"operation": "descriptive", "data": [2, 4, 4, 4, 5, 5, 7, 9]}),
                result: json!({"n": 8, "mean": 5.0, "median": 4.5, "mode": 4.0, "std": 2.138089935299395, "var": 4.571428571428571, "min": 2.0, "max": 9.0, "range": 7.0, "sum": 40.0, "q1": 4.0, "q3": 5.5, "iqr": 1.5, "skew": 0.65625, "kurtosis": -0.21875, "sem": 0.7559289460184544}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "distribution", "data": {"distribution": "normal", "function": "cdf", "x": 1.96}}),
                result: json!({"value": 0.9750021048517795}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "distribution", "data": {"distribution": "binomial", "n": 10, "p": 0.3, "function": "pmf", "x": [0, 3]}}),
                result: json!({"value": [0.02824752489999998, 0.26682793200000904]}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "t_test", "data": {"sample1": [23, 25, 28, 24, 26], "sample2": [30, 32, 29, 31, 33]}}),
                result: json!({"test": "two-sample t-test (pooled variance)", "statistic": -5.208553758776472, "p_value": 0.000813862111732207, "significant": true, "conclusion": "Reject the null hypothesis at alpha = 0.05 (p = 0.0008)", "alternative": "two-sided", "alpha": 0.05, "t_statistic": -5.208553758776472, "df": 8.0, "mean_difference": -5.8, "std_error": 1.1135528725660044, "confidence_interval": [-8.367857528905681, -3.2321424710943187], "mean1": 25.2, "mean2": 31.0, "n1": 5, "n2": 5}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "chi_square", "data": {"observed": [[20, 15], [30, 35]]}}),
                result: json!({"test": "chi-square test of independence", "statistic": 0.7032967032967032, "p_value": 0.4016781664697731, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.4017)", "alpha": 0.05, "df": 1.0, "expected": [[17.5, 17.5], [32.5, 32.5]], "correction": true}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "anova", "data": {"groups": [[4.2, 4.8, 5.1], [5.9, 6.3, 6.1], [7.0, 7.4, 6.8]]}}),
                result: json!({"test": "one-way ANOVA", "statistic": 37.116504854368955, "p_value": 0.00041821008331850473, "significant": true, "conclusion": "Reject the null hypothesis at alpha = 0.05 (p = 0.0004)", "alpha": 0.05, "df": [2.0, 6.0], "df_between": 2.0, "df_within": 6.0, "ss_between": 8.495555555555557, "ss_within": 0.6866666666666663, "ms_between": 4.247777777777778, "ms_within": 0.11444444444444439}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "mann_whitney", "data": {"sample1": [1.1, 2.3, 3.2, 4.5], "sample2": [3.9, 5.1, 6.0, 7.2]}}),
                result: json!({"test": "Mann-Whitney U test", "statistic": 1.0, "p_value": 0.05714285714285714, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.0571)", "alternative": "two-sided", "alpha": 0.05, "u_statistic": 1.0, "u2": 15.0, "method": "exact", "n1": 4, "n2": 4}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "wilcoxon", "data": {"sample1": [125, 115, 130, 140, 140, 115, 140, 125], "sample2": [110, 122, 125, 120, 140, 124, 123, 137]}}),
                result: json!({"test": "Wilcoxon signed-rank test", "statistic": 9.0, "p_value": 0.46875, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.4688)", "alternative": "two-sided", "alpha": 0.05, "r_plus": 19.0, "r_minus": 9.0, "n": 7, "zeros_dropped": 1, "method": "exact (tied ranks)"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "kruskal", "data": {"groups": [[2.9, 3.0, 2.5, 2.6, 3.2], [3.8, 2.7, 4.0, 2.4], [2.8, 3.4, 3.7, 2.2, 2.0]]}}),
                result: json!({"test": "Kruskal-Wallis H test", "statistic": 0.7714285714285722, "p_value": 0.6799647735788936, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.68)", "alpha": 0.05, "df": 2.0}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "ks_test", "data": {"sample1": [-0.3, 0.1, 0.5, -1.2, 0.9, 1.4, -0.7], "distribution": "normal"}}),
                result: json!({"test": "one-sample Kolmogorov-Smirnov test", "statistic": 0.12003388984544172, "p_value": 0.9995865461369278, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.9996)", "alternative": "two-sided", "alpha": 0.05, "d_plus": 0.08075665923377107, "d_minus": 0.12003388984544172, "n": 7, "method": "exact"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "shapiro", "data": [2.1, 3.4, 1.9, 5.6, 4.4, 3.3, 2.8, 3.9]}),
                result: json!({"test": "Shapiro-Wilk test", "statistic": 0.9633478971282388, "p_value": 0.8413204646192531, "significant": false, "conclusion": "Fail to reject the null hypothesis at alpha = 0.05 (p = 0.8413)", "alpha": 0.05, "w_statistic": 0.9633478971282388, "n": 8}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "fisher_exact", "data": {"table": [[8, 2], [1, 5]]}}),
                result: json!({"test": "Fisher's exact test", "statistic": 20.0, "p_value": 0.03496503496503467, "significant": true, "conclusion": "Reject the null hypothesis at alpha = 0.05 (p = 0.035)", "alternative": "two-sided", "alpha": 0.05, "odds_ratio": 20.0}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "regression", "data": {"x": [1, 2, 3, 4, 5], "y": [2.1, 3.9, 6.2, 7.8, 10.1]}}),
                result: json!({"type": "linear", "coefficients": [0.0499999999999995, 1.9900000000000002], "std_errors": [0.19807406022327448, 0.05972157622389641], "t_values": [0.2524308329098628, 33.32129065950107], "p_values": [0.8170151781751274, 5.9415391117553424e-05], "r_squared": 0.9973053289009771, "adj_r_squared": 0.9964071052013028, "f_statistic": 1110.3084112149536, "f_p_value": 5.9415391117553424e-05, "residual_std_error": 0.18885620632287056, "residual_sum_of_squares": 0.10699999999999997, "df_residuals": 3.0, "df_model": 1.0, "n": 5}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "correlation", "data": {"x": [1, 2, 3, 4, 5], "y": [2, 4, 5, 4, 5]}, "options": {"method": "spearman"}}),
                result: json!({"coefficient": 0.7378647873726218, "p_value": 0.15461852312844876, "significant": false, "alpha": 0.05, "method": "spearman", "n": 5, "alternative": "two-sided"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
            Example {
                params: json!({"operation": "confidence_interval", "data": {"successes": 42, "n": 100}, "options": {"method": "wilson"}}),
                result: json!({"lower": 0.3279838267435473, "upper": 0.5179351329695703, "level": 0.95, "estimate": 0.42, "method": "wilson", "type": "proportion"}), elided: Vec::new(), workspace: Default::default(), dataset: None },
        ],
        notes: include_str!("statistics.md").into(),
    }
}

#[cfg(test)]
mod tests {
    use beaker_core::Tool;

    #[test]
    fn every_operation_has_an_example() {
        let tool = crate::Statistics::new();
        for op in crate::OPERATIONS {
            assert!(
                tool.spec()
                    .examples
                    .iter()
                    .any(|e| e.params["operation"] == *op),
                "no example for {op}"
            );
        }
    }
}
