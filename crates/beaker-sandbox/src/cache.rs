//! Modules compiled once: in memory per process, and on disk (`.cwasm`) across processes.
//!
//! The key hashes the module's bytes, whether it is snapshotted, the wasmtime version and the engine's
//! compatibility fingerprint, so a new Beaker, a new wasmtime or a different configuration never loads a
//! stale artifact. Files are written to a temporary name and renamed, so concurrent processes never see a
//! half-written file; a file that fails to load is compiled again and replaced.

use crate::error::{chain, SandboxError};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use wasmtime::Module;

/// Bumped whenever the way a snapshot is taken changes (its WASI context, the init export), so cached
/// snapshots from an older recipe are not reused: the crate version alone does not change between commits.
const SNAPSHOT_RECIPE: u32 = 2;

/// Compiled modules by key; one lock per key so two loads of one module compile it once.
pub(crate) struct ModuleCache {
    dir: Option<PathBuf>,
    modules: Mutex<HashMap<u64, Arc<Mutex<Option<Module>>>>>,
}

/// FNV-1a over a `Hash` stream: stable across runs (std's `DefaultHasher` is not promised to be).
pub(crate) struct Fnv(pub(crate) u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl ModuleCache {
    pub(crate) fn new(dir: Option<PathBuf>) -> Self {
        ModuleCache {
            dir,
            modules: Mutex::default(),
        }
    }

    /// The compiled module for `wasm`, from memory, disk, or a fresh compile (of `snapshot()`'s bytes when
    /// `initialize`: the cache keys them by the original module, so a snapshot is taken once).
    pub(crate) fn module(
        &self,
        engine: &wasmtime::Engine,
        name: &str,
        wasm: &[u8],
        initialize: bool,
        snapshot: impl FnOnce() -> wasmtime::Result<Vec<u8>>,
    ) -> Result<Module, SandboxError> {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        wasm.hash(&mut h);
        initialize.hash(&mut h);
        let bytes = || {
            if initialize {
                snapshot()
            } else {
                Ok(wasm.to_vec())
            }
        };
        self.module_keyed(engine, name, h.finish(), bytes)
    }

    /// The compiled module identified by `identity` (a hash of everything its bytes depend on), from
    /// memory, disk, or compiling what `produce` returns. Lets a caller that already knows a module's
    /// identity (a reactor's pinned SHA-256 and its init code) skip reading and hashing 100 MB of wasm.
    pub(crate) fn module_keyed(
        &self,
        engine: &wasmtime::Engine,
        name: &str,
        identity: u64,
        produce: impl FnOnce() -> wasmtime::Result<Vec<u8>>,
    ) -> Result<Module, SandboxError> {
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        identity.hash(&mut h);
        SNAPSHOT_RECIPE.hash(&mut h);
        env!("CARGO_PKG_VERSION").hash(&mut h);
        engine.precompile_compatibility_hash().hash(&mut h);
        let key = h.finish();
        let cell = {
            let mut map = self.modules.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(key).or_default().clone()
        };
        let mut slot = cell.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = &*slot {
            return Ok(m.clone());
        }
        let load_err = |message: String| SandboxError::Load {
            name: name.to_string(),
            message,
        };
        let file = self
            .dir
            .as_ref()
            .map(|d| d.join(format!("{}-{key:016x}.cwasm", file_stem(name))));
        // Sandboxes of one process (tests make many) share the disk: one compiles, the others wait and map
        // its file instead of compiling the same module again side by side.
        let file_lock = file.as_ref().map(|f| {
            static FILES: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = OnceLock::new();
            let mut files = FILES
                .get_or_init(Mutex::default)
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            files.entry(f.clone()).or_default().clone()
        });
        let _held = file_lock
            .as_ref()
            .map(|l| l.lock().unwrap_or_else(|p| p.into_inner()));
        if let Some(m) = file.as_deref().and_then(|f| load_file(engine, f)) {
            *slot = Some(m.clone());
            return Ok(m);
        }
        let started = std::time::Instant::now();
        let bytes = produce().map_err(|e| load_err(format!("snapshot: {}", chain(&e))))?;
        let module = Module::new(engine, &bytes).map_err(|e| load_err(chain(&e)))?;
        tracing::info!(
            guest = name,
            ms = started.elapsed().as_millis() as u64,
            "compiled a guest module"
        );
        if let Some(f) = &file {
            match store_file(&module, f) {
                Ok(()) => remove_stale(f, name),
                Err(e) => tracing::warn!(guest = name, "cannot cache {}: {e}", f.display()),
            }
        }
        *slot = Some(module.clone());
        Ok(module)
    }
}

/// A name safe to use in a file name.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

#[allow(
    unsafe_code,
    reason = "loading a precompiled module is unsafe by wasmtime's API"
)]
fn load_file(engine: &wasmtime::Engine, file: &Path) -> Option<Module> {
    if !file.is_file() {
        return None;
    }
    // SAFETY: wasmtime requires that the file was produced by `Module::serialize` of a compatible engine
    // and is not modified while mapped. We only read files we wrote into the operator's cache directory
    // under a key that includes the engine's compatibility hash; wasmtime itself checks the header and
    // version and refuses anything else, which we then recompile.
    match unsafe { Module::deserialize_file(engine, file) } {
        Ok(m) => Some(m),
        Err(e) => {
            tracing::warn!("ignoring cached module {}: {}", file.display(), chain(&e));
            None
        }
    }
}

fn store_file(module: &Module, file: &Path) -> Result<(), String> {
    let bytes = module.serialize().map_err(|e| chain(&e))?;
    let dir = file.parent().ok_or("no parent directory")?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, file).map_err(|e| e.to_string())
}

/// Deletes older artifacts of the same guest (`NAME-<other key>.cwasm`): a compiled interpreter is ~90 MB,
/// and every rebuild of the guest or of Beaker would otherwise leave one behind.
fn remove_stale(current: &Path, name: &str) {
    let (Some(dir), Some(keep)) = (current.parent(), current.file_name()) else {
        return;
    };
    let prefix = format!("{}-", file_stem(name));
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(f) = file.to_str() else { continue };
        let is_sibling = f
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".cwasm"))
            .is_some_and(|key| key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()));
        if is_sibling && file != keep {
            let _ = std::fs::remove_file(e.path());
        }
    }
}
