//! The questions seed 002's tools ask of a dataset's samples, as DataFusion plans: select metrics and a span,
//! filter samples or whole periods, bucket by calendar periods in the dataset's time zone, aggregate.

use crate::metrics::{self, Kind};
use crate::schema::column;
use crate::source::Span;
use crate::{Aggregation, Condition, DataError, Dataset, Period, Result};
use chrono::{NaiveDate, NaiveTime, Offset, TimeZone};
use chrono_tz::Tz;
use datafusion::arrow::array::{
    Array, Float64Array, Int64Array, StringArray, TimestampMicrosecondArray,
};
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{JoinType, ScalarValue};
use datafusion::functions::expr_fn::date_trunc;
use datafusion::functions_aggregate::expr_fn::{avg, count, max, min, sum};
use datafusion::logical_expr::{cast, col, lit, when, Expr};
use datafusion::prelude::{DataFrame, SessionContext};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Microseconds in an hour.
const HOUR_US: i64 = 3_600_000_000;
/// How far a night's samples are moved back so it counts on the day it starts (noon to noon).
const NIGHT_SHIFT_US: i64 = 12 * HOUR_US;

/// A filter: on the samples of a metric the query reads, or on whole periods by another metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// The metric it tests (`None`: every metric the query reads).
    pub metric: Option<String>,
    /// The test.
    pub condition: Condition,
}

/// A time-series question (seed 002's `query_timeseries_metrics`).
#[derive(Debug, Clone)]
pub struct SeriesQuery {
    /// The metrics to read.
    pub metrics: Vec<String>,
    /// First and last day, in the dataset's time zone, both included (`None`: all).
    pub dates: Option<(NaiveDate, NaiveDate)>,
    /// Filters (all must hold).
    pub filters: Vec<Filter>,
    /// Periods to aggregate into (`None`: the samples themselves).
    pub group_by: Option<Period>,
    /// How periods aggregate (`None`: each metric's natural aggregation).
    pub aggregation: Option<Aggregation>,
    /// Most points to return per answer, after `offset`.
    pub limit: usize,
    /// Points to skip.
    pub offset: usize,
}

/// One point of an answer: a period's aggregate, or one sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// The period (`2024-12-01`, `2024-W49` as its Monday, `2024-12`, `2024-12-01T08:00+01:00`) or the
    /// sample's start, in the dataset's time zone.
    pub time: String,
    /// The sample's end, when it is an interval (steps over ten minutes, a sleep stage).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The value, in the metric's unit.
    pub value: f64,
    /// How many samples it aggregates (periods only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
}

/// One metric's points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// The metric.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// The aggregation each point took (periods only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aggregation: Option<&'static str>,
    /// The points, oldest first.
    pub points: Vec<Point>,
}

/// An answer to a [`SeriesQuery`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeriesAnswer {
    /// One per metric asked for, in the order asked (a metric with nothing in range has no points).
    pub series: Vec<Series>,
    /// First and last day the points cover, in the dataset's time zone (`None` when there are none).
    pub covered: Option<(String, String)>,
    /// Points there are in all.
    pub total: usize,
    /// Points returned (`total` less `offset` and past `limit`).
    pub returned: usize,
}

/// What a dataset holds: per metric, its unit, where it came from, how many samples and the days they span.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Catalog {
    /// Metrics by name.
    pub metrics: BTreeMap<String, MetricInfo>,
}

/// One metric in a [`Catalog`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricInfo {
    /// Its unit.
    pub unit: String,
    /// `apple-health`, `cgm` or `csv`.
    pub data_type: String,
    /// Samples held.
    pub samples: u64,
    /// First sample's start, µs since the epoch.
    pub first: i64,
    /// Last sample's start, µs since the epoch.
    pub last: i64,
}

