use crate::{ErrorKind, Limits, ToolError};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Why a running call was asked to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelReason {
    /// Its execution deadline passed.
    Timeout,
    /// Its client cancelled it.
    Cancelled,
}

/// A shared flag a running tool polls; the engine (deadline watchdog, client cancel) sets it.
///
/// Cloning shares the flag. Only the first reason set sticks, so a call cancelled and then timed out reports
/// `cancelled`.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicU8>);

const RUNNING: u8 = 0;
const TIMEOUT: u8 = 1;
const CANCELLED: u8 = 2;

impl CancelToken {
    /// A fresh token, not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ask the call to stop; returns false if a reason was already set.
    pub fn cancel(&self, reason: CancelReason) -> bool {
        let v = match reason {
            CancelReason::Timeout => TIMEOUT,
            CancelReason::Cancelled => CANCELLED,
        };
        self.0
            .compare_exchange(RUNNING, v, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// The reason the call was asked to stop, if it was.
    pub fn reason(&self) -> Option<CancelReason> {
        match self.0.load(Ordering::Acquire) {
            TIMEOUT => Some(CancelReason::Timeout),
            CANCELLED => Some(CancelReason::Cancelled),
            _ => None,
        }
    }
}

/// What a tool sees while it runs: its effective limits, its cancellation token, its seed and its tenant.
///
/// Deadlines are enforced by the engine, which flips the token when the execution time runs out; a tool
/// only has to call [`CallContext::checkpoint`] in its long loops (one atomic load, so it is cheap to call often).
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The limits this call runs under (already narrowed and clamped).
    pub limits: Limits,
    /// Set when the call must stop.
    pub cancel: CancelToken,
    /// The seed for any randomness, derived from the call so replays are identical.
    pub seed: u64,
    /// When the call's execution time runs out (the engine enforces it; tools may read it to budget work).
    pub deadline: Option<Instant>,
    /// Where a sandboxed tool records what it consumed; the engine copies it into the envelope.
    pub usage: UsageSlot,
    /// Whose call it is: a tool that keeps named state across calls (sessions) keeps it per tenant.
    pub tenant: crate::Tenant,
    /// The process's memory budget: a tool that holds memory beyond its call's result (an interpreter, a session)
    /// reserves it here first.
    pub memory: crate::MemoryBudget,
    /// The call's files: its trajectory's workspace when it has a `tag`, else an empty one dropped with it (read
    /// it with [`CallContext::workspace`]).
    pub workspace: WorkspaceSlot,
    /// The dataset the call reads (seed 002's health data): the request's `dataset`, or the one its tenant is
    /// bound to. Tools that read user data read this one only.
    pub dataset: Option<std::sync::Arc<str>>,
}

/// Where a call's [`Workspace`](crate::Workspace) comes from: its trajectory's, or one made on first use and
/// dropped with the call, so an untagged call that never touches files allocates nothing for it.
#[derive(Debug, Clone)]
pub struct WorkspaceSlot {
    made: std::sync::OnceLock<crate::Workspace>,
    limits: crate::WorkspaceLimits,
}

impl WorkspaceSlot {
    /// This workspace (a trajectory's).
    pub fn of(workspace: crate::Workspace) -> WorkspaceSlot {
        let limits = *workspace.limits();
        WorkspaceSlot {
            made: std::sync::OnceLock::from(workspace),
            limits,
        }
    }

    /// A one-call workspace bounded by `limits`, made when a tool first asks for it.
    pub fn scratch(limits: crate::WorkspaceLimits) -> WorkspaceSlot {
        WorkspaceSlot {
            made: std::sync::OnceLock::new(),
            limits,
        }
    }
}

/// What one call consumed inside the sandbox, reported as `usage` in its envelope.
///
/// A call that runs several guest instances (`code_test`) reports the sum of fuel, time and output and the
/// largest peak memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// WebAssembly fuel consumed (about one unit per guest instruction; deterministic).
    pub fuel: u64,
    /// The largest linear memory the guest reached, in bytes.
    pub peak_memory_bytes: u64,
    /// Time the guest ran, in microseconds (instantiation included, queueing excluded).
    pub wall_us: u64,
    /// Bytes the guest wrote to stdout and stderr (before truncation).
    pub output_bytes: u64,
}

