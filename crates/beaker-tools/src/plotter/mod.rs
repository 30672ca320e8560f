//! `plotter`: deterministic plots (PNG or SVG) of functions and data, with a description in words.
//!
//! Drawn with `plotters` on an in-memory bitmap (or SVG string), text in DejaVu Sans shipped in the crate
//! (no system fonts, no fontconfig), PNG encoded with fixed settings: the same call gives the same bytes.

use base64::Engine as _;
use beaker_core::{CallContext, Example, Tool, ToolError, ToolSpec};
use beaker_expr::{parse, CompiledF64, ParseLimits};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// Default image size: matplotlib's default figure (6.4 × 4.8 in) at 125 dpi.
pub const DEFAULT_SIZE: (u32, u32) = (800, 600);
/// Largest width or height in pixels.
pub const MAX_SIDE: u32 = 4096;
/// Most points in one data series, and most samples of one function.
pub const MAX_POINTS: usize = 100_000;
/// Most series (functions or data series) in one plot.
pub const MAX_SERIES: usize = 16;
/// Most heatmap cells.
pub const MAX_CELLS: usize = 250_000;
/// Uniform samples of a function before refinement.
const BASE_SAMPLES: usize = 801;
/// Bisection depth where a function changes fast.
const REFINE_DEPTH: u32 = 6;

/// matplotlib's default colour cycle (tab10), so plots look as people expect.
const TAB10: [(u8, u8, u8); 10] = [
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x2c, 0xa0, 0x2c),
    (0xd6, 0x27, 0x28),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x7f, 0x7f, 0x7f),
    (0xbc, 0xbd, 0x22),
    (0x17, 0xbe, 0xcf),
];

const PLOT_TYPES: [&str; 8] = [
    "function",
    "line",
    "scatter",
    "bar",
    "histogram",
    "contour",
    "vector_field",
    "heatmap",
];
/// Grid of a contour plot (samples per side).
const CONTOUR_GRID: usize = 121;
/// Arrows per side of a vector field.
const ARROWS: usize = 21;
/// Most contour levels.
pub const MAX_LEVELS: usize = 100;

fn font() -> Result<(), ToolError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../../assets/DejaVuSans.ttf"),
        )
        .is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(ToolError::new(
            beaker_core::ErrorKind::Internal,
            "the plot font could not be loaded",
        ))
    }
}

/// The `plotter` tool.
pub struct Plotter {
    spec: ToolSpec,
}

impl Default for Plotter {
    fn default() -> Self {
        Self::new()
    }
}

