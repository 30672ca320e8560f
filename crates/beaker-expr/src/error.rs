use beaker_core::{ErrorKind, ToolError};

/// Everything that can go wrong parsing or evaluating an expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExprError {
    /// The text is not a valid expression; `position` is the 1-based character where it goes wrong.
    #[error("{message} at character {position}: {snippet}")]
    Syntax {
        /// What is wrong.
        message: String,
        /// 1-based character index of the problem.
        position: usize,
        /// The expression around the problem, with a `⟨here⟩` marker.
        snippet: String,
    },
    /// A name that is neither a constant nor a bound variable.
    #[error("unknown name `{name}` at character {position} (constants are pi, e, tau{hint})")]
    UnknownName {
        /// The name.
        name: String,
        /// 1-based character index of the name.
        position: usize,
        /// Extra context (e.g. the variables in scope).
        hint: String,
    },
    /// The expression is longer than `max_expression_len`.
    #[error("the expression is {len} bytes long; the limit is {max}")]
    TooLong {
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: u64,
    },
    /// Parentheses or calls nest deeper than `max_depth`.
    #[error("the expression nests {depth} levels deep; the limit is {max}")]
    TooDeep {
        /// The depth reached.
        depth: usize,
        /// The limit.
        max: u64,
    },
    /// A mathematical domain error (division by zero, `sqrt(-1)`).
    #[error("{0}")]
    Domain(String),
    /// A number would be too large (more digits than `max_digits`, or beyond the float range).
    #[error("{0}")]
    TooLarge(String),
    /// The call's deadline passed or it was cancelled while evaluating.
    #[error("{0}")]
    Interrupted(ToolError),
}

impl From<ExprError> for ToolError {
    fn from(e: ExprError) -> ToolError {
        let kind = match &e {
            ExprError::Syntax { .. } | ExprError::UnknownName { .. } => ErrorKind::ParseError,
            ExprError::TooLong { .. } | ExprError::TooDeep { .. } | ExprError::TooLarge(_) => {
                ErrorKind::LimitExceeded
            }
            ExprError::Domain(_) => ErrorKind::DomainError,
            ExprError::Interrupted(inner) => return inner.clone(),
        };
        ToolError::new(kind, e.to_string())
    }
}
