//! `get_latest_report` and `compare_reports`: DEXA scans and bloodwork panels.

use crate::input::{self, ReportParams};
use crate::{error, Health};
use beaker_core::{CallContext, ToolError};
use beaker_datasets::schema::ReportField;
use chrono::NaiveDate;
use serde_json::{json, Map, Value};

/// The kinds of report.
pub const REPORT_TYPES: &[&str] = &["dexa", "bloodwork"];

/// A number as the report wrote it: `188`, not `188.0`.
fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A field's value as answers show it: `{"value", "unit"}` or `{"text"}`.
fn field_json(f: &ReportField) -> Value {
    match (&f.value, &f.text) {
        (Some(v), _) => match &f.unit {
            Some(u) => json!({"value": number(*v), "unit": u}),
            None => json!({"value": number(*v)}),
        },
        (None, Some(t)) => json!({"text": t}),
        (None, None) => Value::Null,
    }
}

/// The reports of `kind`, by date (oldest first), each with its fields.
fn by_date<'a>(all: &'a [ReportField], kind: &str) -> Vec<(NaiveDate, Vec<&'a ReportField>)> {
    let mut out: Vec<(NaiveDate, Vec<&ReportField>)> = Vec::new();
    for f in all.iter().filter(|f| f.report_type == kind) {
        match out.last_mut() {
            Some((d, fields)) if *d == f.date => fields.push(f),
            _ => out.push((f.date, vec![f])),
        }
    }
    out
}

fn check_type(kind: &str) -> Result<(), ToolError> {
    if REPORT_TYPES.contains(&kind) {
        Ok(())
    } else {
        Err(ToolError::invalid_params(format!(
            "`reportType` must be one of {}; got {kind:?}",
            REPORT_TYPES.join(", ")
        )))
    }
}

