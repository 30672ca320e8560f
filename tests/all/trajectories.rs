//! Trajectory budgets and stats over `beaker serve`: a budget refuses the call past it (alone and inside a text,
//! where the model reads the refusal), stats count what ran, close frees, bad messages are refused.

use crate::support::{ensure, root, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::collections::HashMap;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("trajectories::budgets_stats_and_close", budgets),
        Trial::test("trajectories::bad_messages_are_refused", bad_messages),
        Trial::test("trajectories::the_protocol_docs_example_runs", docs_example),
    ]
}

/// Sends every request, then reads one answer per request and returns them by id.
fn exchange(server: &mut Server, requests: &[Value]) -> HashMap<String, Value> {
    for r in requests {
        server.send(r);
    }
    (0..requests.len())
        .map(|_| {
            let a = server.recv();
            (a["id"].to_string(), a)
        })
        .collect()
}

fn budgets() -> Outcome {
    let mut server = Server::start(&["--no-python"]);
    let a = exchange(
        &mut server,
        &[
            json!({"id": 1, "trajectory": "r1", "limits": {"max_calls": 3, "max_output_bytes": 1000000}}),
        ],
    );
    ensure(
        a["1"]["stats"]["remaining"] == json!({"calls": 3, "output_bytes": 1000000}),
        || a["1"].to_string(),
    )?;
    // One at a time, so the order of admission is the order sent.
    let mut answers = Vec::new();
    for (i, expr) in ["7 * 8", "1/0", "2 + 2", "3 + 3"].iter().enumerate() {
        let a = exchange(
            &mut server,
            &[
                json!({"id": 10 + i, "tool": "calculator", "params": {"expression": expr}, "tag": "r1"}),
            ],
        );
        answers.push(a[&(10 + i).to_string()].clone());
    }
    ensure(
        answers[0]["success"] == true
            && answers[1]["error_kind"] == "domain_error"
            && answers[2]["success"] == true
            && answers[3]["error_kind"] == "limit_exceeded"
            && answers[3]["error"]
                .as_str()
                .is_some_and(|e| e.contains("budget of 3 calls (max_calls)")),
        || format!("{answers:?}"),
    )?;
    // Inside a text, the refusal is rendered for the model.
    let a = exchange(
        &mut server,
        &[
            json!({"id": 20, "text": "<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"9*9\"}}</tool_call>", "tag": "r1"}),
        ],
    );
    ensure(
        a["20"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("max_calls")),
        || a["20"].to_string(),
    )?;
    let a = exchange(&mut server, &[json!({"id": 30, "stats": "r1"})]);
    let s = &a["30"]["stats"];
    ensure(
        s["calls"] == 5
            && s["successes"] == 2
            && s["errors_by_kind"] == json!({"domain_error": 1, "limit_exceeded": 2})
            && s["tools"]["calculator"]["calls"] == 5
            && s["remaining"]["calls"] == 0
            && s["output_bytes"].as_u64().is_some_and(|b| b > 0)
            && s["in_flight"] == 0,
        || s.to_string(),
    )?;
    // A time budget: a call that would outrun what is left is cut at it.
    let a = exchange(
        &mut server,
        &[json!({"id": 40, "trajectory": "r2", "limits": {"max_total_ms": 30}})],
    );
    ensure(a["40"]["success"] == true, || a["40"].to_string())?;
    let a = exchange(
        &mut server,
        &[
            json!({"id": 41, "tool": "numerical", "params": {"operation": "integrate_numeric", "data": {"function": "sin(1/x)", "a": 0.000001, "b": 1, "options": {"limit": 100000}}}, "tag": "r2"}),
        ],
    );
    let first = &a["41"];
    let a = exchange(&mut server, &[json!({"id": 42, "stats": "r2"})]);
    ensure(
        a["42"]["stats"]["time_ms"]
            .as_f64()
            .is_some_and(|t| t <= 200.0),
        || format!("{first} / {}", a["42"]),
    )?;
    // Close answers the final figures and frees the trajectory; a tagged call later opens it afresh.
    let a = exchange(&mut server, &[json!({"id": 50, "close": "r1"})]);
    ensure(a["50"]["stats"]["calls"] == 5, || a["50"].to_string())?;
    let a = exchange(&mut server, &[json!({"id": 51, "stats": "r1"})]);
    ensure(a["51"]["error_kind"] == "invalid_params", || {
        a["51"].to_string()
    })?;
    let a = exchange(
        &mut server,
        &[json!({"id": 52, "tool": "calculator", "params": {"expression": "1+1"}, "tag": "r1"})],
    );
    ensure(a["52"]["success"] == true, || a["52"].to_string())?;
    let a = exchange(&mut server, &[json!({"id": 53, "stats": "r1"})]);
    ensure(
        a["53"]["stats"]["calls"] == 1 && a["53"]["stats"]["limits"] == json!({}),
        || a["53"].to_string(),
    )
}

fn bad_messages() -> Outcome {
    let mut server = Server::start(&["--no-python"]);
    for (i, bad) in [
        json!({"trajectory": "t"}),
        json!({"trajectory": "t", "limits": {"max_call": 3}}),
        json!({"trajectory": "t", "limits": {"max_calls": -1}}),
        json!({"trajectory": "t", "limits": {"max_calls": "3"}}),
        json!({"trajectory": 7, "limits": {}}),
        json!({"stats": ""}),
        json!({"close": null}),
        json!({"stats": "t", "tag": "u"}),
    ]
    .into_iter()
    .enumerate()
    {
        let mut req = bad.clone();
        req["id"] = json!(i);
        let a = exchange(&mut server, &[req]);
        ensure(a[&i.to_string()]["error_kind"] == "parse_error", || {
            format!("{bad}: {a:?}")
        })?;
    }
    let a = exchange(
        &mut server,
        &[json!({"id": 99, "tool": "calculator", "params": {"expression": "1+1"}})],
    );
    ensure(a["99"]["result"]["value"] == "2", || {
        "the server stopped serving".into()
    })
}

/// PROTOCOL.md's "Trajectories: budgets and stats" example: its first request answers what the page shows, and
/// the other two are answered.
fn docs_example() -> Outcome {
    let doc =
        std::fs::read_to_string(root().join("docs/PROTOCOL.md")).map_err(|e| e.to_string())?;
    let at = doc
        .find("## Trajectories: budgets and stats")
        .ok_or("the section is missing")?;
    let block = doc[at..].split("```json\n").nth(1).unwrap_or("");
    let lines: Vec<&str> = block.lines().take_while(|l| *l != "```").collect();
    let parse = |l: &str| {
        serde_json::from_str::<Value>(l.trim_start_matches("→ ")).map_err(|e| e.to_string())
    };
    let (request, shown) = (parse(lines[0])?, parse(lines[1])?);
    let mut server = Server::start(&["--no-python"]);
    let a = exchange(&mut server, &[request]);
    ensure(a["1"] == shown, || {
        format!("got {}\nthe page shows {shown}", a["1"])
    })?;
    for l in &lines[2..] {
        let req = parse(l)?;
        let a = exchange(&mut server, std::slice::from_ref(&req));
        let answer = &a[&req["id"].to_string()];
        ensure(
            answer["success"] == true && answer["stats"]["trajectory"] == "r1",
            || answer.to_string(),
        )?;
    }
    Ok(())
}
