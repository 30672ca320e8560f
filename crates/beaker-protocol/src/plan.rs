//! Tool plans (seed 004's `tool_plan`): steps run as soon as the steps they depend on have succeeded, several
//! at once when they can; a failed step stops the steps that depend on it, and the report says which steps
//! ran, in what order, with what results.

use crate::dispatch::{Dispatcher, Handle};
use beaker_core::{stable_hash, Envelope, ErrorKind, LimitsRequest, ToolCall, ToolError};
use beaker_engine::{CallHandle, Engine};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Most steps in one plan: far above what a turn plans, and it bounds the work a plan can queue.
pub const MAX_PLAN_STEPS: usize = 256;

/// The tool name of a step that does no call (seed 004's `"tool": "none"`, a slot-collecting step): it
/// succeeds at once with a `null` result.
pub const NO_TOOL: &str = "none";

/// How a plan's steps are ordered besides `depends_on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// A step also waits for every step of a lower `order` (steps of one order may run together).
    Sequential,
    /// Only `depends_on` orders the steps.
    Parallel,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanStep {
    /// The step's id, unique in the plan.
    pub step_id: String,
    /// The tool to call, or [`NO_TOOL`].
    pub tool: String,
    /// The call's params (`params`, or OpenAI-style `arguments` as an object or a JSON string).
    pub params: Value,
    /// Steps that must succeed first.
    pub depends_on: Vec<String>,
    /// The step's place in a sequential plan (its position when not given).
    pub order: i64,
    /// This step's own limits (over the plan's).
    pub limits: Option<LimitsRequest>,
}

/// A plan to execute.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRequest {
    /// The steps, in the plan's order.
    pub steps: Vec<PlanStep>,
    /// `sequential` (the default) or `parallel`.
    pub strategy: Strategy,
    /// Limits for every step's call.
    pub limits: LimitsRequest,
    /// The trajectory the calls belong to (`cancel_tag` cancels them; it feeds their seeds).
    pub tag: Option<String>,
    /// The seed the steps' seeds derive from.
    pub seed: Option<u64>,
    /// The dataset the steps read (the request's `dataset`).
    pub dataset: Option<String>,
}

/// The keys a step may have: what the plan uses, and seed 004's descriptive keys. Anything else is most likely
/// a misspelling (`depend_on`), which silently ignored would run a step too early.
pub const STEP_KEYS: [&str; 12] = [
    "step_id",
    "tool",
    "params",
    "arguments",
    "depends_on",
    "order",
    "limits",
    "task",
    "intent_ids",
    "phase",
    "slots_used",
    "parallel_group",
];

/// The keys a plan may have.
const PLAN_KEYS: [&str; 5] = ["strategy", "steps", "limits", "tag", "seed"];

