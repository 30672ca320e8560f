//! Live providers' outages over the binary: `wolfram`'s WolframAlpha LLM API, `pubchem`'s PUG REST,
//! `web_search`'s SearXNG and `generate_image`'s Images API, each pointed at a local server that is down
//! (HTTP 503, 429) or at a port nobody listens on. The call fails as the tool's failure (`tool_error`, fault
//! `tool`: not the model's doing) and says `retryable`, since the same call may succeed once the provider is
//! back; a provider that refuses the request (HTTP 400) is not retryable. They once all answered
//! `retryable: false`, so a trainer dropped calls a retry would have answered.

use crate::support::{beaker, ensure, json_server, Outcome};
use libtest_mimic::Trial;
use serde_json::Value;

pub fn trials() -> Vec<Trial> {
    vec![Trial::test(
        "providers::an_outage_is_retryable_a_refusal_is_not",
        outage,
    )]
}

/// Each provider's config section for a server at `url`, and the call that reaches it.
fn providers(url: &str) -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "wolfram",
            format!("[wolfram.provider]\nappid = \"TEST\"\nurl = \"{url}\"\ntimeout_ms = 3000\n"),
            r#"{"query": "population of France"}"#,
        ),
        (
            "pubchem",
            format!("[pubchem.provider]\nurl = \"{url}/rest/pug\"\ntimeout_ms = 3000\n"),
            r#"{"operation": "properties", "identifier": "beakerol extra", "properties": ["SMILES"]}"#,
        ),
        (
            "web_search",
            format!(
                "[web_search.provider]\nkind = \"searxng\"\nurl = \"{url}\"\ntimeout_ms = 3000\n"
            ),
            r#"{"query": "JWST", "index": "web"}"#,
        ),
        (
            "generate_image",
            format!("[image.provider]\nurl = \"{url}\"\ntimeout_ms = 3000\nretries = 0\n"),
            r#"{"prompt": "a sunset", "width": 8, "height": 8}"#,
        ),
    ]
}

/// `beaker call TOOL PARAMS` with `config` as its configuration file: the envelope.
fn call(config: &str, tool: &str, params: &str) -> Result<Value, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("beaker.toml");
    std::fs::write(&path, config).map_err(|e| e.to_string())?;
    let out = beaker()
        .args(["call", "--config"])
        .arg(&path)
        .args([tool, params])
        .output()
        .map_err(|e| e.to_string())?;
    serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn outage() -> Outcome {
    let down = json_server(|_| {
        (
            503,
            r#"{"error": {"message": "down for maintenance"}}"#.into(),
        )
    })?;
    let busy = json_server(|_| (429, r#"{"error": {"message": "slow down"}}"#.into()))?;
    let refusing = json_server(|_| (400, r#"{"error": {"message": "bad request"}}"#.into()))?;
    // A port nobody listens on: bound, then let go.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        format!(
            "http://127.0.0.1:{}",
            l.local_addr().map_err(|e| e.to_string())?.port()
        )
    };
    for (url, what, retryable, says) in [
        (&down, "HTTP 503", true, "503"),
        (&busy, "HTTP 429", true, "429"),
        (&closed, "no connection", true, ""),
        (&refusing, "HTTP 400", false, ""),
    ] {
        for (tool, config, params) in providers(url) {
            let env = call(&config, tool, params)?;
            // An outage is never the model's doing; a refusal may be (the image provider's 400 names the params).
            ensure(
                env["success"] == false
                    && (!retryable || env["fault"] == "tool")
                    && env["retryable"] == retryable
                    && env["error"].as_str().is_some_and(|m| m.contains(says)),
                || format!("{tool}, provider answering {what}: {env}"),
            )?;
        }
    }
    Ok(())
}
