//! Fuzzes the dialect parser: no input panics, streaming in fuzzer-chosen chunks equals batch, and the work
//! stays linear. Input: byte 0 picks the options (lenient, dialect), byte 1 the chunk size, the rest is text.
#![no_main]

use beaker_dialects::{merge_text, stream_events, Dialect, ParseOptions, StreamParser};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [ctl, chunk, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let opts = ParseOptions {
        lenient: ctl & 1 == 1,
        dialect: match (ctl >> 1) % 7 {
            n @ 0..=4 => Some(Dialect::ALL[n as usize]),
            _ => None,
        },
        ..ParseOptions::default()
    };
    let mut p = StreamParser::new(opts.clone());
    let mut batch = p.push(&text);
    assert!(
        p.work() <= 8 * text.len() as u64 + 64,
        "work {} for {} bytes",
        p.work(),
        text.len()
    );
    batch.extend(p.finish());

    let streamed = stream_events(&text, usize::from(*chunk % 64) + 1, &opts);
    assert_eq!(streamed, merge_text(batch));
});
