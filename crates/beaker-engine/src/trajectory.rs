//! Trajectories: what the calls of one tag (one rollout) have used, and the budgets that bound it.
//!
//! Every call with a `tag` is counted against its trajectory: calls, successes, errors by kind, time, fuel and
//! output bytes, per tool. A trajectory may carry budgets (`max_calls`, `max_total_ms`, `max_output_bytes`): a
//! call past one is answered `limit_exceeded` saying which ran out, before it runs. Trajectories are freed by
//! `close`, expire when idle, and are capped in number (the least recently used idle one makes room), so memory
//! stays bounded however many rollouts a server sees.

use beaker_core::{
    Envelope, ErrorKind, MemoryBudget, Tenant, ToolError, Workspace, WorkspaceLimits,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A trajectory's budgets; each absent one is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrajectoryLimits {
    /// Calls that may run (the calls refused by a budget are not counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_calls: Option<u64>,
    /// Milliseconds of call time (the sum of the calls' `elapsed_us`; calls running at once each count); a
    /// call also gets at most what is left as its timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_ms: Option<u64>,
    /// Bytes of results (each call's `result`, or its error, as compact JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_bytes: Option<u64>,
}

/// One tool's use within a trajectory.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolUse {
    /// Calls answered (refusals included).
    pub calls: u64,
    /// Of those, successes.
    pub successes: u64,
    /// Summed call time, microseconds.
    pub time_us: u64,
    /// Summed WebAssembly fuel (sandboxed tools).
    pub fuel: u64,
}

#[derive(Debug, Default)]
struct Trajectory {
    /// Which opening of the tag this is: a call admitted before a `close` is not counted in the trajectory
    /// opened after it.
    generation: u64,
    limits: TrajectoryLimits,
    /// Calls admitted and not yet answered.
    in_flight: u64,
    /// Calls admitted and answered.
    ran: u64,
    /// Every call answered, refusals included.
    calls: u64,
    successes: u64,
    errors: BTreeMap<String, u64>,
    time_us: u64,
    fuel: u64,
    output_bytes: u64,
    tools: BTreeMap<String, ToolUse>,
    last_used: Option<Instant>,
    /// Its files, made by its first call that runs.
    workspace: Option<Workspace>,
}

impl Trajectory {
    /// Why a new call may not run, if a budget is spent.
    fn spent(&self, tag: &str) -> Option<String> {
        let l = &self.limits;
        if let Some(max) = l.max_calls {
            if self.ran + self.in_flight >= max {
                return Some(format!(
                    "trajectory `{tag}` has used its budget of {max} calls (max_calls)"
                ));
            }
        }
        if let Some(max) = l.max_total_ms {
            if self.time_us >= max.saturating_mul(1000) {
                return Some(format!(
                    "trajectory `{tag}` has used its budget of {max} ms of call time (max_total_ms): {:.1} ms used",
                    self.time_us as f64 / 1000.0
                ));
            }
        }
        if let Some(max) = l.max_output_bytes {
            if self.output_bytes >= max {
                return Some(format!(
                    "trajectory `{tag}` has used its budget of {max} result bytes (max_output_bytes): {} used",
                    self.output_bytes
                ));
            }
        }
        None
    }

    fn to_json(&self, tag: &str) -> Value {
        let (files, bytes) = self.workspace.as_ref().map_or((0, 0), Workspace::usage);
        let l = &self.limits;
        let mut remaining = Map::new();
        if let Some(m) = l.max_calls {
            remaining.insert(
                "calls".into(),
                json!(m.saturating_sub(self.ran + self.in_flight)),
            );
        }
        if let Some(m) = l.max_total_ms {
            remaining.insert(
                "total_ms".into(),
                json!(m.saturating_sub(self.time_us / 1000)),
            );
        }
        if let Some(m) = l.max_output_bytes {
            remaining.insert(
                "output_bytes".into(),
                json!(m.saturating_sub(self.output_bytes)),
            );
        }
        json!({
            "trajectory": tag,
            "calls": self.calls,
            "successes": self.successes,
            "errors": self.calls - self.successes,
            "errors_by_kind": self.errors,
            "in_flight": self.in_flight,
            "time_ms": self.time_us as f64 / 1000.0,
            "fuel": self.fuel,
            "output_bytes": self.output_bytes,
            "tools": self.tools.iter().map(|(k, u)| (k.clone(), json!({
                "calls": u.calls, "successes": u.successes, "time_ms": u.time_us as f64 / 1000.0, "fuel": u.fuel,
            }))).collect::<Map<String, Value>>(),
            "limits": l,
            "remaining": remaining,
            "workspace": {
                "files": files,
                "bytes": bytes,
            },
        })
    }
}

