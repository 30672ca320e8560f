//! The conformance suite: every tool the catalog serves, discovered from it, held to one contract.
//! - Every tool has examples; each gives its documented result (keys it elides present, the rest exact) and
//!   validates against the tool's result schema.
//! - Every family of the catalog has `tests/data/FAMILY/adversarial.jsonl` (case format in
//!   tests/data/README.md); each case gets its answer and the engine answers normally afterwards.
//! - Every tool is documented in docs/TOOLS.md and every family in docs/ARCHITECTURE.md (see `tidy`).

use crate::support::{compare, ensure, jsonl, root, Outcome};
use beaker::{Catalog, Engine, LimitsRequest, ToolCall, ToolSpec};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// One engine with every built-in tool, shared by the trials; `generate_image` and `generate_gif` draw through
/// the test process's local Images API (`support::images_api`).
pub fn engine() -> Result<&'static Engine, String> {
    static E: OnceLock<Result<Engine, String>> = OnceLock::new();
    E.get_or_init(|| {
        let url = crate::support::images_api()?;
        let provider = beaker::image::Provider::new(&beaker::image::ProviderConfig {
            url,
            model: None,
            api_key_env: None,
            timeout_ms: None,
            retries: Some(1),
        })
        .map_err(|e| e.to_string())?;
        Catalog::builtin()
            .image(Some(std::sync::Arc::new(provider)))
            .data(Some(std::sync::Arc::new(example_data()?)))
            .engine()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// A data folder holding the dataset `example` (tests/data/health/'s synthetic export) that the health tools'
/// examples and adversarial cases read, imported through the library.
fn example_data() -> Result<beaker::datasets::Datasets, String> {
    let dir = std::env::temp_dir().join(format!("beaker-examples-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let data = beaker::datasets::Datasets::open(&dir).map_err(|e| e.to_string())?;
    let settings = beaker::datasets::Settings {
        time_zone: "America/Los_Angeles".into(),
    };
    let ds = data
        .create("example", Some(settings))
        .map_err(|e| e.to_string())?;
    let mut import = beaker::datasets::import::Importer::new(&data, ds);
    for f in crate::health::EXPORT {
        let path = crate::support::root().join("tests/data/health").join(f);
        import.file(&path, &mut |_| {}).map_err(|e| e.to_string())?;
    }
    import.finish().map_err(|e| e.to_string())?;
    Ok(data)
}

/// The specs of every built-in tool.
fn specs() -> Result<Vec<ToolSpec>, String> {
    Ok(engine()?.specs().to_vec())
}

/// The specs of one family's tools.
fn family_specs(family: &str) -> Result<Vec<ToolSpec>, String> {
    let loaded = Catalog::empty()
        .with(family)
        .and_then(|c| c.load())
        .map_err(|e| e.to_string())?;
    Ok(loaded.tools.iter().map(|t| t.spec().clone()).collect())
}

/// A JSON value's type as `result_type` names it.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A call's envelope as JSON.
fn run(
    tool: &str,
    params: Value,
    limits: LimitsRequest,
    dataset: Option<&str>,
) -> Result<Value, String> {
    let mut call = ToolCall::new(tool, params).with_limits(limits);
    call.dataset = dataset.map(str::to_string);
    let env = engine()?.call(call);
    serde_json::to_value(env).map_err(|e| e.to_string())
}

/// Every example of a family's tools gives its documented result and fits the result schema.
fn examples(family: &str) -> Outcome {
    for spec in family_specs(family)? {
        for i in 0..spec.examples.len() {
            check_example(&spec, i)?;
        }
    }
    Ok(())
}

/// Runs example `ex` of `tool`: in a trajectory of its own whose workspace holds the example's files (written by
/// `write_file`) when it names any, else as a plain call.
pub fn run_example(
    e: &Engine,
    tool: &str,
    ex: &beaker::Example,
) -> Result<beaker::Envelope, String> {
    let mut call = ToolCall::new(tool, ex.params.clone());
    call.dataset = ex.dataset.clone();
    if ex.workspace.is_empty() {
        return Ok(e.call(call));
    }
    // Trials run at once and several may run this example: each run has a trajectory of its own.
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("example-{tool}-{run}");
    for (path, content) in &ex.workspace {
        let params = match content {
            Value::String(text) => json!({"path": path, "content": text}),
            other => json!({"path": path, "content": other["base64"], "encoding": "base64"}),
        };
        let w = e.call(ToolCall::new("write_file", params).with_tag(&tag));
        if !w.success {
            return Err(format!("example of `{tool}`: writing {path} failed: {w:?}"));
        }
    }
    let env = e.call(call.with_tag(&tag));
    e.close_trajectory(&tag);
    Ok(env)
}

/// The example's result: the keys it elides must be present, everything else exactly as documented.
fn check_example(spec: &ToolSpec, i: usize) -> Outcome {
    let ex = &spec.examples[i];
    let env =
        serde_json::to_value(run_example(engine()?, &spec.name, ex)?).map_err(|e| e.to_string())?;
    let mut got = env
        .get("result")
        .filter(|r| !r.is_null())
        .ok_or(format!("example {} failed: {env}", ex.params))?
        .clone();
    let schema = &spec.result_schema;
    let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
    let errors: Vec<String> = validator.iter_errors(&got).map(|e| e.to_string()).collect();
    ensure(errors.is_empty(), || {
        format!(
            "example {}: the result breaks the result schema: {errors:?}",
            ex.params
        )
    })?;
    for k in &ex.elided {
        let removed = got.as_object_mut().and_then(|m| m.remove(k));
        ensure(removed.is_some(), || {
            format!(
                "example {}: elided key `{k}` is not in the result",
                ex.params
            )
        })?;
    }
    ensure(got == ex.result, || {
        format!(
            "example {} gives {got}, the spec says {}",
            ex.params, ex.result
        )
    })
}

fn every_tool_has_examples() -> Outcome {
    for s in specs()? {
        ensure(!s.examples.is_empty(), || {
            format!("`{}` has no example", s.name)
        })?;
    }
    Ok(())
}

/// Sets `v` at the JSON pointer `path` in `root`, creating the last key if needed.
fn set(root: &mut Value, path: &str, v: Value) -> Result<(), String> {
    let (parent, key) = path.rsplit_once('/').ok_or(format!("bad pointer {path}"))?;
    match root.pointer_mut(parent) {
        Some(Value::Object(m)) => {
            m.insert(key.to_string(), v);
            Ok(())
        }
        _ => Err(format!("no object at {parent} in params")),
    }
}

/// Builds the inputs a case generates (tests/data/README.md, `generate`).
fn generate(params: &mut Value, gens: &[Value]) -> Result<(), String> {
    for g in gens {
        let path = g["path"].as_str().ok_or("a generator needs a path")?;
        let n = g["repeat"].as_u64().unwrap_or(0) as usize;
        let v = if let Some(item) = g.get("item") {
            Value::Array(vec![item.clone(); n])
        } else if let Some(depth) = g.get("depth").and_then(Value::as_u64) {
            (0..depth).fold(json!(1), |v, _| json!([v]))
        } else {
            let s = |k: &str| g[k].as_str().unwrap_or("");
            Value::String(format!(
                "{}{}{}{}",
                s("text").repeat(n),
                s("prefix").repeat(n),
                s("middle"),
                s("suffix").repeat(n)
            ))
        };
        set(params, path, v)?;
    }
    Ok(())
}

fn adversarial(case: &Value) -> Outcome {
    let tool = case["tool"].as_str().ok_or("a case needs `tool`")?;
    let mut params = case.get("params").cloned().unwrap_or(json!({}));
    if let Some(Value::Array(gens)) = case.get("generate") {
        generate(&mut params, gens)?;
    }
    let limits: LimitsRequest =
        serde_json::from_value(case.get("limits").cloned().unwrap_or(json!({})))
            .map_err(|e| format!("bad limits in case: {e}"))?;
    let env = run(tool, params, limits, case["dataset"].as_str())?;
    let short = || env.to_string().chars().take(600).collect::<String>();
    match case.get("error_kind") {
        // One kind, or a list of acceptable ones (a runaway computation may stop on time or on fuel).
        Some(Value::Array(kinds)) => ensure(kinds.contains(&env["error_kind"]), || {
            format!("expected one of {kinds:?}, got {}", short())
        })?,
        Some(kind) => ensure(env["error_kind"] == *kind, || {
            format!("expected {kind}, got {}", short())
        })?,
        None => ensure(env["success"] == true, || {
            format!("expected success, got {}", short())
        })?,
    }
    if let Some(needle) = case.get("message_contains").and_then(Value::as_str) {
        let msg = env["error"]
            .as_str()
            .or(env["result"]["message"].as_str())
            .unwrap_or("");
        ensure(msg.contains(needle), || {
            format!("message {msg:?} lacks {needle:?}")
        })?;
    }
    let at = |ptr: &str| env["result"].pointer(ptr).cloned().unwrap_or(Value::Null);
    if let Some(Value::Object(want)) = case.get("result") {
        for (ptr, v) in want {
            let got = at(ptr);
            ensure(got == *v, || {
                format!("result{ptr}: expected {v}, got {got} (in {})", short())
            })?;
        }
    }
    // What a failed call kept of its output (the envelope's `partial`); `null` means none.
    if let Some(Value::Object(want)) = case.get("partial") {
        for (ptr, v) in want {
            let got = env["partial"].pointer(ptr).cloned().unwrap_or(Value::Null);
            ensure(got == *v, || {
                format!("partial{ptr}: expected {v}, got {got} (in {})", short())
            })?;
        }
    }
    if let Some(want) = case.get("expected") {
        let rtol = case["rtol"].as_f64().unwrap_or(0.0);
        let atol = case["atol"].as_f64().unwrap_or(0.0);
        compare(&env["result"], want, rtol, atol, "result")?;
    }
    if let Some(Value::Array(ptrs)) = case.get("result_has") {
        for p in ptrs.iter().filter_map(Value::as_str) {
            ensure(env["result"].pointer(p).is_some(), || {
                format!("result{p} is missing: {}", short())
            })?;
        }
    }
    if let Some(Value::Object(types)) = case.get("result_type") {
        for (ptr, ty) in types {
            let got = type_name(&at(ptr));
            ensure(Some(got) == ty.as_str(), || {
                format!("result{ptr} is {got}, want {ty}")
            })?;
        }
    }
    if let Some(Value::Object(choices)) = case.get("one_of") {
        for (ptr, vs) in choices {
            let got = at(ptr);
            let vs = vs.as_array().cloned().unwrap_or_default();
            ensure(vs.contains(&got), || {
                format!("result{ptr} = {got}, not one of {vs:?} ({})", short())
            })?;
        }
    }
    still_answers(tool)
}

/// After a hostile call the engine still answers: the tool's first example and a calculator call.
fn still_answers(tool: &str) -> Outcome {
    let e = engine()?;
    if let Some(ex) = e.spec(tool).and_then(|s| s.examples.first()) {
        let env = run_example(e, tool, ex)?;
        ensure(env.success, || {
            format!("`{tool}` stopped answering its example: {env:?}")
        })?;
    }
    let calc = e.call(ToolCall::new("calculator", json!({"expression": "1+1"})));
    ensure(calc.success, || "the engine stopped answering".into())
}

/// Every family of the catalog has its adversarial cases, and every case names a tool the engine serves.
fn every_family_has_adversarial_cases() -> Outcome {
    let names: Vec<String> = specs()?.into_iter().map(|s| s.name).collect();
    for family in Catalog::builtin().families() {
        let rel = format!("tests/data/{}/adversarial.jsonl", family.name);
        ensure(root().join(&rel).exists(), || format!("{rel} is missing"))?;
        for case in jsonl(&rel) {
            let tool = case["tool"].as_str().unwrap_or("");
            ensure(names.iter().any(|n| n == tool), || {
                format!(
                    "{rel}: case {} names no tool the engine serves",
                    case["name"]
                )
            })?;
        }
    }
    Ok(())
}

/// Every adversarial case of every family, sent at once to one `beaker serve`: each is answered, and the same
/// process answers a call after them (no case can end the server: issue 36).
fn one_server_survives_every_adversarial_case() -> Outcome {
    let mut lines = Vec::new();
    for family in Catalog::builtin().families() {
        let rel = format!("tests/data/{}/adversarial.jsonl", family.name);
        if !root().join(&rel).exists() {
            continue;
        }
        for case in jsonl(&rel) {
            let mut params = case.get("params").cloned().unwrap_or_else(|| json!({}));
            if let Some(gens) = case.get("generate").and_then(Value::as_array) {
                generate(&mut params, gens)?;
            }
            let mut call = json!({"id": lines.len(), "tool": case["tool"], "params": params});
            if let Some(limits) = case.get("limits") {
                call["limits"] = limits.clone();
            }
            lines.push(call);
        }
    }
    let n = lines.len();
    let mut server = crate::support::Server::start(&[]);
    let pid = server.child.id();
    let mut stdin = server.stdin.take().ok_or("no stdin")?;
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for line in &lines {
            let mut bytes = serde_json::to_vec(line).unwrap_or_default();
            bytes.push(b'\n');
            if stdin.write_all(&bytes).is_err() {
                return None;
            }
        }
        Some(stdin)
    });
    let mut answered = std::collections::BTreeSet::new();
    while answered.len() < n {
        let answer = server.recv();
        if let Some(id) = answer["id"].as_u64() {
            answered.insert(id);
        }
    }
    let mut stdin = writer
        .join()
        .map_err(|_| "the writer panicked")?
        .ok_or("the server stopped reading")?;
    {
        use std::io::Write;
        writeln!(
            stdin,
            "{}",
            json!({"id": "last", "tool": "calculator", "params": {"expression": "6*7"}})
        )
        .map_err(|e| e.to_string())?;
    }
    let last = server.recv();
    server.stdin = Some(stdin);
    ensure(
        last["id"] == "last" && last["result"]["value"] == "42" && server.child.id() == pid,
        || format!("after {n} adversarial cases the server answered {last}"),
    )?;
    let (_, status) = server.finish();
    ensure(status.success(), || {
        format!("the server ended with {status}")
    })
}

pub fn trials() -> Vec<Trial> {
    let mut trials = vec![
        Trial::test(
            "conformance::one_server_survives_every_adversarial_case",
            one_server_survives_every_adversarial_case,
        ),
        Trial::test(
            "conformance::every_tool_has_examples",
            every_tool_has_examples,
        ),
        Trial::test(
            "conformance::every_family_has_adversarial_cases",
            every_family_has_adversarial_cases,
        ),
    ];
    for family in Catalog::builtin().families() {
        let name = format!("conformance::examples::{}", family.name);
        trials.push(Trial::test(name, move || examples(family.name)));
    }
    for family in Catalog::builtin().families() {
        let rel = format!("tests/data/{}/adversarial.jsonl", family.name);
        if !root().join(&rel).exists() {
            continue;
        }
        for case in jsonl(&rel) {
            let name = format!(
                "conformance::adversarial::{}::{}",
                family.name,
                case["name"].as_str().unwrap_or("?")
            );
            trials.push(Trial::test(name, move || adversarial(&case)));
        }
    }
    trials
}
