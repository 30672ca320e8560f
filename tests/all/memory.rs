//! The process's memory budget (`--max-memory`, issue 36): every holder of client-grown memory reserves from it,
//! so interpreters and sessions, and answers a client does not read, stay within it; `hello` reports it.

use crate::support::{ensure, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::json;

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
    ]
}