/// How many times its Parquet bytes a month may take while a question works on it: decoded into Arrow batches
/// (dictionary-encoded, zstd-compressed text columns expand most), then filtered and aggregated. What the
/// tools reserve from the process's memory budget before they ask (docs/PERFORMANCE.md, "Health data").
pub const WORKING_PER_STORED_BYTE: u64 = 16;

/// Bytes of the month files a question about `dates` reads (all months when `None`), with the 12 hours more on
/// each side that nights need.
pub async fn bytes_read(dataset: &Dataset, dates: Option<(NaiveDate, NaiveDate)>) -> Result<u64> {
    let span = dates.map_or(Span::ALL, |(a, b)| {
        let s = day_span(dataset.tz(), a, b);
        Span {
            lo: s.lo.saturating_sub(NIGHT_SHIFT_US),
            hi: s.hi.saturating_add(NIGHT_SHIFT_US),
        }
    });
    Ok(dataset
        .source()
        .months()
        .await?
        .iter()
        .filter(|m| m.meets(span))
        .map(|m| m.bytes)
        .sum())
}

/// An engine session: one partition, since the data of one call is small and a call's latency matters more
/// than its parallelism; no statistics gathered while planning (the row groups' own, one per metric, still
/// prune when the file is read).
pub fn session() -> SessionContext {
    let config = datafusion::prelude::SessionConfig::new()
        .with_target_partitions(1)
        .with_batch_size(8192)
        .with_collect_statistics(false);
    SessionContext::new_with_config(config)
}

/// The UTC span of local days `first..=last` in `tz`.
pub fn day_span(tz: Tz, first: NaiveDate, last: NaiveDate) -> Span {
    let at = |d: NaiveDate| local_midnight(tz, d);
    Span {
        lo: at(first),
        hi: last.succ_opt().map_or(i64::MAX, at),
    }
}

/// µs of the first instant of local day `d` in `tz` (the instant after a gap when midnight is skipped).
pub fn local_midnight(tz: Tz, d: NaiveDate) -> i64 {
    let mut t = d.and_time(NaiveTime::MIN);
    for _ in 0..4 {
        if let Some(x) = tz.from_local_datetime(&t).earliest() {
            return x.timestamp_micros();
        }
        t += chrono::TimeDelta::minutes(30);
    }
    t.and_utc().timestamp_micros()
}

/// The local day an instant falls on in `tz`.
pub fn local_day(tz: Tz, micros: i64) -> NaiveDate {
    tz.timestamp_micros(micros)
        .single()
        .map(|t| t.date_naive())
        .unwrap_or_default()
}

/// A period's label: the day (`2024-12-01`), the week's Monday, the month (`2024-12`), or the hour with its
/// UTC offset (`2024-12-01T08:00+01:00`).
pub fn instant_label(tz: Tz, micros: i64) -> String {
    let Some(t) = tz.timestamp_micros(micros).single() else {
        return String::new();
    };
    if tz == Tz::UTC {
        t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    } else {
        t.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
    }
}

fn utc_literal(micros: i64) -> Expr {
    lit(ScalarValue::TimestampMicrosecond(
        Some(micros),
        Some("UTC".into()),
    ))
}

/// The instant a sample counts at: its start, or for a night's sleep its start less 12 hours.
fn counted_at() -> Expr {
    let by_night: Vec<Expr> = metrics::METRICS
        .iter()
        .filter(|m| m.by_night())
        .map(|m| lit(m.name))
        .collect();
    when(
        col("metric").in_list(by_night, false),
        col("start") - lit(ScalarValue::DurationMicrosecond(Some(NIGHT_SHIFT_US))),
    )
    .otherwise(col("start"))
    .unwrap_or_else(|_| col("start"))
}

/// Microseconds in a day.
const DAY_US: i64 = 24 * HOUR_US;
/// 400 Gregorian years (146,097 days, a whole number of weeks): added before integer division so the keys of
/// instants back to 1570 are positive and truncate downwards.
const BIAS_DAYS: i64 = 146_097;
const BIAS_US: i64 = BIAS_DAYS * DAY_US;

