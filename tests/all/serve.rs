//! `beaker serve` and `beaker call` as a client sees them: ids, concurrency, malformed input, limits,
//! cancellation, EOF drain, exit codes.

use crate::support::{beaker, ensure, jsonl, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::collections::HashMap;

fn by_id(responses: &[Value]) -> HashMap<String, Value> {
    responses
        .iter()
        .map(|r| (r["id"].to_string(), r.clone()))
        .collect()
}

fn many_concurrent_calls_keep_their_ids() -> Outcome {
    let mut s = Server::start(&["--max-in-flight", "64"]);
    let n = 3000u64;
    // Written from a second thread while this one reads (PROTOCOL.md: read stdout while you write stdin; the
    // server's output queue is bounded, so a client that only writes stalls it).
    let mut stdin = s.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for i in 0..n {
            // Alternate integer and string ids; every call has a distinct answer.
            let id = if i % 2 == 0 {
                json!(i)
            } else {
                json!(format!("s{i}"))
            };
            let call = json!({"id": id, "tool": "calculator", "params": {"expression": format!("{i}*{i}")}});
            writeln!(stdin, "{call}").expect("write");
        }
    });
    let (out, status) = s.finish();
    writer.join().map_err(|_| "the writer panicked")?;
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(out.len() as u64 == n, || {
        format!("{} responses for {n} requests", out.len())
    })?;
    let map = by_id(&out);
    ensure(map.len() as u64 == n, || {
        "duplicate ids in responses".into()
    })?;
    for i in 0..n {
        let id = if i % 2 == 0 {
            json!(i)
        } else {
            json!(format!("s{i}"))
        };
        let r = map
            .get(&id.to_string())
            .ok_or_else(|| format!("no response for {id}"))?;
        ensure(r["result"]["value"] == json!((i * i).to_string()), || {
            format!("wrong answer for {id}: {r}")
        })?;
    }
    Ok(())
}

