//! `logic_solver` against `tests/data/logic/reference.jsonl` (answers from z3-solver 4.13, cross-checked on
//! Debian's libz3 4.8.12 by `tests/data/gen/logic_reference.py`): statuses, unique models, proofs, optima and
//! SMT-LIB answers exactly; models that are not unique are checked by substituting them back, and
//! counterexamples by checking that they satisfy the assumptions and falsify the claim.

use crate::conformance::engine;
use crate::support::{ensure, jsonl, Outcome, Server};
use beaker::ToolCall;
use libtest_mimic::Trial;
use serde_json::{json, Value};

fn call(params: Value) -> Result<Value, String> {
    let env = engine()?.call(ToolCall::new("logic_solver", params));
    let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
    if env["success"] != true {
        return Err(format!("the call failed: {env}"));
    }
    Ok(env["result"].clone())
}

/// A model's value as a constraint literal (`x == 3`, `r == 3/2`, `p == True`).
fn literal(v: &Value) -> Result<String, String> {
    Ok(match v {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if s.ends_with('?') => {
            return Err(format!(
                "an approximate value {s} cannot be substituted exactly"
            ))
        }
        Value::String(s) => match s.split_once('/') {
            Some((p, q)) => format!("ToReal({p}) / {q}"),
            None => s.clone(),
        },
        other => return Err(format!("unexpected model value {other}")),
    })
}

/// The params with every variable fixed to its value in `model`, plus `extra` constraints.
fn pinned(params: &Value, model: &Value, extra: &[String]) -> Result<Value, String> {
    let vars = params["variables"].as_object().ok_or("no variables")?;
    let mut constraints: Vec<Value> = match &params["constraints"] {
        Value::Array(a) => a.clone(),
        Value::Object(o) => o.values().cloned().collect(),
        _ => Vec::new(),
    };
    for name in vars.keys() {
        let v = model.get(name).ok_or(format!("the model has no {name}"))?;
        // Bit-vector literals take the variable's width; an unsigned value above the signed range is fine.
        constraints.push(json!(format!("{name} == {}", literal(v)?)));
    }
    constraints.extend(extra.iter().map(|s| json!(s)));
    Ok(json!({"operation": "check", "variables": params["variables"], "constraints": constraints}))
}

fn case(c: &Value) -> Outcome {
    let params = &c["params"];
    if let Some(kind) = c["error_kind"].as_str() {
        let env = engine()?.call(ToolCall::new("logic_solver", params.clone()));
        let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
        return ensure(env["error_kind"] == kind, || format!("want {kind}: {env}"));
    }
    let got = call(params.clone())?;
    let expect = &c["expect"];
    for (k, want) in expect.as_object().ok_or("no expect")? {
        match k.as_str() {
            "answers_len" => {
                let n = got["answers"].as_array().map_or(0, Vec::len);
                ensure(json!(n) == *want, || {
                    format!("{n} answers, want {want}: {got}")
                })?;
            }
            "answers_prefix" => {
                for (i, p) in want.as_array().ok_or("answers_prefix")?.iter().enumerate() {
                    let a = got["answers"][i].as_str().unwrap_or("");
                    let p = p.as_str().unwrap_or("");
                    ensure(a.starts_with(p), || {
                        format!("answer {i} {a:?} does not start with {p:?}: {got}")
                    })?;
                }
            }
            "unsat_core" => {
                let mut g: Vec<String> = got[k]
                    .as_array()
                    .ok_or(format!("no core: {got}"))?
                    .iter()
                    .map(Value::to_string)
                    .collect();
                let mut w: Vec<String> = want
                    .as_array()
                    .ok_or("core")?
                    .iter()
                    .map(Value::to_string)
                    .collect();
                g.sort();
                w.sort();
                ensure(g == w, || format!("unsat core {g:?}, want {w:?}"))?;
            }
            _ => ensure(got[k] == *want, || {
                format!("{k}: got {}, want {want} (result {got})", got[k])
            })?,
        }
    }
    match c["check"].as_str() {
        Some("model_satisfies") => {
            let again = call(pinned(params, &got["model"], &[])?)?;
            ensure(again["status"] == "sat", || {
                format!(
                    "the model {} does not satisfy the constraints: {again}",
                    got["model"]
                )
            })
        }
        Some("counterexample_refutes") => {
            let claim = params["claim"].as_str().ok_or("no claim")?;
            let mut p = params.clone();
            p["constraints"] = params["assumptions"].clone();
            let again = call(pinned(
                &p,
                &got["counterexample"],
                &[format!("Not({claim})")],
            )?)?;
            ensure(again["status"] == "sat", || {
                format!(
                    "the counterexample {} does not refute the claim under the assumptions: {again}",
                    got["counterexample"]
                )
            })
        }
        _ => Ok(()),
    }
}