/// The dataset's time zone over the instants a question reads, as constant UTC offsets between its transitions:
/// local wall-clock time is `t + offset`, an addition per sample where a zone lookup per sample cost most of a
/// query (a year of minute-level samples: 162 ms, most of it chrono-tz). Periods are then integer keys.
pub struct Clock {
    tz: Tz,
    /// `(first instant, offset µs)`, oldest first; the first applies before its instant too.
    segments: Vec<(i64, i64)>,
}

impl Clock {
    /// `tz` between instants `lo` and `hi` (µs), found by probing its offset once a day and bisecting to the
    /// microsecond where it changes.
    pub fn new(tz: Tz, lo: i64, hi: i64) -> Clock {
        let offset = |t: i64| {
            tz.timestamp_micros(t).single().map_or(0, |x| {
                i64::from(x.offset().fix().local_minus_utc()) * 1_000_000
            })
        };
        let (lo, hi) = (
            lo.max(-BIAS_US / 2),
            hi.min(BIAS_US).max(lo.max(-BIAS_US / 2)),
        );
        let mut segments = vec![(lo, offset(lo))];
        let mut at = lo;
        while at < hi {
            let next = at.saturating_add(DAY_US).min(hi);
            let current = segments.last().map_or(0, |s| s.1);
            if offset(next) != current {
                // The first microsecond with the new offset lies in (at, next].
                let (mut a, mut b) = (at, next);
                while b - a > 1 {
                    let mid = a + (b - a) / 2;
                    if offset(mid) == current {
                        a = mid;
                    } else {
                        b = mid;
                    }
                }
                segments.push((b, offset(b)));
                at = b;
            } else {
                at = next;
            }
        }
        Clock { tz, segments }
    }

    /// The time zone.
    pub fn tz(&self) -> Tz {
        self.tz
    }

    /// `f(t, offset)` in each segment, as one expression over the column `t` (µs as Int64).
    fn per_segment(&self, f: impl Fn(Expr, i64) -> Expr) -> Expr {
        let t = || cast(col("t"), DataType::Int64);
        let mut segments = self.segments.iter().rev();
        let Some(&(_, last)) = segments.next() else {
            return f(t(), 0);
        };
        let mut out = f(t(), last);
        for (&(_, offset), &(until, _)) in self
            .segments
            .iter()
            .rev()
            .skip(1)
            .zip(self.segments.iter().rev())
        {
            out = when(t().lt(lit(until)), f(t(), offset))
                .otherwise(out.clone())
                .unwrap_or(out);
        }
        out
    }

    /// The key (Int64) of the period `t` falls in: days and weeks counted from 400 years before 1970, months
    /// as their local first instant, hours as the UTC instant their local hour starts (so the two 01:00 hours
    /// of a night when clocks go back are two periods).
    pub fn key(&self, period: Period) -> Expr {
        let day = |t: Expr, o: i64| (t + lit(o + BIAS_US)) / lit(DAY_US);
        match period {
            Period::Day => self.per_segment(day),
            Period::Week => self.per_segment(|t, o| (day(t, o) + lit(3i64)) / lit(7i64)),
            Period::Hour => self.per_segment(|t, o| {
                (t + lit(o + BIAS_US)) / lit(HOUR_US) * lit(HOUR_US) - lit(o + BIAS_US)
            }),
            Period::Month => {
                let local = self.per_segment(|t, o| t + lit(o));
                cast(
                    date_trunc(
                        lit("month"),
                        cast(local, DataType::Timestamp(TimeUnit::Microsecond, None)),
                    ),
                    DataType::Int64,
                )
            }
        }
    }

    /// The local day of a day key.
    pub fn day(key: i64) -> NaiveDate {
        epoch() + chrono::TimeDelta::days(key - BIAS_DAYS)
    }

