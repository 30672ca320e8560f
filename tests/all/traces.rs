//! `beaker lint`, `beaker migrate` and `beaker verify` over the binary, on the fixtures in
//! `tests/data/traces/` (the rule-by-rule fixture test is the unit test in `crates/beaker-traces`).

use crate::support::{beaker, ensure, root, Outcome};
use libtest_mimic::Trial;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("traces::lint_reports_and_exits", lint_reports_and_exits),
        Trial::test(
            "traces::migrate_rewrites_in_place",
            migrate_rewrites_in_place,
        ),
        Trial::test("traces::verify_finds_the_seeds_wrong_results", verify_seeds),
        Trial::test("traces::verify_conversations", verify_conversations),
        Trial::test("traces::lint_the_seed_001_examples", lint_seed_001),
        Trial::test(
            "traces::verify_reads_tags_inside_json_as_text",
            verify_tags_in_json,
        ),
    ]
}

fn data(rel: &str) -> PathBuf {
    root().join("tests/data/traces").join(rel)
}

fn run(args: &[&str], files: &[&Path]) -> Output {
    let mut cmd = beaker();
    cmd.args(args)
        .arg("--no-python")
        .arg("--tools")
        .arg(data("tools.json"));
    cmd.args(files);
    cmd.output().expect("run beaker")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp_copy(rel: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("beaker-traces-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let to = dir.join(Path::new(rel).file_name().expect("name"));
    std::fs::copy(data(rel), &to).expect("copy");
    to
}

fn json_lines(o: &Output) -> Vec<Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn lint_reports_and_exits() -> Outcome {
    let good = [
        data("good/qa.txt"),
        data("good/svend.txt"),
        data("good/conversation.jsonl"),
    ];
    let refs: Vec<&Path> = good.iter().map(PathBuf::as_path).collect();
    let o = run(&["lint"], &refs);
    ensure(o.status.code() == Some(0) && o.stdout.is_empty(), || {
        format!("good files: {o:?}")
    })?;
    let bad = data("bad/qa/explain.txt");
    let o = run(&["lint"], &[&bad]);
    let out = stdout(&o);
    ensure(o.status.code() == Some(1), || format!("bad file: {o:?}"))?;
    ensure(
        out == format!(
            "{}:13:82: qa/explain: the answer ends at a tool result: say what it means after it\n",
            bad.display()
        ),
        || format!("diagnostic line: {out:?}"),
    )?;
    let o = run(
        &["lint", "--format", "json"],
        &[&bad, &data("bad/conv/metadata.jsonl")],
    );
    let lines = json_lines(&o);
    ensure(lines.len() == 3, || format!("json: {lines:?}"))?;
    ensure(
        lines[1]["rule"] == "conv/metadata" && lines[1]["line"] == 1,
        || format!("{lines:?}"),
    )?;
    ensure(
        lines[2]["summary"]["problems"] == 2 && lines[2]["summary"]["files"] == 2,
        || format!("{lines:?}"),
    )?;
    let o = run(&["lint", "--disable", "qa/explain,svend"], &[&bad]);
    ensure(o.status.code() == Some(0), || format!("--disable: {o:?}"))?;
    let o = run(&["lint", "--disable", "qa/nothing"], &[&bad]);
    ensure(o.status.code() == Some(2), || {
        format!("unknown rule: {o:?}")
    })?;
    let o = run(&["lint", "--kind", "conversation"], &[&data("good/qa.txt")]);
    ensure(
        o.status.code() == Some(1) && stdout(&o).contains("conv/json"),
        || format!("--kind: {o:?}"),
    )?;
    let o = run(&["lint", "--list-rules"], &[]);
    let n = stdout(&o).lines().count();
    ensure(n == beaker_traces::lint::RULES.len(), || {
        format!("--list-rules printed {n} lines")
    })
}

fn migrate_rewrites_in_place() -> Outcome {
    let role = temp_copy("bad/qa/role.txt", "migrate");
    let deprecated = temp_copy("bad/qa/deprecated.txt", "migrate");
    let before = std::fs::read(&deprecated).expect("read");
    let o = run(&["migrate", "--check"], &[&role, &deprecated]);
    ensure(o.status.code() == Some(1), || format!("--check: {o:?}"))?;
    ensure(stdout(&o).lines().count() == 3, || {
        format!("--check lists the rewrites: {}", stdout(&o))
    })?;
    ensure(std::fs::read(&deprecated).expect("read") == before, || {
        "--check wrote the file".into()
    })?;
    let o = run(&["migrate"], &[&role, &deprecated]);
    ensure(o.status.code() == Some(0), || format!("migrate: {o:?}"))?;
    let migrated = std::fs::read_to_string(&deprecated).expect("read");
    ensure(
        migrated.contains(
            r#"<tool_call>{"tool": "calculator", "params": {"expression": "7 * 8"}}</tool_call>"#,
        ) && migrated.contains(
            r#"<tool_result>{"tool": "calculator", "success": true, "result": "56"}</tool_result>"#,
        ),
        || format!("migrated text: {migrated}"),
    )?;
    let o = run(&["lint"], &[&role, &deprecated]);
    ensure(o.status.code() == Some(0), || {
        format!("lint after migrate: {}", stdout(&o))
    })?;
    let o = run(&["migrate", "--check"], &[&role, &deprecated]);
    ensure(o.status.code() == Some(0), || {
        format!("a second migrate: {o:?}")
    })
}

fn verify_seeds() -> Outcome {
    let seeds = data("seeds/seed003_examples.txt");
    let o = run(&["verify", "--format", "json"], &[&seeds]);
    let lines = json_lines(&o);
    let summary = &lines.last().expect("summary")["summary"];
    ensure(
        summary["checked"] == 11
            && summary["matched"] == 6
            && summary["wrong"] == 5
            && summary["skipped"] == 0,
        || format!("summary: {summary}"),
    )?;
    let flagged: Vec<(i64, String)> = lines[..lines.len() - 1]
        .iter()
        .map(|d| {
            (
                d["line"].as_i64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    // The plot's placeholder image and description, the t-test's t, p and conclusion (Welch's t for these
    // samples is -5.2086, p = 0.00081), and web_search's placeholder results (`"..."`: a search over the
    // built-in index finds real passages), pubchem's illustration (chemicals names aspirin in lower case, and
    // the properties asked for are under `properties`, each with its unit and source: no `melting_point` or
    // `smiles` at the top), and wolfram's illustration: "225 million km" is the figure popular sources quote, the
    // time average of the Earth-Mars distance over 1900-2050 is 255 million km (DE421; ERFA's theories give the
    // same within 1e-5, tests/data/wolfram/questions.jsonl), between 55.8 and 400.4 million.
    ensure(
        flagged.iter().filter(|(l, _)| *l == 62).count() == 2
            && flagged.iter().filter(|(l, _)| *l == 78).count() == 3
            && flagged.iter().filter(|(l, _)| *l == 87).count() == 2
            && flagged.iter().filter(|(l, _)| *l == 96).count() == 1
            && flagged.iter().filter(|(l, _)| *l == 109).count() == 3
            && flagged
                .iter()
                .any(|(_, m)| m.contains("recorded \"Aspirin\" at `name`"))
            && flagged
                .iter()
                .any(|(_, m)| m.contains("recorded -5.12 at `t_statistic`")),
        || format!("flagged: {flagged:#?}"),
    )?;
    let copy = temp_copy("seeds/seed003_examples.txt", "verify");
    let o = run(&["verify", "--fix"], &[&copy]);
    ensure(o.status.code() == Some(1), || format!("--fix: {o:?}"))?;
    let fixed = copy.with_file_name("seed003_examples.fixed.txt");
    let o = run(&["verify"], &[&fixed]);
    ensure(o.status.code() == Some(0), || {
        format!("the fixed copy: {}", stdout(&o))
    })
}

fn verify_conversations() -> Outcome {
    let good = data("good/conversation.jsonl");
    let o = run(&["verify"], &[&good]);
    ensure(o.status.code() == Some(0), || format!("good: {o:?}"))?;
    let wrong = temp_copy("good/conversation.jsonl", "verify-conv");
    let text = std::fs::read_to_string(&wrong)
        .expect("read")
        .replace("38.97", "38.79");
    std::fs::write(&wrong, text).expect("write");
    let o = run(&["verify", "--fix"], &[&wrong]);
    ensure(
        o.status.code() == Some(1) && stdout(&o).contains("recorded \"38.79\""),
        || format!("wrong: {o:?}"),
    )?;
    let fixed = wrong.with_file_name("conversation.fixed.jsonl");
    let o = run(&["verify"], &[&fixed]);
    ensure(o.status.code() == Some(0), || format!("fixed: {o:?}"))?;
    let lint = run(&["lint"], &[&fixed]);
    ensure(lint.status.code() == Some(0), || {
        format!("the fixed copy lints clean: {}", stdout(&lint))
    })
}

/// The examples of seed 001's guide, linted: the deprecated one breaks four rules, and the guide's own
/// "correct format" example opens its answer with a call (its Best Practices ask for an acknowledgement).
fn lint_seed_001() -> Outcome {
    let o = beaker()
        .current_dir(root())
        .args([
            "lint",
            "--no-python",
            "--tools",
            "tests/data/traces/tools.json",
        ])
        .arg("tests/data/traces/seeds/seed001_examples.txt")
        .output()
        .map_err(|e| e.to_string())?;
    let want =
        std::fs::read_to_string(data("seeds/seed001_examples.lint")).map_err(|e| e.to_string())?;
    ensure(o.status.code() == Some(1) && stdout(&o) == want, || {
        format!("got:\n{}\nwant:\n{want}", stdout(&o))
    })
}

/// A recorded result whose JSON string holds a closing tag: verify reads the whole JSON value, as lint does,
/// so the recorded failure matches the real one instead of being cut at the tag.
fn verify_tags_in_json() -> Outcome {
    let dir = std::env::temp_dir().join(format!("beaker-traces-{}-tags", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let f = dir.join("tags.txt");
    let text = "\"\"\"\nh\n\"\"\"\n\nQ: 1/0?\nA: Let me try.\n\
        <tool_call>{\"tool\": \"calculator\", \"params\": {\"expression\": \"1/0\"}}</tool_call>\n\
        <tool_result>{\"tool\": \"calculator\", \"success\": false, \"error\": \"no </tool_result> here\"}</tool_result>\n\
        It cannot be done.\n";
    std::fs::write(&f, text).map_err(|e| e.to_string())?;
    let o = run(&["verify", "--format", "json"], &[&f]);
    let lines = json_lines(&o);
    let summary = &lines.last().ok_or("no output")?["summary"];
    ensure(
        o.status.code() == Some(0) && summary["checked"] == 1 && summary["matched"] == 1,
        || format!("{o:?}"),
    )?;
    let o = run(&["lint"], &[&f]);
    ensure(o.status.code() == Some(0), || {
        format!("lint: {}", stdout(&o))
    })
}
