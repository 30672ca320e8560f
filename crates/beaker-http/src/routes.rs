//! The protocol's routes: one call, a batch, the catalog, health.

use crate::{Caller, State};
use axum::body::Bytes;
use axum::extract::{Path, Query, State as Shared};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use beaker_core::{Envelope, ErrorKind, ToolError};
use beaker_protocol::Dispatcher;
use beaker_protocol::{listing, Answer, Request, SessionInfo};
use serde::Deserialize;
use serde_json::{json, Value};

/// `GET /healthz`: the server answers and how many tools it serves.
pub(crate) async fn healthz(Shared(state): Shared<State>) -> Json<Value> {
    Json(json!({"status": "ok", "tools": state.dispatcher.engine().specs().len()}))
}

/// The `format` of `GET /v1/tools`.
#[derive(Deserialize)]
pub(crate) struct ToolsQuery {
    format: Option<String>,
}

/// `GET /v1/tools`: every tool's spec (`json`, the default), or as OpenAI `tools` or MCP `tools/list` entries.
pub(crate) async fn tools(Shared(state): Shared<State>, Query(q): Query<ToolsQuery>) -> Response {
    let specs = state.dispatcher.engine().specs();
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

/// The request in a body when it is of a kind this route runs (`accepts`), or the 400 answer refusing it
/// (`expected` says what the route runs).
fn parse_kind(
    body: &[u8],
    accepts: fn(&Request) -> bool,
    expected: &str,
) -> Result<Request, Box<Response>> {
    match Request::parse(body) {
        Ok(Some(req)) if accepts(&req) => Ok(req),
        Ok(Some(_)) => Err(Box::new(bad_request(
            ErrorKind::ParseError,
            format!("this route {expected}"),
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

/// Runs a request on the dispatcher and answers it: 200 with the answer (a call that failed included), 400 for
/// a request that cannot run, 404 for a trajectory that is not open. A client that goes away (the future is
/// dropped) cancels what the request runs.
async fn dispatched(dispatcher: &Dispatcher, request: Request) -> Response {
    let answer = dispatcher
        .answer_async(request, &SessionInfo::default())
        .await;
    let status = match &answer {
        Answer::Envelope(_) | Answer::Reply { .. } => StatusCode::OK,
        Answer::Refused(_) => StatusCode::BAD_REQUEST,
        Answer::NotOpen(_) => StatusCode::NOT_FOUND,
    };
    (status, Json(answer)).into_response()
}

/// `POST /v1/call`: runs one call; a tool's failure is a 200 answer with `success: false`.
pub(crate) async fn call(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let is_call = |r: &Request| matches!(r, Request::Call(_));
    match parse_kind(
        &body,
        is_call,
        "runs one tool call: {\"tool\": ..., \"params\": {...}}",
    ) {
        Ok(req) => dispatched(&dispatcher, req).await,
        Err(r) => *r,
    }
}

/// `POST /v1/batch`: `{"calls": [...]}`, every call queued at once, answered in order.
pub(crate) async fn batch(
    Shared(state): Shared<State>,
    Caller(dispatcher): Caller,
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
    let engine = dispatcher.engine();
    let maxima = beaker_core::LimitsRequest {
        max_output_bytes: Some(engine.config().maxima.max_output_bytes),
        ..Default::default()
    };
    let share = engine.share_of_output(&maxima, calls.len());
    let info = SessionInfo::default();
    let pending: Vec<_> = calls
        .iter()
        .map(|c| match Request::from_json(c.clone()) {
            Ok(Request::Call(mut call)) => {
                let own = call
                    .limits
                    .max_output_bytes
                    .unwrap_or(engine.config().defaults.max_output_bytes);
                call.limits.max_output_bytes = Some(own.min(share));
                Slot::Running(dispatcher.answer_async(Request::Call(call), &info))
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
            Slot::Answered(env) => Answer::Refused(*env),
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
pub(crate) async fn run_text(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let is_text = |r: &Request| matches!(r, Request::Text { .. } | Request::Messages { .. });
    let expected = "runs a text (`{\"text\": ...}`) or a conversation (`{\"messages\": [...]}`)";
    match parse_kind(&body, is_text, expected) {
        Ok(req) => dispatched(&dispatcher, req).await,
        Err(r) => *r,
    }
}

/// `POST /v1/run-plan`: a tool plan (`{"plan": {...}}`), as on stdio: its steps run as their dependencies
/// allow, and the answer says what each did and in what order they started. A client that goes away cancels
/// the plan.
pub(crate) async fn run_plan(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let is_plan = |r: &Request| matches!(r, Request::Plan { .. });
    let expected = "executes a plan (`{\"plan\": {\"steps\": [...]}}`)";
    match parse_kind(&body, is_plan, expected) {
        Ok(req) => dispatched(&dispatcher, req).await,
        Err(r) => *r,
    }
}

/// `POST /v1/trajectory`: sets a trajectory's budgets (the stdio `{"trajectory", "limits"}` message).
pub(crate) async fn set_trajectory(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let is_trajectory = |r: &Request| matches!(r, Request::Trajectory { .. });
    let expected = "sets a trajectory's budgets: {\"trajectory\": TAG, \"limits\": {...}}";
    match parse_kind(&body, is_trajectory, expected) {
        Ok(req) => dispatched(&dispatcher, req).await,
        Err(r) => *r,
    }
}

/// `GET /v1/trajectory/{tag}`: what a trajectory has used.
pub(crate) async fn trajectory_stats(
    Caller(dispatcher): Caller,
    Path(tag): Path<String>,
) -> Response {
    dispatched(&dispatcher, Request::Stats { id: None, tag }).await
}

/// `DELETE /v1/trajectory/{tag}`: closes a trajectory, answering its final figures.
pub(crate) async fn close_trajectory(
    Caller(dispatcher): Caller,
    Path(tag): Path<String>,
) -> Response {
    dispatched(&dispatcher, Request::Close { id: None, tag }).await
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
