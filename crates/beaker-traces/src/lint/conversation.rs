//! Seed 004's conversation JSONL: one conversation per line.

use super::Cx;
use crate::records::read_line_capped;
use crate::MAX_RECORD_BYTES;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::BufRead;

const STAGES: [&str; 4] = ["clarify_slots", "diagnosis", "resolution", "final_summary"];
const ROLES: [&str; 4] = ["system", "user", "assistant", "tool"];

pub(super) fn lint(
    cx: &mut Cx,
    mut reader: impl BufRead,
) -> Result<usize, (usize, std::io::Error)> {
    let mut buf = Vec::new();
    let mut line = 0;
    let mut ids = HashSet::new();
    loop {
        let (n, cut) =
            read_line_capped(&mut reader, &mut buf, MAX_RECORD_BYTES).map_err(|e| (line, e))?;
        if n == 0 {
            return Ok(line);
        }
        line += 1;
        if cut {
            cx.at(
                line,
                1,
                "trace/too-long",
                "the line is longer than 64 MiB; it was skipped".into(),
            );
            continue;
        }
        let Ok(text) = std::str::from_utf8(&buf) else {
            cx.at(line, 1, "trace/utf8", "the line is not valid UTF-8".into());
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                cx.at(
                    line,
                    e.column().max(1),
                    "conv/json",
                    format!("not JSON: {e}"),
                );
                continue;
            }
        };
        let mut l = Line { cx, line };
        l.conversation(&v, &mut ids);
    }
}

/// Reports for one line of the file (a JSONL line has no finer position than its path in the JSON).
struct Line<'c, 'a> {
    cx: &'c mut Cx<'a>,
    line: usize,
}

fn strings(v: Option<&Value>) -> Option<Vec<&str>> {
    v?.as_array()?.iter().map(Value::as_str).collect()
}

impl Line<'_, '_> {
    fn report(&mut self, rule: &'static str, message: String) {
        self.cx.at(self.line, 1, rule, message);
    }

    fn conversation(&mut self, v: &Value, ids: &mut HashSet<String>) {
        let Some(o) = v.as_object() else {
            return self.report(
                "conv/shape",
                format!(
                    "a conversation is a JSON object, not {}",
                    beaker_core::json_type(v)
                ),
            );
        };
        match o.get("conversation_id") {
            Some(Value::String(id)) if !id.is_empty() => {
                if !ids.insert(id.clone()) {
                    self.report(
                        "conv/duplicate-id",
                        format!("conversation id `{id}` was used on an earlier line"),
                    );
                }
            }
            _ => self.report(
                "conv/shape",
                "`conversation_id` must be a non-empty string".into(),
            ),
        }
        let intents = self.metadata(o.get("metadata"));
        let Some(messages) = o.get("messages").and_then(Value::as_array) else {
            return self.report("conv/shape", "`messages` must be an array".into());
        };
        let mut open: BTreeMap<String, usize> = BTreeMap::new();
        let mut seen_ids = BTreeSet::new();
        for (i, m) in messages.iter().enumerate() {
            self.message(i, m, intents.as_ref(), &mut open, &mut seen_ids);
        }
        for (id, i) in open {
            self.report(
                "calls/unanswered",
                format!("messages[{i}]: tool call `{id}` is never answered by a `tool` message"),
            );
        }
    }

    /// Checks `metadata`; returns its intents when they could be read.
    fn metadata(&mut self, m: Option<&Value>) -> Option<BTreeSet<String>> {
        let Some(m) = m.and_then(Value::as_object) else {
            let msg = if m.is_none() {
                "the conversation has no `metadata`"
            } else {
                "`metadata` must be an object"
            };
            self.report("conv/metadata", msg.into());
            return None;
        };
        let intents = strings(m.get("intents"));
        match &intents {
            None => self.report(
                "conv/metadata",
                "`metadata.intents` must be an array of strings".into(),
            ),
            Some(list) if list.is_empty() => {
                self.report("conv/metadata", "`metadata.intents` is empty".into())
            }
            Some(_) => {}
        }
        let n = intents.as_ref().map_or(0, Vec::len);
        match m.get("decision_category").and_then(Value::as_str) {
            Some("single_intent") if n > 1 => {
                self.report("conv/metadata", format!("`single_intent` with {n} intents"))
            }
            Some("multi_intent") if n < 2 && intents.is_some() => self.report(
                "conv/metadata",
                format!("`multi_intent` with {n} intent(s)"),
            ),
            Some("single_intent" | "multi_intent") => {}
            _ => self.report(
                "conv/metadata",
                "`metadata.decision_category` must be \"single_intent\" or \"multi_intent\"".into(),
            ),
        }
        if !matches!(
            m.get("difficulty").and_then(Value::as_str),
            Some("simple" | "complex")
        ) {
            self.report(
                "conv/metadata",
                "`metadata.difficulty` must be \"simple\" or \"complex\"".into(),
            );
        }
        intents.map(|l| l.into_iter().map(String::from).collect())
    }