/// The known key closest to `key`, when it is close (a misspelling).
fn near<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (strsim::jaro_winkler(key, k), *k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

fn unknown_key(at: &str, key: &str, known: &[&str]) -> ToolError {
    let hint = near(key, known).map_or_else(String::new, |k| format!("; did you mean `{k}`?"));
    invalid(format!(
        "unknown key `{key}` in `{at}` (known: {}){hint}",
        known.join(", ")
    ))
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::new(ErrorKind::InvalidParams, message)
}

impl PlanRequest {
    /// Reads a plan: `{"strategy"?, "steps": [{"step_id", "tool", "params" | "arguments"?, "depends_on"?,
    /// "order"?, "limits"?, …}]}` (other step keys, such as seed 004's `task` or `phase`, are kept out of
    /// the way). Refuses duplicate ids, unknown dependencies, cycles and more than [`MAX_PLAN_STEPS`] steps.
    pub fn from_json(plan: &Value) -> Result<PlanRequest, ToolError> {
        let obj = plan
            .as_object()
            .ok_or_else(|| invalid("`plan` must be an object with `steps`"))?;
        if let Some(k) = obj.keys().find(|k| !PLAN_KEYS.contains(&k.as_str())) {
            return Err(unknown_key("plan", k, &PLAN_KEYS));
        }
        let strategy = match obj.get("strategy").and_then(Value::as_str) {
            None | Some("sequential") => Strategy::Sequential,
            Some("parallel") => Strategy::Parallel,
            Some(other) => {
                return Err(invalid(format!(
                    "`plan.strategy` must be \"sequential\" or \"parallel\", got \"{other}\""
                )))
            }
        };
        let raw = obj
            .get("steps")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("`plan.steps` must be an array"))?;
        if raw.len() > MAX_PLAN_STEPS {
            return Err(ToolError::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the plan has {} steps; the limit is {MAX_PLAN_STEPS}",
                    raw.len()
                ),
            ));
        }
        let mut steps = Vec::with_capacity(raw.len());
        for (i, s) in raw.iter().enumerate() {
            steps.push(step(i, s)?);
        }
        let mut index = HashMap::new();
        for (i, s) in steps.iter().enumerate() {
            if index.insert(s.step_id.as_str(), i).is_some() {
                return Err(invalid(format!(
                    "step id `{}` is used twice in the plan",
                    s.step_id
                )));
            }
        }
        for s in &steps {
            for (k, d) in s.depends_on.iter().enumerate() {
                let Some(&j) = index.get(d.as_str()) else {
                    return Err(invalid(format!(
                        "step `{}` depends on `{d}`, which is not a step of the plan",
                        s.step_id
                    )));
                };
                if s.depends_on[..k].contains(d) {
                    return Err(invalid(format!(
                        "step `{}` lists `{d}` twice in `depends_on`",
                        s.step_id
                    )));
                }
                // In a sequential plan a step already waits for every lower order: depending on a higher one
                // can never be met, and saying so beats reporting the cycle it makes.
                if strategy == Strategy::Sequential && steps[j].order > s.order {
                    return Err(invalid(format!(
                        "step `{}` (order {}) depends on `{d}` (order {}): in a sequential plan a step runs \
                         after every step of a lower order, so it cannot wait for a higher one",
                        s.step_id, s.order, steps[j].order
                    )));
                }
            }
        }
        let plan = PlanRequest {
            steps,
            strategy,
            limits: match obj.get("limits") {
                Some(l) => serde_json::from_value(l.clone())
                    .map_err(|e| invalid(format!("`plan.limits`: {e}")))?,
                None => LimitsRequest::default(),
            },
            tag: obj.get("tag").and_then(Value::as_str).map(String::from),
            seed: obj.get("seed").and_then(Value::as_u64),
            dataset: None,
        };
        if let Some(at) = plan.cycle() {
            return Err(invalid(format!(
                "the plan's dependencies have a cycle through step `{}`",
                plan.steps[at].step_id
            )));
        }
        Ok(plan)
    }

    /// Every step's prerequisites (indices): `depends_on`, and in a sequential plan every step of a lower
    /// order.
    fn prerequisites(&self) -> Vec<Vec<usize>> {
        let index: HashMap<&str, usize> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| (s.step_id.as_str(), i))
            .collect();
        self.steps
            .iter()
            .map(|s| {
                let mut pre: Vec<usize> = s
                    .depends_on
                    .iter()
                    .filter_map(|d| index.get(d.as_str()).copied())
                    .collect();
                if self.strategy == Strategy::Sequential {
                    pre.extend(
                        self.steps
                            .iter()
                            .enumerate()
                            .filter(|(_, t)| t.order < s.order)
                            .map(|(j, _)| j),
                    );
                }
                pre.sort_unstable();
                pre.dedup();
                pre
            })
            .collect()
    }

    /// A step on a cycle of prerequisites, if there is one (Kahn's algorithm: what cannot be ordered).
    fn cycle(&self) -> Option<usize> {
        let pre = self.prerequisites();
        let mut waiting: Vec<usize> = pre.iter().map(Vec::len).collect();
        let mut after = vec![Vec::new(); pre.len()];
        for (i, p) in pre.iter().enumerate() {
            for &j in p {
                after[j].push(i);
            }
        }
        let mut ready: Vec<usize> = (0..pre.len()).filter(|&i| waiting[i] == 0).collect();
        let mut done = 0;
        while let Some(i) = ready.pop() {
            done += 1;
            for &k in &after[i] {
                waiting[k] -= 1;
                if waiting[k] == 0 {
                    ready.push(k);
                }
            }
        }
        (done < pre.len()).then(|| waiting.iter().position(|&w| w > 0).unwrap_or(0))
    }
}

