//! Drawing a built plot with plotters: axes, grid, series, bars, heatmaps, coloured lines, legend.

use super::sampling::clip;
use super::{Body, Plot};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// A tick on a log axis, at `v` = log10 of the value: decades as 10^k values; between decades only when
/// the axis spans less than two of them (otherwise matplotlib-like, decades only), with enough digits to tell
/// the ticks of a narrow axis apart.
pub(super) fn log_label(v: f64, range: (f64, f64)) -> String {
    let k = v.round();
    let value = 10f64.powf(v);
    // A decade, up to rounding; on an axis narrower than a thousandth of a decade only an exact one.
    if (v - k).abs() < 1e-9f64.min(1e-6 * (range.1 - range.0)) {
        if (-4.0..=6.0).contains(&k) {
            fmt_num(10f64.powf(k))
        } else {
            format!("1e{k}")
        }
    } else if range.1 - range.0 < 2.0 && value.is_normal() {
        // d(10^v) = 10^v ln(10) dv: a thousandth of the axis, in values, near this tick.
        let res = value * std::f64::consts::LN_10 * (range.1 - range.0) * 1e-3;
        fmt_res(value, res_exp(res).min(default_res_exp(value)))
    } else {
        String::new()
    }
}

/// matplotlib's viridis, by a few anchors linearly interpolated.
pub(super) fn viridis(t: f64) -> RGBColor {
    const A: [(f64, (f64, f64, f64)); 5] = [
        (0.0, (68.0, 1.0, 84.0)),
        (0.25, (59.0, 82.0, 139.0)),
        (0.5, (33.0, 145.0, 140.0)),
        (0.75, (94.0, 201.0, 98.0)),
        (1.0, (253.0, 231.0, 37.0)),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let i = A
        .iter()
        .rposition(|(s, _)| *s <= t)
        .unwrap_or(0)
        .min(A.len() - 2);
    let (s0, c0) = A[i];
    let (s1, c1) = A[i + 1];
    let f = (t - s0) / (s1 - s0);
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    RGBColor(mix(c0.0, c1.0), mix(c0.1, c1.1), mix(c0.2, c1.2))
}

/// Pixels the colour bar strip takes on the right of a contour plot.
const COLORBAR_WIDTH: u32 = 90;

/// Draws `bar` in `area`: a vertical viridis gradient from `lo` (bottom) to `hi` (top), a tick and the value at
/// each level.
fn colorbar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bar: &super::kinds::ColorBar,
    titled: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (_, h) = area.dim_in_pixel();
    // Line up with the chart's plotting area: the same margins as the chart (title, x label area).
    let top = 16 + if titled { 32 } else { 0 };
    let bottom = h as i32 - 16 - 48;
    let (x0, x1) = (8, 28);
    let rows = (bottom - top).max(1);
    for k in 0..rows {
        let t = 1.0 - f64::from(k) / f64::from(rows);
        area.draw(&Rectangle::new(
            [(x0, top + k), (x1, top + k + 1)],
            viridis(t).filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x0, top), (x1, bottom)],
        RGBColor(0x66, 0x66, 0x66).stroke_width(1),
    ))?;
    let style = TextStyle::from((super::encode::FONT, 12).into_font()).color(&BLACK);
    for (y, label) in colorbar_ticks(bar, rows) {
        let y = bottom - y;
        area.draw(&PathElement::new(vec![(x1, y), (x1 + 5, y)], BLACK))?;
        if let Some(label) = label {
            area.draw(&Text::new(label, (x1 + 8, y - 6), style.clone()))?;
        }
    }
    Ok(())
}

/// Pixels between two labels of the colour bar (its text is 12 pixels high).
const COLORBAR_LABEL_GAP: i32 = 14;

/// The colour bar's ticks: the height of each level above the bar's bottom (of `rows` pixels), and its label;
/// with many levels only every so many are labelled, as far apart as the text needs (the lowest always).
pub(super) fn colorbar_ticks(
    bar: &super::kinds::ColorBar,
    rows: i32,
) -> Vec<(i32, Option<String>)> {
    let mut ticks: Vec<(i32, f64)> = bar
        .ticks
        .iter()
        .filter_map(|&v| {
            let t = frac(v, bar.lo, bar.hi);
            (0.0..=1.0)
                .contains(&t)
                .then(|| ((t * f64::from(rows)).round() as i32, v))
        })
        .collect();
    ticks.sort_by_key(|t| t.0);
    let mut last: Option<i32> = None;
    ticks
        .into_iter()
        .map(|(y, v)| {
            let room = last.is_none_or(|l| y - l >= COLORBAR_LABEL_GAP);
            if room {
                last = Some(y);
                (y, Some(level_label(v, (bar.lo, bar.hi))))
            } else {
                (y, None)
            }
        })
        .collect()
}