    fn message(
        &mut self,
        i: usize,
        m: &Value,
        intents: Option<&BTreeSet<String>>,
        open: &mut BTreeMap<String, usize>,
        seen_ids: &mut BTreeSet<String>,
    ) {
        let at = format!("messages[{i}]");
        let Some(o) = m.as_object() else {
            return self.report(
                "msg/role",
                format!(
                    "{at}: a message is an object, not {}",
                    beaker_core::json_type(m)
                ),
            );
        };
        let role = o.get("role").and_then(Value::as_str).unwrap_or("");
        if !ROLES.contains(&role) {
            return self.report(
                "msg/role",
                format!("{at}: `role` must be one of system, user, assistant, tool"),
            );
        }
        match o.get("content") {
            None | Some(Value::Null) if role == "system" || role == "user" || role == "tool" => {
                self.report(
                    "msg/content",
                    format!("{at}: a {role} message needs string `content`"),
                )
            }
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => self.report(
                "msg/content",
                format!(
                    "{at}: `content` must be a string, not {}",
                    beaker_core::json_type(other)
                ),
            ),
        }
        if role != "assistant" {
            for k in ["reasoning", "tool_plan", "tool_calls"] {
                if o.contains_key(k) {
                    self.report(
                        "msg/fields",
                        format!(
                            "{at}: a {role} message has `{k}`, which only assistant turns carry"
                        ),
                    );
                }
            }
        }
        match role {
            "assistant" => {
                let stage = self.reasoning(&at, o.get("reasoning"), intents);
                self.plan(&at, o.get("tool_plan"), stage, intents);
                if let Some(calls) = o.get("tool_calls") {
                    self.calls(i, &at, calls, open, seen_ids);
                }
            }
            "tool" => match o.get("tool_call_id").and_then(Value::as_str) {
                Some(id) => {
                    if open.remove(id).is_none() {
                        let why = if seen_ids.contains(id) {
                            "was already answered"
                        } else {
                            "matches no earlier tool call"
                        };
                        self.report("calls/orphan", format!("{at}: `tool_call_id` `{id}` {why}"));
                    }
                }
                None => self.report(
                    "calls/orphan",
                    format!("{at}: a tool message needs a string `tool_call_id`"),
                ),
            },
            _ => {}
        }
    }

    /// Checks `reasoning`; returns its stage when it is a known one.
    fn reasoning(
        &mut self,
        at: &str,
        r: Option<&Value>,
        intents: Option<&BTreeSet<String>>,
    ) -> Option<usize> {
        let Some(r) = r.and_then(Value::as_object) else {
            self.report(
                "assistant/reasoning",
                format!("{at}: an assistant turn needs a `reasoning` object"),
            );
            return None;
        };
        let stage = r
            .get("stage")
            .and_then(Value::as_str)
            .and_then(|s| STAGES.iter().position(|x| *x == s));
        if stage.is_none() {
            self.report(
                "assistant/reasoning",
                format!(
                    "{at}: `reasoning.stage` must be one of {}",
                    STAGES.join(", ")
                ),
            );
        }
        match strings(r.get("focus_intents")) {
            None => self.report(
                "assistant/reasoning",
                format!("{at}: `reasoning.focus_intents` must be an array of strings"),
            ),
            Some(list) => {
                if let Some(intents) = intents {
                    for f in list.iter().filter(|f| !intents.contains(**f)) {
                        self.report(
                            "assistant/focus-intents",
                            format!("{at}: focus intent `{f}` is not in `metadata.intents`"),
                        );
                    }
                }
            }
        }
        if !r.get("summary").is_some_and(Value::is_string) {
            self.report(
                "assistant/reasoning",
                format!("{at}: `reasoning.summary` must be a string"),
            );
        }
        stage
    }

