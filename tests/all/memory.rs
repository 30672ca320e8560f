//! The process's memory budget (`--max-memory`, issue 36): every holder of client-grown memory reserves from it,
//! so interpreters and sessions, and answers a client does not read, stay within it; `hello` reports it.

use crate::support::{ensure, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};

/// The resident memory of a process, from `/proc` (Linux).
fn rss_bytes(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    let kib: u64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .ok_or("no VmRSS")?;
    Ok(kib * 1024)
}

/// Sessions reserve what their interpreters may grow to during a turn and keep what they hold after it: with a
/// 2 GiB budget two sessions holding 400 MB each fit, and a third call that may grow to 1 GiB is refused,
/// naming the budget, until one of them ends.
fn sessions_hold_their_memory_from_the_budget() -> Outcome {
    let mut s = Server::start(&["--max-memory", "2GiB"]);
    s.send(&json!({"id": "hello", "hello": true}));
    let hello = s.recv();
    ensure(hello["hello"]["max_memory"] == 2u64 << 30, || {
        format!("{hello}")
    })?;
    let limits = json!({"max_memory_bytes": 1u64 << 30});
    for name in ["a", "b"] {
        s.send(
            &json!({"id": name, "tool": "execute_python", "limits": limits,
            "params": {"code": "held = bytearray(400 << 20)\nlen(held)", "session": name}}),
        );
        let r = s.recv();
        ensure(r["result"]["result"] == "419430400", || format!("{r}"))?;
    }
    s.send(
        &json!({"id": "c", "tool": "execute_python", "limits": limits,
        "params": {"code": "1 + 1", "session": "c"}}),
    );
    let refused = s.recv();
    ensure(
        refused["error_kind"] == "limit_exceeded"
            && refused["error"]
                .as_str()
                .is_some_and(|e| e.contains("memory budget")),
        || format!("{refused}"),
    )?;
    s.send(&json!({"id": "end", "tool": "execute_python",
        "params": {"code": "", "session": "a", "end_session": true}}));
    let _ = s.recv();
    s.send(
        &json!({"id": "c2", "tool": "execute_python", "limits": limits,
        "params": {"code": "1 + 1", "session": "c"}}),
    );
    let r = s.recv();
    ensure(r["result"]["result"] == "2", || format!("{r}"))?;
    let (rest, _) = s.finish();
    ensure(rest.is_empty(), || format!("{rest:?}"))
}

