#!/usr/bin/env bash
# Builds `import beaker` (crates/beaker-py) into the test clients' venv, where tests/all/python_package.rs runs its
# pytest suite (tests/python). The venv is made by scripts/install-python-runtime.py. A debug build sharing
# CARGO_TARGET_DIR with `cargo test`, so it reuses the workspace's compiled crates.
# For a release wheel: maturin build --release -m crates/beaker-py/Cargo.toml
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${BEAKER_CACHE_DIR:-${XDG_CACHE_HOME:+$XDG_CACHE_HOME/beaker}}"
cache="${cache:-$HOME/.cache/beaker}"
venv="$cache/clients"
[ -x "$venv/bin/maturin" ] || { echo "no maturin in $venv: run python3 scripts/install-python-runtime.py" >&2; exit 2; }
# A wheel installed as a copy, not `maturin develop`'s editable link into this checkout: the venv is shared by
# every checkout on the machine.
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin build --quiet --profile dev --auditwheel skip -m crates/beaker-py/Cargo.toml -o "$wheels"
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/*.whl
