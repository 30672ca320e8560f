//! CSV exports: Dexcom Clarity and FreeStyle Libre CGM exports, and generic `timestamp,metric,value,unit`.

use super::{Importer, Progress};
use crate::metrics;
use crate::schema::Sample;
use crate::units;
use crate::{DataError, Result};
use chrono::{NaiveDate, NaiveDateTime, TimeZone};
use chrono_tz::Tz;
use std::io::Read;
use std::path::Path;

/// Which export a header row belongs to, with the columns read.
enum Layout {
    /// `timestamp,metric,value,unit` in any order (`unit` optional).
    Generic {
        time: usize,
        metric: usize,
        value: usize,
        unit: Option<usize>,
    },
    /// Dexcom Clarity: `Timestamp (YYYY-MM-DDThh:mm:ss)`, `Event Type` (EGV rows), `Glucose Value (mg/dL)`.
    Dexcom {
        time: usize,
        event: usize,
        value: usize,
        unit: String,
    },
    /// FreeStyle Libre: `Device Timestamp`, `Record Type` (0 historic, 1 scan) and their glucose columns.
    Libre {
        time: usize,
        record: usize,
        historic: usize,
        scan: Option<usize>,
        unit: String,
    },
}

fn layout(header: &csv::StringRecord) -> Option<Layout> {
    let names: Vec<String> = header
        .iter()
        .map(|h| h.trim().trim_start_matches('\u{feff}').to_string())
        .collect();
    let find = |want: &str| names.iter().position(|n| n.eq_ignore_ascii_case(want));
    let starts = |want: &str| names.iter().position(|n| n.starts_with(want));
    if let (Some(time), Some(metric), Some(value)) =
        (find("timestamp"), find("metric"), find("value"))
    {
        return Some(Layout::Generic {
            time,
            metric,
            value,
            unit: find("unit"),
        });
    }
    if let (Some(time), Some(event), Some(value)) = (
        starts("Timestamp ("),
        find("Event Type"),
        starts("Glucose Value ("),
    ) {
        let unit = names[value]
            .trim_start_matches("Glucose Value (")
            .trim_end_matches(')')
            .to_string();
        return Some(Layout::Dexcom {
            time,
            event,
            value,
            unit,
        });
    }
    if let (Some(time), Some(record), Some(historic)) = (
        find("Device Timestamp"),
        find("Record Type"),
        starts("Historic Glucose "),
    ) {
        let unit = names[historic]
            .trim_start_matches("Historic Glucose ")
            .to_string();
        let scan = starts("Scan Glucose ");
        return Some(Layout::Libre {
            time,
            record,
            historic,
            scan,
            unit,
        });
    }
    None
}

/// A time written in an export, as µs since the epoch: RFC 3339 with its offset, or a local date and time
/// (`2024-12-01 08:00`, `2024-12-01T08:00:00`, US `12-01-2024 08:00 AM`) or a date, read in `tz`.
pub(crate) fn time(s: &str, tz: Tz) -> Option<i64> {
    let s = s.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        return Some(t.timestamp_micros());
    }
    if let Some(t) = super::apple::instant(s) {
        return Some(t);
    }
    const LOCAL: &[&str] = &[
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
        "%m-%d-%Y %I:%M %p",
        "%m-%d-%Y %H:%M",
        "%m/%d/%Y %I:%M %p",
        "%m/%d/%Y %H:%M",
    ];
    let naive = LOCAL
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(s, "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })?;
    // A local time skipped by a DST change is read an hour later, as clocks show it.
    tz.from_local_datetime(&naive)
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(naive + chrono::TimeDelta::hours(1)))
                .earliest()
        })
        .map(|t| t.timestamp_micros())
}

