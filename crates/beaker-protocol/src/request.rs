//! Reading one request: what kind it is, its id, and its fields, or the refusal to send instead.

use crate::plan::PlanRequest;
use crate::scan::scan;
use crate::text::{TemplateRequest, TextRequest};
use beaker_core::{Envelope, ErrorKind, LimitsRequest, ToolCall, ToolError};
use beaker_dialects::{Dialect, ParseOptions};
use beaker_engine::TrajectoryLimits;
use beaker_templates::ChatTemplate;
use serde_json::{Map, Value};

/// The most calls a text request may ask to run (`max_calls`); the default is the dialects' own.
pub const MAX_CALLS_CEILING: usize = 4096;

/// The keys a text-mode request may carry.
pub const TEXT_KEYS: &[&str] = &[
    "id",
    "text",
    "messages",
    "dialect",
    "lenient",
    "include_think",
    "max_calls",
    "limits",
    "tag",
    "dataset",
    "seed",
    "meta",
    "template",
    "chat_template",
    "template_kwargs",
];

/// One request of the protocol.
#[derive(Debug, Clone)]
pub enum Request {
    /// `{"id"?, "tool", "params", "limits"?, "meta"?, "tag"?, "seed"?}`: run one call. `{"id"?, "grade": {...}}` is
    /// read as a call of the `grade` tool with those params.
    Call(ToolCall),
    /// `{"id"?, "cancel": ID}`: cancel the request in flight with that id.
    Cancel {
        /// This request's own id.
        id: Option<Value>,
        /// The id to cancel.
        target: Value,
    },
    /// `{"id"?, "cancel_tag": TAG}`: cancel every request in flight with that tag.
    CancelTag {
        /// This request's own id.
        id: Option<Value>,
        /// The tag.
        tag: String,
    },
    /// `{"id"?, "trajectory": TAG, "limits": {...}}`: set the budgets of a trajectory (opening it).
    Trajectory {
        /// This request's own id.
        id: Option<Value>,
        /// The trajectory's tag.
        tag: String,
        /// Its budgets.
        limits: TrajectoryLimits,
    },
    /// `{"id"?, "stats": TAG}`: what a trajectory has used.
    Stats {
        /// This request's own id.
        id: Option<Value>,
        /// The trajectory's tag.
        tag: String,
    },
    /// `{"id"?, "close": TAG}`: free a trajectory, answering its final figures.
    Close {
        /// This request's own id.
        id: Option<Value>,
        /// The trajectory's tag.
        tag: String,
    },
    /// `{"id"?, "hello": ...}`: what the server is and what it serves.
    Hello {
        /// This request's own id.
        id: Option<Value>,
    },
    /// `{"id"?, "text", ...}`: run every call in a model's text and render the results in its dialect.
    Text {
        /// This request's own id.
        id: Option<Value>,
        /// The text and how to read and run it.
        request: TextRequest,
        /// Echoed untouched in the reply.
        meta: Option<Value>,
    },
    /// `{"id"?, "plan": {"strategy"?, "steps": [...]}, "limits"?, "tag"?, "seed"?, "meta"?}`: execute a
    /// tool plan (seed 004's `tool_plan`, or an assistant message holding one).
    Plan {
        /// This request's own id.
        id: Option<Value>,
        /// The plan.
        plan: PlanRequest,
        /// Echoed untouched in the reply.
        meta: Option<Value>,
    },
    /// `{"id"?, "messages": [...], ...}`: run the pending `tool_calls` of an OpenAI conversation.
    Messages {
        /// This request's own id.
        id: Option<Value>,
        /// The conversation.
        messages: Vec<Value>,
        /// How to run the calls (its `text` is empty).
        request: TextRequest,
        /// Echoed untouched in the reply.
        meta: Option<Value>,
    },
}

/// A request that cannot run, and the error to answer it with.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The request's id, when it could be read.
    pub id: Option<Value>,
    /// The tool it named, when it could be read (empty otherwise).
    pub tool: String,
    /// Why it is refused.
    pub error: ToolError,
}

impl Refusal {
    fn parse(id: Option<Value>, tool: &str, message: impl Into<String>) -> Box<Refusal> {
        Box::new(Refusal {
            id,
            tool: tool.into(),
            error: ToolError::new(ErrorKind::ParseError, message),
        })
    }

    /// The answer: a failed envelope.
    pub fn envelope(&self) -> Envelope {
        Envelope::failure(self.id.clone(), self.tool.clone(), self.error.clone())
    }
}

/// The key that makes a request the kind it is (`{"tool": ...}` a call, `{"plan": ...}` a plan, ...), in the order
/// [`Request::from_json`] looks for them after `tool`. The docs name every one (a tidy test checks).
pub const REQUEST_KEYS: [&str; 11] = [
    "tool",
    "cancel",
    "cancel_tag",
    "hello",
    "trajectory",
    "stats",
    "close",
    "text",
    "messages",
    "plan",
    "grade",
];

