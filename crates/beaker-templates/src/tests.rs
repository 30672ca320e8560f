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
fn the_turn_end_is_found_after_the_outputs_longest_tail() {
    let rendered = "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>\n";
    // The output as the template renders it, with its stop token kept, with a trailing newline, and strayed.
    assert_eq!(
        turn_end(rendered, "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call>"),
        "<|im_end|>\n"
    );
    assert_eq!(
        turn_end(
            rendered,
            "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>"
        ),
        "\n"
    );
    assert_eq!(
        turn_end(rendered, "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call>\n"),
        "<|im_end|>\n"
    );
    assert_eq!(
        turn_end(rendered, "Hi <tool_call>{\"a\":1}</tool_call>"),
        "<|im_end|>\n"
    );
    assert_eq!(
        turn_end(
            rendered,
            "Hi\n<tool_call>\n{\"a\": 1}\n</tool_call><|im_end|>\n"
        ),
        ""
    );
    assert_eq!(turn_end(rendered, ""), "");
    assert_eq!(longest_suffix("abcé", |s| "xxcéyy".find(s)), Some((2, 3)));
    assert_eq!(longest_suffix("abc", |s| "xyz".find(s)), None);
}
