//! How each family of markers frames a call, one type per framing: what follows its start marker, where its
//! name and arguments are, what closes it, and what calls its JSON holds. The streaming steps in `super` are the
//! same for every framing and ask it whenever they must choose; adding a dialect is adding one type here and
//! listing it in [`MARKED`] (or, without a start marker, starting it where the text starts, as [`BARE`]).

use super::{
    is_ws, json_error, prefix, Action, Cursor, Found, Pending, Phase, Prefix, ARGS_MISTRAL,
    ARGS_SVEND, CLOSE_DEEPSEEK, CLOSE_SVEND, CLOSE_TAG, FENCE, FENCE_LINE, MAX_NAME, NAME_SVEND,
    OPEN_DEEPSEEK, OPEN_FENCE, OPEN_MISTRAL, OPEN_SVEND, OPEN_TAG,
};
use crate::extract::{self, Fields};
use crate::scan::Scanner;
use crate::{lenient, Dialect, ParseOptions};
use serde_json::{Map, Value};

const CALL_DEEPSEEK: &str = "<｜tool▁call▁begin｜>";
const CALL_END_DEEPSEEK: &str = "<｜tool▁call▁end｜>";
const SEP_DEEPSEEK: &str = "<｜tool▁sep｜>";

/// One way a call is framed in text. Every method but the first three has the answer most framings give.
pub(super) trait Framing: Sync {
    /// Whether a text request for `dialect` reads calls framed this way.
    fn serves(&self, dialect: Dialect) -> bool;

    /// The phase after the start marker.
    fn first_phase(&self) -> Phase;

    /// The dialect a call is in, given what its JSON named (a tagged call naming `name` is Hermes).
    fn dialect(&self, scanner: &Scanner) -> Dialect;

    /// The marker the call starts with; `None` for a framing found another way ([`BARE`]).
    fn open(&self) -> Option<&'static [u8]> {
        None
    }

    /// What follows the start marker and its whitespace, at `b[p]`: `None` when the phase moved on, or the
    /// action to take.
    fn after_open(
        &self,
        call: &mut Pending,
        _b: &[u8],
        _p: usize,
        _cx: &mut Cursor<'_>,
    ) -> Option<Action> {
        let _ = call;
        Some(Action::Reject)
    }

    /// Between a tool name and its arguments, and how messages name it.
    fn name_separator(&self) -> (&'static [u8], &'static str) {
        (ARGS_SVEND, "<|tool_args|>")
    }

    /// Whether the call ends where its JSON ends (no close marker).
    fn ends_with_json(&self) -> bool {
        false
    }

    /// The marker that closes the call after its JSON, and how messages name it.
    fn close_after_json(&self) -> (&'static [u8], &'static str) {
        (FENCE, "``` to close the code fence")
    }

    /// The marker a call that went wrong is skipped to; `None` when it has none.
    fn close_marker(&self) -> Option<&'static [u8]> {
        None
    }

    /// Whether the region is surely a call (a fenced or bare JSON block is one only with both keys).
    fn committed(&self, _scanner: &Scanner) -> bool {
        true
    }

    /// Whether a region that never became a call is plain text (up to where it ended); otherwise the start
    /// marker alone is text.
    fn uncommitted_is_text(&self) -> bool {
        false
    }

    /// Whether the call is announced once its JSON names the tool (a svend call announces its name on its own).
    fn announces_from_json(&self) -> bool {
        true
    }

    /// The tool the call names so far.
    fn tool(&self, call: &Pending) -> Option<String> {
        call.scanner.name.clone()
    }

    /// Where the text ends when the JSON, delimited at `json_end` and closed at `end`, holds no call.
    fn text_end(&self, _json_end: usize, end: usize) -> usize {
        end
    }

    /// The calls the JSON `value` holds, or the action when it holds none.
    fn resolve(
        &self,
        call: &Pending,
        value: Value,
        end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>>;
}

/// The framings with a start marker, in the order they are looked for.
pub(super) const MARKED: [&dyn Framing; 5] = [&SVEND, &TAG, &FENCED, &MISTRAL, &DEEPSEEK];

