//! The streaming parser: text in chunks of any size in, [`Event`]s out.
//!
//! Outside a call it emits text at once, holding back only a suffix that could still become a start marker.
//! Inside a call it keeps the call's bytes until the call is resolved, scanning each byte once: the JSON
//! scanner's state and every search cursor survive between chunks. Decisions depend only on the bytes, never
//! on where a chunk ended, which is what makes streaming and batch agree (the batch parser is this one fed a
//! single chunk). The rules are written down in `docs/DIALECTS.md`.

mod framing;

use crate::extract;
use crate::scan::{Scan, Scanner};
use crate::{lenient, BadCall, Call, Dialect, Event, ParseOptions, Problem};
use framing::Framing;
use memchr::{memchr3, memmem};
use serde_json::Value;

const OPEN_SVEND: &[u8] = b"<|tool_call|>";
const NAME_SVEND: &[u8] = b"<|tool_name|>";
const ARGS_SVEND: &[u8] = b"<|tool_args|>";
const CLOSE_SVEND: &[u8] = b"<|/tool_call|>";
const END_DEPRECATED: &[u8] = b"<|tool_end|>";
const OPEN_TAG: &[u8] = b"<tool_call>";
const OPEN_MISTRAL: &[u8] = b"[TOOL_CALLS]";
const ARGS_MISTRAL: &[u8] = b"[ARGS]";
const OPEN_DEEPSEEK: &[u8] = "<｜tool▁calls▁begin｜>".as_bytes();
const CLOSE_DEEPSEEK: &[u8] = "<｜tool▁calls▁end｜>".as_bytes();
const CLOSE_TAG: &[u8] = b"</tool_call>";
const OPEN_FENCE: &[u8] = b"```json";
/// A reasoning block: calls inside it are text unless `include_think` is set.
const OPEN_THINK: &[u8] = b"<think>";
const CLOSE_THINK: &[u8] = b"</think>";
const FENCE: &[u8] = b"```";
/// A fence closes at a line that starts with ```.
const FENCE_LINE: &[u8] = b"\n```";
/// Longest tool name in the svend and deprecated forms.
const MAX_NAME: usize = 128;
/// Longest argument list of a deprecated `NAME(ARGS)` call.
const MAX_DEPRECATED_ARGS: usize = 4096;
/// How far past the point where a call went wrong its close marker is looked for. Beyond it the marker is
/// taken to be absent, so a stray start marker never swallows (or holds back) the rest of a long answer.
const RESYNC_WINDOW: usize = 64 * 1024;

/// Where a call's reading is.
#[derive(Debug)]
enum Phase {
    /// Whitespace after the start marker (for fences: after the fence line).
    AfterOpen,
    /// The rest of a fence's opening line.
    FenceLine { inner: bool },
    /// Whitespace before the JSON (after `<|tool_args|>` or an inner fence line).
    JsonStart,
    /// The svend tool name, up to `<|tool_args|>`.
    SvendName { start: usize },
    /// Inside the JSON value.
    Json,
    /// After the JSON: whitespace, a closing fence, the close marker.
    AfterJson,
    /// Inside the parentheses of a deprecated `NAME(ARGS)` call.
    Deprecated {
        name: String,
        args_start: usize,
        depth: i32,
        quote: u8,
        escaped: bool,
    },
    /// After the `)` of a deprecated call: an optional `<|tool_end|>`.
    DeprecatedEnd {
        name: String,
        args_start: usize,
        close: usize,
    },
    /// DeepSeek's calls block, read whole once its close marker arrives.
    Block,
    /// The call went wrong at `at`; looking for its close marker.
    Failed {
        at: usize,
        reason: String,
        json: bool,
    },
}

/// One call as resolved, before it gets its index and span.
/// `(tool, params, id, dialect, repaired)` or `(tool, dialect, reason)`.
type Found =
    Result<(String, Value, Option<String>, Dialect, bool), (Option<String>, Dialect, String)>;

enum Resolved {
    Calls {
        calls: Vec<Found>,
        repaired: bool,
    },
    OpenAi(Vec<Value>),
    Bad {
        tool: Option<String>,
        dialect: Dialect,
        problem: Problem,
    },
}

enum Action {
    Wait,
    /// Not a call: the start marker is plain text.
    Reject,
    /// The region `[0, end)` is plain text (a JSON block that is not a call).
    AsText(usize),
    /// The region `[0, end)` is resolved.
    Done(usize, Resolved),
}

