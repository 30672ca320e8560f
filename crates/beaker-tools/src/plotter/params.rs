//! Reading the plotter's params: numbers, ranges, colours, and the error for a bad one.

use super::MAX_POINTS;
use beaker_core::ToolError;
use plotters::style::RGBColor;
use serde_json::Value;

pub(super) fn invalid(m: impl Into<String>) -> ToolError {
    ToolError::invalid_params(m)
}

pub(super) fn numbers(v: &Value, what: &str) -> Result<Vec<f64>, ToolError> {
    let a = v
        .as_array()
        .ok_or_else(|| invalid(format!("`{what}` must be an array of numbers")))?;
    if a.len() > MAX_POINTS {
        return Err(ToolError::limit(format!(
            "`{what}` has {} points; the limit is {MAX_POINTS}",
            a.len()
        )));
    }
    a.iter()
        .map(|x| {
            x.as_f64()
                .filter(|f| f.is_finite())
                .ok_or_else(|| invalid(format!("`{what}` holds {x}, not a finite number")))
        })
        .collect()
}

pub(super) fn range_of(v: &Value, what: &str) -> Result<Option<(f64, f64)>, ToolError> {
    if v.is_null() {
        return Ok(None);
    }
    let r = numbers(v, what)?;
    match r[..] {
        [a, b] if a < b => Ok(Some((a, b))),
        _ => Err(invalid(format!(
            "`{what}` must be [low, high] with low < high"
        ))),
    }
}

pub(super) fn color(s: &str) -> Option<RGBColor> {
    let h = s.strip_prefix('#')?;
    let p = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    Some(RGBColor(p(0)?, p(2)?, p(4)?))
}