/// Svend: `<|tool_call|><|tool_name|>NAME<|tool_args|>{…}<|/tool_call|>` (and the deprecated `NAME(ARGS)`).
pub(super) struct Svend;
/// `<tool_call>{…}</tool_call>`: tagged (`tool`/`params`) or Hermes (`name`/`arguments`).
pub(super) struct Tag;
/// A ```` ```json ```` fence holding a call-shaped object.
pub(super) struct Fenced;
/// A bare JSON object at the start of the text (a call, or OpenAI's `{"tool_calls": [...]}`).
pub(super) struct Bare;
/// Mistral: `[TOOL_CALLS][{…}]`, or v11's `[TOOL_CALLS]NAME[ARGS]{…}`.
pub(super) struct Mistral;
/// DeepSeek: a calls block, read whole once its close marker arrives.
pub(super) struct Deepseek;

pub(super) static SVEND: Svend = Svend;
pub(super) static TAG: Tag = Tag;
pub(super) static FENCED: Fenced = Fenced;
pub(super) static BARE: Bare = Bare;
pub(super) static MISTRAL: Mistral = Mistral;
pub(super) static DEEPSEEK: Deepseek = Deepseek;

/// `{` or `[` at `b[p]` starts the JSON.
fn json_starts(call: &mut Pending, b: &[u8], p: usize) -> bool {
    if matches!(b[p], b'{' | b'[') {
        call.json_start = p;
        call.phase = Phase::Json;
        true
    } else {
        false
    }
}

impl Framing for Svend {
    fn serves(&self, dialect: Dialect) -> bool {
        dialect == Dialect::Svend
    }

    fn first_phase(&self) -> Phase {
        Phase::AfterOpen
    }

    fn dialect(&self, _: &Scanner) -> Dialect {
        Dialect::Svend
    }

    fn open(&self) -> Option<&'static [u8]> {
        Some(OPEN_SVEND)
    }

    fn after_open(
        &self,
        call: &mut Pending,
        b: &[u8],
        p: usize,
        cx: &mut Cursor<'_>,
    ) -> Option<Action> {
        match prefix(b, p, NAME_SVEND) {
            Prefix::Full => {
                call.pos = p + NAME_SVEND.len();
                call.phase = Phase::SvendName { start: call.pos };
                None
            }
            Prefix::Partial if !cx.eof => Some(Action::Wait),
            Prefix::Partial => Some(call.at_end(b, cx)),
            Prefix::No => call.deprecated_start(b, p, cx.eof),
        }
    }

    fn close_after_json(&self) -> (&'static [u8], &'static str) {
        (CLOSE_SVEND, "<|/tool_call|>")
    }

    fn close_marker(&self) -> Option<&'static [u8]> {
        Some(CLOSE_SVEND)
    }

    fn announces_from_json(&self) -> bool {
        false
    }

    fn tool(&self, call: &Pending) -> Option<String> {
        call.svend_name.clone()
    }

    fn resolve(
        &self,
        call: &Pending,
        value: Value,
        _end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        let tool = call.svend_name.clone().unwrap_or_default();
        Ok(
            match extract::arguments("<|tool_args|>", &value, opts.lenient) {
                Ok((params, fixed)) => vec![Ok((tool, params, None, Dialect::Svend, fixed))],
                Err(reason) => vec![Err((Some(tool), Dialect::Svend, reason))],
            },
        )
    }
}

impl Framing for Tag {
    fn serves(&self, dialect: Dialect) -> bool {
        matches!(dialect, Dialect::Tagged | Dialect::Hermes)
    }

    fn first_phase(&self) -> Phase {
        Phase::AfterOpen
    }

    fn dialect(&self, scanner: &Scanner) -> Dialect {
        if scanner.name.is_some() && !scanner.name_from_tool {
            Dialect::Hermes
        } else {
            Dialect::Tagged
        }
    }