/// A search Z3 cannot finish ends at the call's deadline: Z3's own timeout answers `unknown`, or the engine's
/// deadline interrupts it (`timeout`).
fn a_hard_search_stops_at_the_deadline() -> Outcome {
    let params = json!({"operation": "check", "variables": {"x": "Int", "y": "Int", "z": "Int"},
        "constraints": ["x*x*x + y*y*y + z*z*z == 33", "x > -100000000", "y > -100000000", "z > -100000000",
                        "x < 100000000", "y < 100000000", "z < 100000000"]});
    let limits: beaker::LimitsRequest =
        serde_json::from_value(json!({"timeout_ms": 300})).map_err(|e| e.to_string())?;
    let env = engine()?.call(ToolCall::new("logic_solver", params).with_limits(limits));
    let env = serde_json::to_value(env).map_err(|e| e.to_string())?;
    // Either Z3's own timeout (`unknown`) or the engine's deadline (`timeout`): never a hang.
    let ok = env["result"]["status"] == "unknown" || env["error_kind"] == "timeout";
    ensure(ok, || format!("{env}"))
}

/// A client's `cancel` interrupts Z3 mid-search: the call is answered `cancelled` long before its own
/// ten-minute deadline, and the server answers the next call.
fn cancel_interrupts_z3() -> Outcome {
    let mut s = Server::start(&[]);
    s.send(&json!({"id": "z3", "tool": "logic_solver",
        "params": {"operation": "check", "variables": {"x": "Int", "y": "Int", "z": "Int"},
                   "constraints": ["x*x*x + y*y*y + z*z*z == 42", "x*y*z != 0"]},
        "limits": {"timeout_ms": 600_000, "max_fuel": 1_000_000_000_000u64}}));
    // Let Z3 start searching (the cancel must interrupt a running search, not a queued call).
    std::thread::sleep(std::time::Duration::from_millis(300));
    s.send(&json!({"cancel": "z3"}));
    s.send(&json!({"id": "next", "tool": "logic_solver",
        "params": {"operation": "check", "variables": {"x": "Int"}, "constraints": ["x > 41", "x < 43"]}}));
    let (out, _) = s.finish();
    let z3 = out.iter().find(|r| r["id"] == "z3");
    ensure(z3.is_some_and(|r| r["error_kind"] == "cancelled"), || {
        format!("{out:?}")
    })?;
    let next = out.iter().find(|r| r["id"] == "next");
    ensure(
        next.is_some_and(|r| r["result"]["model"]["x"] == 42),
        || format!("{out:?}"),
    )
}

/// A small deterministic generator (xorshift64*), so a fuzz failure reproduces.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// Every envelope a fuzzed call gets is a result or a typed error of the input's fault: never `internal`
/// (a panic in the bindings, which a sort error reaching Z3 would be) and never a dead engine.
fn survived(env: &Value, input: &str) -> Outcome {
    let kind = env["error_kind"].as_str().unwrap_or("");
    ensure(
        env["success"] == true || matches!(kind, "invalid_params" | "timeout" | "limit_exceeded"),
        || format!("input {input:?} gave {env}"),
    )
}

