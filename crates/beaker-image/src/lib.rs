//! Seed 001's image tools on the call's [`Workspace`](beaker_core::Workspace): `edit_image`, natively, and
//! `generate_image` / `generate_gif`, through a configured provider that speaks the OpenAI Images API (Beaker
//! holds no image model and never fakes one).

pub mod codec;
mod generate;
mod ops;
mod spec;
#[cfg(test)]
mod tests;

pub use generate::{GenerateGif, GenerateImage, Provider, ProviderConfig};

use base64::Engine as _;
use beaker_core::{CallContext, Tool, ToolError, ToolSpec, Workspace};
use codec::Format;
use image::{DynamicImage, GenericImageView};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// DejaVu Sans (Bitstream Vera licence, `crates/beaker-plotter/assets/DejaVuSans-LICENSE.txt`), for `annotate`.
pub(crate) const FONT: &[u8] = include_bytes!("../../beaker-plotter/assets/DejaVuSans.ttf");

/// Every tool of the family; `provider` answers `generate_image` and `generate_gif` (without one they say
/// which setting to give).
pub fn tools(provider: Option<Arc<Provider>>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(EditImage(spec::edit_image())),
        Arc::new(GenerateImage::new(provider.clone())),
        Arc::new(GenerateGif::new(provider)),
    ]
}

/// `edit_image`: one edit of a workspace image (or an inline one).
pub struct EditImage(ToolSpec);

/// The edits `edit_type` names.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Edit {
    Resize,
    Crop,
    Rotate,
    Flip,
    Grayscale,
    Blur,
    Sharpen,
    Brightness,
    Contrast,
    Convert,
    Thumbnail,
    Annotate,
}

impl Edit {
    fn name(self) -> &'static str {
        match self {
            Edit::Resize => "resize",
            Edit::Crop => "crop",
            Edit::Rotate => "rotate",
            Edit::Flip => "flip",
            Edit::Grayscale => "grayscale",
            Edit::Blur => "blur",
            Edit::Sharpen => "sharpen",
            Edit::Brightness => "brightness",
            Edit::Contrast => "contrast",
            Edit::Convert => "convert",
            Edit::Thumbnail => "thumbnail",
            Edit::Annotate => "annotate",
        }
    }

    /// The past tense seed 001's messages use ("Image resized successfully").
    fn done(self) -> &'static str {
        match self {
            Edit::Resize => "resized",
            Edit::Crop => "cropped",
            Edit::Rotate => "rotated",
            Edit::Flip => "flipped",
            Edit::Grayscale => "converted to grayscale",
            Edit::Blur => "blurred",
            Edit::Sharpen => "sharpened",
            Edit::Brightness => "brightened",
            Edit::Contrast => "contrast-adjusted",
            Edit::Convert => "converted",
            Edit::Thumbnail => "thumbnailed",
            Edit::Annotate => "annotated",
        }
    }
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Direction {
    Horizontal,
    Vertical,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditParams {
    #[serde(default)]
    image_path: Option<String>,
    #[serde(default)]
    image: Option<String>,
    edit_type: Edit,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    height: Option<u32>,
    #[serde(default)]
    keep_aspect_ratio: bool,
    #[serde(default)]
    x: Option<i64>,
    #[serde(default)]
    y: Option<i64>,
    #[serde(default)]
    angle: Option<f64>,
    #[serde(default)]
    direction: Option<Direction>,
    #[serde(default)]
    radius: Option<f32>,
    #[serde(default)]
    factor: Option<f32>,
    #[serde(default)]
    format: Option<Format>,
    #[serde(default)]
    quality: Option<u8>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    font_size: Option<f32>,
    #[serde(default)]
    color: Option<String>,
    #[serde(default)]
    output_path: Option<String>,
    #[serde(default)]
    return_image: Option<bool>,
}

/// A param an edit needs, or the error naming it.
fn need<T>(v: Option<T>, name: &str, edit: Edit) -> Result<T, ToolError> {
    v.ok_or_else(|| ToolError::invalid_params(format!("`{}` needs `{name}`", edit.name())))
}

/// `#RRGGBB`, `#RRGGBBAA` or a few colour names.
fn color(s: &str) -> Result<[u8; 4], ToolError> {
    let named = match s.to_ascii_lowercase().as_str() {
        "black" => Some([0, 0, 0, 255]),
        "white" => Some([255, 255, 255, 255]),
        "red" => Some([255, 0, 0, 255]),
        "green" => Some([0, 128, 0, 255]),
        "blue" => Some([0, 0, 255, 255]),
        "yellow" => Some([255, 255, 0, 255]),
        _ => None,
    };
    if let Some(c) = named {
        return Ok(c);
    }
    let hex = s.strip_prefix('#').unwrap_or("");
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("x"), 16).ok();
    match hex.len() {
        6 | 8 => {
            let a = if hex.len() == 8 { byte(6) } else { Some(255) };
            if let (Some(r), Some(g), Some(b), Some(a)) = (byte(0), byte(2), byte(4), a) {
                return Ok([r, g, b, a]);
            }
        }
        _ => {}
    }
    Err(ToolError::invalid_params(format!(
        "`color` {s:?} is not a colour: give #RRGGBB, #RRGGBBAA or black, white, red, green, blue, yellow"
    )))
}

