//! Running Z3: a fresh context per call with the call's limits, an interrupt on cancellation, and models
//! read back as exact JSON values.

use crate::expr::{symbol, Sort};
use beaker_core::CancelToken;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;
use z3::ast::{Bool, Dynamic, Int, Real, BV};
use z3::{Config, Context, Model, Optimize, Params, SatResult, Solver};

/// What Z3 may spend on one call.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Z3's own timeout.
    pub timeout_ms: u64,
    /// Z3's resource limit (deterministic, unlike time).
    pub rlimit: u64,
}

/// Z3's memory cap for the whole process, in megabytes: the largest `max_memory_bytes` a call may ask for.
/// Z3 counts its allocations globally, not per context, so a per-call cap is not possible in one process (a
/// small one would fail every other call's context creation); this cap keeps Z3 as a whole from taking the
/// machine, and each call's rlimit and timeout bound its own work.
pub const PROCESS_MEMORY_CAP_MB: u64 = 4096;

/// Caps Z3's memory in a process that runs calls of many sizes at once ([`PROCESS_MEMORY_CAP_MB`]); a worker
/// process, which runs one call at a time, sets the call's own cap instead.
pub fn cap_process_memory() {
    static CAP: OnceLock<()> = OnceLock::new();
    CAP.get_or_init(|| z3::set_global_param("memory_max_size", &PROCESS_MEMORY_CAP_MB.to_string()));
}

/// Runs `f` in a fresh Z3 context limited by `budget`; `cancel` interrupts it.
pub fn in_context<R: Send + Sync>(
    budget: Budget,
    cancel: &CancelToken,
    f: impl FnOnce() -> R + Send + Sync,
) -> R {
    static GLOBALS: OnceLock<()> = OnceLock::new();
    GLOBALS.get_or_init(|| {
        // Minimal unsat cores: what a user asking "which constraints conflict" wants.
        z3::set_global_param("smt.core.minimize", "true");
    });
    let mut cfg = Config::new();
    cfg.set_timeout_msec(budget.timeout_ms.max(1));
    cfg.set_param_value("rlimit", &budget.rlimit.to_string());
    cfg.set_model_generation(true);
    z3::with_z3_config(&cfg, || {
        let ctx = Context::thread_local();
        let handle = ctx.handle();
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            let watcher = s.spawn(|| {
                while !done.load(Ordering::Acquire) {
                    if cancel.reason().is_some() {
                        handle.interrupt();
                        return;
                    }
                    std::thread::park_timeout(Duration::from_millis(5));
                }
            });
            let r = f();
            done.store(true, Ordering::Release);
            watcher.thread().unpark();
            r
        })
    })
}

/// The declarations of `vars` as SMT-LIB.
pub fn declarations(vars: &BTreeMap<String, Sort>) -> String {
    let mut out = String::new();
    for (name, sort) in vars {
        out.push_str(&format!(
            "(declare-const {} {})\n",
            symbol(name),
            sort.smt()
        ));
    }
    out
}

/// The name Z3 gives the `i`th tracked constraint.
pub fn tracker(i: usize) -> String {
    format!("__beaker_c{i}")
}

/// Z3's answer to a check.
pub enum Answer {
    /// Satisfiable, with the model's values of the variables.
    Sat(serde_json::Map<String, Value>),
    /// Unsatisfiable, with the indices of an unsat core when constraints were tracked.
    Unsat(Vec<usize>),
    /// Undecided, with Z3's reason.
    Unknown(String),
}

/// Checks `text` (declarations and assertions); `tracked` constraints are named `tracker(i)` assumptions.
pub fn check(vars: &BTreeMap<String, Sort>, text: &str, tracked: usize) -> Answer {
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_bool("core.minimize", true);
    solver.set_params(&params);
    solver.from_string(text);
    let assumptions: Vec<Bool> = (0..tracked).map(|i| Bool::new_const(tracker(i))).collect();
    match solver.check_assumptions(&assumptions) {
        SatResult::Sat => match solver.get_model() {
            Some(m) => Answer::Sat(model_values(vars, &m)),
            None => Answer::Unknown("Z3 gave no model".into()),
        },
        SatResult::Unsat => {
            let mut core: Vec<usize> = solver
                .get_unsat_core()
                .iter()
                .filter_map(|b| {
                    b.to_string()
                        .trim_matches('|')
                        .strip_prefix("__beaker_c")
                        .and_then(|n| n.parse().ok())
                })
                .collect();
            core.sort_unstable();
            Answer::Unsat(core)
        }
        SatResult::Unknown => Answer::Unknown(
            solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".into()),
        ),
    }
}

