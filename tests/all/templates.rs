//! Chat-template observations over `beaker serve` and `beaker run-text`: the golden conversations of
//! tests/data/templates/golden.json (rendered by transformers) run for real, in text mode for the templates whose
//! call syntax Beaker reads and in `messages` mode for all of them; bad templates refused, hostile ones bounded.

use crate::support::{beaker, ensure, root, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::Write;
use std::process::Stdio;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "templates::text_requests_get_transformers_observations",
            text_mode,
        ),
        Trial::test(
            "templates::messages_requests_get_transformers_observations",
            messages_mode,
        ),
        Trial::test("templates::a_template_given_as_source", from_source),
        Trial::test("templates::bad_and_hostile_templates", bad_templates),
        Trial::test("templates::run_text_prints_the_observation", run_text_cli),
        Trial::test("templates::the_protocol_docs_example_runs", docs_example),
    ]
}

fn golden() -> Value {
    let path = root().join("tests/data/templates/golden.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("golden.json")).expect("json")
}

/// The golden cases Beaker runs for real: every template and conversation not refused by its template.
fn cases(g: &Value) -> Vec<Value> {
    g["cases"].as_array().cloned().unwrap_or_default()
}

/// The templates whose calls Beaker's dialects read in text: `<tool_call>{"name", "arguments"}</tool_call>`
/// (hermes), Llama's bare `{"name", "parameters"}` JSON (a leading `{`), Mistral's `[TOOL_CALLS]` and
/// DeepSeek's call tokens: all eight.
const READABLE: [&str; 8] = [
    "qwen2.5",
    "qwen3",
    "hermes2pro",
    "llama3.1",
    "llama3.2",
    "mistral",
    "deepseek-v3",
    "deepseek-r1",
];

fn text_mode() -> Outcome {
    let g = golden();
    let mut server = Server::start(&["--no-python"]);
    let mut checked = 0;
    for (i, c) in cases(&g).iter().enumerate() {
        let name = c["template"].as_str().unwrap_or("");
        // Text mode knows no earlier turns, so a conversation's second round is checked in messages mode.
        let e = &c["expected"];
        // The template's own refusals (Llama's single call) have no output to continue.
        if !READABLE.contains(&name)
            || c["conversation"] == "second_round"
            || e.get("error").is_some()
        {
            continue;
        }
        for (output, want) in [
            (&e["model_output"], &e["observation"]),
            (&e["model_output_with_stop"], &e["observation_after_stop"]),
        ] {
            // R1's generation prompt ends `<think>\n`, which its rendered turn lacks: the golden output is the
            // turn after the prefix the two share, `…<｜Assistant｜><`. The model writes that `<` itself.
            let output = match output.as_str() {
                Some(o) if name == "deepseek-r1" && !o.starts_with('<') => json!(format!("<{o}")),
                _ => output.clone(),
            };
            server.send(
                &json!({"id": i, "text": output, "template": name, "template_kwargs": g["kwargs"]}),
            );
            let r = server.recv();
            ensure(r["observation"] == *want, || {
                format!(
                    "{name}/{}: got {}\nwant {want}",
                    c["conversation"], r["observation"]
                )
            })?;
            let parts: String = r["observation_parts"]
                .as_array()
                .map(|ps| ps.iter().filter_map(|p| p["text"].as_str()).collect())
                .unwrap_or_default();
            ensure(Some(parts.as_str()) == want.as_str(), || {
                format!("parts {r}")
            })?;
            checked += 1;
        }
    }
    // 3 hermes-style, Mistral and 2 DeepSeek templates x 4 conversations + 2 Llama templates x 3 (their parallel
    // calls are refused), twice.
    ensure(checked == 60, || {
        format!("{checked} text-mode observations checked")
    })
}

/// A golden conversation as an OpenAI request: arguments as JSON strings.
fn openai_messages(c: &Value) -> Vec<Value> {
    let mut messages: Vec<Value> = c["history"].as_array().cloned().unwrap_or_default();
    messages.push(c["assistant"].clone());
    for m in &mut messages {
        if let Some(calls) = m.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for call in calls {
                let args = call["function"]["arguments"].to_string();
                call["function"]["arguments"] = json!(args);
            }
        }
    }
    messages
}

fn messages_mode() -> Outcome {
    let g = golden();
    let mut server = Server::start(&["--no-python"]);
    let (mut checked, mut refused) = (0, 0);
    for (i, c) in cases(&g).iter().enumerate() {
        let name = c["template"].as_str().unwrap_or("");
        let e = &c["expected"];
        server.send(
            &json!({"id": i, "messages": openai_messages(c), "template": name,
                            "template_kwargs": g["kwargs"]}),
        );
        let r = server.recv();
        let what = format!("{name}/{}", c["conversation"]);
        // The calls ran and answered as the golden tool messages say, whatever the template does.
        let contents: Vec<Value> = r["messages"]
            .as_array()
            .map(|ms| ms.iter().map(|m| m["content"].clone()).collect())
            .unwrap_or_default();
        let want: Vec<Value> = c["tool_messages"]
            .as_array()
            .map(|ms| ms.iter().map(|m| m["content"].clone()).collect())
            .unwrap_or_default();
        ensure(contents == want, || format!("{what}: tool messages {r}"))?;
        if let Some(message) = e["error"].as_str() {
            ensure(
                r["observation"].is_null()
                    && r["observation_error"]
                        .as_str()
                        .is_some_and(|m| m.contains(message)),
                || format!("{what}: {r}"),
            )?;
            refused += 1;
            continue;
        }
        ensure(r["observation"] == e["messages_observation"], || {
            format!(
                "{what}: got {}\nwant {}",
                r["observation"], e["messages_observation"]
            )
        })?;
        checked += 1;
    }
    ensure(checked == 38 && refused == 2, || {
        format!("{checked} checked, {refused} refused")
    })
}