/// An image read from the workspace or from inline base64: its pixels, its format and where it came from.
struct Source {
    img: DynamicImage,
    format: Format,
    path: Option<String>,
}

fn read_source(
    ws: &Workspace,
    path: Option<&str>,
    inline: Option<&str>,
    ctx: &CallContext,
) -> Result<Source, ToolError> {
    match (path, inline) {
        (Some(_), Some(_)) => Err(ToolError::invalid_params(
            "give the image once: `image_path` (a workspace file) or `image` (base64), not both",
        )),
        (None, None) => Err(ToolError::invalid_params(
            "give the image: `image_path` (a workspace file, such as outputs/sunset.png) or `image` (base64)",
        )),
        (Some(p), None) => {
            let p = ws.normalize(p, false)?;
            let bytes = ws.read(&p)?;
            let (img, format) = codec::decode(&bytes, &p)?;
            Ok(Source { img, format, path: Some(p) })
        }
        (None, Some(b64)) => {
            if b64.len() as u64 > ctx.limits.max_input_bytes {
                return Err(ToolError::limit(format!(
                    "`image` is {} bytes; the limit is {} (max_input_bytes)",
                    b64.len(),
                    ctx.limits.max_input_bytes
                )));
            }
            let bytes = inline_bytes(b64, "`image`")?;
            let (img, format) = codec::decode(&bytes, "`image`")?;
            Ok(Source { img, format, path: None })
        }
    }
}

/// The format an output path's extension names; refused when it names one edit_image does not write
/// (`x.bmp`), so no file is written under a name that says another format than its bytes.
pub(crate) fn output_format(path: &str) -> Result<Option<Format>, ToolError> {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rsplit_once('.') {
        None => Ok(None),
        Some(_) => Format::from_path(file).map(Some).ok_or_else(|| {
            ToolError::invalid_params(format!(
                "`output_path` {path} names a format that is not written here: end it in .png, .jpg, .jpeg, .webp or .gif"
            ))
        }),
    }
}

/// An inline image's bytes: base64 with or without padding, and with or without a `data:image/...;base64,` prefix
/// (as models often write it).
pub(crate) fn inline_bytes(b64: &str, what: &str) -> Result<Vec<u8>, ToolError> {
    use base64::engine::{
        general_purpose, DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig,
    };
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let _ = general_purpose::STANDARD;
    let body = b64.trim();
    let body = match body.strip_prefix("data:") {
        Some(rest) => rest.split_once(";base64,").map_or(body, |(_, data)| data),
        None => body,
    };
    LENIENT
        .decode(body)
        .map_err(|e| ToolError::invalid_params(format!("{what} is not valid base64: {e}")))
}

/// Where an edit of `path` is saved when no `output_path` is given: beside it, `NAME_EDIT.EXT`.
fn default_output(path: &str, edit: Edit, format: Format) -> String {
    let (dir, file) = match path.rsplit_once('/') {
        Some((d, f)) => (format!("{d}/"), f),
        None => (String::new(), path),
    };
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    format!("{dir}{stem}_{}.{}", edit.name(), format.extension())
}

/// Saves (or returns) an image a tool made: into the workspace at `output_path` and/or inline, with its figures.
pub(crate) struct Made<'a> {
    pub(crate) bytes: Vec<u8>,
    pub(crate) format: Format,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) output_path: Option<String>,
    pub(crate) inline: bool,
    pub(crate) message: String,
    pub(crate) ws: &'a Workspace,
}

impl Made<'_> {
    pub(crate) fn answer(
        self,
        ctx: &CallContext,
    ) -> Result<serde_json::Map<String, Value>, ToolError> {
        let mut out = serde_json::Map::new();
        out.insert("result".into(), json!(self.message));
        if let Some(p) = &self.output_path {
            self.ws.write(p, &self.bytes, false)?;
            out.insert("output_path".into(), json!(p));
        }
        out.insert("width".into(), json!(self.width));
        out.insert("height".into(), json!(self.height));
        out.insert("format".into(), json!(self.format.name()));
        out.insert("bytes".into(), json!(self.bytes.len()));
        if self.inline {
            let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bytes);
            if b64.len() as u64 + 1024 > ctx.limits.max_output_bytes {
                return Err(ToolError::limit(format!(
                    "the image is {} bytes as base64, past the result's limit of {} (max_output_bytes); save it with `output_path` and leave `return_image` out",
                    b64.len(),
                    ctx.limits.max_output_bytes
                )));
            }
            out.insert("image_base64".into(), json!(b64));
        }
        Ok(out)
    }
}

