//! The MCP shapes, and one session in process over a pipe with mock tools (the real binary is driven by the
//! official Python SDK in tests/all/mcp.rs).

use crate::render::{call_result, split_images};
use crate::{serve, Options};
use beaker_core::{CallContext, Envelope, ErrorKind, Tool, ToolError, ToolSpec};
use beaker_engine::Engine;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

struct Mock {
    spec: ToolSpec,
    f: fn(&Value, &CallContext) -> Result<Value, ToolError>,
}

impl Tool for Mock {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        (self.f)(params, ctx)
    }
}

fn mock(name: &str, f: fn(&Value, &CallContext) -> Result<Value, ToolError>) -> Arc<dyn Tool> {
    Arc::new(Mock {
        spec: ToolSpec {
            name: name.into(),
            description: format!("the {name} mock"),
            params_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": false}),
            result_schema: json!({"type": "object"}),
            examples: vec![],
            notes: String::new(),
        },
        f,
    })
}

fn engine() -> Engine {
    Engine::builder()
        .config(beaker_engine::Config {
            workers: 1,
            ..beaker_engine::Config::default()
        })
        .tool(mock("double", |p, _| {
            Ok(json!({"value": p["n"].as_i64().unwrap_or(0) * 2}))
        }))
        .tool(mock("spin", |_, ctx| loop {
            ctx.checkpoint()?;
            std::thread::sleep(Duration::from_millis(1));
        }))
        .build()
        .expect("engine")
}

#[test]
fn a_png_and_figures_become_image_blocks_and_leave_the_text() {
    let (view, images) = split_images(
        &json!({"image": "iVBORw0K", "format": "png", "width": 4, "figures": ["AAAA", "BBBB"]}),
    );
    assert_eq!(
        images,
        vec![
            ("image/png", "iVBORw0K".to_string()),
            ("image/png", "AAAA".to_string()),
            ("image/png", "BBBB".to_string())
        ]
    );
    assert_eq!(view["image"], "(png image 1: in the image block)");
    assert_eq!(view["figures"][1], "(png image 3: in the image block)");
    assert_eq!(view["width"], 4);
}

#[test]
fn an_svg_document_is_base64_encoded_and_base64_svg_kept() {
    let (_, images) = split_images(&json!({"image": "<svg/>", "format": "svg"}));
    assert_eq!(images, vec![("image/svg+xml", "PHN2Zy8+".to_string())]);
    let (_, images) = split_images(&json!({"image": "PHN2Zy8+", "format": "svg"}));
    assert_eq!(images, vec![("image/svg+xml", "PHN2Zy8+".to_string())]);
    // No format, or one that is not a picture: nothing is taken out.
    let plain = json!({"image": "x", "value": 3});
    assert_eq!(split_images(&plain), (plain.clone(), vec![]));
    let (_, images) = split_images(&json!({"image": "x", "format": "pdf"}));
    assert!(images.is_empty());
}

#[test]
fn a_long_text_block_keeps_its_head_and_tail() {
    use crate::render::{capped, MAX_TEXT_BYTES};
    let short = "é".repeat(100);
    assert_eq!(capped(short.clone()), short);
    // Two-byte characters: the cuts must fall on character boundaries.
    let long = format!("start{}end", "é".repeat(MAX_TEXT_BYTES));
    let c = capped(long.clone());
    assert!(c.len() < MAX_TEXT_BYTES + 200, "{}", c.len());
    assert!(c.starts_with("start") && c.ends_with("end"));
    assert!(c.contains("bytes not shown here; the whole result is in structuredContent"));
}

#[test]
fn failures_are_error_results_with_their_kind() {
    let env = Envelope::failure(
        None,
        "double",
        ToolError::new(ErrorKind::DomainError, "log of a negative number"),
    );
    let r = serde_json::to_value(call_result(&env).expect("result")).expect("json");
    assert_eq!(r["isError"], true);
    // No structuredContent: the tool's outputSchema describes results, not errors.
    assert!(r.get("structuredContent").is_none(), "{r}");
    assert_eq!(r["_meta"]["beaker/error_kind"], "domain_error");
    assert_eq!(r["_meta"]["beaker/fault"], "model");
    assert_eq!(r["_meta"]["beaker/retryable"], false);
    let text = r["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("log of a negative number"), "{text}");
    assert!(!text.contains("partial"), "{text}");
}

#[test]
fn a_stopped_program_shows_what_it_printed() {
    let err = ToolError::new(ErrorKind::Timeout, "ran past its 300 ms execution limit")
        .with_partial(serde_json::json!({"stdout": "step 41\n", "stderr": "", "truncated": false}));
    let env = Envelope::failure(None, "execute_python", err);
    let r = serde_json::to_value(call_result(&env).expect("result")).expect("json");
    let text = r["content"][0]["text"].as_str().expect("text");
    assert!(text.contains("step 41"), "{text}");
    assert!(text.contains("partial"), "{text}");
}

/// A client over an in-process pipe: writes requests, reads what the server answers.
struct Pipe {
    tx: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    rx: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
}

impl Pipe {
    async fn send(&mut self, v: Value) {
        let mut line = serde_json::to_vec(&v).expect("json");
        line.push(b'\n');
        self.tx.write_all(&line).await.expect("write");
    }

    /// The next message that is not a notification.
    async fn answer(&mut self) -> Value {
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(Duration::from_secs(60), self.rx.read_line(&mut line))
                .await
                .expect("an answer within a minute")
                .expect("read");
            assert!(n > 0, "the server closed the pipe");
            let v: Value = serde_json::from_str(&line).expect("the server writes JSON lines");
            if v.get("id").is_some() {
                return v;
            }
        }
    }
}

