//! The protocol's routes: one call, a batch, the catalog, health.

use crate::{Caller, State};
use axum::body::Bytes;
use axum::extract::{Path, Query, State as Shared};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use beaker_core::{Envelope, ErrorKind, ToolCall, ToolError};
use beaker_engine::listing;
use beaker_protocol::Request;
use serde::Deserialize;
use serde_json::{json, Value};

/// `GET /healthz`: the server answers and how many tools it serves.
pub(crate) async fn healthz(Shared(state): Shared<State>) -> Json<Value> {
    Json(json!({"status": "ok", "tools": state.engine.specs().len()}))
}

/// The `format` of `GET /v1/tools`.
#[derive(Deserialize)]
pub(crate) struct ToolsQuery {
    format: Option<String>,
}

/// `GET /v1/tools`: every tool's spec (`json`, the default), or as OpenAI `tools` or MCP `tools/list` entries.
pub(crate) async fn tools(Shared(state): Shared<State>, Query(q): Query<ToolsQuery>) -> Response {
    let specs = state.engine.specs();
    match q.format.as_deref().unwrap_or("json") {
        "json" => Json(json!(specs)).into_response(),
        "openai" => Json(listing::openai_tools(specs)).into_response(),
        "mcp" => Json(listing::mcp_tools(specs)).into_response(),
        other => bad_request(
            ErrorKind::InvalidParams,
            format!("unknown format `{other}` (json, openai or mcp)"),
        ),
    }
}

/// A 400 answer in the envelope's shape, so clients parse every failure the same way.
fn bad_request(kind: ErrorKind, message: String) -> Response {
    let env = Envelope::failure(None, String::new(), ToolError::new(kind, message));
    (StatusCode::BAD_REQUEST, Json(env)).into_response()
}

/// The call in a body, or the answer that refuses it.
fn parse_call(body: &[u8]) -> Result<ToolCall, Box<Response>> {
    match Request::parse(body) {
        Ok(Some(Request::Call(call))) => Ok(call),
        Ok(Some(_)) => Err(Box::new(bad_request(
            ErrorKind::ParseError,
            "this route runs one tool call: {\"tool\": ..., \"params\": {...}}".into(),
        ))),
        Ok(None) => Err(Box::new(bad_request(
            ErrorKind::ParseError,
            "the request body is empty".into(),
        ))),
        Err(refusal) => Err(Box::new(
            (StatusCode::BAD_REQUEST, Json(refusal.envelope())).into_response(),
        )),
    }
}

/// `POST /v1/call`: runs one call; a tool's failure is a 200 answer with `success: false`.
pub(crate) async fn call(Caller(engine): Caller, body: Bytes) -> Response {
    let call = match parse_call(&body) {
        Ok(c) => c,
        Err(r) => return *r,
    };
    Json(engine.call_async(call).await).into_response()
}

/// `POST /v1/batch`: `{"calls": [...]}`, every call queued at once, answered in order.
pub(crate) async fn batch(
    Shared(state): Shared<State>,
    Caller(engine): Caller,
    body: Bytes,
) -> Response {
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return bad_request(ErrorKind::ParseError, format!("the body is not JSON: {e}")),
    };
    let Some(calls) = value.get("calls").and_then(Value::as_array) else {
        return bad_request(
            ErrorKind::ParseError,
            "a batch is {\"calls\": [call, ...]}".into(),
        );
    };
    if calls.len() > state.options.max_batch {
        return bad_request(
            ErrorKind::LimitExceeded,
            format!(
                "the batch has {} calls; the limit is {}",
                calls.len(),
                state.options.max_batch
            ),
        );
    }
    // Each call is answered on its own: one that cannot be parsed fails alone, in its place. Together their
    // results are bounded by the largest one result may be: each gets at most an equal part of it.
    let maxima = beaker_core::LimitsRequest {
        max_output_bytes: Some(engine.config().maxima.max_output_bytes),
        ..Default::default()
    };
    let share = engine.share_of_output(&maxima, calls.len());
    let pending: Vec<_> = calls
        .iter()
        .map(|c| match Request::from_json(c.clone()) {
            Ok(Request::Call(mut call)) => {
                let own = call
                    .limits
                    .max_output_bytes
                    .unwrap_or(engine.config().defaults.max_output_bytes);
                call.limits.max_output_bytes = Some(own.min(share));
                Slot::Running(engine.call_async(call))
            }
            Ok(_) => Slot::Answered(Box::new(Envelope::failure(
                c.get("id").cloned(),
                String::new(),
                ToolError::new(ErrorKind::ParseError, "a batch holds tool calls only"),
            ))),
            Err(refusal) => Slot::Answered(Box::new(refusal.envelope())),
        })
        .collect();
    let mut results = Vec::with_capacity(pending.len());
    for p in pending {
        results.push(match p {
            Slot::Running(fut) => fut.await,
            Slot::Answered(env) => *env,
        });
    }
    Json(json!({"results": results})).into_response()
}

/// One entry of a batch: queued on the engine, or answered already (it was not a call).
enum Slot<F> {
    Running(F),
    Answered(Box<Envelope>),
}

