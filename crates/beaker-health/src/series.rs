//! `query_timeseries_metrics`, `find_correlations` and `get_data_summary`.

use crate::input::{self, CorrelationParams, SeriesParams, SummaryParams};
use crate::{error, Health};
use beaker_core::{CallContext, ToolError};
use beaker_datasets::metrics::{self, Kind};
use beaker_datasets::query::{self, Day, Filter, SeriesQuery};
use beaker_datasets::Condition;
use chrono::NaiveDate;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Fewest paired days a correlation is computed from; under [`FEW_DAYS`] the answer says its p-value is weak.
pub const MIN_DAYS: usize = 3;
/// Paired days under which a correlation's p-value says little.
pub const FEW_DAYS: usize = 10;
/// Most days `lagDays` may shift the secondary metric.
pub const MAX_LAG_DAYS: i64 = 30;

fn range_json(r: Option<(NaiveDate, NaiveDate)>) -> Value {
    r.map_or(
        Value::Null,
        |(a, b)| json!({"start": a.to_string(), "end": b.to_string()}),
    )
}

pub(crate) fn query(h: &Health, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let p: SeriesParams = beaker_core::params::parse(params)?;
    let o = h.open(ctx, p.time_zone.as_deref())?;
    let tz = o.dataset.tz();
    for (i, m) in p.metrics.iter().enumerate() {
        input::known_metric(m, &format!("metrics[{i}]"), &o.catalog)?;
    }
    let mut filters = Vec::new();
    for (i, f) in p.filters.iter().enumerate() {
        let key = format!("filters[{i}]");
        if let Some(m) = &f.metric {
            input::known_metric(m, &format!("{key}.metric"), &o.catalog)?;
        }
        filters.push(Filter {
            metric: f.metric.clone(),
            condition: input::condition(&f.operator, &f.value, &key)?,
        });
    }
    let dates = input::date_range(p.date_range.as_ref(), tz, &o.catalog)?;
    let limit = p.limit.unwrap_or(input::DEFAULT_LIMIT);
    if limit > input::MAX_LIMIT {
        return Err(ToolError::limit(format!(
            "`limit` is {limit}; at most {} points come back at once (page with `offset`)",
            input::MAX_LIMIT
        )));
    }
    let q = SeriesQuery {
        metrics: p.metrics.clone(),
        dates,
        filters,
        group_by: p.group_by,
        aggregation: p.aggregation,
        limit,
        offset: p.offset.unwrap_or(0),
    };
    let _held = h.reserve(&o, dates, ctx)?;
    let answer = o
        .data
        .block_on(query::series(o.data.session(), &o.dataset, &o.catalog, &q))
        .map_err(error)?;
    let mut out = json!({
        "dataset": o.dataset.name(),
        "source": o.dataset.source().name(),
        "timeZone": tz.name(),
        "dateRange": range_json(dates),
        "covered": answer.covered.as_ref().map_or(Value::Null, |(a, b)| json!({"start": a, "end": b})),
        "groupBy": p.group_by.map(|g| g.name()),
        "series": answer.series,
        "totalRecords": answer.total,
        "returnedRecords": answer.returned,
        "truncated": answer.returned < answer.total,
    });
    if answer.total == 0 {
        let spans: Vec<String> = p
            .metrics
            .iter()
            .filter_map(|m| {
                let i = o.catalog.metrics.get(m)?;
                Some(format!(
                    "{m} runs from {} to {}",
                    query::local_day(tz, i.first),
                    query::local_day(tz, i.last)
                ))
            })
            .collect();
        out["note"] = json!(format!("nothing matched; {}", spans.join("; ")));
    }
    Ok(out)
}

/// Whether day `d` of a metric meets `c`: a day of a cumulative metric by its total, a day of a level when any
/// sample does ("when my glucose goes above 140": a reading above 140 that day).
fn day_meets(kind: Kind, d: &Day, c: Condition) -> bool {
    match kind {
        Kind::Cumulative => c.holds(d.sum),
        Kind::Level => match c {
            Condition::Gt(_) | Condition::Ge(_) => c.holds(d.max),
            Condition::Lt(_) | Condition::Le(_) => c.holds(d.min),
            _ => c.holds(d.avg),
        },
    }
}

fn kind_of(metric: &str) -> Kind {
    metrics::metric(metric).map_or(Kind::Level, |m| m.kind)
}

