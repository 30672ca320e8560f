//! Search-R1's `POST /retrieve`, the retrieval server's route that Search-R1's rollouts, verl's `SearchTool`
//! (`retrieval_service_url`) and verl-tool's `search_retrieval` post to, answered by `web_search`: switching
//! from Search-R1's `retrieval_server.py` is a change of URL. See docs/HTTP.md.

use crate::run_code::sandbox_fusion_request;
use crate::Caller;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use beaker_core::{Envelope, ErrorKind, ToolCall};
use serde::Deserialize;
use serde_json::{json, Value};

/// Search-R1's server's default `--topk`.
const DEFAULT_TOPK: u64 = 3;
/// Queries one request may hold.
pub(crate) const MAX_QUERIES: usize = 1024;
/// Searches submitted at once (the rest wait for them), so a large batch never overflows the engine's queue.
const AT_ONCE: usize = 64;

/// A `/retrieve` request, with Search-R1's field names (`index` is Beaker's: which index to search).
#[derive(Deserialize)]
struct RetrieveRequest {
    queries: Vec<String>,
    #[serde(default)]
    topk: Option<u64>,
    #[serde(default)]
    return_scores: bool,
    #[serde(default)]
    index: Option<String>,
}

fn refuse(status: StatusCode, detail: String) -> Response {
    (status, Json(json!({"detail": detail}))).into_response()
}

/// `POST /retrieve`: `{"queries", "topk", "return_scores"}` to `{"result": [[...], ...]}`, one list per query,
/// each document `{"id", "contents"}` (with `return_scores`, `{"document": ..., "score": ...}`).
pub(crate) async fn retrieve(Caller(dispatcher): Caller, body: Bytes) -> Response {
    let req: RetrieveRequest = match sandbox_fusion_request(&body) {
        Ok(r) => r,
        Err(refused) => return *refused,
    };
    if req.queries.len() > MAX_QUERIES {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{} queries in one request; at most {MAX_QUERIES}",
                req.queries.len()
            ),
        );
    }
    // Search-R1 takes a missing or zero topk as its default.
    let topk = req.topk.filter(|k| *k > 0).unwrap_or(DEFAULT_TOPK);
    if topk > beaker_catalog::search::MAX_RESULTS {
        return refuse(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "topk is at most {}, got {topk}",
                beaker_catalog::search::MAX_RESULTS
            ),
        );
    }
    let mut result = Vec::with_capacity(req.queries.len());
    for chunk in req.queries.chunks(AT_ONCE) {
        let pending: Vec<_> = chunk
            .iter()
            .map(|q| {
                // An empty query finds nothing, as pyserini's would (the tool refuses it; a query of no words it
                // answers with no results itself).
                (!q.is_empty()).then(|| {
                    let mut params = json!({"query": q, "max_results": topk, "contents": true});
                    if let Some(index) = &req.index {
                        params["index"] = json!(index);
                    }
                    dispatcher.call_async(ToolCall::new("web_search", params))
                })
            })
            .collect();
        for call in pending {
            let Some(call) = call else {
                result.push(Value::Array(Vec::new()));
                continue;
            };
            match documents(call.await, req.return_scores) {
                Ok(docs) => result.push(docs),
                Err(refused) => return *refused,
            }
        }
    }
    Json(json!({"result": result})).into_response()
}

/// One query's documents in Search-R1's shape, or the HTTP answer its failure gets: 422 for a request the
/// search refuses (no such index, a query too long), 503 for a server too busy, 500 otherwise.
fn documents(env: Envelope, with_scores: bool) -> Result<Value, Box<Response>> {
    let Some(result) = env.result.filter(|_| env.success) else {
        let kind = env.error_kind.unwrap_or(ErrorKind::Internal);
        let message = env.error.unwrap_or_else(|| "no result".into());
        let status = match kind {
            // A full queue: worth retrying, as verl does on 5xx.
            _ if env.retryable == Some(true) => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::InvalidParams | ErrorKind::LimitExceeded => StatusCode::UNPROCESSABLE_ENTITY,
            ErrorKind::Timeout | ErrorKind::Cancelled => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        return Err(Box::new(refuse(status, message)));
    };
    let hits = result["results"].as_array().cloned().unwrap_or_default();
    Ok(Value::Array(
        hits.into_iter()
            .map(|h| {
                let document = json!({"id": h["id"], "contents": h["contents"]});
                if with_scores {
                    json!({"document": document, "score": h["score"]})
                } else {
                    document
                }
            })
            .collect(),
    ))
}