/// A session through the `initialize` handshake (2025-11-25): the pipe, and the answer to `initialize`.
async fn session(options: Options) -> (Pipe, Value) {
    let (client, server) = tokio::io::duplex(1 << 20);
    let (server_rx, server_tx) = tokio::io::split(server);
    tokio::spawn(serve(engine(), options, server_rx, server_tx));
    let (rx, tx) = tokio::io::split(client);
    let mut p = Pipe {
        tx,
        rx: BufReader::new(rx),
    };
    p.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
        .await;
    let init = p.answer().await;
    p.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    (p, init)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_lists_calls_fails_and_cancels() {
    let (mut p, init) = session(Options::default()).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "beaker");

    p.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    let list = p.answer().await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["double", "spin"]);
    assert_eq!(list["result"]["tools"][0]["outputSchema"]["type"], "object");

    p.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "double", "arguments": {"n": 21}}}))
        .await;
    let ok = p.answer().await;
    assert_eq!(
        ok["result"]["structuredContent"],
        json!({"value": 42}),
        "{ok}"
    );
    assert_eq!(ok["result"]["isError"], false);

    // Bad params are the model's to fix: an error result, not a protocol error.
    p.send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "double", "arguments": {"n": "x"}}}))
        .await;
    let bad = p.answer().await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert_eq!(
        bad["result"]["_meta"]["beaker/error_kind"],
        "invalid_params"
    );

    // An unknown tool is a protocol error naming the tools.
    p.send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "dubble", "arguments": {}}}))
        .await;
    let unknown = p.answer().await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(unknown["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("double")));

    // Limits in _meta are honoured.
    p.send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "spin", "arguments": {},
        "_meta": {"beaker/limits": {"timeout_ms": 50}}}}))
        .await;
    let timed_out = p.answer().await;
    assert_eq!(
        timed_out["result"]["_meta"]["beaker/error_kind"], "timeout",
        "{timed_out}"
    );
    p.send(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "spin", "arguments": {},
        "_meta": {"beaker/limits": {"timeout_ms": "soon"}}}}))
        .await;
    let unreadable = p.answer().await;
    assert_eq!(unreadable["error"]["code"], -32602, "{unreadable}");

    // A second call with the id of one in flight is refused, and the first cancelled (rmcp could not send its
    // answer any more): one error answer, and the only worker is free for the calls below.
    p.send(json!({"jsonrpc": "2.0", "id": 70, "method": "tools/call", "params": {"name": "spin", "arguments": {},
        "_meta": {"beaker/limits": {"timeout_ms": 600000}}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.send(json!({"jsonrpc": "2.0", "id": 70, "method": "tools/call", "params": {"name": "double", "arguments": {"n": 1}}}))
        .await;
    let dup = p.answer().await;
    assert_eq!(dup["error"]["code"], -32600, "{dup}");

    // A cancelled call is answered cancelled at once, long before its 10-minute limit.
    p.send(json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "spin", "arguments": {},
        "_meta": {"beaker/limits": {"timeout_ms": 600000}}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    p.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}}),
    )
    .await;
    p.send(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "double", "arguments": {"n": 1}}}))
        .await;
    // MCP says a cancelled request gets no answer; if one comes, it must say cancelled. With one worker,
    // the next call is answered only if the cancelled one let go of it.
    let answer = loop {
        let a = p.answer().await;
        if a["id"] == 8 {
            assert_eq!(
                a["result"]["_meta"]["beaker/error_kind"], "cancelled",
                "{a}"
            );
            continue;
        }
        break a;
    };
    assert_eq!(
        answer["result"]["structuredContent"]["value"], 2,
        "{answer}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_asks_for_progress_hears_it_runs() {
    let (mut p, _) = session(Options {
        progress_every: Duration::from_millis(20),
        ..Options::default()
    })
    .await;
    p.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "spin", "arguments": {},
        "_meta": {"progressToken": "p1", "beaker/limits": {"timeout_ms": 300}}}}))
        .await;
    let mut progress = Vec::new();
    let answer = loop {
        let mut line = String::new();
        p.rx.read_line(&mut line).await.expect("read");
        let v: Value = serde_json::from_str(&line).expect("json");
        if v.get("id").is_some() {
            break v;
        }
        if v["method"] == "notifications/progress" {
            progress.push(v["params"]["progress"].as_f64().unwrap_or(-1.0));
            assert_eq!(v["params"]["progressToken"], "p1");
        }
    };
    assert_eq!(answer["result"]["_meta"]["beaker/error_kind"], "timeout");
    assert!(progress.len() >= 2, "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0] < w[1]), "{progress:?}");
}