/// Every open trajectory of an engine.
#[derive(Debug)]
pub(crate) struct Trajectories {
    map: Mutex<Open>,
    /// How long a trajectory with nothing in flight is kept after its last call.
    idle: Duration,
    /// The most trajectories kept at once.
    max: usize,
    /// When the map was last swept for idle trajectories.
    swept: Mutex<Instant>,
    /// The last generation given to a trajectory.
    generations: std::sync::atomic::AtomicU64,
    /// The bounds of each trajectory's workspace.
    workspace_limits: WorkspaceLimits,
    /// What workspaces reserve their bytes from.
    memory: MemoryBudget,
}

/// The open trajectories, each tenant's apart: a tag names a trajectory only within its tenant.
#[derive(Debug, Default)]
struct Open {
    by_tenant: HashMap<Tenant, HashMap<String, Trajectory>>,
    /// Trajectories open across every tenant.
    total: usize,
}

impl Open {
    fn get_mut(&mut self, tenant: &Tenant, tag: &str) -> Option<&mut Trajectory> {
        self.by_tenant.get_mut(tenant)?.get_mut(tag)
    }

    fn remove(&mut self, tenant: &Tenant, tag: &str) -> Option<Trajectory> {
        let tags = self.by_tenant.get_mut(tenant)?;
        let t = tags.remove(tag)?;
        self.total -= 1;
        if tags.is_empty() {
            self.by_tenant.remove(tenant);
        }
        Some(t)
    }
}

/// What admitting a call decided.
enum Admission {
    /// The call may run, with at most this many milliseconds when a time budget is set; `generation` is the
    /// trajectory's, to hand back to [`Trajectories::record`].
    Run {
        /// The time budget left, when one is set.
        max_ms: Option<u64>,
        /// Which opening of the trajectory admitted the call.
        generation: u64,
        /// The trajectory's files.
        workspace: Workspace,
    },
    /// A budget is spent: the call is answered with this error.
    Refused(ToolError),
}

/// A call's answer, as the engine hands it on.
pub(crate) type OnDone = Box<dyn FnOnce(Envelope) + Send>;

/// What the budgets layer made of a call before it is queued ([`Trajectories::around`]).
pub(crate) struct Budgeted {
    /// Why the call is refused (one of its trajectory's budgets is spent), if it is.
    pub(crate) refusal: Option<ToolError>,
    /// The longest the call may run: what is left of its trajectory's time budget.
    pub(crate) max_ms: Option<u64>,
    /// Where its envelope goes: recorded in the trajectory first, then handed on.
    pub(crate) on_done: OnDone,
    /// Its trajectory's files (`None`: an untagged call, which gets a one-call workspace).
    pub(crate) workspace: Option<Workspace>,
}

impl Trajectories {
    pub(crate) fn new(idle: Duration, max: usize) -> Trajectories {
        Trajectories {
            map: Mutex::new(Open::default()),
            idle,
            max: max.max(1),
            swept: Mutex::new(Instant::now()),
            generations: std::sync::atomic::AtomicU64::new(0),
            workspace_limits: WorkspaceLimits::default(),
            memory: MemoryBudget::unlimited(),
        }
    }