impl Plotter {
    /// The tool with its spec.
    pub fn new() -> Self {
        let nums = json!({"type": "array", "items": {"type": "number"}});
        let range =
            json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2});
        let spec = ToolSpec {
            name: "plotter".into(),
            description: "Plot functions and data as a PNG (base64) or SVG image, with a description in words of what \
                was drawn. plot_type: function (data.functions: expressions in x, data.x_range), line and scatter \
                (data.x, data.y or data.series: [{x, y, label}]), bar (data.labels, data.values), histogram \
                (data.values, options.bins), contour (data.function of x and y, data.x_range, data.y_range, options.levels), \
                vector_field (data.u, data.v: expressions in x and y), heatmap (data.z: rows of numbers). Options: \
                title, xlabel, ylabel, grid, legend, x_range, y_range, log_x, log_y, width, height, colors, format \
                (png or svg)."
                .into(),
            params_schema: json!({
                "type": "object",
                "properties": {
                    "plot_type": {"type": "string", "enum": PLOT_TYPES, "description": "What to draw."},
                    "data": {
                        "type": "object",
                        "description": "The functions or data (keys depend on plot_type).",
                        "properties": {
                            "functions": {"type": "array", "items": {"type": "string"}, "description": "function: expressions in x, e.g. [\"sin(x)\", \"x**2\"]."},
                            "function": {"type": "string", "description": "function: one expression in x."},
                            "x_range": range.clone(),
                            "y_range": range.clone(),
                            "u": {"type": "string", "description": "vector_field: x component, an expression in x and y."},
                            "v": {"type": "string", "description": "vector_field: y component, an expression in x and y."},
                            "x": nums.clone(),
                            "y": nums.clone(),
                            "series": {"type": "array", "items": {"type": "object", "properties": {"x": nums.clone(), "y": nums.clone(), "label": {"type": "string"}}, "required": ["y"], "additionalProperties": false}},
                            "labels": {"type": "array", "items": {"type": "string"}},
                            "values": nums.clone(),
                            "z": {"type": "array", "items": nums.clone()}
                        },
                        "additionalProperties": false
                    },
                    "options": {
                        "type": "object",
                        "properties": {
                            "title": {"type": "string"},
                            "xlabel": {"type": "string"},
                            "ylabel": {"type": "string"},
                            "grid": {"type": "boolean", "description": "Draw grid lines (default true)."},
                            "legend": {"type": "boolean", "description": "Draw a legend (default: when there are several series)."},
                            "x_range": range.clone(),
                            "y_range": range,
                            "width": {"type": "integer", "minimum": 64, "description": "Pixels (default 800)."},
                            "height": {"type": "integer", "minimum": 64, "description": "Pixels (default 600)."},
                            "colors": {"type": "array", "items": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}, "description": "Series colours as #rrggbb (default: matplotlib's tab10)."},
                            "bins": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "histogram: number of bins (default 10, as matplotlib)."},
                            "levels": {"description": "contour: how many levels (default 10) or their values.", "anyOf": [{"type": "integer", "minimum": 1}, {"type": "array", "items": {"type": "number"}}]},
                            "log_x": {"type": "boolean", "description": "Logarithmic x axis (function, line, scatter)."},
                            "log_y": {"type": "boolean", "description": "Logarithmic y axis (function, line, scatter)."},
                            "format": {"type": "string", "enum": ["png", "svg"], "description": "png (default, base64) or svg (text)."}
                        },
                        "additionalProperties": false
                    }
                },
                "required": ["plot_type", "data"],
                "additionalProperties": false
            }),
            result_schema: json!({
                "type": "object",
                "properties": {
                    "image": {"type": "string", "description": "The PNG, base64-encoded; or the SVG document."},
                    "format": {"type": "string", "description": "png or svg."},
                    "width": {"type": "integer"},
                    "height": {"type": "integer"},
                    "description": {"type": "string", "description": "What was drawn, in words: series, ranges, points."},
                    "output_path": {"type": "string", "description": "Where the image was also written, when the server has an output directory."}
                },
                "required": ["image", "format", "width", "height", "description"],
                "additionalProperties": false
            }),
            examples: vec![Example {
                params: json!({"plot_type": "function", "data": {"functions": ["sin(x)", "cos(x)"], "x_range": [0, std::f64::consts::TAU]}, "options": {"title": "sin and cos", "width": 400, "height": 300}}),
                result: json!({"format": "png", "width": 400, "height": 300, "description": "Function plot for x in [0, 6.2832]: y = sin(x): 801 samples, y from -1 to 1; y = cos(x): 801 samples, y from -1 to 1. Axes: x from -0.3142 to 6.5973, y from -1.1 to 1.1. Title: sin and cos."}),
                elided: vec!["image".into()],
            }],
            notes: include_str!("plotter.md").into(),
        };
        Plotter { spec }
    }
}

struct Series {
    label: String,
    /// Connected runs of points (a function breaks at poles and where it is undefined).
    segments: Vec<Vec<(f64, f64)>>,
    points: bool,
}

enum Body {
    Series(Vec<Series>),
    /// Rectangles `(x0, x1, height)` with category labels on the x axis when given.
    Bars {
        rects: Vec<(f64, f64, f64)>,
        labels: Vec<String>,
    },
    Heat {
        z: Vec<Vec<f64>>,
        lo: f64,
        hi: f64,
    },
    /// Polylines coloured by a value in [0, 1] (contour levels, arrows).
    Lines(Vec<(f64, Vec<(f64, f64)>)>),
}