    fn open(&self) -> Option<&'static [u8]> {
        Some(OPEN_TAG)
    }

    fn after_open(
        &self,
        call: &mut Pending,
        b: &[u8],
        p: usize,
        cx: &mut Cursor<'_>,
    ) -> Option<Action> {
        if json_starts(call, b, p) {
            return None;
        }
        // A fenced JSON block inside the tags.
        match prefix(b, p, FENCE) {
            Prefix::Full => {
                call.inner_fence = true;
                call.pos = p + FENCE.len();
                call.phase = Phase::FenceLine { inner: true };
                None
            }
            Prefix::Partial if !cx.eof => Some(Action::Wait),
            Prefix::Partial => Some(call.at_end(b, cx)),
            Prefix::No => Some(Action::Reject),
        }
    }

    fn close_after_json(&self) -> (&'static [u8], &'static str) {
        (CLOSE_TAG, "</tool_call>")
    }

    fn close_marker(&self) -> Option<&'static [u8]> {
        Some(CLOSE_TAG)
    }

    fn resolve(
        &self,
        _call: &Pending,
        value: Value,
        _end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        Ok(match value {
            Value::Object(obj) => vec![tag_call(&obj, opts.lenient)],
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .map(|v| match v {
                    Value::Object(obj) => tag_call(obj, opts.lenient),
                    _ => Err((
                        None,
                        Dialect::Tagged,
                        "each call in a list must be a JSON object".into(),
                    )),
                })
                .collect(),
            _ => vec![Err((
                None,
                Dialect::Tagged,
                "expected a JSON object with \"tool\" and \"params\"".into(),
            ))],
        })
    }
}

impl Framing for Fenced {
    fn serves(&self, dialect: Dialect) -> bool {
        dialect == Dialect::Fenced
    }

    fn first_phase(&self) -> Phase {
        Phase::FenceLine { inner: false }
    }

    fn dialect(&self, _: &Scanner) -> Dialect {
        Dialect::Fenced
    }

    fn open(&self) -> Option<&'static [u8]> {
        Some(OPEN_FENCE)
    }

    fn after_open(
        &self,
        call: &mut Pending,
        b: &[u8],
        p: usize,
        _cx: &mut Cursor<'_>,
    ) -> Option<Action> {
        (!json_starts(call, b, p)).then_some(Action::Reject)
    }

    fn close_marker(&self) -> Option<&'static [u8]> {
        Some(FENCE_LINE)
    }

    fn committed(&self, scanner: &Scanner) -> bool {
        scanner.name.is_some() && scanner.saw_args
    }

    fn uncommitted_is_text(&self) -> bool {
        true
    }

    fn resolve(
        &self,
        _call: &Pending,
        value: Value,
        end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        fenced_calls(value, opts).ok_or(Box::new(Action::AsText(end)))
    }
}

impl Framing for Bare {
    fn serves(&self, dialect: Dialect) -> bool {
        matches!(dialect, Dialect::Fenced | Dialect::Openai)
    }

    fn first_phase(&self) -> Phase {
        Phase::Json
    }

    fn dialect(&self, _: &Scanner) -> Dialect {
        Dialect::Fenced
    }

    fn ends_with_json(&self) -> bool {
        true
    }

    fn committed(&self, scanner: &Scanner) -> bool {
        scanner.name.is_some() && scanner.saw_args
    }

    fn uncommitted_is_text(&self) -> bool {
        true
    }

    fn text_end(&self, json_end: usize, _end: usize) -> usize {
        json_end
    }

    fn resolve(
        &self,
        call: &Pending,
        value: Value,
        _end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        let text_end = call.json_end;
        if let Value::Object(obj) = &value {
            if let Some(Value::Array(tcs)) = obj.get("tool_calls") {
                return Err(Box::new(Action::Done(
                    text_end,
                    super::Resolved::OpenAi(tcs.clone()),
                )));
            }
        }
        fenced_calls(value, opts).ok_or(Box::new(Action::AsText(text_end)))
    }
}

impl Framing for Mistral {
    fn serves(&self, dialect: Dialect) -> bool {
        dialect == Dialect::Mistral
    }

    fn first_phase(&self) -> Phase {
        Phase::AfterOpen
    }

    fn dialect(&self, _: &Scanner) -> Dialect {
        Dialect::Mistral
    }

