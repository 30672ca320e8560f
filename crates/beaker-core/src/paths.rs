//! Where Beaker keeps what it makes once per machine.

use std::path::PathBuf;

/// Beaker's cache folder: `$BEAKER_CACHE_DIR`, else `$XDG_CACHE_HOME/beaker`, else `~/.cache/beaker` (what the
/// installer computes too); `None` without any of them. The Python runtime, compiled modules and execute_code's
/// builds live under it.
pub fn cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("BEAKER_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("beaker")))
        .or_else(|| env("HOME").map(|d| d.join(".cache").join("beaker")))
}