struct Plot {
    body: Body,
    x: (f64, f64),
    y: (f64, f64),
    title: String,
    xlabel: String,
    ylabel: String,
    grid: bool,
    legend: bool,
    colors: Vec<RGBColor>,
    log_x: bool,
    log_y: bool,
}

fn invalid(m: impl Into<String>) -> ToolError {
    ToolError::invalid_params(m)
}

fn numbers(v: &Value, what: &str) -> Result<Vec<f64>, ToolError> {
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

fn range_of(v: &Value, what: &str) -> Result<Option<(f64, f64)>, ToolError> {
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

fn color(s: &str) -> Option<RGBColor> {
    let h = s.strip_prefix('#')?;
    let p = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    Some(RGBColor(p(0)?, p(2)?, p(4)?))
}

/// Bounds of finite values, padded 5% (matplotlib's margins); a flat range is widened to ±1.
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-300 {
        return (lo - 1.0, hi + 1.0);
    }
    let m = (hi - lo) * 0.05;
    (lo - m, hi + m)
}

/// Samples `f` on `[a, b]`: uniform, then bisected where it changes fast; broken where it is not finite
/// or jumps (a pole or a discontinuity: the midpoint does not lie between its neighbours).
fn sample(
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
                let mid = eval((px + x) / 2.0);
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

fn refine(
    eval: &impl Fn(f64) -> f64,
    l: (f64, f64),
    r: (f64, f64),
    scale: f64,
    depth: u32,
    out: &mut Vec<(f64, f64)>,
) {
    let steep = !(l.1.is_finite() && r.1.is_finite()) || (r.1 - l.1).abs() > 0.02 * scale;
    if depth > 0 && steep && out.len() < MAX_POINTS {
        let mx = (l.0 + r.0) / 2.0;
        let m = (mx, eval(mx));
        refine(eval, l, m, scale, depth - 1, out);
        refine(eval, m, r, scale, depth - 1, out);
    } else {
        out.push(r);
    }
}

/// The smallest and largest of `values` (`(inf, -inf)` when there are none).
fn extent(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values
        .into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        })
}