    fn open(&self) -> Option<&'static [u8]> {
        Some(OPEN_MISTRAL)
    }

    fn after_open(
        &self,
        call: &mut Pending,
        b: &[u8],
        p: usize,
        _cx: &mut Cursor<'_>,
    ) -> Option<Action> {
        if json_starts(call, b, p) {
            return None;
        }
        // v11's `[TOOL_CALLS]NAME[ARGS]`: the name follows the marker at once, so prose after a mentioned
        // marker (`[TOOL_CALLS] markers`) stays text.
        let c = b[p];
        if (c.is_ascii_alphabetic() || c == b'_') && p == call.open_len {
            call.phase = Phase::SvendName { start: p };
            return None;
        }
        Some(Action::Reject)
    }

    fn name_separator(&self) -> (&'static [u8], &'static str) {
        (ARGS_MISTRAL, "[ARGS]")
    }

    fn ends_with_json(&self) -> bool {
        true
    }

    fn tool(&self, call: &Pending) -> Option<String> {
        call.svend_name
            .clone()
            .or_else(|| call.scanner.name.clone())
    }

    fn resolve(
        &self,
        call: &Pending,
        value: Value,
        _end: usize,
        opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        Ok(match (&call.svend_name, value) {
            (Some(tool), value) => match extract::arguments("[ARGS]", &value, opts.lenient) {
                Ok((params, fixed)) => {
                    vec![Ok((tool.clone(), params, None, Dialect::Mistral, fixed))]
                }
                Err(reason) => vec![Err((Some(tool.clone()), Dialect::Mistral, reason))],
            },
            (None, Value::Object(obj)) => vec![mistral_call(&obj, opts.lenient)],
            (None, Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|v| match v {
                    Value::Object(obj) => mistral_call(obj, opts.lenient),
                    _ => Err((
                        None,
                        Dialect::Mistral,
                        "each call in the list must be a JSON object".into(),
                    )),
                })
                .collect(),
            (None, _) => vec![Err((
                None,
                Dialect::Mistral,
                "expected a list of calls, each {\"name\": ..., \"arguments\": {...}}".into(),
            ))],
        })
    }
}

impl Framing for Deepseek {
    fn serves(&self, dialect: Dialect) -> bool {
        dialect == Dialect::Deepseek
    }

    fn first_phase(&self) -> Phase {
        Phase::Block
    }

    fn dialect(&self, _: &Scanner) -> Dialect {
        Dialect::Deepseek
    }

    fn open(&self) -> Option<&'static [u8]> {
        Some(OPEN_DEEPSEEK)
    }

    fn close_marker(&self) -> Option<&'static [u8]> {
        Some(CLOSE_DEEPSEEK)
    }

    fn tool(&self, call: &Pending) -> Option<String> {
        call.svend_name.clone()
    }

    /// A DeepSeek block is read whole in its own phase ([`deepseek_calls`]); it has no JSON of its own.
    fn resolve(
        &self,
        _call: &Pending,
        _value: Value,
        _end: usize,
        _opts: &ParseOptions,
    ) -> Result<Vec<Found>, Box<Action>> {
        Ok(Vec::new())
    }
}

/// The calls of a fenced or bare JSON block: a call-shaped object or a non-empty list of them; `None` when the
/// block holds no call (it is text).
fn fenced_calls(value: Value, opts: &ParseOptions) -> Option<Vec<Found>> {
    match value {
        Value::Object(obj) if extract::is_call_shaped(&obj) => {
            Some(vec![fenced_call(&obj, opts.lenient)])
        }
        Value::Array(items)
            if !items.is_empty()
                && items
                    .iter()
                    .all(|v| v.as_object().is_some_and(extract::is_call_shaped)) =>
        {
            Some(
                items
                    .iter()
                    .filter_map(Value::as_object)
                    .map(|o| fenced_call(o, opts.lenient))
                    .collect(),
            )
        }
        _ => None,
    }
}

