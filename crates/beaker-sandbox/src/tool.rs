//! Operator guest tools: a `NAME.wasm` + `NAME.toml` pair becomes a tool like any native one.

use crate::manifest::Manifest;
use crate::sandbox::{Guest, Run, Sandbox};
use beaker_core::{CallContext, ErrorKind, LimitsRequest, Pool, Tool, ToolError, ToolSpec};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A guest module with its manifest: params JSON in on stdin, result JSON out on stdout.
#[derive(Debug)]
pub struct GuestTool {
    spec: ToolSpec,
    guest: Guest,
    manifest: Manifest,
}

impl GuestTool {
    /// A tool from a loaded guest and its manifest.
    pub fn new(guest: Guest, manifest: Manifest) -> Self {
        let spec = ToolSpec {
            name: guest.name().to_string(),
            description: manifest.description.clone(),
            params_schema: manifest.params_schema.clone(),
            result_schema: manifest.result_schema.clone(),
            examples: manifest.examples.clone(),
            notes: String::new(),
        };
        GuestTool {
            spec,
            guest,
            manifest,
        }
    }

    /// Loads a module (`NAME.wasm`, or text `NAME.wat`) and the `NAME.toml` beside it.
    pub fn load(sandbox: &Sandbox, wasm: &Path) -> Result<GuestTool, LoadError> {
        let err = |message: String| LoadError {
            path: wasm.to_path_buf(),
            message,
        };
        let toml_path = wasm.with_extension("toml");
        let text = std::fs::read_to_string(&toml_path).map_err(|e| LoadError {
            path: toml_path.clone(),
            message: format!("cannot read the manifest: {e}"),
        })?;
        let dir = toml_path.parent().unwrap_or(Path::new("."));
        let manifest = Manifest::parse(&text, dir).map_err(|message| LoadError {
            path: toml_path.clone(),
            message,
        })?;
        let stem = wasm
            .file_stem()
            .and_then(|s| s.to_str())
            .ok_or_else(|| err("the file name is not UTF-8".into()))?;
        let name = manifest.name.clone().unwrap_or_else(|| stem.to_string());
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(err(format!(
                "the tool name `{name}` must be letters, digits, `_` or `-`"
            )));
        }
        let bytes = std::fs::read(wasm).map_err(|e| err(format!("cannot read: {e}")))?;
        let guest = sandbox
            .load(&name, &bytes, manifest.initialize)
            .map_err(|e| err(e.to_string()))?;
        Ok(GuestTool::new(guest, manifest))
    }

    /// The guest it runs.
    pub fn guest(&self) -> &Guest {
        &self.guest
    }
}

/// A guest tool that could not be loaded: the file and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct LoadError {
    /// The `.wasm` or `.toml` file at fault.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

/// Loads every `*.wasm` (or WebAssembly text `*.wat`) with a manifest in `dir` (sorted by name). Tools that fail to load are returned
/// as errors beside the ones that loaded; a manifest without a module is an error too.
pub fn load_dir(sandbox: &Sandbox, dir: &Path) -> (Vec<GuestTool>, Vec<LoadError>) {
    let mut tools = Vec::new();
    let mut errors = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(LoadError {
                path: dir.to_path_buf(),
                message: format!("cannot read the guest directory: {e}"),
            });
            return (tools, errors);
        }
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in &paths {
        match p.extension().and_then(|e| e.to_str()) {
            Some("wasm" | "wat") => match GuestTool::load(sandbox, p) {
                Ok(t) => tools.push(t),
                Err(e) => errors.push(e),
            },
            Some("toml")
                if !p.with_extension("wasm").exists() && !p.with_extension("wat").exists() =>
            {
                errors.push(LoadError {
                    path: p.clone(),
                    message: "a manifest without a module (no .wasm or .wat beside it)".into(),
                })
            }
            _ => {}
        }
    }
    (tools, errors)
}

impl Tool for GuestTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn default_limits(&self) -> LimitsRequest {
        self.manifest.limits
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let input = serde_json::to_vec(params)
            .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
        let run = Run {
            grants: self.manifest.grants.clone(),
            ..Run::for_call(&input, ctx.limits, ctx)
        };
        let outcome = self.guest.run_recorded(&run, &ctx.usage)?;
        if outcome.truncated && outcome.stdout.len() as u64 >= ctx.limits.max_output_bytes {
            return Err(ToolError::limit(format!(
                "the guest wrote more than {} bytes of output (limit max_output_bytes)",
                ctx.limits.max_output_bytes
            )));
        }
        serde_json::from_slice(&outcome.stdout).map_err(|e| {
            let shown = String::from_utf8_lossy(&outcome.stdout[..outcome.stdout.len().min(200)])
                .into_owned();
            ToolError::new(
                ErrorKind::ToolError,
                format!("the guest's output is not JSON ({e}): {shown:?}"),
            )
        })
    }
}