/// An axis over `[lo, hi]`: plotters' own coordinate, ticks from [`key_points`]; labels are formatted by the
/// mesh's formatters.
struct Axis(RangedCoordf64);

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        self.0.map(v, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        let r = self.0.range();
        key_points(r.start, r.end, hint.max_num_points())
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.0.range()
    }
}

fn axis((lo, hi): (f64, f64)) -> Axis {
    Axis(RangedCoordf64::from(lo..hi))
}

/// At most `n` round ticks on `[lo, hi]`: plotters' own, but on an axis narrower than 1e-6 computed on the
/// axis scaled up by a power of ten and scaled back (plotters takes an axis narrower than 2.2e-16 for a single
/// point and would give `[0, 1e-20]` one tick).
pub(super) fn key_points(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span < 1e-6) {
        return RangedCoordf64::from(lo..hi).key_points(n);
    }
    // Scaled in two steps: 10^320 alone overflows (an axis 1e-320 wide, bars of subnormal heights).
    let k = -magnitude(span);
    let (s1, s2) = (10f64.powi(k / 2), 10f64.powi(k - k / 2));
    RangedCoordf64::from(lo * s1 * s2..hi * s1 * s2)
        .key_points(n)
        .into_iter()
        .map(|v| v / s2 / s1)
        .filter(|v| (lo..=hi).contains(v))
        .collect()
}

