//! Builds the WebAssembly guests in `guest-tools/` (a separate cargo workspace for `wasm32-wasip1`: the
//! `echo` guest that tests and benches of the sandbox use) and tells the crate where they are.
//!
//! The nested build uses its own target directory (`$CARGO_TARGET_DIR/guest-tools`, or
//! `target/guest-tools`), so it never waits on the outer build's lock and is cached like any build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest_dir.join("../..");
    let guests = root.join("guest-tools");
    for p in ["Cargo.toml", "Cargo.lock", ".cargo/config.toml"] {
        println!("cargo:rerun-if-changed={}", guests.join(p).display());
    }
    watch(&guests);
    let target_dir = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d).join("guest-tools"),
        _ => root.join("target").join("guest-tools"),
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(&guests)
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            "wasm32-wasip1",
        ])
        .args(["-p", "echo"])
        .env("CARGO_TARGET_DIR", &target_dir)
        // The outer build's flags are for the host, not for wasm32-wasip1.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .status()
        .expect("cannot run cargo to build guest-tools");
    assert!(
        status.success(),
        "building guest-tools for wasm32-wasip1 failed; is the target installed? (`rustup target add wasm32-wasip1`)"
    );
    let out = target_dir.join("wasm32-wasip1").join("release");
    println!("cargo:rustc-env=BEAKER_GUEST_BUILD_DIR={}", out.display());
}

/// Re-runs this script when any source file under `dir` changes (cargo does not recurse for us).
fn watch(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            watch(&p);
        } else {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