/// The optimum of `objective` (a constant of `sort` constrained in `text` to equal the objective).
pub struct Optimum {
    /// The answer.
    pub answer: Answer,
    /// The objective's value, or `oo`/`-oo`.
    pub objective: Option<Value>,
    /// Whether there is no optimum.
    pub unbounded: bool,
    /// False when the optimum is a supremum or infimum no model reaches (`x < 1`: sup 1).
    pub attained: bool,
}

/// Minimises or maximises the constant `objective` of `sort` under `text`.
pub fn optimize(
    vars: &BTreeMap<String, Sort>,
    text: &str,
    objective: &str,
    sort: Sort,
    maximize: bool,
    timeout_ms: u64,
) -> Optimum {
    let opt = Optimize::new();
    let mut params = Params::new();
    params.set_u32("timeout", timeout_ms.min(u64::from(u32::MAX)) as u32);
    opt.set_params(&params);
    opt.from_string(text);
    let target: Dynamic = match sort {
        Sort::Int => Dynamic::from_ast(&Int::new_const(objective)),
        Sort::Real => Dynamic::from_ast(&Real::new_const(objective)),
        Sort::BitVec(w) => Dynamic::from_ast(&BV::new_const(objective, w)),
        Sort::Bool => Dynamic::from_ast(&Bool::new_const(objective)),
    };
    if maximize {
        opt.maximize(&target);
    } else {
        opt.minimize(&target);
    }
    match opt.check(&[]) {
        SatResult::Sat => {
            let bound = if maximize {
                opt.get_upper(0)
            } else {
                opt.get_lower(0)
            };
            let shown = bound.map(|b| b.to_string()).unwrap_or_default();
            let unbounded = shown.contains("oo");
            let Some(model) = opt.get_model() else {
                return Optimum {
                    answer: Answer::Unknown("Z3 gave no model".into()),
                    objective: None,
                    unbounded: false,
                    attained: true,
                };
            };
            // A strict bound (`x < 1`): Z3's bound is `1 - epsilon`; the optimum is the bound without it, and no
            // model reaches it.
            let strict = shown.contains("epsilon");
            let objective = if unbounded {
                Some(json!(if maximize { "oo" } else { "-oo" }))
            } else if strict {
                Some(json!(without_epsilon(&shown).unwrap_or(shown.clone())))
            } else {
                Some(value_of(&model, objective, sort))
            };
            Optimum {
                answer: Answer::Sat(model_values(vars, &model)),
                objective,
                unbounded,
                attained: !strict,
            }
        }
        SatResult::Unsat => Optimum {
            answer: Answer::Unsat(Vec::new()),
            objective: None,
            unbounded: false,
            attained: true,
        },
        SatResult::Unknown => Optimum {
            answer: Answer::Unknown(opt.get_reason_unknown().unwrap_or_else(|| "unknown".into())),
            objective: None,
            unbounded: false,
            attained: true,
        },
    }
}

/// Z3's bound `(+ 1.0 (* (- 1.0) epsilon))` or `(* (- 1.0) epsilon)` without its epsilon term, as a numeral.
fn without_epsilon(bound: &str) -> Option<String> {
    let t = bound.trim();
    if t.starts_with("(*") && t.contains("epsilon") {
        return Some("0".into());
    }
    let inner = t.strip_prefix("(+")?.strip_suffix(')')?.trim();
    // The constant comes first, the epsilon term after it.
    let cut = inner.find("(*")?;
    numeral(inner[..cut].trim())
}

fn model_values(vars: &BTreeMap<String, Sort>, m: &Model) -> serde_json::Map<String, Value> {
    vars.iter()
        .map(|(name, sort)| (name.clone(), value_of(m, name, *sort)))
        .collect()
}

/// Integers as JSON numbers while every client can hold them exactly (|v| < 2^53), decimal strings beyond.
fn integer(digits: &str) -> Value {
    const SAFE: i64 = 1 << 53;
    match digits.parse::<i64>() {
        Ok(v) if -SAFE < v && v < SAFE => json!(v),
        _ => json!(digits),
    }
}

