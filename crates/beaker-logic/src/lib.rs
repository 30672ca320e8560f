//! `logic_solver`: satisfiability, proofs and optimisation over integers, reals, booleans and bit-vectors
//! with Z3, and SMT-LIB 2 scripts.
//!
//! Constraints in z3py's notation are read and type-checked by [`expr`] into SMT-LIB terms, then handed to a
//! fresh Z3 context per call ([`solve`]) whose timeout and resource limit come from the call's limits; a
//! cancelled call interrupts Z3. Scripts ([`smtlib`]) are checked against an allowlist of commands and
//! options first, because some SMT-LIB commands reach outside the solver.
//!
//! Z3 runs in worker processes ([`worker`]): a call Z3 cannot finish in time is killed with its process, and
//! Z3 running out of memory (which ends its process) ends only that worker.
//!
//! Invariant: nothing Z3 is given can fail to type-check (a sort error inside Z3 would be a panic in the
//! bindings), nothing a user sends changes Z3's process-wide parameters, and when a worker can be started, no
//! call runs Z3 in the server's process.
#![deny(missing_docs)]

pub mod expr;
mod ffi;
pub mod smtlib;
pub mod solve;
pub mod worker;

use beaker_core::{CallContext, Example, Tool, ToolError, ToolSpec};
use expr::{Reader, Sort};
use serde_json::{json, Map, Value};
use solve::{Answer, Budget};
use std::collections::BTreeMap;
use std::time::Instant;

/// Most variables one call may declare.
pub const MAX_VARIABLES: usize = 1_000;

/// Most constraints (and assumptions) one call may give.
pub const MAX_CONSTRAINTS: usize = 10_000;

/// The `logic_solver` tool.
pub struct LogicSolver {
    spec: ToolSpec,
    /// Where calls run: worker processes, or (none found) this process.
    workers: Option<worker::Pool>,
}

impl LogicSolver {
    /// The tool, running Z3 in worker processes when [`worker::discover`] finds Beaker's binary, else in this
    /// process.
    pub fn new() -> Self {
        match worker::discover() {
            Some(command) => Self::with_workers(command),
            None => Self::in_process(),
        }
    }

    /// The tool running Z3 in worker processes started with `command`.
    pub fn with_workers(command: worker::WorkerCommand) -> Self {
        LogicSolver {
            spec: spec(),
            workers: Some(worker::Pool::new(command)),
        }
    }

    /// The tool running Z3 in this process (what a worker process runs; an embedder without Beaker's binary).
    pub fn in_process() -> Self {
        LogicSolver {
            spec: spec(),
            workers: None,
        }
    }

    /// Where Z3 runs: `"process"` (a worker process per call) or `"in-process"`.
    pub fn isolation(&self) -> &'static str {
        if self.workers.is_some() {
            "process"
        } else {
            "in-process"
        }
    }
}

impl Default for LogicSolver {
    fn default() -> Self {
        Self::new()
    }
}

fn bad(message: impl Into<String>) -> ToolError {
    ToolError::invalid_params(message)
}

fn variables(params: &Value) -> Result<BTreeMap<String, Sort>, ToolError> {
    let Some(v) = params.get("variables") else {
        return Ok(BTreeMap::new());
    };
    let Value::Object(m) = v else {
        return Err(bad(
            "`variables` must be an object of name -> sort (Int, Real, Bool or BitVec N)",
        ));
    };
    if m.len() > MAX_VARIABLES {
        return Err(ToolError::limit(format!(
            "{} variables; at most {MAX_VARIABLES}",
            m.len()
        )));
    }
    let mut out = BTreeMap::new();
    for (name, sort) in m {
        let ok_name = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with("__beaker")
            && !matches!(
                name.as_str(),
                "and" | "or" | "not" | "True" | "False" | "true" | "false"
            );
        if !ok_name {
            return Err(bad(format!(
                "variables: {name:?} is not a usable name (letters, digits and _, not a keyword)"
            )));
        }
        let s = sort.as_str().and_then(Sort::parse).ok_or_else(|| {
            bad(format!(
                "variables.{name}: the sort must be \"Int\", \"Real\", \"Bool\" or \"BitVec N\" (1 <= N <= {}), got {sort}",
                expr::MAX_BV_WIDTH
            ))
        })?;
        out.insert(name.clone(), s);
    }
    Ok(out)
}

