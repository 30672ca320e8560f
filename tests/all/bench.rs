//! `beaker bench` over the binary: reports on the shipped scenarios, and runs that must fail loudly (a server
//! that never answers, answers twice, or answers with garbage).

use crate::support::{beaker, ensure, peers_python, root, Outcome};
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
        Trial::test(
            "bench::compare_alternates_rounds_and_cross_checks",
            compare_two,
        ),
        Trial::test("bench::compare_fails_on_a_wrong_answer", compare_wrong),
        Trial::test(
            "bench::compare_fails_on_failures_the_other_lacks",
            compare_flaky,
        ),
        Trial::test(
            "bench::usage_errors_and_server_errors",
            usage_and_server_errors,
        ),
        Trial::test("bench::mcp_and_http_transports", transports),
        Trial::test("bench::bursts_send_waves", bursts),
        Trial::test(
            "bench::the_python_peer_computes_beakers_answers",
            python_peer,
        ),
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
            && md.contains("| label | calls | failed | p50 ms")
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
        ensure(o.status.code() == Some(1) && err.contains(says), || {
            format!("{mode}: {o:?}")
        })?;
    }
    Ok(())
}

/// This test binary's own `beaker serve`, as a shell command for `--server` and `--compare`.
fn serve_cmd(args: &str) -> String {
    format!("{} serve {args}", env!("CARGO_BIN_EXE_beaker"))
}

