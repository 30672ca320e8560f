//! The cost of a chat-template observation: rendering it alone, and a whole text request (parse, run the
//! calculator, render) with and without `template`.

#![allow(
    missing_docs,
    reason = "criterion's macros generate undocumented functions"
)]
use beaker::templates::{ChatTemplate, Turn};
use beaker::{TemplateRequest, TextRequest};
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Map};
use std::hint::black_box;

const OUTPUT: &str = "Let me compute that.\n<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"7 * 8\"}}\n</tool_call>";

fn observation(c: &mut Criterion) {
    let history = [json!({"role": "user", "content": "What is 7 * 8?"})];
    let assistant = json!({"role": "assistant", "content": "Let me compute that.", "tool_calls": [
        {"id": "call00000", "type": "function", "function": {"name": "calculator", "arguments": {"expression": "7 * 8"}}}]});
    let tools = [
        json!({"role": "tool", "tool_call_id": "call00000", "name": "calculator",
                        "content": "{\"value\":\"56\",\"exact\":true}"}),
    ];
    let kwargs = Map::new();
    let stub = [
        json!({"type": "function", "function": {"name": "calculator", "description": "",
        "parameters": {"type": "object", "properties": {}}}}),
    ];
    let mut g = c.benchmark_group("template_observation_one_call");
    let t = ChatTemplate::builtin("qwen2.5").expect("built in");
    let with_tools = Turn {
        history: &history,
        assistant: &assistant,
        tool_messages: &tools,
        tools: &stub,
        model_output: Some(OUTPUT),
        kwargs: &kwargs,
    };
    g.bench_function("qwen2.5_with_a_tool", |b| {
        b.iter(|| t.observation(black_box(&with_tools)))
    });
    for name in ["qwen2.5", "qwen3", "llama3.1", "mistral", "deepseek-v3"] {
        let t = ChatTemplate::builtin(name).expect("built in");
        let turn = Turn {
            history: &history,
            assistant: &assistant,
            tool_messages: &tools,
            tools: &[],
            model_output: Some(OUTPUT),
            kwargs: &kwargs,
        };
        t.observation(&turn).expect("renders");
        g.bench_function(name, |b| b.iter(|| t.observation(black_box(&turn))));
    }
    g.finish();
}

fn text_request(c: &mut Criterion) {
    let engine = beaker::Catalog::empty()
        .with("calculator")
        .expect("calculator")
        .engine()
        .expect("engine");
    let engine = beaker::Dispatcher::new(engine);
    let plain = TextRequest {
        text: OUTPUT.into(),
        ..TextRequest::default()
    };
    let templated = TextRequest {
        template: Some(TemplateRequest {
            template: ChatTemplate::builtin("qwen2.5").expect("built in"),
            kwargs: Map::new(),
        }),
        ..plain.clone()
    };
    assert!(engine.run_text(templated.clone()).observation.is_some());
    let mut g = c.benchmark_group("text_request_one_call");
    g.bench_function("without_template", |b| {
        b.iter(|| engine.run_text(black_box(plain.clone())))
    });
    g.bench_function("with_template_qwen2.5", |b| {
        b.iter(|| engine.run_text(black_box(templated.clone())))
    });
    g.finish();
}

criterion_group!(benches, observation, text_request);
criterion_main!(benches);
