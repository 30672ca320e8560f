//! One builder per plot type: what to draw (a [`Body`]) and what was drawn, in words.

use super::draw::{fmt_num, fmt_pair, fmt_within, frac};
use super::params::{invalid, numbers, range_of};
use super::sampling::{extent, sample};
use super::{
    Body, Series, ARROWS, CONTOUR_GRID, MAX_AXIS_MAGNITUDE, MAX_CELLS, MAX_LEVELS, MAX_SERIES,
};
use beaker_core::{CallContext, ToolError};
use beaker_expr::{parse, CompiledF64, ParseLimits};
use serde_json::Value;

/// What every builder reads: the plot type, its data and options, the call's context, the axes asked for.
#[derive(Clone, Copy)]
pub(super) struct Input<'a> {
    pub(super) kind: &'a str,
    pub(super) data: &'a Value,
    pub(super) opts: &'a Value,
    pub(super) ctx: &'a CallContext,
    pub(super) log_x: bool,
    pub(super) x_opt: Option<(f64, f64)>,
    pub(super) y_opt: Option<(f64, f64)>,
}

/// A built plot body, its description, and for functions the y range worth showing.
pub(super) struct Built {
    pub(super) body: Body,
    pub(super) desc: String,
    pub(super) y_view: Option<(f64, f64)>,
    /// A colour bar beside the plot (contours: the value range and the levels).
    pub(super) colorbar: Option<ColorBar>,
}

/// `function`: expressions in x, sampled adaptively.
pub(super) fn function(input: &Input) -> Result<Built, ToolError> {
    let Input {
        data,
        ctx,
        log_x,
        x_opt,
        ..
    } = *input;
    let mut y_view: Option<(f64, f64)> = None;
    let mut exprs: Vec<String> = data["functions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if let Some(f) = data["function"].as_str() {
        exprs.push(f.to_string());
    }
    if exprs.is_empty() {
        return Err(invalid(
            "function plots need `data.functions` (expressions in x)",
        ));
    }
    if exprs.len() > MAX_SERIES {
        return Err(ToolError::limit(format!(
            "{} functions; the limit is {MAX_SERIES}",
            exprs.len()
        )));
    }
    let (a, b) = range_of(&data["x_range"], "data.x_range")?
        .or(x_opt)
        .unwrap_or((-10.0, 10.0));
    let limits = ParseLimits {
        max_len: ctx.limits.max_expression_len,
        max_depth: ctx.limits.max_depth,
    };
    let mut series = Vec::new();
    let mut words = Vec::new();
    for e in &exprs {
        let compiled = parse(e, limits)
            .and_then(|p| p.compile_f64(&["x"]))
            .map_err(ToolError::from)?;
        let mut view = (0.0, 0.0);
        let segments = sample(&compiled, a, b, log_x, &mut view, ctx)?;
        y_view = Some(match y_view {
            Some((lo, hi)) => (view.0.min(lo), view.1.max(hi)),
            None => view,
        });
        let n: usize = segments.iter().map(Vec::len).sum();
        let (lo, hi) = extent(segments.iter().flatten().map(|p| p.1));
        // Probed on an even grid (in log10 x on a log axis): somewhere not finite, so not drawn.
        let (lo_x, hi_x) = if log_x {
            (a.log10(), b.log10())
        } else {
            (a, b)
        };
        let undefined = (0..=200).any(|i| {
            let u = lo_x + (hi_x - lo_x) * f64::from(i) / 200.0;
            !compiled
                .eval(&[if log_x { 10f64.powf(u) } else { u }])
                .is_finite()
        });
        let gaps = if segments.len() > 1 {
            format!(
                ", drawn in {} pieces (breaks at poles or jumps)",
                segments.len()
            )
        } else {
            String::new()
        };
        let undefined = if undefined {
            ", undefined or infinite on part of the x range (not drawn there)"
        } else {
            ""
        };
        let (lo, hi) = fmt_pair(lo, hi);
        words.push(format!(
            "y = {e}: {n} samples, y from {lo} to {hi}{gaps}{undefined}"
        ));
        series.push(Series {
            label: e.clone(),
            segments,
            points: false,
        });
    }
    let (a, b) = fmt_pair(a, b);
    let desc = format!("Function plot for x in [{a}, {b}]: {}.", words.join("; "));
    Ok(Built {
        body: Body::Series(series),
        desc,
        y_view,
        colorbar: None,
    })
}

