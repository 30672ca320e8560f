//! Seed 002's health tools over the real binary: `beaker data import` reads the synthetic export in
//! tests/data/health/ (written by tests/data/gen/health_reference.py), `beaker serve --data` answers every case
//! of reference.jsonl as pandas and SciPy do (rtol 1e-9; counts, labels and times exactly), and no client reads
//! a dataset that is not its own, over stdio, HTTP or MCP.

use crate::http::{Http, TokenFile};
use crate::support::{beaker, compare, ensure, jsonl, root, Outcome, Server};
use libtest_mimic::Trial;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::OnceLock;

/// Relative tolerance of every reference value (sums and means taken in another order than pandas').
const RTOL: f64 = 1e-9;

/// A data folder with `alice` (the whole synthetic export, America/Los_Angeles) and `bob` (one CSV, UTC),
/// imported once per test run through the binary.
pub fn data_dir() -> Result<&'static PathBuf, String> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("beaker-health-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let data = root().join("tests/data/health");
        let import = |dataset: &str, tz: &str, files: &[&str]| -> Result<Value, String> {
            let out = beaker()
                .args(["data", "import", "--quiet", "--data"])
                .arg(&dir)
                .args(["--dataset", dataset, "--time-zone", tz])
                .args(files.iter().map(|f| data.join(f)))
                .output()
                .map_err(|e| e.to_string())?;
            if !out.status.success() {
                return Err(format!(
                    "import failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
        };
        let alice = import(
            "alice",
            "America/Los_Angeles",
            &[
                "export.xml",
                "cgm.csv",
                "body_temperature.csv",
                "reports.json",
            ],
        )?;
        // What the import skipped: in-bed and awake sleep records, Dexcom's Low/High and non-EGV rows.
        if alice["skipped"].as_object().is_none_or(|s| s.len() < 3) {
            return Err(format!("the import should count what it skipped: {alice}"));
        }
        import("bob", "UTC", &["body_temperature.csv"])?;
        Ok(dir)
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Answers `request` on a fresh `beaker serve --data DIR` with `extra` flags.
fn ask(request: Value, extra: &[&str]) -> Result<Value, String> {
    let dir = data_dir()?.to_string_lossy().into_owned();
    let mut args = vec!["--no-python", "--data", dir.as_str()];
    args.extend(extra);
    let mut s = Server::start(&args);
    s.send(&request);
    let answer = s.recv();
    drop(s.finish());
    Ok(answer)
}

fn call(dataset: &str, tool: &str, params: Value) -> Result<Value, String> {
    ask(
        json!({"id": 1, "dataset": dataset, "tool": tool, "params": params}),
        &[],
    )
}

/// One case of reference.jsonl.
fn reference(case: &Value) -> Outcome {
    let env = call(
        "alice",
        case["tool"].as_str().unwrap_or(""),
        case["params"].clone(),
    )?;
    ensure(env["success"] == true, || format!("failed: {env}"))?;
    compare(&env["result"], &case["expect"], RTOL, 0.0, "result").map_err(Into::into)
}

/// The import kept every sample once (duplicates dropped) in the metric's unit.
fn summary_counts() -> Outcome {
    let env = call("alice", "get_data_summary", json!({}))?;
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/data/health/counts.json"))
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let types = &env["result"]["dataTypes"];
    for (metric, n) in want.as_object().into_iter().flatten() {
        let got = ["apple-health", "cgm", "csv"]
            .iter()
            .find_map(|t| types[t]["metrics"][metric]["samples"].as_u64());
        ensure(got == n.as_u64(), || {
            format!("{metric}: {got:?} samples, want {n}; {env}")
        })?;
    }
    ensure(
        types["dexa"]["reports"] == 3 && types["bloodwork"]["reports"] == 2,
        || format!("{env}"),
    )?;
    ensure(env["result"]["timeZone"] == "America/Los_Angeles", || {
        format!("{env}")
    })
}

/// Seed 002's "compare my last two DEXA scans", and the latest cholesterol.
fn seed_reports() -> Outcome {
    let env = call(
        "alice",
        "compare_reports",
        json!({"reportType": "dexa", "dates": ["second-latest", "latest"]}),
    )?;
    let r = &env["result"];
    ensure(
        r["reports"][0]["reportDate"] == "2024-06-20"
            && r["reports"][1]["reportDate"] == "2024-12-10",
        || format!("{env}"),
    )?;
    compare(
        &r["changes"]["visceralFatAreaCm2"],
        &json!({"from": 101.5, "to": 94.25, "change": -7.25, "percentChange": -7.142857142857143, "unit": "cm2"}),
        1e-12,
        0.0,
        "visceralFatAreaCm2",
    )?;
    let env = call(
        "alice",
        "get_latest_report",
        json!({"reportType": "bloodwork", "fields": ["cholesterol"]}),
    )?;
    ensure(
        env["result"]["reportDate"] == "2024-11-18"
            && env["result"]["fields"] == json!({"cholesterol": {"value": 188, "unit": "mg/dL"}}),
        || format!("{env}"),
    )
}

/// Each dataset is its own: bob's calls never see alice's data, a name is never a path, and a client bound to a
/// dataset cannot name another (`--dataset` on stdio and MCP, `dataset=` tokens over HTTP).
fn isolation() -> Outcome {
    let env = call("bob", "get_data_summary", json!({}))?;
    ensure(
        env["result"]["dataTypes"]["apple-health"]["available"] == false,
        || format!("bob sees alice's data: {env}"),
    )?;
    let env = call(
        "bob",
        "query_timeseries_metrics",
        json!({"metrics": ["heartRate"]}),
    )?;
    ensure(env["error_kind"] == "invalid_params", || format!("{env}"))?;
    for bad in [
        "../alice",
        "alice/..",
        "/tmp",
        "",
        "alice\u{0}",
        "ALICE/../alice",
    ] {
        let env = call(bad, "get_data_summary", json!({}))?;
        ensure(env["error_kind"] == "invalid_params", || {
            format!("{bad:?}: {env}")
        })?;
    }
    let env = ask(json!({"tool": "get_data_summary", "params": {}}), &[])?;
    ensure(
        env["error_kind"] == "invalid_params"
            && env["error"].as_str().is_some_and(|e| e.contains("dataset")),
        || format!("{env}"),
    )?;
    // Bound with --dataset: calls read bob without naming it, and naming alice is refused.
    let env = ask(
        json!({"tool": "get_data_summary", "params": {}}),
        &["--dataset", "bob"],
    )?;
    ensure(env["result"]["dataset"] == "bob", || format!("{env}"))?;
    let env = ask(
        json!({"dataset": "alice", "tool": "get_data_summary", "params": {}}),
        &["--dataset", "bob"],
    )?;
    ensure(env["error_kind"] == "invalid_params", || format!("{env}"))?;
    // A text request's calls read the request's dataset.
    let text = "<tool_call>{\"name\": \"get_data_summary\", \"arguments\": {\"dataTypes\": [\"csv\"]}}</tool_call>";
    let env = ask(json!({"id": 2, "text": text, "dataset": "bob"}), &[])?;
    ensure(
        env.to_string().contains("\\\"dataset\\\": \\\"bob\\\"")
            || env.to_string().contains("\"dataset\":\"bob\""),
        || format!("{env}"),
    )?;
    // Over HTTP: one token bound to bob, one to alice.
    let dir = data_dir()?.to_string_lossy().into_owned();
    let tokens = TokenFile::new(
        "health",
        "tok-bob name=bob dataset=bob\ntok-alice name=alice dataset=alice\n",
    )?;
    let h = Http::start(&["--no-python", "--data", &dir, "--http-tokens", &tokens.path])?;
    let post = |token: &str, body: Value| -> Result<Value, String> {
        let auth = format!("Authorization: Bearer {token}\r\n");
        let (_, _, bytes) =
            h.request_with("POST", "/v1/call", body.to_string().as_bytes(), &auth)?;
        serde_json::from_slice(&bytes).map_err(|e| e.to_string())
    };
    let env = post("tok-bob", json!({"tool": "get_data_summary", "params": {}}))?;
    ensure(env["result"]["dataset"] == "bob", || format!("{env}"))?;
    let env = post(
        "tok-bob",
        json!({"dataset": "alice", "tool": "query_timeseries_metrics", "params": {"metrics": ["heartRate"]}}),
    )?;
    ensure(
        env["error_kind"] == "invalid_params" && !env.to_string().contains("heartRate\",\"unit"),
        || format!("{env}"),
    )?;
    let env = post(
        "tok-alice",
        json!({"tool": "query_timeseries_metrics", "params": {"metrics": ["heartRate"], "groupBy": "month"}}),
    )?;
    ensure(
        env["result"]["series"][0]["points"]
            .as_array()
            .is_some_and(|p| p.len() == 3),
        || format!("{env}"),
    )?;
    Ok(())
}

pub fn trials() -> Vec<Trial> {
    let mut out = vec![
        Trial::test("health::summary_counts", summary_counts),
        Trial::test("health::seed_reports", seed_reports),
        Trial::test("health::isolation", isolation),
    ];
    for case in jsonl("tests/data/health/reference.jsonl") {
        let name = format!(
            "health::reference::{}",
            case["name"].as_str().unwrap_or("?")
        );
        out.push(Trial::test(name, move || reference(&case)));
    }
    out
}
