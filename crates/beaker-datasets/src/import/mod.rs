//! Importers: files a person exports from their devices and labs, read into a dataset.
//!
//! Samples are staged by UTC month and merged into the dataset's months (without duplicates) whenever
//! [`STAGE_ROWS`] are staged, so an export of gigabytes imports in bounded memory. Reports replace the fields
//! of a report of the same type and date.

pub mod apple;
pub mod csv;
pub mod reports;

use crate::query::{self, Catalog};
use crate::schema::{self, ReportField, Sample};
use crate::{DataError, Dataset, Datasets, Result};
use chrono_tz::Tz;
use std::collections::BTreeMap;
use std::path::Path;

/// Samples staged before they are merged into the dataset.
pub const STAGE_ROWS: usize = 250_000;

/// What a file holds, by its name and first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Apple Health's `export.xml`.
    AppleHealth,
    /// A CSV: a CGM export (Dexcom Clarity, FreeStyle Libre) or generic `timestamp,metric,value,unit`.
    Csv,
    /// Reports in JSON (DEXA scans, bloodwork panels).
    Reports,
}

impl Format {
    /// The format of `path`, from its extension (`.xml`, `.csv`, `.json`).
    pub fn of(path: &Path) -> Result<Format> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "xml" => Ok(Format::AppleHealth),
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Reports),
            _ => Err(DataError::Import(format!(
                "{}: unknown kind of file; import Apple Health's export.xml (unzip export.zip first), a .csv (Dexcom Clarity, FreeStyle Libre, or timestamp,metric,value,unit) or .json reports",
                path.display()
            ))),
        }
    }
}

/// How an import went.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Samples read, by metric.
    pub samples: BTreeMap<String, u64>,
    /// Report fields read.
    pub report_fields: u64,
    /// Records skipped, by reason (a type Beaker does not import, a reading of `Low`).
    pub skipped: BTreeMap<String, u64>,
    /// Months written.
    pub months: Vec<String>,
}

/// Progress while reading a file: bytes read of its size.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// An import into one dataset.
pub struct Importer<'a> {
    datasets: &'a Datasets,
    dataset: Dataset,
    staged: BTreeMap<String, Vec<Sample>>,
    staged_rows: usize,
    reports: Vec<ReportField>,
    summary: Summary,
}

impl<'a> Importer<'a> {
    /// An import into `dataset` of `datasets`.
    pub fn new(datasets: &'a Datasets, dataset: Dataset) -> Importer<'a> {
        Importer {
            datasets,
            dataset,
            staged: BTreeMap::new(),
            staged_rows: 0,
            reports: Vec::new(),
            summary: Summary::default(),
        }
    }

    /// The dataset's time zone (local times in CSV exports are read in it).
    pub fn tz(&self) -> Tz {
        self.dataset.tz()
    }

    /// Reads `path` (of the format its name says), reporting bytes read to `progress`.
    pub fn file(&mut self, path: &Path, progress: Progress<'_>) -> Result<()> {
        let open = || {
            std::fs::File::open(path)
                .map_err(|e| DataError::io(format!("cannot open {}", path.display()), e))
        };
        match Format::of(path)? {
            Format::AppleHealth => {
                apple::read(self, std::io::BufReader::new(open()?), path, progress)
            }
            Format::Csv => csv::read(self, open()?, path, progress),
            Format::Reports => reports::read(self, open()?, path),
        }
    }

    /// Adds one sample.
    pub(crate) fn sample(&mut self, s: Sample) -> Result<()> {
        *self.summary.samples.entry(s.metric.clone()).or_default() += 1;
        self.staged
            .entry(schema::month_of(s.start))
            .or_default()
            .push(s);
        self.staged_rows += 1;
        if self.staged_rows >= STAGE_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Counts a record not imported.
    pub(crate) fn skip(&mut self, why: impl Into<String>) {
        *self.summary.skipped.entry(why.into()).or_default() += 1;
    }

    /// Adds one report field.
    pub(crate) fn report(&mut self, r: ReportField) {
        self.summary.report_fields += 1;
        self.reports.push(r);
    }

    /// Merges the staged samples into the dataset's months.
    fn flush(&mut self) -> Result<()> {
        let staged = std::mem::take(&mut self.staged);
        self.staged_rows = 0;
        let source = self.dataset.source().clone();
        for (month, mut rows) in staged {
            self.datasets.block_on(async {
                if let Some(old) = source.read_month(&month).await? {
                    rows.extend(schema::samples_rows(&old)?);
                }
                schema::sort_dedup(&mut rows);
                source
                    .write_month(&month, &[schema::samples_batch(&rows)?])
                    .await
            })?;
            if !self.summary.months.contains(&month) {
                self.summary.months.push(month);
            }
        }
        Ok(())
    }

    /// Writes what is staged, the reports, and the dataset's catalog; returns what was imported.
    pub fn finish(mut self) -> Result<Summary> {
        self.flush()?;
        if !self.reports.is_empty() {
            let mut all = read_reports(&self.dataset)?;
            // A report's field given again replaces the old value.
            let new_keys: std::collections::HashSet<(String, chrono::NaiveDate, String)> = self
                .reports
                .iter()
                .map(|r| (r.report_type.clone(), r.date, r.field.clone()))
                .collect();
            all.retain(|r| !new_keys.contains(&(r.report_type.clone(), r.date, r.field.clone())));
            all.append(&mut self.reports);
            all.sort_by(|a, b| {
                (&a.report_type, a.date, &a.field).cmp(&(&b.report_type, b.date, &b.field))
            });
            let bytes = crate::source::encode(&[schema::reports_batch(&all)?], None)?;
            crate::source::write_atomically(&self.dataset.dir().join("reports.parquet"), &bytes)?;
        }
        let catalog = self
            .datasets
            .block_on(query::catalog(&query::session(), &self.dataset))?;
        write_catalog(&self.dataset, &catalog)?;
        self.summary.months.sort();
        Ok(self.summary)
    }
}

/// The dataset's reports (none when it has no reports file).
pub fn read_reports(dataset: &Dataset) -> Result<Vec<ReportField>> {
    let path = dataset.dir().join("reports.parquet");
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(DataError::io(format!("cannot read {}", path.display()), e)),
    };
    schema::report_rows(&crate::source::decode(bytes.into(), None)?)
}

/// The dataset's catalog as the last import wrote it (empty before any import).
pub fn read_catalog(dataset: &Dataset) -> Result<Catalog> {
    let path = dataset.dir().join("catalog.json");
    match std::fs::read_to_string(&path) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| DataError::io(format!("cannot read {}", path.display()), e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Catalog::default()),
        Err(e) => Err(DataError::io(format!("cannot read {}", path.display()), e)),
    }
}

fn write_catalog(dataset: &Dataset, catalog: &Catalog) -> Result<()> {
    let path = dataset.dir().join("catalog.json");
    let text = serde_json::to_string_pretty(catalog).unwrap_or_default();
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .map_err(|e| DataError::io(format!("cannot write {}", tmp.display()), e))?;
    std::fs::rename(&tmp, &path)
        .map_err(|e| DataError::io(format!("cannot write {}", path.display()), e))
}