impl Request {
    /// Reads one request line; `Ok(None)` for a blank line, which needs no answer. A line that cannot be read
    /// is refused under its id whenever the id itself can be read (from the raw bytes if need be), and a key
    /// repeated in any object is refused, never resolved silently.
    pub fn parse(line: &[u8]) -> Result<Option<Request>, Box<Refusal>> {
        // A UTF-8 byte-order mark (what some Windows tools write first) is not part of the JSON.
        let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let scan = scan(line);
        if let Some(key) = scan.duplicate {
            let msg = format!("the key `{key}` appears twice in one object; give it once");
            return Err(Refusal::parse(recovered_id(scan.id.as_deref()), "", msg));
        }
        if let Some(call) = plain_call(line, scan.id.as_deref()) {
            return Ok(Some(Request::Call(call)));
        }
        Request::long_way(line, scan.id.as_deref()).map(Some)
    }

    /// Reads a line through its `Value` ([`Request::from_json`]), the id kept as the raw scan found it: every
    /// line [`plain_call`] does not read, and every refusal's wording.
    fn long_way(line: &[u8], raw_id: Option<&str>) -> Result<Request, Box<Refusal>> {
        let mut value: Value = serde_json::from_slice(line).map_err(|e| {
            Refusal::parse(
                recovered_id(raw_id),
                "",
                format!("the request is not valid JSON: {e}"),
            )
        })?;
        if let (Some(id @ Value::Number(_)), Some(raw)) = (value.get_mut("id"), raw_id) {
            *id = as_written(id.clone(), raw);
        }
        Request::from_json(value)
    }

    /// The refusal for a line longer than `max` bytes, of which `prefix` was kept: under the line's id when
    /// the prefix holds it.
    pub fn too_long(prefix: &[u8], len: usize, max: usize) -> Box<Refusal> {
        let msg = format!("the request line is {len} bytes; the limit is {max}");
        Refusal::parse(id_in(prefix), "", msg)
    }

    /// Reads one request from its JSON; [`REQUEST_KEYS`] says which key makes it which kind.
    pub fn from_json(value: Value) -> Result<Request, Box<Refusal>> {
        let Value::Object(mut obj) = value else {
            return Err(Refusal::parse(None, "", "a request must be a JSON object"));
        };
        let id = match obj.get("id") {
            None | Some(Value::Null) => None,
            Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
            Some(other) => {
                return Err(Refusal::parse(
                    None,
                    "",
                    format!("`id` must be a string or a number, got {other}"),
                ))
            }
        };
        if !obj.contains_key("tool") {
            if let Some(target) = obj.remove("cancel") {
                return Ok(Request::Cancel { id, target });
            }
            if let Some(tag) = obj.remove("cancel_tag") {
                let Value::String(tag) = tag else {
                    return Err(Refusal::parse(id, "", "`cancel_tag` must be a string"));
                };
                return Ok(Request::CancelTag { id, tag });
            }
            if obj.contains_key("hello") {
                return Ok(Request::Hello { id });
            }
            for key in ["trajectory", "stats", "close"] {
                if obj.contains_key(key) {
                    return trajectory_request(id, key, obj);
                }
            }
            if obj.contains_key("text") || obj.contains_key("messages") {
                return text_request(id, obj);
            }
            if obj.contains_key("plan") {
                return plan_request(id, obj);
            }
            // `{"grade": {...}}` is a call of the `grade` tool with those params (limits, tag and meta as any call).
            if let Some(params) = obj.remove("grade") {
                if obj.contains_key("params") {
                    let msg = "`grade` holds the grade tool's params; give no `params` with it";
                    return Err(Refusal::parse(id, "grade", msg));
                }
                obj.insert("tool".into(), Value::String("grade".into()));
                obj.insert("params".into(), params);
            }
        }
        let tool = obj
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        check_numbers(&obj).map_err(|msg| Refusal::parse(id.clone(), &tool, msg))?;
        // `from_value` rewrites some numbers (`-0` as `0`); params and meta go to the tool and back to the client
        // as written, as `plain_call` reads them.
        let written = (obj.get("params").cloned(), obj.get("meta").cloned());
        match serde_json::from_value::<ToolCall>(Value::Object(obj)) {
            Ok(mut call) => {
                // Deserializing normalizes a number's text (`1e2` to `1e+2`); the id read above is as written.
                call.id = id;
                if let Some(params) = written.0 {
                    call.params = params;
                }
                if let Some(meta) = written.1.filter(|m| !m.is_null()) {
                    call.meta = Some(meta);
                }
                Ok(Request::Call(call))
            }
            Err(e) => Err(Refusal::parse(id, &tool, format!("invalid request: {e}"))),
        }
    }

    /// The request's own id.
    pub fn id(&self) -> Option<&Value> {
        match self {
            Request::Call(c) => c.id.as_ref(),
            Request::Cancel { id, .. }
            | Request::CancelTag { id, .. }
            | Request::Hello { id }
            | Request::Trajectory { id, .. }
            | Request::Stats { id, .. }
            | Request::Close { id, .. }
            | Request::Text { id, .. }
            | Request::Plan { id, .. }
            | Request::Messages { id, .. } => id.as_ref(),
        }
    }

