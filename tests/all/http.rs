//! `beaker serve --http` over real loopback sockets: the protocol's routes, malformed and oversized bodies,
//! concurrency, SandboxFusion's `/run_code`, and that route driven by SandboxFusion's own Python client.

use crate::support::{beaker, clients_python, ensure, jsonl, python_client_passes, root, Outcome};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

/// A `beaker serve --http 127.0.0.1:0` child, killed when dropped.
pub(crate) struct Http {
    pub(crate) child: Child,
    pub(crate) port: u16,
}

impl Http {
    pub(crate) fn start(args: &[&str]) -> Result<Http, String> {
        Http::start_with_env(args, &[])
    }

    /// A server with `env` set.
    pub(crate) fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Result<Http, String> {
        let mut child = beaker()
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn: {e}"))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        // The server says where it listens once bound: port 0 lets the OS pick a free one.
        let mut lines = BufReader::new(stderr).lines();
        let port = loop {
            let line = lines
                .next()
                .ok_or("the server exited before listening")?
                .map_err(|e| e.to_string())?;
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.trim().parse::<u16>().map_err(|e| e.to_string())?;
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        Ok(Http { child, port })
    }

    /// One request on a fresh connection: the status code and the body.
    fn request(&self, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        self.request_with(method, path, body, "")
            .map(|(st, _, b)| (st, b))
    }

    /// One request with extra header lines (each ending in `\r\n`): the status, the head and the body.
    pub(crate) fn request_with(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        headers: &str,
    ) -> Result<(u16, String, Vec<u8>), String> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        // A body the server refuses early may not be read at all: a failed write is fine, the answer counts.
        let _ = s.write_all(body);
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("no header end in the answer")?;
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("no status in {head:?}"))?;
        Ok((status, head, raw[split + 4..].to_vec()))
    }

    pub(crate) fn json(
        &self,
        method: &str,
        path: &str,
        body: &Value,
    ) -> Result<(u16, Value), String> {
        let (status, bytes) = self.request(method, path, body.to_string().as_bytes())?;
        let v = serde_json::from_slice(&bytes)
            .map_err(|e| format!("not JSON ({e}): {}", String::from_utf8_lossy(&bytes)))?;
        Ok((status, v))
    }
    /// A plain call still answered: the server serves on after whatever the test did.
    pub(crate) fn still_serves(&self) -> Outcome {
        let (st, v) = self.json(
            "POST",
            "/v1/call",
            &json!({"tool": "calculator", "params": {"expression": "6*7"}}),
        )?;
        ensure(st == 200 && v["result"]["value"] == "42", || {
            format!("the server stopped serving: {st} {v}")
        })
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn routes_answer_like_the_stdio_server() -> Outcome {
    let h = Http::start(&["--no-python"])?;
    let (st, v) = h.json("GET", "/healthz", &Value::Null)?;
    ensure(st == 200 && v["status"] == "ok", || format!("{st} {v}"))?;
    let (st, v) = h.json("GET", "/v1/tools", &Value::Null)?;
    let names: Vec<&str> = v
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    ensure(st == 200 && names.contains(&"physics"), || {
        format!("{st} {names:?}")
    })?;
    let (st, v) = h.json("GET", "/v1/tools?format=openai", &Value::Null)?;
    ensure(st == 200 && v[0]["type"] == "function", || {
        format!("{st} {v}")
    })?;
    let (st, v) = h.json("GET", "/v1/tools?format=yaml", &Value::Null)?;
    ensure(st == 400 && v["error_kind"] == "invalid_params", || {
        format!("{st} {v}")
    })?;
    let call = json!({"id": 7, "tool": "calculator", "params": {"expression": "7 * 8"}});
    let (st, v) = h.json("POST", "/v1/call", &call)?;
    ensure(
        st == 200 && v["result"]["value"] == "56" && v["id"] == 7,
        || format!("{st} {v}"),
    )?;
    // A tool's failure is an answer, not an HTTP error.
    let bad =
        json!({"tool": "physics", "params": {"operation": "carnot", "t_hot": 300, "t_cold": 500}});
    let (st, v) = h.json("POST", "/v1/call", &bad)?;
    ensure(
        st == 200 && v["success"] == false && v["error_kind"] == "invalid_params",
        || format!("{st} {v}"),
    )?;
    let (st, v) = h.json("POST", "/v1/call", &json!({"tool": "no_such_tool"}))?;
    ensure(st == 200 && v["error_kind"] == "unknown_tool", || {
        format!("{st} {v}")
    })?;
    let batch = json!({"calls": [
        {"id": "a", "tool": "calculator", "params": {"expression": "2^10"}},
        {"id": "b", "what": 1},
        {"id": "c", "tool": "chemistry", "params": {"operation": "molar_mass", "formula": "H2O"}}
    ]});
    let (st, v) = h.json("POST", "/v1/batch", &batch)?;
    let r = &v["results"];
    ensure(
        st == 200
            && r[0]["result"]["value"] == "1024"
            && r[1]["error_kind"] == "parse_error"
            && r[2]["id"] == "c"
            && r[2]["success"] == true,
        || format!("{st} {v}"),
    )
}

fn malformed_and_oversized_bodies_are_refused() -> Outcome {
    let h = Http::start(&["--no-python", "--max-line-bytes", "4096"])?;
    for body in [&b"{\"tool\": "[..], b"[1, 2]", b"\xff\xfe{}", b""] {
        let (st, raw) = h.request("POST", "/v1/call", body)?;
        let v: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
        ensure(st == 400 && v["error_kind"] == "parse_error", || {
            format!("{body:?}: {st} {}", String::from_utf8_lossy(&raw))
        })?;
    }
    let deep = format!("{}{}", "[".repeat(3000), "]".repeat(3000));
    let (st, _) = h.request("POST", "/v1/call", deep.as_bytes())?;
    ensure(st == 400 || st == 413, || format!("deep nesting: {st}"))?;
    let big = json!({"tool": "calculator", "params": {"expression": "1".repeat(10_000)}});
    let (st, raw) = h.request("POST", "/v1/call", big.to_string().as_bytes())?;
    let v: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    ensure(st == 413 && v["error_kind"] == "limit_exceeded", || {
        format!(
            "a body over the cap: {st} {}",
            String::from_utf8_lossy(&raw)
        )
    })?;
    let (st, v) = h.json("POST", "/v1/batch", &json!({"calls": "no"}))?;
    ensure(st == 400 && v["error_kind"] == "parse_error", || {
        format!("{st} {v}")
    })?;
    let (st, v) = h.json("GET", "/no/such/route", &Value::Null)?;
    ensure(st == 404 && v["success"] == false, || {
        format!("unknown route: {st} {v}")
    })?;
    // And it still serves.
    h.still_serves()
}

fn concurrent_clients_get_their_own_answers() -> Outcome {
    let h = std::sync::Arc::new(Http::start(&["--no-python"])?);
    let workers: Vec<_> = (0..16u64)
        .map(|t| {
            let h = h.clone();
            std::thread::spawn(move || -> Result<(), String> {
                for i in 0..20u64 {
                    let n = t * 100 + i;
                    let call = json!({"id": n, "tool": "calculator", "params": {"expression": format!("{n}*{n}")}});
                    let (st, v) = h.json("POST", "/v1/call", &call)?;
                    if st != 200 || v["result"]["value"] != json!((n * n).to_string()) || v["id"] != n {
                        return Err(format!("{n}: {st} {v}"));
                    }
                }
                Ok(())
            })
        })
        .collect();
    for w in workers {
        w.join().map_err(|_| "a client thread panicked")??;
    }
    Ok(())
}

/// Slow clients hold nobody up: a dozen connections that send half a request and stall (and one that sends
/// nothing) leave the server answering others at once, and a stalled body finished later is answered too.
fn slow_clients_hold_nobody_up() -> Outcome {
    let h = Http::start(&["--no-python", "--max-in-flight", "8"])?;
    let body = json!({"tool": "calculator", "params": {"expression": "6*7"}}).to_string();
    let mut stalled = Vec::new();
    for _ in 0..12 {
        let mut s = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
        let head = format!(
            "POST /v1/call HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        s.write_all(&body.as_bytes()[..10])
            .map_err(|e| e.to_string())?;
        stalled.push(s);
    }
    let _silent = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
    // More stalled requests than --max-in-flight, and still a fresh one is answered.
    for i in 0..5 {
        let (st, v) = h.json(
            "POST",
            "/v1/call",
            &json!({"tool": "calculator", "params": {"expression": "1+1"}}),
        )?;
        ensure(st == 200 && v["result"]["value"] == "2", || {
            format!("{i}: {st} {v}")
        })?;
    }
    let mut first = stalled.remove(0);
    first
        .write_all(&body.as_bytes()[10..])
        .map_err(|e| e.to_string())?;
    first
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let mut answer = vec![0u8; 4096];
    let n = first.read(&mut answer).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&answer[..n]);
    ensure(
        text.starts_with("HTTP/1.1 200") && text.contains("\"value\":\"42\""),
        || text.to_string(),
    )
}

/// A connection that never finishes its request's head is closed after the header timeout, and a body that
/// stops arriving is answered 408 after the body timeout: neither holds a connection (and its memory) for ever.
fn slow_heads_and_bodies_are_cut_off() -> Outcome {
    let config = TokenFile::new(
        "timeouts",
        "http_header_timeout_ms = 300\nhttp_body_timeout_ms = 300\n",
    )?;
    let h = Http::start(&["--no-python", "--config", &config.path])?;
    let connect = || -> Result<TcpStream, String> {
        let s = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
        // Far past both timeouts: a read still blocked then means the server never cut the client off.
        s.set_read_timeout(Some(Duration::from_secs(20)))
            .map_err(|e| e.to_string())?;
        Ok(s)
    };
    let mut half_line = connect()?;
    half_line
        .write_all(b"POST /v1/call HTT")
        .map_err(|e| e.to_string())?;
    let mut rest = Vec::new();
    half_line
        .read_to_end(&mut rest)
        .map_err(|e| format!("half a request line was held open: {e}"))?;
    let mut slow_body = connect()?;
    slow_body
        .write_all(b"POST /v1/call HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"tool\":")
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    slow_body
        .read_to_end(&mut answer)
        .map_err(|e| format!("a stalled body was held open: {e}"))?;
    let text = String::from_utf8_lossy(&answer);
    ensure(
        text.starts_with("HTTP/1.1 408") && text.contains("limit_exceeded"),
        || text.to_string(),
    )?;
    let (_, _, metrics) = h.request_with("GET", "/metrics", b"", "")?;
    ensure(
        String::from_utf8_lossy(&metrics).contains("reason=\"slow_body\"} 1"),
        || String::from_utf8_lossy(&metrics).to_string(),
    )?;
    h.still_serves()
}

/// Request bodies reserve their declared size from the memory budget before they are read: with a 46 MiB budget,
/// two connections each sending a 16 MiB body leave no room for a third (503, naming the budget), while a
/// small request (its body, and 8 MiB for its result: twice the default `max_output_bytes`) is still answered.
fn bodies_reserve_from_the_memory_budget() -> Outcome {
    let h = Http::start(&["--no-python", "--max-memory", "46MiB"])?;
    let big = 16usize << 20;
    let mut holding = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
        let head = format!("POST /v1/call HTTP/1.1\r\nHost: x\r\nContent-Length: {big}\r\n\r\n");
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        s.write_all(&vec![b' '; 1 << 20])
            .map_err(|e| e.to_string())?;
        holding.push(s);
    }
    // The two bodies are being read: wait until the server has reserved both.
    let mut metrics = String::new();
    for _ in 0..200 {
        let (_, _, m) = h.request_with("GET", "/metrics", b"", "")?;
        metrics = String::from_utf8_lossy(&m).to_string();
        if metrics.contains(&format!("beaker_memory_reserved_bytes {}", 2 * big)) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    ensure(
        metrics.contains(&format!("beaker_memory_reserved_bytes {}", 2 * big))
            && metrics.contains(&format!("beaker_memory_budget_bytes {}", 46u64 << 20)),
        || metrics.clone(),
    )?;
    let mut third = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
    third
        .set_read_timeout(Some(Duration::from_secs(20)))
        .map_err(|e| e.to_string())?;
    let head = format!(
        "POST /v1/call HTTP/1.1\r\nHost: x\r\nContent-Length: {big}\r\nConnection: close\r\n\r\n"
    );
    third
        .write_all(head.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut answer = vec![0u8; 4096];
    let n = third.read(&mut answer).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&answer[..n]);
    ensure(
        text.starts_with("HTTP/1.1 503") && text.contains("memory budget"),
        || text.to_string(),
    )?;
    h.still_serves()?;
    drop(holding);
    Ok(())
}

/// Every way a program can exit ends `/run_code` with the status a real `python3 -c` process gives
/// (`tests/data/gen/exit_status.py` ran each one natively): `sys.exit('0')` is 1, not Success.
/// `/run_code` for C, C++, Java, Node.js, Rust and Bash (issue 40): each answer holds, field by field, what
/// `tests/data/http/run_code_languages.jsonl` says SandboxFusion reports.
fn run_code_runs_every_native_language() -> Outcome {
    let h = Http::start(&[])?;
    for case in jsonl("tests/data/http/run_code_languages.jsonl") {
        let (_, v) = h.json("POST", "/run_code", &case["request"])?;
        for (pointer, want) in case["want"].as_object().into_iter().flatten() {
            let got = v.pointer(pointer).unwrap_or(&Value::Null);
            ensure(got == want, || {
                format!("{}: {pointer} is {got}, want {want}; got {v}", case["name"])
            })?;
        }
    }
    Ok(())
}

fn run_code_exit_status_matches_cpython() -> Outcome {
    let h = Http::start(&[])?;
    for case in jsonl("tests/data/http/exit_status.jsonl") {
        let mut body = json!({"code": case["code"], "language": "python"});
        if !case["run_timeout"].is_null() {
            body["run_timeout"] = case["run_timeout"].clone();
        }
        let (_, v) = h.json("POST", "/run_code", &body)?;
        let rr = &v["run_result"];
        if case["time_limit_exceeded"] == true {
            // Virtual time (a sleep) past the limit stops the run as the real process is stopped.
            ensure(
                v["status"] == "Failed" && rr["status"] == "TimeLimitExceeded",
                || {
                    format!(
                        "{}: the real process outlives its limit; got {v}",
                        case["name"]
                    )
                },
            )?;
            continue;
        }
        let tail = case["stderr_tail"].as_str().unwrap_or("");
        let stderr = rr["stderr"].as_str().unwrap_or("");
        let want_status = if case["return_code"] == 0 {
            "Success"
        } else {
            "Failed"
        };
        // The traceback names the program's lines as `python -c` does (`File "<string>", line 2, in f`).
        let files: Vec<&str> = stderr
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("File "))
            .collect();
        let want_files: Vec<&str> = case["file_lines"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        ensure(
            rr["return_code"] == case["return_code"]
                && v["status"] == want_status
                && stderr.trim().lines().last().unwrap_or("").trim() == tail
                && files == want_files,
            || {
                format!(
                    "{}: CPython exits {} with stderr ending {tail:?}; got {v}",
                    case["name"], case["return_code"]
                )
            },
        )?;
    }
    Ok(())
}

fn run_code_reports_like_sandbox_fusion() -> Outcome {
    let h = Http::start(&[])?;
    let run = |body: Value| h.json("POST", "/run_code", &body);
    let (st, v) = run(json!({"code": "print(2**100)", "language": "python"}))?;
    let rr = &v["run_result"];
    ensure(
        st == 200
            && v["status"] == "Success"
            && rr["status"] == "Finished"
            && rr["return_code"] == 0
            && rr["stdout"] == "1267650600228229401496703205376\n"
            && rr["execution_time"].is_number(),
        || format!("{st} {v}"),
    )?;
    let (_, v) = run(json!({"code": "print('x')\nraise ValueError('bad')", "language": "python"}))?;
    let rr = &v["run_result"];
    ensure(
        v["status"] == "Failed"
            && rr["return_code"] == 1
            && rr["stdout"] == "x\n"
            && rr["stderr"]
                .as_str()
                .is_some_and(|e| e.ends_with("ValueError: bad\n")),
        || v.to_string(),
    )?;
    let (_, v) = run(json!({"code": "import sys\nsys.exit('usage: x')", "language": "python"}))?;
    ensure(
        v["run_result"]["return_code"] == 1 && v["run_result"]["stderr"] == "usage: x\n",
        || v.to_string(),
    )?;
    let (_, v) = run(json!({"code": "import sys; sys.exit(0)", "language": "python"}))?;
    ensure(v["status"] == "Success", || v.to_string())?;
    // CPython's process status is the code modulo 256.
    let (_, v) = run(json!({"code": "import sys; sys.exit(-1)", "language": "python"}))?;
    ensure(v["run_result"]["return_code"] == 255, || v.to_string())?;
    let (_, v) = run(json!({"code": "print('kept')\nexit(2)", "language": "python"}))?;
    ensure(
        v["run_result"]["return_code"] == 2 && v["run_result"]["stdout"] == "kept\n",
        || format!("exit() keeps what was printed: {v}"),
    )?;
    // SandboxFusion's default memory_limit_MB (-1) is no limit of the request's own: 400 MiB fits.
    let (_, v) = run(
        json!({"code": "x = bytearray(400 * 2**20); print(len(x))", "language": "python", "memory_limit_MB": -1}),
    )?;
    ensure(v["status"] == "Success", || {
        format!("memory_limit_MB -1: {v}")
    })?;
    let (_, v) =
        run(json!({"code": "print(1)", "language": "python", "stdin": "x".repeat(5 << 20)}))?;
    ensure(v["status"] == "SandboxError", || {
        format!("stdin past the input limit: {v}")
    })?;
    let (_, v) = run(
        json!({"code": "print('working')\nwhile True: pass", "language": "python", "run_timeout": 0.3}),
    )?;
    ensure(
        v["status"] == "Failed"
            && v["run_result"]["status"] == "TimeLimitExceeded"
            && v["run_result"]["stdout"] == "working\n",
        || format!("a time limit keeps what was printed, as a killed process does: {v}"),
    )?;
    let (_, v) = run(
        json!({"code": "print('allocating')\nx = bytearray(150 * 2**20)", "language": "python", "memory_limit_MB": 64}),
    )?;
    ensure(
        v["status"] == "Failed"
            && v["run_result"]["return_code"] == 1
            && v["run_result"]["stdout"] == "allocating\n",
        || {
            format!("memory_limit_MB honoured (150 MiB fits the default 512 MiB, not 64 MiB + the interpreter): {v}")
        },
    )?;
    let (_, v) = run(
        json!({"code": "x = bytearray(40 * 2**20); print(len(x))", "language": "python", "memory_limit_MB": 256}),
    )?;
    ensure(v["status"] == "Success", || {
        format!("within memory_limit_MB: {v}")
    })?;
    let (_, v) = run(json!({"code": "print(input() * 2)", "language": "python", "stdin": "ab\n"}))?;
    ensure(v["run_result"]["stdout"] == "abab\n", || v.to_string())?;
    let (_, v) = run(json!({"code": "x", "language": "cobol"}))?;
    ensure(v["status"] == "SandboxError", || v.to_string())?;
    let (st, v) = run(json!({"language": "python"}))?;
    ensure(st == 422 && v["detail"].is_string(), || format!("{st} {v}"))?;
    let (_, v) = run(json!({"code": "print(1)", "language": "python", "run_timeout": -1}))?;
    ensure(v["status"] == "SandboxError", || v.to_string())
}

fn run_text_runs_the_calls_in_a_models_text() -> Outcome {
    let h = Http::start(&["--no-python"])?;
    let text = "Let me check. <|tool_call|><|tool_name|>calculator<|tool_args|>{\"expression\": \"7 * 8\"}<|/tool_call|>";
    let (st, v) = h.json("POST", "/v1/run-text", &json!({"id": 3, "text": text}))?;
    ensure(
        st == 200 && v["id"] == 3 && v.to_string().contains("<|tool_result|>56<|/tool_result|>"),
        || format!("{st} {v}"),
    )?;
    let messages = json!({"messages": [
        {"role": "user", "content": "7 * 8?"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "calculator", "arguments": "{\"expression\": \"7 * 8\"}"}}]}
    ]});
    let (st, v) = h.json("POST", "/v1/run-text", &messages)?;
    ensure(
        st == 200 && v.to_string().contains("\"tool_call_id\":\"c1\""),
        || format!("{st} {v}"),
    )?;
    let (st, v) = h.json("POST", "/v1/run-text", &json!({"messages": []}))?;
    ensure(st == 400 && v["error_kind"] == "parse_error", || {
        format!("{st} {v}")
    })?;
    let (st, v) = h.json("POST", "/v1/run-text", &json!({"tool": "calculator"}))?;
    ensure(st == 400, || format!("a call on /v1/run-text: {st} {v}"))?;
    // Plans have their own route.
    let plan = json!({"id": 9, "plan": {"steps": [
        {"step_id": "x", "tool": "calculator", "params": {"expression": "2**10"}},
        {"step_id": "y", "tool": "unit_converter", "params": {"value": 1, "from_unit": "km", "to_unit": "m"}}]}});
    let (st, v) = h.json("POST", "/v1/run-plan", &plan)?;
    ensure(
        st == 200
            && v["id"] == 9
            && v["success"] == true
            && v["order"] == json!(["x", "y"])
            && v["steps"][0]["result"]["value"] == "1024",
        || format!("{st} {v}"),
    )?;
    let (st, v) = h.json("POST", "/v1/run-plan", &json!({"text": "hi"}))?;
    ensure(st == 400 && v["error_kind"] == "parse_error", || {
        format!("{st} {v}")
    })
}

