//! `beaker data`: import files into seed 002's datasets, and list them.

use crate::config;
use beaker_catalog::datasets::import::Importer;
use beaker_catalog::datasets::Settings;
use std::path::PathBuf;
use std::process::ExitCode;

/// `beaker data`'s arguments.
#[derive(clap::Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(clap::Subcommand)]
enum DataCommand {
    /// Read files into a dataset (made if new): Apple Health's export.xml, CSV (Dexcom Clarity, FreeStyle
    /// Libre, or timestamp,metric,value,unit) and JSON reports (DEXA, bloodwork). Samples already there are
    /// not duplicated; a report field given again replaces the old value. Prints what was imported as JSON.
    Import {
        /// The data folder.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// The dataset (letters, digits, `-`, `_`).
        #[arg(long, value_name = "NAME")]
        dataset: String,
        /// The dataset's IANA time zone (`Europe/Berlin`): local times in CSV files are read in it and days are
        /// counted in it (default: the dataset's, else UTC).
        #[arg(long, value_name = "ZONE")]
        time_zone: Option<String>,
        /// A config file whose `[data]` section names the folder and an object store for history.
        #[arg(long)]
        config: Option<PathBuf>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// The files to import.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List the datasets of a data folder.
    List {
        /// The data folder.
        #[arg(long, value_name = "DIR")]
        data: Option<PathBuf>,
        /// A config file whose `[data]` section names the folder.
        #[arg(long)]
        config: Option<PathBuf>,
    },
}

/// Runs `beaker data`.
pub fn run(args: DataArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        DataCommand::List { data, config } => {
            let datasets = config::open_data(data, config.as_deref())?;
            for name in datasets.names() {
                println!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }
        DataCommand::Import {
            data,
            dataset,
            time_zone,
            config,
            quiet,
            files,
        } => {
            let datasets = config::open_data(data, config.as_deref())?;
            let settings = time_zone.map(|time_zone| Settings { time_zone });
            let ds = datasets.create(&dataset, settings)?;
            let mut importer = Importer::new(&datasets, ds);
            for path in &files {
                let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                let bar = if quiet {
                    indicatif::ProgressBar::hidden()
                } else {
                    indicatif::ProgressBar::new(size)
                };
                bar.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                bar.set_message(path.display().to_string());
                let mut progress = |bytes: u64| bar.set_position(bytes);
                let outcome = importer.file(path, &mut progress);
                bar.finish_and_clear();
                outcome?;
            }
            let summary = importer.finish()?;
            println!("{}", serde_json::to_string_pretty(&summary)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}
