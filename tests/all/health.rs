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

/// The synthetic export's files (tests/data/health/).
pub const EXPORT: [&str; 4] = [
    "export.xml",
    "cgm.csv",
    "body_temperature.csv",
    "reports.json",
];

/// Relative tolerance of every reference value (sums and means taken in another order than pandas').
const RTOL: f64 = 1e-9;

/// A data folder with `alice` and `example` (the whole synthetic export, America/Los_Angeles), `bob` (one CSV,
/// UTC) and `dave` (a FreeStyle Libre export, Europe/Berlin), imported once per test run through the binary.
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
        let alice = import("alice", "America/Los_Angeles", &EXPORT)?;
        // What the import skipped: in-bed and awake sleep records, Dexcom's Low/High and non-EGV rows.
        if alice["skipped"].as_object().is_none_or(|s| s.len() < 3) {
            return Err(format!("the import should count what it skipped: {alice}"));
        }
        import("bob", "UTC", &["body_temperature.csv"])?;
        // The tools' examples read `example` (over MCP, tests/clients/mcp_client.py).
        import("example", "America/Los_Angeles", &EXPORT)?;
        // A FreeStyle Libre export (its first line is about the export; mmol/L, historic and scan rows).
        import("dave", "Europe/Berlin", &["libre.csv"])?;
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
    // A plan's steps read the request's dataset too.
    let plan = json!({"id": 3, "dataset": "bob", "plan": {"steps": [
        {"step_id": "what", "tool": "get_data_summary", "params": {"dataTypes": ["csv"]}}]}});
    let env = ask(plan, &[])?;
    ensure(env.to_string().contains("\"dataset\":\"bob\""), || {
        format!("{env}")
    })?;
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
        Trial::test("health::object_store", object_store),
        Trial::test("health::libre_import", libre_import),
        Trial::test("health::memory_budget", memory_budget),
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

/// moto's S3 server on a free port, stopped when dropped.
struct S3 {
    child: std::process::Child,
    port: u16,
}