fn from_source() -> Outcome {
    let g = golden();
    let source =
        std::fs::read_to_string(root().join("crates/beaker-templates/templates/qwen2.5.jinja"))
            .expect("template");
    let c = cases(&g)
        .into_iter()
        .find(|c| c["template"] == "qwen2.5" && c["conversation"] == "parallel_calls")
        .expect("case");
    let mut server = Server::start(&["--no-python"]);
    for _ in 0..2 {
        server.send(
            &json!({"id": 1, "text": c["expected"]["model_output"], "chat_template": source,
                            "template_kwargs": {"eos_token": "<|im_end|>"}}),
        );
        let r = server.recv();
        ensure(r["observation"] == c["expected"]["observation"], || {
            r.to_string()
        })?;
    }
    Ok(())
}

fn bad_templates() -> Outcome {
    let mut server = Server::start(&["--no-python"]);
    let call = "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"7 * 8\"}}\n</tool_call>";
    for (req, says) in [
        (
            json!({"id": 1, "text": call, "template": "gpt-2"}),
            "unknown template `gpt-2`",
        ),
        (
            json!({"id": 2, "text": call, "template": "qwen2.5", "chat_template": "x"}),
            "not both",
        ),
        (
            json!({"id": 3, "text": call, "chat_template": "{% for %}"}),
            "does not compile",
        ),
        (
            json!({"id": 4, "text": call, "template_kwargs": {"a": 1}}),
            "needs a `template`",
        ),
        (
            json!({"id": 5, "text": call, "template": 7}),
            "must be a string",
        ),
        (
            json!({"id": 6, "text": call, "template": "qwen2.5", "template_kwargs": []}),
            "must be an object",
        ),
    ] {
        server.send(&req);
        let r = server.recv();
        ensure(
            r["success"] == false
                && r["error_kind"] == "parse_error"
                && r["error"].as_str().is_some_and(|e| e.contains(says)),
            || format!("{req}: {r}"),
        )?;
    }
    // A template that never ends, or raises, leaves the calls' results intact and the server serving.
    for (source, says) in [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
            "fuel",
        ),
        (
            "{{ raise_exception('no tools for you') }}",
            "no tools for you",
        ),
        ("{{ messages[0].content.nope.deeper() }}", "failed"),
        // Issue 36: gigabytes built in a few instructions (fuel counts instructions, not bytes) stop at the
        // worker's memory limit, not at the machine's.
        (
            "{% set a = 'x' * 100000000 %}{% set b = ([a] * 30) | join %}{{ b | length }}",
            "MiB of memory",
        ),
        // Deep nesting that would overflow a stack ends the worker alone.
        (
            "{% set ns = namespace(v=[]) %}{% for i in range(90000) %}{% set ns.v = [ns.v] %}{% endfor %}{{ ns.v }}",
            "worker process ended",
        ),
    ] {
        server.send(&json!({"id": 7, "text": call, "chat_template": source}));
        let r = server.recv();
        ensure(
            r["calls"][0]["result"]["value"] == "56"
                && r["observation"].is_null()
                && r["observation_error"]
                    .as_str()
                    .is_some_and(|e| e.contains(says)),
            || format!("{source}: {r}"),
        )?;
    }
    // No call, no tool turn: no observation.
    server.send(&json!({"id": 8, "text": "The answer is 56.", "template": "qwen2.5"}));
    let r = server.recv();
    ensure(
        r["success"] == true && r.get("observation").is_none(),
        || r.to_string(),
    )?;
    server.send(&json!({"id": 9, "tool": "calculator", "params": {"expression": "1+1"}}));
    ensure(server.recv()["result"]["value"] == "2", || {
        "the server stopped serving".into()
    })
}

fn run_text_cli() -> Outcome {
    let g = golden();
    let c = cases(&g)
        .into_iter()
        .find(|c| c["template"] == "qwen3" && c["conversation"] == "after_think")
        .expect("case");
    let mut child = beaker()
        .args(["run-text", "--no-python", "--template", "qwen3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run-text");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(
            c["expected"]["model_output"]
                .as_str()
                .unwrap_or("")
                .as_bytes(),
        )
        .expect("write");
    let o = child.wait_with_output().expect("output");
    // Byte for byte, with no newline added.
    ensure(
        o.status.success()
            && Some(String::from_utf8_lossy(&o.stdout).as_ref())
                == c["expected"]["observation"].as_str(),
        || format!("{o:?}"),
    )
}

/// The example of PROTOCOL.md's "Observations in the model's chat template": its request, run, answers what the
/// page shows (timings aside).
fn docs_example() -> Outcome {
    let doc = std::fs::read_to_string(root().join("docs/PROTOCOL.md")).expect("PROTOCOL.md");
    let at = doc
        .find("### Observations in the model's chat template")
        .expect("the section");
    let block = doc[at..].split("```json\n").nth(1).unwrap_or("");
    let mut lines = block.lines();
    let request: Value = serde_json::from_str(lines.next().unwrap_or("")).expect("the request");
    let shown: Value = serde_json::from_str(lines.next().unwrap_or("").trim_start_matches("→ "))
        .expect("the answer");
    let mut server = Server::start(&["--no-python"]);
    server.send(&request);
    let mut got = server.recv();
    for c in got["calls"].as_array_mut().into_iter().flatten() {
        if let Some(m) = c.as_object_mut() {
            m.remove("elapsed_us");
            m.remove("queued_us");
        }
    }
    ensure(got == shown, || {
        format!("got {got}\nthe page shows {shown}")
    })
}