fn compare_two() -> Outcome {
    let a = serve_cmd("--no-python");
    let b = serve_cmd("--no-python --workers 1");
    let o = bench(&[
        "benches/scenarios/math_rl_mix.jsonl",
        "-n",
        "300",
        "--rounds",
        "3",
        "--server",
        &a,
        "--compare",
        &b,
        "--json",
        "--quiet",
    ]);
    let r = report(&o)?;
    ensure(o.status.success(), || format!("{o:?}"))?;
    // 300 calls in 3 rounds of 100 for each; the first answer to each of the 11 entries compared (the warm-up
    // of 50 and 300 calls draw every entry of this scenario at its weights).
    ensure(
        r["rounds"] == 3
            && r["a"]["calls"] == 300
            && r["b"]["calls"] == 300
            && r["a"]["overall"]["failures"] == 0
            && r["b"]["calls_per_second"].as_f64().is_some_and(|c| c > 0.0)
            && r["checked"] == 11
            && r["differences"] == serde_json::json!([]),
        || r.to_string(),
    )?;
    // The text form names both and the ratio.
    let o = bench(&[
        "benches/scenarios/calculator.jsonl",
        "-n",
        "40",
        "--rounds",
        "2",
        "--server",
        &a,
        "--compare",
        &b,
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    ensure(
        o.status.success()
            && text.contains("2 alternating rounds")
            && text.contains("A/B")
            && text.contains("differ"),
        || format!("{o:?}"),
    )
}

fn compare_wrong() -> Outcome {
    let script = root().join("tests/clients/bad_server.py");
    let wrong = format!("python3 {} wrong", script.display());
    let o = bench(&[
        "benches/scenarios/calculator.jsonl",
        "-n",
        "40",
        "--warmup",
        "10",
        "--compare",
        &wrong,
        "--json",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let r = report(&o)?;
    let diffs = r["differences"].as_array().cloned().unwrap_or_default();
    // Every calculator entry differs but one: 7 * 8 is 56, not 57; nothing in this scenario is 57.
    ensure(
        o.status.code() == Some(1)
            && !diffs.is_empty()
            && diffs
                .iter()
                .all(|d| d["path"] == "result.value" && d["b"] == "\"57\"")
            && diffs.iter().any(|d| d["a"] == "\"56\""),
        || r.to_string(),
    )
}

fn transports() -> Outcome {
    for t in ["mcp", "http"] {
        let o = bench(&[
            "benches/scenarios/math_rl_mix.jsonl",
            "-n",
            "300",
            "--transport",
            t,
            "--json",
            "--quiet",
            "--",
            "--no-python",
        ]);
        let r = report(&o)?;
        ensure(
            o.status.success()
                && r["transport"] == t
                && r["overall"]["calls"] == 300
                && r["overall"]["failures"] == 0
                && r["tools"]["statistics"]["calls"]
                    .as_u64()
                    .is_some_and(|n| n > 0)
                && r["first_answer_ms"].as_f64().is_some_and(|ms| ms > 0.0),
            || format!("{t}: {o:?}"),
        )?;
    }
    // Failures come back as failures over MCP too, with their kind.
    let o = bench(&[
        "benches/scenarios/adversarial.jsonl",
        "-n",
        "1",
        "--transport",
        "mcp",
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    ensure(
        o.status.code() == Some(2) && err.contains("carries tool calls only"),
        || format!("{o:?}"),
    )
}

fn bursts() -> Outcome {
    let o = bench(&[
        "benches/scenarios/calculator.jsonl",
        "-n",
        "160",
        "--burst",
        "16",
        "--json",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let r = report(&o)?;
    ensure(
        o.status.success()
            && r["calls"] == 160
            && r["overall"]["calls"] == 160
            && r["mode"] == "bursts of 16"
            && r["concurrency"] == 16,
        || r.to_string(),
    )
}

/// The peer (benches/peers/python_server.py: SymPy, Pint, NumPy, SciPy, periodictable, matplotlib, a `python -c`
/// per call) gives the same answers as Beaker on every entry of the shipped scenarios it serves: a check of the
/// peer, and of Beaker against those libraries.
fn python_peer() -> Outcome {
    let python = peers_python()?;
    let peer = format!(
        "{} {}",
        python.display(),
        root().join("benches/peers/python_server.py").display()
    );
    for (scenario, calls, warmup, entries) in [
        ("calculator", "60", "20", 5),
        ("math_rl_mix", "100", "50", 11),
        ("plots", "12", "6", 3),
        // 16 Python calls draw 4 of the 5 entries (the fifth has weight 1 of 11); enough to cross-check.
        ("python_scientific", "16", "4", 4),
    ] {
        let path = format!("benches/scenarios/{scenario}.jsonl");
        let o = bench(&[
            &path,
            "-n",
            calls,
            "--warmup",
            warmup,
            "-c",
            "2",
            "--rounds",
            "2",
            "--compare",
            &peer,
            "--json",
            "--quiet",
        ]);
        let r = report(&o)?;
        ensure(
            o.status.success()
                && r["checked"] == entries
                && r["differences"] == serde_json::json!([])
                && r["a"]["overall"]["failures"] == 0
                && r["b"]["overall"]["failures"] == 0,
            || format!("{scenario}: {r}"),
        )?;
    }
    Ok(())
}

fn compare_flaky() -> Outcome {
    let script = root().join("tests/clients/bad_server.py");
    let (wrong, flaky) = (
        format!("python3 {} wrong", script.display()),
        format!("python3 {} flaky", script.display()),
    );
    let o = bench(&[
        "benches/scenarios/calculator.jsonl",
        "-n",
        "100",
        "--server",
        &wrong,
        "--compare",
        &flaky,
        "--json",
        "--quiet",
    ]);
    let r = report(&o)?;
    let diffs = r["differences"].as_array().cloned().unwrap_or_default();
    // Both answer "57" whenever they succeed, but B fails a fifth of its calls: the first answers agree, the
    // outcomes do not.
    ensure(
        o.status.code() == Some(1)
            && !diffs.is_empty()
            && diffs.iter().all(|d| {
                d["path"] == "success"
                    && d["a"].as_str().is_some_and(|a| a.starts_with("0 of "))
                    && d["b"]
                        .as_str()
                        .is_some_and(|b| b.contains("internal: busy"))
            })
            && r["b"]["overall"]["failures"]
                .as_u64()
                .is_some_and(|f| f > 0),
        || r.to_string(),
    )
}

fn usage_and_server_errors() -> Outcome {
    let calc = "benches/scenarios/calculator.jsonl";
    for args in [
        vec![calc, "-n", "0"],
        vec![calc, "-d", "0"],
        vec![calc, "--drain", "0"],
        vec![calc, "--rate", "0"],
        vec![calc, "--burst", "4", "-c", "2"],
        vec![calc, "--json", "--markdown"],
        vec![calc, "--server", "cat", "--", "--no-python"],
        vec![calc, "-n", "2", "--rounds", "4", "--compare", "cat"],
        vec![calc, "--rounds", "0", "--compare", "cat"],
        vec!["benches/scenarios/no_such_scenario.jsonl"],
    ] {
        let o = bench(&args);
        ensure(o.status.code() == Some(2), || format!("{args:?}: {o:?}"))?;
    }
    // A server that dies says why: its exit status and the end of its stderr, and which side it was.
    let o = bench(&[
        calc,
        "--server",
        "sh -c 'echo the config is broken >&2; exit 3'",
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    ensure(
        o.status.code() == Some(1)
            && err.contains("the config is broken")
            && err.contains("exit status: 3"),
        || format!("{o:?}"),
    )?;
    let o = bench(&[
        calc,
        "--compare",
        "sh -c 'exit 4'",
        "--quiet",
        "--",
        "--no-python",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    ensure(
        o.status.code() == Some(1) && err.contains("server B:") && err.contains("exit status: 4"),
        || format!("{o:?}"),
    )?;
    // Over MCP, a server that answers in JSON Lines is named as such.
    let o = bench(&[
        calc,
        "--transport",
        "mcp",
        "--server",
        &serve_cmd("--no-python"),
        "--quiet",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    ensure(
        o.status.code() == Some(1) && err.contains("does not speak MCP"),
        || format!("{o:?}"),
    )
}