pub(super) fn read(
    into: &mut Importer<'_>,
    input: impl Read,
    path: &Path,
    progress: Progress<'_>,
) -> Result<()> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let tz = into.tz();
    let mut found: Option<Layout> = None;
    let mut record = csv::StringRecord::new();
    let mut line = 0u64;
    let bad = |line: u64, what: String| {
        DataError::Import(format!("{}: line {line}: {what}", path.display()))
    };
    while reader
        .read_record(&mut record)
        .map_err(|e| DataError::Import(format!("{}: {e}", path.display())))?
    {
        line += 1;
        if line.is_multiple_of(10_000) {
            progress(reader.position().byte());
        }
        let Some(layout) = &found else {
            // Libre's first line is about the export; the header is the first line a layout reads.
            found = layout(&record);
            if found.is_none() && line >= 3 {
                return Err(DataError::Import(format!(
                    "{}: no header naming timestamp, metric and value (or a Dexcom Clarity or FreeStyle Libre export's columns) in its first lines",
                    path.display()
                )));
            }
            continue;
        };
        let field = |i: usize| record.get(i).unwrap_or("").trim();
        match layout {
            Layout::Generic {
                time: t,
                metric,
                value,
                unit,
            } => {
                if record.iter().all(|f| f.trim().is_empty()) {
                    continue;
                }
                let at = time(field(*t), tz)
                    .ok_or_else(|| bad(line, format!("cannot read the time {:?}", field(*t))))?;
                let name = field(*metric);
                if name.is_empty() {
                    return Err(bad(line, "empty metric".into()));
                }
                let x: f64 = field(*value)
                    .parse()
                    .ok()
                    .filter(|x: &f64| x.is_finite())
                    .ok_or_else(|| {
                        bad(
                            line,
                            format!("the value {:?} is not a number", field(*value)),
                        )
                    })?;
                let given = unit.map(field).unwrap_or("");
                let (x, unit) = match metrics::metric(name) {
                    Some(m) if given.is_empty() => (x, m.unit.to_string()),
                    Some(m) => match units::convert(x, given, m.unit) {
                        Some(v) => (v, m.unit.to_string()),
                        None => {
                            return Err(bad(
                                line,
                                format!(
                                    "{name} in `{given}` does not convert to its unit, {}",
                                    m.unit
                                ),
                            ))
                        }
                    },
                    None => (x, given.to_string()),
                };
                into.sample(Sample {
                    metric: name.to_string(),
                    start: at,
                    end: at,
                    value: x,
                    unit,
                    data_type: "csv".into(),
                    source: String::new(),
                })?;
            }
            Layout::Dexcom {
                time: t,
                event,
                value,
                unit,
            } => {
                if field(*event) != "EGV" {
                    into.skip("Dexcom rows that are not glucose readings (EGV)");
                    continue;
                }
                glucose(into, field(*t), field(*value), unit, tz, "Dexcom")?;
            }
            Layout::Libre {
                time: t,
                record: kind,
                historic,
                scan,
                unit,
            } => {
                let column = match field(*kind) {
                    "0" => Some(*historic),
                    "1" => *scan,
                    _ => None,
                };
                match column {
                    Some(c) => glucose(into, field(*t), field(c), unit, tz, "FreeStyle Libre")?,
                    None => into.skip("Libre rows that are not glucose readings (record types other than 0 and 1)"),
                }
            }
        }
    }
    progress(reader.position().byte());
    if found.is_none() {
        return Err(DataError::Import(format!(
            "{}: empty, or no header row",
            path.display()
        )));
    }
    Ok(())
}

/// One CGM reading; `Low` and `High` (beyond the sensor's range) are skipped and counted.
fn glucose(
    into: &mut Importer<'_>,
    at: &str,
    value: &str,
    unit: &str,
    tz: Tz,
    device: &str,
) -> Result<()> {
    let Some(at) = time(at, tz) else {
        into.skip(format!("{device} rows without a readable time"));
        return Ok(());
    };
    let Some(x) = value.parse::<f64>().ok().filter(|x| x.is_finite()) else {
        into.skip(format!(
            "{device} readings outside the sensor's range (Low, High) or empty"
        ));
        return Ok(());
    };
    let Some(x) = units::convert(x, unit, "mg/dL") else {
        into.skip(format!("{device} readings in `{unit}`"));
        return Ok(());
    };
    into.sample(Sample {
        metric: "glucose".into(),
        start: at,
        end: at,
        value: x,
        unit: "mg/dL".into(),
        data_type: "cgm".into(),
        source: device.into(),
    })
}
