//! edit_image's decoders (PNG, JPEG, WebP, GIF, told by content) on arbitrary bytes: every input is refused or
//! decoded within the size limits, never a panic, and a decoded image survives an edit and re-encoding.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((img, format)) = beaker_image::codec::decode(data, "fuzz") {
        assert!(u64::from(img.width()) * u64::from(img.height()) <= beaker_image::codec::MAX_PIXELS);
        let _ = beaker_image::codec::encode(&img, format, 75);
    }
});
