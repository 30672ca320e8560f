//! The edits, each as Pillow computes it where Pillow is the reference users know (`ImageEnhance`, `SHARPEN`,
//! `convert("L")`, `rotate(..., expand=True)`, `thumbnail`, `ImageOps.contain`); `tests/data/gen/image_reference.py`
//! holds each to Pillow's pixels within the tolerance it states.

use beaker_core::{CallContext, ToolError};
use image::imageops::FilterType;
use image::{DynamicImage, GenericImageView, Rgba, RgbaImage};

/// Python's `round` (half to even), which Pillow's size arithmetic uses.
fn round_even(x: f64) -> u32 {
    x.round_ties_even().max(0.0) as u32
}

/// The size `ImageOps.contain` gives: `w`×`h` fitted inside `width`×`height`, aspect kept.
pub fn contain_size(w: u32, h: u32, width: u32, height: u32) -> (u32, u32) {
    let (im, dest) = (
        f64::from(w) / f64::from(h),
        f64::from(width) / f64::from(height),
    );
    if im > dest {
        (
            width,
            round_even(f64::from(h) / f64::from(w) * f64::from(width)).max(1),
        )
    } else if im < dest {
        (
            round_even(f64::from(w) / f64::from(h) * f64::from(height)).max(1),
            height,
        )
    } else {
        (width, height)
    }
}

/// The size `Image.thumbnail((width, height))` gives: fitted inside, aspect kept as nearly as whole pixels
/// allow, never larger than the image.
pub fn thumbnail_size(w: u32, h: u32, width: u32, height: u32) -> (u32, u32) {
    let (mut x, mut y) = (width, height);
    if x >= w && y >= h {
        return (w, h);
    }
    let aspect = f64::from(w) / f64::from(h);
    // Pillow's round_aspect: of floor and ceil, the one whose aspect is nearer (min picks the first on a tie).
    let pick = |n: f64, key: &dyn Fn(f64) -> f64| -> u32 {
        let (lo, hi) = (n.floor(), n.ceil());
        let best = if key(hi) < key(lo) { hi } else { lo };
        (best as u32).max(1)
    };
    if f64::from(x) / f64::from(y) >= aspect {
        let yf = f64::from(y);
        x = pick(yf * aspect, &|n| (aspect - n / yf).abs());
    } else {
        let xf = f64::from(x);
        y = pick(xf / aspect, &|n| {
            if n == 0.0 {
                0.0
            } else {
                (aspect - xf / n).abs()
            }
        });
    }
    (x, y)
}

/// Resamples to `width`×`height` with a bicubic filter (Catmull-Rom, a = −0.5, as Pillow's `BICUBIC`), widened
/// when shrinking so every source pixel counts; an image with alpha in premultiplied form, as Pillow does, so
/// transparent pixels' colours do not bleed into their neighbours.
pub fn resize(img: &DynamicImage, width: u32, height: u32) -> DynamicImage {
    if !img.color().has_alpha() {
        return img.resize_exact(width, height, FilterType::CatmullRom);
    }
    let pre = DynamicImage::ImageRgba8(premultiply(&img.to_rgba8()));
    let out = pre
        .resize_exact(width, height, FilterType::CatmullRom)
        .to_rgba8();
    back(img, unpremultiply(out))
}

/// Pillow's `RGBA` to `RGBa`: each colour times alpha / 255, rounded as Pillow's MULDIV255.
fn premultiply(img: &RgbaImage) -> RgbaImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        let a = u32::from(p[3]);
        for c in 0..3 {
            let t = u32::from(p[c]) * a + 128;
            p[c] = (((t >> 8) + t) >> 8) as u8;
        }
    }
    out
}

/// Pillow's `RGBa` to `RGBA`: each colour times 255 / alpha, truncated and clipped; alpha 0 and 255 unchanged.
fn unpremultiply(mut img: RgbaImage) -> RgbaImage {
    for p in img.pixels_mut() {
        let a = u32::from(p[3]);
        if a != 0 && a != 255 {
            for c in 0..3 {
                p[c] = (255 * u32::from(p[c]) / a).min(255) as u8;
            }
        }
    }
    img
}

