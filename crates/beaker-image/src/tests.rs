use super::*;

#[test]
fn sizes_are_pillows() {
    // Pillow 12: Image.new("RGB", (97, 61)).thumbnail(...) and ImageOps.contain(...) sizes.
    assert_eq!(ops::thumbnail_size(97, 61, 40, 40), (40, 25));
    assert_eq!(ops::thumbnail_size(97, 61, 64, 20), (32, 20));
    assert_eq!(ops::thumbnail_size(97, 61, 12, 12), (12, 8));
    assert_eq!(ops::thumbnail_size(97, 61, 500, 500), (97, 61));
    assert_eq!(ops::contain_size(97, 61, 50, 50), (50, 31));
    assert_eq!(ops::contain_size(61, 97, 50, 50), (31, 50));
    assert_eq!(ops::contain_size(100, 50, 40, 20), (40, 20));
}

#[test]
fn colours_and_default_names() {
    assert_eq!(color("#ff8000").unwrap(), [255, 128, 0, 255]);
    assert_eq!(color("#ff800080").unwrap(), [255, 128, 0, 128]);
    assert_eq!(color("White").unwrap(), [255, 255, 255, 255]);
    assert!(color("#ff80").is_err() && color("#gg0000").is_err() && color("teal").is_err());
    assert_eq!(
        default_output("outputs/sunset.png", Edit::Resize, Format::Png),
        "outputs/sunset_resize.png"
    );
    assert_eq!(
        default_output("photo", Edit::Convert, Format::Jpeg),
        "photo_convert.jpg"
    );
    assert_eq!(Format::from_path("a/b.JPEG"), Some(Format::Jpeg));
    assert_eq!(Format::from_path("a.bmp"), None);
}

#[test]
fn every_format_round_trips_and_a_bomb_header_is_refused() {
    let img = DynamicImage::ImageRgb8(image::RgbImage::from_fn(5, 3, |x, y| {
        image::Rgb([x as u8 * 50, y as u8 * 80, 7])
    }));
    for f in [Format::Png, Format::Jpeg, Format::Webp, Format::Gif] {
        let bytes = codec::encode(&img, f, 90).unwrap();
        let (back, format) = codec::decode(&bytes, "x").unwrap();
        assert_eq!((back.dimensions(), format), ((5, 3), f));
        assert_eq!(
            codec::encode(&img, f, 90).unwrap(),
            bytes,
            "{f:?} is deterministic"
        );
    }
    let mut png = codec::encode(&img, Format::Png, 90).unwrap();
    png[16..20].copy_from_slice(&70_000u32.to_be_bytes());
    let crc = crc32(&png[12..29]);
    png[29..33].copy_from_slice(&crc.to_be_bytes());
    let e = codec::decode(&png, "bomb.png").unwrap_err();
    assert_eq!(
        e.kind,
        beaker_core::ErrorKind::LimitExceeded,
        "{}",
        e.message
    );
}

/// CRC-32 (IEEE), bit by bit: a PNG chunk's checksum, so a forged header is read as a valid one.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}