fn bounds(series: &[Series]) -> ((f64, f64), (f64, f64)) {
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

fn fmt_num(v: f64) -> String {
    // Ticks computed in floating point land next to 0 (-2.22e-16): that is 0.
    let v = if v.abs() < 1e-12 { 0.0 } else { v };
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

impl Plotter {
    fn build(&self, params: &Value, ctx: &CallContext) -> Result<(Plot, String), ToolError> {
        let kind = params["plot_type"].as_str().unwrap_or_default();
        let data = &params["data"];
        let opts = &params["options"];
        let log_x = opts["log_x"].as_bool().unwrap_or(false);
        let log_y = opts["log_y"].as_bool().unwrap_or(false);
        if (log_x || log_y) && !matches!(kind, "function" | "line" | "scatter") {
            return Err(invalid(format!(
                "log_x and log_y apply to function, line and scatter plots, not {kind}"
            )));
        }
        let x_opt = range_of(&opts["x_range"], "options.x_range")?;
        let y_opt = range_of(&opts["y_range"], "options.y_range")?;
        let mut colors: Vec<RGBColor> = match opts["colors"].as_array() {
            Some(cs) => cs
                .iter()
                .map(|c| {
                    c.as_str()
                        .and_then(color)
                        .ok_or_else(|| invalid(format!("colour {c} is not #rrggbb")))
                })
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        colors.extend(TAB10.iter().map(|&(r, g, b)| RGBColor(r, g, b)));
        // For functions: the y range worth showing (poles and blow-ups left out), when no y_range is given.
        let mut y_view: Option<(f64, f64)> = None;
        let (body, desc) = match kind {
            "function" => {
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
                    words.push(format!(
                        "y = {e}: {n} samples, y from {} to {}{gaps}{undefined}",
                        fmt_num(lo),
                        fmt_num(hi)
                    ));
                    series.push(Series {
                        label: e.clone(),
                        segments,
                        points: false,
                    });
                }
                let desc = format!(
                    "Function plot for x in [{}, {}]: {}.",
                    fmt_num(a),
                    fmt_num(b),
                    words.join("; ")
                );
                (Body::Series(series), desc)
            }
            "line" | "scatter" => {
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
                    words.push(format!(
                        "{label}: {points}, x from {} to {}, y from {} to {}",
                        fmt_num(xl),
                        fmt_num(xh),
                        fmt_num(lo),
                        fmt_num(hi)
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
                (Body::Series(series), desc)
            }
            "bar" => {
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
                (Body::Bars { rects, labels }, desc)
            }
            "histogram" => {
                let values = numbers(&data["values"], "data.values")?;
                if values.is_empty() {
                    return Err(invalid("histograms need `data.values`"));
                }
                let bins = opts["bins"].as_u64().unwrap_or(10) as usize;
                let (lo, hi) = x_opt.unwrap_or_else(|| {
                    let (lo, hi) = extent(values.iter().copied());
                    if hi > lo {
                        (lo, hi)
                    } else {
                        (lo - 0.5, hi + 0.5)
                    }
                });
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
                    fmt_num(lo),
                    fmt_num(hi)
                );
                (
                    Body::Bars {
                        rects,
                        labels: Vec::new(),
                    },
                    desc,
                )
            }
            "contour" | "vector_field" => {
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
                                .map(|i| lo + (hi - lo) * i as f64 / (k + 1) as f64)
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
                    let span = if hi > lo { hi - lo } else { 1.0 };
                    let mut lines = Vec::new();
                    for l in &found {
                        let t = (l.threshold() - lo) / span;
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
                                    run.push((
                                        xa + (c.x - 0.5) * step.0,
                                        ya + (c.y - 0.5) * step.1,
                                    ));
                                }
                            }
                            if run.len() > 1 {
                                lines.push((t, run));
                            }
                        }
                    }
                    let shown: Vec<String> = levels.iter().take(12).map(|l| fmt_num(*l)).collect();
                    let desc = format!(
                        "Contour plot of f(x, y) = {src} for x in [{}, {}], y in [{}, {}]: values from {} to {}, {} levels ({}), {} lines, coloured dark purple (low) to yellow (high).",
                        fmt_num(xa), fmt_num(xb), fmt_num(ya), fmt_num(yb), fmt_num(lo), fmt_num(hi), levels.len(), shown.join(", "), lines.len()
                    );
                    (Body::Lines(lines), desc)
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
                    // Arrow lengths in cell units, so arrows look right whatever the axes' scales.
                    let norm =
                        |a: f64, b: f64| ((a / cell.0).powi(2) + (b / cell.1).powi(2)).sqrt();
                    let longest = field.iter().map(|f| norm(f.2, f.3)).fold(0.0, f64::max);
                    if field.is_empty() {
                        return Err(ToolError::domain(
                            "the vector field is undefined everywhere on the grid",
                        ));
                    }
                    let scale = if longest > 0.0 { 0.9 / longest } else { 0.0 };
                    let mut lines = Vec::new();
                    let (mut mlo, mut mhi) = (f64::INFINITY, 0.0f64);
                    for (_, _, a, b) in &field {
                        let m = (a * a + b * b).sqrt();
                        mlo = mlo.min(m);
                        mhi = mhi.max(m);
                    }
                    for (x, y, a, b) in field {
                        let (dx, dy) = (a * scale, b * scale);
                        let (x0, y0) = (x - dx / 2.0, y - dy / 2.0);
                        let (x1, y1) = (x + dx / 2.0, y + dy / 2.0);
                        let t = if mhi > mlo {
                            ((a * a + b * b).sqrt() - mlo) / (mhi - mlo)
                        } else {
                            0.5
                        };
                        // Arrowhead: two strokes at ±25° from the shaft, a third of its length, in cell units.
                        let (ux, uy) = (-dx / cell.0, -dy / cell.1);
                        let len = (ux * ux + uy * uy).sqrt();
                        let mut pts = vec![(x0, y0), (x1, y1)];
                        if len > 1e-9 {
                            let head = 0.3 * len;
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
                    let desc = format!(
                        "Vector field (u, v) = ({su}, {sv}) on a {n}×{n} grid over x in [{}, {}], y in [{}, {}]: magnitudes from {} to {}, arrows scaled to the longest and coloured dark purple (weak) to yellow (strong).",
                        fmt_num(xa), fmt_num(xb), fmt_num(ya), fmt_num(yb), fmt_num(mlo), fmt_num(mhi)
                    );
                    (Body::Lines(lines), desc)
                }
            }
            "heatmap" => {
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
                    fmt_num(lo),
                    fmt_num(hi)
                );
                (Body::Heat { z, lo, hi }, desc)
            }
            other => {
                return Err(invalid(format!(
                    "unknown plot_type `{other}` (one of {})",
                    PLOT_TYPES.join(", ")
                )))
            }
        };
        let mut body = body;
        if let Body::Series(series) = &mut body {
            for s in series.iter_mut() {
                let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
                for seg in &s.segments {
                    let mut cur = Vec::new();
                    for &(px, py) in seg {
                        // Function samples are already in log10(x) when log_x is on.
                        let tx = if log_x && kind != "function" {
                            px.log10()
                        } else {
                            px
                        };
                        let ty = if log_y { py.log10() } else { py };
                        if tx.is_finite() && ty.is_finite() {
                            cur.push((tx, ty));
                        } else if !cur.is_empty() {
                            out.push(std::mem::take(&mut cur));
                        }
                    }
                    if !cur.is_empty() {
                        out.push(cur);
                    }
                }
                if out.is_empty() && (log_x || log_y) {
                    return Err(invalid(format!(
                        "series `{}` has no positive values to show on a log axis",
                        s.label
                    )));
                }
                s.segments = out;
            }
        }
        let (x, y) = match &body {
            Body::Series(s) => bounds(s),
            Body::Bars { rects, .. } => {
                let x0 = rects.first().map_or(0.0, |r| r.0);
                let x1 = rects.last().map_or(1.0, |r| r.1);
                let top = rects.iter().map(|r| r.2).fold(0.0, f64::max);
                let bottom = rects.iter().map(|r| r.2).fold(0.0, f64::min);
                let m = (x1 - x0) * 0.05;
                (
                    (x0 - m, x1 + m),
                    (bottom * 1.05, if top > 0.0 { top * 1.05 } else { 1.0 }),
                )
            }
            Body::Heat { z, .. } => ((0.0, z[0].len() as f64), (0.0, z.len() as f64)),
            Body::Lines(_) => {
                let r = |k: &str, opt: Option<(f64, f64)>| {
                    range_of(&data[k], k)
                        .ok()
                        .flatten()
                        .or(opt)
                        .unwrap_or((-5.0, 5.0))
                };
                (r("x_range", x_opt), r("y_range", y_opt))
            }
        };
        let log_range = |r: (f64, f64), what: &str| -> Result<(f64, f64), ToolError> {
            if r.0 <= 0.0 {
                return Err(invalid(format!(
                    "a logarithmic {what} axis needs a range above 0, got [{}, {}]",
                    r.0, r.1
                )));
            }
            Ok((r.0.log10(), r.1.log10()))
        };
        let x = match x_opt {
            Some(r) if log_x => log_range(r, "x")?,
            Some(r) => r,
            None => x,
        };
        let y = match (y_opt, y_view) {
            (Some(r), _) if log_y => log_range(r, "y")?,
            (Some(r), _) => r,
            // With a log y axis the samples' range was taken before the transform; fit the data instead.
            (None, Some((lo, hi))) if !log_y => padded(lo, hi),
            _ => y,
        };
        let n_series = match &body {
            Body::Series(s) => s.len(),
            _ => 0,
        };
        let plot = Plot {
            body,
            x,
            y,
            title: opts["title"].as_str().unwrap_or_default().to_string(),
            xlabel: opts["xlabel"].as_str().unwrap_or_default().to_string(),
            ylabel: opts["ylabel"].as_str().unwrap_or_default().to_string(),
            grid: opts["grid"].as_bool().unwrap_or(true),
            legend: opts["legend"].as_bool().unwrap_or(n_series > 1),
            colors,
            log_x,
            log_y,
        };
        let shown = |v: f64, log: bool| fmt_num(if log { 10f64.powf(v) } else { v });
        let desc = format!(
            "{desc} Axes: x from {} to {}{}, y from {} to {}{}.{}",
            shown(plot.x.0, log_x),
            shown(plot.x.1, log_x),
            if log_x { " (logarithmic)" } else { "" },
            shown(plot.y.0, log_y),
            shown(plot.y.1, log_y),
            if log_y { " (logarithmic)" } else { "" },
            if plot.title.is_empty() {
                String::new()
            } else {
                format!(" Title: {}.", plot.title)
            }
        );
        Ok((plot, desc))
    }
}

