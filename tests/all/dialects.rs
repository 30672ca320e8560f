//! The dialect corpus (`tests/data/dialects/`): every seed example and real-world shape, parsed in batch
//! and streamed in several chunkings, against expectations written by hand from `docs/DIALECTS.md`.
//! Also: parsing 10 MB of hostile text costs linear work.

use crate::support::{ensure, root, Outcome};
use beaker_dialects::{parse, Dialect, Event, Item, ParseOptions, Problem, StreamParser};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn options(spec: &Value) -> ParseOptions {
    let o = &spec["options"];
    ParseOptions {
        dialect: o["dialect"].as_str().and_then(Dialect::from_name),
        lenient: o["lenient"].as_bool().unwrap_or(false),
        include_think: o["include_think"].as_bool().unwrap_or(false),
        ..ParseOptions::default()
    }
}

/// Numbers compared by value: calls keep numbers as written (`-12.5e+3`), expectations may spell them
/// differently (`-12500.0`).
fn numeric(v: &Value) -> Value {
    match v {
        Value::Number(n) => n.as_f64().map(|f| json!(f)).unwrap_or_else(|| v.clone()),
        Value::Array(a) => Value::Array(a.iter().map(numeric).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), numeric(v))).collect()),
        other => other.clone(),
    }
}

/// An item in the corpus's expectation format (and the message, for `message_contains`).
fn describe(item: &Item) -> (Value, Option<String>) {
    match item {
        Item::Text(t) => (json!({"text": t}), None),
        Item::Call(c) => {
            let mut call =
                json!({"tool": c.tool, "params": c.params, "dialect": c.dialect.as_str()});
            if c.repaired {
                call["repaired"] = json!(true);
            }
            if let Some(id) = &c.id {
                call["id"] = json!(id);
            }
            (json!({ "call": call }), None)
        }
        Item::Bad(b) => {
            let v = match &b.problem {
                Problem::Malformed(_) => {
                    json!({"malformed": {"dialect": b.dialect.as_str(), "tool": b.tool}})
                }
                Problem::Incomplete => {
                    json!({"incomplete": {"dialect": b.dialect.as_str(), "tool": b.tool}})
                }
                Problem::Deprecated { args, kwargs } => {
                    json!({"deprecated": {"tool": b.tool, "args": args, "kwargs": kwargs}})
                }
            };
            (v, Some(b.message()))
        }
    }
}

fn stream(text: &str, chunk: usize, o: &ParseOptions) -> Vec<Event> {
    beaker_dialects::stream_events(text, chunk, o)
}

fn check_case(name: &str) -> Outcome {
    let dir = root().join("tests/data/dialects/corpus");
    let text =
        std::fs::read_to_string(dir.join(format!("{name}.txt"))).map_err(|e| e.to_string())?;
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.json"))).map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let o = options(&spec);
    let parsed = parse(&text, &o);
    let dialect = parsed
        .dialect
        .map(|d| json!(d.as_str()))
        .unwrap_or(Value::Null);
    ensure(dialect == spec["dialect"], || {
        format!("dialect {dialect}, expected {}", spec["dialect"])
    })?;
    let want = spec["items"].as_array().cloned().unwrap_or_default();
    let got: Vec<(Value, Option<String>)> = parsed.items.iter().map(describe).collect();
    for (i, w) in want.iter().enumerate() {
        let Some((g, msg)) = got.get(i) else {
            return Err(format!("item {i}: missing, expected {w}").into());
        };
        let mut w = w.clone();
        let contains = w
            .get_mut("malformed")
            .and_then(|m| m.as_object_mut())
            .and_then(|m| m.remove("message_contains"));
        ensure(numeric(g) == numeric(&w), || {
            format!("item {i}: got {g}\nexpected {w}")
        })?;
        if let (Some(c), Some(m)) = (contains.as_ref().and_then(Value::as_str), msg) {
            ensure(m.contains(c), || {
                format!("item {i}: message {m:?} lacks {c:?}")
            })?;
        }
    }
    ensure(got.len() == want.len(), || {
        format!(
            "{} items, expected {}; extra: {:?}",
            got.len(),
            want.len(),
            got.get(want.len())
        )
    })?;
    let whole = stream(&text, text.len().max(1), &o);
    for chunk in [1, 2, 3, 7, 16, 61, 256] {
        let s = stream(&text, chunk, &o);
        ensure(s == whole, || {
            format!("streaming in {chunk}-byte chunks differs from batch")
        })?;
    }
    Ok(())
}