    /// A period key's label: the day (`2024-12-01`), the week's Monday, the month (`2024-12`), or the hour with
    /// its UTC offset (`2024-11-03T01:00-08:00`).
    pub fn label(&self, period: Period, key: i64) -> String {
        match period {
            Period::Day => Self::day(key).to_string(),
            Period::Week => Self::day(key * 7 - 3).to_string(),
            Period::Month => chrono::DateTime::from_timestamp_micros(key)
                .map(|t| t.format("%Y-%m").to_string())
                .unwrap_or_default(),
            Period::Hour => self
                .tz
                .timestamp_micros(key)
                .single()
                .map(|t| t.format("%Y-%m-%dT%H:%M%:z").to_string())
                .unwrap_or_default(),
        }
    }
}

fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// The clock for a question: over `span`, or over everything the catalog says the dataset holds.
fn clock(tz: Tz, span: Option<Span>, catalog: &Catalog) -> Clock {
    let (lo, hi) = match span {
        Some(s) => (
            s.lo.saturating_sub(NIGHT_SHIFT_US),
            s.hi.saturating_add(NIGHT_SHIFT_US),
        ),
        None => (
            catalog
                .metrics
                .values()
                .map(|m| m.first)
                .min()
                .unwrap_or(0)
                .saturating_sub(2 * DAY_US),
            catalog
                .metrics
                .values()
                .map(|m| m.last)
                .max()
                .unwrap_or(0)
                .saturating_add(2 * DAY_US),
        ),
    };
    Clock::new(tz, lo, hi)
}

fn condition(e: Expr, c: Condition) -> Expr {
    match c {
        Condition::Gt(v) => e.gt(lit(v)),
        Condition::Lt(v) => e.lt(lit(v)),
        Condition::Eq(v) => e.eq(lit(v)),
        Condition::Ge(v) => e.gt_eq(lit(v)),
        Condition::Le(v) => e.lt_eq(lit(v)),
        Condition::Ne(v) => e.not_eq(lit(v)),
        Condition::Between(a, b) => e.between(lit(a), lit(b)),
    }
}

/// The samples of `metrics` whose counted instant falls in `span` (all of them when `None`), with the
/// counted instant as column `t`. `None` when the dataset holds no month meeting the span.
async fn samples(
    ctx: &SessionContext,
    dataset: &Dataset,
    metrics: &[String],
    span: Option<Span>,
) -> Result<Option<DataFrame>> {
    // A night counts 12 hours earlier: for sleep, read 12 hours more on each side, then cut on `t`.
    let nights = metrics
        .iter()
        .any(|m| metrics::metric(m).is_some_and(|x| x.by_night()));
    let margin = if nights { NIGHT_SHIFT_US } else { 0 };
    let wide = span.map_or(Span::ALL, |s| Span {
        lo: s.lo.saturating_sub(margin),
        hi: s.hi.saturating_add(margin),
    });
    let Some(df) = dataset.source().measurements(ctx, wide, metrics).await? else {
        return Ok(None);
    };
    let mut df = df.with_column("t", if nights { counted_at() } else { col("start") })?;
    if let Some(s) = span {
        df = df.filter(
            col("t")
                .gt_eq(utc_literal(s.lo))
                .and(col("t").lt(utc_literal(s.hi))),
        )?;
    }
    Ok(Some(df))
}