impl Usage {
    /// Adds another run's consumption to this one.
    pub fn add(&mut self, other: &Usage) {
        self.fuel = self.fuel.saturating_add(other.fuel);
        self.peak_memory_bytes = self.peak_memory_bytes.max(other.peak_memory_bytes);
        self.wall_us = self.wall_us.saturating_add(other.wall_us);
        self.output_bytes = self.output_bytes.saturating_add(other.output_bytes);
    }
}

/// A shared cell a tool records [`Usage`] into while it runs; cloning shares it.
#[derive(Debug, Clone, Default)]
pub struct UsageSlot(Arc<Mutex<Option<Usage>>>);

impl UsageSlot {
    /// Adds `usage` to what the call has consumed so far.
    pub fn record(&self, usage: Usage) {
        if let Ok(mut slot) = self.0.lock() {
            slot.get_or_insert_with(Usage::default).add(&usage);
        }
    }

    /// What was recorded, if anything.
    pub fn get(&self) -> Option<Usage> {
        self.0.lock().ok().and_then(|s| *s)
    }
}

impl CallContext {
    /// A context with the given limits, a fresh token and seed 0 (for tests and direct tool use).
    pub fn new(limits: Limits) -> Self {
        CallContext {
            limits,
            cancel: CancelToken::new(),
            seed: 0,
            deadline: None,
            usage: UsageSlot::default(),
            tenant: crate::Tenant::default(),
            memory: crate::MemoryBudget::unlimited(),
            workspace: WorkspaceSlot::scratch(crate::WorkspaceLimits::default()),
            dataset: None,
        }
    }

    /// Reserves `bytes` for `what` from the process's memory budget for the rest of this call, waiting while
    /// only answers their clients have not read yet keep them from fitting, until this call's deadline or
    /// cancellation.
    pub fn reserve_memory(&self, bytes: u64, what: &str) -> Result<crate::Reservation, ToolError> {
        self.reserve(bytes, what, crate::Hold::Call, crate::WaitFor::Answers)
    }

    /// Reserves `bytes` for `what` to hold beyond this call (a session's interpreter), waiting as
    /// [`CallContext::reserve_memory`] does.
    pub fn reserve_lasting_memory(
        &self,
        bytes: u64,
        what: &str,
    ) -> Result<crate::Reservation, ToolError> {
        self.reserve(bytes, what, crate::Hold::Lasting, crate::WaitFor::Answers)
    }

    /// Reserves a call's first memory, its result's: this call holds nothing yet, so it may wait for running
    /// calls to be answered as well as for answers to be read.
    pub fn reserve_result_memory(
        &self,
        bytes: u64,
        what: &str,
    ) -> Result<crate::Reservation, ToolError> {
        self.reserve(
            bytes,
            what,
            crate::Hold::Call,
            crate::WaitFor::AnswersAndCalls,
        )
    }

    fn reserve(
        &self,
        bytes: u64,
        what: &str,
        hold: crate::Hold,
        wait_for: crate::WaitFor,
    ) -> Result<crate::Reservation, ToolError> {
        self.memory
            .reserve_or_wait(bytes, what, hold, wait_for, || {
                self.cancel.reason().is_none() && self.deadline.is_none_or(|d| Instant::now() < d)
            })
    }

    /// The call's files: its trajectory's workspace, or (an untagged call) an empty one made now, its bytes
    /// reserved from the call's memory budget, dropped with the call.
    pub fn workspace(&self) -> &crate::Workspace {
        let slot = &self.workspace;
        slot.made
            .get_or_init(|| crate::Workspace::new(slot.limits, self.memory.clone(), false))
    }

    /// The call's trajectory's workspace, if it has one (a tagged call); `None` for an untagged call, without
    /// making its one-call workspace.
    pub fn trajectory_workspace(&self) -> Option<&crate::Workspace> {
        self.workspace.made.get().filter(|w| w.is_lasting())
    }

    /// The error of this call run past its deadline.
    pub fn timeout_error(&self) -> ToolError {
        ToolError::new(
            ErrorKind::Timeout,
            format!(
                "the call ran past its {} ms execution limit",
                self.limits.timeout_ms
            ),
        )
    }

    /// `Err(timeout | cancelled)` once the call has been asked to stop.
    #[inline]
    pub fn checkpoint(&self) -> Result<(), ToolError> {
        match self.cancel.reason() {
            None => Ok(()),
            Some(CancelReason::Timeout) => Err(self.timeout_error()),
            Some(CancelReason::Cancelled) => Err(ToolError::new(
                ErrorKind::Cancelled,
                "the call was cancelled",
            )),
        }
    }
}
