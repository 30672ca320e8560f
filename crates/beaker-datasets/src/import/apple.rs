//! Apple Health's `export.xml`, read as a stream of `<Record>` elements (an export of years is gigabytes).

use super::{Importer, Progress};
use crate::metrics;
use crate::schema::Sample;
use crate::units;
use crate::{DataError, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use std::io::BufRead;
use std::path::Path;

/// Apple Health writes percentages (oxygen saturation, body fat) as fractions with unit `%`.
const FRACTION_PERCENT: &[&str] = &["oxygenSaturation", "bodyFatPercentage"];

/// An instant Apple Health writes (`2024-12-01 08:00:00 -0800`), as µs since the epoch.
pub(crate) fn instant(s: &str) -> Option<i64> {
    chrono::DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S %z")
        .ok()
        .map(|t| t.timestamp_micros())
}

/// A type Beaker has no name for (`HKQuantityTypeIdentifierWaterTemperature`) keeps Apple's name, in seed
/// 002's style (`waterTemperature`).
fn own_name(identifier: &str) -> Option<String> {
    let rest = identifier.strip_prefix("HKQuantityTypeIdentifier")?;
    let mut chars = rest.chars();
    let first = chars.next()?;
    Some(first.to_lowercase().chain(chars).collect())
}

pub(super) fn read<R: BufRead>(
    into: &mut Importer<'_>,
    input: R,
    path: &Path,
    progress: Progress<'_>,
) -> Result<()> {
    let mut reader = Reader::from_reader(input);
    let mut buf = Vec::new();
    let mut records = 0u64;
    loop {
        let event = reader.read_event_into(&mut buf).map_err(|e| {
            DataError::Import(format!(
                "{}: not well-formed XML at byte {}: {e}",
                path.display(),
                reader.error_position()
            ))
        })?;
        match event {
            Event::Eof => break,
            Event::Empty(ref e) | Event::Start(ref e) if e.name().as_ref() == b"Record" => {
                record(into, e, &reader)?;
                records += 1;
                if records.is_multiple_of(10_000) {
                    progress(reader.buffer_position());
                }
            }
            _ => {}
        }
        buf.clear();
    }
    progress(reader.buffer_position());
    if records == 0 {
        return Err(DataError::Import(format!(
            "{}: no <Record> elements: is it Apple Health's export.xml?",
            path.display()
        )));
    }
    Ok(())
}

fn record<R>(into: &mut Importer<'_>, e: &BytesStart<'_>, reader: &Reader<R>) -> Result<()> {
    let (mut kind, mut unit, mut value, mut start, mut end, mut source) = (
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
    );
    for attr in e.attributes().flatten() {
        let text = attr
            .decode_and_unescape_value(reader.decoder())
            .map(|v| v.into_owned())
            .unwrap_or_default();
        match attr.key.as_ref() {
            b"type" => kind = text,
            b"unit" => unit = text,
            b"value" => value = text,
            b"startDate" => start = text,
            b"endDate" => end = text,
            b"sourceName" => source = text,
            _ => {}
        }
    }
    let (Some(start), Some(end)) = (instant(&start), instant(&end)) else {
        into.skip("a record without readable startDate and endDate");
        return Ok(());
    };
    if kind == "HKCategoryTypeIdentifierSleepAnalysis" {
        if metrics::ASLEEP.contains(&value.as_str()) && end > start {
            return into.sample(Sample {
                metric: "sleep".into(),
                start,
                end,
                value: (end - start) as f64 / 3.6e9,
                unit: "h".into(),
                data_type: "apple-health".into(),
                source,
            });
        }
        into.skip("sleep records that are not asleep (in bed, awake)");
        return Ok(());
    }
    let (name, target) = match metrics::apple(&kind) {
        Some(m) => (m.name.to_string(), Some(m.unit)),
        None => match own_name(&kind) {
            Some(n) => (n, None),
            None => {
                into.skip(format!("{kind} (not a quantity)"));
                return Ok(());
            }
        },
    };
    let Ok(mut x) = value.trim().parse::<f64>() else {
        into.skip(format!("{kind} with a value that is not a number"));
        return Ok(());
    };
    if !x.is_finite() {
        into.skip(format!("{kind} with a value that is not a number"));
        return Ok(());
    }
    if FRACTION_PERCENT.contains(&name.as_str()) && unit == "%" {
        x *= 100.0;
    }
    let (x, unit) = match target {
        Some(t) => match units::convert(x, &unit, t) {
            Some(v) => (v, t.to_string()),
            None => {
                into.skip(format!(
                    "{kind} in unit `{unit}`, which does not convert to {t}"
                ));
                return Ok(());
            }
        },
        None => (x, unit),
    };
    into.sample(Sample {
        metric: name,
        start,
        end,
        value: x,
        unit,
        data_type: "apple-health".into(),
        source,
    })
}
