//! Reading the plotter's params: numbers, ranges, colours, and the error for a bad one.

use super::draw::fmt_pair;
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
        [a, b] if a < b => {
            // Beyond ±1e300 margins and sample spacings overflow; a range narrower than 1e-12 of its magnitude
            // (or than 1e-300) holds too few doubles to draw (`[0, 1e-320]` has a handful): refuse both.
            let (sa, sb) = fmt_pair(a, b);
            if a.abs().max(b.abs()) > MAX_RANGE_MAGNITUDE {
                return Err(invalid(format!(
                    "`{what}` [{sa}, {sb}] reaches beyond ±1e300, where a plot's margins and sample spacing \
                     overflow; rescale the data (plot in units of a power of ten) instead"
                )));
            }
            let width = b - a;
            if width < MIN_RANGE_WIDTH || width < 1e-12 * a.abs().max(b.abs()) {
                return Err(invalid(format!(
                    "`{what}` [{sa}, {sb}] is too narrow to plot: it holds too few distinct doubles \
                     (its width must be at least 1e-300 and 1e-12 of its magnitude); rescale or widen it"
                )));
            }
            Ok(Some((a, b)))
        }
        _ => Err(invalid(format!(
            "`{what}` must be [low, high] with low < high"
        ))),
    }
}

/// The largest magnitude a plotted range may reach.
pub(super) const MAX_RANGE_MAGNITUDE: f64 = 1e300;
/// The narrowest range plotted.
pub(super) const MIN_RANGE_WIDTH: f64 = 1e-300;

pub(super) fn color(s: &str) -> Option<RGBColor> {
    let h = s.strip_prefix('#')?;
    let p = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    Some(RGBColor(p(0)?, p(2)?, p(4)?))
}