/// What `Pending::advance` needs from the parser around it.
struct Cursor<'a> {
    /// Offset in the whole text of the call's first byte.
    base: usize,
    eof: bool,
    opts: &'a ParseOptions,
    closes: &'a mut Closes,
}

/// Forward-only searches for close markers, shared by every call of a text. Failure points only move
/// forward, so each byte is searched at most once per marker however many stray markers the text holds.
#[derive(Default)]
struct Closes {
    /// Per marker (tag, svend, fence line, deepseek): searched up to this absolute offset; the occurrence
    /// found there.
    state: [(usize, Option<usize>); 4],
}

impl Closes {
    /// The first occurrence of `m` at or after `at` (relative to `b`, which starts at absolute `base`).
    fn find(&mut self, m: &[u8], b: &[u8], base: usize, at: usize) -> Option<usize> {
        let slot = match m {
            CLOSE_TAG => 0,
            CLOSE_SVEND => 1,
            CLOSE_DEEPSEEK => 3,
            _ => 2,
        };
        let (searched, found) = &mut self.state[slot];
        let at_abs = base + at;
        if let Some(f) = *found {
            if f >= at_abs {
                return Some(f - base);
            }
        }
        let from = searched.saturating_sub(m.len() - 1).max(at_abs);
        let end = base + b.len();
        if from >= end {
            return None;
        }
        match memmem::find(&b[from - base..], m) {
            Some(k) => {
                *found = Some(from + k);
                *searched = from + k + 1;
                Some(from + k - base)
            }
            None => {
                *found = None;
                *searched = end;
                None
            }
        }
    }
}

/// A call being read; positions are relative to the start of its start marker.
/// A call being read: its framing and how far it has got.
struct Pending {
    framing: &'static dyn Framing,
    open_len: usize,
    pos: usize,
    phase: Phase,
    scanner: Scanner,
    inner_fence: bool,
    fence_closed: bool,
    svend_name: Option<String>,
    json_start: usize,
    json_end: usize,
    started: bool,
    announce: Option<String>,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ws(b[i]) {
        i += 1;
    }
    i
}

enum Prefix {
    Full,
    Partial,
    No,
}

/// Whether `b[i..]` starts with `m` (Partial: what there is matches, but it is shorter).
fn prefix(b: &[u8], i: usize, m: &[u8]) -> Prefix {
    let rest = &b[i..];
    if rest.starts_with(m) {
        Prefix::Full
    } else if m.starts_with(rest) {
        Prefix::Partial
    } else {
        Prefix::No
    }
}

/// Where a size cap at offset `cap` takes effect: `cap` moved back to the start of the character it falls in
/// (only the bytes decide, so this is the same however the text was chunked), or `None` while fewer than `cap`
/// bytes have arrived.
fn cap_at(b: &[u8], cap: usize) -> Option<usize> {
    if b.len() < cap {
        return None;
    }
    let mut p = cap;
    while p < b.len() && p > 0 && (b[p] & 0xC0) == 0x80 {
        p -= 1;
    }
    Some(p)
}

fn show(b: &[u8], i: usize) -> String {
    let c = b[i];
    if c.is_ascii_graphic() {
        format!("'{}'", c as char)
    } else if c.is_ascii() {
        format!("byte 0x{c:02x}")
    } else {
        "a non-ASCII character".into()
    }
}

