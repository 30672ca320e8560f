//! A guest's stdout/stderr: kept up to a cap, then counted and dropped.
//!
//! wasmtime-wasi's `MemoryOutputPipe` traps when it is full; a model that prints too much should get its
//! first bytes and `"truncated": true`, not a crash, so this pipe never fails a write.

use bytes::Bytes;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamError};

#[derive(Default)]
struct Buffer {
    cap: usize,
    kept: Vec<u8>,
    /// Every byte written, kept or not.
    total: u64,
}

/// An output pipe that keeps at most `cap` bytes; cloning shares the buffer.
#[derive(Clone)]
pub(crate) struct CappedPipe {
    buf: Arc<Mutex<Buffer>>,
}

/// What a pipe captured.
pub(crate) struct Captured {
    /// The first `cap` bytes written.
    pub(crate) bytes: Vec<u8>,
    /// How many bytes were written in all.
    pub(crate) total: u64,
    /// The pipe's cap.
    pub(crate) cap: usize,
}

impl Captured {
    /// Whether bytes were dropped at the cap.
    pub(crate) fn truncated(&self) -> bool {
        self.total > self.bytes.len() as u64
    }
}

impl CappedPipe {
    pub(crate) fn new(cap: usize) -> Self {
        CappedPipe {
            buf: Arc::new(Mutex::new(Buffer {
                cap,
                ..Buffer::default()
            })),
        }
    }

    fn push(&self, bytes: &[u8]) {
        if let Ok(mut b) = self.buf.lock() {
            b.total = b.total.saturating_add(bytes.len() as u64);
            let room = b.cap.saturating_sub(b.kept.len());
            let take = room.min(bytes.len());
            b.kept.extend_from_slice(&bytes[..take]);
        }
    }

    /// Empties the pipe and sets a new cap (a session's next turn).
    pub(crate) fn reset(&self, cap: usize) {
        if let Ok(mut b) = self.buf.lock() {
            *b = Buffer {
                cap,
                ..Buffer::default()
            };
        }
    }

    /// Bytes written so far, kept or not.
    pub(crate) fn total(&self) -> u64 {
        self.buf.lock().map_or(0, |b| b.total)
    }

    /// Takes what was captured, leaving the pipe empty.
    pub(crate) fn take(&self) -> Captured {
        match self.buf.lock() {
            Ok(mut b) => {
                let cap = b.cap;
                let b = std::mem::replace(
                    &mut *b,
                    Buffer {
                        cap,
                        ..Buffer::default()
                    },
                );
                Captured {
                    bytes: b.kept,
                    total: b.total,
                    cap,
                }
            }
            Err(_) => Captured {
                bytes: Vec::new(),
                total: 0,
                cap: 0,
            },
        }
    }
}

impl IsTerminal for CappedPipe {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CappedPipe {
    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }

    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }
}

/// The most a guest may hand over in one write; larger writes are split by WASI.
const PERMIT: usize = 64 << 10;

impl OutputStream for CappedPipe {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(PERMIT)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for CappedPipe {
    async fn ready(&mut self) {}
}

impl tokio::io::AsyncWrite for CappedPipe {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_cap_bytes_and_counts_the_rest() {
        let mut p = CappedPipe::new(5);
        p.write(Bytes::from_static(b"abc")).unwrap();
        p.write(Bytes::from_static(b"defgh")).unwrap();
        let c = p.take();
        assert_eq!(c.bytes, b"abcde");
        assert_eq!(c.total, 8);
        assert!(c.truncated());
        let c = p.take();
        assert!(c.bytes.is_empty() && !c.truncated());
    }
}
