//! An operator's guest tool manifest (`NAME.toml` beside `NAME.wasm`) and the directories it may grant.

use crate::error::SandboxError;
use beaker_core::{Example, LimitsRequest};
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// What an operator says about a guest tool. Unknown keys are refused, so a typo is an error at start.
///
/// ```toml
/// description = "Counts words."
/// params_schema = { type = "object", properties = { text = { type = "string" } }, required = ["text"] }
/// result_schema = { type = "object" }
/// initialize = false          # run the module's `wizer.initialize` once and snapshot it
/// [limits]                    # this tool's defaults; calls may ask for others, never above the server's maxima
/// timeout_ms = 2000
/// [grants]                    # what the guest may see; nothing by default
/// input_dir = "data"          # read-only at /input (relative to this file)
/// scratch = true              # an empty writable /scratch, removed after each call
/// ```
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The tool's name; defaults to the file's stem.
    #[serde(default)]
    pub name: Option<String>,
    /// What the tool does, written for a model choosing a tool.
    pub description: String,
    /// JSON Schema of the params (a TOML table).
    pub params_schema: Value,
    /// JSON Schema of the result (a TOML table); default: any object.
    #[serde(default = "any_object")]
    pub result_schema: Value,
    /// Pre-initialise the module with wizer (it must export `wizer.initialize`).
    #[serde(default)]
    pub initialize: bool,
    /// The tool's default limits.
    #[serde(default)]
    pub limits: LimitsRequest,
    /// Directories the guest may see.
    #[serde(default)]
    pub grants: Grants,
    /// Worked examples (checked by `beaker` tests like native tools' examples).
    #[serde(default)]
    pub examples: Vec<Example>,
}

fn any_object() -> Value {
    serde_json::json!({"type": "object"})
}

impl Manifest {
    /// Parses a manifest; relative grant paths are resolved against `dir`.
    pub fn parse(text: &str, dir: &Path) -> Result<Manifest, String> {
        let mut m: Manifest = toml::from_str(text).map_err(|e| e.to_string())?;
        if let Some(p) = &mut m.grants.input_dir {
            if p.is_relative() {
                *p = dir.join(&*p);
            }
            if !p.is_dir() {
                return Err(format!(
                    "grants.input_dir {} is not a directory",
                    p.display()
                ));
            }
        }
        if !m.params_schema.is_object() {
            return Err("params_schema must be a table (a JSON Schema object)".into());
        }
        Ok(m)
    }
}

/// Directories a guest may see; none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grants {
    /// A host directory the guest reads at `/input`.
    #[serde(default)]
    pub input_dir: Option<PathBuf>,
    /// Give the guest an empty writable `/scratch`, deleted when the run ends.
    #[serde(default)]
    pub scratch: bool,
}

/// A run's scratch directory; removed when dropped.
pub(crate) struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Grants {
    /// Adds the granted directories to a WASI context.
    pub(crate) fn open(&self, wasi: &mut WasiCtxBuilder) -> Result<Option<Scratch>, SandboxError> {
        let fail = |what: &str, p: &Path, e: wasmtime::Error| {
            SandboxError::Internal(format!("cannot open {what} {}: {e:#}", p.display()))
        };
        if let Some(dir) = &self.input_dir {
            wasi.preopened_dir(dir, "/input", FsPerms::ReadOnly)
                .map_err(|e| fail("the input directory", dir, e))?;
        }
        if !self.scratch {
            return Ok(None);
        }
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "beaker-scratch-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| SandboxError::Internal(format!("cannot create {}: {e}", dir.display())))?;
        let scratch = Scratch(dir);
        wasi.preopened_dir(&scratch.0, "/scratch", FsPerms::ReadWrite)
            .map_err(|e| fail("the scratch directory", &scratch.0, e))?;
        Ok(Some(scratch))
    }
}
