//! Engine behaviour with mock tools: every path still gives exactly one envelope.

use crate::{Config, Engine, ErrorKind, Limits, LimitsRequest, ToolCall};
use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;

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

/// Set when the `deaf` mock tool returns.
static DEAF_RETURNED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn engine() -> Engine {
    Engine::builder()
        .config(Config {
            workers: 2,
            ..Config::default()
        })
        .tool(mock("echo_limits", |_, ctx| {
            Ok(serde_json::to_value(ctx.limits).unwrap_or_default())
        }))
        .tool(mock("spin", |_, ctx| loop {
            ctx.checkpoint()?;
            std::thread::yield_now();
        }))
        // Stops at its deadline with what it had, as a sandboxed program keeps what it printed.
        .tool(mock("spin_partial", |_, ctx| loop {
            if let Err(e) = ctx.checkpoint() {
                return Err(e.with_partial(json!({"stdout": "step 1\n"})));
            }
            std::thread::yield_now();
        }))
        // Ignores its cancellation and succeeds late: the answer is still the timeout, sent on time.
        .tool(mock("deaf", |_, _| {
            std::thread::sleep(std::time::Duration::from_secs(2));
            DEAF_RETURNED.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(json!("late"))
        }))
        .tool(mock("panic", |_, _| panic!("boom")))
        .tool(mock("big", |_, _| Ok(Value::String("x".repeat(1000)))))
        .tool(mock("seed", |_, ctx| Ok(json!(ctx.seed))))
        .build()
        .unwrap()
}

#[test]
fn limits_are_narrowed_and_clamped() {
    let e = engine();
    let call = ToolCall::new("echo_limits", json!({})).with_limits(LimitsRequest {
        timeout_ms: Some(500),
        max_digits: Some(u64::MAX),
        ..Default::default()
    });
    let r = e.call(call).result.unwrap();
    assert_eq!(r["timeout_ms"], 500);
    assert_eq!(r["max_digits"], Limits::default_maxima().max_digits);
    let r = e
        .call(ToolCall::new("echo_limits", json!({})))
        .result
        .unwrap();
    assert_eq!(r["timeout_ms"], Limits::default().timeout_ms);
}

#[test]
fn a_runaway_tool_times_out_and_the_worker_comes_back() {
    let e = engine();
    let call = ToolCall::new("spin", json!({}))
        .with_id("t")
        .with_limits(LimitsRequest {
            timeout_ms: Some(30),
            ..Default::default()
        });
    let env = e.call(call);
    assert_eq!(env.error_kind, Some(ErrorKind::Timeout), "{env:?}");
    assert_eq!(env.id, json!("t"));
    // Both workers still serve.
    for _ in 0..4 {
        assert!(e.call(ToolCall::new("echo_limits", json!({}))).success);
    }
    assert_eq!(e.metrics().timed_out, 1);
}

#[test]
fn a_timed_out_tool_answers_with_what_it_had() {
    let e = engine();
    let limits = LimitsRequest {
        timeout_ms: Some(30),
        ..Default::default()
    };
    let env = e.call(ToolCall::new("spin_partial", json!({})).with_limits(limits));
    assert_eq!(env.error_kind, Some(ErrorKind::Timeout), "{env:?}");
    assert_eq!(env.partial, Some(json!({"stdout": "step 1\n"})), "{env:?}");
    assert!(env.error.unwrap_or_default().contains("30 ms"));
}