/// `constraints` as (label, text) pairs: a list is labelled by index, an object by its keys.
fn constraints(params: &Value, key: &str) -> Result<Vec<(Value, String)>, ToolError> {
    let items: Vec<(Value, &Value)> = match params.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().enumerate().map(|(i, v)| (json!(i), v)).collect(),
        Some(Value::Object(m)) => m.iter().map(|(k, v)| (json!(k), v)).collect(),
        Some(_) => {
            return Err(bad(format!(
                "`{key}` must be a list of expressions (or an object label -> expression)"
            )))
        }
    };
    if items.len() > MAX_CONSTRAINTS {
        return Err(ToolError::limit(format!(
            "{} {key}; at most {MAX_CONSTRAINTS}",
            items.len()
        )));
    }
    items
        .into_iter()
        .map(|(label, v)| match v {
            Value::String(s) => Ok((label, s.clone())),
            Value::Bool(b) => Ok((label, if *b { "True" } else { "False" }.to_string())),
            other => Err(bad(format!(
                "{key}[{label}] must be an expression string, got {}",
                beaker_core::json_type(other)
            ))),
        })
        .collect()
}

fn text_param<'a>(params: &'a Value, key: &str) -> Result<Option<&'a str>, ToolError> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(bad(format!(
            "`{key}` must be a string, got {}",
            beaker_core::json_type(v)
        ))),
    }
}

/// Z3's budget for a call: its time left (less a margin, so Z3's own timeout answers `unknown` before the
/// engine's deadline answers `timeout`) and an rlimit of `max_fuel / 200`.
fn budget(ctx: &CallContext) -> Budget {
    let mut ms = ctx.limits.timeout_ms;
    if let Some(deadline) = ctx.deadline {
        ms = ms.min(
            deadline
                .saturating_duration_since(Instant::now())
                .as_millis() as u64,
        );
    }
    Budget {
        timeout_ms: (ms - ms / 10).saturating_sub(20).max(1),
        rlimit: (ctx.limits.max_fuel / 200).max(1),
    }
}

/// A model value of a real (`3`, `"7/2"`, `"-7/2"`) as an SMT-LIB real constant; None for an approximation.
fn real_smt(v: &Value) -> Option<String> {
    let text = match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) if !s.ends_with('?') => s.clone(),
        _ => return None,
    };
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.as_str()),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let pos = match body.split_once('/') {
        Some((p, q)) if digits(p) && digits(q) => format!("(/ {p}.0 {q}.0)"),
        None if digits(body) => format!("{body}.0"),
        _ => return None,
    };
    Some(if neg { format!("(- {pos})") } else { pos })
}

fn status(answer: &Answer) -> &'static str {
    match answer {
        Answer::Sat(_) => "sat",
        Answer::Unsat(_) => "unsat",
        Answer::Unknown(_) => "unknown",
    }
}

impl LogicSolver {
    fn check(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let vars = variables(params)?;
        let cs = constraints(params, "constraints")?;
        let reader = Reader::new(&vars);
        let mut text = solve::declarations(&vars);
        for (i, (label, c)) in cs.iter().enumerate() {
            let t = reader
                .read_bool(c)
                .map_err(|e| bad(format!("constraints[{label}]: {e}")))?;
            let name = solve::tracker(i);
            text.push_str(&format!(
                "(declare-const {name} Bool)\n(assert (=> {name} {}))\n",
                t.smt
            ));
        }
        let n = cs.len();
        let answer = solve::in_context(budget(ctx), &ctx.cancel, || solve::check(&vars, &text, n));
        ctx.checkpoint()?;
        let mut out = Map::new();
        out.insert("status".into(), json!(status(&answer)));
        match answer {
            Answer::Sat(model) => {
                out.insert("model".into(), Value::Object(model));
            }
            Answer::Unsat(core) => {
                let labels: Vec<Value> = core.iter().map(|&i| cs[i].0.clone()).collect();
                out.insert("unsat_core".into(), Value::Array(labels));
            }
            Answer::Unknown(why) => {
                out.insert("reason".into(), json!(why));
            }
        }
        Ok(Value::Object(out))
    }