fn utf8(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl Pending {
    fn new(framing: &'static dyn Framing, open_len: usize, lenient: bool) -> Pending {
        Pending {
            framing,
            open_len,
            pos: open_len,
            phase: framing.first_phase(),
            scanner: Scanner::new(lenient),
            inner_fence: false,
            fence_closed: false,
            svend_name: None,
            json_start: open_len,
            json_end: open_len,
            started: false,
            announce: None,
        }
    }

    fn close_marker(&self) -> Option<&'static [u8]> {
        self.framing.close_marker()
    }

    /// Whether the region is surely a call.
    fn committed(&self) -> bool {
        self.framing.committed(&self.scanner)
    }

    fn dialect(&self) -> Dialect {
        self.framing.dialect(&self.scanner)
    }

    fn tool(&self) -> Option<String> {
        self.framing.tool(self)
    }

    fn bad(&self, end: usize, problem: Problem) -> Action {
        Action::Done(
            end,
            Resolved::Bad {
                tool: self.tool(),
                dialect: self.dialect(),
                problem,
            },
        )
    }

    fn fail(&mut self, at: usize, reason: impl Into<String>, json: bool) {
        self.phase = Phase::Failed {
            at,
            reason: reason.into(),
            json,
        };
    }

    fn maybe_announce(&mut self) {
        if !self.started && self.framing.announces_from_json() && self.committed() {
            if let Some(name) = &self.scanner.name {
                self.started = true;
                self.announce = Some(name.clone());
            }
        }
    }

    /// Reads as far as the bytes allow; `b` is everything from the start marker on. Each phase is a step that
    /// either moves the call on (`None`: take the next step) or decides what to do with it.
    fn advance(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Action {
        loop {
            let step = match self.phase {
                Phase::AfterOpen => self.step_after_open(b, cx),
                Phase::FenceLine { .. } => self.step_fence_line(b, cx),
                Phase::JsonStart => self.step_json_start(b, cx),
                Phase::SvendName { .. } => self.step_name(b, cx),
                Phase::Json => self.step_json(b, cx),
                Phase::AfterJson => self.step_after_json(b, cx),
                Phase::Deprecated { .. } => self.step_deprecated(b, cx),
                Phase::DeprecatedEnd { .. } => self.step_deprecated_end(b, cx),
                Phase::Block => self.step_block(b, cx),
                Phase::Failed { .. } => self.step_failed(b, cx),
            };
            if let Some(action) = step {
                return action;
            }
        }
    }

    /// Whitespace after the start marker, then what the framing expects there.
    fn step_after_open(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let p = skip_ws(b, self.pos);
        self.pos = p;
        if p == b.len() {
            return Some(self.at_end(b, cx));
        }
        let framing = self.framing;
        framing.after_open(self, b, p, cx)
    }

    /// The rest of a fence's opening line.
    fn step_fence_line(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let Phase::FenceLine { inner } = &mut self.phase else {
            return None;
        };
        let inner = *inner;
        let mut q = self.pos;
        while q < b.len() && b[q] != b'\n' {
            let c = b[q];
            let ok = matches!(c, b' ' | b'\t' | b'\r')
                || (inner && (c.is_ascii_alphanumeric() || c == b'_' || c == b'-'));
            if !ok {
                if !inner {
                    return Some(Action::Reject);
                }
                self.fail(q, "unexpected text after the opening code fence", false);
                break;
            }
            q += 1;
        }
        if matches!(self.phase, Phase::Failed { .. }) {
            return None;
        }
        self.pos = q;
        if q == b.len() {
            return Some(self.at_end(b, cx));
        }
        self.pos = q + 1;
        self.phase = if inner {
            Phase::JsonStart
        } else {
            Phase::AfterOpen
        };
        None
    }

    /// Whitespace before the JSON (or an inner fence).
    fn step_json_start(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let eof = cx.eof;
        let p = skip_ws(b, self.pos);
        self.pos = p;
        if p == b.len() {
            return Some(self.at_end(b, cx));
        }
        match b[p] {
            b'{' | b'[' => {
                self.json_start = p;
                self.phase = Phase::Json;
            }
            b'`' if !self.inner_fence => match prefix(b, p, FENCE) {
                Prefix::Full => {
                    self.inner_fence = true;
                    self.pos = p + FENCE.len();
                    self.phase = Phase::FenceLine { inner: true };
                }
                Prefix::Partial if !eof => return Some(Action::Wait),
                _ => self.fail(p, "expected a JSON object for the arguments", false),
            },
            _ => self.fail(
                p,
                format!(
                    "expected a JSON object for the arguments, found {}",
                    show(b, p)
                ),
                false,
            ),
        }
        None
    }

    /// A tool name, up to its separator.
    fn step_name(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let eof = cx.eof;
        let Phase::SvendName { start } = &mut self.phase else {
            return None;
        };
        let start = *start;
        let (sep, sep_name) = self.framing.name_separator();
        let mut q = self.pos;
        let mut failure = None;
        while q < b.len() {
            let c = b[q];
            if c == sep[0] {
                match prefix(b, q, sep) {
                    Prefix::Full => break,
                    Prefix::Partial => {
                        self.pos = q;
                        return Some(if eof {
                            self.at_end(b, cx)
                        } else {
                            Action::Wait
                        });
                    }
                    Prefix::No => {
                        failure = Some((q, format!("expected {sep_name} after the tool name")));
                        break;
                    }
                }
            }
            if !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b':') || is_ws(c)) {
                failure = Some((q, format!("unexpected {} in the tool name", show(b, q))));
                break;
            }
            if q - start >= MAX_NAME + 64 {
                failure = Some((q, format!("the tool name is longer than {MAX_NAME} bytes")));
                break;
            }
            q += 1;
        }
        if let Some((at, reason)) = failure {
            self.fail(at, reason, false);
            return None;
        }
        self.pos = q;
        if q == b.len() {
            return Some(self.at_end(b, cx));
        }
        let name = utf8(&b[start..q]).trim().to_string();
        if name.is_empty() {
            self.fail(q, "the tool name is empty", false);
        } else if name.len() > MAX_NAME {
            self.fail(
                q,
                format!("the tool name is longer than {MAX_NAME} bytes"),
                false,
            );
        } else if name.bytes().any(is_ws) {
            self.fail(start, "the tool name contains whitespace", false);
        } else {
            self.svend_name = Some(name.clone());
            self.started = true;
            self.announce = Some(name);
            self.pos = q + sep.len();
            self.phase = Phase::JsonStart;
        }
        None
    }

    /// Inside the JSON value: fed to the scanner, no further than the size cap.
    fn step_json(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        // Feed no further than the size cap, so the cap fires at a fixed offset whatever the chunking.
        let max = cx.opts.max_call_bytes;
        let cap = cap_at(b, self.json_start.saturating_add(max));
        let (q, r) = self.scanner.feed(&b[..cap.unwrap_or(b.len())], self.pos);
        self.pos = q;
        self.maybe_announce();
        match r {
            Scan::More if cap == Some(q) => {
                self.fail(
                    q,
                    format!("the call's JSON is longer than {max} bytes"),
                    false,
                );
            }
            Scan::More => return Some(self.at_end(b, cx)),
            Scan::Done(e) => {
                self.json_end = e;
                self.pos = e;
                if self.framing.ends_with_json() {
                    return Some(self.complete(b, e, cx.opts));
                }
                self.phase = Phase::AfterJson;
            }
            Scan::Error(at, msg) => self.fail(at, msg, true),
        }
        None
    }

    /// After the JSON: a closing fence, then the close marker.
    fn step_after_json(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let eof = cx.eof;
        let p = skip_ws(b, self.pos);
        self.pos = p;
        if p == b.len() {
            return Some(self.at_end(b, cx));
        }
        let (marker, what) = if self.inner_fence && !self.fence_closed {
            (FENCE, "``` to close the code fence")
        } else {
            self.framing.close_after_json()
        };
        match prefix(b, p, marker) {
            Prefix::Full if self.inner_fence && !self.fence_closed => {
                self.fence_closed = true;
                self.pos = p + FENCE.len();
            }
            Prefix::Full => return Some(self.complete(b, p + marker.len(), cx.opts)),
            Prefix::Partial => {
                return Some(if eof {
                    self.at_end(b, cx)
                } else {
                    Action::Wait
                })
            }
            Prefix::No => self.fail(
                p,
                format!("expected {what} after the JSON, found {}", show(b, p)),
                false,
            ),
        }
        None
    }

    /// Inside the parentheses of a deprecated `NAME(ARGS)` call.
    fn step_deprecated(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let Phase::Deprecated {
            name,
            args_start,
            depth,
            quote,
            escaped,
        } = &mut self.phase
        else {
            return None;
        };
        // The cap is a fixed offset, so where the call fails never depends on chunking.
        let cap = cap_at(b, *args_start + MAX_DEPRECATED_ARGS);
        let limit = cap.unwrap_or(b.len());
        let mut q = self.pos;
        let mut close = None;
        while q < limit {
            let c = b[q];
            q += 1;
            if *quote != 0 {
                if *escaped {
                    *escaped = false;
                } else if c == b'\\' {
                    *escaped = true;
                } else if c == *quote {
                    *quote = 0;
                }
                continue;
            }
            match c {
                b'"' | b'\'' => *quote = c,
                b'(' | b'[' | b'{' => *depth += 1,
                b')' if *depth == 0 => {
                    close = Some(q);
                    break;
                }
                b')' | b']' | b'}' => *depth -= 1,
                _ => {}
            }
        }
        let (name, args_start) = (std::mem::take(name), *args_start);
        self.pos = q;
        if let Some(close) = close {
            self.phase = Phase::DeprecatedEnd {
                name,
                args_start,
                close,
            };
        } else if cap == Some(q) {
            self.svend_name = Some(name);
            self.fail(
                q,
                format!("the arguments are longer than {MAX_DEPRECATED_ARGS} bytes"),
                false,
            );
        } else {
            self.svend_name = Some(name.clone());
            if let Phase::Deprecated { name: n, .. } = &mut self.phase {
                *n = name;
            }
            return Some(self.at_end(b, cx));
        }
        None
    }

    /// After the `)` of a deprecated call: an optional `<|tool_end|>`.
    fn step_deprecated_end(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let eof = cx.eof;
        let Phase::DeprecatedEnd {
            name,
            args_start,
            close,
        } = &mut self.phase
        else {
            return None;
        };
        let p = skip_ws(b, *close);
        let end = match prefix(b, p, END_DEPRECATED) {
            Prefix::Full => p + END_DEPRECATED.len(),
            Prefix::Partial if !eof => return Some(Action::Wait),
            _ => *close,
        };
        let (args, kwargs) = extract::deprecated_args(&utf8(&b[*args_start..*close - 1]));
        Some(Action::Done(
            end,
            Resolved::Bad {
                tool: Some(std::mem::take(name)),
                dialect: Dialect::Svend,
                problem: Problem::Deprecated { args, kwargs },
            },
        ))
    }

    /// DeepSeek's calls block, read whole once its close marker arrives.
    fn step_block(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let max = cx.opts.max_call_bytes;
        match cx.closes.find(CLOSE_DEEPSEEK, b, cx.base, self.open_len) {
            Some(r) if r - self.open_len <= max => {
                let inner = utf8(&b[self.open_len..r]);
                let calls = framing::deepseek_calls(&inner, cx.opts.lenient);
                if let Some(Ok((name, ..)) | Err((Some(name), ..))) = calls.first() {
                    self.svend_name = Some(name.clone());
                }
                let repaired = false;
                Some(Action::Done(
                    r + CLOSE_DEEPSEEK.len(),
                    Resolved::Calls { calls, repaired },
                ))
            }
            // Only once a close marker starting within the cap would have arrived whole, so the cap fires
            // at the same point however the text is chunked.
            _ if b.len() - self.open_len >= max + CLOSE_DEEPSEEK.len() => {
                let at = cap_at(b, self.open_len + max).unwrap_or(b.len());
                Some(self.bad(
                    at,
                    Problem::Malformed(format!("the calls block is longer than {max} bytes")),
                ))
            }
            _ if cx.eof => Some(self.bad(b.len(), Problem::Incomplete)),
            _ => {
                self.pos = b.len();
                Some(Action::Wait)
            }
        }
    }

    /// The call went wrong: its close marker, within the resync window.
    fn step_failed(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Option<Action> {
        let eof = cx.eof;
        let Phase::Failed { at, reason, json } = &mut self.phase else {
            return None;
        };
        let (at, json) = (*at, *json);
        let reason = std::mem::take(reason);
        let Some(close) = self.close_marker() else {
            return Some(self.resolve_failure(b, at, None, reason, json));
        };
        match cx.closes.find(close, b, cx.base, at) {
            Some(r) if r - at <= RESYNC_WINDOW => {
                Some(self.resolve_failure(b, r + close.len(), Some(r), reason, json))
            }
            Some(_) => Some(self.resolve_failure(b, at, None, reason, json)),
            None if eof || b.len() - at > RESYNC_WINDOW + close.len() => {
                Some(self.resolve_failure(b, at, None, reason, json))
            }
            None => {
                self.phase = Phase::Failed { at, reason, json };
                Some(Action::Wait)
            }
        }
    }

    /// `<|tool_call|>` followed by something other than `<|tool_name|>`: the deprecated `NAME(` or text.
    fn deprecated_start(&mut self, b: &[u8], p: usize, eof: bool) -> Option<Action> {
        if !(b[p].is_ascii_alphabetic() || b[p] == b'_') {
            return Some(Action::Reject);
        }
        let mut q = p;
        while q < b.len() && (b[q].is_ascii_alphanumeric() || b[q] == b'_') && q - p <= MAX_NAME {
            q += 1;
        }
        if q == b.len() {
            return Some(if eof { Action::Reject } else { Action::Wait });
        }
        if b[q] != b'(' || q - p > MAX_NAME {
            return Some(Action::Reject);
        }
        self.phase = Phase::Deprecated {
            name: utf8(&b[p..q]),
            args_start: q + 1,
            depth: 0,
            quote: 0,
            escaped: false,
        };
        self.pos = q + 1;
        None
    }

    /// The bytes ran out: wait for more, or at the end of the text decide what the unfinished call is.
    fn at_end(&mut self, b: &[u8], cx: &mut Cursor<'_>) -> Action {
        if !cx.eof {
            return Action::Wait;
        }
        if !self.committed() {
            // A fence or leading `{` whose JSON never closed and never looked like a call: plain text.
            return if self.framing.uncommitted_is_text() {
                Action::AsText(b.len())
            } else {
                Action::Reject
            };
        }
        if let (Phase::Json, Some(close)) = (&self.phase, self.close_marker()) {
            // Valid so far, but a close marker further on means the JSON never closed before it
            // (an unterminated string, say): that is malformed, not cut off.
            if let Some(r) = cx.closes.find(close, b, cx.base, self.json_start) {
                let reason = match serde_json::from_slice::<Value>(&b[self.json_start..r]) {
                    Err(e) => json_error(&e),
                    Ok(_) => "invalid JSON: it is not complete before the close marker".into(),
                };
                return self.bad(r + close.len(), Problem::Malformed(reason));
            }
        }
        self.bad(b.len(), Problem::Incomplete)
    }

    fn resolve_failure(
        &mut self,
        b: &[u8],
        end: usize,
        body_end: Option<usize>,
        reason: String,
        json: bool,
    ) -> Action {
        let at = match &self.phase {
            Phase::Failed { at, .. } => *at,
            _ => end,
        };
        if !self.committed() {
            // A JSON block that broke before it looked like a call is plain text up to where it broke.
            return if self.framing.uncommitted_is_text() {
                Action::AsText(at.max(1))
            } else {
                Action::Reject
            };
        }
        let mut message = None;
        if json {
            if let Some(e) = body_end {
                let mut body = utf8(&b[self.json_start..e]);
                if self.inner_fence {
                    if let Some(stripped) = body.trim_end().strip_suffix("```") {
                        body = stripped.to_string();
                    }
                }
                if let Err(err) = serde_json::from_str::<Value>(body.trim()) {
                    message = Some(json_error(&err));
                }
            }
        }
        let message = message.unwrap_or_else(|| {
            if json {
                let (line, col) =
                    line_col(&b[self.json_start..], at.saturating_sub(self.json_start));
                format!("invalid JSON: {reason} at line {line} column {col}")
            } else {
                reason
            }
        });
        // A failure with no close marker still ends the bad call at the point where it went wrong.
        let end = end.max(self.open_len.max(1));
        self.bad(end, Problem::Malformed(message))
    }

    /// The JSON is delimited and the close marker read: parse it and say what calls it holds.
    fn complete(&mut self, b: &[u8], end: usize, opts: &ParseOptions) -> Action {
        let body = &b[self.json_start..self.json_end];
        let (value, repaired) = match serde_json::from_slice::<Value>(body) {
            Ok(v) => (v, false),
            Err(e) => {
                let repaired = opts
                    .lenient
                    .then(|| lenient::repair(&utf8(body)))
                    .flatten()
                    .and_then(|r| serde_json::from_str::<Value>(&r).ok());
                match repaired {
                    Some(v) => (v, true),
                    None if self.committed() => {
                        return self.bad(end, Problem::Malformed(json_error(&e)))
                    }
                    None => return Action::AsText(self.framing.text_end(self.json_end, end)),
                }
            }
        };
        let calls = match self.framing.resolve(self, value, end, opts) {
            Ok(calls) => calls,
            Err(action) => return *action,
        };
        Action::Done(end, Resolved::Calls { calls, repaired })
    }
}