/// A day's value rounded to 12 significant digits: a total that is the same up to the order of its additions
/// must tie with its twin when Spearman ranks the days (pandas and DataFusion add in different orders).
fn settle(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

pub(crate) fn correlations(
    h: &Health,
    params: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let p: CorrelationParams = beaker_core::params::parse(params)?;
    let o = h.open(ctx, p.time_zone.as_deref())?;
    let tz = o.dataset.tz();
    let (pm, sm) = (&p.primary_metric.metric, &p.secondary_metric.metric);
    input::known_metric(pm, "primaryMetric.metric", &o.catalog)?;
    input::known_metric(sm, "secondaryMetric.metric", &o.catalog)?;
    let lag = p.lag_days.unwrap_or(0);
    if lag.abs() > MAX_LAG_DAYS {
        return Err(ToolError::invalid_params(format!(
            "`lagDays` is {lag}; it shifts the secondary metric by at most {MAX_LAG_DAYS} days either way"
        )));
    }
    let filter = match &p.primary_metric.filter {
        None => None,
        Some(f) => {
            if !matches!(f.operator.as_str(), ">" | "<" | ">=" | "<=") {
                return Err(ToolError::invalid_params(format!(
                    "`primaryMetric.filter.operator` must be one of >, <, >=, <=; got {:?}",
                    f.operator
                )));
            }
            Some((
                f,
                input::condition(&f.operator, &f.value, "primaryMetric.filter")?,
            ))
        }
    };
    let dates = input::date_range(p.date_range.as_ref(), tz, &o.catalog)?;
    let shifted = dates.map(|(a, b)| {
        (
            a + chrono::TimeDelta::days(lag),
            b + chrono::TimeDelta::days(lag),
        )
    });
    let _held = h.reserve(
        &o,
        dates
            .zip(shifted)
            .map(|(a, b)| (a.0.min(b.0), a.1.max(b.1))),
        ctx,
    )?;
    let session = o.data.session();
    let (primary, secondary) = o
        .data
        .block_on(async {
            let a = query::daily(session, &o.dataset, &o.catalog, pm, dates).await?;
            let b = query::daily(session, &o.dataset, &o.catalog, sm, shifted).await?;
            Ok::<_, beaker_datasets::DataError>((a, b))
        })
        .map_err(error)?;
    let (pa, sa) = (metrics::natural(pm), metrics::natural(sm));
    // Day d of the primary metric with day d + lag of the secondary.
    let pairs: Vec<(NaiveDate, &Day, f64)> = primary
        .iter()
        .filter_map(|(d, day)| {
            let other = secondary.get(&(*d + chrono::TimeDelta::days(lag)))?;
            Some((*d, day, settle(other.value(sa))))
        })
        .collect();
    let n = pairs.len();
    let xs: Vec<f64> = pairs.iter().map(|(_, d, _)| settle(d.value(pa))).collect();
    let ys: Vec<f64> = pairs.iter().map(|(_, _, y)| *y).collect();
    let unit = |m: &str| {
        o.catalog
            .metrics
            .get(m)
            .map(|i| i.unit.clone())
            .unwrap_or_default()
    };
    let mut out = json!({
        "dataset": o.dataset.name(),
        "timeZone": tz.name(),
        "primaryMetric": {"metric": pm, "unit": unit(pm), "daily": pa.name(), "average": mean(&xs)},
        "secondaryMetric": {"metric": sm, "unit": unit(sm), "daily": sa.name(), "average": mean(&ys)},
        "lagDays": lag,
        "dateRange": range_json(dates),
        "covered": pairs.first().zip(pairs.last()).map_or(Value::Null, |(a, b)| json!({"start": a.0.to_string(), "end": b.0.to_string()})),
        "n": n,
    });
    let mut notes: Vec<String> = Vec::new();
    if n < MIN_DAYS {
        out["pearson"] = Value::Null;
        out["spearman"] = Value::Null;
        out["enoughData"] = json!(false);
        notes.push(format!(
            "only {n} day(s) have both {pm} and {sm}{}: a correlation needs at least {MIN_DAYS}",
            if lag == 0 {
                String::new()
            } else {
                format!(" (the second {lag} day(s) later)")
            }
        ));
    } else {
        for (key, method, coef) in [("pearson", "pearson", "r"), ("spearman", "spearman", "rho")] {
            let r = h.statistics(
                json!({"operation": "correlation", "data": {"x": xs, "y": ys}, "options": {"method": method}}),
                ctx,
            );
            out[key] = match r {
                Ok(v) => json!({coef: v["coefficient"], "p_value": v["p_value"]}),
                Err(e) => {
                    notes.push(format!("{key}: {}", e.message));
                    Value::Null
                }
            };
        }
        out["enoughData"] = json!(n >= FEW_DAYS);
        if n < FEW_DAYS {
            notes.push(format!(
                "only {n} paired days: with fewer than {FEW_DAYS} a p-value says little"
            ));
        }
    }
    if let Some((f, c)) = filter {
        let kind = kind_of(pm);
        let (on, off): (Vec<_>, Vec<_>) = pairs.iter().partition(|(_, d, _)| day_meets(kind, d, c));
        let on: Vec<f64> = on.iter().map(|(_, _, y)| *y).collect();
        let off: Vec<f64> = off.iter().map(|(_, _, y)| *y).collect();
        let mut part = json!({
            "operator": f.operator,
            "value": f.value,
            "matchingDays": on.len(),
            "otherDays": off.len(),
            "secondaryAverageMatching": mean(&on),
            "secondaryAverageOther": mean(&off),
            "difference": mean(&on).zip(mean(&off)).map(|(a, b)| a - b),
            "rule": match kind {
                Kind::Cumulative => format!("a day matches when its total {pm} is {} {}", f.operator, f.value),
                Kind::Level => format!("a day matches when any {pm} reading that day is {} {}", f.operator, f.value),
            },
        });
        if on.len() >= 2 && off.len() >= 2 {
            match h.statistics(
                json!({"operation": "t_test", "data": {"sample1": on, "sample2": off}, "options": {"equal_var": false}}),
                ctx,
            ) {
                Ok(v) => part["welch"] = json!({"t": v["statistic"], "p_value": v["p_value"]}),
                Err(e) => notes.push(format!("welch t-test: {}", e.message)),
            }
        } else {
            part["welch"] = Value::Null;
            notes.push(format!(
                "{} matching and {} other days: comparing them needs at least 2 of each",
                on.len(),
                off.len()
            ));
        }
        out["filter"] = part;
    }
    if !notes.is_empty() {
        out["note"] = json!(notes.join("; "));
    }
    Ok(out)
}

/// The kinds of data a dataset may hold.
pub const DATA_TYPES: &[&str] = &["apple-health", "cgm", "csv", "dexa", "bloodwork"];

pub(crate) fn summary(h: &Health, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let p: SummaryParams = beaker_core::params::parse(params)?;
    let o = h.open(ctx, p.time_zone.as_deref())?;
    let tz = o.dataset.tz();
    let wanted: Vec<String> = match p.data_types {
        Some(t) => t,
        None => DATA_TYPES.iter().map(|s| s.to_string()).collect(),
    };
    for t in &wanted {
        if !DATA_TYPES.contains(&t.as_str()) {
            return Err(ToolError::invalid_params(format!(
                "unknown data type {t:?} in `dataTypes`: one of {}",
                DATA_TYPES.join(", ")
            )));
        }
    }
    let reports = beaker_datasets::import::read_reports(&o.dataset).map_err(error)?;
    let mut types = serde_json::Map::new();
    for t in &wanted {
        let entry = if t == "dexa" || t == "bloodwork" {
            let mut dates: Vec<String> = reports
                .iter()
                .filter(|r| &r.report_type == t)
                .map(|r| r.date.to_string())
                .collect();
            dates.dedup();
            let mut fields: Vec<&str> = reports
                .iter()
                .filter(|r| &r.report_type == t)
                .map(|r| r.field.as_str())
                .collect();
            fields.sort();
            fields.dedup();
            json!({
                "available": !dates.is_empty(),
                "dateRange": dates.first().zip(dates.last()).map_or(Value::Null, |(a, b)| json!({"start": a, "end": b})),
                "reports": dates.len(),
                "dates": dates,
                "fields": fields,
            })
        } else {
            let metrics: BTreeMap<&String, Value> = o
                .catalog
                .metrics
                .iter()
                .filter(|(_, i)| &i.data_type == t)
                .map(|(m, i)| {
                    (
                        m,
                        json!({
                            "unit": i.unit,
                            "samples": i.samples,
                            "first": query::local_day(tz, i.first).to_string(),
                            "last": query::local_day(tz, i.last).to_string(),
                            "aggregation": metrics::natural(m).name(),
                        }),
                    )
                })
                .collect();
            let first = o
                .catalog
                .metrics
                .values()
                .filter(|i| &i.data_type == t)
                .map(|i| i.first)
                .min();
            let last = o
                .catalog
                .metrics
                .values()
                .filter(|i| &i.data_type == t)
                .map(|i| i.last)
                .max();
            json!({
                "available": !metrics.is_empty(),
                "dateRange": first.zip(last).map_or(Value::Null, |(a, b)| json!({
                    "start": query::local_day(tz, a).to_string(),
                    "end": query::local_day(tz, b).to_string(),
                })),
                "metrics": metrics,
            })
        };
        types.insert(t.clone(), entry);
    }
    Ok(json!({
        "dataset": o.dataset.name(),
        "source": o.dataset.source().name(),
        "timeZone": tz.name(),
        "dataTypes": types,
    }))
}
