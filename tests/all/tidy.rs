//! Tidy checks on the repository itself: the crate graph points one way, docs match the code and name
//! everything there is, and nothing points outside the repository.

use crate::support::{ensure, root, Outcome};
use libtest_mimic::Trial;
use std::collections::BTreeMap;

/// The layers of the crate graph, bottom up. A crate may depend only on crates of lower layers, and only the
/// catalog may depend on tool crates. A crate not named here is a tool crate (layer 4, beside the engine,
/// which knows no tool): a new tool's crate needs no entry.
const LAYERS: &[(&str, u8)] = &[
    ("beaker-core", 0),
    ("beaker-expr", 1),
    ("beaker-dialects", 1),
    ("beaker-templates", 1),
    ("beaker-sandbox", 1),
    ("beaker-worker", 1),
    ("beaker-jail", 1),
    ("beaker-units", 2),
    ("beaker-datasets", 3),
    ("beaker-engine", 4),
    ("beaker-catalog", 5),
    ("beaker-protocol", 6),
    ("beaker-traces", 7),
    ("beaker-http", 7),
    ("beaker-mcp", 7),
    ("beaker-pymodule", 7),
    ("beaker-bench", 8),
    ("beaker-cli", 9),
    ("beaker", 10),
];

/// Where a crate sits in [`LAYERS`]: tool crates are layer 4, beside the engine.
const TOOL_LAYER: u8 = 4;

/// Whether `name` is a tool crate (one [`LAYERS`] does not name).
fn is_tool_crate(name: &str) -> bool {
    !LAYERS.iter().any(|(n, _)| *n == name)
}

fn layer(name: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(TOOL_LAYER, |(_, l)| *l)
}

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

/// The code map and the protocol docs name every HTTP route and every request kind there is, no doc promises
/// what is already done ("next:", "a later issue", "not served yet"), and every crate says what it is for.
fn docs_keep_up_with_the_code() -> Outcome {
    let read = |p: &str| std::fs::read_to_string(root().join(p)).map_err(|e| format!("{p}: {e}"));
    let (arch, http, protocol) = (
        read("docs/ARCHITECTURE.md")?,
        read("docs/HTTP.md")?,
        read("docs/PROTOCOL.md")?,
    );
    let router = read("crates/beaker-http/src/lib.rs")?;
    let routes: Vec<&str> = router
        .split(".route(\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    ensure(routes.len() >= 10, || {
        format!("routes not found: {routes:?}")
    })?;
    let http_section = arch
        .split("### `crates/beaker-http`")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .unwrap_or("");
    for route in &routes {
        ensure(http.contains(route), || {
            format!("docs/HTTP.md does not name the route {route}")
        })?;
        ensure(http_section.contains(route), || {
            format!("docs/ARCHITECTURE.md's beaker-http section does not name the route {route}")
        })?;
    }
    let protocol_section = arch
        .split("### `crates/beaker-protocol`")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .unwrap_or("");
    for key in beaker_protocol::REQUEST_KEYS
        .iter()
        .filter(|k| **k != "tool")
    {
        ensure(protocol.contains(&format!("\"{key}\"")), || {
            format!("docs/PROTOCOL.md has no `{{\"{key}\": ...}}` request")
        })?;
        ensure(protocol_section.contains(&format!("`{key}`")), || {
            format!(
                "docs/ARCHITECTURE.md's beaker-protocol section does not name the `{key}` request"
            )
        })?;
    }
    let mut docs = vec![("README.md".to_string(), read("README.md")?)];
    for e in std::fs::read_dir(root().join("docs"))
        .map_err(|e| e.to_string())?
        .flatten()
    {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "md") {
            let text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
            docs.push((p.display().to_string(), text));
        }
    }
    for (path, text) in &docs {
        for stale in [
            "(next:",
            "a later issue",
            "not served yet",
            "Not served yet",
        ] {
            ensure(!text.contains(stale), || format!("{path} says {stale:?}"))?;
        }
    }
    for (name, t) in manifests() {
        let d = t["package"]
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or("");
        ensure(d.len() > 20, || {
            format!("{name}'s Cargo.toml has no description")
        })?;
    }
    Ok(())
}