    fn plan(
        &mut self,
        at: &str,
        p: Option<&Value>,
        stage: Option<usize>,
        intents: Option<&BTreeSet<String>>,
    ) {
        let Some(p) = p.and_then(Value::as_object) else {
            return self.report(
                "assistant/tool-plan",
                format!("{at}: an assistant turn needs a `tool_plan` object"),
            );
        };
        if !matches!(
            p.get("strategy").and_then(Value::as_str),
            Some("sequential" | "parallel")
        ) {
            self.report(
                "assistant/tool-plan",
                format!("{at}: `tool_plan.strategy` must be \"sequential\" or \"parallel\""),
            );
        }
        let Some(steps) = p.get("steps").and_then(Value::as_array) else {
            return self.report(
                "assistant/tool-plan",
                format!("{at}: `tool_plan.steps` must be an array"),
            );
        };
        let mut by_id: BTreeMap<&str, (&Map<String, Value>, usize)> = BTreeMap::new();
        let mut phases = Vec::new();
        for (j, s) in steps.iter().enumerate() {
            let sat = format!("{at}.tool_plan.steps[{j}]");
            let Some(s) = s.as_object() else {
                self.report("assistant/tool-plan", format!("{sat}: a step is an object"));
                continue;
            };
            for k in s
                .keys()
                .filter(|k| !beaker_protocol::STEP_KEYS.contains(&k.as_str()))
            {
                self.report("plan/keys", format!("{sat}: unknown key `{k}` (a misspelling is ignored by whoever runs the plan)"));
            }
            if let Some(tool) = s
                .get("tool")
                .and_then(Value::as_str)
                .filter(|t| *t != "none")
            {
                if !self.cx.linter.registry.knows(tool) {
                    self.report(
                        "tool/unknown",
                        format!(
                            "{sat}: unknown tool `{tool}` (give its registry with --tools FILE)"
                        ),
                    );
                }
            }
            for (k, ok) in [
                ("step_id", s.get("step_id").is_some_and(Value::is_string)),
                ("tool", s.get("tool").is_some_and(Value::is_string)),
                (
                    "order",
                    s.get("order").is_some_and(|o| o.is_u64() || o.is_i64()),
                ),
            ] {
                if !ok {
                    let want = if k == "order" {
                        "an integer"
                    } else {
                        "a string"
                    };
                    self.report(
                        "assistant/tool-plan",
                        format!("{sat}: `{k}` must be {want}"),
                    );
                }
            }
            match s
                .get("phase")
                .and_then(Value::as_str)
                .map(|p| STAGES.iter().position(|x| *x == p))
            {
                Some(Some(ph)) => phases.push(ph),
                Some(None) | None if s.contains_key("phase") => self.report(
                    "assistant/tool-plan",
                    format!("{sat}: `phase` must be one of {}", STAGES.join(", ")),
                ),
                _ => {}
            }
            if let Some(list) = s.get("intent_ids") {
                match (strings(Some(list)), intents) {
                    (None, _) => self.report(
                        "assistant/tool-plan",
                        format!("{sat}: `intent_ids` must be an array of strings"),
                    ),
                    (Some(list), Some(intents)) => {
                        for x in list.iter().filter(|x| !intents.contains(**x)) {
                            self.report(
                                "plan/intents",
                                format!("{sat}: intent `{x}` is not in `metadata.intents`"),
                            );
                        }
                    }
                    _ => {}
                }
            }
            if s.get("depends_on")
                .is_some_and(|d| strings(Some(d)).is_none())
            {
                self.report(
                    "assistant/tool-plan",
                    format!("{sat}: `depends_on` must be an array of step ids"),
                );
            }
            if let Some(id) = s.get("step_id").and_then(Value::as_str) {
                if by_id.insert(id, (s, j)).is_some() {
                    self.report(
                        "plan/step-id",
                        format!("{sat}: step id `{id}` is used twice in the plan"),
                    );
                }
            }
        }
        if let Some(stage) = stage {
            if !phases.is_empty() && !phases.contains(&stage) {
                self.report(
                    "plan/stage",
                    format!("{at}: no step is in the turn's stage `{}`", STAGES[stage]),
                );
            }
            if let Some(&early) = phases.iter().filter(|&&p| p < stage).min() {
                self.report(
                    "plan/stage",
                    format!(
                        "{at}: a step is in phase `{}`, before the turn's stage `{}`",
                        STAGES[early], STAGES[stage]
                    ),
                );
            }
        }
        self.dependencies(at, &by_id);
    }