/// Answers a time-series question over `dataset` (whose catalog says which metrics exist: check names first).
pub async fn series(
    ctx: &SessionContext,
    dataset: &Dataset,
    catalog: &Catalog,
    q: &SeriesQuery,
) -> Result<SeriesAnswer> {
    let tz = dataset.tz();
    let span = q.dates.map(|(a, b)| day_span(tz, a, b));
    let empty = || SeriesAnswer {
        series: q
            .metrics
            .iter()
            .map(|m| Series {
                metric: m.clone(),
                unit: catalog
                    .metrics
                    .get(m)
                    .map(|i| i.unit.clone())
                    .unwrap_or_default(),
                aggregation: None,
                points: Vec::new(),
            })
            .collect(),
        covered: None,
        total: 0,
        returned: 0,
    };
    let Some(mut df) = samples(ctx, dataset, &q.metrics, span).await? else {
        return Ok(empty());
    };
    // Filters on a metric read here test its samples; filters on another metric choose whole periods.
    let mut period_filters = Vec::new();
    for f in &q.filters {
        match &f.metric {
            None => df = df.filter(condition(col("value"), f.condition))?,
            Some(m) if q.metrics.contains(m) => {
                df = df.filter(
                    col("metric")
                        .not_eq(lit(m.as_str()))
                        .or(condition(col("value"), f.condition)),
                )?
            }
            Some(m) => period_filters.push((m.clone(), f.condition)),
        }
    }
    let period = q.group_by.unwrap_or(Period::Day);
    let clock = clock(tz, span, catalog);
    if !period_filters.is_empty() {
        df = df.with_column("bucket", clock.key(period))?;
        for (i, (m, c)) in period_filters.iter().enumerate() {
            let Some(other) = samples(ctx, dataset, std::slice::from_ref(m), span).await? else {
                return Ok(empty());
            };
            let key = format!("fbucket{i}");
            let test = match metrics::metric(m).map_or(Kind::Level, |x| x.kind) {
                // A day of steps is its total...
                Kind::Cumulative => condition(sum(col("value")), *c),
                // ...a day of glucose qualifies when any reading does ("goes above 140").
                Kind::Level => {
                    max(when(condition(col("value"), *c), lit(1i64)).otherwise(lit(0i64))?)
                        .eq(lit(1i64))
                }
            };
            let chosen = other
                .with_column(&key, clock.key(period))?
                .aggregate(vec![col(&key)], vec![test.alias("ok")])?
                .filter(col("ok"))?
                .select(vec![col(&key)])?;
            df = df.join(
                chosen,
                JoinType::LeftSemi,
                &["bucket"],
                &[key.as_str()],
                None,
            )?;
        }
    }
    match q.group_by {
        Some(period) => grouped(df, &clock, catalog, q, Some(period)).await,
        None if q.aggregation.is_some() => grouped(df, &clock, catalog, q, None).await,
        None => raw(df, dataset, catalog, q).await,
    }
}

/// Points of each metric, in the order asked; `covered` from the first and last counted instants.
struct Collector {
    series: Vec<Series>,
    first: Option<i64>,
    last: Option<i64>,
}

impl Collector {
    fn new(q: &SeriesQuery, catalog: &Catalog, aggregated: bool) -> Self {
        let series = q
            .metrics
            .iter()
            .map(|m| Series {
                metric: m.clone(),
                unit: catalog
                    .metrics
                    .get(m)
                    .map(|i| i.unit.clone())
                    .unwrap_or_default(),
                aggregation: aggregated
                    .then(|| q.aggregation.unwrap_or_else(|| metrics::natural(m)).name()),
                points: Vec::new(),
            })
            .collect();
        Collector {
            series,
            first: None,
            last: None,
        }
    }

    fn seen(&mut self, lo: i64, hi: i64) {
        self.first = Some(self.first.map_or(lo, |f| f.min(lo)));
        self.last = Some(self.last.map_or(hi, |l| l.max(hi)));
    }

    fn push(&mut self, metric: &str, point: Point) {
        if let Some(s) = self.series.iter_mut().find(|s| s.metric == metric) {
            s.points.push(point);
        }
    }

    fn finish(self, tz: Tz, total: usize) -> SeriesAnswer {
        let returned = self.series.iter().map(|s| s.points.len()).sum();
        SeriesAnswer {
            covered: self
                .first
                .zip(self.last)
                .map(|(a, b)| (local_day(tz, a).to_string(), local_day(tz, b).to_string())),
            series: self.series,
            total,
            returned,
        }
    }
}