    /// The tool a call names (empty for every other kind).
    pub fn tool(&self) -> &str {
        match self {
            Request::Call(c) => &c.tool,
            _ => "",
        }
    }

    /// The trajectory the tools a request runs count against (`tag`), if any.
    pub fn tag(&self) -> Option<&str> {
        match self {
            Request::Call(c) => c.tag.as_deref(),
            Request::Text { request, .. } | Request::Messages { request, .. } => {
                request.tag.as_deref()
            }
            Request::Plan { plan, .. } => plan.tag.as_deref(),
            _ => None,
        }
    }

    /// Whether the request runs tools, and so holds an in-flight slot until it is answered. Control
    /// requests (`cancel`, `cancel_tag`, `hello`) are answered at once and hold none.
    pub fn holds_slot(&self) -> bool {
        matches!(
            self,
            Request::Call(_)
                | Request::Text { .. }
                | Request::Messages { .. }
                | Request::Plan { .. }
        )
    }
}

/// A text request's options, as typed values (the command line's `run-text` flags give the same).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TextOptions {
    /// `dialect`: a dialect name, or `auto` (also `None`) to detect it.
    pub dialect: Option<String>,
    /// `lenient`: repair the calls' JSON.
    pub lenient: bool,
    /// `include_think`: also run calls inside `<think>…</think>` blocks.
    pub include_think: bool,
    /// `max_calls`: most calls to run (clamped to [`MAX_CALLS_CEILING`]).
    pub max_calls: Option<u64>,
    /// `limits` for every call.
    pub limits: LimitsRequest,
    /// `tag`: the trajectory the calls belong to.
    pub tag: Option<String>,
    /// `dataset`: the dataset the calls read.
    pub dataset: Option<String>,
    /// `seed` the calls' seeds derive from.
    pub seed: Option<u64>,
    /// `template` (a built-in name) or `chat_template` (Jinja source) with `template_kwargs`.
    pub template: Option<TemplateRequest>,
}

impl TextOptions {
    /// The [`TextRequest`] for `text` with these options; an unknown dialect is an error naming the known ones.
    pub fn into_request(self, text: String) -> Result<TextRequest, String> {
        let max_calls = match self.max_calls {
            None => beaker_dialects::DEFAULT_MAX_CALLS,
            Some(n) => usize::try_from(n)
                .unwrap_or(usize::MAX)
                .min(MAX_CALLS_CEILING),
        };
        Ok(TextRequest {
            text,
            options: ParseOptions {
                dialect: parse_dialect(self.dialect.as_deref().unwrap_or("auto"))?,
                lenient: self.lenient,
                include_think: self.include_think,
                max_calls,
                ..ParseOptions::default()
            },
            limits: self.limits,
            tag: self.tag,
            dataset: self.dataset,
            seed: self.seed,
            key: String::new(),
            template: self.template,
        })
    }
}

/// Reads a plan request; the request's `limits`, `tag` and `seed` apply to every step (a plan's own
/// `limits`, and a step's, win over them).
fn plan_request(id: Option<Value>, mut obj: Map<String, Value>) -> Result<Request, Box<Refusal>> {
    check_numbers(&obj).map_err(|msg| Refusal::parse(id.clone(), "", msg))?;
    let refuse = |id: &Option<Value>, error: ToolError| {
        Box::new(Refusal {
            id: id.clone(),
            tool: String::new(),
            error,
        })
    };
    let mut plan_json = obj.remove("plan").unwrap_or(Value::Null);
    // An assistant message (seed 004) holds its plan under `tool_plan`.
    if let Some(inner) = plan_json.get("tool_plan").cloned() {
        plan_json = inner;
    }
    let mut plan = PlanRequest::from_json(&plan_json).map_err(|e| refuse(&id, e))?;
    if plan_json.get("limits").is_none() {
        if let Some(l) = obj.get("limits") {
            plan.limits = serde_json::from_value(l.clone())
                .map_err(|e| Refusal::parse(id.clone(), "", format!("invalid `limits`: {e}")))?;
        }
    }
    if let Some(tag) = obj.get("tag") {
        let Value::String(tag) = tag else {
            return Err(Refusal::parse(id, "", "`tag` must be a string"));
        };
        plan.tag = Some(tag.clone());
    }
    if let Some(seed) = obj.get("seed").and_then(Value::as_u64) {
        plan.seed = Some(seed);
    }
    if let Some(dataset) = obj.get("dataset") {
        let Value::String(dataset) = dataset else {
            return Err(Refusal::parse(id, "", "`dataset` must be a string"));
        };
        plan.dataset = Some(dataset.clone());
    }
    for key in obj.keys() {
        if !matches!(
            key.as_str(),
            "id" | "limits" | "tag" | "dataset" | "seed" | "meta"
        ) {
            let msg = format!(
                "unknown key `{key}` in a plan request (id, plan, limits, tag, dataset, seed, meta)"
            );
            return Err(Refusal::parse(id, "", msg));
        }
    }
    Ok(Request::Plan {
        id,
        plan,
        meta: obj.remove("meta"),
    })
}