/// `line` and `scatter`: data series.
pub(super) fn series(input: &Input) -> Result<Built, ToolError> {
    let Input { kind, data, .. } = *input;
    let mut raw: Vec<(String, Vec<f64>, Option<Vec<f64>>)> = Vec::new();
    if let Some(ss) = data["series"].as_array() {
        for (i, s) in ss.iter().enumerate() {
            let y = numbers(&s["y"], &format!("data.series[{i}].y"))?;
            let x = if s["x"].is_null() {
                None
            } else {
                Some(numbers(&s["x"], &format!("data.series[{i}].x"))?)
            };
            raw.push((
                s["label"]
                    .as_str()
                    .map(String::from)
                    .unwrap_or(format!("series {}", i + 1)),
                y,
                x,
            ));
        }
    } else {
        let y = numbers(&data["y"], "data.y")?;
        let x = if data["x"].is_null() {
            None
        } else {
            Some(numbers(&data["x"], "data.x")?)
        };
        raw.push(("y".into(), y, x));
    }
    if raw.len() > MAX_SERIES {
        return Err(ToolError::limit(format!(
            "{} series; the limit is {MAX_SERIES}",
            raw.len()
        )));
    }
    let mut series = Vec::new();
    let mut words = Vec::new();
    for (label, y, x) in raw {
        let x = x.unwrap_or_else(|| (0..y.len()).map(|i| i as f64).collect());
        if x.len() != y.len() {
            return Err(invalid(format!(
                "series `{label}` has {} x values and {} y values",
                x.len(),
                y.len()
            )));
        }
        if y.is_empty() {
            return Err(invalid(format!("series `{label}` is empty")));
        }
        let (lo, hi) = extent(y.iter().copied());
        let (xl, xh) = extent(x.iter().copied());
        let points = if y.len() == 1 {
            "1 point".to_string()
        } else {
            format!("{} points", y.len())
        };
        let ((xl, xh), (lo, hi)) = (fmt_pair(xl, xh), fmt_pair(lo, hi));
        words.push(format!(
            "{label}: {points}, x from {xl} to {xh}, y from {lo} to {hi}"
        ));
        series.push(Series {
            label,
            segments: vec![x.into_iter().zip(y).collect()],
            points: kind == "scatter",
        });
    }
    let desc = format!(
        "{} plot of {}.",
        if kind == "line" { "Line" } else { "Scatter" },
        words.join("; ")
    );
    Ok(Built {
        body: Body::Series(series),
        desc,
        y_view: None,
        colorbar: None,
    })
}

/// `bar`: one bar per value.
pub(super) fn bar(input: &Input) -> Result<Built, ToolError> {
    let Input { data, .. } = *input;
    let values = numbers(&data["values"], "data.values")?;
    if values.is_empty() {
        return Err(invalid("bar plots need `data.values`"));
    }
    let labels: Vec<String> = match data["labels"].as_array() {
        Some(l) => l
            .iter()
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect(),
        None => (1..=values.len()).map(|i| i.to_string()).collect(),
    };
    if labels.len() != values.len() {
        return Err(invalid(format!(
            "{} labels for {} values",
            labels.len(),
            values.len()
        )));
    }
    let rects = values
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64 - 0.4, i as f64 + 0.4, *v))
        .collect();
    let pairs: Vec<String> = labels
        .iter()
        .zip(&values)
        .take(20)
        .map(|(l, v)| format!("{l} = {}", fmt_num(*v)))
        .collect();
    let more = if values.len() > 20 {
        format!(" (and {} more)", values.len() - 20)
    } else {
        String::new()
    };
    let desc = format!(
        "Bar chart of {} bars: {}{more}.",
        values.len(),
        pairs.join(", ")
    );
    Ok(Built {
        body: Body::Bars { rects, labels },
        desc,
        y_view: None,
        colorbar: None,
    })
}

