"""The runnable examples (examples/README.md): each replays its recorded model outputs from tests/data/examples/
and must print exactly the expected file there, byte for byte. To re-record after an intended change, run the
example as below with its output redirected to the `.expected.jsonl` file, then read the diff line by line."""

import difflib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "examples"


def beaker_binary():
    """The server binary, found as the rest of the suite finds it: $BEAKER_BIN, else target/release/beaker (then
    target/debug/beaker) under $CARGO_TARGET_DIR or the repository, else `beaker` on PATH."""
    if os.environ.get("BEAKER_BIN"):
        binary = Path(os.environ["BEAKER_BIN"])
        assert binary.is_file(), f"BEAKER_BIN={binary} is not a file"
        return str(binary)
    targets = [ROOT / os.environ["CARGO_TARGET_DIR"]] if os.environ.get("CARGO_TARGET_DIR") else []
    for target in targets + [ROOT / "target"]:
        for profile in ("release", "debug"):
            if (target / profile / "beaker").is_file():
                return str(target / profile / "beaker")
    on_path = shutil.which("beaker")
    if on_path is None:
        pytest.skip("no beaker binary: set BEAKER_BIN, or build target/release/beaker (cargo build --release)")
    return on_path


def run_example(name, *args):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / f"{name}.py"), *args], cwd=ROOT,
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    expected = (DATA / f"{name}.expected.jsonl").read_bytes()
    if out.stdout != expected:
        diff = difflib.unified_diff(expected.decode().splitlines(), out.stdout.decode(errors="replace").splitlines(),
                                    "expected", "printed", lineterm="")
        pytest.fail(f"examples/{name}.py printed something else:\n" + "\n".join(diff))


def test_asyncio_rollouts_over_beaker_serve():
    run_example("asyncio_rollouts", "--beaker", beaker_binary(),
                "--policy", str(DATA / "asyncio_rollouts.policy.jsonl"))


def test_verl_tool():
    run_example("verl_tool", str(DATA / "verl_tool.episode.json"))


def test_trl_tools():
    run_example("trl_tools", str(DATA / "trl_tools.completions.json"))


def test_skyrl_env():
    run_example("skyrl_env", str(DATA / "skyrl_env.episodes.json"))


def test_search_r1_rollout_over_retrieve():
    run_example("search_r1_rollout", "--beaker", beaker_binary())