/// serde's message, except that running out of input inside a delimited call means a bracket is missing.
fn json_error(e: &serde_json::Error) -> String {
    if e.classify() == serde_json::error::Category::Eof {
        "invalid JSON: it ends before every `{` and `[` is closed".into()
    } else {
        format!("invalid JSON: {e}")
    }
}

fn line_col(b: &[u8], at: usize) -> (usize, usize) {
    let upto = &b[..at.min(b.len())];
    let line = 1 + upto.iter().filter(|&&c| c == b'\n').count();
    let col = 1 + upto.iter().rev().take_while(|&&c| c != b'\n').count();
    (line, col)
}

/// Reads tool calls from text arriving in chunks; see the module docs and `docs/DIALECTS.md`.
pub struct StreamParser {
    opts: ParseOptions,
    buf: String,
    /// Bytes of `buf` already consumed (compacted away now and then, so consuming is O(1) amortised).
    head: usize,
    /// Offset in the whole text of `buf[head]`.
    offset: usize,
    pending: Option<Pending>,
    next_index: usize,
    at_start: bool,
    work: u64,
    closes: Closes,
    capped: bool,
    /// Inside a `<think>` block (only when `include_think` is off): text until `</think>`.
    in_think: bool,
}

enum Marker {
    Full(&'static dyn Framing, usize),
    /// `<think>`, when such blocks are skipped.
    Think,
    Partial,
    No,
}

impl StreamParser {
    /// A parser with these options.
    pub fn new(opts: ParseOptions) -> StreamParser {
        StreamParser {
            opts,
            buf: String::new(),
            head: 0,
            offset: 0,
            pending: None,
            next_index: 0,
            at_start: true,
            work: 0,
            closes: Closes::default(),
            capped: false,
            in_think: false,
        }
    }