fn step(i: usize, s: &Value) -> Result<PlanStep, ToolError> {
    let at = format!("plan.steps[{i}]");
    let o = s
        .as_object()
        .ok_or_else(|| invalid(format!("`{at}` must be an object")))?;
    if let Some(k) = o.keys().find(|k| !STEP_KEYS.contains(&k.as_str())) {
        return Err(unknown_key(&at, k, &STEP_KEYS));
    }
    let text = |k: &str| -> Result<String, ToolError> {
        match o.get(k) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(invalid(format!("`{at}.{k}` must be a string"))),
            None => Err(invalid(format!("`{at}` has no `{k}`"))),
        }
    };
    let params = match (o.get("params"), o.get("arguments")) {
        (Some(p @ Value::Object(_)), None) => p.clone(),
        (None, Some(Value::String(s))) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| invalid(format!("`{at}.arguments` is not a JSON object")))?,
        (None, Some(a @ Value::Object(_))) => a.clone(),
        (None, None) => Value::Object(Map::new()),
        (Some(_), Some(_)) => {
            return Err(invalid(format!(
                "`{at}` has both `params` and `arguments`; give one"
            )))
        }
        _ => {
            return Err(invalid(format!(
                "`{at}.params` must be an object (or `arguments` a JSON string of one)"
            )))
        }
    };
    let depends_on = match o.get("depends_on") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|d| d.as_str().map(String::from))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid(format!("`{at}.depends_on` must be an array of step ids")))?,
        Some(_) => {
            return Err(invalid(format!(
                "`{at}.depends_on` must be an array of step ids"
            )))
        }
    };
    let order = match o.get("order") {
        None | Some(Value::Null) => i64::try_from(i).unwrap_or(i64::MAX),
        Some(v) => v
            .as_i64()
            .ok_or_else(|| invalid(format!("`{at}.order` must be an integer")))?,
    };
    let limits = match o.get("limits") {
        Some(l) => Some(
            serde_json::from_value(l.clone())
                .map_err(|e| invalid(format!("`{at}.limits`: {e}")))?,
        ),
        None => None,
    };
    Ok(PlanStep {
        step_id: text("step_id")?,
        tool: text("tool")?,
        params,
        depends_on,
        order,
        limits,
    })
}

/// What happened to one step.
#[derive(Debug, Clone, PartialEq)]
pub enum StepOutcome {
    /// It ran; its envelope (successful or not).
    Ran(Box<Envelope>),
    /// It did not run, and why (a prerequisite failed, the plan was cancelled).
    Skipped(String),
}

/// A step's report.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// The step's id.
    pub step_id: String,
    /// Its tool.
    pub tool: String,
    /// Its place in the order steps started (from 0), if it started.
    pub started: Option<usize>,
    /// What happened.
    pub outcome: StepOutcome,
}

impl StepReport {
    /// Whether the step ran and succeeded.
    pub fn succeeded(&self) -> bool {
        matches!(&self.outcome, StepOutcome::Ran(e) if e.success)
    }
}

/// What executing a plan did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlanReport {
    /// Every step, in the plan's order.
    pub steps: Vec<StepReport>,
    /// The step ids in the order they started.
    pub order: Vec<String>,
}

impl PlanReport {
    /// Whether every step succeeded.
    pub fn success(&self) -> bool {
        self.steps.iter().all(StepReport::succeeded)
    }

    /// The report as the protocol answers it: `{"success", "order", "steps": [{"step_id", "tool", "status",
    /// "started"?, "result" | "error", "error_kind", …, "reason"?}]}`.
    pub fn to_json(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|s| {
                let mut o = Map::new();
                o.insert("step_id".into(), s.step_id.clone().into());
                o.insert("tool".into(), s.tool.clone().into());
                match &s.outcome {
                    StepOutcome::Ran(env) => {
                        let status = if env.success { "succeeded" } else { "failed" };
                        o.insert("status".into(), status.into());
                        if let Some(n) = s.started {
                            o.insert("started".into(), n.into());
                        }
                        if let Ok(Value::Object(e)) = serde_json::to_value(env.as_ref()) {
                            for (k, v) in e {
                                if !matches!(k.as_str(), "id" | "tool") {
                                    o.insert(k, v);
                                }
                            }
                        }
                    }
                    StepOutcome::Skipped(why) => {
                        o.insert("status".into(), "skipped".into());
                        o.insert("reason".into(), why.clone().into());
                    }
                }
                Value::Object(o)
            })
            .collect();
        json!({"success": self.success(), "order": self.order, "steps": steps})
    }
}

type OnDone = Box<dyn FnOnce(PlanReport) + Send>;

/// A plan in execution, shared by the calls' callbacks.
pub(crate) struct Running {
    engine: Engine,
    plan: PlanRequest,
    base_seed: u64,
    state: Mutex<State>,
}

struct State {
    prerequisites: Vec<Vec<usize>>,
    outcomes: Vec<Option<StepOutcome>>,
    started: Vec<Option<usize>>,
    order: Vec<String>,
    handles: HashMap<usize, CallHandle>,
    cancelled: bool,
    on_done: Option<OnDone>,
}

