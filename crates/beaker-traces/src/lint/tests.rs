//! The lint rules against the fixtures in `tests/data/traces/`: every good file is clean, every bad file
//! (`bad/FAMILY/RULE.EXT`) breaks exactly the rule its path names, and every rule has a bad file.

use super::{Linter, RULES};
use crate::Registry;
use beaker_catalog::Catalog;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/traces")
}

fn linter() -> Linter {
    let loaded = Catalog::builtin()
        .without("python")
        .load()
        .expect("catalog");
    let specs: Vec<_> = loaded.tools.iter().map(|t| t.spec().clone()).collect();
    let mut registry = Registry::from_specs(&specs);
    registry
        .add_file(&data().join("tools.json"))
        .expect("registry");
    Linter::new(registry)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).expect("fixtures").flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn good_traces_are_clean() {
    let l = linter();
    let good = files(&data().join("good"));
    assert!(good.len() >= 3);
    for f in good {
        let r = l.lint_path(&f);
        assert!(
            r.diagnostics.is_empty(),
            "{}: {:#?}",
            f.display(),
            r.diagnostics
        );
        assert!(r.lines > 0);
    }
}

#[test]
fn each_bad_trace_breaks_the_rule_it_names() {
    let l = linter();
    let mut covered = BTreeSet::new();
    for f in files(&data().join("bad")) {
        let family = f
            .parent()
            .and_then(Path::file_name)
            .and_then(|s| s.to_str())
            .expect("family");
        let stem = f.file_stem().and_then(|s| s.to_str()).expect("stem");
        let rule = format!("{family}/{stem}");
        let r = l.lint_path(&f);
        let got: BTreeSet<&str> = r.diagnostics.iter().map(|d| d.rule).collect();
        assert_eq!(
            got,
            BTreeSet::from([rule.as_str()]),
            "{}: {:#?}",
            f.display(),
            r.diagnostics
        );
        covered.insert(rule);
    }
    // Reading errors and 64 MiB records are tested below, without fixtures.
    let untested: Vec<&str> = RULES
        .iter()
        .map(|(r, _)| *r)
        .filter(|r| !covered.contains(*r) && !["trace/read", "trace/too-long"].contains(r))
        .collect();
    assert!(
        untested.is_empty(),
        "rules without a bad fixture: {untested:?}"
    );
}

#[test]
fn positions_and_messages_point_at_the_problem() {
    let l = linter();
    let r = l.lint_path(&data().join("bad/qa/role.txt"));
    let d = &r.diagnostics[0];
    assert_eq!((d.line, d.col), (10, 1));
    assert!(
        d.message.contains("`User:`") && d.message.contains("`Q:`"),
        "{}",
        d.message
    );
    let r = l.lint_path(&data().join("bad/tool/params.txt"));
    assert!(
        r.diagnostics[0].message.contains("expresion"),
        "{:?}",
        r.diagnostics
    );
    assert_eq!(
        r.diagnostics[0].to_string(),
        format!(
            "{}:12:1: tool/params: {}",
            data().join("bad/tool/params.txt").display(),
            r.diagnostics[0].message
        )
    );
}

#[test]
fn rules_can_be_switched_off_by_name_or_family() {
    let mut l = linter();
    l.disable("qa/role").expect("rule");
    assert!(l
        .lint_path(&data().join("bad/qa/role.txt"))
        .diagnostics
        .is_empty());
    l.disable("svend").expect("family");
    assert!(l
        .lint_path(&data().join("bad/svend/order.txt"))
        .diagnostics
        .is_empty());
    assert!(l.disable("qa/nope").is_err());
}

#[test]
fn unreadable_and_oversized_inputs_are_reported() {
    let l = linter();
    let r = l.lint_path(Path::new("/nonexistent/trace.txt"));
    assert_eq!(r.diagnostics[0].rule, "trace/read");
    // One 64 MiB line without a break: reported, skipped, memory bounded by the cap.
    let big = vec![b'x'; crate::MAX_RECORD_BYTES + 10];
    let r = l.lint_reader("big.jsonl", Path::new("big.jsonl"), &big[..]);
    assert_eq!(r.diagnostics[0].rule, "trace/too-long");
    let mut qa = b"\"\"\"h\"\"\"\nQ: q\nA: a ".to_vec();
    qa.extend(std::iter::repeat_n(b'y', crate::MAX_RECORD_BYTES + 10));
    let r = l.lint_reader("big.txt", Path::new("big.txt"), &qa[..]);
    assert!(
        r.diagnostics.iter().any(|d| d.rule == "trace/too-long"),
        "{:?}",
        r.diagnostics
    );
}

#[test]
fn hostile_lines_are_diagnostics_not_crashes() {
    let l = linter();
    let deep = format!("{}{}\n", "[".repeat(5000), "]".repeat(5000));
    for line in [
        deep.as_str(),
        "{\"conversation_id\": NaN}\n",
        "\u{0}\n",
        "[1,2]\n",
        "{\"messages\": {}}\n",
    ] {
        let r = l.lint_reader("x.jsonl", Path::new("x.jsonl"), line.as_bytes());
        assert!(!r.diagnostics.is_empty(), "{line:.40}");
    }
    let text =
        "Q: <tool_call><tool_call></tool_result><|tool_call|><|/tool_call|><|tool_result|>\nA:";
    let r = l.lint_reader("x.txt", Path::new("x.txt"), text.as_bytes());
    assert!(!r.diagnostics.is_empty());
}
