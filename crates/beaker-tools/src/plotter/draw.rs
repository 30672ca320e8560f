//! Drawing a built plot with plotters: axes, grid, series, bars, heatmaps, coloured lines, legend.

use super::sampling::clip;
use super::{Body, Plot};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A tick on a log axis, at `v` = log10 of the value: decades as 10^k values; between decades only when
/// the axis spans less than two of them (otherwise matplotlib-like, decades only).
pub(super) fn log_label(v: f64, range: (f64, f64)) -> String {
    let k = v.round();
    let value = 10f64.powf(v);
    if (v - k).abs() < 1e-9 {
        if (-4.0..=6.0).contains(&k) {
            fmt_num(10f64.powf(k))
        } else {
            format!("1e{k}")
        }
    } else if range.1 - range.0 < 2.0 {
        fmt_num(value)
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
    let span = if bar.hi > bar.lo {
        bar.hi - bar.lo
    } else {
        1.0
    };
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
    for v in &bar.ticks {
        let t = (v - bar.lo) / span;
        if !(0.0..=1.0).contains(&t) {
            continue;
        }
        let y = bottom - (t * f64::from(rows)).round() as i32;
        area.draw(&PathElement::new(vec![(x1, y), (x1 + 5, y)], BLACK))?;
        let label = tick_label(*v, (bar.lo, bar.hi));
        area.draw(&Text::new(label, (x1 + 8, y - 6), style.clone()))?;
    }
    Ok(())
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
        .build_cartesian_2d(p.x.0..p.x.1, p.y.0..p.y.1)
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
            let span = if hi > lo { hi - lo } else { 1.0 };
            let rows = z.len();
            chart
                .draw_series(z.iter().enumerate().flat_map(|(r, row)| {
                    row.iter().enumerate().map(move |(c, v)| {
                        // Row 0 at the top, as a matrix is written.
                        let y0 = (rows - 1 - r) as f64;
                        Rectangle::new(
                            [(c as f64, y0), (c as f64 + 1.0, y0 + 1.0)],
                            viridis((v - lo) / span).filled(),
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
/// its ticks.
pub(super) fn tick_label(v: f64, range: (f64, f64)) -> String {
    let span = (range.1 - range.0).abs();
    fmt_num(if v.abs() < 1e-9 * span { 0.0 } else { v })
}

/// A number for a description or a label, with four significant decimals or in scientific notation outside
/// 1e-4..1e6.
pub(super) fn fmt_num(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e6).contains(&v.abs()) {
        let r = format!("{v:.3e}");
        // 2.500e7 → 2.5e7
        return match r.split_once('e') {
            Some((m, e)) => format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.')),
            None => r,
        };
    }
    let r = format!("{v:.4}");
    let r = r.trim_end_matches('0').trim_end_matches('.');
    if r == "-0" {
        "0".into()
    } else {
        r.into()
    }
}
