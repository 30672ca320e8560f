//! Text mode as a client sees it: `{"text": ...}` and `{"messages": [...]}` requests to `beaker serve`, and
//! `beaker run-text`. Cases live in `tests/data/dialects/text_mode.jsonl`; the rest are behaviours (cancel,
//! bad requests, determinism, exit codes, prompt catalogs).

use crate::support::{beaker, ensure, jsonl, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::Write;
use std::process::Stdio;

fn check_reply(name: &str, got: &Value, expect: &Value) -> Outcome {
    ensure(got["dialect"] == expect["dialect"], || {
        format!(
            "{name}: dialect {} != {}",
            got["dialect"], expect["dialect"]
        )
    })?;
    for key in ["text", "messages"] {
        if let Some(want) = expect.get(key) {
            ensure(&got[key] == want, || {
                format!("{name}: {key}\n got {}\nwant {want}", got[key])
            })?;
        }
    }
    let capped = got.get("capped").cloned().unwrap_or(json!(false));
    let want_capped = expect.get("capped").cloned().unwrap_or(json!(false));
    ensure(capped == want_capped, || format!("{name}: capped {capped}"))?;
    if let Some(ids) = expect.get("call_ids") {
        let have: Vec<Value> = got["calls"]
            .as_array()
            .map(|c| c.iter().map(|c| c["id"].clone()).collect())
            .unwrap_or_default();
        ensure(&Value::Array(have.clone()) == ids, || {
            format!("{name}: call ids {have:?}")
        })?;
    }
    if let Some(ids) = expect.get("message_ids") {
        let have: Vec<Value> = got["messages"]
            .as_array()
            .map(|m| m.iter().map(|m| m["tool_call_id"].clone()).collect())
            .unwrap_or_default();
        ensure(&Value::Array(have.clone()) == ids, || {
            format!("{name}: message ids {have:?}")
        })?;
    }
    let calls = got["calls"].as_array().cloned().unwrap_or_default();
    let want = expect["calls"].as_array().cloned().unwrap_or_default();
    ensure(calls.len() == want.len(), || {
        format!(
            "{name}: {} calls, expected {}: {got}",
            calls.len(),
            want.len()
        )
    })?;
    for (i, (c, w)) in calls.iter().zip(&want).enumerate() {
        ensure(c["success"] == w["success"], || {
            format!("{name} call {i}: {c}")
        })?;
        if let Some(v) = w.get("value") {
            ensure(&c["result"]["value"] == v, || {
                format!("{name} call {i}: {c}")
            })?;
        }
        if let Some(k) = w.get("error_kind") {
            ensure(&c["error_kind"] == k, || format!("{name} call {i}: {c}"))?;
        }
        if let Some(s) = w.get("error_contains").and_then(Value::as_str) {
            let e = c["error"].as_str().unwrap_or("");
            ensure(e.contains(s), || {
                format!("{name} call {i}: {e:?} lacks {s:?}")
            })?;
        }
        for flag in ["repaired", "incomplete"] {
            let want = w.get(flag).cloned().unwrap_or(Value::Null);
            ensure(c.get(flag).cloned().unwrap_or(Value::Null) == want, || {
                format!("{name} call {i}: {flag} should be {want}: {c}")
            })?;
        }
    }
    Ok(())
}

/// Every case of the data file through one server, all sent before any answer is read.
fn cases_through_serve() -> Outcome {
    let cases = jsonl("tests/data/dialects/text_mode.jsonl");
    let mut s = Server::start(&[]);
    for (i, c) in cases.iter().enumerate() {
        let mut req = c["request"].clone();
        req["id"] = json!(i);
        s.send(&req);
    }
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(out.len() == cases.len(), || {
        format!("{} answers for {} requests", out.len(), cases.len())
    })?;
    for r in &out {
        let i = r["id"]
            .as_u64()
            .ok_or("an answer without the request's id")? as usize;
        check_reply(
            cases[i]["name"].as_str().unwrap_or(""),
            r,
            &cases[i]["expect"],
        )?;
    }
    Ok(())
}

/// The same cases through `beaker run-text --json` (stdin is the text, or the conversation).
fn cases_through_run_text() -> Outcome {
    for c in jsonl("tests/data/dialects/text_mode.jsonl") {
        let req = &c["request"];
        let mut args = vec!["run-text".to_string(), "--json".into()];
        if let Some(d) = req["dialect"].as_str() {
            args.extend(["--dialect".into(), d.into()]);
        }
        if req["lenient"] == json!(true) {
            args.push("--lenient".into());
        }
        if req["include_think"] == json!(true) {
            args.push("--include-think".into());
        }
        if let Some(n) = req["max_calls"].as_u64() {
            args.extend(["--max-calls".into(), n.to_string()]);
        }
        let input = match req.get("messages") {
            Some(m) => json!({"messages": m}).to_string(),
            None => req["text"].as_str().unwrap_or("").to_string(),
        };
        let out = run(&args, &input);
        let got: Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {out:?}"))?;
        let name = c["name"].as_str().unwrap_or("");
        check_reply(name, &got, &c["expect"])?;
        let all_ok = c["expect"]["calls"]
            .as_array()
            .is_none_or(|calls| calls.iter().all(|c| c["success"] == json!(true)));
        let code = out.status.code();
        ensure(code == Some(if all_ok { 0 } else { 1 }), || {
            format!("{name}: exit {code:?}")
        })?;
    }
    Ok(())
}

/// The same cases through the embedding API (`Dispatcher::run_text`, `Dispatcher::run_messages`).
fn cases_through_the_api() -> Outcome {
    let engine = beaker::Dispatcher::new(beaker::engine().map_err(|e| e.to_string())?);
    for c in jsonl("tests/data/dialects/text_mode.jsonl") {
        let req = &c["request"];
        let base = beaker::TextRequest {
            text: req["text"].as_str().unwrap_or("").to_string(),
            options: beaker::dialects::ParseOptions {
                dialect: req["dialect"]
                    .as_str()
                    .and_then(beaker::dialects::Dialect::from_name),
                lenient: req["lenient"] == json!(true),
                include_think: req["include_think"] == json!(true),
                max_calls: req["max_calls"]
                    .as_u64()
                    .map_or(beaker::dialects::DEFAULT_MAX_CALLS, |n| n as usize),
                ..Default::default()
            },
            ..Default::default()
        };
        let reply = match req["messages"].as_array() {
            Some(m) => engine.run_messages(m, &base).map_err(|e| e.to_string())?,
            None => engine.run_text(base),
        };
        check_reply(
            c["name"].as_str().unwrap_or(""),
            &reply.to_json(),
            &c["expect"],
        )?;
    }
    Ok(())
}

fn run(args: &[String], stdin: &str) -> std::process::Output {
    run_bytes(args, stdin.as_bytes())
}

fn run_bytes(args: &[String], stdin: &[u8]) -> std::process::Output {
    let mut child = beaker()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn beaker");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("wait")
}

fn run_text_prints_the_text_to_append() -> Outcome {
    let out = run(
        &["run-text".into()],
        "<|tool_call|><|tool_name|>calculator<|tool_args|>{\"expression\": \"7 * 8\"}<|/tool_call|>",
    );
    ensure(out.status.success(), || format!("{out:?}"))?;
    ensure(out.stdout == b"<|tool_result|>56<|/tool_result|>\n", || {
        format!("{:?}", String::from_utf8_lossy(&out.stdout))
    })?;
    // A generation cut inside a multi-byte character: the text is read lossily and its calls still run.
    let bytes = b"abc \xff <tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"2+2\"}}</tool_call> \xe2\x82";
    let out = run_bytes(&["run-text".into()], bytes);
    ensure(out.status.success(), || format!("{out:?}"))?;
    ensure(
        String::from_utf8_lossy(&out.stdout).contains("\"value\": \"4\""),
        || format!("{out:?}"),
    )?;
    let conversation = r#"{"messages": [{"role": "assistant", "tool_calls": []}]}"#;
    let out = run(
        &["run-text".into(), "--dialect".into(), "svend".into()],
        conversation,
    );
    ensure(out.status.code() == Some(2), || {
        format!("a conversation under --dialect svend is a usage error: {out:?}")
    })?;
    let out = run(
        &["run-text".into(), "--dialect".into(), "martian".into()],
        "x",
    );
    ensure(out.status.code() == Some(2), || {
        format!("a bad dialect exits 2: {out:?}")
    })?;
    Ok(())
}

/// A text's calls run concurrently and `cancel` with the text's id cancels all of them.
fn cancelling_a_text_cancels_its_calls() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    let text = "<tool_call>{\"tool\": \"_block\", \"params\": {}}</tool_call><tool_call>{\"tool\": \"_block\", \"params\": {}}</tool_call>";
    s.send(&json!({"id": "t", "text": text, "limits": {"timeout_ms": 600000}}));
    // Both calls are blocked at once only if they run concurrently; an answer to the hello proves the
    // server is still reading while they run.
    s.send(&json!({"id": "h", "hello": {}}));
    ensure(s.recv()["id"] == json!("h"), || {
        "hello not answered first".into()
    })?;
    s.send(&json!({"id": "k", "cancel": "t"}));
    let mut got = vec![s.recv(), s.recv()];
    got.sort_by_key(|v| v["id"].to_string());
    ensure(
        got[0]["id"] == json!("k") && got[0]["found"] == json!(true),
        || format!("{got:?}"),
    )?;
    let calls = got[1]["calls"].as_array().cloned().unwrap_or_default();
    ensure(calls.len() == 2, || format!("{got:?}"))?;
    for c in calls {
        ensure(c["error_kind"] == json!("cancelled"), || format!("{c}"))?;
    }
    Ok(())
}

