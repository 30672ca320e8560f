//! `plotter`: deterministic plots (PNG or SVG) of functions and data, with a description in words.
//!
//! Drawn with `plotters` on an in-memory bitmap (or SVG string), text in DejaVu Sans shipped in the crate
//! (no system fonts, no fontconfig), PNG encoded with fixed settings: the same call gives the same bytes.

mod draw;
mod encode;
mod kinds;
mod params;
mod sampling;
mod spec;

use base64::Engine as _;
use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use draw::{draw, fmt_pair, fmt_pow10};

/// The largest magnitude an axis may reach: near the top of the double range (1.8e308) plotters' tick
/// arithmetic overflows and the drawing never ends.
const MAX_AXIS_MAGNITUDE: f64 = 1e307;
use encode::{encode_png, font};
use params::{color, invalid, range_of};
use plotters::prelude::*;
use sampling::{bounds, padded};
use serde_json::{json, Value};

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
        Plotter { spec: spec::spec() }
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
    colorbar: Option<kinds::ColorBar>,
}

/// The params every plot type shares, read by `beaker_core::params` (a plot type's own options, such as
/// `bins` or `levels`, are read by its builder in `kinds`).
#[derive(serde::Deserialize)]
struct Params {
    #[serde(default)]
    plot_type: Option<String>,
    #[serde(default)]
    save_as: Option<String>,
    #[serde(default)]
    options: Options,
}

/// The plot-wide `options`.
#[derive(serde::Deserialize, Default)]
struct Options {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    xlabel: Option<String>,
    #[serde(default)]
    ylabel: Option<String>,
    #[serde(default)]
    grid: Option<bool>,
    #[serde(default)]
    legend: Option<bool>,
    #[serde(default)]
    log_x: Option<bool>,
    #[serde(default)]
    log_y: Option<bool>,
    #[serde(default)]
    colors: Option<Vec<String>>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    width: Option<u64>,
    #[serde(default)]
    height: Option<u64>,
}

