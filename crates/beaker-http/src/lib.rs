//! Beaker over HTTP (docs/HTTP.md): a thin axum front end over the protocol's [`Dispatcher`], with the same
//! tools, limits, envelopes and error kinds as the stdio server.
//!
//! - `POST /v1/call`: one call, the body a protocol call request (`{"tool", "params", "limits"?, "id"?, ...}`),
//!   the answer its envelope. A tool failure is HTTP 200 with `success: false`; a body that is not a call is
//!   400 with an envelope saying why.
//! - `POST /v1/batch`: `{"calls": [...]}`, run concurrently, answered `{"results": [...]}` in order.
//! - `POST /v1/run-text`: a model's text or an OpenAI conversation, its calls run, as on stdio.
//! - `GET /v1/tools` (`?format=json|openai|mcp`), `GET /healthz`.
//! - `GET /openapi.json`: [`OPENAPI`], this API described in OpenAPI 3.1.
//! - `GET /metrics`: Prometheus text: calls and failures per tool, error kind and fault, latency histograms,
//!   calls in flight, the worker pools' use, requests the server refused.
//! - `POST /run_code`: SandboxFusion's route (what verl and SkyRL call), Python only, on `execute_python`.
//! - `POST /run_jupyter`: SandboxFusion's notebook route: cells in one `execute_python` session.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let engine = beaker_catalog::engine().expect("engine");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! beaker_http::serve(listener, engine, beaker_http::Options::default()).await
//! # }
//! ```
#![deny(missing_docs)]

mod metrics;
mod retrieve;
mod routes;
mod run_code;
mod run_jupyter;
mod tokens;

pub use tokens::{parse_tokens, Token};

use axum::extract::{DefaultBodyLimit, Request, State as Shared};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use beaker_engine::Tenant;
use beaker_protocol::Dispatcher;
use serde_json::json;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::Semaphore;

/// What an HTTP server allows, beyond the engine's own limits.
#[derive(Debug, Clone)]
pub struct Options {
    /// Largest request body in bytes; a larger one is answered 413.
    pub max_body_bytes: usize,
    /// Most calls in one `/v1/batch`.
    pub max_batch: usize,
    /// Requests being answered at once; beyond it a request waits for a slot ([`Options::max_waiting`]).
    pub max_in_flight: usize,
    /// Requests that may wait for a slot when `max_in_flight` are being answered (their bodies already read and
    /// held in the memory budget); one more is answered 503 with `Retry-After` at once. As SandboxFusion does:
    /// RL clients such as verl do not retry a 503.
    pub max_waiting: usize,
    /// How long a request waits for a slot before it is answered 503.
    pub max_wait: std::time::Duration,
    /// Bearer tokens, any of which a request must carry (`Authorization: Bearer TOKEN`) on every route but
    /// `/healthz`, each with its own rate and in-flight limits; empty: no authentication.
    pub tokens: Vec<Token>,
    /// How long a connection may take to send a request's head (the request line and headers) once it starts
    /// one or while it is idle; past it the connection is closed. Without it a client could hold a connection
    /// open forever with half a request line.
    pub header_timeout: std::time::Duration,
    /// How long a request's body may take to arrive once its head has; past it the answer is 408.
    pub body_timeout: std::time::Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            // The stdio server's line cap: a request that fits one fits the other.
            max_body_bytes: 16 << 20,
            max_batch: 1024,
            max_in_flight: 256,
            max_waiting: 1024,
            max_wait: std::time::Duration::from_secs(60),
            tokens: Vec::new(),
            header_timeout: std::time::Duration::from_secs(10),
            body_timeout: std::time::Duration::from_secs(60),
        }
    }
}

/// Shared by every handler.
#[derive(Clone)]
struct State {
    dispatcher: Dispatcher,
    options: Arc<Options>,
    in_flight: Arc<Semaphore>,
    /// Requests waiting for a slot of `in_flight`.
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    rejected: Arc<metrics::Rejected>,
    tokens: Arc<Vec<tokens::Guarded>>,
}

/// The routes, ready to be served (or nested in a bigger axum app).
pub fn router(dispatcher: impl Into<Dispatcher>, options: Options) -> Router {
    let state = State {
        dispatcher: dispatcher.into(),
        in_flight: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
        waiting: Arc::default(),
        rejected: Arc::default(),
        tokens: Arc::new(
            options
                .tokens
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, t)| tokens::Guarded::new(t, i))
                .collect(),
        ),
        options: Arc::new(options),
    };
    Router::new()
        .route("/healthz", get(routes::healthz))
        .route("/metrics", get(metrics::metrics))
        .route("/openapi.json", get(openapi))
        .route("/v1/tools", get(routes::tools))
        .route("/v1/call", post(routes::call))
        .route("/v1/batch", post(routes::batch))
        .route("/v1/run-text", post(routes::run_text))
        .route("/v1/run-plan", post(routes::run_plan))
        .route("/v1/trajectory", post(routes::set_trajectory))
        .route("/v1/trajectory/{tag}", get(routes::trajectory_stats))
        .route("/v1/trajectory/{tag}", delete(routes::close_trajectory))
        .route("/run_code", post(run_code::run_code))
        .route("/run_jupyter", post(run_jupyter::run_jupyter))
        .route("/retrieve", post(retrieve::retrieve))
        .fallback(routes::not_found)
        // The guard has read the body within the cap already; this only lifts the extractors' own 2 MiB default
        // to the same cap.
        .layer(DefaultBodyLimit::max(state.options.max_body_bytes))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// The OpenAPI 3.1 description of every route (`GET /openapi.json`); a test keeps it in step with the code.
