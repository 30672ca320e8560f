//! `beaker bench` over the binary: reports on the shipped scenarios, and runs that must fail loudly (a server
//! that never answers, answers twice, or answers with garbage).

use crate::support::{beaker, ensure, root, Outcome};
use libtest_mimic::Trial;
use serde_json::Value;
use std::process::Output;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("bench::reports_a_scenario", reports_a_scenario),
        Trial::test(
            "bench::adversarial_answers_are_all_accounted_for",
            adversarial,
        ),
        Trial::test("bench::a_broken_server_fails_the_run", broken_servers),
    ]
}

fn bench(args: &[&str]) -> Output {
    beaker()
        .current_dir(root())
        .arg("bench")
        .args(args)
        .output()
        .expect("run beaker bench")
}

fn report(o: &Output) -> Result<Value, String> {
    serde_json::from_slice(&o.stdout).map_err(|e| format!("{e}: {o:?}"))
}

fn reports_a_scenario() -> Outcome {
    let o = bench(&[
        "benches/scenarios/calculator.jsonl",
        "-n",
        "300",
        "-c",
        "4",
        "--json",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let r = report(&o)?;
    ensure(o.status.success(), || format!("{o:?}"))?;
    ensure(
        r["calls"] == 300
            && r["overall"]["calls"] == 300
            && r["overall"]["failures"] == 0
            && r["tools"]["calculator"]["calls"] == 300
            && r["server_peak_rss_kb"].as_u64().is_some_and(|k| k > 1000)
            && r["calls_per_second"].as_f64().is_some_and(|c| c > 0.0),
        || r.to_string(),
    )?;
    let l = &r["overall"]["latency_us"];
    let get = |k: &str| l[k].as_u64().unwrap_or(0);
    ensure(
        get("p50") > 0
            && get("p50") <= get("p90")
            && get("p90") <= get("p99")
            && get("p99") <= get("max"),
        || l.to_string(),
    )?;
    let o = bench(&[
        "benches/scenarios/text_mode.jsonl",
        "-n",
        "50",
        "--markdown",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let md = String::from_utf8_lossy(&o.stdout);
    ensure(
        o.status.success()
            && md.contains("| tool | calls | failed | p50 ms")
            && md.contains("| svend |"),
        || format!("{o:?}"),
    )
}

fn adversarial() -> Outcome {
    let o = bench(&[
        "benches/scenarios/adversarial.jsonl",
        "-n",
        "400",
        "--json",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let r = report(&o)?;
    let kinds = &r["errors_by_kind"];
    ensure(
        o.status.success()
            && r["overall"]["calls"] == 400
            && [
                "parse_error",
                "unknown_tool",
                "invalid_params",
                "domain_error",
                "limit_exceeded",
            ]
            .iter()
            .all(|k| kinds[*k].as_u64().is_some_and(|n| n > 0))
            && r["tools"]["calculator"]["failures"] == 0,
        || r.to_string(),
    )
}

fn broken_servers() -> Outcome {
    let script = root().join("tests/clients/bad_server.py");
    for (mode, says) in [
        ("silent", "never answered"),
        ("twice", "not in flight"),
        ("garbage", "not JSON"),
    ] {
        let server = format!("python3 {} {mode}", script.display());
        let o = bench(&[
            "benches/scenarios/calculator.jsonl",
            "-n",
            "20",
            "--warmup",
            "0",
            "--drain",
            "1",
            "--quiet",
            "--server",
            &server,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        ensure(!o.status.success() && err.contains(says), || {
            format!("{mode}: {o:?}")
        })?;
    }
    Ok(())
}