    /// Bytes examined so far, counting re-examinations: linear in the input, which a test checks.
    pub fn work(&self) -> u64 {
        self.work
    }

    /// Feeds a chunk; returns the events it completes.
    pub fn push(&mut self, chunk: &str) -> Vec<Event> {
        self.buf.push_str(chunk);
        let mut out = Vec::new();
        self.run(false, &mut out);
        out
    }

    /// Whether `max_calls` calls were read and a start marker after them was left as text.
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// Ends the text: resolves what is held back (a cut-off call is `Incomplete`).
    pub fn finish(mut self) -> Vec<Event> {
        self.finish_in_place()
    }

    pub(crate) fn finish_in_place(&mut self) -> Vec<Event> {
        let mut out = Vec::new();
        self.run(true, &mut out);
        let rest = self.buf.len() - self.head;
        if rest > 0 {
            self.emit_text(rest, &mut out);
        }
        out
    }

    /// Whether the request's dialect (any, when none is set) reads calls framed this way.
    fn allows(&self, framing: &dyn Framing) -> bool {
        self.opts.dialect.is_none_or(|d| framing.serves(d))
    }

    fn consume(&mut self, n: usize) {
        self.head += n;
        self.offset += n;
        if self.head > 4096 && self.head * 2 > self.buf.len() {
            self.buf.drain(..self.head);
            self.head = 0;
        }
    }