/// `histogram`: values counted in bins, as NumPy does.
pub(super) fn histogram(input: &Input) -> Result<Built, ToolError> {
    let Input {
        data, opts, x_opt, ..
    } = *input;
    let values = numbers(&data["values"], "data.values")?;
    if values.is_empty() {
        return Err(invalid("histograms need `data.values`"));
    }
    let bins = opts["bins"].as_u64().unwrap_or(10) as usize;
    let (lo, hi) = match x_opt {
        Some(r) => r,
        None => {
            let (lo, hi) = extent(values.iter().copied());
            let reach = lo.abs().max(hi.abs());
            if reach > MAX_AXIS_MAGNITUDE {
                return Err(invalid(format!(
                    "`data.values` reach {reach:e}, beyond ±1e307 where the bins' arithmetic overflows; rescale \
                     them (divide by a power of ten)"
                )));
            }
            if hi - lo >= 1e-12 * reach && hi - lo >= 1e-300 {
                (lo, hi)
            } else {
                // NumPy's ±0.5 around equal values, or a billionth of them where 0.5 is lost in rounding (1e20).
                let d = (reach * 1e-9).max(0.5);
                (lo - d, hi + d)
            }
        }
    };
    let w = (hi - lo) / bins as f64;
    let mut counts = vec![0u64; bins];
    // NumPy's rule: bins are half-open except the last, which includes its right edge.
    for v in values.iter().filter(|v| **v >= lo && **v <= hi) {
        let i = (((v - lo) / w) as usize).min(bins - 1);
        counts[i] += 1;
    }
    let rects = counts
        .iter()
        .enumerate()
        .map(|(i, c)| (lo + w * i as f64, lo + w * (i + 1) as f64, *c as f64))
        .collect();
    let peak = counts.iter().copied().max().unwrap_or(0);
    let desc = format!(
            "Histogram of {} values in {bins} bins of width {} from {} to {}; the fullest bin holds {peak}.",
            values.len(),
            fmt_num(w),
            fmt_within(lo, lo, hi),
            fmt_within(hi, lo, hi)
        );
    Ok(Built {
        body: Body::Bars {
            rects,
            labels: Vec::new(),
        },
        desc,
        y_view: None,
        colorbar: None,
    })
}

/// A viridis colour bar: the colours from `lo` (dark) to `hi` (yellow), labelled at `ticks`.
pub(super) struct ColorBar {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<f64>,
}