pub const OPENAPI: &str = include_str!("../openapi.json");

async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// The dispatcher acting for the request's tenant, which [`guard`] found from its bearer token (the default
/// tenant when the server has no tokens): every route that runs calls or names a trajectory takes it.
pub(crate) struct Caller(pub(crate) Dispatcher);

impl axum::extract::FromRequestParts<State> for Caller {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        state: &State,
    ) -> Result<Caller, Self::Rejection> {
        let tenant = parts
            .extensions
            .get::<Tenant>()
            .cloned()
            .unwrap_or_default();
        Ok(Caller(state.dispatcher.for_tenant(tenant)))
    }
}

/// Before any route: the bearer token (when tokens are configured), then a permit of the in-flight cap.
async fn guard(Shared(state): Shared<State>, req: Request, next: Next) -> Response {
    // The token's own in-flight permit, held until the answer is sent.
    let mut token_permit = None;
    let mut caller: Option<&tokens::Guarded> = None;
    if !state.tokens.is_empty() && req.uri().path() != "/healthz" {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            // The scheme is case-insensitive (RFC 9110); the token is not.
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map_or("", |(_, token)| token.trim());
        // Every token is compared in full, so the time taken says nothing about how much of one matched.
        let known = state.tokens.iter().fold(None, |hit, t| {
            let same = same_bytes(t.token.token.as_bytes(), given.as_bytes());
            if same && hit.is_none() {
                Some(t)
            } else {
                hit
            }
        });
        let Some(token) = known else {
            state.rejected.unauthorized.fetch_add(1, Ordering::Relaxed);
            let body = json!({"success": false, "error": "missing or unknown bearer token", "error_kind": "invalid_params"});
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                Json(body),
            )
                .into_response();
        };
        if let Err(wait) = token.take(std::time::Instant::now()) {
            state.rejected.rate_limited.fetch_add(1, Ordering::Relaxed);
            let rate = token.token.rate.unwrap_or_default();
            return too_many(
                format!("this token's rate limit ({rate} requests a second) is reached"),
                wait,
            );
        }
        caller = Some(token);
    }
    // Health and metrics are answered even when the server is saturated: that is when they are needed.
    if matches!(req.uri().path(), "/healthz" | "/metrics") {
        return next.run(req).await;
    }
    // The whole body is read before a slot is taken, so clients that trickle their bodies (slowloris) hold
    // no slot and cannot starve the others; the body cap still bounds what is buffered.
    let (parts, body) = req.into_parts();
    // What the body may take is reserved from the process's memory budget before a byte of it is read, and
    // held until the answer is sent: many connections each sending a large body cannot exceed it together.
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let cap = state.options.max_body_bytes as u64;
    let _body_memory = match state
        .dispatcher
        .engine()
        .memory()
        .try_reserve(declared.unwrap_or(cap).min(cap), "this request's body")
    {
        Ok(r) => r,
        Err(e) => {
            state.rejected.memory.fetch_add(1, Ordering::Relaxed);
            let body = json!({"success": false, "error": e.message, "error_kind": "limit_exceeded", "retryable": true});
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "1")],
                Json(body),
            )
                .into_response();
        }
    };
    let read = axum::body::to_bytes(body, state.options.max_body_bytes);
    let Ok(read) = tokio::time::timeout(state.options.body_timeout, read).await else {
        state.rejected.slow.fetch_add(1, Ordering::Relaxed);
        let body = json!({"success": false, "error": format!("the request body did not arrive within {} ms", state.options.body_timeout.as_millis()), "error_kind": "limit_exceeded"});
        return (StatusCode::REQUEST_TIMEOUT, Json(body)).into_response();
    };
    let bytes = match read {
        Ok(b) => b,
        // http-body-util's length limit error is the only one that says this; others are the client's I/O.
        Err(e) if e.to_string().contains("length limit") => {
            state.rejected.too_large.fetch_add(1, Ordering::Relaxed);
            let body = json!({"success": false, "error": format!("the request body is over the {} byte limit", state.options.max_body_bytes), "error_kind": "limit_exceeded"});
            return (StatusCode::PAYLOAD_TOO_LARGE, Json(body)).into_response();
        }
        Err(e) => {
            let body = json!({"success": false, "error": format!("the request body could not be read: {e}"), "error_kind": "parse_error"});
            return (StatusCode::BAD_REQUEST, Json(body)).into_response();
        }
    };
    let mut req = Request::from_parts(parts, axum::body::Body::from(bytes));
    req.extensions_mut()
        .insert(caller.map(|t| t.tenant.clone()).unwrap_or_default());
    if let Some(permits) = caller.and_then(|t| t.in_flight.as_ref()) {
        match permits.clone().try_acquire_owned() {
            Ok(p) => token_permit = Some(p),
            Err(_) => {
                state.rejected.rate_limited.fetch_add(1, Ordering::Relaxed);
                return too_many(
                    format!(
                        "this token has {} requests in flight, its limit",
                        caller.and_then(|t| t.token.in_flight).unwrap_or_default()
                    ),
                    std::time::Duration::from_secs(1),
                );
            }
        }
    }
    let Some(permit) = slot(&state).await else {
        state.rejected.overloaded.fetch_add(1, Ordering::Relaxed);
        let body = json!({"success": false, "error": format!("overloaded: {} requests are in flight and {} wait; retry later", state.options.max_in_flight, state.options.max_waiting), "error_kind": "internal", "retryable": true});
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "1")],
            Json(body),
        )
            .into_response();
    };
    let response = next.run(req).await;
    drop(permit);
    drop(token_permit);
    reserve_answer(response, state.dispatcher.engine().memory()).await
}

