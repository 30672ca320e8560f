//! Tool plans (seed 004's `tool_plan`) over the binary: `{"plan": …}` on stdio (answers, refusals,
//! cancellation by id) and `beaker run-plan FILE` on the plans in `tests/data/plans/`. The scheduling rules
//! themselves are unit-tested in `crates/beaker-engine`; HTTP's `/v1/run-plan` is in `http.rs`.

use crate::support::{beaker, ensure, root, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("plans::stdio_runs_and_refuses_plans", stdio),
        Trial::test("plans::a_plan_is_cancelled_by_its_id", cancel),
        Trial::test("plans::run_plan_command", command),
    ]
}

fn file(name: &str) -> Value {
    let p = root().join("tests/data/plans").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).expect("plan file")).expect("plan JSON")
}

fn stdio() -> Outcome {
    let mut s = Server::start(&["--no-python"]);
    s.send(&json!({"id": 1, "plan": file("diamond.json"), "meta": {"turn": 3}}));
    let v = s.recv();
    ensure(
        v["id"] == 1 && v["success"] == true && v["meta"]["turn"] == 3,
        || v.to_string(),
    )?;
    let order: Vec<&str> = v["order"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    ensure(order.len() == 4 && order[3] == "report", || {
        format!("order: {order:?}")
    })?;
    let pos = |id: &str| order.iter().position(|o| *o == id);
    ensure(pos("speed") < pos("check"), || {
        format!("check ran before speed: {order:?}")
    })?;
    ensure(
        v["steps"][0]["result"]["value"] == "27.7777777777778"
            && v["steps"][1]["result"]["value"] == "12.566371"
            && v["steps"][2]["result"]["value"] == "27.7777777778"
            && v["steps"][3]["status"] == "succeeded",
        || v.to_string(),
    )?;
    // A seed-004 assistant message: `none` runs, the unknown agent fails, what depends on it is skipped.
    s.send(&json!({"id": "turn", "plan": file("seed004_turn.json")}));
    let v = s.recv();
    let status: Vec<&str> = v["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["status"].as_str())
        .collect();
    ensure(
        v["success"] == false && status == ["succeeded", "failed", "skipped"],
        || v.to_string(),
    )?;
    ensure(v["steps"][1]["error_kind"] == "unknown_tool", || {
        v.to_string()
    })?;
    // Refusals name the problem and keep the id.
    for (plan, want) in [
        (
            json!({"steps": [{"step_id": "a", "tool": "calculator", "depends_on": ["a"]}]}),
            "cycle",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "calculator", "depends_on": ["b"]}]}),
            "`b`",
        ),
        (json!({"steps": 3}), "array"),
        (json!("x"), "object"),
    ] {
        s.send(&json!({"id": 7, "plan": plan}));
        let v = s.recv();
        ensure(
            v["id"] == 7
                && v["success"] == false
                && v["error"].as_str().is_some_and(|e| e.contains(want)),
            || format!("{want}: {v}"),
        )?;
    }
    s.send(&json!({"id": 8, "plan": {"steps": []}, "extra": 1}));
    let v = s.recv();
    ensure(
        v["error_kind"] == "parse_error"
            && v["error"].as_str().is_some_and(|e| e.contains("extra")),
        || v.to_string(),
    )?;
    // The server goes on.
    s.send(&json!({"id": 9, "tool": "calculator", "params": {"expression": "7*8"}}));
    let v = s.recv();
    ensure(v["result"]["value"] == "56", || v.to_string())
}

fn cancel() -> Outcome {
    let mut s = Server::start(&["--no-python", "--test-tools"]);
    s.send(&json!({"id": "p", "plan": {"strategy": "parallel", "steps": [
        {"step_id": "stuck", "tool": "_block"},
        {"step_id": "after", "tool": "calculator", "params": {"expression": "1+1"}, "depends_on": ["stuck"]},
        {"step_id": "free", "tool": "calculator", "params": {"expression": "2+2"}}]}}));
    std::thread::sleep(std::time::Duration::from_millis(200));
    s.send(&json!({"id": "c", "cancel": "p"}));
    let mut answers = [s.recv(), s.recv()];
    answers.sort_by_key(|a| a["id"].as_str().unwrap_or("").to_string());
    let (ack, plan) = (&answers[0], &answers[1]);
    ensure(ack["id"] == "c" && ack["success"] == true, || {
        ack.to_string()
    })?;
    ensure(
        plan["id"] == "p"
            && plan["steps"][0]["error_kind"] == "cancelled"
            && plan["steps"][1]["status"] == "skipped"
            && plan["steps"][2]["status"] == "succeeded",
        || plan.to_string(),
    )
}

fn command() -> Outcome {
    let dir = root().join("tests/data/plans");
    let o = beaker()
        .args(["run-plan", "--no-python"])
        .arg(dir.join("diamond.json"))
        .output()
        .map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(&o.stdout).map_err(|e| format!("{e}: {o:?}"))?;
    ensure(o.status.code() == Some(0) && v["success"] == true, || {
        format!("{o:?}")
    })?;
    let o = beaker()
        .args(["run-plan", "--no-python"])
        .arg(dir.join("seed004_turn.json"))
        .output()
        .map_err(|e| e.to_string())?;
    ensure(o.status.code() == Some(1), || {
        format!("a failing plan: {o:?}")
    })?;
    let mut child = beaker()
        .args(["run-plan", "--no-python", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(br#"{"plan": {"steps": [{"step_id": "a", "tool": "calculator", "depends_on": ["zz"]}]}}"#)
            .map_err(|e| e.to_string())?;
    }
    let o = child.wait_with_output().map_err(|e| e.to_string())?;
    ensure(
        o.status.code() == Some(2) && String::from_utf8_lossy(&o.stdout).contains("`zz`"),
        || format!("{o:?}"),
    )
}