/// The count of `value` (`n`) and each of `wanted`'s aggregations of it, named as the aggregation (`avg`, ...).
fn value_aggregates(wanted: &[Aggregation]) -> Vec<Expr> {
    let mut out = vec![count(col("value")).alias("n")];
    for (agg, expr) in [
        (Aggregation::Avg, avg(col("value"))),
        (Aggregation::Sum, sum(col("value"))),
        (Aggregation::Min, min(col("value"))),
        (Aggregation::Max, max(col("value"))),
    ] {
        if wanted.contains(&agg) {
            out.push(expr.alias(agg.name()));
        }
    }
    out
}

/// Aggregates each metric by `period`, or over the whole range when `None` (one point labelled with the days it
/// covers, `2024-12-01/2024-12-31`).
async fn grouped(
    df: DataFrame,
    clock: &Clock,
    catalog: &Catalog,
    q: &SeriesQuery,
    period: Option<Period>,
) -> Result<SeriesAnswer> {
    let tz = clock.tz();
    let key = period.map_or(lit(0i64), |p| clock.key(p));
    // Only the aggregations some metric takes (with the count and the span every point reports).
    let wanted: Vec<Aggregation> = q
        .metrics
        .iter()
        .map(|m| q.aggregation.unwrap_or_else(|| metrics::natural(m)))
        .collect();
    let mut aggregates = vec![min(col("t")).alias("first"), max(col("t")).alias("last")];
    aggregates.extend(value_aggregates(&wanted));
    // One metric (most questions) is grouped by period alone: grouping by its name too hashes and compares a
    // string per sample, about a sixth of a month of minute-level heart rate by day.
    let only = match q.metrics.as_slice() {
        [m] => Some(m.as_str()),
        _ => None,
    };
    let groups = match only {
        Some(_) => vec![col("period")],
        None => vec![col("metric"), col("period")],
    };
    let order = groups.iter().map(|g| g.clone().sort(true, false)).collect();
    let df = df
        .with_column("period", key)?
        .aggregate(groups, aggregates)?
        .sort(order)?;
    let batches = df.collect().await?;
    let total: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let mut out = Collector::new(q, catalog, true);
    let mut index = 0usize;
    for b in &batches {
        let metric = match only {
            Some(_) => None,
            None => Some(column::<StringArray>(b, "metric")?),
        };
        let at = column::<Int64Array>(b, "period")?;
        // The aggregations no metric took are not computed.
        let taken = |name: &str| column::<Float64Array>(b, name).ok();
        let (a, s, lo, hi) = (taken("avg"), taken("sum"), taken("min"), taken("max"));
        let (n, first, last) = (
            column::<Int64Array>(b, "n")?,
            column::<TimestampMicrosecondArray>(b, "first")?,
            column::<TimestampMicrosecondArray>(b, "last")?,
        );
        for i in 0..b.num_rows() {
            let m = metric.map_or(only.unwrap_or_default(), |c| c.value(i));
            let agg = q.aggregation.unwrap_or_else(|| metrics::natural(m));
            let value = match agg {
                Aggregation::Avg => a.map(|x| x.value(i)),
                Aggregation::Sum => s.map(|x| x.value(i)),
                Aggregation::Min => lo.map(|x| x.value(i)),
                Aggregation::Max => hi.map(|x| x.value(i)),
                Aggregation::Count => Some(n.value(i) as f64),
            }
            .ok_or_else(|| {
                DataError::Invalid(format!("internal: {} was not computed", agg.name()))
            })?;
            out.seen(first.value(i), last.value(i));
            if index >= q.offset && index < q.offset.saturating_add(q.limit) {
                out.push(
                    m,
                    Point {
                        time: match period {
                            Some(p) => clock.label(p, at.value(i)),
                            None => format!(
                                "{}/{}",
                                local_day(tz, first.value(i)),
                                local_day(tz, last.value(i))
                            ),
                        },
                        end: None,
                        value,
                        count: Some(n.value(i)),
                    },
                );
            }
            index += 1;
        }
    }
    Ok(out.finish(tz, total))
}

