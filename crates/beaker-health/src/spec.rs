//! The health tools' specs: seed 002's names, params and enums (with a few optional params beside them),
//! result schemas, examples (`examples.json`) and the notes in `health.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::{json, Value};

fn examples(tool: &str) -> Vec<Example> {
    Example::of_tool(include_str!("examples.json"), tool)
}

fn spec(name: &str, description: &str, params: Value, result: Value) -> ToolSpec {
    let notes = if name == "query_timeseries_metrics" {
        include_str!("health.md").to_string()
    } else {
        "Datasets, dates, time zones and errors: see `query_timeseries_metrics`.".to_string()
    };
    ToolSpec {
        name: name.into(),
        description: description.into(),
        params_schema: params,
        result_schema: result,
        examples: examples(name),
        notes,
    }
}

fn date_range() -> Value {
    json!({
        "type": "object",
        "description": "Date range to query, in the dataset's time zone, both days included. If omitted, all available data.",
        "properties": {
            "start": {"type": "string", "maxLength": 40, "description": "Start date in ISO format (YYYY-MM-DD)"},
            "end": {"type": "string", "maxLength": 40, "description": "End date in ISO format (YYYY-MM-DD)"}
        },
        "additionalProperties": false
    })
}

fn time_zone() -> Value {
    json!({"type": "string", "maxLength": 64, "description": "IANA time zone the dates are read and answered in (default: the dataset's own, set at import)."})
}

fn range_out() -> Value {
    json!({"type": ["object", "null"], "properties": {"start": {"type": "string"}, "end": {"type": "string"}}})
}

pub(crate) fn query_timeseries_metrics() -> ToolSpec {
    spec(
        "query_timeseries_metrics",
        "Query time-series health metrics (Apple Health, CGM, etc.) with flexible filters and aggregations. Use it \
         for date ranges (\"my heart rate in December\"), filtered values (\"days when my steps were above 10,000\"), \
         comparisons (two queries with different dateRanges) and trends (groupBy week or month). A filter on a \
         metric the query reads keeps its samples that pass; a filter on another metric keeps the periods (days by \
         default) when that metric passes (\"heart rate on days I exercised over 60 minutes\": metrics [heartRate], \
         filter exerciseMinutes > 60, groupBy day). Without groupBy it returns samples (paged with limit and offset).",
        json!({
            "type": "object",
            "properties": {
                "metrics": {"type": "array", "minItems": 1, "maxItems": 16, "items": {"type": "string", "maxLength": 128},
                    "description": "Metrics to query. Common metrics: heartRate, restingHeartRate, steps, sleep, activeEnergyBurned, hrv, vo2max, exerciseMinutes, glucose, weight (get_data_summary lists the dataset's)."},
                "dateRange": date_range(),
                "filters": {"type": "array", "maxItems": 16, "description": "Filters to apply (all must hold). Use to find specific conditions like \"heartRate > 100\".",
                    "items": {"type": "object", "properties": {
                        "metric": {"type": "string", "maxLength": 128, "description": "Metric to filter on (default: every metric queried)."},
                        "operator": {"type": "string", "enum": [">", "<", "=", ">=", "<=", "!=", "between"], "description": "Comparison operator"},
                        "value": {"type": ["number", "array"], "items": {"type": "number"}, "description": "Value to compare against. For \"between\", use array [min, max]"}
                    }, "required": ["operator", "value"], "additionalProperties": false}},
                "groupBy": {"type": "string", "enum": ["hour", "day", "week", "month"], "description": "Group results by time period (days in the dataset's time zone; weeks start on Monday; a night's sleep counts on the day it starts)."},
                "aggregation": {"type": "string", "enum": ["avg", "min", "max", "sum", "count"], "description": "How to aggregate grouped data (default: sum for amounts such as steps, energy, exercise and sleep; avg for levels such as heart rate and glucose). Without groupBy, one value over the whole range."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most points to return (default 1000, at most 10000)."},
                "offset": {"type": "integer", "minimum": 0, "description": "Points to skip (paging)."},
                "timeZone": time_zone()
            },
            "required": ["metrics"],
            "additionalProperties": false
        }),
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string"},
                "source": {"enum": ["local", "object_store", "hybrid"], "description": "Where the data was read from."},
                "timeZone": {"type": "string"},
                "dateRange": range_out(),
                "covered": {"type": ["object", "null"], "description": "First and last day the points actually cover."},
                "groupBy": {"type": ["string", "null"]},
                "series": {"type": "array", "items": {"type": "object", "properties": {
                    "metric": {"type": "string"}, "unit": {"type": "string"},
                    "aggregation": {"type": "string"},
                    "points": {"type": "array", "items": {"type": "object", "properties": {
                        "time": {"type": "string"}, "end": {"type": "string"}, "value": {"type": "number"}, "count": {"type": "integer"}
                    }, "required": ["time", "value"]}}
                }, "required": ["metric", "unit", "points"]}},
                "totalRecords": {"type": "integer"},
                "returnedRecords": {"type": "integer"},
                "truncated": {"type": "boolean"},
                "note": {"type": "string"}
            },
            "required": ["dataset", "timeZone", "series", "totalRecords", "returnedRecords"]
        }),
    )
}

fn report_type() -> Value {
    json!({"type": "string", "enum": ["dexa", "bloodwork"], "description": "Type of report"})
}