    fn emit_text(&mut self, n: usize, out: &mut Vec<Event>) {
        if n == 0 {
            return;
        }
        let text = self.buf[self.head..self.head + n].to_string();
        match out.last_mut() {
            Some(Event::Text(prev)) => prev.push_str(&text),
            _ => out.push(Event::Text(text)),
        }
        self.consume(n);
    }

    fn run(&mut self, eof: bool, out: &mut Vec<Event>) {
        loop {
            let progressed = if self.pending.is_some() {
                self.step_call(eof, out)
            } else {
                self.step_text(eof, out)
            };
            if !progressed {
                break;
            }
        }
    }

    fn match_marker(&self, rest: &[u8], eof: bool) -> Marker {
        let mut partial = false;
        if !self.opts.include_think {
            if rest.starts_with(OPEN_THINK) {
                return Marker::Think;
            }
            partial |= OPEN_THINK.starts_with(rest);
        }
        for framing in framing::MARKED {
            let Some(m) = framing.open() else { continue };
            if !self.allows(framing) {
                continue;
            }
            if rest.starts_with(m) {
                return Marker::Full(framing, m.len());
            }
            partial |= m.starts_with(rest);
        }
        if partial && !eof {
            Marker::Partial
        } else {
            Marker::No
        }
    }

    /// Inside a `<think>` block: everything up to and including `</think>` is text (an unclosed block runs
    /// to the end of the text); a suffix that could start `</think>` is held back.
    fn step_think(&mut self, eof: bool, out: &mut Vec<Event>) -> bool {
        let b = &self.buf.as_bytes()[self.head..];
        if b.is_empty() {
            return false;
        }
        if let Some(k) = memmem::find(b, CLOSE_THINK) {
            self.work += (k + CLOSE_THINK.len()) as u64;
            self.in_think = false;
            self.emit_text(k + CLOSE_THINK.len(), out);
            return true;
        }
        self.work += b.len() as u64;
        let keep = if eof {
            0
        } else {
            (1..CLOSE_THINK.len())
                .rev()
                .find(|&n| b.len() >= n && CLOSE_THINK.starts_with(&b[b.len() - n..]))
                .unwrap_or(0)
        };
        // Hold back only whole characters: the kept suffix is ASCII, so the cut is on a boundary.
        self.emit_text(b.len() - keep, out);
        false
    }

