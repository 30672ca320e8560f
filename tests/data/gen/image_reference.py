"""edit_image's reference: the same edits made by Pillow, the library users know, on deterministic inputs.

Needs: pip install pillow==12.0.0 numpy
Writes tests/data/image/{photo.png, flat.png, expected/*.png, reference.jsonl}; run from the repository's root:
    python tests/data/gen/image_reference.py

Each case says how edit_image is called, which Pillow call made the expected pixels, and its tolerance:
`max_abs` (the largest difference of one channel of one pixel) and `mean_abs` (the mean over all channels).
Dimensions are always exact. Why each tolerance is what it is:
- crop, flip, quarter turns, grayscale, brightness, contrast, sharpen, blur: 0. The same arithmetic as Pillow's
  (grayscale: its fixed-point ITU-R 601-2; brightness and contrast: its single-precision blend, truncated; sharpen:
  its 3x3 kernel with the border kept; blur: its three extended box blurs each way in 24-bit fixed point).
- rotate by other angles: Pillow's affine transform with bilinear sampling, reproduced step by step in double
  precision; 1 step where a product lands on an integer differently (measured: at most 1, in 0.03 % of channels).
- resize, contain: bicubic (a = -0.5) both, but Pillow convolves in 22-bit fixed point with its own support
  rounding, ours (the image crate) in f32: measured at most 8 steps at sharp edges, 0.21 on average; allowed 10
  and 0.3.
- thumbnail: the same, and for large factors Pillow first `reduce`s by whole factors: measured at most 3 and
  0.15; allowed 6 and 0.3.
"""
import json
import pathlib

import numpy as np
from PIL import Image, ImageEnhance, ImageFilter, ImageOps

ROOT = pathlib.Path(__file__).resolve().parents[3]
OUT = ROOT / "tests" / "data" / "image"