/// `POST /v1/run-text`: a model's text (`{"text": ...}`) or an OpenAI conversation (`{"messages": [...]}`), as on
/// stdio: every call in it runs, and the answer has the envelopes and the text to append.
pub(crate) async fn run_text(Caller(engine): Caller, body: Bytes) -> Response {
    let (id, request, messages, meta) = match Request::parse(&body) {
        Ok(Some(Request::Text { id, request, meta })) => (id, request, None, meta),
        Ok(Some(Request::Messages {
            id,
            messages,
            request,
            meta,
        })) => (id, request, Some(messages), meta),
        Ok(_) => {
            return bad_request(
                ErrorKind::ParseError,
                "this route runs a text (`{\"text\": ...}`) or a conversation (`{\"messages\": [...]}`)".into(),
            )
        }
        Err(refusal) => return (StatusCode::BAD_REQUEST, Json(refusal.envelope())).into_response(),
    };
    let (tx, rx) = flume::bounded(1);
    let on_done = move |reply: beaker_engine::TextReply| {
        let _ = tx.send(reply);
    };
    match messages {
        Some(m) => {
            if let Err(e) = engine.submit_messages(&m, &request, on_done) {
                return bad_request(e.kind, e.message);
            }
        }
        None => {
            engine.submit_text(request, on_done);
        }
    }
    let Ok(reply) = rx.recv_async().await else {
        return bad_request(ErrorKind::Internal, "the engine dropped the request".into());
    };
    Json(beaker_protocol::reply(id, reply.to_json(), meta)).into_response()
}

/// `POST /v1/run-plan`: a tool plan (`{"plan": {...}}`), as on stdio: its steps run as their dependencies
/// allow, and the answer says what each did and in what order they started. A client that goes away cancels
/// the plan.
pub(crate) async fn run_plan(Caller(engine): Caller, body: Bytes) -> Response {
    let (id, plan, meta) = match Request::parse(&body) {
        Ok(Some(Request::Plan { id, plan, meta })) => (id, plan, meta),
        Ok(_) => {
            return bad_request(
                ErrorKind::ParseError,
                "this route executes a plan (`{\"plan\": {\"steps\": [...]}}`)".into(),
            )
        }
        Err(refusal) => return (StatusCode::BAD_REQUEST, Json(refusal.envelope())).into_response(),
    };
    let (tx, rx) = flume::bounded(1);
    let handle = engine.submit_plan(plan, move |report| {
        let _ = tx.send(report);
    });
    // Dropped (the client went away) before the report: cancel the plan's steps.
    let guard = CancelPlan(Some(handle));
    let report = rx.recv_async().await;
    drop(guard.disarm());
    let Ok(report) = report else {
        return bad_request(ErrorKind::Internal, "the engine dropped the plan".into());
    };
    Json(beaker_protocol::reply(id, report.to_json(), meta)).into_response()
}

/// Cancels a plan when dropped, unless disarmed.
struct CancelPlan(Option<beaker_engine::CallHandle>);

impl CancelPlan {
    fn disarm(mut self) -> Option<beaker_engine::CallHandle> {
        self.0.take()
    }
}

impl Drop for CancelPlan {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            h.cancel();
        }
    }
}

/// `POST /v1/trajectory`: sets a trajectory's budgets (the stdio `{"trajectory", "limits"}` message).
pub(crate) async fn set_trajectory(Caller(engine): Caller, body: Bytes) -> Response {
    match Request::parse(&body) {
        Ok(Some(r @ Request::Trajectory { .. })) => trajectory_response(&engine, &r),
        Ok(_) => bad_request(
            ErrorKind::ParseError,
            "this route sets a trajectory's budgets: {\"trajectory\": TAG, \"limits\": {...}}"
                .into(),
        ),
        Err(refusal) => (StatusCode::BAD_REQUEST, Json(refusal.envelope())).into_response(),
    }
}

/// `GET /v1/trajectory/{tag}`: what a trajectory has used.
pub(crate) async fn trajectory_stats(Caller(engine): Caller, Path(tag): Path<String>) -> Response {
    trajectory_response(&engine, &Request::Stats { id: None, tag })
}

/// `DELETE /v1/trajectory/{tag}`: closes a trajectory, answering its final figures.
pub(crate) async fn close_trajectory(Caller(engine): Caller, Path(tag): Path<String>) -> Response {
    trajectory_response(&engine, &Request::Close { id: None, tag })
}

/// The protocol's answer to a trajectory request; 404 when the trajectory is not open.
fn trajectory_response(engine: &beaker_engine::Engine, request: &Request) -> Response {
    match beaker_protocol::trajectory_answer(engine, request) {
        Some(Ok(answer)) => Json(answer).into_response(),
        Some(Err(failed)) => (StatusCode::NOT_FOUND, Json(failed)).into_response(),
        None => bad_request(ErrorKind::ParseError, "not a trajectory request".into()),
    }
}

/// Any route not served: a JSON 404 in the envelope's shape.
pub(crate) async fn not_found() -> Response {
    let env = Envelope::failure(
        None,
        String::new(),
        ToolError::new(
            ErrorKind::ParseError,
            "no such route (see docs/HTTP.md: /v1/call, /v1/batch, /v1/run-text, /v1/run-plan, /v1/trajectory, /v1/tools, /healthz, /metrics, /openapi.json, /run_code, /run_jupyter)",
        ),
    );
    (StatusCode::NOT_FOUND, Json(env)).into_response()
}