    fn dependencies(&mut self, at: &str, by_id: &BTreeMap<&str, (&Map<String, Value>, usize)>) {
        let deps = |s: &Map<String, Value>| -> Vec<String> {
            strings(s.get("depends_on"))
                .unwrap_or_default()
                .into_iter()
                .map(String::from)
                .collect()
        };
        // A cycle: depth-first search with colours (0 new, 1 on the path, 2 done).
        let mut colour: BTreeMap<&str, u8> = BTreeMap::new();
        for start in by_id.keys() {
            if colour.get(start).copied().unwrap_or(0) != 0 {
                continue;
            }
            let mut stack = vec![(*start, 0usize)];
            colour.insert(start, 1);
            while let Some((node, next)) = stack.pop() {
                let ds = by_id.get(node).map(|(s, _)| deps(s)).unwrap_or_default();
                if let Some(d) = ds.get(next) {
                    stack.push((node, next + 1));
                    let Some((key, _)) = by_id.get_key_value(d.as_str()) else {
                        continue;
                    };
                    match colour.get(key).copied().unwrap_or(0) {
                        0 => {
                            colour.insert(key, 1);
                            stack.push((key, 0));
                        }
                        1 => {
                            self.report(
                                "plan/cycle",
                                format!(
                                    "{at}: `depends_on` has a cycle through `{node}` and `{key}`"
                                ),
                            );
                            // The orders around a cycle cannot all increase: that is the cycle's fault.
                            return;
                        }
                        _ => {}
                    }
                } else {
                    colour.insert(node, 2);
                }
            }
        }
        for (id, (s, j)) in by_id {
            let listed = deps(s);
            for (k, d) in listed.iter().enumerate() {
                if listed[..k].contains(d) {
                    self.report(
                        "plan/depends-on",
                        format!("{at}.tool_plan.steps[{j}]: `{id}` lists `{d}` twice"),
                    );
                }
            }
            for d in listed {
                match by_id.get(d.as_str()) {
                    None => self.report("plan/depends-on", format!("{at}.tool_plan.steps[{j}]: `{id}` depends on `{d}`, which is not a step of this plan")),
                    Some((t, _)) => {
                        let (a, b) = (s.get("order").and_then(Value::as_i64), t.get("order").and_then(Value::as_i64));
                        if let (Some(a), Some(b)) = (a, b) {
                            if a <= b {
                                self.report("plan/order", format!("{at}.tool_plan.steps[{j}]: `{id}` (order {a}) depends on `{d}` (order {b})"));
                            }
                        }
                    }
                }
            }
        }
    }

    fn calls(
        &mut self,
        i: usize,
        at: &str,
        calls: &Value,
        open: &mut BTreeMap<String, usize>,
        seen: &mut BTreeSet<String>,
    ) {
        let Some(list) = calls.as_array() else {
            return self.report(
                "calls/shape",
                format!("{at}: `tool_calls` must be an array"),
            );
        };
        for (k, c) in list.iter().enumerate() {
            let cat = format!("{at}.tool_calls[{k}]");
            let Some(c) = c.as_object() else {
                self.report("calls/shape", format!("{cat}: a tool call is an object"));
                continue;
            };
            match c.get("id").and_then(Value::as_str) {
                Some(id) => {
                    if !seen.insert(id.to_string()) {
                        self.report(
                            "calls/duplicate-id",
                            format!("{cat}: tool call id `{id}` is used twice in the conversation"),
                        );
                    } else {
                        open.insert(id.to_string(), i);
                    }
                }
                None => self.report("calls/shape", format!("{cat}: `id` must be a string")),
            }
            if c.get("type").and_then(Value::as_str) != Some("function") {
                self.report("calls/shape", format!("{cat}: `type` must be \"function\""));
            }
            let f = c.get("function").and_then(Value::as_object);
            let name = f.and_then(|f| f.get("name")).and_then(Value::as_str);
            let Some(name) = name else {
                self.report(
                    "calls/shape",
                    format!("{cat}: `function.name` must be a string"),
                );
                continue;
            };
            let args = match f.and_then(|f| f.get("arguments")) {
                Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                    Ok(v @ Value::Object(_)) => v,
                    Ok(v) => {
                        self.report(
                            "calls/shape",
                            format!(
                                "{cat}: `function.arguments` encodes {}, not an object",
                                beaker_core::json_type(&v)
                            ),
                        );
                        continue;
                    }
                    Err(e) => {
                        self.report(
                            "calls/shape",
                            format!("{cat}: `function.arguments` is not JSON: {e}"),
                        );
                        continue;
                    }
                },
                Some(other) => {
                    self.report("calls/shape", format!("{cat}: `function.arguments` must be a JSON string, not {} (OpenAI sends the arguments encoded)", beaker_core::json_type(other)));
                    continue;
                }
                None => {
                    self.report(
                        "calls/shape",
                        format!("{cat}: `function.arguments` is missing"),
                    );
                    continue;
                }
            };
            if let Some((rule, msg)) = self.cx.tool_call(name, &args) {
                self.report(rule, format!("{cat}: {msg}"));
            }
        }
    }
}