fn bad_text_requests_are_answered_and_the_server_goes_on() -> Outcome {
    let mut s = Server::start(&[]);
    let bad = [
        json!({"id": 1, "text": "x", "dialekt": "svend"}),
        json!({"id": 2, "text": 7}),
        json!({"id": 3, "text": "x", "dialect": "martian"}),
        json!({"id": 4, "text": "x", "lenient": "yes"}),
        json!({"id": 5, "messages": {"role": "assistant"}}),
        json!({"id": 6, "messages": [{"role": "user", "content": "hi"}]}),
        json!({"id": 7, "messages": [{"role": "assistant", "content": "no calls"}]}),
        json!({"id": 8, "text": "x", "limits": {"timeout_mss": 1}}),
    ];
    for b in &bad {
        s.send(b);
    }
    s.send(&json!({"id": 9, "text": "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"2+2\"}}</tool_call>"}));
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(out.len() == bad.len() + 1, || format!("{out:?}"))?;
    for r in &out {
        if r["id"] == json!(9) {
            ensure(r["calls"][0]["result"]["value"] == json!("4"), || {
                format!("{r}")
            })?;
        } else {
            ensure(r["error_kind"] == json!("parse_error"), || format!("{r}"))?;
        }
    }
    Ok(())
}

/// RL needs the same bytes for the same calls: rendered text carries no timings.
fn rendered_text_is_deterministic() -> Outcome {
    let text = "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"pi\", \"precision\": 30}}</tool_call>\n```json\n{\"tool\": \"calculator\", \"params\": {\"expression\": \"1/0\"}}\n```";
    let a = run(&["run-text".into()], text);
    let b = run(&["run-text".into()], text);
    ensure(a.stdout == b.stdout && !a.stdout.is_empty(), || {
        format!("{a:?} vs {b:?}")
    })
}

