//! Beaker as a Model Context Protocol server (docs/MCP.md), thin over the protocol's [`Dispatcher`] on the official
//! Rust SDK (`rmcp`): the same tools, limits and error kinds as the stdio JSON Lines server.
//!
//! - Both lifecycles: the current revision (2026-07-28: `server/discover`, no `initialize`) and the
//!   `initialize` handshake of 2025-11-25 and before. rmcp negotiates; this crate only answers.
//! - `tools/list`: every tool with its `inputSchema` and `outputSchema` (the result schema).
//! - `tools/call`: `structuredContent` is the tool's `result`; the `content` is the result as a model reads
//!   it (one text block, at most 32 KiB) plus an `image` block per plot or figure. A tool's failure is a
//!   result with `isError: true` (the text says `error` and `error_kind`; `_meta` has the kind, fault and
//!   retryability), so a model sees it; only an unknown tool, a duplicate id in flight or unreadable `_meta`
//!   is a JSON-RPC error.
//! - `notifications/cancelled` cancels the call in the engine; a call that carries a `progressToken` gets a
//!   progress notification every [`Options::progress_every`] while it runs.
//! - At most [`Options::max_in_flight`] calls run at once; the others wait their turn (a cancellation
//!   while waiting removes them).
//! - Input that is not JSON (nested past serde's limit included), or a line over [`Options::max_line_bytes`],
//!   is answered `-32700` under the id its first bytes hold, and dropped when none can be read (so a peer that
//!   echoes errors cannot start a storm); a UTF-8 byte-order mark is skipped; JSON that is not a JSON-RPC
//!   message is answered `Invalid Request`. Either way the session goes on.
//!
//! ```no_run
//! # async fn demo() -> Result<(), beaker_mcp::Error> {
//! let engine = beaker_catalog::engine().expect("engine");
//! let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
//! beaker_mcp::serve(engine, beaker_mcp::Options::default(), stdin, stdout).await
//! # }
//! ```
#![deny(missing_docs)]

mod render;

use beaker_core::{Envelope, ErrorKind, LimitsRequest, ToolCall, ToolError};
use beaker_protocol::Dispatcher;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Semaphore;

/// How an MCP server runs, beyond the engine's own limits.
#[derive(Debug, Clone)]
pub struct Options {
    /// Calls running at once; more wait for a slot.
    pub max_in_flight: usize,
    /// Longest message in bytes; a longer line is dropped unanswered (it has no id that could be read).
    pub max_line_bytes: usize,
    /// How often a call that asked for progress (a `progressToken` in its `_meta`) is told it still runs.
    pub progress_every: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_in_flight: 256,
            // The stdio server's line cap: a request that fits one fits the other.
            max_line_bytes: 16 << 20,
            progress_every: Duration::from_secs(1),
        }
    }
}

/// Why an MCP session could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The client went away or spoke no MCP before the session started.
    #[error("the MCP session did not start: {0}")]
    Start(Box<rmcp::service::ServerInitializeError>),
    /// The session's task failed.
    #[error("the MCP session ended abnormally: {0}")]
    Session(#[from] tokio::task::JoinError),
    /// A tool's spec could not be written as an MCP tool.
    #[error("tool `{tool}` cannot be listed over MCP: {reason}")]
    Listing {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
}

/// Serves one MCP session over a byte stream (stdio for `beaker serve --mcp`) until the client closes it.
pub async fn serve<R, W>(
    dispatcher: impl Into<Dispatcher>,
    options: Options,
    input: R,
    output: W,
) -> Result<(), Error>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    // rmcp drops a line it cannot read (over the cap, not JSON, nested past serde's limit) without a word, and a
    // client waits forever for that id. So the client's lines pass a filter first: one rmcp could not read is
    // answered here, `-32700` under the id its first bytes hold (unanswered when none can be read, so a peer
    // that echoes errors cannot start a storm), and the rest go on to rmcp. One writer task writes rmcp's lines
    // and these answers, a whole line at a time.
    let (rmcp_input, feed) = tokio::io::duplex(1 << 16);
    let (rmcp_output, produced) = tokio::io::duplex(1 << 16);
    let (lines, to_write) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(write_lines(to_write, output));
    let pending = Arc::new(Pending::default());
    tokio::spawn(relay_lines(produced, lines.clone(), pending.clone()));
    tokio::spawn(filter_lines(
        input,
        feed,
        lines,
        options.max_line_bytes,
        pending,
    ));
    let transport = rmcp::transport::async_rw::AsyncRwTransport::<RoleServer, _, _>::new(
        rmcp_input,
        rmcp_output,
    )
    .with_max_line_length(options.max_line_bytes.saturating_add(1));
    let server = Server::new(dispatcher, options)?;
    let running = match rmcp::serve_server(server, transport).await {
        Ok(r) => r,
        // A client that hangs up before saying anything ended the session; that is not a failure.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(Error::Start(Box::new(e))),
    };
    running.waiting().await?;
    // Every answer rmcp and the filter produced is written before the session ends.
    let _ = writer.await;
    Ok(())
}