    /// Outside a call: emits text up to the next start marker (or a suffix that could start one).
    fn step_text(&mut self, eof: bool, out: &mut Vec<Event>) -> bool {
        if self.in_think {
            return self.step_think(eof, out);
        }
        let b = &self.buf.as_bytes()[self.head..];
        if b.is_empty() {
            return false;
        }
        if self.at_start {
            let ws = b.iter().take_while(|c| is_ws(**c)).count();
            self.work += ws as u64;
            if ws == b.len() {
                self.emit_text(ws, out);
                return false;
            }
            self.at_start = false;
            if b[ws] == b'{' && self.allows(&framing::BARE) && self.opts.max_calls > 0 {
                self.emit_text(ws, out);
                self.pending = Some(Pending::new(&framing::BARE, 0, self.opts.lenient));
                return true;
            }
        }
        let mut from = 0;
        let found = loop {
            match memchr3(b'<', b'`', b'[', &b[from..]) {
                None => {
                    self.work += (b.len() - from) as u64;
                    break None;
                }
                Some(k) => {
                    let p = from + k;
                    self.work += (k + 1) as u64;
                    match self.match_marker(&b[p..], eof) {
                        Marker::Think => break Some((p, Some((None, OPEN_THINK.len())))),
                        Marker::Full(framing, len) => break Some((p, Some((Some(framing), len)))),
                        Marker::Partial => break Some((p, None)),
                        Marker::No => from = p + 1,
                    }
                }
            }
        };
        match found {
            None => {
                let n = b.len();
                self.emit_text(n, out);
                false
            }
            Some((p, None)) => {
                self.emit_text(p, out);
                false
            }
            Some((p, Some((None, len)))) => {
                self.emit_text(p + len, out);
                self.in_think = true;
                true
            }
            Some((p, Some((_, len)))) if self.next_index >= self.opts.max_calls => {
                self.capped = true;
                self.emit_text(p + len, out);
                true
            }
            Some((p, Some((Some(framing), len)))) => {
                self.emit_text(p, out);
                self.pending = Some(Pending::new(framing, len, self.opts.lenient));
                true
            }
        }
    }

