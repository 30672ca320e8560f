//! Tidy checks on the repository itself: the crate graph points one way, docs match the code.

use crate::support::{ensure, root, Outcome};
use libtest_mimic::Trial;
use std::collections::BTreeMap;

/// Each crate and the crates it may depend on (DESIGN.md §1: core <- expr <- tools; engine uses them;
/// front ends use the engine and core only).
const ALLOWED: &[(&str, &[&str])] = &[
    ("beaker-core", &[]),
    ("beaker-expr", &["beaker-core"]),
    ("beaker-statistics", &["beaker-core"]),
    ("beaker-numerical", &["beaker-core", "beaker-expr"]),
    (
        "beaker-tools",
        &[
            "beaker-core",
            "beaker-expr",
            "beaker-statistics",
            "beaker-numerical",
        ],
    ),
    ("beaker-dialects", &["beaker-core"]),
    ("beaker-sandbox", &["beaker-core"]),
    ("beaker-python", &["beaker-core", "beaker-sandbox"]),
    (
        "beaker-engine",
        &[
            "beaker-core",
            "beaker-tools",
            "beaker-dialects",
            "beaker-sandbox",
            "beaker-python",
        ],
    ),
    ("beaker-cli", &["beaker-core", "beaker-engine"]),
    ("beaker", &["beaker-core", "beaker-engine", "beaker-cli"]),
];

fn manifests() -> BTreeMap<String, toml::Table> {
    let mut out = BTreeMap::new();
    let mut paths = vec![root().join("Cargo.toml")];
    if let Ok(dir) = std::fs::read_dir(root().join("crates")) {
        paths.extend(dir.flatten().map(|e| e.path().join("Cargo.toml")));
    }
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let t: toml::Table = text
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let name = t["package"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        out.insert(name, t);
    }
    out
}

fn dependency_direction() -> Outcome {
    for (name, t) in manifests() {
        let allowed = ALLOWED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| *a)
            .ok_or_else(|| format!("crate {name} is not in the tidy test's ALLOWED table"))?;
        // Normal dependencies only: dev-dependencies (tests, benches) may reach anywhere.
        if let Some(deps) = t.get("dependencies").and_then(|d| d.as_table()) {
            for dep in deps.keys().filter(|d| d.starts_with("beaker")) {
                ensure(allowed.contains(&dep.as_str()), || {
                    format!("{name} must not depend on {dep}")
                })?;
            }
        }
    }
    Ok(())
}

fn crates_say_what_they_are_for() -> Outcome {
    for (name, t) in manifests() {
        let d = t["package"]
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or("");
        ensure(!d.is_empty(), || format!("{name} has no description"))?;
        let lib = if name == "beaker" {
            root().join("src/lib.rs")
        } else {
            root().join("crates").join(&name).join("src/lib.rs")
        };
        let text = std::fs::read_to_string(&lib).map_err(|e| format!("{}: {e}", lib.display()))?;
        ensure(text.starts_with("//!"), || {
            format!("{} must open with a //! doc comment", lib.display())
        })?;
    }
    Ok(())
}

fn tools_md_matches_the_specs() -> Outcome {
    let engine = beaker::Engine::new().map_err(|e| e.to_string())?;
    let want = beaker::catalog::markdown(engine.specs());
    let path = root().join("docs/TOOLS.md");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).map_err(|e| e.to_string())?;
            return Ok(());
        }
        return Err("docs/TOOLS.md is out of date: run `UPDATE_DOCS=1 cargo test --test all tidy` (or `beaker tools --format markdown > docs/TOOLS.md`)".into());
    }
    Ok(())
}

/// `docs/gallery/*.png` are the plotter's answers to `docs/gallery/calls.jsonl`, byte for byte (plots are
/// deterministic); `UPDATE_DOCS=1` rewrites them.
fn gallery_matches_the_plotter() -> Outcome {
    use base64::Engine as _;
    let engine = beaker::Engine::new().map_err(|e| e.to_string())?;
    for c in crate::support::jsonl("docs/gallery/calls.jsonl") {
        let name = c["name"].as_str().unwrap_or_default();
        let env = engine.call(beaker::ToolCall::new("plotter", c["params"].clone()));
        let image = env
            .result
            .as_ref()
            .and_then(|r| r["image"].as_str())
            .ok_or(format!("{name}: {env:?}"))?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(image)
            .map_err(|e| e.to_string())?;
        let path = root().join(format!("docs/gallery/{name}.png"));
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &png).map_err(|e| e.to_string())?;
        }
        let have = std::fs::read(&path).unwrap_or_default();
        ensure(have == png, || {
            format!(
                "{} is out of date: run `UPDATE_DOCS=1 cargo test --test all tidy`",
                path.display()
            )
        })?;
    }
    Ok(())
}

fn readme_test_command_is_what_ci_runs() -> Outcome {
    let readme = std::fs::read_to_string(root().join("README.md")).map_err(|e| e.to_string())?;
    let ci = std::fs::read_to_string(root().join(".ci/run")).map_err(|e| e.to_string())?;
    let cmd = "cargo test --workspace --locked";
    ensure(readme.contains(cmd), || {
        format!("README.md must give the test command `{cmd}`")
    })?;
    ensure(ci.contains(cmd), || format!(".ci/run must run `{cmd}`"))
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("tidy::dependency_direction", dependency_direction),
        Trial::test(
            "tidy::crates_say_what_they_are_for",
            crates_say_what_they_are_for,
        ),
        Trial::test(
            "tidy::tools_md_matches_the_specs",
            tools_md_matches_the_specs,
        ),
        Trial::test(
            "tidy::gallery_matches_the_plotter",
            gallery_matches_the_plotter,
        ),
        Trial::test(
            "tidy::readme_test_command_is_what_ci_runs",
            readme_test_command_is_what_ci_runs,
        ),
    ]
}