impl Plotter {
    fn build(
        &self,
        params: &Value,
        p: &Params,
        ctx: &CallContext,
    ) -> Result<(Plot, String), ToolError> {
        let kind = p.plot_type.as_deref().unwrap_or_default();
        let data = &params["data"];
        let opts = &params["options"];
        let o = &p.options;
        let log_x = o.log_x.unwrap_or(false);
        let log_y = o.log_y.unwrap_or(false);
        if (log_x || log_y) && !matches!(kind, "function" | "line" | "scatter") {
            return Err(invalid(format!(
                "log_x and log_y apply to function, line and scatter plots, not {kind}"
            )));
        }
        let x_opt = range_of(&opts["x_range"], "options.x_range")?;
        let y_opt = range_of(&opts["y_range"], "options.y_range")?;
        let mut colors: Vec<RGBColor> = o
            .colors
            .iter()
            .flatten()
            .map(|c| color(c).ok_or_else(|| invalid(format!("colour {c:?} is not #rrggbb"))))
            .collect::<Result<_, _>>()?;
        colors.extend(TAB10.iter().map(|&(r, g, b)| RGBColor(r, g, b)));
        let input = kinds::Input {
            kind,
            data,
            opts,
            ctx,
            log_x,
            x_opt,
            y_opt,
        };
        let built = match kind {
            "function" => kinds::function(&input),
            "line" | "scatter" => kinds::series(&input),
            "bar" => kinds::bar(&input),
            "histogram" => kinds::histogram(&input),
            "contour" | "vector_field" => kinds::field(&input),
            "heatmap" => kinds::heatmap(&input),
            other => Err(invalid(format!(
                "unknown plot_type `{other}` (one of {})",
                PLOT_TYPES.join(", ")
            ))),
        }?;
        let (body, mut desc, y_view, colorbar) =
            (built.body, built.desc, built.y_view, built.colorbar);
        let mut body = body;
        if let Body::Series(series) = &mut body {
            for s in series.iter_mut() {
                let mut out: Vec<Vec<(f64, f64)>> = Vec::new();
                let (mut points, mut dropped) = (0usize, 0usize);
                for seg in &s.segments {
                    let mut cur = Vec::new();
                    for &(px, py) in seg {
                        points += 1;
                        // Function samples are never at or below 0 on a log x axis (the range is above 0).
                        let below =
                            (log_x && kind != "function" && px <= 0.0) || (log_y && py <= 0.0);
                        dropped += usize::from(below);
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
                if dropped > 0 {
                    let what = if kind == "function" {
                        "samples"
                    } else {
                        "points"
                    };
                    let are = if dropped == 1 { "is" } else { "are" };
                    desc.push_str(&format!(
                        " On the logarithmic axis, {dropped} of the {points} {what} of `{}` {are} at or below 0 \
                         and not shown.",
                        s.label
                    ));
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
        // Axes near the top of the double range make the tick arithmetic overflow (a drawing that never ends).
        for (axis, (lo, hi), log) in [("x", x, log_x), ("y", y, log_y)] {
            let reach = lo.abs().max(hi.abs());
            // NaN too: an axis computed from data spanning more than the doubles hold.
            let drawable = reach <= MAX_AXIS_MAGNITUDE && hi - lo > 0.0;
            if !log && !drawable {
                return Err(invalid(format!(
                    "the {axis} axis would reach {}, beyond ±1e307 where drawing overflows; rescale the \
                     data (divide by a power of ten) or give options.{axis}_range",
                    draw::fmt_num(if reach.is_nan() { f64::INFINITY } else { reach })
                )));
            }
        }
        let n_series = match &body {
            Body::Series(s) => s.len(),
            _ => 0,
        };
        let plot = Plot {
            body,
            x,
            y,
            title: o.title.clone().unwrap_or_default(),
            xlabel: o.xlabel.clone().unwrap_or_default(),
            ylabel: o.ylabel.clone().unwrap_or_default(),
            grid: o.grid.unwrap_or(true),
            legend: o.legend.unwrap_or(n_series > 1),
            colors,
            log_x,
            log_y,
            colorbar,
        };
        // The ends of each axis, told apart however narrow it is; a log axis' ends may lie beyond the doubles.
        let shown = |(lo, hi): (f64, f64), log: bool| -> (String, String) {
            if !log {
                return fmt_pair(lo, hi);
            }
            let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
            if a.is_normal() && b.is_normal() {
                fmt_pair(a, b)
            } else {
                (fmt_pow10(lo), fmt_pow10(hi))
            }
        };
        let ((x0, x1), (y0, y1)) = (shown(plot.x, log_x), shown(plot.y, log_y));
        let desc = format!(
            "{desc} Axes: x from {x0} to {x1}{}, y from {y0} to {y1}{}.{}",
            if log_x { " (logarithmic)" } else { "" },
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

impl Tool for Plotter {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        font()?;
        let p: Params = beaker_core::params::parse(params)?;
        let side = |k: &str, given: Option<u64>, d: u32| -> Result<u32, ToolError> {
            match given {
                None => Ok(d),
                Some(v) if v > u64::from(MAX_SIDE) => Err(ToolError::limit(format!(
                    "options.{k} is {v} pixels; the limit is {MAX_SIDE}"
                ))),
                Some(v) => Ok(v as u32),
            }
        };
        let (w, h) = (
            side("width", p.options.width, DEFAULT_SIZE.0)?,
            side("height", p.options.height, DEFAULT_SIZE.1)?,
        );
        let (plot, description) = self.build(params, &p, ctx)?;
        ctx.checkpoint()?;
        let internal = |m: String| {
            ToolError::new(
                beaker_core::ErrorKind::Internal,
                format!("drawing failed: {m}"),
            )
        };
        // The file's bytes (for `save_as`) and the result's text (the SVG, or the PNG as base64).
        let (file, image, format) = if p.options.format.as_deref() == Some("svg") {
            let mut svg = String::new();
            draw(
                SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(),
                &plot,
            )
            .map_err(internal)?;
            (None, svg, "svg")
        } else {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(
                BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(),
                &plot,
            )
            .map_err(internal)?;
            let png = encode_png(&rgb, w, h).map_err(internal)?;
            let text = base64::engine::general_purpose::STANDARD.encode(&png);
            (Some(png), text, "png")
        };
        let bytes = image.len() as u64;
        if bytes > ctx.limits.max_output_bytes {
            return Err(ToolError::limit(format!(
                "the image is {bytes} bytes; the limit is {} (max_output_bytes)",
                ctx.limits.max_output_bytes
            )));
        }
        let mut saved = None;
        if let Some(path) = &p.save_as {
            // Into the call's workspace (its trajectory's files), as the file a model can then name.
            let ws = ctx.workspace();
            let path = ws.normalize(path, false)?;
            let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
            if ext.as_deref() != Some(format) {
                return Err(ToolError::invalid_params(format!(
                    "`save_as` {path} must end in .{format}, the plot's format (options.format)"
                )));
            }
            ws.write(&path, file.as_deref().unwrap_or(image.as_bytes()), false)?;
            saved = Some(path);
        }
        let mut out = json!({"image": image, "format": format, "width": w, "height": h, "description": description});
        if let Some(path) = saved {
            out["output_path"] = json!(path);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
