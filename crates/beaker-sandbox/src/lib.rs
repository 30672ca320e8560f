//! Beaker's WebAssembly sandbox: runs untrusted WASI guests under hard limits.
//!
//! The nouns follow wasmtime's embedding API:
//! - [`Sandbox`]: one shared wasmtime `Engine` set up for many short calls (pooling allocator with
//!   copy-on-write memory images, fuel, epoch interruption driven by a ticker thread), a linker with WASI
//!   preview 1, and a semaphore in front of the instance pool so that exhaustion queues instead of failing.
//! - [`Guest`]: a module compiled once (cached on disk by content hash and engine fingerprint), optionally
//!   pre-initialised with wizer, and pre-instantiated (`InstancePre`) so a call only creates a store.
//! - [`Run`]: one call's input, limits and grants; [`Outcome`]: its captured output and [`Usage`].
//! - [`GuestTool`]: a guest plus its [`Manifest`], as a `beaker_core::Tool`; [`load_dir`] reads an
//!   operator's `--guest-dir`.
//!
//! Invariants:
//! - A guest sees no filesystem, network, environment or host stdio unless a [`Grants`] says so; its clocks
//!   are virtual and its random source is seeded by the call, so the same call gives the same bytes.
//! - Every run has a fuel budget, a memory cap, capped stdout/stderr (truncated, never trapping) and a
//!   wall-clock deadline armed when the guest starts running, not when it was queued.
//! - A guest failure of any kind is a [`SandboxError`] naming a `beaker_core::ErrorKind`; nothing a guest
//!   does can panic or abort the host. It carries what the guest had written ([`Printed`]), including output
//!   still waiting in a buffer the guest declared at the start of the stream (see [`framing`]), so a
//!   program a limit stops keeps what it printed.
//! - A [`Reactor`] may edit its initialised memory before the snapshot ([`Prepare`]); the edit's name is part
//!   of the snapshot's cache key.
#![deny(missing_docs)]

mod cache;
mod clock;
mod error;
pub mod framing;
mod manifest;
mod pipe;
mod reactor;
mod sandbox;
mod sleep;
mod snapshot;
mod store;
mod tool;

pub use error::{Printed, SandboxError};
pub use manifest::{Grants, Manifest};
pub use reactor::{Door, Prepare, Reactor, ReadOnlyDir};
pub use sandbox::{
    declare_thread_stack, usage_of, Guest, Outcome, Reserved, Run, Sandbox, SandboxConfig, Session,
};
pub use tool::{load_dir, GuestTool, LoadError};

pub use beaker_core::Usage;
