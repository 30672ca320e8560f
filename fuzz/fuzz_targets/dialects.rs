//! Fuzzes the dialect parser: no input panics, streaming in fuzzer-chosen chunks equals batch, and the work
//! stays linear. Input: byte 0 picks the options (lenient, dialect), byte 1 the chunk size, the rest is text.
#![no_main]

use beaker_dialects::{Dialect, Event, ParseOptions, StreamParser};
use libfuzzer_sys::fuzz_target;

fn normalise(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        match (out.last_mut(), e) {
            (_, Event::Text(t)) if t.is_empty() => {}
            (Some(Event::Text(prev)), Event::Text(t)) => prev.push_str(&t),
            (_, e) => out.push(e),
        }
    }
    out
}

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

    let size = usize::from(*chunk % 64) + 1;
    let mut p = StreamParser::new(opts);
    let mut streamed = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let mut j = (i + size).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        streamed.extend(p.push(&text[i..j]));
        i = j;
    }
    streamed.extend(p.finish());
    assert_eq!(normalise(streamed), normalise(batch));
});