/// Answers a client does not read wait in the budget, not in memory without end: 100 answers of 5.8 MB each
/// (580 MB) to a client that reads nothing keep the server within its 64 MiB budget plus the results being
/// built (about 160 MiB in all, where it grows past 600 MiB without the budget), and all of them arrive once it
/// reads.
fn unread_answers_wait_within_the_budget() -> Outcome {
    let mut s = Server::start(&["--no-python", "--max-memory", "64MiB"]);
    let n = 100;
    for i in 0..n {
        // About 5.8 MB of JSON: 300,000 frequencies written in full.
        s.send(
            &json!({"id": i, "tool": "numerical", "limits": {"max_output_bytes": 8u64 << 20},
            "params": {"operation": "fftfreq", "data": {"n": 300_000, "d": 0.37}}}),
        );
    }
    // While the client reads nothing, the workers compute what the budget lets them queue and then wait;
    // without the budget every answer would pile up (the bound is far below 40 of them).
    for _ in 0..60 {
        let rss = rss_bytes(s.child.id())?;
        ensure(rss < 350 << 20, || {
            format!("the server holds {} MiB while its answers wait", rss >> 20)
        })?;
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    for _ in 0..n {
        // Read as text: parsing 580 MB of answers would be most of this test's time.
        let line = s.recv_line();
        ensure(line.contains(r#""success":true"#), || {
            line.chars().take(300).collect()
        })?;
    }
    Ok(())
}

/// A call whose result does not fit because the budget is held by an answer the client has not read yet
/// waits for the client to read it rather than being refused: only reading frees that memory, and a refusal
/// would turn a slow reader into failed calls (the flake that `unread_answers_wait_within_the_budget` showed).
/// A call that cannot fit even once every answer is written is still refused at once.
fn calls_wait_for_answers_the_client_has_not_read() -> Outcome {
    use std::io::BufRead;
    let mut s = Server::start(&["--no-python", "--max-memory", "64MiB"]);
    // About 19 MB of JSON, and 60 MiB reserved while it is built (twice max_output_bytes).
    let big = |id: &str| {
        json!({"id": id, "tool": "numerical", "limits": {"max_output_bytes": 30u64 << 20},
               "params": {"operation": "fftfreq", "data": {"n": 1_000_000, "d": 0.37}}})
    };
    s.send(&big("first"));
    // The first answer has begun to be written: it is queued, and holds its bytes until the client reads it.
    s.stdout.fill_buf().map_err(|e| e.to_string())?;
    // 60 MiB do not fit beside the 19 MB waiting to be read, and fit once they are.
    s.send(&big("second"));
    // 80 MiB never fit in 64 MiB: refused without waiting.
    s.send(
        &json!({"id": "never", "tool": "numerical", "limits": {"max_output_bytes": 40u64 << 20},
        "params": {"operation": "fftfreq", "data": {"n": 10, "d": 0.37}}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut answers = std::collections::BTreeMap::new();
    for _ in 0..3 {
        let line = s.recv_line();
        let head: String = line.chars().take(400).collect();
        let id = head
            .split(r#""id":""#)
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or_default()
            .to_string();
        let refused = line.len() < 4096 && line.contains(r#""error_kind":"limit_exceeded""#);
        answers.insert(id, (line.contains(r#""success":true"#), refused, head));
    }
    ensure(answers.get("first").is_some_and(|a| a.0), || {
        format!("{answers:?}")
    })?;
    ensure(answers.get("second").is_some_and(|a| a.0), || {
        format!("{answers:?}")
    })?;
    ensure(answers.get("never").is_some_and(|a| !a.0 && a.1), || {
        format!("{answers:?}")
    })
}

/// Issue 36's seven ways to grow a server's memory, all at once against one HTTP server with a 2 GiB budget: 60
/// connections each holding most of a 16 MiB body, a chat template that builds gigabytes, sessions asking for
/// 1.5 GiB each, a text with 12 calls printing 100 MB each, a batch of 16 such calls, and numeric results of 20
/// million values. Every request is answered (refusals included), a client making ordinary calls meanwhile gets
/// every answer, and the server's resident memory stays under the budget throughout.
fn seven_ways_to_grow_memory_at_once_stay_within_the_budget() -> Outcome {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    let h = Arc::new(crate::http::Http::start(&["--max-memory", "2GiB"])?);
    let pid = h.child.id();
    let done = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (done, peak) = (done.clone(), peak.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Ok(rss) = rss_bytes(pid) {
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    // 1. Bodies held open, most of 16 MiB each.
    let mut held = Vec::new();
    for _ in 0..60 {
        let mut s =
            std::net::TcpStream::connect(("127.0.0.1", h.port)).map_err(|e| e.to_string())?;
        let head = format!(
            "POST /v1/call HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n",
            (16 << 20) - 1
        );
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        // A refused body (503) may close the connection: writing more is then an error, and fine.
        let _ = s.write_all(&vec![b' '; 15 << 20]);
        held.push(s);
    }
    let call = "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"7 * 8\"}}\n</tool_call>";
    let print_100mb = |id: usize| {
        json!({"id": id, "tool": "execute_python", "limits": {"max_output_bytes": 256u64 << 20},
               "params": {"code": "print('x' * 100_000_000)"}})
    };
    let python_calls: String = (0..12)
        .map(|_| "<tool_call>\n{\"name\": \"execute_python\", \"arguments\": {\"code\": \"print('x' * 100_000_000)\"}}\n</tool_call>\n")
        .collect();
    let requests: Vec<(&str, Value)> = vec![
        // 2. A chat template that builds gigabytes in a few instructions.
        (
            "/v1/run-text",
            json!({"text": call,
            "chat_template": "{% set a = 'x' * 100000000 %}{% set b = ([a] * 30) | join %}{{ b | length }}"}),
        ),
        // 3. Sessions asking for 1.5 GiB each.
        (
            "/v1/call",
            json!({"tool": "execute_python", "limits": {"max_memory_bytes": 2u64 << 30},
            "params": {"code": "held = bytearray(1536 << 20)", "session": "s1"}}),
        ),
        (
            "/v1/call",
            json!({"tool": "execute_python", "limits": {"max_memory_bytes": 2u64 << 30},
            "params": {"code": "held = bytearray(1536 << 20)", "session": "s2"}}),
        ),
        // 4. One text whose 12 calls print 100 MB each.
        (
            "/v1/run-text",
            json!({"text": python_calls, "limits": {"max_output_bytes": 256u64 << 20}}),
        ),
        // 5. A batch of 16 calls printing 100 MB each.
        (
            "/v1/batch",
            json!({"calls": (0..16).map(print_100mb).collect::<Vec<_>>()}),
        ),
        // 6. Numeric results of 20 million values.
        (
            "/v1/call",
            json!({"tool": "numerical", "limits": {"max_array_len": 100_000_000, "max_output_bytes": 256u64 << 20},
            "params": {"operation": "fftfreq", "data": {"n": 20_000_000}}}),
        ),
        (
            "/v1/call",
            json!({"tool": "statistics", "limits": {"max_array_len": 100_000_000, "max_output_bytes": 256u64 << 20},
            "params": {"operation": "distribution", "data": {"distribution": "normal", "function": "sample"}, "options": {"n": 20_000_000}}}),
        ),
    ];
    let heavy: Vec<_> = requests
        .into_iter()
        .map(|(path, body)| {
            let h = h.clone();
            std::thread::spawn(move || h.json("POST", path, &body).map(|(st, _)| st))
        })
        .collect();
    // 7. An ordinary client meanwhile.
    for i in 0..50 {
        let (st, v) = h.json(
            "POST",
            "/v1/call",
            &json!({"tool": "calculator", "params": {"expression": format!("{i} * 2")}}),
        )?;
        ensure(
            st == 200 && v["result"]["value"].as_str() == Some((i * 2).to_string().as_str()),
            || format!("ordinary call {i}: {st} {v}"),
        )?;
    }
    for (i, t) in heavy.into_iter().enumerate() {
        let status = t.join().map_err(|_| "a client thread panicked")??;
        ensure((200..600).contains(&status), || {
            format!("heavy request {i}: {status}")
        })?;
    }
    drop(held);
    let (st, _) = h.json("GET", "/healthz", &Value::Null)?;
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    let peak = peak.load(Ordering::Relaxed);
    ensure(st == 200, || format!("healthz: {st}"))?;
    ensure(peak < 2 << 30, || {
        format!("the server reached {} MiB resident", peak >> 20)
    })
}

/// The memory trials.
pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "memory::sessions_hold_their_memory_from_the_budget",
            sessions_hold_their_memory_from_the_budget,
        ),
        Trial::test(
            "memory::unread_answers_wait_within_the_budget",
            unread_answers_wait_within_the_budget,
        ),
        Trial::test(
            "memory::calls_wait_for_answers_the_client_has_not_read",
            calls_wait_for_answers_the_client_has_not_read,
        ),
        Trial::test(
            "memory::seven_ways_to_grow_memory_at_once_stay_within_the_budget",
            seven_ways_to_grow_memory_at_once_stay_within_the_budget,
        ),
    ]
}
