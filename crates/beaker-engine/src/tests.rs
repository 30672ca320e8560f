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
    // A worker counts itself idle just after its job has sent the answer: the gauge reaches 0 soon after the
    // last reply, not before it (a release build's caller can read it in between).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut s = s;
    while s.native.busy != 0 && std::time::Instant::now() < deadline {
        std::thread::yield_now();
        s = e.stats();
    }
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