pub(super) fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    p: &Plot,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    // A colour bar takes a strip on the right; the chart gets the rest.
    let (root, bar_area) = match &p.colorbar {
        Some(_) => {
            let (w, _) = root.dim_in_pixel();
            let (left, right) = root.split_horizontally(w.saturating_sub(COLORBAR_WIDTH));
            (left, Some(right))
        }
        None => (root, None),
    };
    if let (Some(bar), Some(area)) = (&p.colorbar, &bar_area) {
        colorbar(area, bar, !p.title.is_empty()).map_err(e)?;
    }
    let mut builder = ChartBuilder::on(&root);
    builder
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64);
    if !p.title.is_empty() {
        builder.caption(&p.title, (super::encode::FONT, 22));
    }
    let mut chart = builder
        .build_cartesian_2d(axis(p.x), axis(p.y))
        .map_err(e)?;
    {
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(&p.xlabel)
            .y_desc(&p.ylabel)
            .label_style((super::encode::FONT, 14))
            .axis_desc_style((super::encode::FONT, 16));
        if !p.grid {
            mesh.disable_mesh();
        } else {
            mesh.light_line_style(WHITE)
                .bold_line_style(RGBColor(0xdd, 0xdd, 0xdd));
        }
        let labels = match &p.body {
            Body::Bars { labels, .. } if !labels.is_empty() => Some(labels.clone()),
            _ => None,
        };
        let log_x = p.log_x;
        let x_range = p.x;
        let fmt = move |v: &f64| match &labels {
            Some(l) => {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 {
                    l.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
            None if log_x => log_label(*v, p.x),
            None => tick_label(*v, x_range),
        };
        let log_y = p.log_y;
        let y_range = p.y;
        let yfmt = move |v: &f64| {
            if log_y {
                log_label(*v, y_range)
            } else {
                tick_label(*v, y_range)
            }
        };
        if let Body::Bars { rects, labels } = &p.body {
            if !labels.is_empty() {
                mesh.x_labels(rects.len().min(40));
            }
        }
        mesh.x_label_formatter(&fmt)
            .y_label_formatter(&yfmt)
            .draw()
            .map_err(e)?;
    }
    match &p.body {
        Body::Series(series) => {
            for (i, s) in series.iter().enumerate() {
                let c = p.colors[i % p.colors.len()];
                let style = c.stroke_width(2);
                let mut first = true;
                let segments = if s.points {
                    s.segments.clone()
                } else {
                    clip(&s.segments, p.y)
                };
                for seg in &segments {
                    let anno = if s.points || seg.len() == 1 {
                        chart
                            .draw_series(
                                seg.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())),
                            )
                            .map_err(e)?
                    } else {
                        chart
                            .draw_series(LineSeries::new(seg.iter().copied(), style))
                            .map_err(e)?
                    };
                    if first {
                        // The legend shows what the series is drawn with: a dot for points, a stroke for lines.
                        let dots = s.points;
                        anno.label(&s.label)
                            .legend(move |(x, y)| -> DynElement<'static, _, _> {
                                if dots {
                                    Circle::new((x + 10, y), 3, c.filled()).into_dyn()
                                } else {
                                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                                        .into_dyn()
                                }
                            });
                        first = false;
                    }
                }
            }
            if p.legend {
                chart
                    .configure_series_labels()
                    .label_font((super::encode::FONT, 14))
                    .background_style(WHITE.mix(0.85))
                    .border_style(RGBColor(0xcc, 0xcc, 0xcc))
                    .draw()
                    .map_err(e)?;
            }
        }
        Body::Bars { rects, .. } => {
            let c = p.colors[0];
            chart
                .draw_series(
                    rects
                        .iter()
                        .map(|&(x0, x1, h)| Rectangle::new([(x0, 0.0), (x1, h)], c.filled())),
                )
                .map_err(e)?;
        }
        Body::Lines(lines) => {
            for (t, pts) in lines {
                let c = viridis(*t);
                let clipped = clip(std::slice::from_ref(pts), p.y);
                for seg in clipped {
                    chart
                        .draw_series(LineSeries::new(seg, c.stroke_width(2)))
                        .map_err(e)?;
                }
            }
        }
        Body::Heat { z, lo, hi } => {
            let (lo, hi) = (*lo, *hi);
            let rows = z.len();
            chart
                .draw_series(z.iter().enumerate().flat_map(|(r, row)| {
                    row.iter().enumerate().map(move |(c, v)| {
                        // Row 0 at the top, as a matrix is written.
                        let y0 = (rows - 1 - r) as f64;
                        Rectangle::new(
                            [(c as f64, y0), (c as f64 + 1.0, y0 + 1.0)],
                            viridis(if hi > lo { frac(*v, lo, hi) } else { 0.0 }).filled(),
                        )
                    })
                }))
                .map_err(e)?;
        }
    }
    root.present().map_err(e)?;
    Ok(())
}

/// A tick label on an axis spanning `range`: a tick computed in floating point lands next to 0 (-2.22e-16
/// on a [-1, 1] axis), and that is 0; how close counts as 0 is relative to the axis, so a [0, 1e-20] axis keeps
/// its ticks. Written to a thousandth of the axis' span, so ticks on a narrow axis (`[1, 1.00001]`) differ.
pub(super) fn tick_label(v: f64, range: (f64, f64)) -> String {
    if near_zero(v, range) {
        return "0".into();
    }
    fmt_res(v, span_res_exp(range.0, range.1))
}

/// Within a billionth of `range`'s width of 0 (halved: the width of `[-1.5e308, 1.5e308]` overflows).
fn near_zero(v: f64, range: (f64, f64)) -> bool {
    (v * 0.5).abs() < 1e-9 * (range.1 * 0.5 - range.0 * 0.5).abs()
}

/// A level's label on the colour bar: as a tick label, but never with fewer than [`fmt_num`]'s digits (levels
/// are any values, not round ticks).
pub(super) fn level_label(v: f64, range: (f64, f64)) -> String {
    if near_zero(v, range) {
        return "0".into();
    }
    fmt_res(v, span_res_exp(range.0, range.1).min(default_res_exp(v)))
}

/// The decimal exponent of the place a value is rounded to for a description: four decimals between 1e-4 and
/// 1e6 (but at least four significant digits), four significant digits in scientific notation outside.
fn default_res_exp(v: f64) -> i32 {
    let mag = magnitude(v);
    if (1e-4..1e6).contains(&v.abs()) {
        (mag - 3).min(-4)
    } else {
        mag - 3
    }
}