    fn prove(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let vars = variables(params)?;
        let claim =
            text_param(params, "claim")?.ok_or_else(|| bad("`claim` is required for prove"))?;
        let assumptions = constraints(params, "assumptions")?;
        let reader = Reader::new(&vars);
        let mut text = solve::declarations(&vars);
        for (label, a) in &assumptions {
            let t = reader
                .read_bool(a)
                .map_err(|e| bad(format!("assumptions[{label}]: {e}")))?;
            text.push_str(&format!("(assert {})\n", t.smt));
        }
        let c = reader
            .read_bool(claim)
            .map_err(|e| bad(format!("claim: {e}")))?;
        text.push_str(&format!("(assert (not {}))\n", c.smt));
        let answer = solve::in_context(budget(ctx), &ctx.cancel, || solve::check(&vars, &text, 0));
        ctx.checkpoint()?;
        Ok(match answer {
            Answer::Unsat(_) => json!({"proved": true}),
            Answer::Sat(model) => json!({"proved": false, "counterexample": model}),
            Answer::Unknown(why) => json!({"proved": null, "reason": why}),
        })
    }

    fn optimize(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let vars = variables(params)?;
        let cs = constraints(params, "constraints")?;
        let (goal, maximize) = match (
            text_param(params, "minimize")?,
            text_param(params, "maximize")?,
        ) {
            (Some(g), None) => (g, false),
            (None, Some(g)) => (g, true),
            _ => {
                return Err(bad(
                    "optimize needs exactly one of `minimize` and `maximize`",
                ))
            }
        };
        let reader = Reader::new(&vars);
        let mut text = solve::declarations(&vars);
        for (label, c) in &cs {
            let t = reader
                .read_bool(c)
                .map_err(|e| bad(format!("constraints[{label}]: {e}")))?;
            text.push_str(&format!("(assert {})\n", t.smt));
        }
        let g = reader.read(goal).map_err(|e| {
            bad(format!(
                "{}: {e}",
                if maximize { "maximize" } else { "minimize" }
            ))
        })?;
        if g.sort == Sort::Bool {
            return Err(bad(
                "the objective must be a number or a bit-vector, not a boolean",
            ));
        }
        let objective = "__beaker_objective";
        text.push_str(&format!(
            "(declare-const {objective} {})\n(assert (= {objective} {}))\n",
            g.sort.smt(),
            g.smt
        ));
        let b = budget(ctx);
        let sort = g.sort;
        let optimum = solve::in_context(b, &ctx.cancel, || {
            solve::optimize(&vars, &text, objective, sort, maximize, b.timeout_ms)
        });
        ctx.checkpoint()?;
        let mut optimum = optimum;
        if optimum.unbounded {
            // Z3's optimiser answers "unbounded" for nonlinear objectives it cannot optimise (x + y on a circle):
            // believe it only if the objective can really pass a huge value.
            let huge = if maximize { ">" } else { "<" };
            let sign = if maximize { "" } else { "-" };
            let check = format!(
                "{text}(assert ({huge} {objective} {sign}{}))\n",
                match sort {
                    Sort::Real => "1000000000000000000000000000000.0",
                    _ => "1000000000000000000000000000000",
                }
            );
            if !matches!(sort, Sort::BitVec(_)) {
                let beyond =
                    solve::in_context(budget(ctx), &ctx.cancel, || solve::check(&vars, &check, 0));
                ctx.checkpoint()?;
                if !matches!(beyond, Answer::Sat(_)) {
                    optimum.answer = Answer::Unknown(
                        "Z3's optimiser reported the objective unbounded, but it cannot exceed 10^30: a nonlinear \
                         objective or constraint, which Z3 does not optimise exactly"
                            .into(),
                    );
                }
            }
        }
        if matches!(optimum.answer, Answer::Sat(_)) && !optimum.unbounded && sort == Sort::Real {
            self.settle_supremum(&mut optimum, &text, objective, maximize, &vars, ctx)?;
        }
        let mut out = Map::new();
        out.insert("status".into(), json!(status(&optimum.answer)));
        match optimum.answer {
            Answer::Sat(model) => {
                out.insert("model".into(), Value::Object(model));
                out.insert("objective".into(), optimum.objective.unwrap_or(Value::Null));
                if optimum.unbounded {
                    out.insert("unbounded".into(), json!(true));
                }
                if !optimum.attained {
                    out.insert("attained".into(), json!(false));
                }
            }
            Answer::Unsat(_) => {}
            Answer::Unknown(why) => {
                out.insert("reason".into(), json!(why));
            }
        }
        Ok(Value::Object(out))
    }