/// The top-level `"id"` a line (or the first bytes of one) holds, as written, when it is a string or a number:
/// what an answer to a line that cannot be parsed carries (the stdio server's refusals, MCP's parse errors).
pub fn id_in(line: &[u8]) -> Option<Value> {
    recovered_id(scan(line).id.as_deref())
}

/// An id read from the raw line, when it is a string or a number.
fn recovered_id(raw: Option<&str>) -> Option<Value> {
    let raw = raw?;
    serde_json::from_str::<Value>(raw)
        .ok()
        .filter(|v| v.is_string() || v.is_number())
        .map(|v| as_written(v, raw))
}

/// A numeric id that serializes as the client wrote it (`1e2`, `-0`, `5.0`), not as the parser normalizes it
/// (`1e+2`, `0`): the client matches answers to requests by the bytes it sent. `raw` is the id's text as the
/// scan found it, which for a line that parsed is the same number token.
fn as_written(id: Value, raw: &str) -> Value {
    match id {
        // Most ids are read as written already (`7`, `123`); only `1e2`-like ones change on the way in.
        Value::Number(ref n) if n.as_str() == raw => id,
        Value::Number(_) if serde_json::from_str::<serde_json::Number>(raw).is_ok() => {
            Value::Number(serde_json::Number::from_string_unchecked(raw.to_string()))
        }
        other => other,
    }
}

/// The identity of an id: two ids are the same when both are strings with the same characters, or both
/// numbers with the same value (`5`, `5.0` and `5e0` are one id; so are `0` and `-0`; integers compare exactly
/// up to 64 bits, other numbers as doubles).
pub fn id_key(id: &Value) -> String {
    let mut key = String::new();
    push_id_key(&mut key, id);
    key
}

/// Appends [`id_key`]'s text to `out`, so a caller that prefixes it builds one string.
pub(crate) fn push_id_key(out: &mut String, id: &Value) {
    use std::fmt::Write;
    // Writing into a String cannot fail.
    let _ = match id {
        Value::String(s) => write!(out, "s{s}"),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                write!(out, "n{i}")
            } else if let Some(u) = n.as_u64() {
                write!(out, "n{u}")
            } else {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if x.fract() == 0.0 && x.abs() < 9.2e18 {
                    write!(out, "n{}", x as i64)
                } else {
                    write!(out, "f{x:?}")
                }
            }
        }
        other => write!(out, "o{other}"),
    };
}

