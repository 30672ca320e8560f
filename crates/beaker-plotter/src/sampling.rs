//! Sampling functions and measuring data: adaptive samples broken at poles, extents, padded bounds, and
//! clipping at the plot's edges.

use super::params::invalid;
use super::{Series, BASE_SAMPLES, MAX_POINTS, REFINE_DEPTH};
use beaker_core::{CallContext, ToolError};
use beaker_expr::CompiledF64;

/// Bounds of finite values, padded 5% (matplotlib's margins). A flat range, or one too narrow to draw (under
/// 1e-300, or 1e-12 of its magnitude: `[1, 1 + 2.2e-16]`), is widened by ±1, or ±5% of its magnitude beyond 20
/// (±1 is nothing next to 1e20).
pub(super) fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    let reach = lo.abs().max(hi.abs());
    if hi - lo < 1e-300 || hi - lo < 1e-12 * reach {
        let d = (0.05 * reach).max(1.0);
        return (lo - d, hi + d);
    }
    let m = (hi - lo) * 0.05;
    (lo - m, hi + m)
}

/// Samples `f` on `[a, b]`: uniform, then bisected where it changes fast; broken where it is not finite
/// or jumps (a pole or a discontinuity: the midpoint does not lie between its neighbours).
pub(super) fn sample(
    f: &CompiledF64,
    a: f64,
    b: f64,
    log_x: bool,
    view: &mut (f64, f64),
    ctx: &CallContext,
) -> Result<Vec<Vec<(f64, f64)>>, ToolError> {
    // On a log axis the sample coordinate is log10(x): samples spread evenly over decades.
    let eval = |u: f64| f.eval(&[if log_x { 10f64.powf(u) } else { u }]);
    let (a, b) = if log_x {
        if a <= 0.0 {
            return Err(invalid(format!(
                "a logarithmic x axis needs x_range above 0, got [{a}, {b}]"
            )));
        }
        (a.log10(), b.log10())
    } else {
        (a, b)
    };
    let xs: Vec<f64> = (0..BASE_SAMPLES)
        .map(|i| a + (b - a) * i as f64 / (BASE_SAMPLES - 1) as f64)
        .collect();
    let ys: Vec<f64> = xs.iter().map(|&x| eval(x)).collect();
    let finite: Vec<f64> = ys.iter().copied().filter(|y| y.is_finite()).collect();
    if finite.is_empty() {
        return Err(ToolError::domain(
            "the function is undefined (not finite) everywhere on its x range",
        ));
    }
    let mut sorted = finite.clone();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| sorted[((sorted.len() - 1) as f64 * p) as usize];
    let scale = (q(0.98) - q(0.02)).abs().max(1e-12);
    // The range a reader wants to see: all of it, unless a pole or a blow-up would squash the rest (the
    // full range is over 5 times the 2nd–98th percentile span of the uniform samples; smooth curves such as
    // sin, x² or exp(5x) on [-2, 2] stay below 1.5).
    let full = (sorted[0], sorted[sorted.len() - 1]);
    let robust = (q(0.02), q(0.98));
    let mut pts: Vec<(f64, f64)> = vec![(xs[0], ys[0])];
    for i in 1..xs.len() {
        refine(
            &eval,
            (xs[i - 1], ys[i - 1]),
            (xs[i], ys[i]),
            scale,
            REFINE_DEPTH,
            &mut pts,
        );
        if pts.len() > MAX_POINTS {
            return Err(ToolError::limit(format!(
                "the function needs more than {MAX_POINTS} samples"
            )));
        }
        if i % 200 == 0 {
            ctx.checkpoint()?;
        }
    }
    // Split into segments at non-finite values, at poles (the middle does not lie between its neighbours)
    // and at jumps: an interval much steeper than both of its neighbours even after refinement
    // (`floor(x)`), which a steep but smooth curve (`exp(50*x)`) never is.
    let slope = |i: usize| -> f64 {
        match (pts.get(i), pts.get(i + 1)) {
            (Some(a), Some(b)) if a.1.is_finite() && b.1.is_finite() && b.0 > a.0 => {
                ((b.1 - a.1) / (b.0 - a.0)).abs()
            }
            _ => 0.0,
        }
    };
    let mut segments: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    let mut poles = false;
    for (i, &(x, y)) in pts.iter().enumerate() {
        if !y.is_finite() {
            // Undefined or infinite here (1/x at 0): a pole as far as the view is concerned.
            poles |= y.is_infinite();
            if !segments.last().is_some_and(Vec::is_empty) {
                segments.push(Vec::new());
            }
            continue;
        }
        if let Some(&(px, py)) = segments.last().and_then(|s| s.last()) {
            let dy = (y - py).abs();
            let pole = dy > 0.5 * scale && {
                // Halves first: (px + x) overflows near the top of the double range.
                let mid = eval(px * 0.5 + x * 0.5);
                !(mid.is_finite() && mid >= py.min(y) && mid <= py.max(y))
            };
            let here = slope(i - 1);
            let neighbours = slope(i.saturating_sub(2)).max(slope(i));
            let jump = dy > 0.02 * scale && here > 20.0 * neighbours;
            poles |= pole;
            if pole || jump {
                segments.push(Vec::new());
            }
        }
        if let Some(s) = segments.last_mut() {
            s.push((x, y));
        }
    }
    segments.retain(|s| !s.is_empty());
    // Only a pole may be cut off: a steep but finite curve (exp(50x)) is shown whole.
    *view = if poles && full.1 - full.0 > 5.0 * scale {
        robust
    } else {
        full
    };
    Ok(segments)
}

