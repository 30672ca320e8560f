use beaker_core::{ErrorKind, ToolError, Usage};

/// What a guest had written to stdout and stderr when its run failed (each up to its cap): a program
/// stopped by a limit keeps what it printed before the stop.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Printed {
    /// Its stdout so far.
    pub stdout: Vec<u8>,
    /// Its stderr so far.
    pub stderr: Vec<u8>,
}

/// Why a guest could not be loaded or a run did not produce output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// The module is not valid WebAssembly, or could not be compiled or snapshotted.
    #[error("cannot load guest `{name}`: {message}")]
    Load {
        /// The guest's name.
        name: String,
        /// What went wrong.
        message: String,
    },
    /// The guest ran out of fuel.
    #[error("the guest ran out of fuel after {fuel} instructions (limit max_fuel)")]
    OutOfFuel {
        /// The fuel it had.
        fuel: u64,
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The guest asked for more memory than its limit.
    #[error("the guest tried to use more than {limit} bytes of memory (limit max_memory_bytes)")]
    OutOfMemory {
        /// The limit in bytes.
        limit: u64,
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The guest's stack overflowed (deep recursion).
    #[error("the guest's call stack overflowed (recursion too deep)")]
    StackOverflow {
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The guest ran past its wall-clock deadline.
    #[error("the guest ran past its {timeout_ms} ms execution limit")]
    Timeout {
        /// The limit in milliseconds.
        timeout_ms: u64,
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The call was cancelled while the guest ran.
    #[error("the call was cancelled")]
    Cancelled {
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The guest trapped or exited with a non-zero status.
    #[error("{message}")]
    Guest {
        /// The trap, or the guest's stderr.
        message: String,
        /// What it consumed.
        usage: Usage,
        /// What it had written when it stopped.
        printed: Box<Printed>,
    },
    /// The input is larger than the call's `max_input_bytes`.
    #[error("the input is {len} bytes; the limit is {limit} (max_input_bytes)")]
    InputTooLarge {
        /// The input's size.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// Something in the host failed (a bug or the machine, not the guest).
    #[error("sandbox failure: {0}")]
    Internal(String),
}

impl SandboxError {
    /// The `error_kind` this failure is reported as.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SandboxError::OutOfFuel { .. }
            | SandboxError::OutOfMemory { .. }
            | SandboxError::StackOverflow { .. }
            | SandboxError::InputTooLarge { .. } => ErrorKind::LimitExceeded,
            SandboxError::Timeout { .. } => ErrorKind::Timeout,
            SandboxError::Cancelled { .. } => ErrorKind::Cancelled,
            SandboxError::Guest { .. } => ErrorKind::ToolError,
            SandboxError::Load { .. } | SandboxError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// What the guest had written to stdout and stderr before it failed, when it ran at all.
    pub fn printed(&self) -> Option<&Printed> {
        match self {
            SandboxError::OutOfFuel { printed, .. }
            | SandboxError::OutOfMemory { printed, .. }
            | SandboxError::StackOverflow { printed, .. }
            | SandboxError::Timeout { printed, .. }
            | SandboxError::Cancelled { printed, .. }
            | SandboxError::Guest { printed, .. } => Some(printed),
            _ => None,
        }
    }

    /// What the guest consumed before it failed, when it ran at all.
    pub fn usage(&self) -> Option<Usage> {
        match self {
            SandboxError::OutOfFuel { usage, .. }
            | SandboxError::OutOfMemory { usage, .. }
            | SandboxError::StackOverflow { usage, .. }
            | SandboxError::Timeout { usage, .. }
            | SandboxError::Cancelled { usage, .. }
            | SandboxError::Guest { usage, .. } => Some(*usage),
            _ => None,
        }
    }
}

impl From<SandboxError> for ToolError {
    fn from(e: SandboxError) -> Self {
        ToolError::new(e.kind(), e.to_string())
    }
}

/// Formats a `wasmtime::Error` with its causes on one line (it is not a `std::error::Error`).
pub(crate) fn chain(e: &wasmtime::Error) -> String {
    format!("{e:#}")
}