impl Drop for S3 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl S3 {
    fn start() -> Result<S3, String> {
        let python = crate::support::clients_python().map_err(|e| format!("{e:?}"))?;
        let server = python.with_file_name("moto_server");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let child = std::process::Command::new(&server)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", server.display()))?;
        let s3 = S3 { child, port };
        for _ in 0..200 {
            if s3
                .request("PUT", "/health-history", b"")
                .is_ok_and(|(status, _)| status == 200)
            {
                return Ok(s3);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Err("moto_server did not start".into())
    }

    /// An object's bytes, read with boto3 (moto answers unsigned reads 403).
    fn get(&self, bucket: &str, key: &str) -> Result<Vec<u8>, String> {
        let python = crate::support::clients_python().map_err(|e| format!("{e:?}"))?;
        let script = format!(
            "import boto3, sys; s3 = boto3.client('s3', endpoint_url='http://127.0.0.1:{}', region_name='us-east-1', \
             aws_access_key_id='test', aws_secret_access_key='test'); \
             sys.stdout.buffer.write(s3.get_object(Bucket='{bucket}', Key='{key}')['Body'].read())",
            self.port
        );
        let out = std::process::Command::new(python)
            .args(["-c", &script])
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("boto3: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(out.stdout)
    }

    /// One unsigned request (moto takes them for buckets): status and body.
    fn request(&self, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        use std::io::{Read, Write};
        let mut s =
            std::net::TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
        s.write_all(body).map_err(|e| e.to_string())?;
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&raw);
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let at = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(raw.len(), |i| i + 4);
        Ok((status, raw[at..].to_vec()))
    }
}

/// History in an S3-compatible store (moto), encrypted, and recent months in the folder: the hybrid answers as
/// the local dataset does, the store never holds a plaintext byte, and a wrong key reads nothing.
fn object_store() -> Outcome {
    let s3 = S3::start()?;
    let dir = std::env::temp_dir().join(format!("beaker-health-s3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let config = dir.join("beaker.toml");
    std::fs::write(
        &config,
        format!(
            "[data]\ndir = {:?}\nlocal_days = 60\n[data.object_store]\nendpoint = \"http://127.0.0.1:{}\"\nbucket = \"health-history\"\nprefix = \"users\"\naccess_key_env = \"T_S3_KEY\"\nsecret_key_env = \"T_S3_SECRET\"\nkey_env = \"T_DATA_KEY\"\n",
            dir.join("data"),
            s3.port
        ),
    )
    .map_err(|e| e.to_string())?;
    // Steps from the last three days: a month that stays in the folder.
    let recent = dir.join("recent.csv");
    let today = chrono::Utc::now().date_naive();
    let recent_days: Vec<String> = (1..=3)
        .map(|d| (today - chrono::TimeDelta::days(d)).to_string())
        .collect();
    let rows: String = recent_days
        .iter()
        .map(|d| format!("{d}T12:00:00Z,steps,1000,count\n"))
        .collect();
    std::fs::write(&recent, format!("timestamp,metric,value,unit\n{rows}"))
        .map_err(|e| e.to_string())?;
    let key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let env = |cmd: &mut std::process::Command, key: &str| {
        cmd.env("T_S3_KEY", "test")
            .env("T_S3_SECRET", "test")
            .env("T_DATA_KEY", key);
    };
    let data = root().join("tests/data/health");
    let mut import = beaker();
    import
        .args(["data", "import", "--quiet", "--config"])
        .arg(&config)
        .args(["--dataset", "carol", "--time-zone", "America/Los_Angeles"])
        .args(EXPORT.map(|f| data.join(f)))
        .arg(&recent);
    env(&mut import, key);
    let out = import.output().map_err(|e| e.to_string())?;
    ensure(out.status.success(), || {
        format!("import: {}", String::from_utf8_lossy(&out.stderr))
    })?;
    // 2024's months are history: in the store, encrypted (Parquet's encrypted-footer magic, no metric name in
    // clear), and not in the folder.
    let bytes = s3.get("health-history", "users/carol/samples/2024-12.parquet")?;
    ensure(bytes.ends_with(b"PARE"), || {
        format!("not an encrypted Parquet file: {} bytes", bytes.len())
    })?;
    ensure(!bytes.windows(9).any(|w| w == b"heartRate"), || {
        "plaintext in the store".into()
    })?;
    ensure(
        !dir.join("data/carol/samples/2024-12.parquet").exists(),
        || "history kept locally".into(),
    )?;
    // The same questions as the local dataset, through the hybrid.
    let serve_with =
        |config: &std::path::Path, key: &str, request: Value| -> Result<Value, String> {
            let config = config.to_string_lossy().into_owned();
            let mut s = Server::start_with_env(
                &["--no-python", "--config", &config],
                &[
                    ("T_S3_KEY", "test".as_ref()),
                    ("T_S3_SECRET", "test".as_ref()),
                    ("T_DATA_KEY", key.as_ref()),
                ],
            );
            s.send(&request);
            let answer = s.recv();
            drop(s.finish());
            Ok(answer)
        };
    let serve = |key: &str, request: Value| serve_with(&config, key, request);
    for case in jsonl("tests/data/health/reference.jsonl").iter().take(12) {
        let env = serve(
            key,
            json!({"id": 1, "dataset": "carol", "tool": case["tool"], "params": case["params"]}),
        )?;
        ensure(env["success"] == true, || {
            format!("{}: {env}", case["name"])
        })?;
        compare(&env["result"], &case["expect"], RTOL, 0.0, "result")
            .map_err(|e| format!("{}: {e}", case["name"]))?;
    }
    // A month in both places (moved to the store, then imported again while everything counted as recent):
    // read from both and answered once, not twice.
    let both = dir.join("both.toml");
    let text = std::fs::read_to_string(&config).map_err(|e| e.to_string())?;
    std::fs::write(
        &both,
        text.replace("local_days = 60", "local_days = 100000"),
    )
    .map_err(|e| e.to_string())?;
    let mut again = beaker();
    again
        .args(["data", "import", "--quiet", "--config"])
        .arg(&both)
        .args(["--dataset", "carol", "--time-zone", "America/Los_Angeles"])
        .args(EXPORT.map(|f| data.join(f)));
    env(&mut again, key);
    let out = again.output().map_err(|e| e.to_string())?;
    ensure(out.status.success(), || {
        format!("import: {}", String::from_utf8_lossy(&out.stderr))
    })?;
    ensure(
        dir.join("data/carol/samples/2024-12.parquet").exists()
            && s3
                .get("health-history", "users/carol/samples/2024-12.parquet")
                .is_ok(),
        || "2024-12 is not in both places".into(),
    )?;
    for case in jsonl("tests/data/health/reference.jsonl").iter().take(12) {
        let env = serve_with(
            &both,
            key,
            json!({"id": 1, "dataset": "carol", "tool": case["tool"], "params": case["params"]}),
        )?;
        compare(&env["result"], &case["expect"], RTOL, 0.0, "result")
            .map_err(|e| format!("{} (a month in both places): {e}", case["name"]))?;
    }
    let env = serve(
        key,
        json!({"id": 1, "dataset": "carol", "tool": "query_timeseries_metrics", "params": {"metrics": ["steps"], "dateRange": {"start": recent_days[2], "end": recent_days[0]}, "groupBy": "day"}}),
    )?;
    ensure(
        env["result"]["source"] == "hybrid" && env["result"]["totalRecords"] == 3,
        || format!("{env}"),
    )?;
    // A wrong data key decrypts nothing.
    let wrong = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";
    let env = serve(
        wrong,
        json!({"id": 1, "dataset": "carol", "tool": "query_timeseries_metrics", "params": {"metrics": ["heartRate"], "groupBy": "month"}}),
    )?;
    ensure(env["success"] == false, || {
        format!("read with a wrong key: {env}")
    })?;
    Ok(())
}

/// A FreeStyle Libre export: its header on the second line, historic (type 0) and scan (type 1) readings in
/// mmol/L brought to mg/dL with glucose's molar mass (180.156 g/mol), other record types skipped, local times
/// in the dataset's zone.
fn libre_import() -> Outcome {
    let env = call(
        "dave",
        "query_timeseries_metrics",
        json!({"metrics": ["glucose"], "groupBy": "day"}),
    )?;
    let mg = 180.156 / 10.0;
    let want = json!({"timeZone": "Europe/Berlin", "series": [{"metric": "glucose", "unit": "mg/dL", "aggregation": "avg", "points": [
        {"time": "2024-11-19", "value": (5.5 + 6.1 + 6.3) / 3.0 * mg, "count": 3},
        {"time": "2024-11-20", "value": 7.0 * mg, "count": 1}
    ]}]});
    compare(&env["result"], &want, 1e-12, 0.0, "result").map_err(|e| format!("{e}: {env}"))?;
    let env = call("dave", "get_data_summary", json!({"dataTypes": ["cgm"]}))?;
    ensure(
        env["result"]["dataTypes"]["cgm"]["metrics"]["glucose"]["samples"] == 4,
        || format!("{env}"),
    )
}

/// A question reserves what its months take from the process's one memory budget (16 times their Parquet
/// bytes) before it runs: past the budget it is refused, and the server goes on answering.
fn memory_budget() -> Outcome {
    let dir = data_dir()?.to_string_lossy().into_owned();
    let mut s = Server::start(&["--no-python", "--data", &dir, "--max-memory", "1MiB"]);
    let small = json!({"max_output_bytes": 20000});
    s.send(
        &json!({"id": 1, "dataset": "alice", "tool": "query_timeseries_metrics", "limits": small,
        "params": {"metrics": ["heartRate"], "groupBy": "month"}}),
    );
    s.send(
        &json!({"id": 2, "dataset": "alice", "tool": "get_latest_report", "limits": small,
        "params": {"reportType": "dexa"}}),
    );
    let (lines, _) = s.finish();
    let by_id = |id: i64| {
        lines
            .iter()
            .find(|l| l["id"] == id)
            .cloned()
            .unwrap_or_default()
    };
    let big = by_id(1);
    ensure(
        big["error_kind"] == "limit_exceeded"
            && big["error"]
                .as_str()
                .is_some_and(|e| e.contains("the months this question reads")),
        || format!("{big}"),
    )?;
    ensure(by_id(2)["success"] == true, || format!("{lines:?}"))
}
