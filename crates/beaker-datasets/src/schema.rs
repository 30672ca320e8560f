//! The two tables a dataset holds, as Arrow schemas, and the rows the importers make.

use crate::Result;
use chrono::{Datelike, NaiveDate, TimeZone, Utc};
use datafusion::arrow::array::{
    Array, ArrayRef, Date32Array, Float64Array, StringArray, TimestampMicrosecondArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::arrow::record_batch::RecordBatch;
use std::sync::{Arc, LazyLock};

/// A time-series sample: one reading (heart rate at 08:01) or an amount over an interval (412 steps from 08:00
/// to 08:10, 1.2 h of deep sleep), in its metric's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The metric (`heartRate`).
    pub metric: String,
    /// When it starts, µs since the epoch.
    pub start: i64,
    /// When it ends (equal to `start` for a reading), µs since the epoch.
    pub end: i64,
    /// The value in `unit`.
    pub value: f64,
    /// The unit.
    pub unit: String,
    /// `apple-health`, `cgm` or `csv`: which kind of export it came from.
    pub data_type: String,
    /// The device or app that recorded it, when the export says.
    pub source: String,
}

/// One field of a report (`visceralFatAreaCm2` = 98.4 cm² on the 2024-06-01 DEXA scan).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportField {
    /// `dexa` or `bloodwork`.
    pub report_type: String,
    /// The report's date.
    pub date: NaiveDate,
    /// The field's name.
    pub field: String,
    /// Its value, when it is a number.
    pub value: Option<f64>,
    /// Its unit, when it has one.
    pub unit: Option<String>,
    /// Its value, when it is text (`"negative"`).
    pub text: Option<String>,
}

fn utc_micros() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
}

/// The samples table.
pub static SAMPLES: LazyLock<Schema> = LazyLock::new(|| {
    Schema::new(vec![
        Field::new("metric", DataType::Utf8, false),
        Field::new("start", utc_micros(), false),
        Field::new("end", utc_micros(), false),
        Field::new("value", DataType::Float64, false),
        Field::new("unit", DataType::Utf8, false),
        Field::new("data_type", DataType::Utf8, false),
        Field::new("source", DataType::Utf8, false),
    ])
});

/// What questions read of the samples: the metric, when, and the value (a metric's unit and kind are the
/// catalog's, its samples' sources are not asked about). The first four columns of [`SAMPLES`].
pub static MEASUREMENTS: LazyLock<Schema> =
    LazyLock::new(|| Schema::new(SAMPLES.fields().iter().take(4).cloned().collect::<Vec<_>>()));

/// The reports table.
pub static REPORTS: LazyLock<Schema> = LazyLock::new(|| {
    Schema::new(vec![
        Field::new("report_type", DataType::Utf8, false),
        Field::new("report_date", DataType::Date32, false),
        Field::new("field", DataType::Utf8, false),
        Field::new("value", DataType::Float64, true),
        Field::new("unit", DataType::Utf8, true),
        Field::new("text", DataType::Utf8, true),
    ])
});

/// The samples table's schema, shared.
pub fn samples() -> SchemaRef {
    Arc::new(SAMPLES.clone())
}

/// The measurements' schema, shared.
pub fn measurements() -> SchemaRef {
    Arc::new(MEASUREMENTS.clone())
}

/// The UTC month (`2024-12`) an instant falls in.
pub fn month_of(micros: i64) -> String {
    let t = Utc.timestamp_micros(micros).single().unwrap_or_default();
    format!("{:04}-{:02}", t.year(), t.month())
}

/// The span `[first µs, first µs of the next)` of a UTC month written `YYYY-MM`.
pub fn month_span(month: &str) -> Option<(i64, i64)> {
    let (y, m) = month.split_once('-')?;
    if y.len() != 4 || m.len() != 2 {
        return None;
    }
    let (y, m): (i32, u32) = (y.parse().ok()?, m.parse().ok()?);
    let first = NaiveDate::from_ymd_opt(y, m, 1)?;
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)?
    };
    let micros = |d: NaiveDate| {
        d.and_hms_opt(0, 0, 0)
            .map(|t| t.and_utc().timestamp_micros())
    };
    Some((micros(first)?, micros(next)?))
}

/// Samples as one record batch of [`SAMPLES`].
pub fn samples_batch(rows: &[Sample]) -> Result<RecordBatch> {
    let strings = |f: fn(&Sample) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let times = |f: fn(&Sample) -> i64| -> ArrayRef {
        Arc::new(
            TimestampMicrosecondArray::from_iter_values(rows.iter().map(f)).with_timezone("UTC"),
        )
    };
    Ok(RecordBatch::try_new(
        samples(),
        vec![
            strings(|s| &s.metric),
            times(|s| s.start),
            times(|s| s.end),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|s| s.value))),
            strings(|s| &s.unit),
            strings(|s| &s.data_type),
            strings(|s| &s.source),
        ],
    )?)
}

/// Column `name` of `batch` as an array of type `T`; an error names it when it is missing or of another type.
pub(crate) fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| {
            crate::DataError::Invalid(format!(
                "a samples file has no column `{name}` of the expected type"
            ))
        })
}