/// `contour` and `vector_field`: a function of x and y on a grid.
pub(super) fn field(input: &Input) -> Result<Built, ToolError> {
    let Input {
        kind,
        data,
        opts,
        ctx,
        x_opt,
        y_opt,
        ..
    } = *input;
    let (xa, xb) = range_of(&data["x_range"], "data.x_range")?
        .or(x_opt)
        .unwrap_or((-5.0, 5.0));
    let (ya, yb) = range_of(&data["y_range"], "data.y_range")?
        .or(y_opt)
        .unwrap_or((-5.0, 5.0));
    let limits = ParseLimits {
        max_len: ctx.limits.max_expression_len,
        max_depth: ctx.limits.max_depth,
    };
    let compile = |key: &str| -> Result<(String, CompiledF64), ToolError> {
        let src = data[key].as_str().ok_or_else(|| {
            invalid(format!(
                "{kind} plots need `data.{key}`, an expression in x and y"
            ))
        })?;
        let c = parse(src, limits)
            .and_then(|p| p.compile_f64(&["x", "y"]))
            .map_err(ToolError::from)?;
        Ok((src.to_string(), c))
    };
    if kind == "contour" {
        let (src, f) = compile("function")?;
        let n = CONTOUR_GRID;
        let step = ((xb - xa) / (n - 1) as f64, (yb - ya) / (n - 1) as f64);
        let mut values = Vec::with_capacity(n * n);
        for j in 0..n {
            for i in 0..n {
                let v = f.eval(&[xa + step.0 * i as f64, ya + step.1 * j as f64]);
                values.push(if v.is_finite() { v } else { f64::NAN });
            }
        }
        ctx.checkpoint()?;
        let (lo, hi) = extent(values.iter().copied().filter(|v| v.is_finite()));
        if !lo.is_finite() {
            return Err(ToolError::domain(format!(
                "{src} is undefined everywhere on the grid"
            )));
        }
        let levels: Vec<f64> = match &opts["levels"] {
            Value::Array(a) => numbers(&Value::Array(a.clone()), "options.levels")?,
            v => {
                let k = v.as_u64().unwrap_or(10) as usize;
                if k > MAX_LEVELS {
                    return Err(ToolError::limit(format!(
                        "{k} levels; the limit is {MAX_LEVELS}"
                    )));
                }
                (1..=k)
                    .map(|i| {
                        if (hi - lo).is_finite() {
                            lo + (hi - lo) * i as f64 / (k + 1) as f64
                        } else {
                            // Values spanning more than the doubles hold (±1e308): no overflow.
                            let t = i as f64 / (k + 1) as f64;
                            lo * (1.0 - t) + hi * t
                        }
                    })
                    .collect()
            }
        };
        if levels.len() > MAX_LEVELS {
            return Err(ToolError::limit(format!(
                "{} levels; the limit is {MAX_LEVELS}",
                levels.len()
            )));
        }
        // Grid point (i, j) sits at (xa + i·dx, ya + j·dy); contour's coordinates count cells from 0.
        let builder = contour::ContourBuilder::new(n, n, true);
        let found = builder.lines(&values, &levels).map_err(|e| {
            ToolError::new(
                beaker_core::ErrorKind::Internal,
                format!("contouring failed: {e:?}"),
            )
        })?;
        let mut lines = Vec::new();
        for l in &found {
            let t = frac(l.threshold(), lo, hi);
            for ls in &l.geometry().0 {
                // The crate closes each ring along the grid's frame; those runs are not contours.
                let frame = |x: f64, y: f64| {
                    let m = 0.5 + 1e-9;
                    x < m || y < m || x > n as f64 - m || y > n as f64 - m
                };
                let mut run: Vec<(f64, f64)> = Vec::new();
                for c in &ls.0 {
                    if frame(c.x, c.y) {
                        if run.len() > 1 {
                            lines.push((t, std::mem::take(&mut run)));
                        }
                        run.clear();
                    } else {
                        run.push((xa + (c.x - 0.5) * step.0, ya + (c.y - 0.5) * step.1));
                    }
                }
                if run.len() > 1 {
                    lines.push((t, run));
                }
            }
        }
        let shown: Vec<String> = levels
            .iter()
            .take(12)
            .map(|l| fmt_within(*l, lo, hi))
            .collect();
        let ((sxa, sxb), (sya, syb), (slo, shi)) =
            (fmt_pair(xa, xb), fmt_pair(ya, yb), fmt_pair(lo, hi));
        let desc = format!(
                "Contour plot of f(x, y) = {src} for x in [{sxa}, {sxb}], y in [{sya}, {syb}]: values from {slo} to {shi}, {} levels ({}), {} lines, coloured dark purple (low) to yellow (high), with a colour bar of the levels.",
                levels.len(), shown.join(", "), lines.len()
            );
        Ok(Built {
            body: Body::Lines(lines),
            desc,
            y_view: None,
            colorbar: Some(ColorBar {
                lo,
                hi,
                ticks: levels,
            }),
        })
    } else {
        let (su, u) = compile("u")?;
        let (sv, v) = compile("v")?;
        let n = ARROWS;
        let cell = ((xb - xa) / n as f64, (yb - ya) / n as f64);
        let mut field = Vec::new();
        for j in 0..n {
            for i in 0..n {
                let (x, y) = (
                    xa + cell.0 * (i as f64 + 0.5),
                    ya + cell.1 * (j as f64 + 0.5),
                );
                let (a, b) = (u.eval(&[x, y]), v.eval(&[x, y]));
                if a.is_finite() && b.is_finite() {
                    field.push((x, y, a, b));
                }
            }
        }
        if field.is_empty() {
            return Err(ToolError::domain(
                "the vector field is undefined everywhere on the grid",
            ));
        }
        // Arrow lengths in cell units, so arrows look right whatever the axes' scales. Where that overflows
        // (huge vectors on a tiny cell), the vectors are first divided by their largest component.
        let norm = |a: f64, b: f64| ((a / cell.0).powi(2) + (b / cell.1).powi(2)).sqrt();
        let unit = if field.iter().all(|f| norm(f.2, f.3).is_finite()) {
            1.0
        } else {
            field
                .iter()
                .map(|f| f.2.abs().max(f.3.abs()))
                .fold(0.0, f64::max)
        };
        let longest = field
            .iter()
            .map(|f| norm(f.2 / unit, f.3 / unit))
            .fold(0.0, f64::max);
        let scale = if longest > 0.0 { 0.9 / longest } else { 0.0 };
        // |(a, b)|, without overflow for components near ±1.8e308.
        let magnitude = |a: f64, b: f64| {
            let m = (a * a + b * b).sqrt();
            if m.is_finite() {
                m
            } else {
                a.hypot(b)
            }
        };
        let mut lines = Vec::new();
        let (mut mlo, mut mhi) = (f64::INFINITY, 0.0f64);
        for (_, _, a, b) in &field {
            let m = magnitude(*a, *b);
            mlo = mlo.min(m);
            mhi = mhi.max(m);
        }
        let mut dots = 0usize;
        for (x, y, a, b) in field {
            let (dx, dy) = (a / unit * scale, b / unit * scale);
            let (x0, y0) = (x - dx / 2.0, y - dy / 2.0);
            let (x1, y1) = (x + dx / 2.0, y + dy / 2.0);
            let t = if mhi > mlo {
                frac(magnitude(a, b), mlo, mhi)
            } else {
                0.5
            };
            // Arrowhead: two strokes at ±25° from the shaft, a third of its length in cell units but never
            // shorter than MIN_HEAD, so a weak arrow still shows its direction; a zero vector (or one under
            // 1e-9 of the longest) is a small diamond.
            let (ux, uy) = (-dx / cell.0, -dy / cell.1);
            let len = (ux * ux + uy * uy).sqrt();
            let mut pts = vec![(x0, y0), (x1, y1)];
            if len <= 1e-9 {
                dots += 1;
                let r = (DOT_RADIUS * cell.0, DOT_RADIUS * cell.1);
                pts = vec![
                    (x - r.0, y),
                    (x, y + r.1),
                    (x + r.0, y),
                    (x, y - r.1),
                    (x - r.0, y),
                ];
            } else {
                let head = (0.3 * len).max(MIN_HEAD);
                for ang in [0.44f64, -0.44] {
                    let (c, s) = (ang.cos(), ang.sin());
                    let (hx, hy) = (
                        (ux * c - uy * s) / len * head,
                        (ux * s + uy * c) / len * head,
                    );
                    pts.push((x1 + hx * cell.0, y1 + hy * cell.1));
                    pts.push((x1, y1));
                }
            }
            lines.push((t, pts));
        }
        let ((sxa, sxb), (sya, syb), (smlo, smhi)) =
            (fmt_pair(xa, xb), fmt_pair(ya, yb), fmt_pair(mlo, mhi));
        let dots = match dots {
            0 => String::new(),
            1 => " 1 vector is zero (or under 1e-9 of the longest) and drawn as a dot.".into(),
            k => format!(" {k} vectors are zero (or under 1e-9 of the longest) and drawn as dots."),
        };
        let desc = format!(
                "Vector field (u, v) = ({su}, {sv}) on a {n}×{n} grid over x in [{sxa}, {sxb}], y in [{sya}, {syb}]: magnitudes from {smlo} to {smhi}, arrows scaled to the longest and coloured dark purple (weak) to yellow (strong); the shortest \
                 still have a head of at least {MIN_HEAD} of a grid cell.{dots}"
            );
        Ok(Built {
            body: Body::Lines(lines),
            desc,
            y_view: None,
            colorbar: None,
        })
    }
}