async fn raw(
    df: DataFrame,
    dataset: &Dataset,
    catalog: &Catalog,
    q: &SeriesQuery,
) -> Result<SeriesAnswer> {
    let tz = dataset.tz();
    let span_df = df.clone().aggregate(
        vec![],
        vec![
            min(col("t")).alias("first"),
            max(col("t")).alias("last"),
            count(col("value")).alias("n"),
        ],
    )?;
    let page = df
        .sort(vec![
            col("metric").sort(true, false),
            col("start").sort(true, false),
            col("end").sort(true, false),
        ])?
        .limit(q.offset, Some(q.limit))?;
    let mut out = Collector::new(q, catalog, false);
    let mut total = 0usize;
    for b in span_df.collect().await? {
        let (first, last, n) = (
            column::<TimestampMicrosecondArray>(&b, "first")?,
            column::<TimestampMicrosecondArray>(&b, "last")?,
            column::<Int64Array>(&b, "n")?,
        );
        if b.num_rows() > 0 && !first.is_null(0) {
            out.seen(first.value(0), last.value(0));
            total = usize::try_from(n.value(0)).unwrap_or(usize::MAX);
        }
    }
    for b in page.collect().await? {
        let (metric, start, end, value) = (
            column::<StringArray>(&b, "metric")?,
            column::<TimestampMicrosecondArray>(&b, "start")?,
            column::<TimestampMicrosecondArray>(&b, "end")?,
            column::<Float64Array>(&b, "value")?,
        );
        for i in 0..b.num_rows() {
            let (s, e) = (start.value(i), end.value(i));
            out.push(
                metric.value(i),
                Point {
                    time: instant_label(tz, s),
                    end: (e != s).then(|| instant_label(tz, e)),
                    value: value.value(i),
                    count: None,
                },
            );
        }
    }
    Ok(out.finish(tz, total))
}

/// One day of a metric: what each aggregation gives (the day a night's sleep starts on, for sleep).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Day {
    /// Mean of the day's samples.
    pub avg: f64,
    /// Their total.
    pub sum: f64,
    /// The least.
    pub min: f64,
    /// The greatest.
    pub max: f64,
    /// How many.
    pub count: i64,
}

impl Day {
    /// The day's value under `agg`.
    pub fn value(&self, agg: Aggregation) -> f64 {
        match agg {
            Aggregation::Avg => self.avg,
            Aggregation::Sum => self.sum,
            Aggregation::Min => self.min,
            Aggregation::Max => self.max,
            Aggregation::Count => self.count as f64,
        }
    }
}

/// Each local day's aggregates of `metric` within `dates` (all days when `None`).
pub async fn daily(
    ctx: &SessionContext,
    dataset: &Dataset,
    catalog: &Catalog,
    metric: &str,
    dates: Option<(NaiveDate, NaiveDate)>,
) -> Result<BTreeMap<NaiveDate, Day>> {
    let tz = dataset.tz();
    let span = dates.map(|(a, b)| day_span(tz, a, b));
    let mut out = BTreeMap::new();
    let Some(df) = samples(ctx, dataset, &[metric.to_string()], span).await? else {
        return Ok(out);
    };
    let df = df
        .with_column("day", clock(tz, span, catalog).key(Period::Day))?
        .aggregate(
            vec![col("day")],
            value_aggregates(&[
                Aggregation::Avg,
                Aggregation::Sum,
                Aggregation::Min,
                Aggregation::Max,
            ]),
        )?;
    for b in df.collect().await? {
        let day = column::<Int64Array>(&b, "day")?;
        let (a, s, lo, hi, n) = (
            column::<Float64Array>(&b, "avg")?,
            column::<Float64Array>(&b, "sum")?,
            column::<Float64Array>(&b, "min")?,
            column::<Float64Array>(&b, "max")?,
            column::<Int64Array>(&b, "n")?,
        );
        for i in 0..b.num_rows() {
            out.insert(
                Clock::day(day.value(i)),
                Day {
                    avg: a.value(i),
                    sum: s.value(i),
                    min: lo.value(i),
                    max: hi.value(i),
                    count: n.value(i),
                },
            );
        }
    }
    Ok(out)
}