fn prompt_catalogs_in_every_format() -> Outcome {
    let expect: &[(&str, &str)] = &[
        ("svend", "<|tool_call|><|tool_name|>calculator<|tool_args|>{\"expression\": \"7 * 8\"}<|/tool_call|>\n<|tool_result|>56<|/tool_result|>"),
        ("tagged", "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"7 * 8\"}}</tool_call>"),
        ("hermes", "<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"calculator\""),
        ("fenced", "```json\n{\n  \"tool\": \"calculator\",\n  \"params\": {\n    \"expression\": \"7 * 8\"\n  }\n}\n```"),
        ("openai", "\"type\": \"function\""),
        ("mcp", "\"inputSchema\""),
        ("markdown", "## `calculator`"),
    ];
    for (format, needle) in expect {
        let out = run(&["tools".into(), "--format".into(), (*format).into()], "");
        let text = String::from_utf8_lossy(&out.stdout);
        ensure(out.status.success() && text.contains(needle), || {
            format!("--format {format} lacks {needle:?}:\n{text}")
        })?;
        if *format == "hermes" {
            ensure(text.matches("Exact arithmetic.").count() == 1, || {
                "hermes repeats the description".into()
            })?;
        }
        if matches!(*format, "openai" | "mcp") {
            serde_json::from_str::<Value>(&text).map_err(|e| format!("{format}: {e}"))?;
        }
    }
    Ok(())
}

/// `beaker call ... | head -c 100`: the reader goes away; the binary must not panic.
fn a_closed_stdout_is_not_a_panic() -> Outcome {
    let mut child = beaker()
        .args([
            "call",
            "calculator",
            r#"{"expression": "factorial(30000)"}"#,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    drop(child.stdout.take());
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure(
        out.status.code() != Some(101) && !stderr.contains("panicked"),
        || format!("{:?}: {stderr}", out.status),
    )
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("text_mode::cases_through_serve", cases_through_serve),
        Trial::test("text_mode::cases_through_run_text", cases_through_run_text),
        Trial::test("text_mode::cases_through_the_api", cases_through_the_api),
        Trial::test(
            "text_mode::a_closed_stdout_is_not_a_panic",
            a_closed_stdout_is_not_a_panic,
        ),
        Trial::test(
            "text_mode::run_text_prints_the_text_to_append",
            run_text_prints_the_text_to_append,
        ),
        Trial::test(
            "text_mode::cancelling_a_text_cancels_its_calls",
            cancelling_a_text_cancels_its_calls,
        ),
        Trial::test(
            "text_mode::bad_text_requests_are_answered_and_the_server_goes_on",
            bad_text_requests_are_answered_and_the_server_goes_on,
        ),
        Trial::test(
            "text_mode::rendered_text_is_deterministic",
            rendered_text_is_deterministic,
        ),
        Trial::test(
            "text_mode::prompt_catalogs_in_every_format",
            prompt_catalogs_in_every_format,
        ),
    ]
}
