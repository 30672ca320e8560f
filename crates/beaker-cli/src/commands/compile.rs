//! `beaker compile`: the sandboxed guests compiled (or loaded) into the module cache, and `pubchem`'s lookup built.

use crate::config;
use beaker_core::ToolCall;
use std::process::ExitCode;

/// The arguments of `beaker compile` (the subcommand's help is its variant's doc comment).
#[derive(clap::Args)]
pub(crate) struct CompileArgs {
    #[command(flatten)]
    pub(crate) engine: config::EngineArgs,
}

/// Runs the command.
pub(crate) fn run(args: CompileArgs) -> anyhow::Result<ExitCode> {
    let CompileArgs { engine } = args;
    let settings = config::Settings::load_engine(&engine)?;
    let started = std::time::Instant::now();
    let (engine, load_errors) = settings.engine_and_load_errors()?;
    let guests = engine.sandboxed_tools();
    println!(
        "compiled or loaded {} sandboxed tools in {:.1} s: {}",
        guests.len(),
        started.elapsed().as_secs_f64(),
        guests.join(", ")
    );
    // The interpreter's snapshot is what this command is for: one call says whether it answers (a runtime that is
    // missing or failed to load leaves the tools listed, each answering why, and the server serving the rest).
    let mut python_failed = false;
    if guests.contains(&"execute_python") {
        let probe = engine.call(ToolCall::new(
            "execute_python",
            serde_json::json!({"code": "print(6 * 7)"}),
        ));
        if probe.success {
            println!("execute_python: the CPython snapshot answers");
        } else {
            python_failed = true;
            eprintln!(
                "error: execute_python is unavailable: {}",
                probe.error.as_deref().unwrap_or("no message")
            );
        }
    }
    // pubchem's lookup, built from the installed tables once (the first call would build it otherwise).
    let started = std::time::Instant::now();
    // Not installed (`--no-chemicals`) is a note: the tool answers with the same message.
    match beaker_catalog::pubchem::open(&settings.pubchem.0) {
        Ok(db) => {
            println!(
                "pubchem: {} compounds ready in {:.1} s ({})",
                db.len(),
                started.elapsed().as_secs_f64(),
                settings.pubchem.0.display()
            );
        }
        Err(e) => eprintln!("note: pubchem: {e}"),
    }
    Ok(if load_errors.is_empty() && !python_failed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