    /// A real objective under strict bounds (`x < 1`) has a supremum no model reaches, and Z3 4.8's optimiser
    /// then answers with an arbitrary feasible value. When the objective can still improve on Z3's value, the
    /// optimum of the closure (strict comparisons made non-strict) is the supremum, attained or not.
    fn settle_supremum(
        &self,
        optimum: &mut solve::Optimum,
        text: &str,
        objective: &str,
        maximize: bool,
        vars: &BTreeMap<String, Sort>,
        ctx: &CallContext,
    ) -> Result<(), ToolError> {
        let Some(value) = optimum.objective.as_ref().and_then(real_smt) else {
            return Ok(());
        };
        let better = if maximize { ">" } else { "<" };
        let probe = format!("{text}(assert ({better} {objective} {value}))\n");
        let improvable =
            solve::in_context(budget(ctx), &ctx.cancel, || solve::check(vars, &probe, 0));
        ctx.checkpoint()?;
        if !matches!(improvable, Answer::Sat(_)) {
            return Ok(());
        }
        let closure = text.replace("(< ", "(<= ").replace("(> ", "(>= ");
        let b = budget(ctx);
        let closed = solve::in_context(b, &ctx.cancel, || {
            solve::optimize(
                vars,
                &closure,
                objective,
                Sort::Real,
                maximize,
                b.timeout_ms,
            )
        });
        ctx.checkpoint()?;
        match (
            &closed.answer,
            closed.unbounded,
            closed.objective.as_ref().and_then(real_smt),
        ) {
            (Answer::Sat(_), true, _) => {
                optimum.objective = closed.objective;
                optimum.unbounded = true;
            }
            (Answer::Sat(_), false, Some(sup)) => {
                let reach = format!("{text}(assert (= {objective} {sup}))\n");
                let reached =
                    solve::in_context(budget(ctx), &ctx.cancel, || solve::check(vars, &reach, 0));
                ctx.checkpoint()?;
                optimum.attained = matches!(reached, Answer::Sat(_));
                if let Answer::Sat(model) = reached {
                    optimum.answer = Answer::Sat(model);
                }
                optimum.objective = closed.objective;
            }
            _ => {
                optimum.answer = Answer::Unknown(
                    "the objective can pass Z3's optimum, and the supremum could not be determined"
                        .into(),
                );
            }
        }
        Ok(())
    }

    fn smtlib(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let script =
            text_param(params, "script")?.ok_or_else(|| bad("`script` is required for smtlib"))?;
        if script.len() as u64 > ctx.limits.max_input_bytes {
            return Err(ToolError::limit(format!(
                "the script is {} bytes; the limit is {} (max_input_bytes)",
                script.len(),
                ctx.limits.max_input_bytes
            )));
        }
        smtlib::commands(script).map_err(|e| bad(format!("script: {e}")))?;
        let output = solve::in_context(budget(ctx), &ctx.cancel, || {
            ffi::eval_smtlib2(&z3::Context::thread_local(), script)
        });
        ctx.checkpoint()?;
        if output.len() as u64 > ctx.limits.max_output_bytes {
            return Err(ToolError::limit(format!(
                "Z3's output is {} bytes; the limit is {} (max_output_bytes)",
                output.len(),
                ctx.limits.max_output_bytes
            )));
        }
        Ok(json!({"answers": smtlib::answers(&output), "output": output}))
    }
}

impl Tool for LogicSolver {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        match &self.workers {
            Some(pool) => pool.call(params, ctx),
            None => {
                solve::cap_process_memory();
                self.call_here(params, ctx)
            }
        }
    }
}

impl LogicSolver {
    /// Runs one call in this process.
    pub(crate) fn call_here(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let op = params
            .get("operation")
            .and_then(Value::as_str)
            .unwrap_or("");
        let takes: &[&str] = match op {
            "check" => &["variables", "constraints"],
            "prove" => &["variables", "claim", "assumptions"],
            "optimize" => &["variables", "constraints", "minimize", "maximize"],
            "smtlib" => &["script"],
            _ => &[],
        };
        if let Some(obj) = params.as_object() {
            let extra: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "operation" && !takes.contains(k))
                .collect();
            if !extra.is_empty() && !takes.is_empty() {
                return Err(bad(format!(
                    "`{op}` does not take {} (it takes: {})",
                    extra
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    takes.join(", ")
                )));
            }
        }
        match params.get("operation").and_then(Value::as_str) {
            Some("check") => self.check(params, ctx),
            Some("prove") => self.prove(params, ctx),
            Some("optimize") => self.optimize(params, ctx),
            Some("smtlib") => self.smtlib(params, ctx),
            _ => Err(bad("`operation` must be check, prove, optimize or smtlib")),
        }
    }
}