    /// Inside a call: reads on, and when the call is resolved emits its events.
    fn step_call(&mut self, eof: bool, out: &mut Vec<Event>) -> bool {
        let Some(mut pc) = self.pending.take() else {
            return false;
        };
        let before = pc.pos;
        let action = {
            let b = &self.buf.as_bytes()[self.head..];
            let mut at = Cursor {
                base: self.offset,
                eof,
                opts: &self.opts,
                closes: &mut self.closes,
            };
            pc.advance(b, &mut at)
        };
        self.work += pc.pos.saturating_sub(before) as u64;
        if let Some(tool) = pc.announce.take() {
            out.push(Event::CallStarted {
                index: self.next_index,
                tool,
            });
        }
        match action {
            Action::Wait => {
                self.pending = Some(pc);
                false
            }
            Action::Reject => {
                let n = pc.open_len.max(1);
                self.emit_text(n, out);
                true
            }
            Action::AsText(end) => {
                self.emit_text(end, out);
                true
            }
            Action::Done(end, resolved) => {
                let span = self.offset..self.offset + end;
                // serde reads the call's bytes once more.
                self.work += end as u64;
                self.resolved(resolved, pc.started, span, out);
                self.consume(end);
                true
            }
        }
    }

    fn resolved(
        &mut self,
        r: Resolved,
        started: bool,
        span: std::ops::Range<usize>,
        out: &mut Vec<Event>,
    ) {
        let mut announced = started;
        let mut found: Vec<Result<Call, BadCall>> = Vec::new();
        match r {
            Resolved::Calls { calls, repaired } => {
                for (i, c) in calls.into_iter().enumerate() {
                    let index = self.next_index + i;
                    found.push(match c {
                        Ok((tool, params, id, dialect, fixed)) => Ok(Call {
                            index,
                            dialect,
                            tool,
                            params,
                            id,
                            repaired: repaired || fixed,
                            span: span.clone(),
                        }),
                        Err((tool, dialect, reason)) => Err(BadCall {
                            index,
                            dialect,
                            tool,
                            id: None,
                            problem: Problem::Malformed(reason),
                            span: span.clone(),
                        }),
                    });
                }
            }
            Resolved::OpenAi(tcs) => {
                found = extract::openai_calls(&tcs, self.next_index, span, self.opts.lenient)
            }
            Resolved::Bad {
                tool,
                dialect,
                problem,
            } => found.push(Err(BadCall {
                index: self.next_index,
                dialect,
                tool,
                id: None,
                problem,
                span,
            })),
        }
        for f in found {
            self.next_index += 1;
            match f {
                Ok(call) => {
                    if !announced {
                        out.push(Event::CallStarted {
                            index: call.index,
                            tool: call.tool.clone(),
                        });
                    }
                    out.push(Event::Call(call));
                }
                Err(bad) => out.push(Event::Bad(bad)),
            }
            announced = false;
        }
    }
}
