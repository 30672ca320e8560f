//! The build cache: a compiled program's directory, found again by the SHA-256 of what made it (language,
//! toolchain, source name and text), kept under a size cap by dropping the least recently used builds.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The most bytes of builds kept.
const CAP_BYTES: u64 = 1 << 30;
/// A build used this recently is not evicted (a run may be about to mount it).
const IN_USE: Duration = Duration::from_secs(120);

/// Where builds are kept (`None`: nowhere; every compile is fresh).
pub(crate) struct BuildCache {
    root: Option<PathBuf>,
}

/// A build's directory: in the cache, or a temporary one deleted when dropped (no cache, or it could not be
/// kept).
pub(crate) enum Build {
    Cached(PathBuf),
    Temporary(tempfile::TempDir),
}

impl Build {
    pub(crate) fn path(&self) -> &Path {
        match self {
            Build::Cached(p) => p,
            Build::Temporary(t) => t.path(),
        }
    }
}

/// The default folder: `$BEAKER_CACHE_DIR`, `$XDG_CACHE_HOME/beaker` or `~/.cache/beaker`, then `builds/`.
pub(crate) fn default_dir() -> Option<PathBuf> {
    beaker_core::cache_dir().map(|d| d.join("builds"))
}

/// The key of a build made from `parts`.
pub(crate) fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        // Length-prefixed, so that no two lists of parts hash the same bytes.
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

impl BuildCache {
    /// The cache under `root`, or, when runs cannot reach it (their own user cannot pass a folder above it),
    /// under `/var/tmp/beaker-builds-UID`; none when neither can be made.
    pub(crate) fn new(root: Option<PathBuf>, reachable: &dyn Fn(&Path) -> bool) -> BuildCache {
        let made = |r: &Path| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::create_dir_all(r.join("tmp")).is_ok()
                // Others may pass through to a build they are given, not list the builds.
                && [r.to_path_buf(), r.join("tmp")].iter().all(|d| {
                    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o711)).is_ok()
                })
                && reachable(&r.join("tmp"))
        };
        let root = root.filter(|r| made(r)).or_else(|| {
            let fallback = PathBuf::from(format!("/var/tmp/beaker-builds-{}", rustix_uid()));
            owned_or_new(&fallback)
                .then_some(fallback)
                .filter(|r| made(r))
        });
        BuildCache { root }
    }

    /// The build of `key`, if kept; marks it used.
    pub(crate) fn get(&self, key: &str) -> Option<Build> {
        let dir = self.root.as_ref()?.join(key);
        let f = std::fs::File::open(&dir).ok()?;
        let _ = f.set_modified(SystemTime::now());
        Some(Build::Cached(dir))
    }

    /// A fresh directory for a compile, writable by the sandbox's user.
    pub(crate) fn workspace(&self) -> std::io::Result<tempfile::TempDir> {
        use std::os::unix::fs::PermissionsExt;
        let dir = match &self.root {
            Some(r) => tempfile::tempdir_in(r.join("tmp"))?,
            None => tempfile::tempdir()?,
        };
        // The jail reaches it through a descriptor only (its parents stay closed to other users).
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))?;
        Ok(dir)
    }

    /// Keeps `work` as the build of `key` (another call's build of the same key, if it won the race).
    pub(crate) fn put(&self, key: &str, work: tempfile::TempDir) -> Build {
        let Some(root) = &self.root else {
            return Build::Temporary(work);
        };
        let target = root.join(key);
        // Written by the compile's user through a folder open to it; kept read-only for everyone but Beaker.
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755));
        }
        match std::fs::rename(work.path(), &target) {
            Ok(()) => {
                // Renamed away: nothing is left for the TempDir to delete.
                let _ = work.keep();
            }
            Err(_) if target.is_dir() => {}
            Err(_) => return Build::Temporary(work),
        }
        self.evict(root, &target);
        Build::Cached(target)
    }

    /// Drops the least recently used builds while the cache is over its cap.
    fn evict(&self, root: &Path, keep: &Path) {
        let Ok(entries) = std::fs::read_dir(root) else {
            return;
        };
        let mut builds: Vec<(SystemTime, u64, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name() != "tmp" && e.path() != keep)
            .filter_map(|e| {
                let used = e.metadata().ok()?.modified().ok()?;
                Some((used, size(&e.path()), e.path()))
            })
            .collect();
        let mut total: u64 = builds.iter().map(|b| b.1).sum::<u64>() + size(keep);
        builds.sort();
        let now = SystemTime::now();
        for (used, bytes, path) in builds {
            if total <= CAP_BYTES {
                break;
            }
            if now.duration_since(used).is_ok_and(|d| d > IN_USE)
                && std::fs::remove_dir_all(&path).is_ok()
            {
                total -= bytes;
            }
        }
    }
}

/// This process's effective user id (the owner of what it makes).
fn rustix_uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// Whether `dir` is a folder this process owns (made now if missing): in a shared folder such as /var/tmp,
/// a name someone else made first, or a link, is not ours to use.
fn owned_or_new(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let _ = std::fs::create_dir(dir);
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink() && m.uid() == rustix_uid())
}

/// Bytes of the files under `path`.
fn size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return std::fs::symlink_metadata(path).map_or(0, |m| m.len());
    };
    entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}