/// The shortest arrowhead stroke, in grid cells (a cell is about 30 pixels at the default size).
const MIN_HEAD: f64 = 0.15;
/// The radius of the diamond drawn for a zero vector, in grid cells.
const DOT_RADIUS: f64 = 0.06;

/// `heatmap`: a matrix of values in viridis colours.
pub(super) fn heatmap(input: &Input) -> Result<Built, ToolError> {
    let Input { data, .. } = *input;
    let rows = data["z"]
        .as_array()
        .ok_or_else(|| invalid("heatmaps need `data.z`, a list of rows"))?;
    let z: Vec<Vec<f64>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| numbers(r, &format!("data.z[{i}]")))
        .collect::<Result<_, _>>()?;
    let cols = z.first().map_or(0, Vec::len);
    if z.is_empty() || cols == 0 || z.iter().any(|r| r.len() != cols) {
        return Err(invalid(
            "`data.z` must be a non-empty matrix with rows of equal length",
        ));
    }
    if z.len() * cols > MAX_CELLS {
        return Err(ToolError::limit(format!(
            "{} cells; the limit is {MAX_CELLS}",
            z.len() * cols
        )));
    }
    let (lo, hi) = extent(z.iter().flatten().copied());
    let desc = format!(
            "Heatmap of {} rows × {cols} columns, values from {} (dark purple) to {} (yellow), viridis colours.",
            z.len(),
            fmt_within(lo, lo, hi),
            fmt_within(hi, lo, hi)
        );
    Ok(Built {
        body: Body::Heat { z, lo, hi },
        desc,
        y_view: None,
        colorbar: None,
    })
}
