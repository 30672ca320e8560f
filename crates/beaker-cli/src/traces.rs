//! `beaker lint`, `beaker migrate` and `beaker verify`: the command-line side of `beaker-traces`.

use crate::config::{EngineArgs, Settings};
use anyhow::Context;
use beaker_traces::compare::Tolerance;
use beaker_traces::lint::{FileReport, Linter, RULES};
use beaker_traces::verify::Verifier;
use beaker_traces::{Diagnostic, Kind, Registry};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// How `lint` and `verify` print what they find.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// `file:line:col: rule: message` lines, and a summary on stderr.
    Text,
    /// One JSON object per problem, then `{"summary": …}`.
    Json,
}

/// Flags shared by the trace commands.
#[derive(clap::Args, Clone)]
pub struct TraceArgs {
    /// The trace files.
    pub files: Vec<PathBuf>,
    /// A registry of tools Beaker does not run (JSON: names, OpenAI tools, MCP tools or Beaker specs);
    /// calls to them are checked against their schemas. Repeatable.
    #[arg(long)]
    pub tools: Vec<PathBuf>,
    /// Read every file as this kind (qa, svend, conversation) instead of detecting it.
    #[arg(long)]
    pub kind: Option<String>,
    #[command(flatten)]
    pub engine: EngineArgs,
}

impl TraceArgs {
    /// The files, or a usage error when there are none.
    fn files(&self) -> anyhow::Result<&[PathBuf]> {
        anyhow::ensure!(!self.files.is_empty(), "no trace files given");
        Ok(&self.files)
    }

    fn kind(&self) -> anyhow::Result<Option<Kind>> {
        self.kind
            .as_deref()
            .map(|k| {
                Kind::from_name(k).ok_or_else(|| {
                    anyhow::anyhow!("--kind {k}: expected qa, svend or conversation")
                })
            })
            .transpose()
    }

    /// The catalog's tools (their specs) plus every `--tools` registry.
    fn registry(&self) -> anyhow::Result<(Registry, beaker_engine::Engine)> {
        let engine = Settings::load_engine(&self.engine)?.engine()?;
        let mut registry = Registry::from_specs(engine.specs());
        for f in &self.tools {
            registry.add_file(f)?;
        }
        Ok((registry, engine))
    }
}

/// `beaker lint`.
pub fn lint(
    args: &TraceArgs,
    disable: &[String],
    format: Format,
    list_rules: bool,
) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if list_rules {
        for (name, what) in RULES {
            writeln!(out, "{name:<24} {what}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (registry, _engine) = args.registry()?;
    let mut linter = Linter::new(registry);
    for rule in disable {
        linter.disable(rule)?;
    }
    if let Some(k) = args.kind()? {
        linter.force_kind(k);
    }
    let started = Instant::now();
    let reports = in_parallel(args.files()?, |p| linter.lint_path(p));
    let lines: usize = reports.iter().map(|r| r.lines).sum();
    let diagnostics: Vec<&Diagnostic> = reports.iter().flat_map(|r| &r.diagnostics).collect();
    let secs = started.elapsed().as_secs_f64();
    print(&mut out, format, &diagnostics)?;
    let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &diagnostics {
        *by_rule.entry(d.rule).or_default() += 1;
    }
    let rate = lines as f64 / secs.max(1e-9);
    match format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::json!({"summary": {
                "files": args.files.len(), "lines": lines, "problems": diagnostics.len(),
                "by_rule": by_rule, "seconds": secs, "lines_per_second": rate.round(),
            }})
        )?,
        Format::Text => {
            let rules: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r} {n}")).collect();
            eprintln!(
                "{} problem{} in {} file{} ({lines} lines in {secs:.2} s, {:.0} lines/s){}{}",
                diagnostics.len(),
                if diagnostics.len() == 1 { "" } else { "s" },
                args.files.len(),
                if args.files.len() == 1 { "" } else { "s" },
                rate,
                if rules.is_empty() { "" } else { ": " },
                rules.join(", ")
            );
        }
    }
    Ok(exit(diagnostics.is_empty()))
}