/// Pillow's `convert("L")`: ITU-R 601-2 luma in Pillow's fixed point (alpha kept, as `LA`).
pub fn grayscale(img: &DynamicImage) -> DynamicImage {
    let rgba = img.to_rgba8();
    let alpha = img.color().has_alpha();
    let luma = |p: &Rgba<u8>| {
        ((u32::from(p[0]) * 19595 + u32::from(p[1]) * 38470 + u32::from(p[2]) * 7471 + 0x8000)
            >> 16) as u8
    };
    if alpha {
        let mut out = image::GrayAlphaImage::new(rgba.width(), rgba.height());
        for (o, p) in out.pixels_mut().zip(rgba.pixels()) {
            *o = image::LumaA([luma(p), p[3]]);
        }
        DynamicImage::ImageLumaA8(out)
    } else {
        let mut out = image::GrayImage::new(rgba.width(), rgba.height());
        for (o, p) in out.pixels_mut().zip(rgba.pixels()) {
            *o = image::Luma([luma(p)]);
        }
        DynamicImage::ImageLuma8(out)
    }
}

/// Works on an image as 8-bit RGBA and gives it back in its own kind (grey stays grey, no alpha stays without).
fn per_pixel(img: &DynamicImage, f: impl Fn(&mut RgbaImage)) -> DynamicImage {
    let mut rgba = img.to_rgba8();
    f(&mut rgba);
    back(img, rgba)
}

fn back(like: &DynamicImage, rgba: RgbaImage) -> DynamicImage {
    let out = DynamicImage::ImageRgba8(rgba);
    match like {
        DynamicImage::ImageLuma8(_) => DynamicImage::ImageLuma8(out.to_luma8()),
        DynamicImage::ImageLumaA8(_) => DynamicImage::ImageLumaA8(out.to_luma_alpha8()),
        DynamicImage::ImageRgba8(_) => out,
        i if i.color().has_alpha() => out,
        _ => DynamicImage::ImageRgb8(out.to_rgb8()),
    }
}

/// Pillow's `Image.blend(a, b, alpha)` of one channel: single-precision, truncated, clipped when extrapolating.
fn blend(a: u8, b: u8, alpha: f32) -> u8 {
    let t = f32::from(a) + alpha * (f32::from(b) - f32::from(a));
    if t <= 0.0 {
        0
    } else if t >= 255.0 {
        255
    } else {
        t as u8
    }
}

/// `ImageEnhance.Brightness(img).enhance(factor)`: a blend with black (alpha kept).
pub fn brightness(img: &DynamicImage, factor: f32) -> DynamicImage {
    per_pixel(img, |p| {
        for px in p.pixels_mut() {
            for c in 0..3 {
                px[c] = blend(0, px[c], factor);
            }
        }
    })
}

/// `ImageEnhance.Contrast(img).enhance(factor)`: a blend with the image's mean grey (alpha kept).
pub fn contrast(img: &DynamicImage, factor: f32) -> DynamicImage {
    let grey = grayscale(img).to_luma8();
    let n = u64::from(grey.width()) * u64::from(grey.height());
    let sum: u64 = grey.pixels().map(|p| u64::from(p[0])).sum();
    // int(mean + 0.5), as Pillow rounds it.
    let mean = (sum as f64 / n as f64 + 0.5) as u8;
    per_pixel(img, |p| {
        for px in p.pixels_mut() {
            for c in 0..3 {
                px[c] = blend(mean, px[c], factor);
            }
        }
    })
}

