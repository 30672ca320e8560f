//! The embedding API (`beaker::Engine`) as an inference server would use it.

use crate::support::{ensure, Outcome};
use beaker::{ErrorKind, ToolCall};
use libtest_mimic::Trial;
use serde_json::json;

fn sync_and_async_agree() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let call = ToolCall::new(
        "calculator",
        json!({"expression": "sqrt(2)", "precision": 15}),
    )
    .with_id("x");
    let a = engine.call(call.clone());
    let b = futures_executor::block_on(engine.call_async(call));
    ensure(a.result == b.result && a.id == json!("x"), || {
        format!("{a:?} vs {b:?}")
    })?;
    ensure(
        a.result == Some(json!({"value": "1.414213562373095", "exact": false})),
        || format!("{a:?}"),
    )
}

/// PROTOCOL.md's seeds: without `seed`, the same tag, id and tool repeat the random stream (a recycled id
/// repeats it); another tag or an explicit seed changes it.
fn default_seeds_follow_tag_id_and_tool() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let draw = |id: i64, tag: Option<&str>, seed: Option<u64>| {
        let mut call = ToolCall::new(
            "statistics",
            json!({"operation": "distribution", "data": {"distribution": "normal", "function": "sample"}, "options": {"n": 4}}),
        )
        .with_id(id);
        call.tag = tag.map(str::to_string);
        call.seed = seed;
        engine.call(call).result.map(|r| r["value"].clone())
    };
    let first = draw(1, None, None);
    ensure(first.is_some(), || "the sample failed".into())?;
    ensure(draw(1, None, None) == first, || {
        "a recycled id drew another stream".into()
    })?;
    ensure(draw(2, None, None) != first, || {
        "another id drew the same stream".into()
    })?;
    ensure(draw(1, Some("step-2"), None) != first, || {
        "a tag did not change the stream".into()
    })?;
    ensure(
        draw(1, None, Some(7)) == draw(9, Some("t"), Some(7)),
        || "an explicit seed did not decide the stream".into(),
    )
}

fn many_threads_share_one_engine() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let handles: Vec<_> = (0..8u64)
        .map(|t| {
            let engine = engine.clone();
            std::thread::spawn(move || {
                (0..200u64).all(|i| {
                    let n = t * 1000 + i;
                    let env = engine.call(ToolCall::new(
                        "calculator",
                        json!({"expression": format!("{n} + 1")}),
                    ));
                    env.result == Some(json!({"value": (n + 1).to_string(), "exact": true}))
                })
            })
        })
        .collect();
    for h in handles {
        ensure(h.join().unwrap_or(false), || {
            "a thread saw a wrong answer".into()
        })?;
    }
    let m = engine.metrics();
    ensure(m.submitted == 1600 && m.succeeded == 1600, || {
        format!("{m:?}")
    })
}

fn errors_are_typed() -> Outcome {
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let err = engine
        .call(ToolCall::new("calculator", json!({"expression": "1/0"})))
        .into_result()
        .unwrap_err();
    ensure(
        err.kind == ErrorKind::DomainError && err.message == "division by zero",
        || format!("{err:?}"),
    )
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("api::sync_and_async_agree", sync_and_async_agree),
        Trial::test(
            "api::default_seeds_follow_tag_id_and_tool",
            default_seeds_follow_tag_id_and_tool,
        ),
        Trial::test(
            "api::many_threads_share_one_engine",
            many_threads_share_one_engine,
        ),
        Trial::test("api::errors_are_typed", errors_are_typed),
    ]
}