fn malformed_lines_get_errors_and_the_server_goes_on() -> Outcome {
    let mut s = Server::start(&[]);
    let lines: Vec<&[u8]> = vec![
        b"not json",
        b"[1, 2, 3]",
        b"{\"id\": {\"nested\": 1}, \"tool\": \"calculator\"}",
        b"{\"id\": 5, \"params\": {}}",
        b"{\"id\": 6, \"tool\": 7}",
        b"{\"id\": 7, \"tool\": \"calculator\", \"params\": {\"expression\": \"1\"}, \"bogus\": true}",
        b"{\"id\": 8, \"tool\": \"calculator\", \"params\": {\"expression\": \"\xff\xfe\"}}",
        b"{\"id\": 9, \"tool\": \"calculator\", \"params\": {\"expression\": NaN}}",
        b"{\"id\": 10, \"tool\": \"calculator\", \"params\": {\"expression\": \"1\"}, \"limits\": {\"timeout\": 5}}",
        b"{\"id\": 11, \"tool\": \"calculator\", \"params\": \"7*8\"}",
        b"{\"id\": 12, \"tool\": \"calculator\", \"params\": {\"expression\": 1e999}}",
        // A call's fields as an array (serde would read a struct from one, by position): not a request.
        b"[14, \"calculator\", {\"expression\": \"7 * 8\"}]",
        b"",
        b"   ",
    ];
    for l in &lines {
        let mut l = l.to_vec();
        l.push(b'\n');
        s.send_raw(&l);
    }
    let deep = format!(
        "{{\"id\": 13, \"tool\": \"calculator\", \"params\": {}1{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    s.send_raw(format!("{deep}\n").as_bytes());
    // A UTF-8 byte-order mark before a request is not part of its JSON (issue 36).
    s.send_raw(b"\xef\xbb\xbf{\"id\": \"bom\", \"tool\": \"calculator\", \"params\": {\"expression\": \"6 * 7\"}}\n");
    s.send(&json!({"id": "last", "tool": "calculator", "params": {"expression": "7 * 8"}}));
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(out.len() == 15, || {
        format!(
            "expected 15 responses (blank lines ignored), got {}: {out:?}",
            out.len()
        )
    })?;
    let bom = out
        .iter()
        .find(|r| r["id"] == "bom")
        .ok_or("no answer for the line with a byte-order mark")?;
    ensure(bom["result"]["value"] == "42", || format!("bom: {bom}"))?;
    let out: Vec<Value> = out.into_iter().filter(|r| r["id"] != "bom").collect();
    let expect = [
        (json!(null), "parse_error"),
        (json!(null), "parse_error"),
        (json!(null), "parse_error"),
        (json!(5), "parse_error"),
        (json!(6), "parse_error"),
        (json!(7), "parse_error"),
        // Not valid JSON (invalid UTF-8, NaN), but the id is readable: the answer carries it.
        (json!(8), "parse_error"),
        (json!(9), "parse_error"),
        (json!(10), "parse_error"),
        (json!(11), "invalid_params"),
        // `1e999` is valid JSON (numbers are read as written): the request keeps its id and its params are
        // refused by the schema (`expression` must be a string).
        (json!(12), "invalid_params"),
        // Nested too deep for the parser; the id is read from the raw line.
        (json!(13), "parse_error"),
        (json!(null), "parse_error"),
    ];
    // Parse errors are answered by the reader, the rest by workers: compare as multisets.
    let mut want: Vec<String> = expect
        .iter()
        .map(|(id, kind)| format!("{id}|\"{kind}\""))
        .collect();
    let mut got: Vec<String> = out
        .iter()
        .filter(|r| r["id"] != "last")
        .map(|r| format!("{}|{}", r["id"], r["error_kind"]))
        .collect();
    want.sort();
    got.sort();
    ensure(want == got, || format!("expected {want:?}, got {got:?}"))?;
    ensure(
        out.iter()
            .filter(|r| r["id"] != "last")
            .all(|r| r["success"] == false),
        || format!("{out:?}"),
    )?;
    let last = out
        .iter()
        .find(|r| r["id"] == "last")
        .ok_or("no answer for the last line")?;
    ensure(last["result"]["value"] == "56", || format!("last: {last}"))
}

fn oversized_lines_are_refused_then_serving_continues() -> Outcome {
    let mut s = Server::start(&["--max-line-bytes", "1000"]);
    let big = format!(
        "{{\"id\": 1, \"tool\": \"calculator\", \"params\": {{\"expression\": \"{}\"}}}}\n",
        "1+".repeat(100_000)
    );
    s.send_raw(big.as_bytes());
    s.send(&json!({"id": 2, "tool": "calculator", "params": {"expression": "2+2"}}));
    let (out, _) = s.finish();
    ensure(out.len() == 2, || format!("{out:?}"))?;
    ensure(
        out[0]["error_kind"] == "parse_error" && out[0]["id"] == 1,
        || format!("{}", out[0]),
    )?;
    ensure(
        out[0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("limit is 1000"),
        || format!("{}", out[0]),
    )?;
    ensure(out[1]["result"]["value"] == "4", || format!("{}", out[1]))
}

fn eof_drains_calls_in_flight() -> Outcome {
    let mut s = Server::start(&["--workers", "1"]);
    for i in 0..40 {
        s.send(&json!({"id": i, "tool": "calculator", "params": {"expression": "factorial(20000) // factorial(19999)"}}));
    }
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(out.len() == 40, || format!("{} of 40 answered", out.len()))?;
    ensure(out.iter().all(|r| r["result"]["value"] == "20000"), || {
        "wrong answers".into()
    })
}

fn empty_input_exits_cleanly() -> Outcome {
    let (out, status) = Server::start(&[]).finish();
    ensure(status.success() && out.is_empty(), || {
        format!("{status} {out:?}")
    })
}

fn ids_and_meta_are_echoed_exactly() -> Outcome {
    let mut s = Server::start(&[]);
    let ids = [
        json!(0),
        json!(-3),
        json!(1.5),
        json!(18446744073709551615u64),
        json!("abc"),
        json!(""),
    ];
    for id in &ids {
        s.send(&json!({"id": id, "tool": "calculator", "params": {"expression": "1"}, "meta": {"traj": [1, {"a": null}]}}));
    }
    let (out, _) = s.finish();
    let map = by_id(&out);
    for id in &ids {
        let r = map
            .get(&id.to_string())
            .ok_or_else(|| format!("no response for {id}"))?;
        ensure(r["meta"] == json!({"traj": [1, {"a": null}]}), || {
            format!("meta not echoed: {r}")
        })?;
    }
    Ok(())
}

/// A numeric id comes back as the client wrote it, byte for byte (`1e2` not `1e+2`, `-0` not `0`), on answers
/// and on refusals.
fn numeric_ids_are_echoed_as_written() -> Outcome {
    let mut s = Server::start(&[]);
    let raw = [
        "1e2",
        "-0",
        "5.0",
        "0.10",
        "2E-3",
        "123456789012345678901234567890",
    ];
    for id in raw {
        s.send_raw(
            format!(r#"{{"id": {id}, "tool": "calculator", "params": {{"expression": "1"}}}}"#)
                .as_bytes(),
        );
        s.send_raw(b"\n");
        let line = s.recv_line();
        ensure(line.starts_with(&format!(r#"{{"id":{id},"#)), || {
            format!("id {id} came back as {line}")
        })?;
    }
    // A refused line (a repeated key) and a line that is not JSON keep the id's text too.
    s.send_raw(b"{\"id\": 1E+2, \"tool\": \"calculator\", \"tool\": \"x\"}\n");
    let line = s.recv_line();
    ensure(line.starts_with(r#"{"id":1E+2,"#), || line.clone())?;
    s.send_raw(b"{\"id\": -0.0, \"tool\": \n");
    let line = s.recv_line();
    ensure(line.starts_with(r#"{"id":-0.0,"#), || line.clone())
}

/// Ids are equal when their values are: `5`, `5.0` and `5e0` are one id while in flight, and cancelling by
/// any of them finds it.
fn equal_ids_are_one_id() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    s.send_raw(b"{\"id\": 5, \"tool\": \"_block\", \"limits\": {\"timeout_ms\": 60000}}\n");
    s.send_raw(b"{\"id\": 5.0, \"tool\": \"calculator\", \"params\": {\"expression\": \"1\"}}\n");
    let line = s.recv_line();
    ensure(
        line.starts_with(r#"{"id":5.0,"#) && line.contains("duplicate_id"),
        || line.clone(),
    )?;
    s.send_raw(b"{\"id\": \"k\", \"cancel\": 5e0}\n");
    let (out, _) = s.finish();
    ensure(
        out.iter().any(|r| r["id"] == "k" && r["found"] == true),
        || format!("{out:?}"),
    )?;
    ensure(out.iter().any(|r| r["error_kind"] == "cancelled"), || {
        format!("{out:?}")
    })
}

/// `--max-queued-bytes`: a large request that does not fit the budget is not even read until an earlier one
/// is answered (without the budget the calculator call would be answered first, in microseconds).
fn large_requests_wait_for_the_byte_budget() -> Outcome {
    let mut s = Server::start(&["--test-tools", "--max-queued-bytes", "150000"]);
    s.send(&json!({"id": "h", "hello": {}}));
    let hello = s.recv();
    ensure(hello["hello"]["max_queued_bytes"] == 150000, || {
        format!("{hello}")
    })?;
    let pad = |n: usize| "x".repeat(n);
    s.send(
        &json!({"id": 1, "tool": "_block", "limits": {"timeout_ms": 1500}, "meta": pad(100_000)}),
    );
    s.send(&json!({"id": 2, "tool": "calculator", "params": {"expression": "6*7"}, "meta": pad(80_000)}));
    let (out, _) = s.finish();
    let order: Vec<Value> = out.iter().map(|r| r["id"].clone()).collect();
    ensure(order == vec![json!(1), json!(2)], || {
        format!("answers came in the order {order:?}")
    })?;
    ensure(
        out[0]["error_kind"] == "timeout" && out[1]["result"]["value"] == "42",
        || format!("{out:?}"),
    )
}

/// A line of megabytes is parsed off the reading thread: a small call sent after it is answered first (parsing
/// 8 MiB of numbers takes a thousand times longer than the calculator call), and the large one is still
/// answered before EOF ends the server.
fn large_lines_do_not_hold_up_the_reader() -> Outcome {
    let mut s = Server::start(&[]);
    let numbers: Vec<u32> = (0..1_500_000).collect();
    s.send(&json!({"id": "big", "tool": "calculator", "params": {"expression": "1+1"}, "meta": numbers}));
    s.send(&json!({"id": "small", "tool": "calculator", "params": {"expression": "2+2"}}));
    let (out, status) = s.finish();
    let order: Vec<Value> = out.iter().map(|r| r["id"].clone()).collect();
    ensure(
        status.success() && order == vec![json!("small"), json!("big")],
        || format!("answers came in the order {order:?}"),
    )?;
    ensure(out[1]["result"]["value"] == "2", || {
        format!("{}", out[1]["result"])
    })
}

fn hello_reports_version_tools_and_limits() -> Outcome {
    let mut s = Server::start(&[]);
    s.send(&json!({"id": "h", "hello": {}}));
    let r = s.recv();
    ensure(
        r["id"] == "h" && r["hello"]["version"] == env!("CARGO_PKG_VERSION"),
        || format!("{r}"),
    )?;
    ensure(
        r["hello"]["tools"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("calculator"))),
        || format!("{r}"),
    )?;
    ensure(
        r["hello"]["dialects"]
            == json!(["svend", "tagged", "hermes", "fenced", "openai", "mistral", "deepseek"]),
        || format!("{r}"),
    )?;
    ensure(
        r["hello"]["limits"]["defaults"]["timeout_ms"].is_u64(),
        || format!("{r}"),
    )
}

/// With `--output-dir`, a plot is also written to a file named by its content and the result says where;
/// without it, no file and no `output_path`.
fn plots_are_written_to_the_output_dir() -> Outcome {
    use base64::Engine as _;
    let dir = std::env::temp_dir().join(format!("beaker-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let call = json!({"id": 1, "tool": "plotter", "params": {"plot_type": "line", "data": {"y": [1, 3, 2]}}});
    let mut s = Server::start(&["--output-dir", dir.to_str().unwrap_or_default()]);
    s.send(&call);
    let r = s.recv();
    let path = r["result"]["output_path"]
        .as_str()
        .ok_or(format!("no output_path: {r}"))?;
    let written = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let inline = base64::engine::general_purpose::STANDARD
        .decode(r["result"]["image"].as_str().unwrap_or_default())
        .map_err(|e| e.to_string())?;
    ensure(written == inline && path.ends_with(".png"), || {
        format!("{path} differs from the inline image")
    })?;
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = Server::start(&[]);
    s.send(&call);
    let r = s.recv();
    ensure(
        r["success"] == json!(true) && r["result"].get("output_path").is_none(),
        || format!("{r}"),
    )
}

fn duplicate_ids_in_flight_are_refused() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    s.send(&json!({"id": 1, "tool": "_block", "limits": {"timeout_ms": 60000}}));
    s.send(&json!({"id": 1, "tool": "calculator", "params": {"expression": "1"}}));
    let r = s.recv();
    ensure(
        r["id"] == 1 && r["error_kind"] == "duplicate_id" && r["fault"] == "client",
        || format!("{r}"),
    )?;
    ensure(
        r["error"]
            .as_str()
            .unwrap_or("")
            .contains("already in flight"),
        || format!("{r}"),
    )?;
    s.send(&json!({"cancel": 1}));
    let (out, _) = s.finish();
    ensure(out.len() == 2, || format!("{out:?}"))?;
    ensure(
        out.iter()
            .any(|r| r["id"] == 1 && r["error_kind"] == "cancelled"),
        || format!("{out:?}"),
    )
}

/// An id is free again before its answer is written: a client that reuses it the moment it reads the answer
/// is never refused, whatever the tool (a regression: a raising Python call sometimes left its id registered
/// until after the answer was queued).
fn an_answered_id_can_be_reused_at_once() -> Outcome {
    let mut s = Server::start(&[]);
    let calls = [
        json!({"tool": "execute_python", "params": {"code": "raise ValueError('x')"}}),
        json!({"tool": "calculator", "params": {"expression": "7 * 8"}}),
        json!({"tool": "statistics", "params": {"operation": "descriptive", "data": [1, 2, 3]}}),
        json!({"tool": "unit_converter", "params": {"value": 1, "from_unit": "km", "to_unit": "m"}}),
        json!({"tool": "calculator", "params": {"expression": "1/0"}}),
    ];
    let mut refused = 0;
    for i in 0..600 {
        let mut call = calls[i % calls.len()].clone();
        call["id"] = json!(1);
        s.send(&call);
        let r = s.recv();
        ensure(r["id"] == 1, || format!("answer {i} has id {}", r["id"]))?;
        if r["error"].as_str().is_some_and(|e| e.contains("in flight")) {
            refused += 1;
        }
    }
    ensure(refused == 0, || {
        format!("{refused} of 600 reuses were refused")
    })
}

/// A call queued behind a busy session gives its worker back at its own deadline (issue 36): with two sandbox
/// workers, one running a long turn in session `s` and one waiting for `s` with a 300 ms timeout, an unrelated
/// call is answered before the long turn ends. (Before, the waiting call held its worker until the turn ahead
/// of it ended, and the unrelated call came after it.)
fn a_call_waiting_for_a_busy_session_frees_its_worker() -> Outcome {
    let mut s = Server::start(&["--sandbox-workers", "2"]);
    s.send(
        &json!({"id": "long", "tool": "execute_python", "params": {"code": "while True:\n    pass", "session": "s"},
        "limits": {"max_fuel": 1_000_000_000_000u64, "timeout_ms": 8000}}),
    );
    // Let the long turn start before the others are queued.
    std::thread::sleep(std::time::Duration::from_millis(300));
    s.send(
        &json!({"id": "queued", "tool": "execute_python", "params": {"code": "1", "session": "s"},
        "limits": {"timeout_ms": 300}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    s.send(&json!({"id": "other", "tool": "execute_python", "params": {"code": "6 * 7"}}));
    let first = s.recv();
    let second = s.recv();
    ensure(
        first["id"] == "queued" && first["error_kind"] == "timeout",
        || format!("first answer {first}"),
    )?;
    ensure(
        second["id"] == "other" && second["result"]["result"] == "42",
        || format!("the unrelated call waited for the long turn: second answer {second}"),
    )?;
    s.send(&json!({"cancel": "long"}));
    let (out, _) = s.finish();
    ensure(out.iter().any(|r| r["id"] == "long"), || format!("{out:?}"))
}

/// A native computation that cannot interrupt itself (an SVD of a 1500 × 1500 matrix, a minute in a debug build)
/// is answered `timeout` on time and gives its worker back: with one native worker, a calculator call sent after
/// that answer runs at once instead of after the SVD.
fn a_timed_out_native_computation_frees_its_worker() -> Outcome {
    let mut s = Server::start(&["--workers", "1", "--no-python"]);
    let n = 1500;
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| ((i * 7 + j * 13) % 10) as f64 - 4.5 + f64::from(u8::from(i == j)))
                .collect()
        })
        .collect();
    s.send(
        &json!({"id": "svd", "tool": "numerical", "params": {"operation": "svd", "data": {"A": a}},
        "limits": {"timeout_ms": 500, "max_array_len": 3_000_000, "max_matrix_dim": 1500}}),
    );
    let svd = s.recv();
    ensure(svd["id"] == "svd" && svd["error_kind"] == "timeout", || {
        format!("{svd}")
    })?;
    s.send(&json!({"id": "calc", "tool": "calculator", "params": {"expression": "2 + 2"}}));
    let calc = s.recv();
    ensure(
        calc["result"]["value"] == "4"
            && calc["queued_us"].as_u64().is_some_and(|us| us < 5_000_000),
        || format!("the calculator waited behind the abandoned SVD: {calc}"),
    )?;
    let (out, _) = s.finish();
    ensure(out.is_empty(), || format!("{out:?}"))
}

/// A timed-out sandboxed call is answered by its own guest, with what it printed and its usage, even when many
/// stop at once on a loaded machine (issue 36: 2 of 9 print floods came back without `partial` when the engine
/// gave guests only 25 ms past their deadline).
fn timed_out_print_floods_keep_what_they_printed() -> Outcome {
    let mut s = Server::start(&["--sandbox-workers", "4"]);
    let n = 20;
    for i in 0..n {
        // Lines of up to 100 kB: a call whose first megabyte line had not been written when its 300 ms ran out
        // (queued 2.2 s behind the others on a loaded 2-core machine) had nothing to keep, and failed the test.
        let code = format!("while True:\n    print('x' * {})", 10usize.pow(3 + i % 3));
        s.send(
            &json!({"id": i, "tool": "execute_python", "params": {"code": code},
            "limits": {"timeout_ms": 300}}),
        );
    }
    for _ in 0..n {
        let r = s.recv();
        ensure(
            r["error_kind"] == "timeout"
                && r["partial"]["stdout"]
                    .as_str()
                    .is_some_and(|o| o.starts_with("xxx"))
                && r["usage"]["wall_us"].as_u64().is_some_and(|us| us > 0),
            || r.to_string().chars().take(400).collect::<String>(),
        )?;
    }
    Ok(())
}

/// Issue 38: a call that raises `timeout_ms` and says nothing of `max_fuel` gets the fuel that time is worth, so
/// a loop needing 2.25·10¹⁰ fuel (past the 2·10¹⁰ default) finishes inside its 20 s instead of stopping on fuel;
/// with `max_fuel` given, that cap holds.
fn fuel_follows_a_raised_timeout() -> Outcome {
    let mut s = Server::start(&[]);
    let code = "s = 0\nfor i in range(8_000_000):\n    s += i\nprint(s)";
    s.send(
        &json!({"id": 1, "tool": "execute_python", "params": {"code": code},
        "limits": {"timeout_ms": 20_000}}),
    );
    let r = s.recv();
    ensure(r["result"]["stdout"] == "31999996000000\n", || {
        r.to_string()
    })?;
    s.send(
        &json!({"id": 2, "tool": "execute_python", "params": {"code": code},
        "limits": {"timeout_ms": 20_000, "max_fuel": 1_000_000_000u64}}),
    );
    let r = s.recv();
    ensure(r["error_kind"] == "limit_exceeded", || r.to_string())
}

/// Native and sandboxed tools run on pools of their own: with one worker each, a calculator call is answered
/// while a Python loop still holds the sandbox pool (one shared pool would answer it only after the loop ends).
fn native_calls_never_wait_behind_sandboxed_ones() -> Outcome {
    let mut s = Server::start(&["--workers", "1", "--sandbox-workers", "1"]);
    s.send(&json!({"id": "hello", "hello": true}));
    let hello = s.recv();
    ensure(
        hello["hello"]["workers"] == 1 && hello["hello"]["sandbox_workers"] == 1,
        || format!("{hello}"),
    )?;
    s.send(
        &json!({"id": "py", "tool": "execute_python", "params": {"code": "while True:\n    pass"},
        "limits": {"max_fuel": 1_000_000_000_000u64, "timeout_ms": 600_000}}),
    );
    s.send(&json!({"id": "py2", "tool": "execute_python", "params": {"code": "6 * 7"}}));
    s.send(&json!({"id": "calc", "tool": "calculator", "params": {"expression": "7 * 8"}}));
    let first = s.recv();
    ensure(
        first["id"] == "calc" && first["result"]["value"] == "56",
        || format!("the calculator waited behind Python: first answer {first}"),
    )?;
    s.send(&json!({"cancel": "py"}));
    let (out, _) = s.finish();
    let by = by_id(&out);
    ensure(
        by.get("\"py\"")
            .is_some_and(|r| r["error_kind"] == "cancelled"),
        || format!("{out:?}"),
    )?;
    ensure(
        by.get("\"py2\"")
            .is_some_and(|r| r["result"]["result"] == "42"),
        || format!("{out:?}"),
    )
}

fn signal(s: &Server, name: &str) -> Outcome {
    let ok = std::process::Command::new("kill")
        .args([format!("-{name}"), s.child.id().to_string()])
        .status()
        .map_err(|e| e.to_string())?
        .success();
    ensure(ok, || format!("kill -{name} failed"))
}

/// SIGTERM: calls in flight are answered `cancelled` (default `--drain-ms 0`), every answer is written, exit 0.
fn sigterm_answers_every_call_then_exits() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    s.send(&json!({"id": 1, "tool": "_block", "limits": {"timeout_ms": 600_000}}));
    s.send(&json!({"id": 2, "tool": "calculator", "params": {"expression": "2+2"}}));
    let r = s.recv();
    ensure(r["id"] == 2, || format!("{r}"))?;
    signal(&s, "TERM")?;
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(
        out.len() == 1 && out[0]["id"] == 1 && out[0]["error_kind"] == "cancelled",
        || format!("{out:?}"),
    )
}

/// SIGINT with `--drain-ms`: a call in flight may finish on its own (here by its 300 ms timeout) before exit.
fn sigint_with_drain_lets_calls_finish() -> Outcome {
    let mut s = Server::start(&["--test-tools", "--drain-ms", "60000"]);
    s.send(&json!({"id": 1, "tool": "calculator", "params": {"expression": "1"}}));
    let r = s.recv();
    ensure(r["id"] == 1, || format!("{r}"))?;
    s.send(&json!({"id": 2, "tool": "_block", "limits": {"timeout_ms": 300}}));
    // The reader answers in order: once `hello` is answered, the call before it is in flight.
    s.send(&json!({"id": "h", "hello": true}));
    let h = s.recv();
    ensure(h["id"] == "h", || format!("{h}"))?;
    signal(&s, "INT")?;
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    ensure(
        out.len() == 1 && out[0]["id"] == 2 && out[0]["error_kind"] == "timeout",
        || format!("{out:?}"),
    )
}

fn cancel_by_id_and_by_tag() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    s.send(&json!({"id": "a", "tool": "_block", "tag": "traj-1"}));
    s.send(&json!({"id": "b", "tool": "_block", "tag": "traj-1"}));
    s.send(&json!({"id": "c", "tool": "_block", "tag": "traj-2"}));
    s.send(&json!({"id": "k1", "cancel": "c"}));
    s.send(&json!({"id": "k2", "cancel_tag": "traj-1"}));
    s.send(&json!({"id": "k3", "cancel": "nope"}));
    let (out, status) = s.finish();
    ensure(status.success(), || format!("exit {status}"))?;
    let map = by_id(&out);
    ensure(out.len() == 6, || format!("{out:?}"))?;
    for id in ["a", "b", "c"] {
        let r = &map[&json!(id).to_string()];
        ensure(
            r["error_kind"] == "cancelled" && r["retryable"] == true,
            || format!("{r}"),
        )?;
    }
    ensure(map[&json!("k1").to_string()]["found"] == true, || {
        format!("{out:?}")
    })?;
    ensure(map[&json!("k2").to_string()]["cancelled"] == 2, || {
        format!("{out:?}")
    })?;
    ensure(map[&json!("k3").to_string()]["found"] == false, || {
        format!("{out:?}")
    })
}

fn timeouts_count_execution_and_answer() -> Outcome {
    let mut s = Server::start(&["--test-tools"]);
    s.send(&json!({"id": 1, "tool": "_block", "limits": {"timeout_ms": 30}}));
    let r = s.recv();
    ensure(
        r["error_kind"] == "timeout" && r["fault"] == "model",
        || format!("{r}"),
    )?;
    ensure(
        r["elapsed_us"].as_u64().is_some_and(|us| us >= 30_000),
        || format!("{r}"),
    )?;
    ensure(r["queued_us"].is_u64(), || format!("{r}"))
}

fn backpressure_holds_calls_beyond_max_in_flight() -> Outcome {
    // Two blocking calls fill both slots; the calculator call cannot start until one times out, so its
    // answer comes after at least one timeout.
    let mut s = Server::start(&["--test-tools", "--max-in-flight", "2"]);
    s.send(&json!({"id": 1, "tool": "_block", "limits": {"timeout_ms": 100}}));
    s.send(&json!({"id": 2, "tool": "_block", "limits": {"timeout_ms": 100}}));
    s.send(&json!({"id": 3, "tool": "calculator", "params": {"expression": "1+1"}}));
    let (out, _) = s.finish();
    let pos = out
        .iter()
        .position(|r| r["id"] == 3)
        .ok_or("no answer for 3")?;
    ensure(pos >= 1 && out[0]["error_kind"] == "timeout", || {
        format!("{out:?}")
    })
}

fn call_exit_codes() -> Outcome {
    let run = |args: &[&str]| beaker().args(args).output().expect("run beaker");
    let ok = run(&["call", "calculator", r#"{"expression": "7 * 8"}"#]);
    ensure(ok.status.code() == Some(0), || format!("{ok:?}"))?;
    let env: Value = serde_json::from_slice(&ok.stdout).map_err(|e| e.to_string())?;
    ensure(env["result"]["value"] == "56", || format!("{env}"))?;
    let failed = run(&["call", "calculator", r#"{"expression": "1/0"}"#]);
    ensure(failed.status.code() == Some(1), || format!("{failed:?}"))?;
    let env: Value = serde_json::from_slice(&failed.stdout).map_err(|e| e.to_string())?;
    ensure(env["error_kind"] == "domain_error", || format!("{env}"))?;
    let bad_json = run(&["call", "calculator", "{nope"]);
    ensure(bad_json.status.code() == Some(2), || {
        format!("{bad_json:?}")
    })?;
    let mut child = beaker()
        .args(["call", "calculator", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    std::io::Write::write_all(
        child.stdin.as_mut().expect("stdin"),
        br#"{"expression": "2**10"}"#,
    )
    .expect("write");
    let piped = child.wait_with_output().expect("wait");
    let env: Value = serde_json::from_slice(&piped.stdout).map_err(|e| e.to_string())?;
    ensure(env["result"]["value"] == "1024", || {
        format!("params from stdin: {env}")
    })?;
    let usage = run(&["call"]);
    ensure(usage.status.code() == Some(2), || format!("{usage:?}"))?;
    let limited = run(&[
        "call",
        "calculator",
        r#"{"expression": "2**1000"}"#,
        "--limits",
        r#"{"max_digits": 10}"#,
    ]);
    ensure(limited.status.code() == Some(1), || format!("{limited:?}"))?;
    for args in [
        &["--help"][..],
        &["--version"],
        &["serve", "--help"],
        &["call", "--help"],
        &["tools", "--help"],
    ] {
        let o = run(args);
        ensure(o.status.success() && !o.stdout.is_empty(), || {
            format!("{args:?}: {o:?}")
        })?;
    }
    Ok(())
}

fn tools_lists_every_format() -> Outcome {
    let run = |f: &str| {
        beaker()
            .args(["tools", "--format", f])
            .output()
            .expect("run beaker")
    };
    let json: Value = serde_json::from_slice(&run("json").stdout).map_err(|e| e.to_string())?;
    ensure(
        json[0]["name"] == "calculator"
            && json[0]["params_schema"]["required"] == json!(["expression"]),
        || format!("{json}"),
    )?;
    let openai: Value = serde_json::from_slice(&run("openai").stdout).map_err(|e| e.to_string())?;
    ensure(
        openai[0]["type"] == "function" && openai[0]["function"]["name"] == "calculator",
        || format!("{openai}"),
    )?;
    let text = String::from_utf8_lossy(&run("text").stdout).to_string();
    ensure(text.starts_with("calculator"), || text)
}

fn config_file_sets_limits() -> Outcome {
    let dir = std::env::temp_dir().join(format!("beaker-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join("beaker.toml");
    std::fs::write(&path, "workers = 1\n[limits]\nmax_digits = 50\n").map_err(|e| e.to_string())?;
    let p = path.to_string_lossy().to_string();
    let o = beaker()
        .args([
            "call",
            "calculator",
            r#"{"expression": "2**200"}"#,
            "--config",
            &p,
        ])
        .output()
        .expect("run");
    ensure(o.status.code() == Some(1), || format!("{o:?}"))?;
    std::fs::write(&path, "bogus = 1\n").map_err(|e| e.to_string())?;
    let o = beaker()
        .args([
            "call",
            "calculator",
            r#"{"expression": "1"}"#,
            "--config",
            &p,
        ])
        .output()
        .expect("run");
    ensure(o.status.code() == Some(2), || {
        format!("unknown config keys must be refused: {o:?}")
    })
}

/// A schema's refusal names the parameter, what it got, what it accepts and the nearest valid choice
/// (`tests/data/schema_errors.jsonl`, issue 38), over the real binary.
fn schema_errors_say_what_was_got_and_what_is_accepted() -> Outcome {
    let cases = jsonl("tests/data/schema_errors.jsonl");
    let mut s = Server::start(&["--no-python"]);
    for (i, c) in cases.iter().enumerate() {
        s.send(&json!({"id": i, "tool": c["tool"], "params": c["params"]}));
    }
    let (answers, _) = s.finish();
    let answers = by_id(&answers);
    for (i, c) in cases.iter().enumerate() {
        let a = answers.get(&i.to_string()).cloned().unwrap_or_default();
        let name = c["name"].as_str().unwrap_or("?");
        if c["success"] == true {
            ensure(a["success"] == true, || format!("{name}: {a}"))?;
            continue;
        }
        let error = a["error"].as_str().unwrap_or("");
        ensure(a["error_kind"] == "invalid_params", || {
            format!("{name}: {a}")
        })?;
        for needle in c["needles"].as_array().into_iter().flatten() {
            let needle = needle.as_str().unwrap_or("");
            ensure(error.contains(needle), || {
                format!("{name}: {error:?} lacks {needle:?}")
            })?;
        }
    }
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test(
            "serve::schema_errors_say_what_was_got_and_what_is_accepted",
            schema_errors_say_what_was_got_and_what_is_accepted,
        ),
        Trial::test(
            "serve::many_concurrent_calls_keep_their_ids",
            many_concurrent_calls_keep_their_ids,
        ),
        Trial::test(
            "serve::malformed_lines_get_errors_and_the_server_goes_on",
            malformed_lines_get_errors_and_the_server_goes_on,
        ),
        Trial::test(
            "serve::oversized_lines_are_refused_then_serving_continues",
            oversized_lines_are_refused_then_serving_continues,
        ),
        Trial::test(
            "serve::eof_drains_calls_in_flight",
            eof_drains_calls_in_flight,
        ),
        Trial::test(
            "serve::ids_and_meta_are_echoed_exactly",
            ids_and_meta_are_echoed_exactly,
        ),
        Trial::test(
            "serve::hello_reports_version_tools_and_limits",
            hello_reports_version_tools_and_limits,
        ),
        Trial::test(
            "serve::plots_are_written_to_the_output_dir",
            plots_are_written_to_the_output_dir,
        ),
        Trial::test(
            "serve::duplicate_ids_in_flight_are_refused",
            duplicate_ids_in_flight_are_refused,
        ),
        Trial::test(
            "serve::empty_input_exits_cleanly",
            empty_input_exits_cleanly,
        ),
        Trial::test("serve::cancel_by_id_and_by_tag", cancel_by_id_and_by_tag),
        Trial::test(
            "serve::numeric_ids_are_echoed_as_written",
            numeric_ids_are_echoed_as_written,
        ),
        Trial::test("serve::equal_ids_are_one_id", equal_ids_are_one_id),
        Trial::test(
            "serve::large_lines_do_not_hold_up_the_reader",
            large_lines_do_not_hold_up_the_reader,
        ),
        Trial::test(
            "serve::large_requests_wait_for_the_byte_budget",
            large_requests_wait_for_the_byte_budget,
        ),
        Trial::test(
            "serve::sigterm_answers_every_call_then_exits",
            sigterm_answers_every_call_then_exits,
        ),
        Trial::test(
            "serve::sigint_with_drain_lets_calls_finish",
            sigint_with_drain_lets_calls_finish,
        ),
        Trial::test(
            "serve::native_calls_never_wait_behind_sandboxed_ones",
            native_calls_never_wait_behind_sandboxed_ones,
        ),
        Trial::test(
            "serve::a_call_waiting_for_a_busy_session_frees_its_worker",
            a_call_waiting_for_a_busy_session_frees_its_worker,
        ),
        Trial::test(
            "serve::a_timed_out_native_computation_frees_its_worker",
            a_timed_out_native_computation_frees_its_worker,
        ),
        Trial::test(
            "serve::timed_out_print_floods_keep_what_they_printed",
            timed_out_print_floods_keep_what_they_printed,
        ),
        Trial::test(
            "serve::fuel_follows_a_raised_timeout",
            fuel_follows_a_raised_timeout,
        ),
        Trial::test(
            "serve::an_answered_id_can_be_reused_at_once",
            an_answered_id_can_be_reused_at_once,
        ),
        Trial::test(
            "serve::timeouts_count_execution_and_answer",
            timeouts_count_execution_and_answer,
        ),
        Trial::test(
            "serve::backpressure_holds_calls_beyond_max_in_flight",
            backpressure_holds_calls_beyond_max_in_flight,
        ),
        Trial::test("cli::call_exit_codes", call_exit_codes),
        Trial::test("cli::tools_lists_every_format", tools_lists_every_format),
        Trial::test("cli::config_file_sets_limits", config_file_sets_limits),
    ]
}