/// Column `name` of `batch`, whatever its type.
pub(crate) fn column_ref<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef> {
    batch
        .column_by_name(name)
        .ok_or_else(|| crate::DataError::Invalid(format!("a samples file has no column `{name}`")))
}

/// The samples in `batches` (of [`SAMPLES`]).
pub fn samples_rows(batches: &[RecordBatch]) -> Result<Vec<Sample>> {
    let mut out = Vec::new();
    for b in batches {
        let metric = column::<StringArray>(b, "metric")?;
        let start = column::<TimestampMicrosecondArray>(b, "start")?;
        let end = column::<TimestampMicrosecondArray>(b, "end")?;
        let value = column::<Float64Array>(b, "value")?;
        let unit = column::<StringArray>(b, "unit")?;
        let data_type = column::<StringArray>(b, "data_type")?;
        let source = column::<StringArray>(b, "source")?;
        for i in 0..b.num_rows() {
            out.push(Sample {
                metric: metric.value(i).to_string(),
                start: start.value(i),
                end: end.value(i),
                value: value.value(i),
                unit: unit.value(i).to_string(),
                data_type: data_type.value(i).to_string(),
                source: source.value(i).to_string(),
            });
        }
    }
    Ok(out)
}

/// Sorts samples by metric, start, end, value and source, and drops exact duplicates (the same export read
/// twice, or a month held both locally and remotely).
pub fn sort_dedup(rows: &mut Vec<Sample>) {
    rows.sort_by(|a, b| {
        a.metric
            .cmp(&b.metric)
            .then(a.start.cmp(&b.start))
            .then(a.end.cmp(&b.end))
            .then(a.value.total_cmp(&b.value))
            .then(a.source.cmp(&b.source))
    });
    rows.dedup_by(|a, b| {
        a.metric == b.metric
            && a.start == b.start
            && a.end == b.end
            && a.value.to_bits() == b.value.to_bits()
            && a.source == b.source
    });
}

/// `batches` merged into one sorted batch without duplicate samples.
pub fn dedup(batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>> {
    let mut rows = samples_rows(&batches)?;
    sort_dedup(&mut rows);
    Ok(vec![samples_batch(&rows)?])
}

/// Report fields as one record batch of [`REPORTS`].
pub fn reports_batch(rows: &[ReportField]) -> Result<RecordBatch> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    Ok(RecordBatch::try_new(
        Arc::new(REPORTS.clone()),
        vec![
            Arc::new(StringArray::from_iter_values(
                rows.iter().map(|r| &r.report_type),
            )),
            Arc::new(Date32Array::from_iter_values(
                rows.iter().map(|r| (r.date - epoch).num_days() as i32),
            )),
            Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.field))),
            Arc::new(Float64Array::from_iter(rows.iter().map(|r| r.value))),
            Arc::new(StringArray::from_iter(
                rows.iter().map(|r| r.unit.as_deref()),
            )),
            Arc::new(StringArray::from_iter(
                rows.iter().map(|r| r.text.as_deref()),
            )),
        ],
    )?)
}

/// The report fields in `batches` (of [`REPORTS`]).
pub fn report_rows(batches: &[RecordBatch]) -> Result<Vec<ReportField>> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    let mut out = Vec::new();
    for b in batches {
        let kind = column::<StringArray>(b, "report_type")?;
        let date = column::<Date32Array>(b, "report_date")?;
        let field = column::<StringArray>(b, "field")?;
        let value = column::<Float64Array>(b, "value")?;
        let unit = column::<StringArray>(b, "unit")?;
        let text = column::<StringArray>(b, "text")?;
        let opt = |a: &StringArray, i: usize| (!a.is_null(i)).then(|| a.value(i).to_string());
        for i in 0..b.num_rows() {
            out.push(ReportField {
                report_type: kind.value(i).to_string(),
                date: epoch + chrono::TimeDelta::days(i64::from(date.value(i))),
                field: field.value(i).to_string(),
                value: (!value.is_null(i)).then(|| value.value(i)),
                unit: opt(unit, i),
                text: opt(text, i),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_cover_their_utc_span() {
        let (lo, hi) = month_span("2024-12").expect("a month");
        assert_eq!(month_of(lo), "2024-12");
        assert_eq!(month_of(hi - 1), "2024-12");
        assert_eq!(month_of(hi), "2025-01");
        for bad in ["2024-13", "2024-1", "24-01", "x", "2024-00"] {
            assert!(month_span(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn duplicates_go_and_order_is_by_metric_then_time() {
        let s = |m: &str, t: i64, v: f64| Sample {
            metric: m.into(),
            start: t,
            end: t,
            value: v,
            unit: "u".into(),
            data_type: "csv".into(),
            source: String::new(),
        };
        let mut rows = vec![
            s("b", 1, 1.0),
            s("a", 2, 1.0),
            s("a", 1, 2.0),
            s("a", 2, 1.0),
            s("a", 1, 1.0),
        ];
        sort_dedup(&mut rows);
        let got: Vec<(&str, i64, f64)> = rows
            .iter()
            .map(|r| (r.metric.as_str(), r.start, r.value))
            .collect();
        assert_eq!(
            got,
            vec![("a", 1, 1.0), ("a", 1, 2.0), ("a", 2, 1.0), ("b", 1, 1.0)]
        );
    }
}
