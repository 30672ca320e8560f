//! Guest-side helper for Beaker WebAssembly tools (wasm32-wasip1 commands).
//!
//! A tool is a WASI command: its params arrive as one JSON value on stdin, its
//! result leaves as one JSON value on stdout, and a failure is a message on
//! stderr with exit code 1. [`run`] does all of that around a closure.

use std::io::{Read, Write};

/// The serde_json the params and results are typed with.
pub use serde_json;

/// Exit code of a guest whose tool reported an error (or got unparseable params).
pub const EXIT_ERROR: i32 = 1;

/// Reads the params JSON from stdin, calls `tool`, writes its result JSON to stdout and exits 0; on error writes the message to stderr and exits 1.
pub fn run<F>(tool: F) -> !
where
    F: FnOnce(serde_json::Value) -> Result<serde_json::Value, String>,
{
    let outcome = read_params().and_then(tool);
    match outcome {
        Ok(result) => match write_result(&result) {
            Ok(()) => std::process::exit(0),
            Err(message) => fail(&message),
        },
        Err(message) => fail(&message),
    }
}

/// Reads all of stdin and parses it as one JSON value.
pub fn read_params() -> Result<serde_json::Value, String> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read params from stdin: {e}"))?;
    serde_json::from_slice(&input).map_err(|e| format!("params are not valid JSON: {e}"))
}

/// Writes `result` as JSON to stdout and flushes it.
pub fn write_result(result: &serde_json::Value) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, result)
        .map_err(|e| format!("cannot write result: {e}"))?;
    out.flush().map_err(|e| format!("cannot flush result: {e}"))
}

/// Writes `message` to stderr and exits with [`EXIT_ERROR`].
pub fn fail(message: &str) -> ! {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{message}");
    let _ = err.flush();
    std::process::exit(EXIT_ERROR)
}
