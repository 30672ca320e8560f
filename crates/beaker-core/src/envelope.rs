use crate::{ErrorKind, Fault, LimitsRequest, ToolError, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One request to run a tool: `{"tool": "calculator", "params": {"expression": "7 * 8"}}` plus optional fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The client's id for the call (a string or a number), echoed exactly in the envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The tool to run.
    pub tool: String,
    /// The tool's params (an object; absent means `{}`).
    #[serde(default = "empty_object")]
    pub params: Value,
    /// Limits the call asks for, narrowed to the server's maxima.
    #[serde(default, skip_serializing_if = "is_default")]
    pub limits: LimitsRequest,
    /// Any JSON the client wants echoed untouched in the envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// A group name (a trajectory) so a client can cancel several calls at once and derive seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// An explicit seed for any randomness; otherwise one is derived from `(tag, id, tool)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The dataset the call reads (seed 002's health tools); a tenant bound to a dataset may name only it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

fn is_default(l: &LimitsRequest) -> bool {
    *l == LimitsRequest::default()
}

impl ToolCall {
    /// A call of `tool` with `params` and nothing else.
    pub fn new(tool: impl Into<String>, params: Value) -> Self {
        ToolCall {
            id: None,
            tool: tool.into(),
            params,
            limits: LimitsRequest::default(),
            meta: None,
            tag: None,
            seed: None,
            dataset: None,
        }
    }

    /// The same call with an id.
    pub fn with_id(mut self, id: impl Into<Value>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The same call asking for these limits.
    pub fn with_limits(mut self, limits: LimitsRequest) -> Self {
        self.limits = limits;
        self
    }

    /// The same call in trajectory `tag` (its budgets, its figures, its workspace).
    pub fn with_tag(mut self, tag: impl Into<String>) -> Self {
        self.tag = Some(tag.into());
        self
    }

    /// The same call reading dataset `name`.
    pub fn with_dataset(mut self, name: impl Into<String>) -> Self {
        self.dataset = Some(name.into());
        self
    }

    /// The seed this call's randomness uses: `seed` if given, else a stable hash of tag, id and tool.
    pub fn effective_seed(&self) -> u64 {
        if let Some(seed) = self.seed {
            return seed;
        }
        let id = self.id.as_ref().map(|v| v.to_string()).unwrap_or_default();
        let tag = self.tag.as_deref().unwrap_or("");
        crate::stable_hash(&[tag.as_bytes(), id.as_bytes(), self.tool.as_bytes()])
    }
}

/// The answer to one call, exactly one per call. Fields appear on the wire in this order; absent
/// options are omitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    /// The call's id, or `null` when the call had none or it could not be read.
    pub id: Value,
    /// The tool that was called (omitted when the request could not be read far enough to know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Whether the tool produced a result.
    pub success: bool,
    /// The tool's structured result (on success).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// What went wrong (on failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The kind of failure (on failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// Whose fault the failure is (on failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Whether retrying the same call could succeed (on failure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// What the tool had produced before it failed, when it keeps any (on failure): `execute_python` gives
    /// `{"stdout", "stderr", "truncated"}` of a program a limit or timeout stopped (`code_test` gives none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<Value>,
    /// Execution time in microseconds (queue time excluded).
    pub elapsed_us: u64,
    /// Time the call waited for a worker, in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queued_us: Option<u64>,
    /// What a sandboxed call consumed (fuel, memory, time, output); absent for native tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The call's `meta`, echoed untouched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl Envelope {
    /// A successful envelope.
    pub fn success(id: Option<Value>, tool: impl Into<String>, result: Value) -> Self {
        Envelope {
            id: id.unwrap_or(Value::Null),
            tool: Some(tool.into()),
            success: true,
            result: Some(result),
            error: None,
            error_kind: None,
            fault: None,
            retryable: None,
            partial: None,
            elapsed_us: 0,
            queued_us: None,
            usage: None,
            meta: None,
        }
    }

    /// A failed envelope; `tool` may be empty when it is unknown.
    pub fn failure(id: Option<Value>, tool: impl Into<String>, err: ToolError) -> Self {
        let tool = tool.into();
        Envelope {
            id: id.unwrap_or(Value::Null),
            tool: (!tool.is_empty()).then_some(tool),
            success: false,
            result: None,
            error: Some(clip_message(err.message)),
            error_kind: Some(err.kind),
            fault: Some(err.kind.fault()),
            retryable: Some(err.kind.retryable() || err.transient),
            partial: err.partial.map(|p| *p),
            elapsed_us: 0,
            queued_us: None,
            usage: None,
            meta: None,
        }
    }

    /// The envelope as a [`Result`]: the result value, or the error it carries.
    pub fn into_result(self) -> Result<Value, ToolError> {
        match (self.success, self.result) {
            (true, Some(v)) => Ok(v),
            _ => Err(ToolError {
                kind: self.error_kind.unwrap_or(ErrorKind::Internal),
                message: self.error.unwrap_or_default(),
                partial: self.partial.map(Box::new),
                transient: self.retryable == Some(true)
                    && !self.error_kind.is_some_and(ErrorKind::retryable),
            }),
        }
    }
}

/// The most bytes of an envelope's `error`: messages quote the offending input, and a 14 KB bad expression
/// must not come back whole.
pub const MAX_ERROR_BYTES: usize = 1024;

/// `message` cut to [`MAX_ERROR_BYTES`]: the start (what went wrong) and the end (often the position or the
/// limit) are kept, the middle is replaced by a marker saying how much was cut.
fn clip_message(message: String) -> String {
    if message.len() <= MAX_ERROR_BYTES {
        return message;
    }
    let (head, tail) = head_and_tail(&message, MAX_ERROR_BYTES * 3 / 4, MAX_ERROR_BYTES / 5);
    format!(
        "{head}… [{} bytes cut] …{tail}",
        message.len() - head.len() - tail.len()
    )
}

/// The first `head` and last `tail` bytes of `text` (fewer where a character would be split), for showing a long
/// text as its start and end with a note about the middle. A text of at most `head + tail` bytes is not
/// split: it comes back whole as the head.
pub fn head_and_tail(text: &str, head: usize, tail: usize) -> (&str, &str) {
    if text.len() <= head.saturating_add(tail) {
        return (text, "");
    }
    let mut h = head;
    while !text.is_char_boundary(h) {
        h -= 1;
    }
    let mut t = text.len() - tail;
    while !text.is_char_boundary(t) {
        t += 1;
    }
    (&text[..h], &text[t..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn head_and_tail_cut_on_character_boundaries() {
        use super::head_and_tail;
        assert_eq!(head_and_tail("abcdef", 4, 2), ("abcdef", ""));
        assert_eq!(head_and_tail("abcdefgh", 3, 2), ("abc", "gh"));
        // "é" is two bytes: a cut inside one moves out of it, keeping less rather than splitting it.
        assert_eq!(head_and_tail("éééé", 3, 3), ("é", "é"));
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn a_transient_failure_is_retryable_whatever_its_kind() {
        let down = ToolError::new(ErrorKind::ToolError, "HTTP 503").transient();
        let env = Envelope::failure(None, "wolfram", down.clone());
        assert_eq!(
            (env.error_kind, env.fault, env.retryable),
            (Some(ErrorKind::ToolError), Some(Fault::Tool), Some(true))
        );
        assert_eq!(env.into_result(), Err(down));
        let refused = Envelope::failure(
            None,
            "wolfram",
            ToolError::new(ErrorKind::ToolError, "HTTP 403"),
        );
        assert_eq!(refused.retryable, Some(false));
        assert!(!refused.into_result().is_err_and(|e| e.transient));
    }

    #[test]
    fn long_errors_keep_their_start_and_end() {
        let long = format!("unknown name `{}é` at character 3", "x".repeat(20_000));
        let env = Envelope::failure(None, "calculator", ToolError::invalid_params(long.clone()));
        let e = env.error.unwrap();
        assert!(e.len() <= MAX_ERROR_BYTES + 40, "{}", e.len());
        assert!(e.starts_with("unknown name `xxx"), "{e}");
        assert!(e.ends_with("xxé` at character 3"), "{e}");
        let cut = long.len() - (e.len() - "… [ bytes cut] …".len() - 5);
        assert!(e.contains(&format!("[{cut} bytes cut]")), "{e}");
        let short = Envelope::failure(None, "t", ToolError::invalid_params("short"));
        assert_eq!(short.error.as_deref(), Some("short"));
    }

    #[test]
    fn envelope_fields_in_wire_order() {
        let mut env = Envelope::success(Some(json!(7)), "calculator", json!({"value": "56"}));
        env.elapsed_us = 9;
        assert_eq!(
            serde_json::to_string(&env).unwrap(),
            r#"{"id":7,"tool":"calculator","success":true,"result":{"value":"56"},"elapsed_us":9}"#
        );
        let env = Envelope::failure(None, "calculator", ToolError::domain("division by zero"));
        assert_eq!(
            serde_json::to_string(&env).unwrap(),
            r#"{"id":null,"tool":"calculator","success":false,"error":"division by zero","error_kind":"domain_error","fault":"model","retryable":false,"elapsed_us":0}"#
        );
    }

    #[test]
    fn seeds_are_stable_and_depend_on_the_call() {
        let a = ToolCall::new("t", json!({})).with_id(1);
        let b = ToolCall::new("t", json!({})).with_id(2);
        assert_eq!(a.effective_seed(), a.clone().effective_seed());
        assert_ne!(a.effective_seed(), b.effective_seed());
        let explicit = ToolCall {
            seed: Some(42),
            ..a
        };
        assert_eq!(explicit.effective_seed(), 42);
    }
}