fn report_result() -> Value {
    json!({
        "type": "object",
        "properties": {
            "dataset": {"type": "string"},
            "reportType": {"type": "string"},
            "found": {"type": "boolean"},
            "reportDate": {"type": "string"},
            "fields": {"type": "object"},
            "reportCount": {"type": "integer"},
            "reports": {"type": "array"},
            "changes": {"type": "object"},
            "message": {"type": "string"},
            "note": {"type": "string"}
        },
        "required": ["dataset", "reportType", "found"]
    })
}

pub(crate) fn get_latest_report() -> ToolSpec {
    spec(
        "get_latest_report",
        "Get the most recent DEXA scan or bloodwork report: current body composition (\"what's my current body fat \
         percentage?\"), most recent lab results (\"what was my latest cholesterol?\").",
        json!({
            "type": "object",
            "properties": {
                "reportType": report_type(),
                "fields": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 128},
                    "description": "Specific fields to extract. For DEXA: totalBodyFatPercent, visceralFatAreaCm2, boneDensityTotal. For bloodwork: metric names like \"cholesterol\", \"glucose\", \"hdl\""}
            },
            "required": ["reportType"],
            "additionalProperties": false
        }),
        report_result(),
    )
}

pub(crate) fn compare_reports() -> ToolSpec {
    spec(
        "compare_reports",
        "Compare DEXA scans or bloodwork panels across dates, with each numeric field's change from the first \
         report chosen to the last: \"compare my last two DEXA scans\" (dates [\"second-latest\", \"latest\"]), \
         \"how has my visceral fat changed?\" (fields [visceralFatAreaCm2], all dates).",
        json!({
            "type": "object",
            "properties": {
                "reportType": report_type(),
                "dates": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 40},
                    "description": "Report dates to compare (YYYY-MM-DD), or \"latest\", \"second-latest\", or \"all\" (the default)"},
                "fields": {"type": "array", "maxItems": 64, "items": {"type": "string", "maxLength": 128}, "description": "Specific fields to compare across reports"}
            },
            "required": ["reportType"],
            "additionalProperties": false
        }),
        report_result(),
    )
}

pub(crate) fn find_correlations() -> ToolSpec {
    spec(
        "find_correlations",
        "Analyze how two health metrics move together, day by day: Pearson and Spearman correlations with p-values \
         and n. With a filter on the primary metric, also compares the secondary metric on the days that pass \
         against the others (Welch's t-test): \"when my glucose goes above 140, how does it affect my sleep that \
         night?\" (primary glucose > 140, secondary sleep: a night counts on the day it starts). lagDays pairs a \
         day with the secondary metric that many days later.",
        json!({
            "type": "object",
            "properties": {
                "primaryMetric": {"type": "object", "description": "First metric to analyze", "properties": {
                    "metric": {"type": "string", "maxLength": 128, "description": "Metric name"},
                    "filter": {"type": "object", "description": "Optional filter to apply to primary metric", "properties": {
                        "operator": {"type": "string", "enum": [">", "<", ">=", "<="]},
                        "value": {"type": "number"}
                    }, "required": ["operator", "value"], "additionalProperties": false}
                }, "required": ["metric"], "additionalProperties": false},
                "secondaryMetric": {"type": "object", "description": "Second metric to correlate with", "properties": {
                    "metric": {"type": "string", "maxLength": 128, "description": "Metric name"}
                }, "required": ["metric"], "additionalProperties": false},
                "dateRange": date_range(),
                "lagDays": {"type": "integer", "minimum": -30, "maximum": 30, "description": "Days later the secondary metric is read (default 0: the same day, or that night for sleep)."},
                "timeZone": time_zone()
            },
            "required": ["primaryMetric", "secondaryMetric"],
            "additionalProperties": false
        }),
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string"},
                "timeZone": {"type": "string"},
                "primaryMetric": {"type": "object"},
                "secondaryMetric": {"type": "object"},
                "lagDays": {"type": "integer"},
                "dateRange": range_out(),
                "covered": range_out(),
                "n": {"type": "integer", "description": "Days with both metrics."},
                "pearson": {"type": ["object", "null"]},
                "spearman": {"type": ["object", "null"]},
                "enoughData": {"type": "boolean"},
                "filter": {"type": "object"},
                "note": {"type": "string"}
            },
            "required": ["dataset", "primaryMetric", "secondaryMetric", "n", "pearson", "spearman", "enoughData"]
        }),
    )
}

pub(crate) fn get_data_summary() -> ToolSpec {
    spec(
        "get_data_summary",
        "Get a quick summary of available health data: what data is available (\"what health data do I have?\"), date \
         ranges (\"how far back does my data go?\"), coverage (\"do I have sleep data?\"). Metadata only, no values.",
        json!({
            "type": "object",
            "properties": {
                "dataTypes": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 32},
                    "description": "Data types to summarize (apple-health, cgm, csv, dexa, bloodwork). Omit to get summary of all data types."},
                "timeZone": time_zone()
            },
            "additionalProperties": false
        }),
        json!({
            "type": "object",
            "properties": {
                "dataset": {"type": "string"},
                "source": {"type": "string"},
                "timeZone": {"type": "string"},
                "dataTypes": {"type": "object"}
            },
            "required": ["dataset", "timeZone", "dataTypes"]
        }),
    )
}