/// The decimal exponent of `|v|` (`floor(log10|v|)`), subnormals included; 0 for 0 and non-finite values.
fn magnitude(v: f64) -> i32 {
    if v == 0.0 || !v.is_finite() {
        return 0;
    }
    let m = v.abs().log10().floor();
    // log10 rounds: 1e23 may give 22.999999999999996, 999.9999999999999 may give 3.
    let m = m as i32;
    if 10f64.powi(m) > v.abs() {
        m - 1
    } else {
        m
    }
}

/// The decimal exponent of a resolution `res` > 0 (the place a number is rounded to).
fn res_exp(res: f64) -> i32 {
    if res > 0.0 && res.is_finite() {
        magnitude(res)
    } else {
        i32::MIN / 2
    }
}

/// `v` rounded to the decimal place `10^r`: plain decimals between 1e-4 and 1e6, scientific notation outside
/// (`2.5e7`, `1e-320`), trailing zeros trimmed. A place finer than the double holds gives its shortest exact
/// form (`1.0000000000000002`).
pub(super) fn fmt_res(v: f64, r: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".into() } else { format!("{v}") };
    }
    let mag = magnitude(v);
    let digits = mag.saturating_sub(r).max(0);
    let sci = !(1e-4..1e6).contains(&v.abs());
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let out = if digits > 16 {
        // More digits than a double holds: its shortest form that reads back exactly.
        if sci {
            let e = format!("{v:e}");
            match e.split_once('e') {
                Some((m, x)) => format!("{}e{x}", trim(m)),
                None => e,
            }
        } else {
            format!("{v}")
        }
    } else if sci {
        let e = format!("{v:.p$e}", p = digits as usize);
        // 2.500e7 → 2.5e7
        match e.split_once('e') {
            Some((m, x)) => format!("{}e{x}", trim(m)),
            None => e,
        }
    } else {
        trim(&format!("{v:.d$}", d = (-r).max(0) as usize))
    };
    if out == "-0" {
        "0".into()
    } else {
        out
    }
}

/// A number for a description or a label, with four decimals between 1e-4 and 1e6 (at least four significant
/// digits) or four significant digits in scientific notation outside.
pub(super) fn fmt_num(v: f64) -> String {
    fmt_res(v, default_res_exp(v))
}

/// The decimal place a thousandth of `[lo, hi]`'s width falls on (also when `hi - lo` overflows).
fn span_res_exp(lo: f64, hi: f64) -> i32 {
    let d = hi - lo;
    if d.is_finite() {
        res_exp(d.abs() * 1e-3)
    } else {
        res_exp((hi * 1e-3 - lo * 1e-3).abs())
    }
}

/// `v`, one of the values in `[lo, hi]` (an end of a range, a contour level), with enough digits to tell the
/// values apart: to a thousandth of the range's width when that is finer than [`fmt_num`]'s four digits
/// (`[1, 1.00001]`, not `[1, 1]`).
pub(super) fn fmt_within(v: f64, lo: f64, hi: f64) -> String {
    fmt_res(v, default_res_exp(v).min(span_res_exp(lo, hi)))
}

/// The two ends of a range for a description, each with enough digits to tell them apart.
pub(super) fn fmt_pair(lo: f64, hi: f64) -> (String, String) {
    (fmt_within(lo, lo, hi), fmt_within(hi, lo, hi))
}

/// Where `v` lies between `lo` (0) and `hi` (1), also when `hi - lo` overflows (values near ±1.8e308).
pub(super) fn frac(v: f64, lo: f64, hi: f64) -> f64 {
    if hi > lo {
        if (hi - lo).is_finite() {
            (v - lo) / (hi - lo)
        } else {
            (v * 0.5 - lo * 0.5) / (hi * 0.5 - lo * 0.5)
        }
    } else {
        0.5
    }
}

/// `10^v` for a description: the value itself, or written as mantissa and exponent when it is beyond the
/// doubles (a log axis padded past 1e308 or below 1e-308).
pub(super) fn fmt_pow10(v: f64) -> String {
    let x = 10f64.powf(v);
    if x.is_normal() {
        return fmt_num(x);
    }
    let e = v.floor();
    let m = 10f64.powf(v - e);
    let (m, e) = if fmt_res(m, -3) == "10" {
        (1.0, e + 1.0)
    } else {
        (m, e)
    };
    format!("{}e{e}", fmt_res(m, -3))
}