/// Lines cut at the plot's y edges: a run outside the range is dropped and the crossing points are
/// interpolated, so a curve leaving the plot (`tan(x)` near a pole) ends at the edge instead of being
/// clamped to it and drawn along the border.
fn clip(segments: &[Vec<(f64, f64)>], (lo, hi): (f64, f64)) -> Vec<Vec<(f64, f64)>> {
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

/// A tick on a log axis, at `v` = log10 of the value: decades as 10^k values; between decades only when
/// the axis spans less than two of them (otherwise matplotlib-like, decades only).
fn log_label(v: f64, range: (f64, f64)) -> String {
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
fn viridis(t: f64) -> RGBColor {
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

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, p: &Plot) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let mut builder = ChartBuilder::on(&root);
    builder
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64);
    if !p.title.is_empty() {
        builder.caption(&p.title, ("sans-serif", 22));
    }
    let mut chart = builder
        .build_cartesian_2d(p.x.0..p.x.1, p.y.0..p.y.1)
        .map_err(e)?;
    {
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(&p.xlabel)
            .y_desc(&p.ylabel)
            .label_style(("sans-serif", 14))
            .axis_desc_style(("sans-serif", 16));
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
            None => fmt_num(*v),
        };
        let log_y = p.log_y;
        let y_range = p.y;
        let yfmt = move |v: &f64| {
            if log_y {
                log_label(*v, y_range)
            } else {
                fmt_num(*v)
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
                    .label_font(("sans-serif", 14))
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

/// RGB pixels to a PNG with fixed settings, so the bytes depend only on the pixels.
fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Default);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    }
    Ok(out)
}