/// Checks the numbers a call carries besides its params (`seed`, each of `limits`), so a bad one is refused
/// with its name and the range it must be in, not a bare "invalid number".
fn check_numbers(obj: &Map<String, Value>) -> Result<(), String> {
    if let Some(seed) = obj.get("seed") {
        if !seed.is_null() && seed.as_u64().is_none() {
            return Err(format!(
                "`seed` must be an integer from 0 to {}, got {seed}",
                u64::MAX
            ));
        }
    }
    match obj.get("limits") {
        Some(Value::Object(limits)) => check_limits(limits)?,
        // Serde reads limits given as an array by position; each is held to the same bound.
        Some(Value::Array(values)) => {
            if let Some(v) = values.iter().find(|v| !limit_ok(v)) {
                return Err(format!(
                    "each of `limits` must be an integer from 1 to {}, got {v}",
                    u64::MAX
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Each limit a request asks for is an integer of at least 1 (0 would silently mean 1).
fn check_limits(limits: &Map<String, Value>) -> Result<(), String> {
    for (name, v) in limits {
        if !limit_ok(v) {
            return Err(format!(
                "`limits.{name}` must be an integer from 1 to {}, got {v}",
                u64::MAX
            ));
        }
    }
    Ok(())
}

/// A limit is absent (`null`) or an integer of at least 1.
fn limit_ok(v: &Value) -> bool {
    v.is_null() || v.as_u64().is_some_and(|n| n >= 1)
}

/// A dialect by name; `auto` is `None` (detect it).
pub fn parse_dialect(name: &str) -> Result<Option<Dialect>, String> {
    if name == "auto" {
        return Ok(None);
    }
    Dialect::from_name(name).map(Some).ok_or_else(|| {
        format!("unknown dialect `{name}` (auto, svend, tagged, hermes, fenced, openai, mistral, deepseek)")
    })
}

/// A call read from its line straight into a [`ToolCall`] (only `params` and `meta` become `Value`s), when the
/// line is a call the long way ([`Request::from_json`] on the line's `Value`) would accept as it stands; `None`
/// sends it the long way, which words every refusal. The long way builds the request object and then `params`
/// a second time, key by key (issue 39: allocations per call); both give the same call
/// (`plain_calls_read_as_the_long_way_reads_them`).
fn plain_call(line: &[u8], raw_id: Option<&str>) -> Option<ToolCall> {
    // serde reads a struct from an array too (`[1, "calculator"]`, fields by position); a request is an object.
    if line.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    // A line with `tool` is a call whatever else it holds, and `ToolCall` refuses unknown keys: a line this reads
    // is one `from_json` would read as a call.
    let mut call: ToolCall = serde_json::from_slice(line).ok()?;
    match call.id.take() {
        None => {}
        Some(id @ Value::String(_)) => call.id = Some(id),
        Some(id @ Value::Number(_)) => {
            call.id = Some(match raw_id {
                Some(raw) => as_written(id, raw),
                None => id,
            })
        }
        Some(_) => return None,
    }
    if call.limits != LimitsRequest::default() {
        let Ok(Value::Object(limits)) = serde_json::to_value(call.limits) else {
            return None;
        };
        check_limits(&limits).ok()?;
    }
    Some(call)
}

/// `{"trajectory", "limits"}`, `{"stats"}` or `{"close"}`, with the tag a string; unknown keys are refused.
fn trajectory_request(
    id: Option<Value>,
    key: &str,
    obj: Map<String, Value>,
) -> Result<Request, Box<Refusal>> {
    let refuse = |msg: String| Refusal::parse(id.clone(), "", msg);
    let allowed: &[&str] = if key == "trajectory" {
        &["id", "trajectory", "limits"]
    } else {
        &["id", key]
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(refuse(format!(
            "unknown key `{k}` in a `{key}` request (allowed: {})",
            allowed.join(", ")
        )));
    }
    let tag = match obj.get(key) {
        Some(Value::String(t)) if !t.is_empty() => t.clone(),
        Some(other) => {
            return Err(refuse(format!(
                "`{key}` must be a trajectory's tag (a non-empty string), got {other}"
            )))
        }
        None => unreachable!("the key was seen"),
    };
    Ok(match key {
        "trajectory" => {
            let limits = match obj.get("limits") {
                None => return Err(refuse("a `trajectory` request sets `limits`: {\"max_calls\", \"max_total_ms\", \"max_output_bytes\"}".into())),
                Some(l) => serde_json::from_value::<TrajectoryLimits>(l.clone())
                    .map_err(|e| refuse(format!("invalid trajectory `limits`: {e}")))?,
            };
            Request::Trajectory { id, tag, limits }
        }
        "stats" => Request::Stats { id, tag },
        _ => Request::Close { id, tag },
    })
}

/// `{"text"}` or `{"messages"}` with its options; unknown keys are refused.
fn text_request(id: Option<Value>, obj: Map<String, Value>) -> Result<Request, Box<Refusal>> {
    let refuse = |msg: String| Refusal::parse(id.clone(), "", msg);
    if let Some(k) = obj.keys().find(|k| !TEXT_KEYS.contains(&k.as_str())) {
        return Err(refuse(format!(
            "unknown key `{k}` in a text request (allowed: {})",
            TEXT_KEYS.join(", ")
        )));
    }
    let text = match obj.get("text") {
        None => String::new(),
        Some(Value::String(t)) => t.clone(),
        Some(other) => return Err(refuse(format!("`text` must be a string, got {other}"))),
    };
    let options = text_options(&obj).map_err(&refuse)?;
    let mut request = options.into_request(text).map_err(&refuse)?;
    request.key = id.as_ref().map(Value::to_string).unwrap_or_default();
    let meta = obj.get("meta").cloned();
    match obj.get("messages") {
        None => Ok(Request::Text { id, request, meta }),
        Some(Value::Array(messages)) => Ok(Request::Messages {
            id,
            messages: messages.clone(),
            request,
            meta,
        }),
        Some(_) => Err(refuse("`messages` must be an array".into())),
    }
}

/// Reads a text request's options (everything but `id`, `text`/`messages` and `meta`).
fn text_options(obj: &Map<String, Value>) -> Result<TextOptions, String> {
    let dialect = match obj.get("dialect") {
        None | Some(Value::Null) => None,
        Some(Value::String(d)) => Some(d.clone()),
        Some(other) => return Err(format!("`dialect` must be a string, got {other}")),
    };
    let lenient = match obj.get("lenient") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`lenient` must be a boolean, got {other}")),
    };
    let include_think = match obj.get("include_think") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`include_think` must be a boolean, got {other}")),
    };
    let limits = match obj.get("limits") {
        None => LimitsRequest::default(),
        Some(l) => {
            if let Value::Object(m) = l {
                check_limits(m)?;
            }
            serde_json::from_value(l.clone()).map_err(|e| format!("invalid `limits`: {e}"))?
        }
    };
    let tag = match obj.get("tag") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => return Err(format!("`tag` must be a string, got {other}")),
    };
    let dataset = match obj.get("dataset") {
        None => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => return Err(format!("`dataset` must be a string, got {other}")),
    };
    let max_calls = match obj.get("max_calls") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| format!("`max_calls` must be a non-negative integer, got {v}"))?,
        ),
    };
    let seed =
        match obj.get("seed") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or_else(|| {
                format!("`seed` must be an integer from 0 to {}, got {v}", u64::MAX)
            })?),
        };
    Ok(TextOptions {
        dialect,
        include_think,
        lenient,
        max_calls,
        limits,
        tag,
        dataset,
        seed,
        template: template_option(obj)?,
    })
}

