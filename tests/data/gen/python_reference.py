"""Expected results of tests/data/python/programs/*.py, computed by CPython.

Each program runs the way `execute_python` runs code: as `__main__` from the file name `<code>`, stdin
from NAME.stdin if present, stdout and stderr captured, and when the last top-level statement is an
expression its value's repr() is the `result` (null when it is None). An uncaught exception is recorded
with its type, message and the line of the innermost frame in `<code>`.

CPython is the reference for the language's semantics; the sandbox runs RustPython, so a case here that
fails there is a real difference to fix or to document (tests/all/python.rs lists the documented ones).

Run: python3 tests/data/gen/python_reference.py   (writes tests/data/python/expected.jsonl)
"""
import ast
import io
import json
import pathlib
import platform
import sys
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1] / "python"


def run(code, stdin):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    result, exc = None, None
    try:
        tree = ast.parse(code, "<code>")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        g = {"__name__": "__main__"}
        exec(compile(tree, "<code>", "exec"), g)
        if last is not None:
            value = eval(compile(last, "<code>", "eval"), g)
            if value is not None:
                result = repr(value)
    except SyntaxError as e:
        exc = {"type": type(e).__name__, "line": e.lineno}
    except Exception as e:  # noqa: BLE001 - recording what user code raised
        line = None
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename == "<code>":
                line = frame.lineno
        exc = {"type": type(e).__name__, "message": str(e), "line": line}
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "result": result, "exception": exc}


def main():
    rows = []
    for path in sorted((ROOT / "programs").glob("*.py")):
        stdin_path = path.with_suffix(".stdin")
        stdin = stdin_path.read_text() if stdin_path.exists() else None
        row = {"name": path.stem, "stdin": stdin}
        row.update(run(path.read_text(), stdin or ""))
        rows.append(row)
    header = {"generator": "tests/data/gen/python_reference.py", "python": platform.python_version()}
    with open(ROOT / "expected.jsonl", "w") as f:
        f.write("// " + json.dumps(header) + "\n")
        for row in rows:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} cases")


if __name__ == "__main__":
    main()