fn spec() -> ToolSpec {
    let exprs = json!({"oneOf": [
        {"type": "array", "items": {"type": ["string", "boolean"]}, "maxItems": MAX_CONSTRAINTS},
        {"type": "object", "additionalProperties": {"type": ["string", "boolean"]}, "maxProperties": MAX_CONSTRAINTS}
    ]});
    ToolSpec {
        name: "logic_solver".into(),
        description: "Z3 SMT solver: check whether constraints over Int, Real, Bool and BitVec variables can all hold \
            (with a model, or an unsat core), prove a claim (or get a counterexample), minimise or maximise an \
            objective, or run an SMT-LIB 2 script. Constraints use z3py notation: `x + y == 10`, `And(x > 0, y > 0)`, \
            `Implies(a, b)`, `Distinct(x, y, z)`."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": ["check", "prove", "optimize", "smtlib"]},
                "variables": {"type": "object", "maxProperties": MAX_VARIABLES,
                              "additionalProperties": {"type": "string", "pattern": "^(Int|Real|Bool|BitVec ?\\(?[0-9]+\\)?)$", "description": "Int, Real, Bool or BitVec N"},
                              "description": "name -> Int, Real, Bool or BitVec N"},
                "constraints": exprs,
                "claim": {"type": "string", "description": "prove: the statement to prove."},
                "assumptions": {"type": "array", "items": {"type": ["string", "boolean"]}, "maxItems": MAX_CONSTRAINTS,
                                "description": "prove: what may be assumed."},
                "minimize": {"type": "string"},
                "maximize": {"type": "string"},
                "script": {"type": "string", "description": "smtlib: an SMT-LIB 2 script."}
            },
            "required": ["operation"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "status": {"enum": ["sat", "unsat", "unknown"]},
                "model": {"type": "object", "additionalProperties": {"type": ["integer", "string", "boolean"]}},
                "unsat_core": {"type": "array", "items": {"type": ["integer", "string"]}},
                "reason": {"type": "string"},
                "proved": {"type": ["boolean", "null"]},
                "counterexample": {"type": "object"},
                "objective": {"type": ["integer", "string"]},
                "unbounded": {"type": "boolean"},
                "attained": {"type": "boolean", "description": "false when the optimum is a supremum or infimum that no model reaches (strict bounds)"},
                "answers": {"type": "array", "items": {"type": "string"}},
                "output": {"type": "string"}
            }
        }),
        examples: vec![
            Example {
                params: json!({"operation": "check", "variables": {"x": "Int", "y": "Int"},
                               "constraints": ["x + y == 10", "x - y == 4"]}),
                result: json!({"status": "sat", "model": {"x": 7, "y": 3}}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"operation": "prove", "variables": {"x": "BitVec 32", "y": "BitVec 32"},
                               "claim": "x + y == (x ^ y) + 2 * (x & y)"}),
                result: json!({"proved": true}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"operation": "prove", "variables": {"x": "Real"}, "claim": "x * x >= x"}),
                result: json!({"proved": false, "counterexample": {"x": "1/2"}}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"operation": "optimize", "variables": {"x": "Int", "y": "Int"},
                               "constraints": ["x >= 0", "y >= 0", "x + 2*y <= 14", "3*x - y >= 0", "x - y <= 2"],
                               "maximize": "3*x + 4*y"}),
                result: json!({"status": "sat", "model": {"x": 6, "y": 4}, "objective": 34}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"operation": "smtlib", "script": "(declare-const x Int)\n(assert (> (* x x) 8))\n(assert (< x 4))\n(assert (> x 0))\n(check-sat)\n(get-value (x))"}),
                result: json!({"answers": ["sat", "((x 3))"], "output": "sat\n((x 3))\n"}),
                elided: Vec::new(), workspace: Default::default(),
                dataset: None,
            },
        ],
        notes: include_str!("logic_solver.md").into(),
    }
}
