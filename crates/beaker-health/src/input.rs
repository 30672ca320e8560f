//! The tools' params, and the readers that turn them into queries: dates in the dataset's time zone, metric
//! names checked against what the dataset holds, filters as conditions.

use beaker_core::ToolError;
use beaker_datasets::query::Catalog;
use beaker_datasets::{Aggregation, Condition, Period};
use chrono::NaiveDate;
use chrono_tz::Tz;
use serde::Deserialize;
use serde_json::Value;

/// Most points a query returns unless it asks for fewer (`limit`).
pub const DEFAULT_LIMIT: usize = 1000;
/// Most points a query may ask for.
pub const MAX_LIMIT: usize = 10_000;

/// `dateRange`: first and last day, both included.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct DateRange {
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub end: Option<String>,
}

/// One of `filters`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct FilterParam {
    #[serde(default)]
    pub metric: Option<String>,
    pub operator: String,
    pub value: Value,
}

/// `query_timeseries_metrics`' params.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SeriesParams {
    pub metrics: Vec<String>,
    #[serde(default)]
    pub date_range: Option<DateRange>,
    #[serde(default)]
    pub filters: Vec<FilterParam>,
    #[serde(default)]
    pub group_by: Option<Period>,
    #[serde(default)]
    pub aggregation: Option<Aggregation>,
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub offset: Option<usize>,
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// `find_correlations`' `primaryMetric`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Primary {
    pub metric: String,
    #[serde(default)]
    pub filter: Option<PrimaryFilter>,
}

/// `primaryMetric.filter`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct PrimaryFilter {
    pub operator: String,
    pub value: Value,
}

/// `find_correlations`' `secondaryMetric`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct Secondary {
    pub metric: String,
}

/// `find_correlations`' params.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CorrelationParams {
    pub primary_metric: Primary,
    pub secondary_metric: Secondary,
    #[serde(default)]
    pub date_range: Option<DateRange>,
    #[serde(default)]
    pub lag_days: Option<i64>,
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// `get_data_summary`'s params.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SummaryParams {
    #[serde(default)]
    pub data_types: Option<Vec<String>>,
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// `get_latest_report`'s and `compare_reports`' params.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReportParams {
    pub report_type: String,
    #[serde(default)]
    pub fields: Option<Vec<String>>,
    #[serde(default)]
    pub dates: Option<Vec<String>>,
}

/// A day written `YYYY-MM-DD`, or an RFC 3339 instant read as its day in `tz`.
pub fn day(s: &str, key: &str, tz: Tz) -> Result<NaiveDate, ToolError> {
    let s = s.trim();
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Ok(d);
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Ok(t.with_timezone(&tz).date_naive());
    }
    Err(ToolError::invalid_params(format!(
        "`{key}` must be a date as YYYY-MM-DD (such as 2024-12-01), got {s:?}"
    )))
}

/// `dateRange` as first and last day in `tz`; a missing end is open. An inverted range is refused.
pub fn date_range(
    r: Option<&DateRange>,
    tz: Tz,
    catalog: &Catalog,
) -> Result<Option<(NaiveDate, NaiveDate)>, ToolError> {
    let Some(r) = r else {
        return Ok(None);
    };
    if r.start.is_none() && r.end.is_none() {
        return Ok(None);
    }
    let (first, last) = catalog_days(catalog, tz);
    let start = match &r.start {
        Some(s) => day(s, "dateRange.start", tz)?,
        None => first.unwrap_or(NaiveDate::MIN),
    };
    let end = match &r.end {
        Some(s) => day(s, "dateRange.end", tz)?,
        None => last.unwrap_or(start).max(start),
    };
    if start > end {
        return Err(ToolError::invalid_params(format!(
            "`dateRange` is inverted: start {start} is after end {end}"
        )));
    }
    Ok(Some((start, end)))
}

/// The first and last day any metric of the catalog covers, in `tz`.
pub fn catalog_days(catalog: &Catalog, tz: Tz) -> (Option<NaiveDate>, Option<NaiveDate>) {
    let first = catalog.metrics.values().map(|m| m.first).min();
    let last = catalog.metrics.values().map(|m| m.last).max();
    (
        first.map(|t| beaker_datasets::query::local_day(tz, t)),
        last.map(|t| beaker_datasets::query::local_day(tz, t)),
    )
}

/// Checks that the dataset holds `metric`; the error lists what it holds and the closest name.
pub fn known_metric(metric: &str, key: &str, catalog: &Catalog) -> Result<(), ToolError> {
    if catalog.metrics.contains_key(metric) {
        return Ok(());
    }
    if catalog.metrics.is_empty() {
        return Err(ToolError::invalid_params(format!(
            "unknown metric `{metric}` in `{key}`: this dataset holds no time-series data yet (import some with `beaker data import`)"
        )));
    }
    let names: Vec<&str> = catalog.metrics.keys().map(String::as_str).collect();
    let close = names
        .iter()
        .map(|n| {
            (
                strsim::jaro_winkler(&n.to_lowercase(), &metric.to_lowercase()),
                *n,
            )
        })
        .filter(|(s, _)| *s > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!(" (did you mean `{n}`?)"))
        .unwrap_or_default();
    Err(ToolError::invalid_params(format!(
        "unknown metric `{metric}` in `{key}`{close}; this dataset has: {}",
        names.join(", ")
    )))
}

/// A filter's operator and value as a condition.
pub fn condition(operator: &str, value: &Value, key: &str) -> Result<Condition, ToolError> {
    let number = |v: &Value| v.as_f64().filter(|x| x.is_finite());
    if operator == "between" {
        let pair = value
            .as_array()
            .filter(|a| a.len() == 2)
            .and_then(|a| Some((number(&a[0])?, number(&a[1])?)));
        let Some((lo, hi)) = pair else {
            return Err(ToolError::invalid_params(format!(
                "`{key}.value` must be two numbers [min, max] for `between`, got {value}"
            )));
        };
        if lo > hi {
            return Err(ToolError::invalid_params(format!(
                "`{key}.value` for `between` is [min, max]: {lo} is more than {hi}"
            )));
        }
        return Ok(Condition::Between(lo, hi));
    }
    let Some(v) = number(value) else {
        return Err(ToolError::invalid_params(format!(
            "`{key}.value` must be a number for `{operator}` (two numbers [min, max] only for `between`), got {value}"
        )));
    };
    Ok(match operator {
        ">" => Condition::Gt(v),
        "<" => Condition::Lt(v),
        "=" => Condition::Eq(v),
        ">=" => Condition::Ge(v),
        "<=" => Condition::Le(v),
        "!=" => Condition::Ne(v),
        other => {
            return Err(ToolError::invalid_params(format!(
                "`{key}.operator` must be one of >, <, =, >=, <=, !=, between; got {other:?}"
            )))
        }
    })
}
