//! Property tests: streaming equals batch under any chunking, render and parse invert each other, and
//! arbitrary input never panics and costs linear work.

use crate::{
    merge_text as normalise, parse, render, Dialect, Event, Item, ParseOptions, StreamParser,
};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// The batch parse's events: the whole text as one chunk.
fn batch(text: &str, o: &ParseOptions) -> Vec<Event> {
    crate::stream_events(text, text.len().max(1), o)
}

/// Splits `text` at the given fractions (snapped to char boundaries) and streams it.
fn streamed(text: &str, cuts: &[usize], o: &ParseOptions) -> Vec<Event> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|c| {
            let mut i = c % (text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    bounds.sort_unstable();
    let mut p = StreamParser::new(o.clone());
    let mut ev = Vec::new();
    let mut last = 0;
    for b in bounds.into_iter().chain([text.len()]) {
        ev.extend(p.push(&text[last..b]));
        last = b;
    }
    ev.extend(p.finish());
    normalise(ev)
}

/// Pieces models really write, good and broken, to build documents from.
const FRAGMENTS: &[&str] = &[
    "Let me compute that. ",
    "\n",
    "π ≈ 3.14159 µs 🧪 ",
    "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"7 * 8\"}}</tool_call>",
    "<tool_call>\n{\"name\": \"get\", \"arguments\": \"{\\\"k\\\": [1, 2]}\"}\n</tool_call>",
    "<|tool_call|>\n<|tool_name|>calculator<|tool_args|>{\"expression\": \"sqrt(2)\", \"precision\": 15}\n<|/tool_call|>",
    "<|tool_call|>generate_image(\"sunset\", width=512)<|tool_end|>",
    "```json\n{\"tool\": \"numerical\", \"params\": {\"A\": [[1, 2], [3, 4]]}}\n```",
    "```json\n{\"not\": \"a call\"}\n```",
    "```python\nprint(1)\n```",
    "<tool_call>{\"tool\": \"x\", \"params\": {\"s\": \"</tool_call>}\"}}</tool_call>",
    "<tool_call>{\"tool\": \"bad\", \"params\": {\"a\": 1,}}</tool_call>",
    "<tool_call>{'tool': 'lenient', params: {'a': True,}}</tool_call>",
    "<tool_call> talking about tags ",
    "<tool_call>{\"tool\": \"stray\" never closed ",
    "<|tool_call|> not a call ",
    "<tool_call>[{\"tool\": \"a\", \"params\": {}}, {\"tool\": \"b\", \"params\": {}}]</tool_call>",
    "{",
    "}",
    "\"",
    "<",
    "`",
    "<tool_call>{\"tool\": \"cut\", \"params\": {\"x\": \"",
    "<think>",
    "</think>",
    "</thi",
    "[TOOL_CALLS][{\"name\": \"calculator\", \"arguments\": {\"expression\": \"7 * 8\"}, \"id\": \"abc123def\"}]",
    "[TOOL_CALLS]calculator[ARGS]{\"expression\": \"1/0\"}",
    "[TOOL_CALLS][{\"name\": \"cut\", \"arguments\": {",
    "[TOOL_CALLS] not a call ",
    "[",
    "[TOOL_",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>calculator<｜tool▁sep｜>{\"expression\": \"2\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator\n```json\n{\"expression\": \"3\"}\n```<｜tool▁call▁end｜>",
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁",
];

fn document() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(FRAGMENTS), 0..12).prop_map(|v| v.concat())
}

fn options() -> impl Strategy<Value = ParseOptions> {
    (
        any::<bool>(),
        prop::option::of(prop::sample::select(&Dialect::ALL[..])),
        prop::sample::select(&[16, 200, crate::DEFAULT_MAX_CALL_BYTES][..]),
        prop::sample::select(&[0, 1, 3, crate::DEFAULT_MAX_CALLS][..]),
        any::<bool>(),
    )
        .prop_map(
            |(lenient, dialect, max_call_bytes, max_calls, include_think)| ParseOptions {
                dialect,
                lenient,
                max_call_bytes,
                max_calls,
                include_think,
            },
        )
}

fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        "[ -~πµ🧪\n\"\\\\<>{}|/`]{0,16}".prop_map(Value::String),
        Just(Value::String("</tool_call><|/tool_call|>```".into())),
    ]
}

fn json_object() -> impl Strategy<Value = Value> {
    let value = json_leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    });
    prop::collection::btree_map("[a-zA-Z_][a-zA-Z0-9_]{0,8}", value, 0..5)
        .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn streaming_equals_batch(doc in document(), cuts in prop::collection::vec(any::<usize>(), 0..24), o in options()) {
        prop_assert_eq!(streamed(&doc, &cuts, &o), batch(&doc, &o));
    }

    #[test]
    fn streaming_byte_by_byte_equals_batch(doc in document(), o in options()) {
        let cuts: Vec<usize> = (0..=doc.len()).collect();
        prop_assert_eq!(streamed(&doc, &cuts, &o), batch(&doc, &o));
    }

    #[test]
    fn parse_inverts_render(tool in "[a-z_][a-z0-9_]{0,15}", params in json_object(), d in prop::sample::select(&Dialect::ALL[..])) {
        let text = render::call(d, &tool, &params, Some("call_7"));
        let parsed = parse(&text, &ParseOptions::default());
        let calls: Vec<_> = parsed.calls().collect();
        prop_assert_eq!(calls.len(), 1, "{}", text);
        prop_assert_eq!(&calls[0].tool, &tool);
        prop_assert_eq!(&calls[0].params, &params);
        let want = if d == Dialect::Openai { Dialect::Openai } else { d };
        prop_assert_eq!(calls[0].dialect, want);
        prop_assert_eq!(parsed.items.len(), 1, "no stray text around {}", text);
        // And rendering what was parsed gives the same bytes.
        prop_assert_eq!(render::call(d, &calls[0].tool, &calls[0].params, calls[0].id.as_deref()), text);
    }

    #[test]
    fn arbitrary_text_never_panics_and_costs_linear_work(s in "(?s).{0,400}", o in options(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        let _ = streamed(&s, &cuts, &o);
        let mut p = StreamParser::new(o.clone());
        p.push(&s);
        prop_assert!(p.work() <= 8 * s.len() as u64 + 64, "work {} for {} bytes", p.work(), s.len());
        // Text is never lost or invented: text items plus call spans cover the input exactly.
        let parsed = parse(&s, &o);
        let mut covered = 0;
        for item in &parsed.items {
            match item {
                Item::Text(t) => covered += t.len(),
                Item::Call(c) => covered += c.span.len(),
                Item::Bad(b) => covered += b.span.len(),
            }
        }
        let mut spans: Vec<_> = parsed.items.iter().filter_map(|i| match i {
            Item::Call(c) => Some(c.span.clone()),
            Item::Bad(b) => Some(b.span.clone()),
            Item::Text(_) => None,
        }).collect();
        spans.dedup();
        let dup: usize = parsed.items.iter().filter_map(|i| match i {
            Item::Call(c) => Some(c.span.len()),
            Item::Bad(b) => Some(b.span.len()),
            Item::Text(_) => None,
        }).sum::<usize>() - spans.iter().map(|r| r.len()).sum::<usize>();
        prop_assert_eq!(covered - dup, s.len());
    }

    #[test]
    fn marker_soup_never_panics(doc in prop::collection::vec(prop::sample::select(&["<tool_call>", "</tool_call>", "<|tool_call|>", "<|tool_name|>", "<|tool_args|>", "<|/tool_call|>", "```json\n", "```", "{", "}", "[", "]", "\"", "'", ",", ":", "\\", "x", "(", ")", " ", "\n", "tool", "params"][..]), 0..60).prop_map(|v| v.concat()), o in options(), cuts in prop::collection::vec(any::<usize>(), 0..8)) {
        prop_assert_eq!(streamed(&doc, &cuts, &o), batch(&doc, &o));
    }
}
