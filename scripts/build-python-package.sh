#!/usr/bin/env bash
# Builds `import beaker` (crates/beaker-pymodule) into the test clients' venv, where tests/all/python_package.rs runs its
# pytest suite (tests/python). The venv is made by scripts/install-python-runtime.py.
#
# The extension is built by the workspace's own test build (`cargo build --release --workspace --lib --bins --tests`,
# the units the README's `cargo test --workspace --release` then finds built), not by maturin: maturin builds beaker-pymodule alone, where cargo
# resolves its dependencies' features differently (serde without `rc`, tokio without `macros`, ...), so a cold
# machine compiled wasmtime, the tools and everything between twice. scripts/wheel_from_build.py packs the
# extension and the Python sources as maturin would. A release wheel is still maturin's:
#     maturin build --release -m crates/beaker-pymodule/Cargo.toml
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${BEAKER_CACHE_DIR:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/beaker}}"
cache="${cache:-$HOME/.cache/beaker}"
venv="$cache/clients"
[ -x "$venv/bin/python" ] || { echo "no venv at $venv: run python3 scripts/install-python-runtime.py" >&2; exit 2; }
target="${CARGO_TARGET_DIR:-target}"
# An extension module does not link libpython (the interpreter that loads it provides the symbols); PyO3 reads
# the interpreter it builds for from PYO3_PYTHON. Both only concern pyo3's build script.
PYO3_PYTHON="$venv/bin/python" PYO3_BUILD_EXTENSION_MODULE=1 \
  cargo build --release --workspace --lib --bins --tests --locked
# A wheel installed as a copy, not an editable link into this checkout: the venv is shared by every checkout on
# the machine.
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
wheel="$("$venv/bin/python" scripts/wheel_from_build.py "$target/release/lib_beaker.so" "$wheels")"
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