/// Pillow's `ImageFilter.SHARPEN` (3×3, centre 32, the rest −2, over 16); the border pixels are kept as they
/// are, as Pillow keeps them.
pub fn sharpen(img: &DynamicImage, ctx: &CallContext) -> Result<DynamicImage, ToolError> {
    let src = img.to_rgba8();
    let (w, h) = src.dimensions();
    let mut out = src.clone();
    if w >= 3 && h >= 3 {
        for y in 1..h - 1 {
            ctx.checkpoint()?;
            for x in 1..w - 1 {
                // Every band, alpha too, as Pillow filters it.
                for c in 0..4 {
                    let mut s = 0i32;
                    for dy in 0..3 {
                        for dx in 0..3 {
                            let v = i32::from(src.get_pixel(x + dx - 1, y + dy - 1)[c]);
                            s += if dx == 1 && dy == 1 { 32 * v } else { -2 * v };
                        }
                    }
                    out.get_pixel_mut(x, y)[c] =
                        (f64::from(s) / 16.0).round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }
    Ok(back(img, out))
}

/// Pillow's `GaussianBlur(radius)`: a Gaussian of standard deviation `radius` approximated, as Pillow does, by
/// three box blurs each way (extended boxes of fractional radius, Gwosdek et al. 2011) in Pillow's 8-bit fixed
/// point, edges extended: the same pixels as Pillow's, not merely a Gaussian.
pub fn blur(img: &DynamicImage, radius: f32, ctx: &CallContext) -> Result<DynamicImage, ToolError> {
    const PASSES: u32 = 3;
    if radius <= 0.0 {
        return Ok(img.clone());
    }
    // _gaussian_blur_radius: the box radius whose three passes have the Gaussian's variance.
    let sigma2 = radius * radius / PASSES as f32;
    let big_l = (f64::from(12.0 * sigma2 + 1.0)).sqrt() as f32;
    let l = ((big_l - 1.0) / 2.0).floor();
    let a =
        (2.0 * l + 1.0) * (l * (l + 1.0) - 3.0 * sigma2) / (6.0 * (sigma2 - (l + 1.0) * (l + 1.0)));
    let box_radius = l + a;
    let mut rgba = img.to_rgba8();
    for _ in 0..PASSES {
        ctx.checkpoint()?;
        box_rows(&mut rgba, box_radius);
    }
    let mut t = image::imageops::rotate90(&rgba);
    // Rotating is a transpose and a flip; a box blur is symmetric, so the flip changes nothing.
    for _ in 0..PASSES {
        ctx.checkpoint()?;
        box_rows(&mut t, box_radius);
    }
    Ok(back(img, image::imageops::rotate270(&t)))
}

/// One horizontal box blur of fractional radius `r` over every row (Pillow's `ImagingHorizontalBoxBlur`): each
/// output is the clamped window's sum weighted `ww`, plus its two next pixels weighted `fw`, in 24-bit fixed point.
fn box_rows(img: &mut RgbaImage, r: f32) {
    let ri = r as i64;
    let ww = ((1u32 << 24) as f32 / (r * 2.0 + 1.0)) as u32;
    let fw = ((1u32 << 24) - (ri as u32 * 2 + 1) * ww) / 2;
    let w = img.width() as usize;
    let last = w as i64 - 1;
    let mut line = vec![0u8; w * 4];
    let at = |i: i64| i.clamp(0, last) as usize * 4;
    for row in img.chunks_exact_mut(w * 4) {
        line.copy_from_slice(row);
        // The window [x - r, x + r] of each channel, slid along the row.
        let mut acc = [0u32; 4];
        for k in -ri..=ri {
            let i = at(k);
            for c in 0..4 {
                acc[c] += u32::from(line[i + c]);
            }
        }
        for x in 0..=last {
            let (add, sub) = (at(x + ri), at(x - ri - 1));
            let far = at(x + ri + 1);
            if x > 0 {
                for c in 0..4 {
                    acc[c] = acc[c] + u32::from(line[add + c]) - u32::from(line[sub + c]);
                }
            }
            let o = x as usize * 4;
            for c in 0..4 {
                let bulk = acc[c] * ww + (u32::from(line[sub + c]) + u32::from(line[far + c])) * fw;
                row[o + c] = ((bulk + (1 << 23)) >> 24) as u8;
            }
        }
    }
}

/// Rotates `angle` degrees counter-clockwise, the canvas grown to hold it all (Pillow's
/// `rotate(angle, resample=BILINEAR, expand=True)`): quarter turns exactly, other angles by Pillow's affine
/// transform with bilinear sampling, the corners filled transparent (black without alpha).
pub fn rotate(
    img: &DynamicImage,
    angle: f64,
    ctx: &CallContext,
) -> Result<DynamicImage, ToolError> {
    let turns = angle.rem_euclid(360.0);
    if turns == 0.0 {
        return Ok(img.clone());
    }
    if turns == 90.0 {
        return Ok(img.rotate270());
    }
    if turns == 180.0 {
        return Ok(img.rotate180());
    }
    if turns == 270.0 {
        return Ok(img.rotate90());
    }
    let (w, h) = img.dimensions();
    let (wf, hf) = (f64::from(w), f64::from(h));
    let a = -angle.to_radians();
    let r15 = |v: f64| (v * 1e15).round() / 1e15;
    let mut m = [
        r15(a.cos()),
        r15(a.sin()),
        0.0,
        r15(-a.sin()),
        r15(a.cos()),
        0.0,
    ];
    let t = |m: &[f64; 6], x: f64, y: f64| (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]);
    let (cx, cy) = (wf / 2.0, hf / 2.0);
    let (e, f) = t(&m, -cx, -cy);
    m[2] = e + cx;
    m[5] = f + cy;
    let corners = [(0.0, 0.0), (wf, 0.0), (wf, hf), (0.0, hf)].map(|(x, y)| t(&m, x, y));
    let (xs, ys) = (corners.map(|c| c.0), corners.map(|c| c.1));
    let span = |v: [f64; 4]| {
        v.iter().cloned().fold(f64::MIN, f64::max).ceil()
            - v.iter().cloned().fold(f64::MAX, f64::min).floor()
    };
    let (nw, nh) = (span(xs), span(ys));
    crate::codec::check_size("the rotated image", nw as u32, nh as u32)?;
    let (e, f) = t(&m, -(nw - wf) / 2.0, -(nh - hf) / 2.0);
    m[2] = e;
    m[5] = f;
    // With alpha, sampled premultiplied, as Pillow transforms RGBA (through RGBa).
    let alpha = img.color().has_alpha();
    let src = if alpha {
        premultiply(&img.to_rgba8())
    } else {
        img.to_rgba8()
    };
    let (nw, nh) = (nw as u32, nh as u32);
    let mut out = RgbaImage::new(nw, nh);
    let clip = |v: i64, n: u32| v.clamp(0, i64::from(n) - 1) as u32;
    for y in 0..nh {
        ctx.checkpoint()?;
        for x in 0..nw {
            let (xin, yin) = t(&m, f64::from(x) + 0.5, f64::from(y) + 0.5);
            if xin < 0.0 || xin >= wf || yin < 0.0 || yin >= hf {
                continue;
            }
            let (xi, yi) = (xin - 0.5, yin - 0.5);
            let (x0, y0) = (xi.floor() as i64, yi.floor() as i64);
            let (dx, dy) = (xi - x0 as f64, yi - y0 as f64);
            let (xa, xb) = (clip(x0, w), clip(x0 + 1, w));
            let row0 = clip(y0, h);
            let px = out.get_pixel_mut(x, y);
            for c in 0..4 {
                let v = |xx: u32, yy: u32| f64::from(src.get_pixel(xx, yy)[c]);
                let v1 = v(xa, row0) + (v(xb, row0) - v(xa, row0)) * dx;
                let v2 = if y0 + 1 >= 0 && y0 + 1 < i64::from(h) {
                    let r = (y0 + 1) as u32;
                    v(xa, r) + (v(xb, r) - v(xa, r)) * dx
                } else {
                    v1
                };
                px[c] = (v1 + (v2 - v1) * dy) as u8;
            }
        }
    }
    let out = if alpha { unpremultiply(out) } else { out };
    Ok(back(img, out))
}

/// Draws `text` with its top-left corner at (`x`, `y`) in `size`-pixel DejaVu Sans of `color`, blended by
/// each pixel's coverage; lines break at `\n`.
pub fn annotate(
    img: &DynamicImage,
    text: &str,
    x: i64,
    y: i64,
    size: f32,
    color: [u8; 4],
) -> Result<DynamicImage, ToolError> {
    use ab_glyph::{Font, FontRef, ScaleFont};
    let font = FontRef::try_from_slice(crate::FONT).map_err(|e| {
        ToolError::new(
            beaker_core::ErrorKind::Internal,
            format!("the bundled font: {e}"),
        )
    })?;
    let scaled = font.as_scaled(size);
    let mut canvas = img.to_rgba8();
    let (w, h) = canvas.dimensions();
    let line_height = scaled.height() + scaled.line_gap();
    for (i, line) in text.split('\n').enumerate() {
        let mut caret = ab_glyph::point(
            x as f32,
            y as f32 + scaled.ascent() + line_height * i as f32,
        );
        let mut last = None;
        for ch in line.chars() {
            let id = font.glyph_id(ch);
            if let Some(prev) = last {
                caret.x += scaled.kern(prev, id);
            }
            let glyph = id.with_scale_and_position(size, caret);
            caret.x += scaled.h_advance(id);
            last = Some(id);
            let Some(outlined) = font.outline_glyph(glyph) else {
                continue;
            };
            let b = outlined.px_bounds();
            outlined.draw(|gx, gy, cov| {
                let (px, py) = (
                    b.min.x as i64 + i64::from(gx),
                    b.min.y as i64 + i64::from(gy),
                );
                if px < 0 || py < 0 || px >= i64::from(w) || py >= i64::from(h) {
                    return;
                }
                let a = cov.clamp(0.0, 1.0) * f32::from(color[3]) / 255.0;
                let p = canvas.get_pixel_mut(px as u32, py as u32);
                for c in 0..3 {
                    p[c] = (f32::from(p[c]) * (1.0 - a) + f32::from(color[c]) * a).round() as u8;
                }
                p[3] = (f32::from(p[3]) + (255.0 - f32::from(p[3])) * a).round() as u8;
            });
        }
    }
    Ok(back(img, canvas))
}
