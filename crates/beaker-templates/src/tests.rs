//! The built-in templates against transformers' own rendering (tests/data/templates/golden.json, written by
//! tests/data/gen/chat_templates.py), and the pieces the observation is made of.

use super::*;
use serde_json::json;

const GOLDEN: &str = include_str!("../../../tests/data/templates/golden.json");

fn turn<'a>(
    case: &'a Value,
    tools: &'a [Value],
    kwargs: &'a Map<String, Value>,
    output: Option<&'a str>,
) -> Turn<'a> {
    Turn {
        history: case["history"].as_array().map_or(&[], Vec::as_slice),
        assistant: &case["assistant"],
        tool_messages: case["tool_messages"].as_array().map_or(&[], Vec::as_slice),
        tools,
        model_output: output,
        kwargs,
    }
}

#[test]
fn every_builtin_template_renders_transformers_observations() {
    let golden: Value = serde_json::from_str(GOLDEN).expect("golden.json");
    let tools = golden["tools"].as_array().cloned().unwrap_or_default();
    let kwargs = golden["kwargs"].as_object().cloned().unwrap_or_default();
    let cases = golden["cases"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        cases.len(),
        BUILTINS.len() * 5,
        "every template, five conversations"
    );
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["template"].as_str().unwrap_or("");
        let what = format!("{name}/{}", case["conversation"].as_str().unwrap_or(""));
        let t = ChatTemplate::builtin(name).expect("a built-in template");
        let e = &case["expected"];
        if let Some(message) = e["error"].as_str() {
            match t.observation(&turn(case, &tools, &kwargs, Some(""))) {
                Err(TemplateError::Raised(m)) if m == message => {}
                other => failures.push(format!(
                    "{what}: expected the template to raise `{message}`, got {other:?}"
                )),
            }
            continue;
        }
        for (output, want, parts) in [
            (e["model_output"].as_str(), &e["observation"], true),
            (
                e["model_output_with_stop"].as_str(),
                &e["observation_after_stop"],
                false,
            ),
            (None, &e["messages_observation"], false),
        ] {
            match t.observation(&turn(case, &tools, &kwargs, output)) {
                Ok(o) => {
                    if o.text != want.as_str().unwrap_or("") {
                        failures.push(format!(
                            "{what} (output {:?}):\n  got  {:?}\n  want {:?}",
                            output.map(|o| o
                                .chars()
                                .rev()
                                .take(40)
                                .collect::<String>()
                                .chars()
                                .rev()
                                .collect::<String>()),
                            o.text,
                            want
                        ));
                    }
                    if parts {
                        let got: Vec<Value> = o
                            .parts
                            .iter()
                            .map(|p| json!([p.role.as_str(), p.text]))
                            .collect();
                        let want: Vec<Value> = e["parts"]
                            .as_array()
                            .map(|ps| ps.iter().filter(|p| p[1] != "").cloned().collect())
                            .unwrap_or_default();
                        if got != want {
                            failures.push(format!("{what}: parts {got:?}, want {want:?}"));
                        }
                    }
                }
                Err(err) => failures.push(format!("{what}: {err}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_template_from_source_is_compiled_once_and_errors_are_typed() {
    let src = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}";
    let a = ChatTemplate::from_source(src, "", "").expect("compiles");
    let b = ChatTemplate::from_source(src, "", "").expect("compiles");
    assert!(
        Arc::ptr_eq(&a, &b),
        "the second request reuses the compiled template"
    );
    let out = a
        .render(
            &[json!({"role": "user", "content": "hi"})],
            &[],
            true,
            &Map::new(),
        )
        .expect("renders");
    assert_eq!(out, "<user>hi<assistant>");
    assert!(matches!(
        ChatTemplate::from_source("{% for %}", "", ""),
        Err(TemplateError::Compile(_))
    ));
    assert!(matches!(
        ChatTemplate::from_source(&"x".repeat(MAX_SOURCE_BYTES + 1), "", ""),
        Err(TemplateError::Compile(_))
    ));
    assert!(matches!(
        ChatTemplate::builtin("gpt-2"),
        Err(TemplateError::Unknown(_))
    ));
    let raising = ChatTemplate::from_source("{{ raise_exception('no tools here') }}", "", "")
        .expect("compiles");
    assert_eq!(
        raising.render(&[], &[], false, &Map::new()),
        Err(TemplateError::Raised("no tools here".into()))
    );
    // A template is code from a model repository: a loop that never ends runs out of fuel.
    let endless = ChatTemplate::from_source(
        "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
        "",
        "",
    )
    .expect("compiles");
    assert!(matches!(
        endless.render(&[], &[], false, &Map::new()),
        Err(TemplateError::Render(_))
    ));
}

#[test]
fn the_turn_end_is_the_templates_whatever_the_output_ends_with() {
    let t = ChatTemplate::builtin("qwen2.5").expect("built in");
    let rendered = "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>\n";
    let end = |out: &str| t.turn_end(rendered, out).expect("an end");
    // The output as the template renders it, with its stop token kept, with a trailing newline, strayed, with
    // text after the call, ending in a character the turn does not hold, or in the model's other stop token.
    assert_eq!(
        end("Hi\n<tool_call>\n{\"a\": 1}\n</tool_call>"),
        "<|im_end|>\n"
    );
    assert_eq!(
        end("Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>"),
        "\n"
    );
    assert_eq!(
        end("Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>\n"),
        ""
    );
    assert_eq!(
        end("Hi\n<tool_call>\n{\"a\": 1}\n</tool_call>\n"),
        "<|im_end|>\n"
    );
    assert_eq!(end("Hi <tool_call>{\"a\":1}</tool_call>"), "<|im_end|>\n");
    assert_eq!(
        end("<tool_call>{\"a\": 1}</tool_call>\nI will wait for the result."),
        "<|im_end|>\n"
    );
    assert_eq!(
        end("<tool_call>{\"a\": 1}</tool_call>\n\nok)"),
        "<|im_end|>\n"
    );
    assert_eq!(
        end("<tool_call>{\"a\": 1}</tool_call><|endoftext|>"),
        "<|im_end|>\n"
    );
    assert_eq!(end(""), "<|im_end|>\n");
    // A template whose turn end is unknown says so instead of guessing.
    let custom =
        ChatTemplate::from_source("{% for m in messages %}{{ m.content }}{% endfor %}", "", "")
            .expect("compiles");
    assert!(matches!(
        custom.turn_end("Hi<turn-end>", "Hi"),
        Err(TemplateError::NoTurnEnd(_))
    ));
    let custom = ChatTemplate::from_source(
        "{% for m in messages %}{{ m.content }}{% endfor %}",
        "",
        "<turn-end>",
    )
    .expect("compiles");
    assert_eq!(
        custom.turn_end("Hi<turn-end>\n", "Hi").expect("an end"),
        "<turn-end>\n"
    );
    assert_eq!(longest_suffix("abcé", |s| "xxcéyy".find(s)), Some((2, 3)));
    assert_eq!(longest_suffix("abc", |s| "xyz".find(s)), None);
}

/// Templates that are not simply incremental, from the trial: a trailer after the last message, a generation
/// prompt that replaces `eos_token` (Phi-3), `{% generation %}` blocks, `strftime_now`, `null` content.
#[test]
fn templates_with_trailers_generation_blocks_and_null_content() {
    let kwargs = Map::new();
    let assistant = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call00000", "type": "function", "function": {"name": "calculator", "arguments": {"expression": "7 * 8"}}}]});
    let tools =
        [json!({"role": "tool", "tool_call_id": "call00000", "content": "{\"value\":\"56\"}"})];
    let history = [json!({"role": "user", "content": "7*8?"})];
    let turn = |output: Option<&'static str>| Turn {
        history: &history,
        assistant: &assistant,
        tool_messages: &tools,
        tools: &[],
        model_output: output,
        kwargs: &kwargs,
    };
    let trailer = ChatTemplate::from_source(
        "{% for m in messages %}{{ m.role }}:{{ m.content }}<|end|>\n{% endfor %}x",
        "",
        "",
    )
    .expect("compiles");
    let o = trailer.observation(&turn(None)).expect("renders");
    assert_eq!(o.text, "tool:{\"value\":\"56\"}<|end|>\nx");
    let phi = ChatTemplate::from_source(
        "{% for m in messages %}<|{{ m.role }}|>\n{% generation %}{{ m.content }}{% endgeneration %}<|end|>\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% else %}{{ eos_token }}{% endif %}",
        "<s>",
        "<|endoftext|>",
    )
    .expect("compiles");
    let o = phi.observation(&turn(Some(""))).expect("renders");
    assert_eq!(
        o.text,
        "<|end|>\n<|tool|>\n{\"value\":\"56\"}<|end|>\n<|assistant|>\n"
    );
    let dated = ChatTemplate::from_source("{{ strftime_now('%Y-%m-%d %b %%') }}", "", "")
        .expect("compiles");
    let today = dated.render(&[], &[], false, &kwargs).expect("renders");
    assert!(
        today.len() == 16 && today.starts_with("20") && today.ends_with(" %"),
        "{today}"
    );
    // Qwen3 cannot test a null content; it is rendered as "".
    let qwen3 = ChatTemplate::builtin("qwen3").expect("built in");
    assert!(qwen3.observation(&turn(None)).is_ok());
}

#[test]
fn renderings_that_part_inside_a_character_split_before_it() {
    assert_eq!(common_prefix("aé", "aè"), 1);
    assert_eq!(common_prefix("｜x", "｜y"), "｜".len());
    // A template whose last message is followed by a trailer that differs inside a multi-byte character.
    let t = ChatTemplate::from_source(
        "{% for m in messages %}{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}é{% else %}è{% endif %}",
        "",
        "",
    )
    .expect("compiles");
    let history = [json!({"role": "user", "content": "q"})];
    let assistant = json!({"role": "assistant", "content": "a", "tool_calls": []});
    let tools = [json!({"role": "tool", "content": "r"})];
    let kwargs = Map::new();
    let o = t
        .observation(&Turn {
            history: &history,
            assistant: &assistant,
            tool_messages: &tools,
            tools: &[],
            model_output: Some("a"),
            kwargs: &kwargs,
        })
        .expect("renders");
    assert_eq!(o.text, "<|end|>r<|end|>é");
}

/// From a review: hostile sources and values are refused with an error, never a panic, an abort or a hang.
#[test]
fn hostile_templates_are_bounded() {
    assert!(matches!(
        ChatTemplate::from_source("{%}", "", ""),
        Err(TemplateError::Compile(_))
    ));
    let render = |src: &str| {
        ChatTemplate::from_source(src, "", "")
            .expect("compiles")
            .render(&[], &[], false, &Map::new())
    };
    // Output past the cap, a value nested past the depth limit, an absurd indent.
    assert!(matches!(
        render("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}"),
        Err(TemplateError::Render(m)) if m.contains("bytes")
    ));
    assert!(matches!(
        render("{% set ns = namespace(x=[]) %}{% for i in range(500) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x | tojson }}"),
        Err(TemplateError::Render(m)) if m.contains("deeper")
    ));
    assert_eq!(
        render("{{ [1] | tojson(indent=1000000000000) }}")
            .expect("renders")
            .len(),
        2 + 64 + 3
    );
    // Python's json.dumps keeps integral floats floats.
    assert_eq!(
        render("{{ [2.0, -0.0, 3] | tojson }}").expect("renders"),
        "[2.0, -0.0, 3]"
    );
}
