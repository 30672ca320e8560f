//! Reading and writing image files: the size is read from the header and checked before a pixel is decoded, the
//! decoder runs under allocation limits, and encoding uses fixed settings so the same image gives the same bytes.

use beaker_core::ToolError;
use image::{DynamicImage, ImageFormat, ImageReader};
use std::io::Cursor;

/// The formats edit_image reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// PNG (lossless).
    Png,
    /// JPEG (lossy; no alpha).
    Jpeg,
    /// WebP (written lossless).
    Webp,
    /// GIF (256 colours; the first frame is read).
    Gif,
}

impl Format {
    /// Its name in results and params.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Webp => "webp",
            Format::Gif => "gif",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Jpeg => "jpg",
            f => f.name(),
        }
    }

    /// The format a file name's extension names, if one of ours.
    pub fn from_path(path: &str) -> Option<Format> {
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(Format::Png),
            "jpg" | "jpeg" => Some(Format::Jpeg),
            "webp" => Some(Format::Webp),
            "gif" => Some(Format::Gif),
            _ => None,
        }
    }

    fn of(f: ImageFormat) -> Option<Format> {
        match f {
            ImageFormat::Png => Some(Format::Png),
            ImageFormat::Jpeg => Some(Format::Jpeg),
            ImageFormat::WebP => Some(Format::Webp),
            ImageFormat::Gif => Some(Format::Gif),
            _ => None,
        }
    }
}

/// The most pixels an image read or made may have (a 8192 × 8192 image), so a decompression bomb (a tiny file
/// that claims a huge image) is refused from its header.
pub const MAX_PIXELS: u64 = 8192 * 8192;

/// The longest side an image read or made may have.
pub const MAX_SIDE: u32 = 16_384;

/// The most a decoder may allocate (an 8192 × 8192 RGBA image and its working buffers).
const MAX_ALLOC: u64 = 512 << 20;

fn limits() -> image::Limits {
    let mut l = image::Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_ALLOC);
    l
}

/// Refuses a size past [`MAX_SIDE`] or [`MAX_PIXELS`] (for images read and images to be made alike).
pub fn check_size(what: &str, width: u32, height: u32) -> Result<(), ToolError> {
    if width == 0 || height == 0 {
        return Err(ToolError::invalid_params(format!(
            "{what} would be {width}x{height}: an image needs at least one pixel each way"
        )));
    }
    if width > MAX_SIDE || height > MAX_SIDE || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ToolError::limit(format!(
            "{what} is {width}x{height} pixels; the limit is {MAX_PIXELS} pixels ({}x{}) and {MAX_SIDE} a side",
            8192, 8192
        )));
    }
    Ok(())
}

/// Decodes `bytes` (PNG, JPEG, WebP or GIF, told by their content), checking the size in the header first.
pub fn decode(bytes: &[u8], name: &str) -> Result<(DynamicImage, Format), ToolError> {
    let unreadable = |e: &dyn std::fmt::Display| {
        ToolError::invalid_params(format!("{name} is not an image edit_image can read: {e}"))
    };
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| unreadable(&e))?;
    let format = reader
        .format()
        .and_then(Format::of)
        .ok_or_else(|| unreadable(&"not PNG, JPEG, WebP or GIF"))?;
    let (w, h) = reader.into_dimensions().map_err(|e| unreadable(&e))?;
    check_size(name, w, h)?;
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format_of(format));
    reader.limits(limits());
    let img = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(l) => ToolError::limit(format!("{name}: {l}")),
        e => unreadable(&e),
    })?;
    Ok((img, format))
}

fn format_of(f: Format) -> ImageFormat {
    match f {
        Format::Png => ImageFormat::Png,
        Format::Jpeg => ImageFormat::Jpeg,
        Format::Webp => ImageFormat::WebP,
        Format::Gif => ImageFormat::Gif,
    }
}

/// Encodes `img` as `format` (`quality` for JPEG, 1–100). JPEG has no alpha: a transparent image is laid on white.
pub fn encode(img: &DynamicImage, format: Format, quality: u8) -> Result<Vec<u8>, ToolError> {
    let mut out = Vec::new();
    let failed = |e: image::ImageError| {
        ToolError::new(
            beaker_core::ErrorKind::ToolError,
            format!("encoding {}: {e}", format.name()),
        )
    };
    match format {
        Format::Png => img
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .map_err(failed)?,
        Format::Jpeg => {
            let rgb = flatten_on_white(img);
            let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality);
            rgb.write_with_encoder(enc).map_err(failed)?;
        }
        Format::Webp => {
            let enc = image::codecs::webp::WebPEncoder::new_lossless(&mut out);
            let img = match img {
                DynamicImage::ImageRgb8(_) | DynamicImage::ImageRgba8(_) => img.clone(),
                i if i.color().has_alpha() => DynamicImage::ImageRgba8(i.to_rgba8()),
                i => DynamicImage::ImageRgb8(i.to_rgb8()),
            };
            img.write_with_encoder(enc).map_err(failed)?;
        }
        Format::Gif => {
            let mut enc = image::codecs::gif::GifEncoder::new(&mut out);
            let frame = image::Frame::new(img.to_rgba8());
            enc.encode_frame(frame).map_err(failed)?;
        }
    }
    Ok(out)
}

/// An image without alpha, transparent parts laid on white (what JPEG can hold).
pub fn flatten_on_white(img: &DynamicImage) -> DynamicImage {
    if !img.color().has_alpha() {
        return match img {
            DynamicImage::ImageLuma8(_) | DynamicImage::ImageRgb8(_) => img.clone(),
            i => DynamicImage::ImageRgb8(i.to_rgb8()),
        };
    }
    let rgba = img.to_rgba8();
    let mut rgb = image::RgbImage::new(rgba.width(), rgba.height());
    for (o, p) in rgb.pixels_mut().zip(rgba.pixels()) {
        let a = u32::from(p[3]);
        for c in 0..3 {
            o[c] = ((u32::from(p[c]) * a + 255 * (255 - a) + 127) / 255) as u8;
        }
    }
    DynamicImage::ImageRgb8(rgb)
}
