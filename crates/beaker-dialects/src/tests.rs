//! Behaviour of the parser on the shapes `docs/DIALECTS.md` names; the corpus in `tests/data/dialects/`
//! covers the seeds and real-world texts end to end.

use crate::{parse, BadCall, Call, Dialect, Event, Item, ParseOptions, Problem, StreamParser};
use serde_json::json;

fn opts() -> ParseOptions {
    ParseOptions::default()
}

fn lenient() -> ParseOptions {
    ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    }
}

fn items(text: &str, o: &ParseOptions) -> Vec<Item> {
    parse(text, o).items
}

fn call(i: &Item) -> &Call {
    match i {
        Item::Call(c) => c,
        other => panic!("expected a call, got {other:?}"),
    }
}

fn bad(i: &Item) -> &BadCall {
    match i {
        Item::Bad(b) => b,
        other => panic!("expected a bad call, got {other:?}"),
    }
}

fn text(i: &Item) -> &str {
    match i {
        Item::Text(t) => t,
        other => panic!("expected text, got {other:?}"),
    }
}

#[test]
fn svend_call_with_newlines_between_tokens() {
    let t = "<|tool_call|>\n<|tool_name|>chemistry<|tool_args|>{\"operation\": \"ph\"}\n<|/tool_call|>\nafter";
    let it = items(t, &opts());
    let c = call(&it[0]);
    assert_eq!((c.tool.as_str(), c.dialect), ("chemistry", Dialect::Svend));
    assert_eq!(c.params, json!({"operation": "ph"}));
    assert_eq!(c.span, 0..t.len() - "\nafter".len());
    assert_eq!(text(&it[1]), "\nafter");
}

#[test]
fn tagged_and_hermes_are_told_apart_by_their_keys() {
    let t = r#"<tool_call>{"tool": "a", "params": {"x": 1}}</tool_call> and <tool_call>{"name": "b", "arguments": "{\"y\": 2}"}</tool_call>"#;
    let p = parse(t, &opts());
    assert_eq!(p.dialect, Some(Dialect::Tagged));
    let calls: Vec<_> = p.calls().collect();
    assert_eq!(
        (calls[0].dialect, calls[0].params.clone()),
        (Dialect::Tagged, json!({"x": 1}))
    );
    assert_eq!(
        (calls[1].dialect, calls[1].params.clone()),
        (Dialect::Hermes, json!({"y": 2}))
    );
    assert_eq!((calls[0].index, calls[1].index), (0, 1));
}

#[test]
fn close_tags_and_braces_inside_strings_end_nothing() {
    let t = r#"<tool_call>{"tool": "echo", "params": {"s": "}</tool_call>{"}}</tool_call>"#;
    let it = items(t, &opts());
    assert_eq!(it.len(), 1);
    assert_eq!(call(&it[0]).params, json!({"s": "}</tool_call>{"}));
}

#[test]
fn a_code_fence_inside_a_tag() {
    let t = "<tool_call>\n```json\n{\"tool\": \"calculator\", \"params\": {\"expression\": \"1+1\"}}\n```\n</tool_call>";
    assert_eq!(call(&items(t, &opts())[0]).tool, "calculator");
}

#[test]
fn a_tag_in_prose_is_text() {
    let t = "Wrap calls in <tool_call> tags. The answer is 42.";
    assert_eq!(items(t, &opts()), vec![Item::Text(t.into())]);
}

#[test]
fn strict_json_by_default_and_lenient_repairs() {
    let t = r#"<tool_call>{"tool": "calculator", "params": {"expression": "1+1",}}</tool_call>"#;
    let b = bad(&items(t, &opts())[0]).clone();
    assert_eq!(b.tool.as_deref(), Some("calculator"));
    assert!(
        matches!(&b.problem, Problem::Malformed(m) if m.contains("trailing comma")),
        "{b:?}"
    );
    assert_eq!(b.span, 0..t.len());
    let c = call(&items(t, &lenient())[0]).clone();
    assert!(c.repaired);
    assert_eq!(c.params, json!({"expression": "1+1"}));
    let t = "<tool_call>{tool: 'calculator', params: {'exact': True, 'x': None}}</tool_call>";
    let c = call(&items(t, &lenient())[0]).clone();
    assert_eq!(
        (c.tool.as_str(), c.params),
        ("calculator", json!({"exact": true, "x": null}))
    );
}

#[test]
fn a_broken_call_without_a_close_tag_does_not_swallow_the_answer() {
    let t = r#"<tool_call>{"tool": "calculator" oh wait. The answer is 42."#;
    let it = items(t, &opts());
    let b = bad(&it[0]);
    assert_eq!(b.tool.as_deref(), Some("calculator"));
    assert_eq!(text(&it[1]), "oh wait. The answer is 42.");
}

#[test]
fn one_bad_call_between_two_good_ones() {
    let t = r#"<tool_call>{"tool": "a", "params": {}}</tool_call><tool_call>{"tool": "b", "params": {,}}</tool_call><tool_call>{"tool": "c", "params": {}}</tool_call>"#;
    let it = items(t, &opts());
    assert_eq!(call(&it[0]).tool, "a");
    assert_eq!(bad(&it[1]).tool.as_deref(), Some("b"));
    assert_eq!((call(&it[2]).tool.as_str(), call(&it[2]).index), ("c", 2));
}