#[test]
fn a_tool_deaf_to_its_deadline_is_answered_after_the_grace() {
    let e = engine();
    let limits = LimitsRequest {
        timeout_ms: Some(20),
        ..Default::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    e.submit(
        ToolCall::new("deaf", json!({})).with_limits(limits),
        move |env| {
            let returned = DEAF_RETURNED.load(std::sync::atomic::Ordering::SeqCst);
            let _ = tx.send((env, returned));
        },
    );
    let (env, returned) = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("an answer");
    assert_eq!(env.error_kind, Some(ErrorKind::Timeout), "{env:?}");
    assert!(env.partial.is_none());
    // Answered by the watchdog after the grace, not when the tool returned 2 s in.
    assert!(!returned, "the answer waited for the tool");
}

#[test]
fn a_panic_is_internal_and_the_engine_survives() {
    let e = engine();
    let env = e.call(ToolCall::new("panic", json!({})));
    assert_eq!(env.error_kind, Some(ErrorKind::Internal));
    assert!(env.error.unwrap().contains("boom"));
    assert!(e.call(ToolCall::new("echo_limits", json!({}))).success);
}

#[test]
fn cancel_answers_once() {
    let e = engine();
    let (tx, rx) = flume::unbounded();
    let h = e.submit(ToolCall::new("spin", json!({})).with_id(9), move |env| {
        tx.send(env).unwrap()
    });
    assert!(h.cancel());
    assert!(!h.cancel());
    let env = rx.recv().unwrap();
    assert_eq!(env.error_kind, Some(ErrorKind::Cancelled));
    assert_eq!(env.retryable, Some(true));
    assert!(
        rx.recv_timeout(std::time::Duration::from_millis(100))
            .is_err(),
        "a second answer was sent"
    );
}

#[test]
fn params_are_validated_with_a_path() {
    let e = engine();
    let env = e.call(ToolCall::new("echo_limits", json!({"n": -1})));
    assert_eq!(env.error_kind, Some(ErrorKind::InvalidParams));
    assert!(
        env.error.as_deref().unwrap().starts_with("params.n:"),
        "{env:?}"
    );
    let env = e.call(ToolCall::new("echo_limits", json!([1])));
    assert_eq!(env.error_kind, Some(ErrorKind::InvalidParams));
    let env = e.call(ToolCall::new("echo_limits", json!({"extra": 1})));
    assert_eq!(env.error_kind, Some(ErrorKind::InvalidParams));
}

#[test]
fn unknown_tools_list_the_known_ones() {
    let env = engine().call(ToolCall::new("nope", json!({})));
    assert_eq!(env.error_kind, Some(ErrorKind::UnknownTool));
    assert!(env
        .error
        .unwrap()
        .contains("echo_limits, panic, seed, spin"));
}

#[test]
fn output_is_capped() {
    let e = engine();
    let call = ToolCall::new("big", json!({})).with_limits(LimitsRequest {
        max_output_bytes: Some(100),
        ..Default::default()
    });
    assert_eq!(e.call(call).error_kind, Some(ErrorKind::LimitExceeded));
}

#[test]
fn seeds_come_from_the_call() {
    let e = engine();
    let a = e.call(ToolCall::new("seed", json!({})).with_id(1)).result;
    let b = e.call(ToolCall::new("seed", json!({})).with_id(1)).result;
    let c = e.call(ToolCall::new("seed", json!({})).with_id(2)).result;
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn async_calls_resolve_and_meta_is_echoed() {
    let e = engine();
    let mut call = ToolCall::new("seed", json!({}));
    call.meta = Some(json!({"k": [1, 2]}));
    call.seed = Some(5);
    let env = futures_executor::block_on(e.call_async(call));
    assert_eq!(env.result, Some(json!(5)));
    assert_eq!(env.meta, Some(json!({"k": [1, 2]})));
    assert!(env.queued_us.is_some());
}

#[test]
fn dropping_an_async_call_cancels_it() {
    let e = engine();
    let long = LimitsRequest {
        timeout_ms: Some(600_000),
        ..Default::default()
    };
    // One dropped after a poll, one never polled: both workers are freed.
    let mut polled = Box::pin(e.call_async(ToolCall::new("spin", json!({})).with_limits(long)));
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(polled.as_mut().poll(&mut cx).is_pending());
    drop(polled);
    drop(e.call_async(ToolCall::new("spin", json!({})).with_limits(long)));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while e.metrics().failed < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the dropped calls still run"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Both workers are free again.
    assert_eq!(e.call(ToolCall::new("seed", json!({}))).error_kind, None);
}

#[test]
fn bad_configurations_are_refused() {
    let cfg = Config {
        defaults: Limits {
            timeout_ms: 10,
            ..Limits::default()
        },
        maxima: Limits {
            timeout_ms: 5,
            ..Limits::default_maxima()
        },
        ..Config::default()
    };
    assert!(Engine::builder().config(cfg).build().is_err());
    assert!(Engine::builder()
        .config(Config {
            workers: 0,
            ..Config::default()
        })
        .build()
        .is_err());
    let dup = Engine::builder()
        .tool(mock("a", |_, _| Ok(json!(1))))
        .tool(mock("a", |_, _| Ok(json!(1))))
        .build();
    assert!(dup.is_err());
}

#[test]
fn a_full_queue_fails_fast_and_retryably() {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STARTED: AtomicBool = AtomicBool::new(false);
    let e = Engine::builder()
        .config(Config {
            workers: 1,
            max_queued: 1,
            ..Config::default()
        })
        .tool(mock("hold", |_, ctx| {
            STARTED.store(true, Ordering::SeqCst);
            loop {
                ctx.checkpoint()?;
                std::thread::yield_now();
            }
        }))
        .build()
        .unwrap();
    let (tx, rx) = flume::unbounded();
    let tx2 = tx.clone();
    let running = e.submit(ToolCall::new("hold", json!({})).with_id(1), move |env| {
        tx.send(env).unwrap()
    });
    while !STARTED.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    // The only worker is busy: one call may wait, the next is refused at once.
    let queued = e.submit(ToolCall::new("hold", json!({})).with_id(2), move |env| {
        tx2.send(env).unwrap()
    });
    let refused = e.call(ToolCall::new("hold", json!({})).with_id(3));
    assert_eq!(refused.error_kind, Some(ErrorKind::Internal), "{refused:?}");
    assert_eq!(refused.retryable, Some(true));
    assert!(refused.error.unwrap().contains("overloaded"));
    queued.cancel();
    running.cancel();
    assert_eq!(rx.recv().unwrap().error_kind, Some(ErrorKind::Cancelled));
    assert_eq!(rx.recv().unwrap().error_kind, Some(ErrorKind::Cancelled));
}

#[test]
fn the_catalog_documents_every_limit() {
    let md = crate::listing::markdown(&[]);
    for name in Limits::NAMES {
        assert!(
            md.contains(&format!("| `{name}` |")),
            "limit {name} is missing from TOOLS.md's table"
        );
    }
}

#[test]
fn stats_count_each_tools_answers_and_pool_sizes() {
    let e = engine();
    e.call(ToolCall::new("seed", json!({})));
    e.call(ToolCall::new("seed", json!({"n": -1})));
    e.call(ToolCall::new("nope-1", json!({})));
    e.call(ToolCall::new("nope-2", json!({})));
    let s = e.stats();
    let seed = s.tools.iter().find(|t| t.tool == "seed").expect("seed");
    assert_eq!(seed.succeeded, 1);
    assert_eq!(seed.failed, vec![(ErrorKind::InvalidParams, 1)]);
    assert_eq!(seed.latency.count(), 2);
    // Unknown names share one entry: a client cannot grow the label set.
    let unknown: Vec<_> = s.tools.iter().filter(|t| t.tool.is_empty()).collect();
    assert_eq!(unknown.len(), 1);
    assert_eq!(unknown[0].failed, vec![(ErrorKind::UnknownTool, 2)]);
    assert_eq!(s.in_flight, 0);
    assert_eq!((s.native.workers, s.native.busy), (2, 0));
    // The tools never called are listed with zeros, in catalog order.
    assert_eq!(s.tools[0].tool, "echo_limits");
    assert_eq!(s.tools[0].latency.count(), 0);
}

#[test]
fn a_key_at_the_wrong_level_is_told_where_it_belongs() {
    let schema = json!({"type": "object", "properties": {"operation": {}, "data": {"oneOf": [
        {"type": "object", "properties": {"A": {}}}, {"type": "object", "properties": {"x": {}}}]}},
        "additionalProperties": false});
    assert_eq!(
        crate::params::declared_at(&schema, "A", "params"),
        Some("params.data.A".to_string())
    );
    assert_eq!(crate::params::declared_at(&schema, "zz", "params"), None);
    // Declared where it was found: no hint.
    assert_eq!(
        crate::params::declared_at(&schema, "operation", "params"),
        None
    );
}

/// An engine for plans: `n` echoes its `n` (fails on 13), `spin` runs until cancelled.
fn plan_engine() -> Engine {
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
}

fn plan(v: Value) -> crate::PlanRequest {
    crate::PlanRequest::from_json(&v).unwrap()
}

fn statuses(r: &crate::PlanReport) -> Vec<(String, String)> {
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
        let err = crate::PlanRequest::from_json(&p).unwrap_err();
        assert!(err.message.contains(want), "{p}: {}", err.message);
    }
    let many: Vec<Value> = (0..=crate::MAX_PLAN_STEPS)
        .map(|i| json!({"step_id": format!("s{i}"), "tool": "none"}))
        .collect();
    let err = crate::PlanRequest::from_json(&json!({ "steps": many })).unwrap_err();
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
    assert!(h.cancel());
    let r = rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap();
    assert!(h.is_done() && !h.cancel());
    let j = r.to_json();
    assert_eq!(j["steps"][0]["error_kind"], "cancelled");
    assert_eq!(j["steps"][1]["status"], "skipped");
    // An empty plan succeeds at once.
    assert!(e.run_plan(plan(json!({"steps": []}))).success());
}
