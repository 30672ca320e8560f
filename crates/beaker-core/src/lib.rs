//! The shared nouns of Beaker, and nothing else.
//!
//! Every other crate speaks in these types:
//! - [`ToolCall`]: one request (`tool`, `params`, optional `id`, `limits`, `meta`, `tag`, `seed`).
//! - [`Envelope`]: one answer, exactly one per call (`success` with `result`, or `error` with [`ErrorKind`]).
//! - [`ToolSpec`]: a tool's name, description and the JSON Schemas of its params and result.
//! - [`Limits`]: the bounds a call runs under; [`LimitsRequest`] is what a call may ask for.
//! - [`CallContext`]: what a running tool sees (limits, cancellation, seed, tenant); [`Tool`]: what a tool implements.
//! - [`Tenant`]: whose call it is; named server state (sessions, trajectories) is scoped by it.
//! - [`MemoryBudget`]: the one budget every holder of client-grown memory reserves from.
//! - [`Workspace`]: a trajectory's files, in memory, which file and image tools and `execute_python` share.
//!
//! This crate never performs IO, never spawns threads and never widens [`Limits`].
//!
//! ```
//! use beaker_core::{Envelope, ErrorKind, ToolError};
//! let env = Envelope::failure(None, "calculator", ToolError::new(ErrorKind::DomainError, "division by zero"));
//! let json = serde_json::to_string(&env).unwrap();
//! assert!(json.contains(r#""error_kind":"domain_error""#));
//! ```
#![deny(missing_docs)]

mod context;
mod envelope;
mod error;
mod json;
mod limits;
mod memory;
pub mod operations;
pub mod params;
mod paths;
pub mod pyjson;
mod spec;
mod tenant;
pub mod workspace;

pub use context::{CallContext, CancelReason, CancelToken, Usage, UsageSlot, WorkspaceSlot};
pub use envelope::{head_and_tail, Envelope, ToolCall};
pub use error::{ErrorKind, Fault, ToolError};
pub use json::{floats_json_len, json_len, json_type};
pub use limits::{Limits, LimitsError, LimitsRequest, FUEL_PER_SECOND};
pub use memory::{Hold, MemoryBudget, Reservation, WaitFor};
pub use paths::cache_dir;
pub use spec::{Example, Pool, Tool, ToolSpec};
pub use tenant::Tenant;
pub use workspace::{Workspace, WorkspaceLimits};

/// A 64-bit FNV-1a hash: stable across Rust versions and platforms, used to derive per-call seeds.
pub fn stable_hash(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in *part {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator so ("ab","c") and ("a","bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