/// `beaker migrate`.
pub fn migrate(args: &TraceArgs, check: bool, stdout: bool) -> anyhow::Result<ExitCode> {
    let (registry, _engine) = args.registry()?;
    let mut out = std::io::stdout().lock();
    let mut clean = true;
    for path in args.files()? {
        let shown = path.display().to_string();
        let reader = open(path)?;
        let (migration, bytes) = {
            let mut buf = Vec::new();
            let m = beaker_traces::migrate::migrate(&shown, reader, &mut buf, &registry)
                .with_context(|| format!("migrating {shown}"))?;
            (m, buf)
        };
        for d in &migration.unresolved {
            eprintln!("{d}");
            clean = false;
        }
        if stdout {
            out.write_all(&bytes)?;
        } else if check {
            for d in &migration.changes {
                writeln!(out, "{d}")?;
            }
            clean &= migration.changes.is_empty();
        } else if !migration.changes.is_empty() {
            write_atomically(path, &bytes)?;
            eprintln!("{shown}: {} rewrites", migration.changes.len());
        }
    }
    Ok(exit(clean))
}

/// `beaker verify`.
pub fn verify(
    args: &TraceArgs,
    fix: bool,
    rel_tol: f64,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let (registry, engine) = args.registry()?;
    let verifier = Verifier::new(
        &engine,
        &registry,
        Tolerance {
            rel: rel_tol,
            ..Tolerance::default()
        },
    );
    let forced = args.kind()?;
    let mut out = std::io::stdout().lock();
    let (mut checked, mut matched, mut skipped) = (0, 0, 0);
    let mut all = Vec::new();
    for path in args.files()? {
        let shown = path.display().to_string();
        let kind = match forced {
            Some(k) => k,
            None => {
                let mut head = vec![0; 64 << 10];
                let n = std::io::Read::read(&mut open(path)?, &mut head)?;
                Kind::detect(path, &head[..n])
            }
        };
        let mut fixed = Vec::new();
        let v = verifier
            .verify(
                &shown,
                kind,
                open(path)?,
                fix.then_some(&mut fixed as &mut dyn Write),
            )
            .with_context(|| format!("verifying {shown}"))?;
        if fix && !v.diagnostics.is_empty() {
            let target = fixed_path(path);
            write_atomically(&target, &fixed)?;
            eprintln!("{shown}: corrected copy written to {}", target.display());
        }
        checked += v.checked;
        matched += v.matched;
        skipped += v.skipped;
        all.extend(v.diagnostics);
    }
    let refs: Vec<&Diagnostic> = all.iter().collect();
    print(&mut out, format, &refs)?;
    match format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::json!({"summary": {"checked": checked, "matched": matched,
                "wrong": checked - matched, "problems": all.len(), "skipped": skipped}})
        )?,
        Format::Text => eprintln!(
            "{checked} call{} re-run: {matched} recorded result{} right, {} wrong; {skipped} call{} skipped (tools this engine does not run)",
            if checked == 1 { "" } else { "s" },
            if matched == 1 { " is" } else { "s are" },
            checked - matched,
            if skipped == 1 { "" } else { "s" },
        ),
    }
    Ok(exit(all.is_empty()))
}

fn print(out: &mut impl Write, format: Format, diagnostics: &[&Diagnostic]) -> anyhow::Result<()> {
    for d in diagnostics {
        match format {
            Format::Text => writeln!(out, "{d}")?,
            Format::Json => writeln!(out, "{}", serde_json::to_string(d)?)?,
        }
    }
    Ok(())
}

fn exit(clean: bool) -> ExitCode {
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn open(path: &Path) -> anyhow::Result<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    Ok(std::io::BufReader::with_capacity(1 << 16, f))
}

/// `data.txt` → `data.fixed.txt` (beside it).
fn fixed_path(path: &Path) -> PathBuf {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("trace");
    let name = match path.extension().and_then(|e| e.to_str()) {
        Some(ext) => format!("{stem}.fixed.{ext}"),
        None => format!("{stem}.fixed"),
    };
    path.with_file_name(name)
}

/// Replaces `path` with `bytes` through a temporary file beside it, so a crash leaves the old file whole.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("beaker-tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

/// Runs `f` on every file with one thread per core, results in the files' order.
fn in_parallel(files: &[PathBuf], f: impl Fn(&Path) -> FileReport + Sync) -> Vec<FileReport> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<FileReport>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let report = f(path);
                if let Ok(mut slot) = slots[i].lock() {
                    *slot = Some(report);
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().ok().flatten().unwrap_or_default())
        .collect()
}