fn tag_call(obj: &Map<String, Value>, lenient: bool) -> Found {
    match extract::fields(obj, lenient) {
        Ok(Fields {
            tool,
            params,
            id,
            tool_key,
            repaired,
        }) => Ok((
            tool,
            params,
            id,
            if tool_key {
                Dialect::Tagged
            } else {
                Dialect::Hermes
            },
            repaired,
        )),
        Err(reason) => {
            let tool = obj
                .get("tool")
                .or_else(|| obj.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let dialect = if obj.contains_key("tool") || !obj.contains_key("name") {
                Dialect::Tagged
            } else {
                Dialect::Hermes
            };
            Err((tool, dialect, reason))
        }
    }
}

fn mistral_call(obj: &Map<String, Value>, lenient: bool) -> Found {
    tag_call(obj, lenient)
        .map(|(t, p, id, _, fixed)| (t, p, id, Dialect::Mistral, fixed))
        .map_err(|(t, _, r)| (t, Dialect::Mistral, r))
}

fn fenced_call(obj: &Map<String, Value>, lenient: bool) -> Found {
    tag_call(obj, lenient)
        .map(|(t, p, id, _, fixed)| (t, p, id, Dialect::Fenced, fixed))
        .map_err(|(t, _, r)| (t, Dialect::Fenced, r))
}

/// The calls of a DeepSeek block (between its outer markers): each
/// `<｜tool▁call▁begin｜>[TYPE<｜tool▁sep｜>]NAME(<｜tool▁sep｜> or a new line)[```json]{…}[```]<｜tool▁call▁end｜>`, as V3
/// (`NAME<｜tool▁sep｜>{…}`) and R1 (`function<｜tool▁sep｜>NAME` and a fenced JSON block) write them.
pub(super) fn deepseek_calls(inner: &str, lenient: bool) -> Vec<Found> {
    let bad = |tool: Option<String>, reason: String| Err((tool, Dialect::Deepseek, reason));
    let mut out = Vec::new();
    let mut rest = inner.trim();
    if rest.is_empty() {
        return vec![bad(
            None,
            format!("the calls block holds no {CALL_DEEPSEEK}"),
        )];
    }
    while !rest.is_empty() {
        let Some(body) = rest.strip_prefix(CALL_DEEPSEEK) else {
            out.push(bad(
                None,
                format!("expected {CALL_DEEPSEEK} in the calls block"),
            ));
            break;
        };
        let Some(end) = body.find(CALL_END_DEEPSEEK) else {
            out.push(bad(
                None,
                format!("a call is not closed by {CALL_END_DEEPSEEK}"),
            ));
            break;
        };
        out.push(deepseek_call(&body[..end], lenient));
        rest = body[end + CALL_END_DEEPSEEK.len()..].trim_start();
    }
    out
}

fn deepseek_call(call: &str, lenient: bool) -> Found {
    let parts: Vec<&str> = call.split(SEP_DEEPSEEK).collect();
    let (name, args) = match parts.as_slice() {
        // R1: `function<｜tool▁sep｜>NAME\n```json\n{…}\n```` (the type, then the name on its own line).
        [kind, rest] if kind.trim() == "function" && !rest.trim_start().starts_with('{') => {
            let rest = rest.trim_start();
            let cut = rest.find(['\n', '`', '{']).unwrap_or(rest.len());
            (rest[..cut].trim(), &rest[cut..])
        }
        // V3: `NAME<｜tool▁sep｜>{…}`.
        [name, args] => (name.trim(), *args),
        [_, name, args] => (name.trim(), *args),
        _ => {
            return Err((
                None,
                Dialect::Deepseek,
                format!("expected NAME{SEP_DEEPSEEK}ARGUMENTS in the call"),
            ))
        }
    };
    let tool = Some(name.to_string());
    if name.is_empty() || name.len() > MAX_NAME || name.bytes().any(|c| is_ws(c) || c == b'<') {
        return Err((
            tool,
            Dialect::Deepseek,
            "the tool name is empty or not a name".into(),
        ));
    }
    let mut json = args.trim();
    if let Some(f) = json.strip_prefix("```") {
        let f = f.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        json = f.trim().strip_suffix("```").unwrap_or(f).trim();
    }
    let value = match serde_json::from_str::<Value>(json) {
        Ok(v) => (v, false),
        Err(e) => match lenient
            .then(|| lenient::repair(json))
            .flatten()
            .and_then(|r| serde_json::from_str::<Value>(&r).ok())
        {
            Some(v) => (v, true),
            None => return Err((tool, Dialect::Deepseek, json_error(&e))),
        },
    };
    match extract::arguments(SEP_DEEPSEEK, &value.0, lenient) {
        Ok((params, fixed)) => Ok((
            name.to_string(),
            params,
            None,
            Dialect::Deepseek,
            fixed || value.1,
        )),
        Err(reason) => Err((tool, Dialect::Deepseek, reason)),
    }
}