/// Inputs the fuzzer (`fuzz/fuzz_targets/dialects.rs`) once broke, replayed as it runs them: byte 0 picks the
/// options, byte 1 the chunk size, the rest is the text.
fn fuzz_regressions() -> Outcome {
    let dir = root().join("tests/data/dialects/fuzz_regressions");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    for path in paths {
        let data = std::fs::read(&path).map_err(|e| e.to_string())?;
        let [ctl, chunk, rest @ ..] = &data[..] else {
            continue;
        };
        let text = String::from_utf8_lossy(rest);
        let o = ParseOptions {
            lenient: ctl & 1 == 1,
            dialect: match (ctl >> 1) % 7 {
                n @ 0..=4 => Some(Dialect::ALL[n as usize]),
                _ => None,
            },
            ..ParseOptions::default()
        };
        let batch = stream(&text, text.len().max(1), &o);
        let streamed = stream(&text, usize::from(*chunk % 64) + 1, &o);
        if streamed != batch {
            let at = batch
                .iter()
                .zip(&streamed)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "{}: event {at} differs\n batch:  {:?}\n stream: {:?}",
                path.display(),
                batch.get(at),
                streamed.get(at)
            )
            .into());
        }
    }
    Ok(())
}

/// Texts built to make a careless parser rescan: stray markers that never close, deep nesting, open fences.
fn hostile_texts_cost_linear_work() -> Outcome {
    const SIZE: usize = 10 << 20;
    let patterns = [
        "<tool_call>{x",
        "<tool_call>{\"a\": ",
        "<tool_call>{\"tool\": \"t\", \"params\": {\"s\": \"",
        "```json\n{\"a\": [",
        "```json\n{\"tool\": \"t\", \"params\": ",
        "<|tool_call|><|tool_name|>",
        "<|tool_call|>f(\"",
        "</tool_call>{\"",
        "<tool_call>{\"tool\": \"t\", \"params\": {}}</tool_call",
        "<tool_ca",
    ];
    for p in patterns {
        let text = p.repeat(SIZE / p.len());
        for lenient in [false, true] {
            let o = ParseOptions {
                lenient,
                ..ParseOptions::default()
            };
            let mut parser = StreamParser::new(o.clone());
            let _ = parser.push(&text);
            let work = parser.work();
            let _ = parser.finish();
            ensure(work <= 8 * text.len() as u64, || {
                format!(
                    "{p:?} x {}: {work} bytes of work for {} bytes",
                    SIZE / p.len(),
                    text.len()
                )
            })?;
            // Streamed in 64 KiB chunks the work is linear too.
            let mut parser = StreamParser::new(o);
            for chunk in text.as_bytes().chunks(1 << 16) {
                let _ = parser.push(std::str::from_utf8(chunk).map_err(|e| e.to_string())?);
            }
            let work = parser.work();
            ensure(work <= 8 * text.len() as u64, || {
                format!(
                    "{p:?} streamed: {work} bytes of work for {} bytes",
                    text.len()
                )
            })?;
        }
    }
    Ok(())
}

/// The request/answer pairs of docs/DIALECTS.md's examples, run over `beaker serve` (timings dropped).
fn docs_examples() -> Outcome {
    let doc = std::fs::read_to_string(crate::support::root().join("docs/DIALECTS.md"))
        .map_err(|e| e.to_string())?;
    let at = doc.find("## Examples").ok_or("the section is missing")?;
    let block = doc[at..].split("```json\n").nth(1).unwrap_or("");
    let lines: Vec<&str> = block.lines().take_while(|l| *l != "```").collect();
    crate::support::ensure(lines.len() == 4, || format!("{} lines", lines.len()))?;
    let mut server = crate::support::Server::start(&["--no-python"]);
    for pair in lines.chunks(2) {
        let parse = |l: &str| {
            serde_json::from_str::<Value>(l.trim_start_matches("→ ")).map_err(|e| e.to_string())
        };
        let (request, shown) = (parse(pair[0])?, parse(pair[1])?);
        server.send(&request);
        let mut got = server.recv();
        for c in got["calls"].as_array_mut().into_iter().flatten() {
            if let Some(o) = c.as_object_mut() {
                o.remove("elapsed_us");
                o.remove("queued_us");
            }
        }
        crate::support::ensure(got == shown, || {
            format!("got {got}\nthe page shows {shown}")
        })?;
    }
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    let dir = root().join("tests/data/dialects/corpus");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| {
                    let p = e.path();
                    if p.extension()? != "json" {
                        return None;
                    }
                    Some(p.file_stem()?.to_string_lossy().into_owned())
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut trials: Vec<Trial> = names
        .into_iter()
        .map(|n| Trial::test(format!("dialects::corpus::{n}"), move || check_case(&n)))
        .collect();
    trials.push(Trial::test("dialects::fuzz_regressions", fuzz_regressions));
    trials.push(Trial::test(
        "dialects::the_docs_examples_run",
        docs_examples,
    ));
    trials.push(Trial::test(
        "dialects::hostile_texts_cost_linear_work",
        hostile_texts_cost_linear_work,
    ));
    trials
}
