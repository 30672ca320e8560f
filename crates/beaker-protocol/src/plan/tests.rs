//! Plans over mock tools (`n` and `spin`): dependencies, failures, order, cancellation.

use super::*;
use beaker_core::{CallContext, Tool, ToolSpec};
use beaker_engine::{Config, Engine};
use serde_json::json;

struct Mock {
    spec: ToolSpec,
    f: fn(&Value, &CallContext) -> Result<Value, ToolError>,
}

fn mock(name: &str, f: fn(&Value, &CallContext) -> Result<Value, ToolError>) -> Arc<dyn Tool> {
    Arc::new(Mock {
        spec: ToolSpec {
            name: name.into(),
            description: "mock".into(),
            params_schema: json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}, "additionalProperties": false}),
            result_schema: json!({}),
            examples: vec![],
            notes: String::new(),
        },
        f,
    })
}

impl Tool for Mock {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        (self.f)(params, ctx)
    }
}

/// An engine for plans: `n` echoes its `n` (fails on 13), `spin` runs until cancelled.
fn plan_engine() -> Dispatcher {
    Engine::builder()
        .config(Config {
            workers: 2,
            ..Config::default()
        })
        .tool(mock("n", |p, _| match p.get("n").and_then(Value::as_u64) {
            Some(13) => Err(ToolError::invalid_params("13 is unlucky")),
            Some(n) => Ok(json!(n)),
            None => Ok(Value::Null),
        }))
        .tool(mock("spin", |_, ctx| loop {
            ctx.checkpoint()?;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }))
        .build()
        .unwrap()
        .into()
}

fn plan(v: Value) -> PlanRequest {
    PlanRequest::from_json(&v).unwrap()
}