/// The engine is a dispatcher: it builds without any tool crate, the catalog or the sandbox, directly or
/// through another crate (the catalog hands it the tools and the sandbox's worker start-up).
fn the_engine_knows_no_tool() -> Outcome {
    let manifests = manifests();
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec!["beaker-engine".to_string()];
    while let Some(name) = todo.pop() {
        let deps = manifests
            .get(&name)
            .and_then(|t| t.get("dependencies"))
            .and_then(|d| d.as_table());
        for dep in deps.into_iter().flat_map(|d| d.keys()) {
            if dep.starts_with("beaker") && seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    for dep in &seen {
        ensure(
            !is_tool_crate(dep) && dep != "beaker-catalog" && dep != "beaker-sandbox",
            || format!("beaker-engine depends on {dep} (all it reaches: {seen:?})"),
        )?;
    }
    Ok(())
}

fn dependency_direction() -> Outcome {
    for (name, t) in manifests() {
        let (mine, catalog) = (layer(&name), name == "beaker-catalog");
        // Normal dependencies only: dev-dependencies (tests, benches) may reach anywhere.
        if let Some(deps) = t.get("dependencies").and_then(|d| d.as_table()) {
            for dep in deps.keys().filter(|d| d.starts_with("beaker")) {
                let theirs = layer(dep);
                ensure(theirs < mine, || {
                    format!("{name} (layer {mine}) must not depend on {dep} (layer {theirs})")
                })?;
                ensure(!is_tool_crate(dep) || catalog, || {
                    format!("{name} must not depend on the tool crate {dep}: tools enter through the catalog")
                })?;
            }
        }
    }
    Ok(())
}

/// Every crate has its section in docs/ARCHITECTURE.md, every catalog family is named there, every tool has
/// its section in docs/TOOLS.md, and every command of the binary (each a front end or a job) is documented.
fn docs_name_every_crate_tool_and_front_end() -> Outcome {
    let arch =
        std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).map_err(|e| e.to_string())?;
    let tools_md =
        std::fs::read_to_string(root().join("docs/TOOLS.md")).map_err(|e| e.to_string())?;
    let protocol =
        std::fs::read_to_string(root().join("docs/PROTOCOL.md")).map_err(|e| e.to_string())?;
    for name in manifests().keys().filter(|n| n.as_str() != "beaker") {
        ensure(arch.contains(&format!("### `crates/{name}`")), || {
            format!("docs/ARCHITECTURE.md has no `### `crates/{name}`` section")
        })?;
    }
    for family in beaker::Catalog::builtin().families() {
        ensure(arch.contains(&format!("`{}`", family.name)), || {
            format!(
                "docs/ARCHITECTURE.md does not name the catalog family `{}`",
                family.name
            )
        })?;
    }
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    for spec in engine.specs() {
        ensure(tools_md.contains(&format!("## `{}`", spec.name)), || {
            format!("docs/TOOLS.md has no section for `{}`", spec.name)
        })?;
    }
    let help = crate::support::beaker()
        .arg("--help")
        .output()
        .map_err(|e| e.to_string())?;
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    ensure(commands.len() >= 5, || {
        format!("no commands in `beaker --help`: {help}")
    })?;
    for c in commands {
        let named = format!("beaker {c}");
        ensure(arch.contains(&named) || protocol.contains(&named), || {
            format!("neither docs/ARCHITECTURE.md nor docs/PROTOCOL.md documents `{named}`")
        })?;
    }
    Ok(())
}

/// Nothing in the repository points outside it (a clone has only itself).
fn no_references_outside_the_repository() -> Outcome {
    let mut stack = vec![root()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .flatten()
        {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "corpus" {
                    stack.push(path);
                }
                continue;
            }
            if !matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("rs" | "md" | "toml" | "py" | "sh")
            ) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for needle in ["../shared", "NOTES.md", "DESIGN.md", "DESIGN §"] {
                if path.ends_with("tests/all/tidy.rs") {
                    break;
                }
                ensure(!text.contains(needle), || {
                    format!(
                        "{} refers to `{needle}`, which a clone of the repository does not have",
                        path.display()
                    )
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
    let engine = beaker::engine().map_err(|e| e.to_string())?;
    let want = beaker::listing::markdown(engine.specs());
    let path = root().join("docs/TOOLS.md");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&path, &want).map_err(|e| e.to_string())?;
            return Ok(());
        }
        return Err("docs/TOOLS.md is out of date: run `UPDATE_DOCS=1 cargo test --release --test all tidy` (or `beaker tools --format markdown > docs/TOOLS.md`)".into());
    }
    Ok(())
}

/// `docs/gallery/*.png` are the plotter's answers to `docs/gallery/calls.jsonl`, byte for byte (plots are
/// deterministic); `UPDATE_DOCS=1` rewrites them.
fn gallery_matches_the_plotter() -> Outcome {
    use base64::Engine as _;
    let engine = beaker::engine().map_err(|e| e.to_string())?;
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
                "{} is out of date: run `UPDATE_DOCS=1 cargo test --release --test all tidy`",
                path.display()
            )
        })?;
    }
    Ok(())
}