pub(super) fn refine(
    eval: &impl Fn(f64) -> f64,
    l: (f64, f64),
    r: (f64, f64),
    scale: f64,
    depth: u32,
    out: &mut Vec<(f64, f64)>,
) {
    let steep = !(l.1.is_finite() && r.1.is_finite()) || (r.1 - l.1).abs() > 0.02 * scale;
    if depth > 0 && steep && out.len() < MAX_POINTS {
        let mx = l.0 * 0.5 + r.0 * 0.5;
        let m = (mx, eval(mx));
        refine(eval, l, m, scale, depth - 1, out);
        refine(eval, m, r, scale, depth - 1, out);
    } else {
        out.push(r);
    }
}

/// The smallest and largest of `values` (`(inf, -inf)` when there are none).
pub(super) fn extent(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        })
}

pub(super) fn bounds(series: &[Series]) -> ((f64, f64), (f64, f64)) {
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (x, y) in series.iter().flat_map(|s| s.segments.iter().flatten()) {
        x0 = x0.min(*x);
        x1 = x1.max(*x);
        y0 = y0.min(*y);
        y1 = y1.max(*y);
    }
    (padded(x0, x1), padded(y0, y1))
}

/// Lines cut at the plot's y edges: a run outside the range is dropped and the crossing points are
/// interpolated, so a curve leaving the plot (`tan(x)` near a pole) ends at the edge instead of being
/// clamped to it and drawn along the border.
pub(super) fn clip(segments: &[Vec<(f64, f64)>], (lo, hi): (f64, f64)) -> Vec<Vec<(f64, f64)>> {
    let inside = |y: f64| y >= lo && y <= hi;
    let cross = |a: (f64, f64), b: (f64, f64)| {
        let edge = if (a.1 > hi) != (b.1 > hi) { hi } else { lo };
        let t = (edge - a.1) / (b.1 - a.1);
        (a.0 + t * (b.0 - a.0), edge)
    };
    let mut out = Vec::new();
    for seg in segments {
        let mut cur: Vec<(f64, f64)> = Vec::new();
        for (i, &p) in seg.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| seg[j]);
            match (prev, inside(p.1)) {
                (Some(q), true) if !inside(q.1) => cur.push(cross(q, p)),
                (Some(q), false) if inside(q.1) => {
                    cur.push(cross(q, p));
                    out.push(std::mem::take(&mut cur));
                    continue;
                }
                _ => {}
            }
            if inside(p.1) {
                cur.push(p);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}