#[test]
fn cut_off_calls_are_incomplete() {
    for t in [
        "<tool_call>",
        "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"1 +",
        "<|tool_call|><|tool_name|>calcul",
        "<tool_call>{\"tool\": \"a\", \"params\": {}}</tool_ca",
    ] {
        let it = items(t, &opts());
        assert!(
            matches!(bad(&it[0]).problem, Problem::Incomplete),
            "{t}: {it:?}"
        );
        assert_eq!(it.len(), 1, "{t}");
    }
}

#[test]
fn deprecated_seed_001_form() {
    let t = "Assistant: <|tool_call|>generate_image(\"sunset\", width=512)<|tool_end|>\nDone!";
    let it = items(t, &opts());
    let b = bad(&it[1]);
    assert_eq!(b.tool.as_deref(), Some("generate_image"));
    assert_eq!(
        b.problem,
        Problem::Deprecated {
            args: vec![json!("sunset")],
            kwargs: json!({"width": 512})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }
    );
    assert_eq!(text(&it[2]), "\nDone!");
    assert_eq!(
        crate::render::deprecated_suggestion(b, None, Dialect::Tagged).as_deref(),
        Some(
            r#"<tool_call>{"tool": "generate_image", "params": {"arg0": "sunset", "width": 512}}</tool_call>"#
        )
    );
}

#[test]
fn fences_are_calls_only_with_both_keys() {
    let t = "Here:\n```json\n{\"tool\": \"calculator\", \"params\": {\"expression\": \"2\"}}\n```\nand data:\n```json\n{\"name\": \"John\", \"age\": 3}\n```\n";
    let p = parse(t, &opts());
    assert_eq!(p.dialect, Some(Dialect::Fenced));
    assert_eq!(p.calls().count(), 1);
    assert!(text(&p.items[2]).contains("\"John\""));
}

#[test]
fn a_reply_that_is_the_call_object() {
    let t = "  {\"tool\": \"calculator\", \"params\": {\"expression\": \"7 * 8\"}}\n";
    let it = items(t, &opts());
    assert_eq!(text(&it[0]), "  ");
    assert_eq!(call(&it[1]).dialect, Dialect::Fenced);
    assert_eq!(text(&it[2]), "\n");
    let t = r#"{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\": \"2+2\"}"}}]}"#;
    let c = call(&items(t, &opts())[0]).clone();
    assert_eq!(
        (c.dialect, c.id.as_deref(), c.params),
        (Dialect::Openai, Some("c1"), json!({"expression": "2+2"}))
    );
}

#[test]
fn an_explicit_dialect_reads_only_its_markers() {
    let t = "<tool_call>{\"tool\": \"a\", \"params\": {}}</tool_call><|tool_call|><|tool_name|>b<|tool_args|>{}<|/tool_call|>";
    let o = ParseOptions {
        dialect: Some(Dialect::Svend),
        ..opts()
    };
    let p = parse(t, &o);
    assert_eq!(p.dialect, Some(Dialect::Svend));
    assert_eq!(
        p.calls().map(|c| c.tool.as_str()).collect::<Vec<_>>(),
        vec!["b"]
    );
}

#[test]
fn an_array_in_one_tag_is_several_calls() {
    let t = r#"<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "parameters": {"k": 1}}]</tool_call>"#;
    let p = parse(t, &opts());
    let calls: Vec<_> = p.calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[1].params, json!({"k": 1}));
}

#[test]
fn the_name_is_announced_before_the_call_completes() {
    let mut p = StreamParser::new(opts());
    assert_eq!(
        p.push("Text <tool_call>{\"tool\": \"calcu"),
        vec![Event::Text("Text ".into())]
    );
    assert_eq!(
        p.push("lator\", \"params\": {\"expression\": "),
        vec![Event::CallStarted {
            index: 0,
            tool: "calculator".into()
        }]
    );
    let rest = p.push("\"1\"}}</tool_call>");
    assert!(matches!(&rest[..], [Event::Call(c)] if c.tool == "calculator"));
    let mut p = StreamParser::new(opts());
    let ev = p.push("<|tool_call|><|tool_name|>numerical<|tool_args|>{\"operation\"");
    assert_eq!(
        ev,
        vec![Event::CallStarted {
            index: 0,
            tool: "numerical".into()
        }]
    );
}

#[test]
fn only_bytes_that_could_start_a_marker_are_held_back() {
    let mut p = StreamParser::new(opts());
    assert_eq!(
        p.push("a < b and <tool_ca"),
        vec![Event::Text("a < b and ".into())]
    );
    assert_eq!(
        p.push("t is a cat"),
        vec![Event::Text("<tool_cat is a cat".into())]
    );
    assert_eq!(p.push("``"), vec![]);
    assert_eq!(p.push("`python"), vec![Event::Text("```python".into())]);
}

#[test]
fn calls_beyond_max_calls_are_text_and_the_parse_is_capped() {
    let one = "<tool_call>{\"tool\": \"a\", \"params\": {}}</tool_call>";
    let o = ParseOptions {
        max_calls: 2,
        ..opts()
    };
    let p = parse(&one.repeat(3), &o);
    assert_eq!(p.calls().count(), 2);
    assert!(p.capped);
    assert_eq!(p.items.last(), Some(&Item::Text(one.into())));
    assert!(!parse(&one.repeat(2), &o).capped);
}

#[test]
fn the_first_good_call_decides_the_dialect() {
    let t = "<tool_call>\n{\"name\": calculator, \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3\"}}\n</tool_call>";
    assert_eq!(parse(t, &opts()).dialect, Some(Dialect::Hermes));
}