def photo():
    """97 x 61 RGB (odd sizes exercise rounding): gradients, a disc, stripes and seeded noise."""
    rng = np.random.default_rng(20261129)
    y, x = np.mgrid[0:61, 0:97].astype(np.float64)
    r = 255 * x / 96
    g = 255 * y / 60
    b = 128 + 100 * np.sin(x / 7.0) * np.cos(y / 5.0)
    disc = (x - 60) ** 2 + (y - 30) ** 2 < 15 ** 2
    r[disc], g[disc], b[disc] = 250, 240, 20
    stripes = (x.astype(int) // 4 % 2 == 0) & (y < 12)
    r[stripes], g[stripes], b[stripes] = 10, 10, 10
    img = np.stack([r, g, b], axis=-1) + rng.normal(0, 6, (61, 97, 3))
    return Image.fromarray(np.clip(np.rint(img), 0, 255).astype(np.uint8), "RGB")


CASES = []


def case(name, params, make, max_abs, mean_abs, why, source="photo.png"):
    CASES.append((name, params, make, max_abs, mean_abs, why, source))


def photo_rgba():
    """The photo with an alpha channel: opaque, half and fully transparent bands and a soft gradient, so the
    edits that Pillow makes premultiplied (resize, rotate) and those that filter alpha too (sharpen) show it."""
    im = photo().convert("RGBA")
    a = np.zeros((61, 97), dtype=np.uint8)
    y, x = np.mgrid[0:61, 0:97]
    a[:] = np.clip(255 * x / 96, 0, 255).astype(np.uint8)
    a[:8] = 100
    a[50:] = 0
    a[20:30] = 255
    im.putalpha(Image.fromarray(a, "L"))
    return im


case("crop", {"edit_type": "crop", "x": 10, "y": 5, "width": 40, "height": 30},
     lambda im: im.crop((10, 5, 50, 35)), 0, 0, "Image.crop((10, 5, 50, 35))")
case("flip_horizontal", {"edit_type": "flip", "direction": "horizontal"},
     lambda im: im.transpose(Image.Transpose.FLIP_LEFT_RIGHT), 0, 0, "transpose(FLIP_LEFT_RIGHT)")
case("flip_vertical", {"edit_type": "flip", "direction": "vertical"},
     lambda im: im.transpose(Image.Transpose.FLIP_TOP_BOTTOM), 0, 0, "transpose(FLIP_TOP_BOTTOM)")
for a in (90, 180, 270, -90):
    case(f"rotate_{a}".replace("-", "minus_"), {"edit_type": "rotate", "angle": a},
         lambda im, a=a: im.rotate(a, expand=True), 0, 0, f"rotate({a}, expand=True)")
for a in (30, -45, 10.5):
    case(f"rotate_{a}".replace("-", "minus_").replace(".", "_"), {"edit_type": "rotate", "angle": a},
         lambda im, a=a: im.rotate(a, resample=Image.Resampling.BILINEAR, expand=True), 1, 0.001,
         f"rotate({a}, resample=BILINEAR, expand=True)")
case("grayscale", {"edit_type": "grayscale"}, lambda im: im.convert("L"), 0, 0, 'convert("L")')
for f in (0.0, 0.5, 1.3, 2.0):
    case(f"brightness_{f}".replace(".", "_"), {"edit_type": "brightness", "factor": f},
         lambda im, f=f: ImageEnhance.Brightness(im).enhance(f), 0, 0, f"ImageEnhance.Brightness.enhance({f})")
    case(f"contrast_{f}".replace(".", "_"), {"edit_type": "contrast", "factor": f},
         lambda im, f=f: ImageEnhance.Contrast(im).enhance(f), 0, 0, f"ImageEnhance.Contrast.enhance({f})")
case("sharpen", {"edit_type": "sharpen"}, lambda im: im.filter(ImageFilter.SHARPEN), 0, 0, "filter(SHARPEN)")
for r in (0.6, 1.0, 2.5, 7.0):
    case(f"blur_{r}".replace(".", "_"), {"edit_type": "blur", "radius": r},
         lambda im, r=r: im.filter(ImageFilter.GaussianBlur(r)), 0, 0, f"filter(GaussianBlur({r}))")
for (w, h) in ((48, 30), (200, 120), (31, 77)):
    case(f"resize_{w}x{h}", {"edit_type": "resize", "width": w, "height": h},
         lambda im, w=w, h=h: im.resize((w, h), Image.Resampling.BICUBIC), 10, 0.3, f"resize(({w}, {h}), BICUBIC)")
case("resize_keep_aspect", {"edit_type": "resize", "width": 50, "height": 50, "keep_aspect_ratio": True},
     lambda im: ImageOps.contain(im, (50, 50), Image.Resampling.BICUBIC), 10, 0.3, "ImageOps.contain((50, 50), BICUBIC)")
case("resize_width_only", {"edit_type": "resize", "width": 64},
     lambda im: im.resize((64, round(61 * 64 / 97)), Image.Resampling.BICUBIC), 10, 0.3,
     "resize((64, round(61 * 64 / 97)), BICUBIC): the height follows the width")
def thumb(im, w, h):
    c = im.copy()
    c.thumbnail((w, h))
    return c


for (w, h) in ((40, 40), (64, 20), (500, 500)):
    case(f"thumbnail_{w}x{h}", {"edit_type": "thumbnail", "width": w, "height": h},
         lambda im, w=w, h=h: thumb(im, w, h), 6, 0.3, f"copy().thumbnail(({w}, {h}))")
# 8x smaller: Pillow's thumbnail first `reduce`s by whole factors (4 x 3 here, reducing_gap=2), a shortcut for
# speed; ours resamples once. Against the shortcut: measured max 15, mean 0.91. Against Pillow's own one-step
# bicubic to the same size (thumbnail's size, resize without the gap) it is the resize tolerance.
case("thumbnail_12x12", {"edit_type": "thumbnail", "width": 12, "height": 12},
     lambda im: thumb(im, 12, 12), 16, 1.0, "copy().thumbnail((12, 12)) (Pillow's reduce step first)")
case("thumbnail_12x12_one_step", {"edit_type": "thumbnail", "width": 12, "height": 12},
     lambda im: im.resize(thumb(im, 12, 12).size, Image.Resampling.BICUBIC), 10, 0.3,
     "resize(thumbnail((12, 12))'s size, BICUBIC)")


# With alpha: Pillow resizes and rotates RGBA premultiplied (through RGBa) and sharpens every band.
case("rgba_sharpen", {"edit_type": "sharpen"}, lambda im: im.filter(ImageFilter.SHARPEN), 0, 0,
     "filter(SHARPEN) on RGBA: alpha sharpened too", "photo_rgba.png")
case("rgba_rotate_30", {"edit_type": "rotate", "angle": 30},
     lambda im: im.rotate(30, resample=Image.Resampling.BILINEAR, expand=True), 1, 0.01,
     "rotate(30, BILINEAR, expand=True) on RGBA, premultiplied as Pillow does", "photo_rgba.png")
case("rgba_resize_48x30", {"edit_type": "resize", "width": 48, "height": 30},
     lambda im: im.resize((48, 30), Image.Resampling.BICUBIC), 10, 0.3,
     "resize((48, 30), BICUBIC) on RGBA, premultiplied as Pillow does", "photo_rgba.png")
case("rgba_blur_2", {"edit_type": "blur", "radius": 2.0},
     lambda im: im.filter(ImageFilter.GaussianBlur(2.0)), 0, 0, "GaussianBlur(2) on RGBA", "photo_rgba.png")
case("rgba_grayscale", {"edit_type": "grayscale"}, lambda im: im.convert("LA"), 0, 0, 'convert("LA")',
     "photo_rgba.png")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "expected").mkdir(exist_ok=True)
    photo().save(OUT / "photo.png", optimize=False)
    photo_rgba().save(OUT / "photo_rgba.png", optimize=False)
    sources = {}
    for f in ("photo.png", "photo_rgba.png"):
        sources[f] = Image.open(OUT / f)
        sources[f].load()
    lines = []
    for name, params, make, max_abs, mean_abs, why, source in CASES:
        out = make(sources[source])
        out.save(OUT / "expected" / f"{name}.png")
        lines.append(json.dumps({"name": name, "input": source, "params": params,
                                 "expected": f"expected/{name}.png", "size": list(out.size), "mode": out.mode,
                                 "max_abs": max_abs, "mean_abs": mean_abs, "pillow": why}))
    header = "// edit_image against Pillow 12.0.0, written by tests/data/gen/image_reference.py (tolerances explained there)\n"
    (OUT / "reference.jsonl").write_text(header + "\n".join(lines) + "\n")
    print(f"{len(lines)} cases")


if __name__ == "__main__":
    main()