impl Tool for EditImage {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: EditParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let output_path = p
            .output_path
            .as_deref()
            .map(|o| ws.normalize(o, false))
            .transpose()?;
        // The output path's format, checked before any work: asked for, else this, else the source's.
        let path_format = match &output_path {
            Some(o) => output_format(o)?,
            None => None,
        };
        if let (Some(g), Some(f)) = (path_format, p.format) {
            if g != f {
                return Err(ToolError::invalid_params(format!(
                    "`output_path` {} names another format than `format` {}",
                    output_path.as_deref().unwrap_or(""),
                    f.name()
                )));
            }
        }
        let src = read_source(ws, p.image_path.as_deref(), p.image.as_deref(), ctx)?;
        let (w, h) = src.img.dimensions();
        let e = p.edit_type;
        let img = &src.img;
        let edited = match e {
            Edit::Resize => {
                let (tw, th) = match (p.width, p.height) {
                    (Some(tw), Some(th)) if p.keep_aspect_ratio => {
                        codec::check_size("the resized image", tw, th)?;
                        ops::contain_size(w, h, tw, th)
                    }
                    (Some(tw), Some(th)) => (tw, th),
                    (Some(tw), None) => (
                        tw,
                        ((f64::from(h) * f64::from(tw) / f64::from(w)).round_ties_even() as u32)
                            .max(1),
                    ),
                    (None, Some(th)) => (
                        ((f64::from(w) * f64::from(th) / f64::from(h)).round_ties_even() as u32)
                            .max(1),
                        th,
                    ),
                    (None, None) => {
                        return Err(ToolError::invalid_params(
                            "`resize` needs `width`, `height` or both",
                        ))
                    }
                };
                codec::check_size("the resized image", tw, th)?;
                ops::resize(img, tw, th)
            }
            Edit::Thumbnail => {
                let (tw, th) = (p.width.unwrap_or(u32::MAX), p.height.unwrap_or(u32::MAX));
                if p.width.is_none() && p.height.is_none() {
                    return Err(ToolError::invalid_params(
                        "`thumbnail` needs `width`, `height` or both (the box it must fit in)",
                    ));
                }
                let (tw, th) = ops::thumbnail_size(w, h, tw.max(1), th.max(1));
                if (tw, th) == (w, h) {
                    img.clone()
                } else {
                    ops::resize(img, tw, th)
                }
            }
            Edit::Crop => {
                let (x, y) = (p.x.unwrap_or(0), p.y.unwrap_or(0));
                let cw = need(p.width, "width", e)?;
                let ch = need(p.height, "height", e)?;
                let inside = x >= 0
                    && y >= 0
                    && x + i64::from(cw) <= i64::from(w)
                    && y + i64::from(ch) <= i64::from(h);
                if !inside || cw == 0 || ch == 0 {
                    return Err(ToolError::invalid_params(format!(
                        "the crop box {cw}x{ch} at ({x}, {y}) is not inside the {w}x{h} image"
                    )));
                }
                img.crop_imm(x as u32, y as u32, cw, ch)
            }
            Edit::Rotate => {
                let angle = need(p.angle, "angle", e)?;
                if !angle.is_finite() {
                    return Err(ToolError::invalid_params(
                        "`angle` must be a finite number of degrees",
                    ));
                }
                ops::rotate(img, angle, ctx)?
            }
            Edit::Flip => match p.direction.unwrap_or(Direction::Horizontal) {
                Direction::Horizontal => img.fliph(),
                Direction::Vertical => img.flipv(),
            },
            Edit::Grayscale => ops::grayscale(img),
            Edit::Blur => ops::blur(img, p.radius.unwrap_or(2.0), ctx)?,
            Edit::Sharpen => ops::sharpen(img, ctx)?,
            Edit::Brightness => ops::brightness(img, need(p.factor, "factor", e)?),
            Edit::Contrast => ops::contrast(img, need(p.factor, "factor", e)?),
            Edit::Convert => {
                need(p.format.or(path_format), "format", e)?;
                img.clone()
            }
            Edit::Annotate => {
                let text = need(p.text.as_deref(), "text", e)?;
                let c = color(p.color.as_deref().unwrap_or("white"))?;
                ops::annotate(
                    img,
                    text,
                    p.x.unwrap_or(10),
                    p.y.unwrap_or(10),
                    p.font_size.unwrap_or(24.0),
                    c,
                )?
            }
        };
        ctx.checkpoint()?;
        let format = p.format.or(path_format).unwrap_or(src.format);
        let bytes = codec::encode(&edited, format, p.quality.unwrap_or(90))?;
        let output_path =
            output_path.or_else(|| src.path.as_deref().map(|s| default_output(s, e, format)));
        let (ow, oh) = edited.dimensions();
        let made = Made {
            bytes,
            format,
            width: ow,
            height: oh,
            inline: p.return_image.unwrap_or(output_path.is_none()),
            output_path,
            message: format!("Image {} successfully", e.done()),
            ws,
        };
        let mut out = made.answer(ctx)?;
        out.insert("edit_type".into(), json!(e.name()));
        out.insert(
            "original".into(),
            json!({"width": w, "height": h, "format": src.format.name()}),
        );
        Ok(Value::Object(out))
    }
}
