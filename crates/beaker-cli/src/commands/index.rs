//! `beaker index build` and `beaker index info`: web_search's indexes on disk.

use anyhow::Context;
use beaker_catalog::search::{BuildOptions, CorpusReader, Progress, SearchIndex};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `beaker index` and its subcommands.
#[derive(clap::Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(clap::Subcommand)]
enum IndexCommand {
    /// Build a BM25 index of a corpus: JSON Lines (plain or gzip) of `{"id", "contents"}` (Search-R1's form,
    /// `contents` = the title's line, then the text) or `{"id", "title", "text", "url"}`. Streams the corpus
    /// (memory is bounded by --memory, whatever its size) and prints its progress on stderr.
    Build {
        /// The corpus file.
        corpus: PathBuf,
        /// The folder to write the index into (created; must not hold an index).
        #[arg(long)]
        out: PathBuf,
        /// Indexing threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Memory the indexing threads may hold before writing a segment (`512MiB`, `2GiB`).
        #[arg(long, default_value = "256MiB", value_parser = crate::config::parse_bytes)]
        memory: u64,
    },
    /// Describe an index: passages, tokens, average length, size on disk, where it came from.
    Info {
        /// The index's folder.
        dir: PathBuf,
    },
}

/// Runs `beaker index ...`.
pub fn run(args: IndexArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        IndexCommand::Build {
            corpus,
            out,
            threads,
            memory,
        } => {
            anyhow::ensure!(threads >= 1, "--threads must be at least 1");
            let reader = CorpusReader::open(&corpus)?;
            let options = BuildOptions {
                threads,
                memory_bytes: usize::try_from(memory).unwrap_or(usize::MAX),
            };
            let started = Instant::now();
            let tty = std::io::stderr().is_terminal();
            let mut report = |p: &Progress| {
                let line = progress_line(p, started.elapsed().as_secs_f64());
                let mut err = std::io::stderr().lock();
                // On a terminal one line is rewritten; in a log each report is a line.
                let _ = if tty {
                    write!(err, "\r\x1b[2K{line}")
                } else {
                    writeln!(err, "{line}")
                };
            };
            let source = corpus.display().to_string();
            let index = SearchIndex::build(reader, &source, &out, &options, &mut report)
                .with_context(|| format!("building {}", out.display()))?;
            if tty {
                eprintln!();
            }
            let m = &index.meta;
            eprintln!(
                "indexed {} passages ({} tokens) into {} in {:.1} s",
                m.passages,
                m.tokens,
                out.display(),
                m.build_secs
            );
            Ok(ExitCode::SUCCESS)
        }
        IndexCommand::Info { dir } => {
            let index = SearchIndex::open(&dir)?;
            let m = &index.meta;
            let bytes = folder_bytes(&dir);
            let info = serde_json::json!({
                "dir": dir.display().to_string(),
                "passages": m.passages,
                "tokens": m.tokens,
                "average_length": if m.passages == 0 { 0.0 } else { m.tokens as f64 / m.passages as f64 },
                "with_url": m.with_url,
                "bytes": bytes,
                "source": m.source,
                "format": m.format,
                "analyzer": m.analyzer,
                "build_secs": m.build_secs,
            });
            println!("{}", serde_json::to_string_pretty(&info)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn progress_line(p: &Progress, secs: f64) -> String {
    let rate = p.passages as f64 / secs.max(1e-3);
    let share = match p.total_bytes {
        Some(t) if t > 0 => format!(" {:5.1}%", 100.0 * p.bytes_read as f64 / t as f64),
        _ => String::new(),
    };
    let what = if p.merging {
        "merging segments"
    } else {
        "indexing"
    };
    format!(
        "{what}:{share} {} passages, {rate:.0}/s, {secs:.0} s",
        p.passages
    )
}

fn folder_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