impl Tool for Plotter {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        font()?;
        let opts = &params["options"];
        let side = |k: &str, d: u32| -> Result<u32, ToolError> {
            match opts[k].as_u64() {
                None => Ok(d),
                Some(v) if v > u64::from(MAX_SIDE) => Err(ToolError::limit(format!(
                    "options.{k} is {v} pixels; the limit is {MAX_SIDE}"
                ))),
                Some(v) => Ok(v as u32),
            }
        };
        let (w, h) = (
            side("width", DEFAULT_SIZE.0)?,
            side("height", DEFAULT_SIZE.1)?,
        );
        let (plot, description) = self.build(params, ctx)?;
        ctx.checkpoint()?;
        let internal = |m: String| {
            ToolError::new(
                beaker_core::ErrorKind::Internal,
                format!("drawing failed: {m}"),
            )
        };
        let (image, format) = if opts["format"].as_str() == Some("svg") {
            let mut svg = String::new();
            draw(
                SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(),
                &plot,
            )
            .map_err(internal)?;
            (svg, "svg")
        } else {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(
                BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(),
                &plot,
            )
            .map_err(internal)?;
            let png = encode_png(&rgb, w, h).map_err(internal)?;
            (base64::engine::general_purpose::STANDARD.encode(png), "png")
        };
        let bytes = image.len() as u64;
        if bytes > ctx.limits.max_output_bytes {
            return Err(ToolError::limit(format!(
                "the image is {bytes} bytes; the limit is {} (max_output_bytes)",
                ctx.limits.max_output_bytes
            )));
        }
        Ok(
            json!({"image": image, "format": format, "width": w, "height": h, "description": description}),
        )
    }
}

#[cfg(test)]
mod tests;
