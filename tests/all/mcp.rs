//! `beaker serve --mcp` driven over stdio by the official MCP Python SDK (`tests/clients/mcp_client.py`): both
//! lifecycles, every tool's examples, failures, cancellation, progress and 100 concurrent calls.

use crate::support::{ensure, python_client_passes, root, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn the_python_sdk_drives_every_tool() -> Outcome {
    // generate_image's and generate_gif's examples draw through the test process's local Images API.
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = dir.path().join("beaker.toml");
    let url = crate::support::images_api()?;
    std::fs::write(&config, format!("[image.provider]\nurl = \"{url}\"\n"))
        .map_err(|e| e.to_string())?;
    python_client_passes([
        root().join("tests/clients/mcp_client.py").into_os_string(),
        env!("CARGO_BIN_EXE_beaker").into(),
        "--config".into(),
        config.into_os_string(),
        // The health tools' examples read the dataset `example` (tests/data/health's export).
        "--data".into(),
        crate::health::data_dir()?.clone().into_os_string(),
        // One native worker, so a cancelled call that kept its worker would stall the next call.
        "--test-tools".into(),
        "--workers".into(),
        "1".into(),
    ])
}

/// Hostile lines on a raw pipe: none stops the session, and stdout carries nothing but JSON-RPC (the guest's
/// output included).
fn bad_input_is_answered_or_dropped_and_stdout_stays_protocol() -> Outcome {
    let mut s = Server::start(&["--mcp", "--max-line-bytes", "65536"]);
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send_raw(b"{not json\n");
    s.send_raw(b"\xff\xfe{\"id\": 2}\n");
    s.send_raw(format!("{}\n", "[".repeat(5000)).as_bytes());
    s.send_raw(format!("\"{}\"\n", "x".repeat(100_000)).as_bytes());
    // JSON, but no JSON-RPC message: answered Invalid Request.
    s.send(&json!({"jsonrpc": "2.0", "id": 3}));
    s.send(
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "calculator",
        "arguments": {"expression": "10^^^^999999999999"}}}),
    );
    s.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "execute_python",
        "arguments": {"code": "import sys\nprint('to stdout')\nprint('to stderr', file=sys.stderr)"}}}));
    s.send(
        &json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "calculator",
        "arguments": {"expression": "6 * 7"}}}),
    );
    // Issue 36: a message nested past serde's limit, and one over the line cap, are answered under their ids;
    // a byte-order mark before a message is skipped.
    s.send_raw(
        format!(
            "{{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": \"tools/call\", \"params\": {}{}}}\n",
            "[".repeat(50_000),
            "]".repeat(50_000)
        )
        .as_bytes(),
    );
    s.send_raw(
        format!(
            "{{\"jsonrpc\": \"2.0\", \"id\": 8, \"method\": \"tools/call\", \"params\": {{\"name\": \"calculator\", \"arguments\": {{\"expression\": \"{}1\"}}}}}}\n",
            "1+".repeat(40_000)
        )
        .as_bytes(),
    );
    s.send_raw(
        b"\xef\xbb\xbf{\"jsonrpc\": \"2.0\", \"id\": 9, \"method\": \"tools/call\", \"params\": {\"name\": \"calculator\", \"arguments\": {\"expression\": \"6 * 7\"}}}\n",
    );
    // Every line parses (finish panics otherwise) and is JSON-RPC 2.0.
    let (lines, status) = s.finish();
    ensure(status.success(), || format!("exit status {status}"))?;
    ensure(lines.iter().all(|l| l["jsonrpc"] == "2.0"), || {
        format!("a line that is not JSON-RPC: {lines:?}")
    })?;
    let by_id = |id: Value| lines.iter().find(|l| l["id"] == id).cloned();
    let invalid = lines.iter().find(|l| l["error"]["code"] == -32600).cloned();
    ensure(invalid.is_some(), || {
        format!("no Invalid Request answer: {lines:?}")
    })?;
    let refused = by_id(json!(4)).unwrap_or_default();
    ensure(refused["result"]["isError"] == true, || {
        format!("id 4: {refused}; every answer: {lines:?}")
    })?;
    let py = by_id(json!(5)).unwrap_or_default();
    let out = &py["result"]["structuredContent"];
    ensure(
        out["stdout"] == "to stdout\n" && out["stderr"] == "to stderr\n",
        || format!("id 5: {py}; every answer: {lines:?}"),
    )?;
    let last = by_id(json!(6)).unwrap_or_default();
    ensure(last["result"]["structuredContent"]["value"] == "42", || {
        format!("id 6: {last}; every answer: {lines:?}")
    })?;
    for id in [7, 8] {
        let e = by_id(json!(id)).unwrap_or_default();
        ensure(e["error"]["code"] == -32700, || format!("id {id}: {e}"))?;
    }
    let bom = by_id(json!(9)).unwrap_or_default();
    ensure(bom["result"]["structuredContent"]["value"] == "42", || {
        format!("id 9: {bom}; every answer: {lines:?}")
    })?;
    // Nothing else was answered: the other unreadable lines had no id to answer.
    ensure(lines.len() == 8, || {
        format!("{} lines: {lines:?}", lines.len())
    })
}

/// A client that writes its requests and closes stdin at once (`echo ... | beaker serve --mcp`) still gets every
/// answer: the session ends when the requests it was fed are answered, not when the input ends.
fn piped_requests_are_answered_before_the_session_ends() -> Outcome {
    let mut s = Server::start(&["--mcp"]);
    s.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "execute_python",
        "arguments": {"code": "print(sum(i * i for i in range(3_000_000)))"}}}));
    s.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "calculator",
        "arguments": {"expression": "6 * 7"}}}),
    );
    let (lines, status) = s.finish();
    ensure(status.success(), || format!("exit status {status}"))?;
    let py = lines
        .iter()
        .find(|l| l["id"] == 2)
        .cloned()
        .unwrap_or_default();
    ensure(
        py["result"]["structuredContent"]["stdout"] == "8999995500000500000\n",
        || format!("id 2: {py}; every answer: {lines:?}"),
    )?;
    ensure(lines.iter().any(|l| l["id"] == 3), || format!("{lines:?}"))
}

/// The MCP trials.
pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "mcp::the_python_sdk_drives_every_tool",
            the_python_sdk_drives_every_tool,
        ),
        Trial::test(
            "mcp::bad_input_is_answered_or_dropped_and_stdout_stays_protocol",
            bad_input_is_answered_or_dropped_and_stdout_stays_protocol,
        ),
        Trial::test(
            "mcp::piped_requests_are_answered_before_the_session_ends",
            piped_requests_are_answered_before_the_session_ends,
        ),
    ]
}
