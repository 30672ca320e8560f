//! The font every plot uses (DejaVu Sans, shipped in the crate) and the PNG encoder with fixed settings.

use beaker_core::ToolError;
use plotters::style::FontStyle;
use std::sync::OnceLock;

/// The font family every text of a plot names: DejaVu Sans (the font the PNG is drawn with), then fallbacks
/// with the same metrics class, so an SVG viewer without DejaVu lays the text out alike instead of taking its
/// own default sans-serif. Registered under this exact string, so PNG and SVG name the same family.
pub(super) const FONT: &str = "DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif";

pub(super) fn font() -> Result<(), ToolError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            include_bytes!("../assets/DejaVuSans.ttf"),
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

/// RGB pixels to a PNG with fixed settings, so the bytes depend only on the pixels.
pub(super) fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
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