/// An SMT-LIB numeral as Z3 prints it (`3`, `(- 3)`, `(/ 3 2)`, `(- (/ 3 2))`, `3.0`) as `"3"`, `"-3"`, `"3/2"`.
fn numeral(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix("(-").and_then(|s| s.strip_suffix(')')) {
        let n = numeral(inner)?;
        return Some(match n.strip_prefix('-') {
            Some(pos) => pos.to_string(),
            None => format!("-{n}"),
        });
    }
    if let Some(inner) = t.strip_prefix("(/").and_then(|s| s.strip_suffix(')')) {
        let inner = inner.trim();
        // Two operands, each a numeral (possibly negated).
        let split = if inner.starts_with('(') {
            inner.find(')')? + 1
        } else {
            inner.find(char::is_whitespace)?
        };
        let (a, b) = inner.split_at(split);
        let (a, b) = (numeral(a)?, numeral(b)?);
        let neg = a.starts_with('-') != b.starts_with('-');
        let (a, b) = (a.trim_start_matches('-'), b.trim_start_matches('-'));
        return Some(if b == "1" {
            format!("{}{a}", if neg { "-" } else { "" })
        } else {
            format!("{}{a}/{b}", if neg { "-" } else { "" })
        });
    }
    let t = t.strip_suffix(".0").unwrap_or(t);
    t.bytes().all(|c| c.is_ascii_digit()).then(|| t.to_string())
}

fn hex_to_decimal(hex: &str, base: u32) -> Option<String> {
    let mut digits: Vec<u32> = vec![0]; // little-endian base 10
    for c in hex.chars() {
        let d = c.to_digit(base)?;
        let mut carry = d;
        for x in digits.iter_mut() {
            let v = *x * base + carry;
            *x = v % 10;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push(carry % 10);
            carry /= 10;
        }
    }
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    Some(
        digits
            .iter()
            .rev()
            .filter_map(|d| char::from_digit(*d, 10))
            .collect(),
    )
}

fn value_of(m: &Model, name: &str, sort: Sort) -> Value {
    match sort {
        Sort::Bool => match m
            .eval(&Bool::new_const(name), true)
            .and_then(|b| b.as_bool())
        {
            Some(b) => json!(b),
            None => Value::Null,
        },
        Sort::Int => match m.eval(&Int::new_const(name), true) {
            Some(v) => {
                numeral(&v.to_string()).map_or_else(|| json!(v.to_string()), |n| integer(&n))
            }
            None => Value::Null,
        },
        Sort::Real => match m.eval(&Real::new_const(name), true) {
            Some(v) => {
                let shown = v.to_string();
                match numeral(&shown) {
                    Some(n) => json!(n),
                    // An algebraic number (root-obj): Z3's decimal approximation, `?` marking it inexact.
                    None => {
                        let approx = v.approx(20);
                        json!(if approx.ends_with('?') {
                            approx
                        } else {
                            format!("{approx}?")
                        })
                    }
                }
            }
            None => Value::Null,
        },
        Sort::BitVec(w) => match m.eval(&BV::new_const(name, w), true) {
            Some(v) => {
                let shown = v.to_string();
                let dec = if let Some(h) = shown.strip_prefix("#x") {
                    hex_to_decimal(h, 16)
                } else if let Some(b) = shown.strip_prefix("#b") {
                    hex_to_decimal(b, 2)
                } else {
                    None
                };
                dec.map_or_else(|| json!(shown), |d| integer(&d))
            }
            None => Value::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{hex_to_decimal, integer, numeral};
    use serde_json::json;

    #[test]
    fn numerals_read_as_z3_prints_them() {
        assert_eq!(numeral("3").as_deref(), Some("3"));
        assert_eq!(numeral("(- 3)").as_deref(), Some("-3"));
        assert_eq!(numeral("(/ 3 2)").as_deref(), Some("3/2"));
        assert_eq!(numeral("(- (/ 3 2))").as_deref(), Some("-3/2"));
        assert_eq!(numeral("(/ (- 3) 2)").as_deref(), Some("-3/2"));
        assert_eq!(numeral("3.0").as_deref(), Some("3"));
        assert_eq!(numeral("(/ 6.0 1.0)").as_deref(), Some("6"));
        assert_eq!(numeral("(root-obj (+ (^ x 2) (- 2)) 2)"), None);
        assert_eq!(
            super::without_epsilon("(+ 1.0 (* (- 1.0) epsilon))").as_deref(),
            Some("1")
        );
        assert_eq!(
            super::without_epsilon("(* (- 1.0) epsilon)").as_deref(),
            Some("0")
        );
        assert_eq!(super::without_epsilon("epsilon").as_deref(), None);
    }

    #[test]
    fn big_integers_are_strings() {
        assert_eq!(integer("9007199254740991"), json!(9007199254740991i64));
        assert_eq!(integer("9007199254740993"), json!("9007199254740993"));
        assert_eq!(integer("-12"), json!(-12));
        assert_eq!(hex_to_decimal("ff", 16).as_deref(), Some("255"));
        assert_eq!(
            hex_to_decimal("10000000000000000", 16).as_deref(),
            Some("18446744073709551616")
        );
        assert_eq!(hex_to_decimal("101", 2).as_deref(), Some("5"));
    }
}