/// The client's requests rmcp has been fed and the responses it has produced: when the client closes its input,
/// the session ends once every request it sent has been answered (a client that pipes its requests and closes
/// stdin, as `echo ... | beaker serve --mcp` does, gets every answer, as on the JSON Lines server).
#[derive(Default)]
struct Pending {
    requests: std::sync::atomic::AtomicI64,
    responses: std::sync::atomic::AtomicI64,
}

impl Pending {
    /// Whether every request fed so far has its response.
    fn answered(&self) -> bool {
        use std::sync::atomic::Ordering::Acquire;
        self.responses.load(Acquire) >= self.requests.load(Acquire)
    }
}

/// The fields of a JSON-RPC message that say what it is.
#[derive(serde::Deserialize)]
struct Kind {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
}

/// The longest the session waits, after the client closed its input, for its requests' answers: a call's
/// longest timeout and a margin (a request rmcp never answers must not keep the process alive for ever).
const DRAIN_AT_MOST: Duration = Duration::from_secs(610);

/// Writes each line it is given, whole, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut lines: tokio::sync::mpsc::Receiver<Vec<u8>>,
    mut output: W,
) {
    while let Some(line) = lines.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

/// Passes rmcp's output on to the writer a line at a time.
async fn relay_lines<R: AsyncRead + Unpin>(
    produced: R,
    lines: tokio::sync::mpsc::Sender<Vec<u8>>,
    pending: Arc<Pending>,
) {
    let mut produced = BufReader::new(produced);
    loop {
        let mut line = Vec::new();
        match produced.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                // A line without a method is a response (notifications and requests to the client have one).
                if serde_json::from_slice::<Kind>(&line).is_ok_and(|k| k.method.is_none()) {
                    pending
                        .responses
                        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
                }
                if lines.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Bytes of an over-long line kept to find its id.
const ID_PREFIX: usize = 64 << 10;

/// Reads the client's lines, at most `max` bytes each: a line rmcp can read goes on to it (less a UTF-8
/// byte-order mark), any other is answered with a parse error under its id when one can be read.
async fn filter_lines<R: AsyncRead + Unpin, F: AsyncWrite + Unpin>(
    input: R,
    mut feed: F,
    answers: tokio::sync::mpsc::Sender<Vec<u8>>,
    max: usize,
    pending: Arc<Pending>,
) {
    let mut input = BufReader::new(input);
    // At the end of the input, rmcp's input stays open until every request fed to it is answered.
    let drain = |pending: Arc<Pending>| async move {
        let since = tokio::time::Instant::now();
        while !pending.answered() && since.elapsed() < DRAIN_AT_MOST {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    loop {
        // The line, or its first ID_PREFIX bytes and its length when it is longer than `max`.
        let mut line = Vec::new();
        let mut len = 0usize;
        loop {
            let chunk = match input.fill_buf().await {
                Ok(c) => c,
                Err(_) => return,
            };
            if chunk.is_empty() {
                if len == 0 {
                    drain(pending).await;
                    return;
                }
                break;
            }
            let (part, end) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            len += part.len();
            let room = if len <= max {
                part.len()
            } else {
                ID_PREFIX.saturating_sub(line.len()).min(part.len())
            };
            line.extend_from_slice(&part[..room]);
            if len > max && line.len() > ID_PREFIX {
                line.truncate(ID_PREFIX);
            }
            let used = part.len() + usize::from(end);
            input.consume(used);
            if end {
                break;
            }
        }
        let body = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&line);
        let why = if len > max {
            Some(format!(
                "the message is {len} bytes; the limit is {max} (--max-line-bytes)"
            ))
        } else if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else {
            serde_json::from_slice::<serde::de::IgnoredAny>(body)
                .err()
                .map(|e| format!("the message is not JSON: {e}"))
        };
        match why {
            None => {
                // A request (an id and a method) will be answered; a cancelled one will not be.
                if let Ok(kind) = serde_json::from_slice::<Kind>(body) {
                    use std::sync::atomic::Ordering::AcqRel;
                    match (kind.id.filter(|id| !id.is_null()), kind.method.as_deref()) {
                        (Some(_), Some(_)) => {
                            pending.requests.fetch_add(1, AcqRel);
                        }
                        (None, Some("notifications/cancelled")) => {
                            pending.requests.fetch_sub(1, AcqRel);
                        }
                        _ => {}
                    }
                }
                let mut ok = body.to_vec();
                ok.push(b'\n');
                if feed.write_all(&ok).await.is_err() {
                    return;
                }
            }
            Some(message) => {
                if let Some(id) = beaker_protocol::id_in(body) {
                    let answer = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32700, "message": message}});
                    let mut bytes = answer.to_string().into_bytes();
                    bytes.push(b'\n');
                    if answers.send(bytes).await.is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// Serves one MCP session on this process's stdin and stdout (non-blocking when both are pipes, as MCP
/// clients launch servers). Must run inside a Tokio runtime with IO enabled.
pub async fn serve_stdio(dispatcher: impl Into<Dispatcher>, options: Options) -> Result<(), Error> {
    let (input, output) = rmcp::transport::stdio_pipes();
    serve(dispatcher, options, input, output).await
}

/// The MCP request handler over a dispatcher; [`serve`] runs one, embedders may hand it to rmcp themselves.
#[derive(Clone)]
pub struct Server {
    dispatcher: Dispatcher,
    /// The calls in flight by request id, each with what cancels it.
    ids: Arc<std::sync::Mutex<InFlight>>,
    tools: Arc<Vec<Tool>>,
    slots: Arc<Semaphore>,
    progress_every: Duration,
    /// The session's trajectory: its calls share one workspace (a file written is read by the next call), unless
    /// a call names another in `_meta["beaker/tag"]`.
    tag: Arc<str>,
}

/// The `_meta` key naming the trajectory (`tag`) a call belongs to; default: the session's own.
pub const TAG_META: &str = "beaker/tag";

/// The `_meta` key naming the dataset a call reads (seed 002's health tools), as a protocol call's `dataset`.
pub const DATASET_META: &str = "beaker/dataset";

/// The `_meta` key a call's limits may come in (`{"timeout_ms": 2000, ...}`, as a protocol call's `limits`).
pub const LIMITS_META: &str = "beaker/limits";

impl Server {
    /// A handler serving the engine's tools.
    pub fn new(dispatcher: impl Into<Dispatcher>, options: Options) -> Result<Server, Error> {
        let dispatcher = dispatcher.into();
        let tools = dispatcher
            .engine()
            .specs()
            .iter()
            .map(render::tool)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Server {
            dispatcher,
            ids: Arc::default(),
            tools: Arc::new(tools),
            slots: Arc::new(Semaphore::new(options.max_in_flight.max(1))),
            progress_every: options.progress_every.max(Duration::from_millis(10)),
            tag: {
                // Tags are scoped by tenant, so a counter keeps each session of this process apart.
                static SESSIONS: std::sync::atomic::AtomicU64 =
                    std::sync::atomic::AtomicU64::new(0);
                let n = SESSIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Arc::from(format!("mcp-session-{n}"))
            },
        })
    }

    /// Runs one call to its envelope, telling the client it still runs when it asked for progress.
    async fn run(&self, call: ToolCall, context: &RequestContext<RoleServer>) -> Envelope {
        let (tool, cancelled) = (call.tool.clone(), context.ct.clone());
        let cancelled_envelope = move || {
            Envelope::failure(
                None,
                tool,
                ToolError::new(ErrorKind::Cancelled, "the call was cancelled"),
            )
        };
        let _slot = tokio::select! {
            slot = self.slots.clone().acquire_owned() => match slot {
                Ok(s) => s,
                Err(_) => return cancelled_envelope(),
            },
            () = cancelled.cancelled() => return cancelled_envelope(),
        };
        let token = context.meta.get_progress_token();
        // Dropping this future (on cancellation) cancels the call in the engine.
        let call = self.dispatcher.call_async(call);
        tokio::pin!(call);
        let started = Instant::now();
        let mut ticks = tokio::time::interval_at(
            tokio::time::Instant::now() + self.progress_every,
            self.progress_every,
        );
        loop {
            tokio::select! {
                env = &mut call => return env,
                () = cancelled.cancelled() => return cancelled_envelope(),
                _ = ticks.tick(), if token.is_some() => {
                    if let Some(token) = token.clone() {
                        let secs = started.elapsed().as_secs_f64();
                        let mut note = ProgressNotificationParam::new(token, secs);
                        note.message = Some(format!("running for {secs:.1} s"));
                        // A client that stopped reading progress still gets its answer.
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
            }
        }
    }
}

/// Request ids of the calls in flight, each with what cancels its call.
type InFlight = std::collections::HashMap<String, Box<dyn Fn() + Send>>;

/// Frees a request id when its call is answered, or its handler dropped.
struct IdInFlight {
    ids: Arc<std::sync::Mutex<InFlight>>,
    id: String,
}

impl Drop for IdInFlight {
    fn drop(&mut self) {
        if let Ok(mut ids) = self.ids.lock() {
            ids.remove(&self.id);
        }
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        render::server_config()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if self.dispatcher.engine().spec(&name).is_none() {
            // The engine's refusal names the tools and the near miss.
            let env = self
                .dispatcher
                .engine()
                .call(ToolCall::new(name, json!({})));
            return Err(ErrorData::invalid_params(
                env.error.unwrap_or_default(),
                None,
            ));
        }
        let params = Value::Object(request.arguments.unwrap_or_default());
        let mut call = ToolCall::new(name, params);
        call.tag = Some(match context.meta.get(TAG_META) {
            None => self.tag.to_string(),
            Some(Value::String(t)) if !t.is_empty() => t.clone(),
            Some(other) => {
                return Err(ErrorData::invalid_params(
                    format!("_meta[\"{TAG_META}\"] must be a non-empty string, got {other}"),
                    None,
                ))
            }
        });
        match context.meta.get(DATASET_META) {
            None => {}
            Some(Value::String(d)) => call.dataset = Some(d.clone()),
            Some(other) => {
                return Err(ErrorData::invalid_params(
                    format!("_meta[\"{DATASET_META}\"] must be a string, got {other}"),
                    None,
                ))
            }
        }
        if let Some(limits) = context.meta.get(LIMITS_META) {
            call.limits = serde_json::from_value::<LimitsRequest>(limits.clone()).map_err(|e| {
                ErrorData::invalid_params(format!("_meta[\"{LIMITS_META}\"]: {e}"), None)
            })?;
        }
        let id = context.id.to_string();
        let ct = context.ct.clone();
        let earlier = self
            .ids
            .lock()
            .ok()
            .and_then(|mut ids| ids.insert(id.clone(), Box::new(move || ct.cancel())));
        if let Some(cancel_earlier) = earlier {
            // rmcp keeps one pending answer per id, so the earlier call's answer could no longer be sent: it is
            // cancelled too, rather than left running for nobody.
            cancel_earlier();
            if let Ok(mut ids) = self.ids.lock() {
                ids.remove(&id);
            }
            return Err(ErrorData::invalid_request(
                format!(
                    "request id {id} was already in flight; both calls are refused (reuse an id only after its answer)"
                ),
                None,
            ));
        }
        let _in_flight = IdInFlight {
            ids: self.ids.clone(),
            id,
        };
        let env = self.run(call, &context).await;
        let result: CallToolResult = render::call_result(&env).map_err(|e| {
            ErrorData::internal_error(format!("the result cannot be sent: {e}"), None)
        })?;
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests;