    /// The same, with each trajectory's workspace bounded by `limits` and reserved from `memory`.
    pub(crate) fn with_workspaces(mut self, limits: WorkspaceLimits, memory: MemoryBudget) -> Self {
        self.workspace_limits = limits;
        self.memory = memory;
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The trajectory `tag` of `tenant`, made (room being made first) when it is new.
    fn entry<'a>(&self, open: &'a mut Open, tenant: &Tenant, tag: &str) -> &'a mut Trajectory {
        let known = open
            .by_tenant
            .get(tenant)
            .is_some_and(|tags| tags.contains_key(tag));
        if !known {
            self.make_room(open);
            open.total += 1;
        }
        let t = open
            .by_tenant
            .entry(tenant.clone())
            .or_default()
            .entry(tag.to_string())
            .or_insert_with(|| Trajectory {
                generation: self
                    .generations
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    + 1,
                ..Trajectory::default()
            });
        t.last_used = Some(Instant::now());
        t
    }

    /// Drops idle trajectories (at most once a second, or when full), then, when still full, the least recently
    /// used eighth of the idle ones of the tenant holding the most: one client opening trajectories without end
    /// evicts its own, never another's while it holds more than that one.
    fn make_room(&self, open: &mut Open) {
        let now = Instant::now();
        let full = open.total >= self.max;
        {
            let mut swept = self.swept.lock().unwrap_or_else(|p| p.into_inner());
            if full || now.duration_since(*swept) >= Duration::from_secs(1) {
                *swept = now;
                for tags in open.by_tenant.values_mut() {
                    tags.retain(|_, t| {
                        t.in_flight > 0
                            || t.last_used
                                .is_some_and(|u| now.duration_since(u) < self.idle)
                    });
                }
                open.by_tenant.retain(|_, tags| !tags.is_empty());
                open.total = open.by_tenant.values().map(HashMap::len).sum();
            }
        }
        if open.total < self.max {
            return;
        }
        let idle =
            |tags: &HashMap<String, Trajectory>| tags.values().filter(|t| t.in_flight == 0).count();
        let Some((tenant, _)) = open
            .by_tenant
            .iter()
            .filter(|(_, tags)| idle(tags) > 0)
            .max_by_key(|(_, tags)| tags.len())
        else {
            return;
        };
        let tenant = tenant.clone();
        let Some(tags) = open.by_tenant.get_mut(&tenant) else {
            return;
        };
        // An eighth at a time, so a full map pays for the sort once per many new trajectories.
        let mut idle: Vec<(Option<Instant>, String)> = tags
            .iter()
            .filter(|(_, t)| t.in_flight == 0)
            .map(|(k, t)| (t.last_used, k.clone()))
            .collect();
        let n = (self.max / 8).max(1).min(idle.len());
        if n > 0 {
            idle.select_nth_unstable(n - 1);
            for (_, k) in idle.into_iter().take(n) {
                open.remove(&tenant, &k);
            }
        }
    }

    /// Sets (replaces) the budgets of `tag`, opening it if it is new; its figures so far.
    pub(crate) fn set_limits(&self, tenant: &Tenant, tag: &str, limits: TrajectoryLimits) -> Value {
        let mut map = self.lock();
        let t = self.entry(&mut map, tenant, tag);
        t.limits = limits;
        t.to_json(tag)
    }

    /// The budgets layer around `submit`: a call of trajectory `tag` is admitted (counted in flight, its time
    /// bounded by what is left) or refused when a budget is spent, and its answer is recorded before `on_done`
    /// gets it. A call without a tag passes untouched.
    pub(crate) fn around(
        self: &Arc<Self>,
        tenant: &Tenant,
        tag: Option<&str>,
        on_done: impl FnOnce(Envelope) + Send + 'static,
    ) -> Budgeted {
        let Some(tag) = tag else {
            return Budgeted {
                refusal: None,
                max_ms: None,
                on_done: Box::new(on_done),
                workspace: None,
            };
        };
        let (refusal, max_ms, admitted, workspace) = match self.admit(tenant, tag) {
            Admission::Run {
                max_ms,
                generation,
                workspace,
            } => (None, max_ms, Some(generation), Some(workspace)),
            Admission::Refused(e) => (Some(e), None, None, None),
        };
        let (me, tenant, tag) = (self.clone(), tenant.clone(), tag.to_string());
        Budgeted {
            refusal,
            max_ms,
            on_done: Box::new(move |env: Envelope| {
                me.record(&tenant, &tag, admitted, &env);
                on_done(env);
            }),
            workspace,
        }
    }

    /// Decides whether a call of `tag` may run, and counts it in flight if so.
    fn admit(&self, tenant: &Tenant, tag: &str) -> Admission {
        let mut map = self.lock();
        let t = self.entry(&mut map, tenant, tag);
        if let Some(why) = t.spent(tag) {
            return Admission::Refused(ToolError::new(ErrorKind::LimitExceeded, why));
        }
        t.in_flight += 1;
        let max_ms = t
            .limits
            .max_total_ms
            .map(|m| m.saturating_sub(t.time_us / 1000).max(1));
        let (limits, memory) = (self.workspace_limits, &self.memory);
        let workspace = t
            .workspace
            .get_or_insert_with(|| Workspace::new(limits, memory.clone(), true))
            .clone();
        Admission::Run {
            max_ms,
            generation: t.generation,
            workspace,
        }
    }

    /// Counts an answered call of `tag`: `admitted` in `generation` (it was let run), or refused by a budget
    /// (`None`). A call answered before it reached a worker (unknown tool, params the schema refuses, an
    /// overloaded queue) frees its place without counting against `max_calls`; every call that ran counts.
    fn record(&self, tenant: &Tenant, tag: &str, admitted: Option<u64>, env: &Envelope) {
        let mut map = self.lock();
        // Closed or evicted while the call ran (and perhaps opened again since): nothing to count it in.
        let Some(t) = map.get_mut(tenant, tag) else {
            return;
        };
        if admitted.is_some_and(|g| g != t.generation) {
            return;
        }
        // A call that reached a worker has `queued_us`; one answered before (unknown tool, params refused by
        // the schema, an overloaded queue) has none. A tool's own error (a parse error in an expression, a
        // unit that does not convert) ran, took time and uses up the budget like a success.
        let never_ran = env.queued_us.is_none();
        t.last_used = Some(Instant::now());
        let time_us = env.elapsed_us;
        let fuel = env.usage.as_ref().map_or(0, |u| u.fuel);
        let bytes = match (&env.result, &env.error) {
            (Some(r), _) => serde_json::to_string(r).map_or(0, |s| s.len()),
            (None, Some(e)) => e.len(),
            (None, None) => 0,
        } as u64;
        if admitted.is_some() {
            t.in_flight = t.in_flight.saturating_sub(1);
        }
        if admitted.is_some() && !never_ran {
            t.ran += 1;
            t.time_us += time_us;
            t.fuel += fuel;
            t.output_bytes += bytes;
        }
        t.calls += 1;
        let u = t
            .tools
            .entry(env.tool.clone().unwrap_or_default())
            .or_default();
        u.calls += 1;
        u.time_us += time_us;
        u.fuel += fuel;
        if env.success {
            t.successes += 1;
            u.successes += 1;
        } else {
            let kind = env.error_kind.map_or("?", |k| k.as_str());
            *t.errors.entry(kind.to_string()).or_default() += 1;
        }
    }

    /// The figures of `tag`, or `None` when no such trajectory is open.
    pub(crate) fn stats(&self, tenant: &Tenant, tag: &str) -> Option<Value> {
        self.lock().get_mut(tenant, tag).map(|t| t.to_json(tag))
    }

    /// Closes `tag`: its final figures, or `None` when it was not open. Calls still running are not counted.
    pub(crate) fn close(&self, tenant: &Tenant, tag: &str) -> Option<Value> {
        self.lock().remove(tenant, tag).map(|t| t.to_json(tag))
    }

    /// Open trajectories.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The one tenant of these tests.
    static D: std::sync::LazyLock<Tenant> = std::sync::LazyLock::new(Tenant::default);

    fn ok(tool: &str, us: u64) -> Envelope {
        let mut e = Envelope::success(None, tool, json!({"value": "56"}));
        e.elapsed_us = us;
        e.queued_us = Some(3);
        e
    }

    fn run(t: &Trajectories, tag: &str, env: &Envelope) -> bool {
        match t.admit(&D, tag) {
            Admission::Run { generation, .. } => {
                t.record(&D, tag, Some(generation), env);
                true
            }
            Admission::Refused(e) => {
                let mut refused = Envelope::failure(None, env.tool.clone().unwrap_or_default(), e);
                refused.elapsed_us = 0;
                t.record(&D, tag, None, &refused);
                false
            }
        }
    }

    #[test]
    fn budgets_refuse_the_call_past_them_and_say_which() {
        let t = Trajectories::new(Duration::from_secs(60), 100);
        t.set_limits(
            &D,
            "r1",
            TrajectoryLimits {
                max_calls: Some(2),
                ..Default::default()
            },
        );
        assert!(run(&t, "r1", &ok("calculator", 10)));
        assert!(run(&t, "r1", &ok("calculator", 10)));
        match t.admit(&D, "r1") {
            Admission::Refused(e) => {
                assert_eq!(e.kind, ErrorKind::LimitExceeded);
                assert!(e.message.contains("2 calls (max_calls)"), "{}", e.message);
            }
            _ => panic!("the third call must be refused"),
        }
        let s = t.stats(&D, "r1").expect("open");
        assert_eq!(s["calls"], 2);
        assert_eq!(s["remaining"]["calls"], 0);

        t.set_limits(
            &D,
            "r2",
            TrajectoryLimits {
                max_total_ms: Some(5),
                ..Default::default()
            },
        );
        let generation = match t.admit(&D, "r2") {
            Admission::Run {
                max_ms, generation, ..
            } => {
                assert_eq!(max_ms, Some(5));
                generation
            }
            _ => panic!("the first call runs"),
        };
        t.record(&D, "r2", Some(generation), &ok("numerical", 6_000));
        assert!(!run(&t, "r2", &ok("numerical", 1)));
        let s = t.stats(&D, "r2").expect("open");
        assert_eq!(s["errors_by_kind"]["limit_exceeded"], 1);
        assert_eq!(s["tools"]["numerical"]["calls"], 2);

        t.set_limits(
            &D,
            "r3",
            TrajectoryLimits {
                max_output_bytes: Some(20),
                ..Default::default()
            },
        );
        // 14 bytes of result a call: the second call starts under the budget, the third does not.
        assert!(run(&t, "r3", &ok("calculator", 1)));
        assert!(run(&t, "r3", &ok("calculator", 1)));
        assert!(!run(&t, "r3", &ok("calculator", 1)));
        assert_eq!(t.stats(&D, "r3").expect("open")["output_bytes"], 28);
    }

    #[test]
    fn a_call_from_before_a_close_is_not_counted_after_it_and_unrun_calls_free_their_place() {
        let t = Trajectories::new(Duration::from_secs(60), 100);
        let Admission::Run {
            generation: old, ..
        } = t.admit(&D, "r")
        else {
            panic!("runs")
        };
        assert!(t.close(&D, "r").is_some());
        t.set_limits(
            &D,
            "r",
            TrajectoryLimits {
                max_calls: Some(1),
                ..Default::default()
            },
        );
        let Admission::Run {
            generation: new, ..
        } = t.admit(&D, "r")
        else {
            panic!("runs")
        };
        t.record(&D, "r", Some(old), &ok("calculator", 1));
        let s = t.stats(&D, "r").expect("open");
        assert_eq!(
            (s["calls"].clone(), s["in_flight"].clone()),
            (json!(0), json!(1))
        );
        t.record(&D, "r", Some(new), &ok("calculator", 1));
        // An invalid call frees its place and does not use up max_calls.
        t.set_limits(
            &D,
            "q",
            TrajectoryLimits {
                max_calls: Some(1),
                ..Default::default()
            },
        );
        let Admission::Run { generation, .. } = t.admit(&D, "q") else {
            panic!("runs")
        };
        let bad = Envelope::failure(
            None,
            "calculator",
            ToolError::new(ErrorKind::InvalidParams, "params: expression is required"),
        );
        t.record(&D, "q", Some(generation), &bad);
        assert!(
            run(&t, "q", &ok("calculator", 1)),
            "the budget is still there"
        );
        // A tool's own failure ran: it uses up the budget and its time counts.
        t.set_limits(
            &D,
            "f",
            TrajectoryLimits {
                max_calls: Some(1),
                ..Default::default()
            },
        );
        let Admission::Run { generation, .. } = t.admit(&D, "f") else {
            panic!("runs")
        };
        let mut failed = Envelope::failure(
            None,
            "calculator",
            ToolError::new(ErrorKind::ParseError, "unexpected `)` at character 3"),
        );
        (failed.elapsed_us, failed.queued_us) = (89, Some(100));
        t.record(&D, "f", Some(generation), &failed);
        assert!(!run(&t, "f", &ok("calculator", 1)), "the budget is spent");
        assert_eq!(
            t.stats(&D, "f").map(|s| s["time_ms"].clone()),
            Some(json!(0.089))
        );
    }

    #[test]
    fn a_tag_names_a_trajectory_only_within_its_tenant() {
        let t = Trajectories::new(Duration::from_secs(600), 1000);
        let (a, b) = (Tenant::named("a", None), Tenant::named("b", None));
        t.set_limits(
            &a,
            "r",
            TrajectoryLimits {
                max_calls: Some(1),
                ..Default::default()
            },
        );
        assert!(t.stats(&b, "r").is_none(), "b does not see a's trajectory");
        assert!(t.close(&b, "r").is_none(), "nor close it");
        let Admission::Run { generation, .. } = t.admit(&b, "r") else {
            panic!("a's budget does not bound b's calls");
        };
        t.record(&b, "r", Some(generation), &ok("calculator", 1));
        assert_eq!(t.stats(&a, "r").expect("a's is open")["calls"], 0);
        assert_eq!(t.stats(&b, "r").expect("b's is open")["calls"], 1);
    }

    #[test]
    fn a_tenant_that_opens_trajectories_without_end_evicts_its_own() {
        let t = Trajectories::new(Duration::from_secs(600), 100);
        let (quiet, flood) = (Tenant::named("quiet", None), Tenant::named("flood", None));
        for i in 0..10 {
            t.set_limits(&quiet, &format!("q{i}"), TrajectoryLimits::default());
        }
        for i in 0..10_000 {
            t.set_limits(&flood, &format!("f{i}"), TrajectoryLimits::default());
        }
        assert!(t.len() <= 100, "{}", t.len());
        for i in 0..10 {
            assert!(
                t.stats(&quiet, &format!("q{i}")).is_some(),
                "q{i} was evicted"
            );
        }
        assert!(t.stats(&flood, "f9999").is_some() && t.stats(&flood, "f0").is_none());
    }

    #[test]
    fn memory_stays_bounded_opened_and_closed_or_left_open() {
        let t = Trajectories::new(Duration::from_secs(600), 1000);
        for i in 0..100_000 {
            let tag = format!("rollout-{i}");
            assert!(run(&t, &tag, &ok("calculator", 1)));
            assert!(t.close(&D, &tag).is_some());
        }
        assert_eq!(t.len(), 0);
        // Never closed: the cap holds, the least recently used idle one making room.
        for i in 0..100_000 {
            assert!(run(&t, &format!("open-{i}"), &ok("calculator", 1)));
        }
        assert!(t.len() <= 1000 && t.len() > 800, "{}", t.len());
        assert!(t.stats(&D, "open-99999").is_some() && t.stats(&D, "open-0").is_none());
        // Idle ones expire.
        let short = Trajectories::new(Duration::from_millis(1), 1000);
        assert!(run(&short, "a", &ok("calculator", 1)));
        std::thread::sleep(Duration::from_millis(1100));
        assert!(run(&short, "b", &ok("calculator", 1)));
        assert!(short.stats(&D, "a").is_none() && short.stats(&D, "b").is_some());
        assert!(t.close(&D, "never-opened").is_none());
    }
}