fn readme_test_command_is_what_ci_runs() -> Outcome {
    let readme = std::fs::read_to_string(root().join("README.md")).map_err(|e| e.to_string())?;
    let ci = std::fs::read_to_string(root().join(".ci/run")).map_err(|e| e.to_string())?;
    let cmd = "cargo test --workspace --locked --release";
    ensure(readme.contains(cmd), || {
        format!("README.md must give the test command `{cmd}`")
    })?;
    ensure(ci.contains(cmd), || format!(".ci/run must run `{cmd}`"))
}

/// Each package's enabled features, as `cargo tree` resolves them for `args` (`name version` → features).
fn resolved_features(args: &[&str]) -> Result<BTreeMap<String, String>, libtest_mimic::Failed> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(&cargo)
        .args(["tree", "--locked", "--prefix", "none", "-f", "{p} {f}"])
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("{cargo} tree: {e}"))?;
    ensure(out.status.success(), || {
        format!(
            "cargo tree {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let mut features = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let line = line.trim_end_matches(" (*)");
        let mut words = line.splitn(3, ' ');
        if let (Some(name), Some(version)) = (words.next(), words.next()) {
            let f = words.next().unwrap_or("").to_string();
            features.insert(format!("{name} {version}"), f);
        }
    }
    Ok(features)
}

/// The README's test command reuses what its install compiled (docs/ARCHITECTURE.md, "Build profiles"): every
/// package the installed binary builds has the same features in the workspace's test build, so cargo finds
/// each one already compiled. A dev-dependency that turns on a feature of a shared crate would recompile that
/// crate and everything above it (wasmtime, DataFusion, every tool) a second time.
fn the_install_build_serves_the_tests() -> Outcome {
    // Test targets build in cargo's `bench` profile, which inherits `release`: a setting of its own would
    // compile them apart from what the install built.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).map_err(|e| e.to_string())?;
    let table: toml::Table = manifest.parse().map_err(|e| format!("Cargo.toml: {e}"))?;
    ensure(
        table.get("profile").and_then(|p| p.get("bench")).is_none(),
        || {
            "Cargo.toml sets [profile.bench]: the release tests would no longer share the install's build".into()
        },
    )?;
    // Without dev edges cargo resolves as a build of the binary alone does (dev-dependencies activate nothing).
    let install = resolved_features(&["-p", "beaker", "-e", "normal,build"])?;
    let tests = resolved_features(&["--workspace", "-e", "normal,build,dev"])?;
    ensure(install.len() > 100, || {
        format!(
            "cargo tree listed only {} packages for the binary",
            install.len()
        )
    })?;
    let differ: Vec<String> = install
        .iter()
        .filter_map(|(pkg, f)| match tests.get(pkg) {
            Some(t) if t == f => None,
            Some(t) => Some(format!("{pkg}: install [{f}], tests [{t}]")),
            None => Some(format!("{pkg}: not in the test build")),
        })
        .collect();
    ensure(differ.is_empty(), || {
        format!(
            "the test build would recompile what `cargo install --path .` built (features differ):\n{}",
            differ.join("\n")
        )
    })
}

pub fn trials() -> Vec<Trial> {
    vec![
        Trial::test("tidy::dependency_direction", dependency_direction),
        Trial::test(
            "tidy::the_install_build_serves_the_tests",
            the_install_build_serves_the_tests,
        ),
        Trial::test("tidy::the_engine_knows_no_tool", the_engine_knows_no_tool),
        Trial::test(
            "tidy::docs_keep_up_with_the_code",
            docs_keep_up_with_the_code,
        ),
        Trial::test(
            "tidy::docs_name_every_crate_tool_and_front_end",
            docs_name_every_crate_tool_and_front_end,
        ),
        Trial::test(
            "tidy::no_references_outside_the_repository",
            no_references_outside_the_repository,
        ),
        Trial::test(
            "tidy::crates_say_what_they_are_for",
            crates_say_what_they_are_for,
        ),
        Trial::test(
            "tidy::tools_md_matches_the_specs",
            tools_md_matches_the_specs,
        ),
        Trial::test(
            "tidy::traces_md_lists_every_lint_rule",
            traces_md_lists_every_lint_rule,
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

/// docs/TRACES.md's rule table has a row for every lint rule, with the code's description.
fn traces_md_lists_every_lint_rule() -> Outcome {
    let doc = std::fs::read_to_string(root().join("docs/TRACES.md"))
        .map_err(|e| format!("docs/TRACES.md: {e}"))?;
    let missing: Vec<String> = beaker_traces::lint::RULES
        .iter()
        // A `|` inside a table cell must be escaped, code spans included.
        .map(|(rule, what)| format!("| `{rule}` | {} |", what.replace('|', "\\|")))
        .filter(|row| !doc.contains(row.as_str()))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "docs/TRACES.md lacks these rows (regenerate the table from RULES):\n{}",
            missing.join("\n")
        )
        .into())
    }
}