/// The catalog of everything the dataset's source holds (a full pass: the importer runs it and stores it).
pub async fn catalog(ctx: &SessionContext, dataset: &Dataset) -> Result<Catalog> {
    let mut out = Catalog::default();
    let Some(df) = dataset.source().samples(ctx, Span::ALL).await? else {
        return Ok(out);
    };
    let df = df.aggregate(
        vec![col("metric")],
        vec![
            max(col("unit")).alias("unit"),
            max(col("data_type")).alias("data_type"),
            count(col("value")).alias("n"),
            min(col("start")).alias("first"),
            max(col("start")).alias("last"),
        ],
    )?;
    for b in df.collect().await? {
        let (metric, unit, kind) = (
            column::<StringArray>(&b, "metric")?,
            column::<StringArray>(&b, "unit")?,
            column::<StringArray>(&b, "data_type")?,
        );
        let (n, first, last) = (
            column::<Int64Array>(&b, "n")?,
            column::<TimestampMicrosecondArray>(&b, "first")?,
            column::<TimestampMicrosecondArray>(&b, "last")?,
        );
        for i in 0..b.num_rows() {
            out.metrics.insert(
                metric.value(i).to_string(),
                MetricInfo {
                    unit: unit.value(i).to_string(),
                    data_type: kind.value(i).to_string(),
                    samples: u64::try_from(n.value(i)).unwrap_or(0),
                    first: first.value(i),
                    last: last.value(i),
                },
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{Clock, BIAS_DAYS};
    use crate::Period;
    use chrono::{NaiveDate, TimeZone, Utc};

    fn at(y: i32, m: u32, d: u32, h: u32) -> i64 {
        Utc.with_ymd_and_hms(y, m, d, h, 0, 0)
            .single()
            .map_or(0, |t| t.timestamp_micros())
    }

    #[test]
    fn a_clock_finds_each_transition_exactly() {
        let la: chrono_tz::Tz = "America/Los_Angeles".parse().expect("a zone");
        let c = Clock::new(la, at(2024, 1, 1, 0), at(2025, 1, 1, 0));
        let h = 3_600_000_000;
        // 02:00 PST on 10 March is 10:00 UTC; 02:00 PDT on 3 November is 09:00 UTC.
        assert_eq!(
            c.segments,
            vec![
                (at(2024, 1, 1, 0), -8 * h),
                (at(2024, 3, 10, 10), -7 * h),
                (at(2024, 11, 3, 9), -8 * h)
            ]
        );
        // Adelaide is +10:30 in summer, +9:30 in winter.
        let adl: chrono_tz::Tz = "Australia/Adelaide".parse().expect("a zone");
        let c = Clock::new(adl, at(2024, 3, 1, 0), at(2024, 5, 1, 0));
        assert_eq!(
            c.segments.iter().map(|s| s.1).collect::<Vec<_>>(),
            vec![10 * h + h / 2, 9 * h + h / 2]
        );
    }

    #[test]
    fn keys_label_as_days_mondays_and_months() {
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).expect("a day");
        assert_eq!(Clock::day(BIAS_DAYS), day(1970, 1, 1));
        let c = Clock::new(chrono_tz::Tz::UTC, 0, 1);
        // 2024-12-04 is a Wednesday: its week is labelled by Monday the 2nd.
        let key = BIAS_DAYS + (day(2024, 12, 4) - day(1970, 1, 1)).num_days();
        assert_eq!(c.label(Period::Week, (key + 3) / 7), "2024-12-02");
        assert_eq!(c.label(Period::Day, key), "2024-12-04");
        assert_eq!(c.label(Period::Month, at(2024, 12, 1, 0)), "2024-12");
    }
}
