//! Reports in JSON: one report or an array of them, each
//! `{"reportType": "dexa" | "bloodwork", "date": "YYYY-MM-DD", "fields": {NAME: number | text | {"value", "unit"}}}`.

use super::Importer;
use crate::schema::ReportField;
use crate::{DataError, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The kinds of report.
pub const REPORT_TYPES: &[&str] = &["dexa", "bloodwork"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Report {
    report_type: String,
    date: String,
    fields: BTreeMap<String, Value>,
    /// Where it came from (a lab's name): kept out of the fields.
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum File {
    Many(Vec<Report>),
    One(Report),
}

pub(super) fn read(into: &mut Importer<'_>, input: impl Read, path: &Path) -> Result<()> {
    let bad = |what: String| DataError::Import(format!("{}: {what}", path.display()));
    let value: Value = serde_json::from_reader(input).map_err(|e| bad(format!("not JSON: {e}")))?;
    let file: File = serde_json::from_value(value).map_err(|e| {
        bad(format!(
            "not a report or an array of reports ({{\"reportType\", \"date\", \"fields\"}}): {e}"
        ))
    })?;
    let reports = match file {
        File::Many(r) => r,
        File::One(r) => vec![r],
    };
    for r in reports {
        if !REPORT_TYPES.contains(&r.report_type.as_str()) {
            return Err(bad(format!(
                "reportType {:?} is not one of {}",
                r.report_type,
                REPORT_TYPES.join(", ")
            )));
        }
        let date = chrono::NaiveDate::parse_from_str(&r.date, "%Y-%m-%d")
            .map_err(|_| bad(format!("date {:?} is not YYYY-MM-DD", r.date)))?;
        for (name, v) in r.fields {
            let (value, unit, text) = match &v {
                Value::Number(n) => (n.as_f64(), None, None),
                Value::String(s) => (None, None, Some(s.clone())),
                Value::Object(o) => {
                    let unit = o.get("unit").and_then(Value::as_str).map(str::to_string);
                    match o.get("value") {
                        Some(Value::Number(n)) => (n.as_f64(), unit, None),
                        Some(Value::String(s)) => (None, unit, Some(s.clone())),
                        _ => {
                            return Err(bad(format!(
                                "field {name:?}: an object needs a number or text `value`"
                            )))
                        }
                    }
                }
                _ => {
                    return Err(bad(format!(
                        "field {name:?}: a number, text, or {{\"value\", \"unit\"}}"
                    )))
                }
            };
            if value.is_some_and(|x| !x.is_finite()) {
                return Err(bad(format!("field {name:?}: not a finite number")));
            }
            into.report(ReportField {
                report_type: r.report_type.clone(),
                date,
                field: name,
                value,
                unit,
                text,
            });
        }
    }
    Ok(())
}