/// A `--http-tokens` file in a folder of its own, removed when dropped.
pub(crate) struct TokenFile {
    dir: std::path::PathBuf,
    pub(crate) path: String,
}

impl TokenFile {
    pub(crate) fn new(tag: &str, contents: &str) -> Result<TokenFile, String> {
        let dir = std::env::temp_dir().join(format!("beaker-http-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let path = dir.join("tokens").to_string_lossy().to_string();
        let t = TokenFile { dir, path };
        t.write(contents)?;
        Ok(t)
    }

    fn write(&self, contents: &str) -> Result<(), String> {
        std::fs::write(&self.path, contents).map_err(|e| e.to_string())
    }

    /// `beaker serve --http` with this file, run to its end: for files it must refuse at start.
    fn serve_to_exit(&self) -> Result<std::process::Output, String> {
        beaker()
            .args([
                "serve",
                "--http",
                "127.0.0.1:0",
                "--no-python",
                "--http-tokens",
            ])
            .arg(&self.path)
            .output()
            .map_err(|e| e.to_string())
    }
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn bearer_tokens_guard_every_route_but_health() -> Outcome {
    let tokens = TokenFile::new("tokens", "# one per line\nsecret-one\nsecret-two\n")?;
    let h = Http::start(&["--no-python", "--http-tokens", &tokens.path])?;
    let call = json!({"tool": "calculator", "params": {"expression": "1+1"}}).to_string();
    for (headers, want) in [
        ("", 401),
        ("Authorization: Bearer wrong\r\n", 401),
        ("Authorization: Bearer secret-on\r\n", 401),
        ("Authorization: secret-one\r\n", 401),
        ("Authorization: Bearer secret-two\r\n", 200),
        ("Authorization: bearer secret-one\r\n", 200),
    ] {
        let (st, head, _) = h.request_with("POST", "/v1/call", call.as_bytes(), headers)?;
        ensure(st == want, || format!("{headers:?}: {st}"))?;
        if st == 401 {
            ensure(
                head.to_ascii_lowercase()
                    .contains("www-authenticate: bearer"),
                || head.clone(),
            )?;
        }
    }
    let (st, _) = h.request("GET", "/healthz", b"")?;
    ensure(st == 200, || format!("healthz without a token: {st}"))?;
    let (st, _) = h.request("GET", "/metrics", b"")?;
    ensure(st == 401, || format!("metrics without a token: {st}"))?;
    let (st, _, body) = h.request_with(
        "GET",
        "/metrics",
        b"",
        "Authorization: Bearer secret-one\r\n",
    )?;
    let text = String::from_utf8_lossy(&body);
    // Five requests were refused for their token so far.
    ensure(
        st == 200 && text.contains("beaker_http_rejected_total{reason=\"unauthorized\"} 5"),
        || format!("metrics with a token: {st} {text}"),
    )?;
    tokens.write("\n# none\n")?;
    let out = tokens.serve_to_exit()?;
    ensure(!out.status.success(), || {
        "an empty token file must not start an open server".into()
    })
}

/// A token over its rate or its own in-flight cap is answered 429 with `Retry-After`; other tokens are not held
/// back by it.
fn tokens_have_their_own_rate_and_in_flight_limits() -> Outcome {
    // A rate of one request every 100 s: after its burst of two, the third request must wait.
    let tokens = TokenFile::new(
        "limits",
        "slow rate=0.01 burst=2\ncapped in_flight=1\nfree\n",
    )?;
    let h = std::sync::Arc::new(Http::start(&[
        "--no-python",
        "--test-tools",
        "--http-tokens",
        &tokens.path,
    ])?);
    let call = json!({"tool": "calculator", "params": {"expression": "1+1"}}).to_string();
    let send = |token: &str| {
        h.request_with(
            "POST",
            "/v1/call",
            call.as_bytes(),
            &format!("Authorization: Bearer {token}\r\n"),
        )
    };
    for _ in 0..2 {
        let (st, _, _) = send("slow")?;
        ensure(st == 200, || format!("within the burst: {st}"))?;
    }
    let (st, head, body) = send("slow")?;
    let v: Value = serde_json::from_slice(&body).unwrap_or_default();
    ensure(
        st == 429
            && head.to_ascii_lowercase().contains("retry-after: 100")
            && v["error_kind"] == "limit_exceeded"
            && v["retryable"] == true,
        || format!("past the rate: {st} {head} {v}"),
    )?;
    let (st, _, _) = send("free")?;
    ensure(st == 200, || format!("another token: {st}"))?;

    // `capped` holds its one slot with a call that ends on its 1.5 s timeout.
    let slow = {
        let h = h.clone();
        std::thread::spawn(move || {
            h.request_with(
                "POST",
                "/v1/call",
                json!({"tool": "_block", "limits": {"timeout_ms": 1500}})
                    .to_string()
                    .as_bytes(),
                "Authorization: Bearer capped\r\n",
            )
        })
    };
    std::thread::sleep(Duration::from_millis(300));
    let (st, head, _) = send("capped")?;
    ensure(
        st == 429 && head.to_ascii_lowercase().contains("retry-after: 1"),
        || format!("past the token's in-flight cap: {st} {head}"),
    )?;
    let (st, _, _) = send("free")?;
    ensure(st == 200, || {
        format!("another token while capped is busy: {st}")
    })?;
    let (st, _, _) = slow.join().map_err(|_| "the slow client panicked")??;
    ensure(st == 200, || format!("the slow call: {st}"))?;
    let (st, _, _) = send("capped")?;
    ensure(st == 200, || format!("capped after its call: {st}"))?;
    let (_, _, body) = h.request_with("GET", "/metrics", b"", "Authorization: Bearer free\r\n")?;
    let text = String::from_utf8_lossy(&body);
    ensure(
        text.lines()
            .any(|l| l == "beaker_http_rejected_total{reason=\"rate_limited\"} 2"),
        || text.to_string(),
    )?;

    // A bad limit in the file is refused at start, naming the line.
    tokens.write("ok\nbad rate=fast\n")?;
    let out = tokens.serve_to_exit()?;
    let err = String::from_utf8_lossy(&out.stderr);
    ensure(!out.status.success() && err.contains("line 2"), || {
        format!("{:?} {err}", out.status)
    })
}

/// A server with one slot (`--max-in-flight 1`) and `config`, that slot held by a call that only ends on its
/// `timeout_ms`; the config file (kept alive with the server), the server and that call's thread.
type Saturated = (
    TokenFile,
    std::sync::Arc<Http>,
    std::thread::JoinHandle<Result<(u16, Value), String>>,
);

fn saturated(tag: &str, config: &str, timeout_ms: u64) -> Result<Saturated, String> {
    let config = TokenFile::new(tag, config)?;
    let h = std::sync::Arc::new(Http::start(&[
        "--no-python",
        "--max-in-flight",
        "1",
        "--test-tools",
        "--config",
        &config.path,
    ])?);
    let slow = {
        let h = h.clone();
        std::thread::spawn(move || {
            h.json(
                "POST",
                "/v1/call",
                &json!({"tool": "_block", "limits": {"timeout_ms": timeout_ms}}),
            )
        })
    };
    Ok((config, h, slow))
}

fn requests_past_the_in_flight_cap_are_turned_away() -> Outcome {
    // No room to wait: with the only slot held for 1.5 s, the next request is answered 503 at once.
    let (_config, h, slow) = saturated("no-waiting", "http_max_waiting = 0\n", 1500)?;
    std::thread::sleep(Duration::from_millis(300));
    let (st, head, body) = h.request_with("GET", "/v1/tools", b"", "")?;
    ensure(
        st == 503 && head.to_ascii_lowercase().contains("retry-after: 1"),
        || format!("{st} {head} {}", String::from_utf8_lossy(&body)),
    )?;
    // Health and metrics still answer, and show the saturation.
    let (st, _) = h.request("GET", "/healthz", b"")?;
    ensure(st == 200, || format!("healthz while saturated: {st}"))?;
    let (st, body) = h.request("GET", "/metrics", b"")?;
    let text = String::from_utf8_lossy(&body);
    for line in [
        "beaker_http_requests_in_flight 1",
        "beaker_http_rejected_total{reason=\"overloaded\"} 1",
        "beaker_calls_in_flight 1",
        "beaker_pool_busy{pool=\"native\"} 1",
    ] {
        ensure(st == 200 && text.lines().any(|l| l == line), || {
            format!("no `{line}` while saturated: {st}\n{text}")
        })?;
    }
    let (st, v) = slow.join().map_err(|_| "the slow client panicked")??;
    ensure(st == 200 && v["error_kind"] == "timeout", || {
        format!("the slow call: {st} {v}")
    })?;
    let (st, _) = h.request("GET", "/v1/tools", b"")?;
    ensure(st == 200, || format!("after the slot is free: {st}"))
}

/// Issue 38: past `--max-in-flight` a request waits for a slot (verl does not retry a 503), up to
/// `http_max_wait_ms`; only past that, or past `http_max_waiting` waiting requests, is it answered 503.
fn requests_past_the_in_flight_cap_wait_for_a_slot() -> Outcome {
    let (_config, h, slow) = saturated(
        "waiting",
        "http_max_waiting = 1\nhttp_max_wait_ms = 5000\n",
        800,
    )?;
    std::thread::sleep(Duration::from_millis(200));
    // This one waits for the slow call's slot...
    let waiter = {
        let h = h.clone();
        std::thread::spawn(move || h.request("GET", "/v1/tools", b""))
    };
    std::thread::sleep(Duration::from_millis(200));
    // ...and the line is full: one more is turned away.
    let (st, _) = h.request("GET", "/v1/tools", b"")?;
    ensure(st == 503, || format!("past the waiting line: {st}"))?;
    let (st, _) = waiter.join().map_err(|_| "the waiting client panicked")??;
    ensure(st == 200, || format!("the waiting request: {st}"))?;
    let (st, v) = slow.join().map_err(|_| "the slow client panicked")??;
    ensure(st == 200 && v["error_kind"] == "timeout", || {
        format!("the slow call: {st} {v}")
    })
}

/// A client that hangs up cancels what its request runs, on every route that runs tools: each request holds the
/// only worker with a call that ends only on its 30 s timeout, and its client hangs up after 300 ms.
fn a_client_that_goes_away_cancels_its_call() -> Outcome {
    let h = Http::start(&["--no-python", "--test-tools", "--workers", "1"])?;
    let long = json!({"timeout_ms": 30000});
    let text = r#"<tool_call>{"name": "_block", "arguments": {}}</tool_call>"#;
    let plan = json!({"steps": [{"step_id": "a", "tool": "_block", "params": {}}]});
    for (route, body) in [
        ("/v1/call", json!({"tool": "_block", "limits": long})),
        ("/v1/run-text", json!({"text": text, "limits": long})),
        ("/v1/run-plan", json!({"plan": plan, "limits": long})),
    ] {
        let mut s = TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
        let body = body.to_string();
        let head = format!(
            "POST {route} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        s.write_all(body.as_bytes()).map_err(|e| e.to_string())?;
        std::thread::sleep(Duration::from_millis(300));
        drop(s);
        // With one worker, this call waits for that worker: moments if the abandoned call was cancelled, 30 s if
        // not.
        let started = std::time::Instant::now();
        let (st, v) = h.json(
            "POST",
            "/v1/call",
            &json!({"tool": "calculator", "params": {"expression": "1+1"}}),
        )?;
        ensure(st == 200 && v["result"]["value"] == "2", || {
            format!("after {route}: {st} {v}")
        })?;
        ensure(started.elapsed() < Duration::from_secs(10), || {
            format!(
                "the call abandoned on {route} held the worker for {:?}",
                started.elapsed()
            )
        })?;
    }
    Ok(())
}

/// `/metrics` after a few calls, read by Prometheus' own Python parser: every family parses, and the counts are
/// the calls made.
fn metrics_count_calls_failures_and_latency() -> Outcome {
    let python = clients_python()?;
    let h = Http::start(&["--no-python", "--workers", "3"])?;
    let call = |expr: &str| {
        h.json(
            "POST",
            "/v1/call",
            &json!({"tool": "calculator", "params": {"expression": expr}}),
        )
    };
    call("7 * 8")?;
    call("2 + 2")?;
    call("1/0")?;
    h.json(
        "POST",
        "/v1/call",
        &json!({"tool": "calculater", "params": {}}),
    )?;
    let (st, head, body) = h.request_with("GET", "/metrics", b"", "")?;
    ensure(st == 200, || format!("/metrics: {st}"))?;
    ensure(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        || head.clone(),
    )?;
    let mut child = std::process::Command::new(&python)
        .arg(root().join("tests/clients/prometheus_parse.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(&body)
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    ensure(out.status.success(), || {
        format!(
            "the text does not parse: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&body)
        )
    })?;
    let samples: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let value = |name: &str, labels: Value| {
        samples
            .iter()
            .find(|s| s["name"] == name && s["labels"] == labels)
            .map(|s| s["value"].clone())
            .unwrap_or(Value::Null)
    };
    for (name, labels, want) in [
        (
            "beaker_calls_total",
            json!({"tool": "calculator", "outcome": "success"}),
            2.0,
        ),
        (
            "beaker_calls_total",
            json!({"tool": "calculator", "outcome": "failure"}),
            1.0,
        ),
        (
            "beaker_calls_total",
            json!({"tool": "physics", "outcome": "success"}),
            0.0,
        ),
        (
            "beaker_call_failures_total",
            json!({"tool": "calculator", "kind": "domain_error", "fault": "model"}),
            1.0,
        ),
        (
            "beaker_call_failures_total",
            json!({"tool": "(unknown)", "kind": "unknown_tool", "fault": "model"}),
            1.0,
        ),
        (
            "beaker_call_duration_seconds_count",
            json!({"tool": "calculator"}),
            3.0,
        ),
        (
            "beaker_call_duration_seconds_bucket",
            json!({"tool": "calculator", "le": "+Inf"}),
            3.0,
        ),
        ("beaker_calls_in_flight", json!({}), 0.0),
        ("beaker_pool_workers", json!({"pool": "native"}), 3.0),
        // (The native pool's busy gauge may still count the last call for a moment: a worker is freed just
        // after it answers. The sandbox pool ran nothing.)
        ("beaker_pool_busy", json!({"pool": "sandbox"}), 0.0),
        (
            "beaker_http_rejected_total",
            json!({"reason": "overloaded"}),
            0.0,
        ),
    ] {
        let got = value(name, labels.clone());
        ensure(got.as_f64() == Some(want), || {
            format!("{name}{labels}: {got}, want {want}")
        })?;
    }
    // The histogram's sum is the calls' time: positive, and under their 10-second default timeouts.
    let sum = value(
        "beaker_call_duration_seconds_sum",
        json!({"tool": "calculator"}),
    );
    ensure(sum.as_f64().is_some_and(|s| s > 0.0 && s < 30.0), || {
        format!("sum {sum}")
    })
}

/// The OpenAPI document: served as written, its routes the router's, its limits, error kinds and text keys the
/// code's, and real answers of every route valid against the schemas it gives them.
fn openapi_describes_what_is_served() -> Outcome {
    let doc: Value = serde_json::from_str(beaker_http::OPENAPI).map_err(|e| e.to_string())?;
    let h = Http::start(&["--no-python"])?;
    let (st, served) = h.json("GET", "/openapi.json", &Value::Null)?;
    ensure(st == 200 && served == doc, || {
        format!("/openapi.json: {st}")
    })?;

    // Routes: every `.route(PATH, METHOD(...))` of the router, and nothing else.
    let src = std::fs::read_to_string(root().join("crates/beaker-http/src/lib.rs"))
        .map_err(|e| e.to_string())?;
    let mut routed: Vec<String> = src
        .split(".route(\"")
        .skip(1)
        .filter_map(|rest| {
            let (path, after) = rest.split_once('"')?;
            let method = after.trim_start_matches([',', ' ']).split('(').next()?;
            Some(format!("{method} {path}"))
        })
        .collect();
    routed.sort();
    let mut described: Vec<String> = doc["paths"]
        .as_object()
        .map(|paths| {
            paths
                .iter()
                .flat_map(|(p, ops)| {
                    ops.as_object()
                        .map(|o| o.keys().map(|m| format!("{m} {p}")).collect::<Vec<_>>())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    described.sort();
    ensure(routed == described, || {
        format!("routed {routed:?}, described {described:?}")
    })?;

    // Lists that live in the code.
    let schemas = &doc["components"]["schemas"];
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let limits: Vec<String> = beaker::Limits::DOCS
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    ensure(keys(&schemas["Limits"]["properties"]) == limits, || {
        format!(
            "Limits: {:?} vs {limits:?}",
            keys(&schemas["Limits"]["properties"])
        )
    })?;
    let kinds: Vec<Value> = beaker::ErrorKind::ALL
        .iter()
        .map(|k| json!(k.as_str()))
        .collect();
    ensure(schemas["ErrorKind"]["enum"] == json!(kinds), || {
        format!("ErrorKind: {}", schemas["ErrorKind"]["enum"])
    })?;
    let text_keys = keys(&schemas["RunTextRequest"]["properties"]);
    ensure(text_keys == beaker_protocol::TEXT_KEYS, || {
        format!("RunTextRequest: {text_keys:?}")
    })?;

    // Real answers against the schemas the document gives them.
    let check = |method: &str, path: &str, status: u16, body: &Value| -> Outcome {
        let media = &doc["paths"][path][method.to_ascii_lowercase()]["responses"]
            [status.to_string()]["content"]["application/json"]["schema"];
        ensure(!media.is_null(), || {
            format!("no schema for {method} {path} {status}")
        })?;
        let mut schema = doc.clone();
        schema["$ref"] = json!("#/components/schemas/_answer");
        schema["components"]["schemas"]["_answer"] = media.clone();
        let v = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
        let errors: Vec<String> = v
            .iter_errors(body)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        ensure(errors.is_empty(), || {
            format!("{method} {path} {status}: {errors:?} in {body}")
        })
    };
    let calc = json!({"tool": "calculator", "params": {"expression": "7 * 8"}});
    for (method, path, body) in [
        ("POST", "/v1/call", calc.clone()),
        (
            "POST",
            "/v1/call",
            json!({"tool": "calculator", "params": {"expression": "1/0"}}),
        ),
        ("POST", "/v1/call", json!({"tool": "calculator"})),
        ("POST", "/v1/call", json!([1])),
        (
            "POST",
            "/v1/batch",
            json!({"calls": [calc, {"tool": "nope"}, 5]}),
        ),
        (
            "POST",
            "/v1/run-text",
            json!({"text": "<tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"2+2\"}}</tool_call>"}),
        ),
        (
            "POST",
            "/v1/run-text",
            json!({"messages": [{"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "calculator", "arguments": "{\"expression\": \"3*3\"}"}}]}]}),
        ),
        (
            "POST",
            "/v1/run-plan",
            json!({"id": "p", "plan": {"strategy": "parallel", "steps": [
                {"step_id": "a", "tool": "calculator", "params": {"expression": "7*8"}},
                {"step_id": "b", "tool": "calculator", "params": {"expression": "1/0"}},
                {"step_id": "c", "tool": "none", "depends_on": ["b"]}]}}),
        ),
        (
            "POST",
            "/v1/run-plan",
            json!({"plan": {"steps": [{"step_id": "a", "tool": "calculator", "depends_on": ["a"]}]}}),
        ),
        ("GET", "/v1/tools", Value::Null),
        ("GET", "/v1/tools?format=openai", Value::Null),
        ("GET", "/v1/tools?format=mcp", Value::Null),
        ("GET", "/v1/tools?format=yaml", Value::Null),
        ("GET", "/healthz", Value::Null),
        (
            "POST",
            "/run_code",
            json!({"code": "print(1)", "language": "cpp"}),
        ),
        ("POST", "/run_code", json!({"language": "python"})),
        (
            "POST",
            "/run_jupyter",
            json!({"cells": ["1"], "kernel": "R"}),
        ),
        ("POST", "/run_jupyter", json!({"cells": ["1"]})),
        ("POST", "/run_jupyter", json!({"kernel": "python3"})),
        (
            "POST",
            "/retrieve",
            json!({"queries": ["git commit", "?"], "topk": 2, "return_scores": true}),
        ),
        ("POST", "/retrieve", json!({"queries": ["git commit"]})),
        (
            "POST",
            "/retrieve",
            json!({"queries": ["git"], "topk": 500}),
        ),
        ("POST", "/retrieve", json!({"topk": 5})),
        (
            "POST",
            "/v1/run-text",
            json!({"text": "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}\n</tool_call>", "template": "qwen2.5", "tag": "h1"}),
        ),
        (
            "POST",
            "/v1/run-text",
            json!({"text": "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"2+2\"}}\n</tool_call>", "chat_template": "{{ raise_exception('no') }}"}),
        ),
        (
            "POST",
            "/v1/trajectory",
            json!({"trajectory": "h1", "limits": {"max_calls": 5}}),
        ),
        (
            "POST",
            "/v1/trajectory",
            json!({"trajectory": "h1", "limits": {"max_call": 5}}),
        ),
        ("GET", "/v1/trajectory/h1", Value::Null),
        ("DELETE", "/v1/trajectory/h1", Value::Null),
        ("GET", "/v1/trajectory/h1", Value::Null),
        ("DELETE", "/v1/trajectory/nobody", Value::Null),
    ] {
        let (st, answer) = h.json(method, path, &body)?;
        let path = path.split('?').next().unwrap_or(path);
        let documented = if path.starts_with("/v1/trajectory/") {
            "/v1/trajectory/{tag}"
        } else {
            path
        };
        check(method, documented, st, &answer)?;
        if path == "/v1/run-text" && body.get("template").is_some() {
            ensure(
                answer["observation"].as_str().is_some_and(|o| {
                    o.starts_with("<|im_end|>\n<|im_start|>user\n<tool_response>")
                }),
                || answer.to_string(),
            )?;
        }
        if method == "GET" && path == "/v1/trajectory/h1" && st == 200 {
            // The templated run-text call above was tagged h1.
            ensure(
                answer["stats"]["calls"] == 1 && answer["stats"]["limits"]["max_calls"] == 5,
                || answer.to_string(),
            )?;
        }
    }
    Ok(())
}

fn sandbox_fusion_client_runs_against_run_code() -> Outcome {
    let h = Http::start(&[])?;
    python_client_passes([
        root()
            .join("tests/clients/sandbox_fusion_client.py")
            .into_os_string(),
        format!("http://127.0.0.1:{}", h.port).into(),
    ])
}

/// `/run_jupyter` keeps its interpreter across cells, which only the WebAssembly backend does: a server whose
/// `execute_python` defaults to the native backend still answers it (it answered `SandboxError`: sessions run on
/// the WebAssembly backend only).
fn run_jupyter_runs_on_the_webassembly_backend_whatever_the_default() -> Outcome {
    let http = Http::start_with_env(&[], &[("BEAKER_PYTHON_BACKEND", "native")])?;
    let body = json!({"cells": ["import sys\na = sys.maxsize", "a"]}).to_string();
    let (status, answer) = http.request("POST", "/run_jupyter", body.as_bytes())?;
    let answer: Value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
    ensure(
        status == 200
            && answer["status"] == "Success"
            && answer["cells"][1]["display"] == json!([{"text/plain": "2147483647"}]),
        || format!("{status} {answer}"),
    )?;
    // /run_code's python follows the server's default: CPython on the 64-bit host.
    let body = json!({"language": "python", "code": "import sys\nprint(sys.maxsize)"}).to_string();
    let (_, answer) = http.request("POST", "/run_code", body.as_bytes())?;
    let answer: Value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
    ensure(
        answer["run_result"]["stdout"] == "9223372036854775807\n",
        || answer.to_string(),
    )
}

/// The HTTP trials.
pub fn trials() -> Vec<Trial> {
    let t = |name: &str, f: fn() -> Outcome| Trial::test(format!("http::{name}"), f);
    vec![
        t(
            "run_jupyter_runs_on_the_webassembly_backend_whatever_the_default",
            run_jupyter_runs_on_the_webassembly_backend_whatever_the_default,
        ),
        t(
            "routes_answer_like_the_stdio_server",
            routes_answer_like_the_stdio_server,
        ),
        t(
            "metrics_count_calls_failures_and_latency",
            metrics_count_calls_failures_and_latency,
        ),
        t(
            "openapi_describes_what_is_served",
            openapi_describes_what_is_served,
        ),
        t("slow_clients_hold_nobody_up", slow_clients_hold_nobody_up),
        t(
            "slow_heads_and_bodies_are_cut_off",
            slow_heads_and_bodies_are_cut_off,
        ),
        t(
            "bodies_reserve_from_the_memory_budget",
            bodies_reserve_from_the_memory_budget,
        ),
        t(
            "tokens_have_their_own_rate_and_in_flight_limits",
            tokens_have_their_own_rate_and_in_flight_limits,
        ),
        t(
            "malformed_and_oversized_bodies_are_refused",
            malformed_and_oversized_bodies_are_refused,
        ),
        t(
            "concurrent_clients_get_their_own_answers",
            concurrent_clients_get_their_own_answers,
        ),
        t(
            "run_code_reports_like_sandbox_fusion",
            run_code_reports_like_sandbox_fusion,
        ),
        t(
            "run_code_runs_every_native_language",
            run_code_runs_every_native_language,
        ),
        t(
            "run_code_exit_status_matches_cpython",
            run_code_exit_status_matches_cpython,
        ),
        t(
            "sandbox_fusion_client_runs_against_run_code",
            sandbox_fusion_client_runs_against_run_code,
        ),
        t(
            "run_text_runs_the_calls_in_a_models_text",
            run_text_runs_the_calls_in_a_models_text,
        ),
        t(
            "a_client_that_goes_away_cancels_its_call",
            a_client_that_goes_away_cancels_its_call,
        ),
        t(
            "bearer_tokens_guard_every_route_but_health",
            bearer_tokens_guard_every_route_but_health,
        ),
        t(
            "requests_past_the_in_flight_cap_are_turned_away",
            requests_past_the_in_flight_cap_are_turned_away,
        ),
        t(
            "requests_past_the_in_flight_cap_wait_for_a_slot",
            requests_past_the_in_flight_cap_wait_for_a_slot,
        ),
    ]
}
