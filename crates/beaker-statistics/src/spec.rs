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
        examples: vec![
            Example {
                params: json!({"operation": "distribution", "data": {"distribution": "normal", "function": "cdf", "x": 1.96}}),
                result: json!({"value": 0.9750021048529024}),
            },
            Example {
                params: json!({"operation": "t_test", "data": {"sample1": [23, 25, 28, 24, 26], "sample2": [30, 32, 29, 31, 33]}}),
                result: json!({"test": "two-sample t-test (pooled variance)", "statistic": -5.208553758776472, "p_value": 0.000813862111732207, "significant": true, "conclusion": "Reject the null hypothesis at alpha = 0.05 (p = 0.0008)", "alternative": "two-sided", "alpha": 0.05, "t_statistic": -5.208553758776472, "df": 8.0, "mean_difference": -5.8, "std_error": 1.1135528725660044, "confidence_interval": [-8.367857528905681, -3.232142471094319], "mean1": 25.2, "mean2": 31.0, "n1": 5, "n2": 5}),
            },
            Example {
                params: json!({"operation": "correlation", "data": {"x": [1, 2, 3, 4, 5], "y": [2, 4, 5, 4, 5]}, "options": {"method": "spearman"}}),
                result: json!({"coefficient": 0.7378647873726218, "p_value": 0.15461852312844884, "significant": false, "alpha": 0.05, "method": "spearman", "n": 5, "alternative": "two-sided"}),
            },
        ],
        notes: include_str!("statistics.md").into(),
    }
}

#[cfg(test)]
mod tests {
    use beaker_core::{CallContext, Limits, Tool};

    #[test]
    fn examples_in_the_spec_hold() {
        let tool = crate::Statistics::new();
        for ex in &tool.spec().examples {
            let got = tool
                .call(&ex.params, &CallContext::new(Limits::default()))
                .unwrap();
            assert_eq!(got, ex.result, "{}", ex.params);
        }
    }
}