/// Random token soup as constraints over one variable of each sort: the reader must refuse what does not
/// type-check, so Z3 only ever sees well-sorted terms.
fn fuzz_constraints() -> Outcome {
    const TOKENS: &[&str] = &[
        "x",
        "y",
        "b",
        "p",
        "(",
        ")",
        "+",
        "-",
        "*",
        "/",
        "%",
        "**",
        "==",
        "<",
        ">=",
        "!=",
        "and",
        "or",
        "not",
        "And(",
        "Or(",
        "If(",
        "Distinct(",
        "Implies(",
        ",",
        "1",
        "0",
        "-7",
        "2.5",
        "True",
        "Extract(",
        "3",
        "b",
        "<<",
        ">>",
        "^",
        "&",
        "|",
        "~",
        "ULT(",
        "Concat(",
        "ZeroExt(",
        "BV2Int(",
        "Int2BV(",
        "8",
        "99999999999999999999999",
        "Abs(",
        "ToInt(",
        "ToReal(",
        "Sum(",
        "UDiv(",
        "x",
        "==",
        "b",
        "p",
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let engine = engine()?;
    for _ in 0..600 {
        let n = 1 + rng.below(12);
        let text: Vec<&str> = (0..n).map(|_| TOKENS[rng.below(TOKENS.len())]).collect();
        let text = text.join(" ");
        let params = json!({"operation": "check",
            "variables": {"x": "Int", "y": "Real", "b": "BitVec 8", "p": "Bool"}, "constraints": [text]});
        let limits: beaker::LimitsRequest =
            serde_json::from_value(json!({"timeout_ms": 2000})).map_err(|e| e.to_string())?;
        let env = engine.call(ToolCall::new("logic_solver", params).with_limits(limits));
        survived(
            &serde_json::to_value(env).map_err(|e| e.to_string())?,
            &text,
        )?;
    }
    Ok(())
}

/// Random scripts from the allowed commands, well and badly formed: Z3's answers (errors included) come back
/// and the process lives on.
fn fuzz_smtlib() -> Outcome {
    const COMMANDS: &[&str] = &[
        "(declare-const a Int)",
        "(declare-const r Real)",
        "(declare-const v (_ BitVec 8))",
        "(assert (> a 1))",
        "(assert (+ a true))",
        "(assert (= (* r r) 2.0))",
        "(assert (bvult v #x10))",
        "(check-sat)",
        "(get-model)",
        "(get-value (a))",
        "(get-value (zz))",
        "(push 1)",
        "(pop 1)",
        "(pop 5)",
        "(define-fun f ((z Int)) Int (+ z 1))",
        "(assert (= (f a) 3))",
        "(declare-datatypes ((L 0)) (((nil) (cons (hd Int) (tl L)))))",
        "(declare-const l L)",
        "(assert (= (hd l) a))",
        "(reset-assertions)",
        "(echo \"x\")",
        "(eval a)",
        "(simplify (+ 1 2))",
        "(check-sat-assuming (p))",
        "(declare-fun g (Int) Bool)",
        "(assert (forall ((i Int)) (g i)))",
        "(assert (exists ((i Int)) (not (g i))))",
        "(get-assignment)",
        "(get-assertions)",
        "(set-logic QF_LIA)",
        "(set-logic NOPE)",
        "(set-info :status sat)",
        "(set-option :produce-models false)",
        "(get-info :reason-unknown)",
        "(assert)",
        "(check-sat 1 2)",
        "(declare-const a Bool)",
        "(define-sort S () Int)",
        "(declare-sort U 0)",
        "(declare-const u U)",
        "(assert (distinct u u))",
        "(exit)",
        "(get-value ())",
        "(eval (/ 1 0))",
        "(assert (= (div a 0) 3))",
    ];
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let engine = engine()?;
    for _ in 0..400 {
        let n = 1 + rng.below(12);
        let script: Vec<&str> = (0..n)
            .map(|_| COMMANDS[rng.below(COMMANDS.len())])
            .collect();
        let script = script.join("\n");
        let params = json!({"operation": "smtlib", "script": script});
        let limits: beaker::LimitsRequest =
            serde_json::from_value(json!({"timeout_ms": 2000})).map_err(|e| e.to_string())?;
        let env = engine.call(ToolCall::new("logic_solver", params).with_limits(limits));
        survived(
            &serde_json::to_value(env).map_err(|e| e.to_string())?,
            &script,
        )?;
    }
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = jsonl("tests/data/logic/reference.jsonl")
        .into_iter()
        .map(|c| {
            let name = format!("logic::reference::{}", c["name"].as_str().unwrap_or("?"));
            Trial::test(name, move || case(&c))
        })
        .collect();
    trials.push(Trial::test("logic::fuzz_constraints", fuzz_constraints));
    trials.push(Trial::test(
        "logic::cancel_interrupts_z3",
        cancel_interrupts_z3,
    ));
    trials.push(Trial::test("logic::fuzz_smtlib", fuzz_smtlib));
    trials.push(Trial::test(
        "logic::a_hard_search_stops_at_the_deadline",
        a_hard_search_stops_at_the_deadline,
    ));
    trials
}