/// `template` or `chat_template`, with `template_kwargs` (whose `bos_token`/`eos_token` a `chat_template`
/// reads as its special tokens), from a request's fields.
pub fn template_option(obj: &Map<String, Value>) -> Result<Option<TemplateRequest>, String> {
    let kwargs = match obj.get("template_kwargs") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(other) => return Err(format!("`template_kwargs` must be an object, got {other}")),
    };
    let template = match (obj.get("template"), obj.get("chat_template")) {
        (Some(_), Some(_)) => {
            return Err(
                "give `template` (a built-in) or `chat_template` (Jinja source), not both".into(),
            )
        }
        (Some(Value::String(name)), None) => {
            ChatTemplate::builtin(name).map_err(|e| e.to_string())?
        }
        (None, Some(Value::String(source))) => {
            for k in ["bos_token", "eos_token"] {
                if let Some(v) = kwargs.get(k).filter(|v| !v.is_string()) {
                    return Err(format!("`template_kwargs.{k}` must be a string, got {v}"));
                }
            }
            let token = |k: &str| kwargs.get(k).and_then(Value::as_str).unwrap_or("");
            ChatTemplate::from_source(source, token("bos_token"), token("eos_token"))
                .map_err(|e| e.to_string())?
        }
        (Some(other), None) => return Err(format!("`template` must be a string, got {other}")),
        (None, Some(other)) => {
            return Err(format!("`chat_template` must be a string, got {other}"))
        }
        (None, None) if !kwargs.is_empty() => {
            return Err("`template_kwargs` needs a `template` or `chat_template`".into())
        }
        (None, None) => return Ok(None),
    };
    Ok(Some(TemplateRequest { template, kwargs }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_kept_as_written_and_equal_by_value() {
        let id = |line: &str| match Request::parse(line.as_bytes()) {
            Ok(Some(r)) => r.id().cloned(),
            Ok(None) => None,
            Err(refusal) => refusal.id,
        };
        for raw in [
            "1e2",
            "-0",
            "5.0",
            "0.10",
            "1E+2",
            "99999999999999999999999",
        ] {
            let got = id(&format!(r#"{{"id": {raw}, "tool": "calculator"}}"#));
            assert_eq!(serde_json::to_string(&got).unwrap(), raw);
            let refused = id(&format!(
                r#"{{"id": {raw}, "tool": "calculator", "x": 1, "x": 2}}"#
            ));
            assert_eq!(serde_json::to_string(&refused).unwrap(), raw);
        }
        let key = |raw: &str| id_key(&serde_json::from_str(raw).unwrap());
        assert_eq!(key("5"), key("5.0"));
        assert_eq!(key("5"), key("5e0"));
        assert_eq!(key("500e-2"), key("5"));
        assert_eq!(key("0"), key("-0"));
        assert_eq!(key("0.1"), key("0.10"));
        assert_ne!(key("5"), key("\"5\""));
        assert_ne!(key("5"), key("6"));
        assert_ne!(key("18446744073709551615"), key("18446744073709551614"));
        assert_eq!(key("\"a\""), key("\"\\u0061\""));
    }

    #[test]
    fn plain_calls_read_as_the_long_way_reads_them() {
        // Each line is read by `plain_call` or left to the long way; a call it reads is the call the long way
        // reads from the same line, numbers as written included.
        let long_way = |line: &str| {
            let raw = scan(line.as_bytes()).id;
            match Request::long_way(line.as_bytes(), raw.as_deref()) {
                Ok(Request::Call(call)) => Some(call),
                _ => None,
            }
        };
        let mut plain = 0;
        for line in include_str!("../testdata/calls.jsonl").lines() {
            let raw = scan(line.as_bytes()).id;
            if let Some(call) = plain_call(line.as_bytes(), raw.as_deref()) {
                plain += 1;
                let theirs =
                    long_way(line).unwrap_or_else(|| panic!("the long way refuses {line}"));
                assert_eq!(
                    serde_json::to_string(&call).unwrap(),
                    serde_json::to_string(&theirs).unwrap(),
                    "{line}"
                );
                assert_eq!(call, theirs, "{line}");
            }
        }
        assert!(plain >= 10, "only {plain} lines read as plain calls");
        // And whole lines: `Request::parse` (fast path first) makes a call exactly when the long way does.
        for line in include_str!("../testdata/calls.jsonl").lines() {
            let parsed = match Request::parse(line.as_bytes()) {
                Ok(Some(Request::Call(call))) => Some(call),
                _ => None,
            };
            assert_eq!(parsed, long_way(line), "{line}");
            // Params and meta are the line's own, numbers as written (`-0`, `1e2`, `0.10`).
            if let Some(call) = parsed {
                let written: Value = serde_json::from_str(line).unwrap();
                let text = |v: Option<&Value>| v.map(|v| v.to_string());
                let params = written.get("params").cloned().unwrap_or(json!({}));
                assert_eq!(call.params.to_string(), params.to_string(), "{line}");
                let meta = written.get("meta").filter(|m| !m.is_null());
                assert_eq!(text(call.meta.as_ref()), text(meta), "{line}");
            }
        }
    }

    #[test]
    fn every_request_key_makes_its_kind() {
        let line = |key: &str| match key {
            "tool" => r#"{"tool": "calculator", "params": {}}"#.to_string(),
            "cancel" => r#"{"cancel": 1}"#.to_string(),
            "hello" => r#"{"hello": {}}"#.to_string(),
            "trajectory" => r#"{"trajectory": "t", "limits": {}}"#.to_string(),
            "text" => r#"{"text": "x"}"#.to_string(),
            "messages" => r#"{"messages": []}"#.to_string(),
            "plan" => {
                r#"{"plan": {"steps": [{"step_id": "a", "tool": "calculator", "params": {}}]}}"#
                    .to_string()
            }
            "grade" => r#"{"grade": {"answer": "1", "reference": "1"}}"#.to_string(),
            other => format!(r#"{{"{other}": "t"}}"#),
        };
        let mut kinds = std::collections::BTreeSet::new();
        for key in super::REQUEST_KEYS {
            let parsed = Request::parse(line(key).as_bytes());
            let kind = match &parsed {
                Ok(Some(Request::Call(c))) if c.tool == "grade" => "grade",
                other => kind_of(other),
            };
            assert!(
                kind != "refused" && kind != "blank",
                "{key}: {:?}",
                parsed.err().map(|r| r.envelope())
            );
            kinds.insert(kind);
        }
        assert_eq!(kinds.len(), super::REQUEST_KEYS.len());
    }

    /// The kind of a parsed request, by name.
    fn kind_of(parsed: &Result<Option<Request>, Box<Refusal>>) -> &'static str {
        match parsed {
            Ok(Some(Request::Call(_))) => "call",
            Ok(Some(Request::Cancel { .. })) => "cancel",
            Ok(Some(Request::CancelTag { .. })) => "cancel_tag",
            Ok(Some(Request::Trajectory { .. })) => "trajectory",
            Ok(Some(Request::Stats { .. })) => "stats",
            Ok(Some(Request::Close { .. })) => "close",
            Ok(Some(Request::Hello { .. })) => "hello",
            Ok(Some(Request::Text { .. })) => "text",
            Ok(Some(Request::Messages { .. })) => "messages",
            Ok(Some(Request::Plan { .. })) => "plan",
            Ok(None) => "blank",
            Err(_) => "refused",
        }
    }

    #[test]
    fn kinds_are_told_apart() {
        let kind = |line: &str| kind_of(&Request::parse(line.as_bytes()));
        assert_eq!(kind(r#"{"tool": "calculator", "params": {}}"#), "call");
        assert_eq!(kind(r#"{"cancel": 3}"#), "cancel");
        assert_eq!(kind(r#"{"cancel_tag": "t"}"#), "cancel_tag");
        assert_eq!(kind(r#"{"cancel_tag": 3}"#), "refused");
        assert_eq!(
            kind(r#"{"trajectory": "t", "limits": {"max_calls": 3}}"#),
            "trajectory"
        );
        assert_eq!(kind(r#"{"stats": "t"}"#), "stats");
        assert_eq!(kind(r#"{"close": "t"}"#), "close");
        for bad in [
            r#"{"trajectory": "t"}"#,
            r#"{"trajectory": "t", "limits": {"max_call": 3}}"#,
            r#"{"trajectory": "t", "limits": {"max_calls": -1}}"#,
            r#"{"stats": ""}"#,
            r#"{"close": 5}"#,
            r#"{"stats": "t", "tag": "u"}"#,
        ] {
            assert_eq!(kind(bad), "refused", "{bad}");
        }
        assert_eq!(kind(r#"{"hello": true}"#), "hello");
        assert_eq!(
            kind(r#"{"grade": {"answer": "1", "reference": "1"}, "tag": "t"}"#),
            "call"
        );
        assert_eq!(kind(r#"{"grade": {}, "params": {}}"#), "refused");
        assert_eq!(kind(r#"{"grade": {}, "bogus": 1}"#), "refused");
        match Request::parse(
            br#"{"id": 1, "grade": {"answer": "2"}, "limits": {"timeout_ms": 50}}"#,
        ) {
            Ok(Some(Request::Call(c))) => {
                assert_eq!(
                    (c.tool.as_str(), &c.params),
                    ("grade", &json!({"answer": "2"}))
                );
                assert_eq!(c.limits.timeout_ms, Some(50));
            }
            other => panic!("a grade request is a call of `grade`: {other:?}"),
        }
        assert_eq!(kind(r#"{"text": "x"}"#), "text");
        assert_eq!(kind(r#"{"messages": []}"#), "messages");
        assert_eq!(kind(r#"{"messages": 3}"#), "refused");
        assert_eq!(kind(r#"{"plan": {"steps": []}}"#), "plan");
        assert_eq!(kind(r#"{"plan": {"tool_plan": {"steps": []}}}"#), "plan");
        assert_eq!(kind(r#"{"plan": {"steps": []}, "tag": 3}"#), "refused");
        assert_eq!(kind(r#"{"plan": {"steps": []}, "seed": -1}"#), "refused");
        assert_eq!(kind("  \t "), "blank");
        assert_eq!(kind("[1]"), "refused");
        assert_eq!(kind(r#"{"id": [1], "tool": "x"}"#), "refused");
    }

    #[test]
    fn a_refusal_keeps_the_id_and_tool_it_could_read() {
        let r = Request::parse(br#"{"id": 7, "tool": "calculator", "params": {}, "bogus": 1}"#);
        let r = r.err().map(|r| (r.id, r.tool, r.error.kind));
        assert_eq!(
            r,
            Some((Some(json!(7)), "calculator".into(), ErrorKind::ParseError))
        );
    }

    #[test]
    fn bad_lines_are_refused_under_their_id() {
        let refused = |line: &[u8]| Request::parse(line).err().map(|r| (r.id, r.error.message));
        let (id, msg) = refused(
            br#"{"id": 8, "tool": "calculator", "params": {"expression": "\ud800"}, "x": }"#,
        )
        .unwrap();
        assert_eq!((id, msg.contains("not valid JSON")), (Some(json!(8)), true));
        let mut bytes = br#"{"id": "q", "tool": "calculator", "params": {"expression": ""#.to_vec();
        bytes.extend([0xff, b'"', b'}', b'}']);
        assert_eq!(refused(&bytes).unwrap().0, Some(json!("q")));
        let (id, msg) =
            refused(br#"{"id": 7, "tool": "calculator", "tool": "unit_converter"}"#).unwrap();
        assert_eq!(id, Some(json!(7)));
        assert!(msg.contains("`tool` appears twice"), "{msg}");
        let r = Request::too_long(
            br#"{"id": 99, "tool": "calculator", "params": {"expression": "1+1+1"#,
            1 << 30,
            1 << 24,
        );
        assert_eq!(r.id, Some(json!(99)));
        assert!(r.error.message.contains("the limit is 16777216"));
    }

    #[test]
    fn bad_numbers_name_their_field_and_range() {
        for (line, field) in [
            (
                r#"{"id": 1, "tool": "t", "seed": -1}"#,
                "`seed` must be an integer from 0 to",
            ),
            (
                r#"{"id": 1, "tool": "t", "seed": 1.5}"#,
                "`seed` must be an integer from 0 to",
            ),
            (
                r#"{"id": 1, "tool": "t", "limits": {"timeout_ms": -1}}"#,
                "`limits.timeout_ms` must be an integer from 1 to",
            ),
            (
                r#"{"id": 1, "tool": "t", "limits": {"timeout_ms": 1.5}}"#,
                "`limits.timeout_ms`",
            ),
            (
                r#"{"id": 1, "tool": "t", "limits": {"timeout_ms": 0}}"#,
                "`limits.timeout_ms`",
            ),
            (
                r#"{"id": 1, "text": "x", "limits": {"max_fuel": 0}}"#,
                "`limits.max_fuel`",
            ),
            (
                r#"{"id": 1, "text": "x", "seed": -2}"#,
                "`seed` must be an integer from 0 to",
            ),
        ] {
            let r = Request::parse(line.as_bytes()).err();
            let msg = r
                .as_ref()
                .map(|r| r.error.message.clone())
                .unwrap_or_default();
            assert!(msg.contains(field), "{line}: {msg}");
            assert_eq!(r.and_then(|r| r.id), Some(json!(1)), "{line}");
        }
    }

    #[test]
    fn text_options_are_checked_and_clamped() {
        let req = Request::parse(
            br#"{"id": "a", "text": "t", "max_calls": 100000, "dialect": "hermes"}"#,
        );
        let Ok(Some(Request::Text { request, .. })) = req else {
            panic!("{req:?}")
        };
        assert_eq!(request.options.max_calls, MAX_CALLS_CEILING);
        assert_eq!(request.options.dialect, Some(Dialect::Hermes));
        assert_eq!(request.key, "\"a\"");
        for bad in [
            r#"{"text": "t", "dialect": "klingon"}"#,
            r#"{"text": "t", "lenient": 1}"#,
            r#"{"text": "t", "seed": -1}"#,
            r#"{"text": "t", "limits": {"nope": 1}}"#,
            r#"{"text": "t", "extra": 1}"#,
            r#"{"text": 5}"#,
        ] {
            assert!(Request::parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
