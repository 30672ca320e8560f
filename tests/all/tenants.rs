//! Tenants over HTTP (`tests/data/http/tenants.jsonl`): two or three bearer tokens against one server, each step a
//! request as one token and what its answer must hold. Sessions and trajectories named alike by different
//! tokens are different; one token opening sessions without end never ends another's.

use crate::http::{Http, TokenFile};
use crate::support::{ensure, jsonl, Outcome};
use libtest_mimic::Trial;
use serde_json::Value;

/// One scenario: a server with these flags and tokens, then its steps in order.
fn run(scenario: &Value) -> Outcome {
    let name = scenario["name"].as_str().unwrap_or("?");
    let tokens = TokenFile::new(
        &format!("tenants-{name}"),
        scenario["tokens"].as_str().unwrap_or_default(),
    )?;
    let mut args: Vec<&str> = scenario["args"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    args.extend(["--http-tokens", &tokens.path]);
    let h = Http::start(&args)?;
    for (n, step) in scenario["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for i in 0..step["repeat"].as_u64().unwrap_or(1) {
            let body = match &step["body"] {
                Value::Null => String::new(),
                b => b.to_string().replace("{i}", &i.to_string()),
            };
            let auth = format!(
                "Authorization: Bearer {}\r\n",
                step["as"].as_str().unwrap_or_default()
            );
            let method = step["method"].as_str().unwrap_or("POST");
            let path = step["path"].as_str().unwrap_or("/v1/call");
            let (status, _, bytes) = h.request_with(method, path, body.as_bytes(), &auth)?;
            let got: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let at = || format!("step {n} ({i}) as {}: {status} {got}", step["as"]);
            ensure(step["status"].as_u64() == Some(u64::from(status)), at)?;
            for (pointer, want) in step["expect"].as_object().into_iter().flatten() {
                ensure(got.pointer(pointer) == Some(want), || {
                    format!("{pointer} should be {want}; {}", at())
                })?;
            }
            for (pointer, part) in step["contains"].as_object().into_iter().flatten() {
                let text = got.pointer(pointer).and_then(Value::as_str).unwrap_or("");
                ensure(text.contains(part.as_str().unwrap_or("\0")), || {
                    format!("{pointer} should contain {part}; {}", at())
                })?;
            }
        }
    }
    Ok(())
}

/// One trial per scenario.
pub fn trials() -> Vec<Trial> {
    jsonl("tests/data/http/tenants.jsonl")
        .into_iter()
        .map(|s| {
            let name = format!("tenants::{}", s["name"].as_str().unwrap_or("?"));
            Trial::test(name, move || run(&s))
        })
        .collect()
}