/// Checks that every asked field is in some report of the kind; the error lists the fields there are.
fn check_fields(
    asked: &[String],
    reports: &[(NaiveDate, Vec<&ReportField>)],
    kind: &str,
) -> Result<(), ToolError> {
    let mut known: Vec<&str> = reports
        .iter()
        .flat_map(|(_, f)| f.iter().map(|f| f.field.as_str()))
        .collect();
    known.sort();
    known.dedup();
    for (i, a) in asked.iter().enumerate() {
        if !known.contains(&a.as_str()) {
            return Err(ToolError::invalid_params(format!(
                "unknown field `{a}` in `fields[{i}]`: the {kind} reports have {}",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

fn fields_json(fields: &[&ReportField], asked: Option<&[String]>) -> Value {
    let mut out = Map::new();
    for f in fields {
        if asked.is_none_or(|a| a.contains(&f.field)) {
            out.insert(f.field.clone(), field_json(f));
        }
    }
    Value::Object(out)
}

fn none_found(kind: &str, name: &str, all: &[ReportField]) -> Value {
    let other: Vec<&str> = REPORT_TYPES
        .iter()
        .copied()
        .filter(|t| *t != kind && all.iter().any(|f| f.report_type == *t))
        .collect();
    json!({
        "dataset": name,
        "reportType": kind,
        "found": false,
        "message": if other.is_empty() {
            format!("no {kind} reports in this dataset")
        } else {
            format!("no {kind} reports in this dataset; it has {} reports", other.join(" and "))
        },
    })
}

pub(crate) fn latest(h: &Health, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let p: ReportParams = beaker_core::params::parse(params)?;
    if p.dates.is_some() {
        return Err(ToolError::invalid_params(
            "`dates` belongs to compare_reports; get_latest_report takes reportType and fields",
        ));
    }
    check_type(&p.report_type)?;
    let o = h.open(ctx, None)?;
    let all = beaker_datasets::import::read_reports(&o.dataset).map_err(error)?;
    let reports = by_date(&all, &p.report_type);
    let Some((date, fields)) = reports.last() else {
        return Ok(none_found(&p.report_type, o.dataset.name(), &all));
    };
    if let Some(asked) = &p.fields {
        check_fields(asked, &reports, &p.report_type)?;
    }
    let mut out = json!({
        "dataset": o.dataset.name(),
        "reportType": p.report_type,
        "found": true,
        "reportDate": date.to_string(),
        "fields": fields_json(fields, p.fields.as_deref()),
        "reportCount": reports.len(),
    });
    if let Some(asked) = &p.fields {
        let missing: Vec<&str> = asked
            .iter()
            .filter(|a| !fields.iter().any(|f| &&f.field == a))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            out["note"] = json!(format!(
                "not in the latest report (only in earlier ones): {}",
                missing.join(", ")
            ));
        }
    }
    Ok(out)
}

pub(crate) fn compare(h: &Health, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let p: ReportParams = beaker_core::params::parse(params)?;
    check_type(&p.report_type)?;
    let o = h.open(ctx, None)?;
    let tz = o.dataset.tz();
    let all = beaker_datasets::import::read_reports(&o.dataset).map_err(error)?;
    let reports = by_date(&all, &p.report_type);
    if reports.is_empty() {
        return Ok(none_found(&p.report_type, o.dataset.name(), &all));
    }
    if let Some(asked) = &p.fields {
        check_fields(asked, &reports, &p.report_type)?;
    }
    let available = || {
        reports
            .iter()
            .map(|(d, _)| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    // "all" (the default), "latest", "second-latest"/"previous", or report dates.
    let mut chosen: Vec<usize> = Vec::new();
    match &p.dates {
        None => chosen.extend(0..reports.len()),
        Some(dates) if dates.is_empty() => chosen.extend(0..reports.len()),
        Some(dates) => {
            for (i, d) in dates.iter().enumerate() {
                let last = reports.len() - 1;
                match d.trim().to_ascii_lowercase().as_str() {
                    "all" => chosen.extend(0..reports.len()),
                    "latest" | "last" => chosen.push(last),
                    "second-latest" | "second_latest" | "previous" => match last.checked_sub(1) {
                        Some(j) => chosen.push(j),
                        None => {
                            return Err(ToolError::invalid_params(format!(
                                "`dates[{i}]` is {d:?} but there is only one {} report ({})",
                                p.report_type,
                                available()
                            )))
                        }
                    },
                    _ => {
                        let day = input::day(d, &format!("dates[{i}]"), tz)?;
                        match reports.iter().position(|(r, _)| *r == day) {
                            Some(j) => chosen.push(j),
                            None => {
                                return Err(ToolError::invalid_params(format!(
                                    "no {} report on {day} (`dates[{i}]`); reports are dated {}",
                                    p.report_type,
                                    available()
                                )))
                            }
                        }
                    }
                }
            }
        }
    }
    chosen.sort_unstable();
    chosen.dedup();
    let picked: Vec<&(NaiveDate, Vec<&ReportField>)> =
        chosen.iter().map(|&i| &reports[i]).collect();
    let listed: Vec<Value> = picked
        .iter()
        .map(|(d, f)| json!({"reportDate": d.to_string(), "fields": fields_json(f, p.fields.as_deref())}))
        .collect();
    // Per numeric field: from its first value among the chosen reports to its last.
    let mut changes = Map::new();
    let mut names: Vec<&str> = picked
        .iter()
        .flat_map(|(_, f)| f.iter().map(|f| f.field.as_str()))
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        if p.fields
            .as_ref()
            .is_some_and(|a| !a.iter().any(|x| x == name))
        {
            continue;
        }
        let values: Vec<(NaiveDate, f64, Option<&String>)> = picked
            .iter()
            .filter_map(|(d, f)| {
                let f = f.iter().find(|f| f.field == name)?;
                Some((*d, f.value?, f.unit.as_ref()))
            })
            .collect();
        if let (Some(a), Some(b)) = (values.first(), values.last()) {
            if values.len() >= 2 {
                let mut c = json!({
                    "from": number(a.1), "to": number(b.1), "fromDate": a.0.to_string(), "toDate": b.0.to_string(),
                    "change": number(b.1 - a.1),
                    "percentChange": if a.1 != 0.0 { json!((b.1 - a.1) / a.1.abs() * 100.0) } else { Value::Null },
                });
                if let Some(u) = b.2 {
                    c["unit"] = json!(u);
                }
                changes.insert(name.to_string(), c);
            }
        }
    }
    let mut out = json!({
        "dataset": o.dataset.name(),
        "reportType": p.report_type,
        "found": true,
        "reports": listed,
        "changes": changes,
    });
    if picked.len() < 2 {
        out["note"] = json!(format!(
            "one report chosen: changes need two; {} reports are dated {}",
            p.report_type,
            available()
        ));
    }
    Ok(out)
}
