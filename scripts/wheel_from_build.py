#!/usr/bin/env python3
"""Packs `import beaker` into a wheel from an extension cargo already built (the test clients' copy).

    python scripts/wheel_from_build.py TARGET/release/lib_beaker.so OUT_DIR

Why not maturin here: maturin builds beaker-pymodule on its own, so cargo resolves the features of its dependencies
for that one package (serde without `rc`, tokio without `macros`, ...), which differ from `cargo test
--workspace`'s; every crate above them (wasmtime, the tools, ...) was then compiled twice on a cold machine.
scripts/build-python-package.sh builds the extension inside the workspace's own test build instead, and this
packs it with the package's Python sources exactly where maturin puts them (`[tool.maturin]` in
crates/beaker-pymodule/pyproject.toml: `python-source = "python"`, `module-name = "beaker._beaker"`). Release wheels
are still maturin's (docs/PYTHON_API.md).
"""

import base64
import hashlib
import pathlib
import re
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
NAME = "beaker_runtime"
TAG = "cp39-abi3-linux_x86_64"


def version():
    text = (ROOT / "Cargo.toml").read_text()
    section = text.split("[workspace.package]", 1)[1]
    return re.search(r'^version\s*=\s*"([^"]+)"', section, re.M).group(1)


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    extension, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    v = version()
    files = {}
    source = ROOT / "crates/beaker-pymodule/python"
    for p in sorted(source.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            files[p.relative_to(source).as_posix()] = p.read_bytes()
    files["beaker/_beaker.abi3.so"] = extension.read_bytes()
    dist = f"{NAME}-{v}.dist-info"
    files[f"{dist}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: beaker-runtime\nVersion: {v}\nRequires-Python: >=3.9\n"
    ).encode()
    files[f"{dist}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: beaker wheel_from_build.py\nRoot-Is-Purelib: false\nTag: {TAG}\n"
    ).encode()
    record = [record_line(path, data) for path, data in files.items()]
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{NAME}-{v}-{TAG}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    print(wheel)


if __name__ == "__main__":
    main()