/// A slot of the in-flight cap: at once when one is free, else after waiting for one (at most `max_wait`, and only
/// while fewer than `max_waiting` requests wait); `None` when there is none to be had.
async fn slot(state: &State) -> Option<tokio::sync::OwnedSemaphorePermit> {
    if let Ok(p) = state.in_flight.clone().try_acquire_owned() {
        return Some(p);
    }
    /// One place in the waiting line, given back however the wait ends (a client that hangs up drops it).
    struct Waiting(Arc<std::sync::atomic::AtomicUsize>);
    impl Drop for Waiting {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::AcqRel);
        }
    }
    let place = Waiting(state.waiting.clone());
    if state.waiting.fetch_add(1, Ordering::AcqRel) >= state.options.max_waiting {
        return None;
    }
    let got = tokio::time::timeout(
        state.options.max_wait,
        state.in_flight.clone().acquire_owned(),
    )
    .await;
    drop(place);
    got.ok().and_then(Result::ok)
}

/// The answer's bytes, accounted in the memory budget until they are written: a client slow to read its answers
/// holds them in the budget, where they make later requests wait or be refused, rather than outside it. The
/// answer exists already (the call ran), so it is accounted even past the limit.
async fn reserve_answer(response: Response, memory: &beaker_core::MemoryBudget) -> Response {
    let (parts, body) = response.into_parts();
    // Every route's answer is a body in memory already: collecting it copies nothing.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let reservation = memory.force_answer(bytes.len() as u64);
    Response::from_parts(
        parts,
        axum::body::Body::new(ReservedBody {
            bytes: Some(bytes),
            _memory: reservation,
        }),
    )
}

/// An answer's body and its bytes' reservation, given back when hyper has written it and drops the body.
struct ReservedBody {
    bytes: Option<axum::body::Bytes>,
    _memory: beaker_core::Reservation,
}

impl http_body::Body for ReservedBody {
    type Data = axum::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::task::Poll::Ready(
            self.get_mut()
                .bytes
                .take()
                .map(|b| Ok(http_body::Frame::data(b))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.bytes.as_ref().map_or(0, |b| b.len() as u64))
    }
}

/// A 429 for a token over its own limits, with the whole seconds to wait (at least 1) in `Retry-After`.
fn too_many(message: String, wait: std::time::Duration) -> Response {
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    let body = json!({"success": false, "error": format!("{message}; retry in {secs} s"), "error_kind": "limit_exceeded", "retryable": true});
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, secs.to_string())],
        Json(body),
    )
        .into_response()
}

/// Equality of two byte strings in time that depends only on their lengths.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves [`router`] on `listener` until the process ends or a SIGTERM/SIGINT arrives (then it stops
/// accepting and lets requests in flight finish).
pub async fn serve(
    listener: tokio::net::TcpListener,
    dispatcher: impl Into<Dispatcher>,
    options: Options,
) -> std::io::Result<()> {
    // Our own accept loop rather than `axum::serve`, which installs no timer in hyper, so hyper's header read
    // timeout never fires there (tokio-rs/axum#2741).
    let header_timeout = options.header_timeout;
    let app = router(dispatcher, options);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut stop = std::pin::pin!(shutdown_signal());
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors or a connection reset before it was accepted: the listener is fine,
                // and retrying at once would spin.
                Err(e) => {
                    tracing::debug!("accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(header_timeout);
        let conn =
            graceful.watch(http.serve_connection(hyper_util::rt::TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!("connection ended: {e}");
            }
        });
    }
    drop(listener);
    // Requests in flight finish and are answered; idle connections close.
    graceful.shutdown().await;
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = interrupt.await;
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
