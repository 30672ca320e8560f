//! Beaker over HTTP (docs/HTTP.md): a thin axum front end over [`beaker_engine::Engine`], with the same tools,
//! limits, envelopes and error kinds as the stdio server.
//!
//! - `POST /v1/call`: one call, the body a protocol call request (`{"tool", "params", "limits"?, "id"?, ...}`),
//!   the answer its envelope. A tool failure is HTTP 200 with `success: false`; a body that is not a call is
//!   400 with an envelope saying why.
//! - `POST /v1/batch`: `{"calls": [...]}`, run concurrently, answered `{"results": [...]}` in order.
//! - `GET /v1/tools` (`?format=json|openai|mcp`), `GET /healthz`.
//! - `POST /run_code`: SandboxFusion's route (what verl and SkyRL call), Python only, on `execute_python`.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let engine = beaker_engine::Engine::new().expect("engine");
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! beaker_http::serve(listener, engine, beaker_http::Options::default()).await
//! # }
//! ```
#![deny(missing_docs)]

mod routes;
mod run_code;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::Router;
use beaker_engine::Engine;

/// What an HTTP server allows, beyond the engine's own limits.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Largest request body in bytes; a larger one is answered 413.
    pub max_body_bytes: usize,
    /// Most calls in one `/v1/batch`.
    pub max_batch: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            // The stdio server's line cap: a request that fits one fits the other.
            max_body_bytes: 16 << 20,
            max_batch: 1024,
        }
    }
}

/// Shared by every handler.
#[derive(Clone)]
struct State {
    engine: Engine,
    options: Options,
}

/// The routes, ready to be served (or nested in a bigger axum app).
pub fn router(engine: Engine, options: Options) -> Router {
    Router::new()
        .route("/healthz", get(routes::healthz))
        .route("/v1/tools", get(routes::tools))
        .route("/v1/call", post(routes::call))
        .route("/v1/batch", post(routes::batch))
        .route("/run_code", post(run_code::run_code))
        .layer(DefaultBodyLimit::max(options.max_body_bytes))
        .with_state(State { engine, options })
}

/// Serves [`router`] on `listener` until the process ends or a SIGTERM/SIGINT arrives (then it stops
/// accepting and lets requests in flight finish).
pub async fn serve(
    listener: tokio::net::TcpListener,
    engine: Engine,
    options: Options,
) -> std::io::Result<()> {
    axum::serve(listener, router(engine, options))
        .with_graceful_shutdown(shutdown_signal())
        .await
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