impl Running {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Starts every step whose prerequisites have all succeeded (skipping those whose prerequisite failed),
    /// then, if nothing is left, reports.
    fn advance(self: &Arc<Self>) {
        loop {
            let ready = {
                let mut st = self.lock();
                let n = st.outcomes.len();
                let mut ready = Vec::new();
                for i in 0..n {
                    if st.outcomes[i].is_some() || st.started[i].is_some() {
                        continue;
                    }
                    if st.cancelled {
                        st.outcomes[i] =
                            Some(StepOutcome::Skipped("the plan was cancelled".into()));
                        continue;
                    }
                    let blocked = st.prerequisites[i]
                        .iter()
                        .find(|&&j| match &st.outcomes[j] {
                            Some(StepOutcome::Ran(e)) => !e.success,
                            Some(StepOutcome::Skipped(_)) => true,
                            None => false,
                        });
                    if let Some(&j) = blocked {
                        let why = format!("step `{}` did not succeed", self.plan.steps[j].step_id);
                        st.outcomes[i] = Some(StepOutcome::Skipped(why));
                        continue;
                    }
                    let waiting = st.prerequisites[i]
                        .iter()
                        .any(|&j| st.outcomes[j].is_none());
                    if !waiting {
                        let pos = st.order.len();
                        st.started[i] = Some(pos);
                        st.order.push(self.plan.steps[i].step_id.clone());
                        ready.push(i);
                    }
                }
                ready
            };
            if ready.is_empty() {
                break;
            }
            for i in ready {
                self.start(i);
            }
        }
        self.finish_if_done();
    }

    /// Runs step `i` (its call is submitted without the lock held: a call refused at once answers on this
    /// thread).
    fn start(self: &Arc<Self>, i: usize) {
        let step = &self.plan.steps[i];
        if step.tool == NO_TOOL {
            let env = Envelope::success(
                Some(Value::String(step.step_id.clone())),
                NO_TOOL,
                Value::Null,
            );
            self.lock().outcomes[i] = Some(StepOutcome::Ran(Box::new(env)));
            return;
        }
        let call = ToolCall {
            id: Some(Value::String(step.step_id.clone())),
            tool: step.tool.clone(),
            params: step.params.clone(),
            limits: step.limits.unwrap_or(self.plan.limits),
            meta: None,
            tag: self.plan.tag.clone(),
            dataset: self.plan.dataset.clone(),
            seed: Some(stable_hash(&[
                &self.base_seed.to_le_bytes(),
                step.step_id.as_bytes(),
            ])),
        };
        let me = self.clone();
        let handle = self.engine.submit(call, move |env| {
            {
                let mut st = me.lock();
                st.handles.remove(&i);
                st.outcomes[i] = Some(StepOutcome::Ran(Box::new(env)));
            }
            me.advance();
        });
        let mut st = self.lock();
        if st.outcomes[i].is_none() {
            st.handles.insert(i, handle);
        }
    }

    fn finish_if_done(&self) {
        let report = {
            let mut st = self.lock();
            if st.outcomes.iter().any(Option::is_none) || st.on_done.is_none() {
                return;
            }
            let steps = self
                .plan
                .steps
                .iter()
                .enumerate()
                .map(|(i, s)| StepReport {
                    step_id: s.step_id.clone(),
                    tool: s.tool.clone(),
                    started: st.started[i],
                    outcome: st.outcomes[i]
                        .clone()
                        .unwrap_or(StepOutcome::Skipped(String::new())),
                })
                .collect();
            let report = PlanReport {
                steps,
                order: st.order.clone(),
            };
            st.on_done.take().map(|f| (f, report))
        };
        if let Some((f, report)) = report {
            f(report);
        }
    }

    /// Cancels the steps running and skips those not started; false when the plan had already finished.
    pub(crate) fn cancel(self: &Arc<Self>) -> bool {
        let handles: Vec<CallHandle> = {
            let mut st = self.lock();
            if st.on_done.is_none() {
                return false;
            }
            st.cancelled = true;
            st.handles.values().cloned().collect()
        };
        for h in handles {
            h.cancel();
        }
        self.advance();
        true
    }

    /// Whether the report has been given.
    pub(crate) fn is_done(&self) -> bool {
        self.lock().on_done.is_none()
    }
}

impl Dispatcher {
    /// Executes a plan; `on_done` receives the report once, when every step has run or been skipped. The
    /// handle cancels the whole plan.
    pub fn submit_plan(
        &self,
        plan: PlanRequest,
        on_done: impl FnOnce(PlanReport) + Send + 'static,
    ) -> Handle {
        let n = plan.steps.len();
        let base_seed = plan
            .seed
            .unwrap_or_else(|| stable_hash(&[plan.tag.as_deref().unwrap_or("").as_bytes()]));
        let running = Arc::new(Running {
            engine: self.engine.clone(),
            state: Mutex::new(State {
                prerequisites: plan.prerequisites(),
                outcomes: vec![None; n],
                started: vec![None; n],
                order: Vec::new(),
                handles: HashMap::new(),
                cancelled: false,
                on_done: Some(Box::new(on_done)),
            }),
            plan,
            base_seed,
        });
        running.advance();
        Handle::plan(running)
    }

    /// Executes a plan and waits for its report.
    pub fn run_plan(&self, plan: PlanRequest) -> PlanReport {
        let (tx, rx) = flume::bounded(1);
        self.submit_plan(plan, move |r| {
            let _ = tx.send(r);
        });
        beaker_engine::recv_spinning(&rx).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