fn statuses(r: &PlanReport) -> Vec<(String, String)> {
    let j = r.to_json();
    j["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["step_id"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_plan_runs_steps_after_their_dependencies() {
    let e = plan_engine();
    // A diamond: a, then b and c (independent), then d.
    let r = e.run_plan(plan(json!({"strategy": "parallel", "steps": [
        {"step_id": "d", "tool": "n", "params": {"n": 4}, "depends_on": ["b", "c"]},
        {"step_id": "b", "tool": "n", "params": {"n": 2}, "depends_on": ["a"]},
        {"step_id": "c", "tool": "n", "arguments": "{\"n\": 3}", "depends_on": ["a"]},
        {"step_id": "a", "tool": "none", "task": "collect_slots", "phase": "clarify_slots"},
    ]})));
    assert!(r.success());
    assert_eq!(r.order.first().map(String::as_str), Some("a"));
    assert_eq!(r.order.last().map(String::as_str), Some("d"));
    let j = r.to_json();
    assert_eq!(j["steps"][0]["result"], json!(4));
    assert_eq!(j["steps"][2]["result"], json!(3));
    assert_eq!(j["steps"][3]["result"], Value::Null);
    assert_eq!(j["steps"][0]["started"], json!(3));
}

#[test]
fn a_failed_step_skips_its_dependants_only() {
    let e = plan_engine();
    let r = e.run_plan(plan(json!({"strategy": "parallel", "steps": [
        {"step_id": "bad", "tool": "n", "params": {"n": 13}},
        {"step_id": "after_bad", "tool": "n", "params": {"n": 1}, "depends_on": ["bad"]},
        {"step_id": "after_after", "tool": "n", "params": {"n": 1}, "depends_on": ["after_bad"]},
        {"step_id": "free", "tool": "n", "params": {"n": 5}},
        {"step_id": "unknown", "tool": "teleport"},
    ]})));
    assert!(!r.success());
    let s = statuses(&r);
    let want = [
        ("bad", "failed"),
        ("after_bad", "skipped"),
        ("after_after", "skipped"),
        ("free", "succeeded"),
        ("unknown", "failed"),
    ];
    assert_eq!(
        s,
        want.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect::<Vec<_>>()
    );
    let j = r.to_json();
    assert_eq!(j["steps"][1]["reason"], "step `bad` did not succeed");
    assert_eq!(j["steps"][0]["error_kind"], "invalid_params");
    assert_eq!(j["steps"][4]["error_kind"], "unknown_tool");
    assert!(!r.order.contains(&"after_bad".to_string()));
}

#[test]
fn a_sequential_plan_follows_its_orders() {
    let e = plan_engine();
    let r = e.run_plan(plan(json!({"steps": [
        {"step_id": "third", "tool": "n", "params": {"n": 3}, "order": 2},
        {"step_id": "first", "tool": "n", "params": {"n": 1}, "order": 0},
        {"step_id": "second", "tool": "n", "params": {"n": 2}, "order": 1},
    ]})));
    assert_eq!(r.order, ["first", "second", "third"]);
    // A failure in a sequential plan stops everything after it.
    let r = e.run_plan(plan(json!({"steps": [
        {"step_id": "one", "tool": "n", "params": {"n": 13}},
        {"step_id": "two", "tool": "n", "params": {"n": 2}},
    ]})));
    assert_eq!(statuses(&r)[1].1, "skipped");
}

#[test]
fn bad_plans_are_refused_before_anything_runs() {
    for (p, want) in [
        (
            json!({"steps": [{"step_id": "a", "tool": "n", "depends_on": ["b"]}, {"step_id": "b", "tool": "n", "depends_on": ["a"]}], "strategy": "parallel"}),
            "cycle",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "n", "depends_on": ["zz"]}]}),
            "`zz`",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "n"}, {"step_id": "a", "tool": "n"}]}),
            "twice",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "n", "params": {}, "arguments": {}}]}),
            "both",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "n", "arguments": "[1]"}]}),
            "arguments",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "n", "depends_on": "b"}]}),
            "depends_on",
        ),
        (json!({"steps": [{"tool": "n"}]}), "no `step_id`"),
        (
            json!({"steps": [{"step_id": "a", "tool": "none"}, {"step_id": "b", "tool": "none", "depend_on": ["a"]}]}),
            "did you mean `depends_on`",
        ),
        (
            json!({"steps": [], "stratgy": "parallel"}),
            "did you mean `strategy`",
        ),
        (
            json!({"steps": [{"step_id": "a", "tool": "none"}, {"step_id": "b", "tool": "none", "depends_on": ["a", "a"]}]}),
            "twice",
        ),
        (
            json!({"steps": [{"step_id": "x", "tool": "none", "order": 1, "depends_on": ["y"]}, {"step_id": "y", "tool": "none", "order": 2}]}),
            "cannot wait for a higher one",
        ),
        (json!({"steps": "no"}), "array"),
        (json!({"strategy": "random", "steps": []}), "strategy"),
        (json!([1]), "object"),
    ] {
        let err = PlanRequest::from_json(&p).unwrap_err();
        assert!(err.message.contains(want), "{p}: {}", err.message);
    }
    let many: Vec<Value> = (0..=crate::MAX_PLAN_STEPS)
        .map(|i| json!({"step_id": format!("s{i}"), "tool": "none"}))
        .collect();
    let err = PlanRequest::from_json(&json!({ "steps": many })).unwrap_err();
    assert_eq!(err.kind, ErrorKind::LimitExceeded);
}

#[test]
fn cancelling_a_plan_cancels_its_running_steps_and_skips_the_rest() {
    let e = plan_engine();
    let (tx, rx) = flume::bounded(1);
    let h = e.submit_plan(
        plan(json!({"strategy": "parallel", "steps": [
            {"step_id": "long", "tool": "spin"},
            {"step_id": "later", "tool": "n", "params": {"n": 1}, "depends_on": ["long"]},
        ]})),
        move |r| {
            let _ = tx.send(r);
        },
    );
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(!h.is_done());
    assert_eq!(h.cancel(), 1);
    let r = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    assert!(h.is_done() && h.cancel() == 0);
    let j = r.to_json();
    assert_eq!(j["steps"][0]["error_kind"], "cancelled");
    assert_eq!(j["steps"][1]["status"], "skipped");
    // An empty plan succeeds at once.
    assert!(e.run_plan(plan(json!({"steps": []}))).success());
}
