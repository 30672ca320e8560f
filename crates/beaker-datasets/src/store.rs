//! The data folder and its datasets.

use crate::source::{DataSource, HybridSource, LocalSource, ObjectConfig, ObjectSource, Store};
use crate::{DataError, Result};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Longest dataset name.
pub const MAX_NAME_BYTES: usize = 64;

/// The data folder: one subfolder per dataset, each holding `dataset.json`, `samples/YYYY-MM.parquet` and
/// `reports.parquet`. Queries run on its own small runtime, so a tool's worker thread blocks on them.
pub struct Datasets {
    root: PathBuf,
    runtime: tokio::runtime::Runtime,
    remote: Option<Remote>,
    /// One engine session for every question (its functions registered once, its Parquet footers cached).
    session: datafusion::prelude::SessionContext,
}

/// Where history lives when an object store is configured.
#[derive(Clone)]
struct Remote {
    store: Arc<Store>,
    local_days: u32,
}

impl std::fmt::Debug for Datasets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Datasets")
            .field("root", &self.root)
            .finish()
    }
}

/// A dataset's settings (`dataset.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct Settings {
    /// The IANA time zone its dates are read and answered in (`Europe/Berlin`); `UTC` by default.
    #[serde(default = "utc")]
    pub time_zone: String,
}

fn utc() -> String {
    "UTC".into()
}

impl Default for Settings {
    fn default() -> Self {
        Settings { time_zone: utc() }
    }
}

impl Settings {
    /// The time zone, read.
    pub fn tz(&self) -> Result<Tz> {
        parse_tz(&self.time_zone)
    }
}

/// An IANA time zone name, read; the error says what one looks like.
pub fn parse_tz(name: &str) -> Result<Tz> {
    name.parse::<Tz>().map_err(|_| {
        DataError::Invalid(format!(
            "unknown time zone `{name}`: give an IANA name such as `Europe/Berlin`, `America/New_York` or `UTC`"
        ))
    })
}

impl Datasets {
    /// The data folder at `root` (made if missing), its datasets read from there only.
    pub fn open(root: impl Into<PathBuf>) -> Result<Datasets> {
        let root = root.into();
        std::fs::create_dir_all(&root).map_err(|e| {
            DataError::io(format!("cannot make the data folder {}", root.display()), e)
        })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("beaker-data")
            .enable_all()
            .build()
            .map_err(|e| DataError::io("cannot start the query runtime", e))?;
        Ok(Datasets {
            root,
            runtime,
            remote: None,
            session: crate::query::session(),
        })
    }

    /// The same folder with history in an object store: months that ended more than `local_days` ago are read
    /// from (and imported into) `config`'s bucket, encrypted; newer ones stay in the folder. An error names the
    /// setting or environment variable that is missing.
    pub fn with_object_store(mut self, config: &ObjectConfig, local_days: u32) -> Result<Datasets> {
        self.remote = Some(Remote {
            store: Arc::new(Store::new(config)?),
            local_days,
        });
        Ok(self)
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The engine session questions run in.
    pub fn session(&self) -> &datafusion::prelude::SessionContext {
        &self.session
    }

    /// Runs `f` to completion on the query runtime (from a thread outside it).
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// The datasets there, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(&self.root)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().join("dataset.json").is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| check_name(n).is_ok())
            .collect();
        out.sort();
        out
    }

    /// The dataset called `name`; an error when the name is not a plain name or no such dataset exists.
    pub fn dataset(&self, name: &str) -> Result<Dataset> {
        check_name(name)?;
        let dir = self.root.join(name);
        let path = dir.join("dataset.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(DataError::NoDataset(format!("no dataset named `{name}`")));
            }
            Err(e) => return Err(DataError::io(format!("cannot read {}", path.display()), e)),
        };
        let settings: Settings = serde_json::from_str(&text)
            .map_err(|e| DataError::io(format!("cannot read {}", path.display()), e))?;
        let tz = settings.tz()?;
        Ok(Dataset {
            name: name.into(),
            source: self.source(name, &dir)?,
            dir,
            settings,
            tz,
        })
    }

    /// The dataset called `name`, made (with `settings`) when it does not exist; `settings` replace the stored
    /// ones when given.
    pub fn create(&self, name: &str, settings: Option<Settings>) -> Result<Dataset> {
        check_name(name)?;
        let dir = self.root.join(name);
        std::fs::create_dir_all(dir.join("samples"))
            .map_err(|e| DataError::io(format!("cannot make {}", dir.display()), e))?;
        let path = dir.join("dataset.json");
        if settings.is_some() || !path.is_file() {
            let settings = settings.unwrap_or_default();
            settings.tz()?;
            let text = serde_json::to_string_pretty(&settings).unwrap_or_default();
            std::fs::write(&path, text + "\n")
                .map_err(|e| DataError::io(format!("cannot write {}", path.display()), e))?;
        }
        self.dataset(name)
    }

    fn source(&self, name: &str, dir: &Path) -> Result<Arc<dyn DataSource>> {
        let local = LocalSource::new(dir.to_path_buf());
        Ok(match &self.remote {
            None => Arc::new(local),
            Some(r) => {
                let remote = ObjectSource::new(r.store.clone(), name);
                Arc::new(HybridSource::new(local, remote, r.local_days))
            }
        })
    }
}

/// A dataset name is 1 to 64 letters, digits, `-` and `_`, starting with a letter or digit: never a path.
pub fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if ok {
        Ok(())
    } else {
        Err(DataError::Invalid(format!(
            "invalid dataset name {name:?}: 1 to {MAX_NAME_BYTES} letters, digits, '-' and '_', starting with a letter or digit"
        )))
    }
}

/// One dataset: its settings and where its files are read from.
#[derive(Clone)]
pub struct Dataset {
    name: String,
    dir: PathBuf,
    settings: Settings,
    tz: Tz,
    source: Arc<dyn DataSource>,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dataset").field("name", &self.name).finish()
    }
}

impl Dataset {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its local folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Its settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Its time zone.
    pub fn tz(&self) -> Tz {
        self.tz
    }

    /// Where its files are read from.
    pub fn source(&self) -> &Arc<dyn DataSource> {
        &self.source
    }

    /// The same dataset with its dates read and answered in `tz` (a call's `timeZone`).
    pub fn in_time_zone(mut self, tz: Tz) -> Dataset {
        self.tz = tz;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn a_dataset_name_is_never_a_path() {
        for ok in ["alice", "a-1_b", "2024"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "..",
            "../bob",
            "a/b",
            "a\\b",
            ".hidden",
            "-x",
            "a b",
            "é",
            &"x".repeat(65),
            "a\0",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
