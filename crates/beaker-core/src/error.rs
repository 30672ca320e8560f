use serde::{Deserialize, Serialize};
use std::fmt;

/// The closed set of reasons a call can fail, as written in `error_kind` on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The request itself could not be read (not JSON, no `tool`, bad `id`, oversized line).
    ParseError,
    /// No tool of that name is registered.
    UnknownTool,
    /// The params do not fit the tool's schema, or make no sense together.
    InvalidParams,
    /// A mathematical domain error (division by zero, `sqrt(-1)`, `ln(0)`).
    DomainError,
    /// A size, precision, memory or fuel cap would be exceeded.
    LimitExceeded,
    /// The call ran past its execution deadline.
    Timeout,
    /// The call was cancelled by its client.
    Cancelled,
    /// The tool failed on a valid call (a guest trapped, user code raised).
    ToolError,
    /// A bug or an overload inside Beaker (a panic, a full queue).
    Internal,
    /// The request's id is the id of a request still in flight (the client's mistake; the first request is
    /// still answered).
    DuplicateId,
}

/// Whose fault a failure is, so RL workers can tell a bad model call from a broken tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The call was bad: the model should learn from the error.
    Model,
    /// The tool failed on a valid call.
    Tool,
    /// Overload or an internal error: not the model's fault.
    Infra,
    /// The client (the program speaking the protocol, not the model) broke a protocol rule.
    Client,
}

impl ErrorKind {
    /// Every kind, in wire order (for docs and tests).
    pub const ALL: [ErrorKind; 10] = [
        ErrorKind::ParseError,
        ErrorKind::UnknownTool,
        ErrorKind::InvalidParams,
        ErrorKind::DomainError,
        ErrorKind::LimitExceeded,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::ToolError,
        ErrorKind::Internal,
        ErrorKind::DuplicateId,
    ];

    /// The wire name (`"domain_error"`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::ParseError => "parse_error",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::InvalidParams => "invalid_params",
            ErrorKind::DomainError => "domain_error",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::ToolError => "tool_error",
            ErrorKind::Internal => "internal",
            ErrorKind::DuplicateId => "duplicate_id",
        }
    }

    /// Who is to blame for an error of this kind.
    pub fn fault(self) -> Fault {
        match self {
            ErrorKind::ParseError
            | ErrorKind::UnknownTool
            | ErrorKind::InvalidParams
            | ErrorKind::DomainError
            | ErrorKind::LimitExceeded
            | ErrorKind::Timeout => Fault::Model,
            ErrorKind::Cancelled => Fault::Infra,
            ErrorKind::ToolError => Fault::Tool,
            ErrorKind::Internal => Fault::Infra,
            ErrorKind::DuplicateId => Fault::Client,
        }
    }

    /// Whether sending the same call again could succeed. Tools are deterministic, so only
    /// failures that did not come from the call itself are worth retrying.
    pub fn retryable(self) -> bool {
        match self {
            ErrorKind::ParseError
            | ErrorKind::UnknownTool
            | ErrorKind::InvalidParams
            | ErrorKind::DomainError
            | ErrorKind::LimitExceeded
            | ErrorKind::Timeout
            | ErrorKind::ToolError => false,
            // Once the first request with the id is answered, the same request is accepted.
            ErrorKind::Cancelled | ErrorKind::Internal | ErrorKind::DuplicateId => true,
        }
    }
}

impl Fault {
    /// The wire name (`"model"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Fault::Model => "model",
            Fault::Tool => "tool",
            Fault::Infra => "infra",
            Fault::Client => "client",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: its kind and a message written for the model that made the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct ToolError {
    /// Why the call failed.
    pub kind: ErrorKind,
    /// A human- and model-readable explanation naming the offending value and limit.
    pub message: String,
    /// What the tool had produced before it failed, when that is worth keeping (a program stopped by a
    /// limit: what it printed); the envelope's `partial`.
    pub partial: Option<Box<serde_json::Value>>,
    /// Whether the failure came from outside the call and may pass (a live provider down, overloaded or not
    /// answering): the envelope then says `retryable` whatever the kind.
    pub transient: bool,
}

impl ToolError {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
            partial: None,
            transient: false,
        }
    }

    /// The same error, marked as one the same call may not meet again (a live provider's outage).
    pub fn transient(mut self) -> Self {
        self.transient = true;
        self
    }

    /// Whether a live provider's HTTP `status` says it is overloaded or down (429, or any 5xx): the service's
    /// state, not the request's, so a failure it answers with is transient. The one rule every
    /// provider (`wolfram`, `pubchem`, `web_search`, the image tools) follows.
    pub fn transient_status(status: u16) -> bool {
        status == 429 || (500..=599).contains(&status)
    }

    /// The same error carrying what the tool had produced before it failed.
    pub fn with_partial(mut self, partial: serde_json::Value) -> Self {
        self.partial = Some(Box::new(partial));
        self
    }

    /// Shorthand for an `invalid_params` error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidParams, message)
    }

    /// Shorthand for a `domain_error`.
    pub fn domain(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::DomainError, message)
    }

    /// Shorthand for a `limit_exceeded` error.
    pub fn limit(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::LimitExceeded, message)
    }
}

#[cfg(test)]
mod tests {
    use super::{ErrorKind, Fault};

    #[test]
    fn wire_names_are_the_serialized_names() {
        for f in [Fault::Model, Fault::Tool, Fault::Infra, Fault::Client] {
            assert_eq!(
                serde_json::to_value(f).ok(),
                Some(serde_json::json!(f.as_str()))
            );
        }
        for k in ErrorKind::ALL {
            assert_eq!(
                serde_json::to_value(k).ok(),
                Some(serde_json::json!(k.as_str()))
            );
        }
    }
}
