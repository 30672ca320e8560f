"""Drives `beaker serve --http` with SandboxFusion's own client (`sandbox-fusion`, what verl uses), as a verl
user switching URLs would. Usage: python sandbox_fusion_client.py http://127.0.0.1:PORT
Prints one line per check and exits 1 on the first failure."""

import base64
import concurrent.futures
import sys

from sandbox_fusion import (RunCodeRequest, RunJupyterRequest, RunStatus, SummaryMapping, run_code, run_jupyter,
                            summary_run_code_result)

URL = sys.argv[1]


def run(**kw):
    kw.setdefault("language", "python")
    return run_code(RunCodeRequest(**kw), endpoint=URL, max_attempts=1)


def check(name, cond, detail):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f": {detail}"))
    if not cond:
        sys.exit(1)


r = run(code="import numpy as np\nprint(np.linalg.solve([[3, 1], [1, 2]], [9, 8]))")
check("numpy", r.status == RunStatus.Success and r.run_result.stdout == "[2. 3.]\n", r)

r = run(code="import sympy as sp\nx = sp.symbols('x')\nprint(sp.integrate(x**2 * sp.sin(x), x))")
check("sympy", r.run_result.stdout == "-x**2*cos(x) + 2*x*sin(x) + 2*cos(x)\n", r)

r = run(code="print(input()[::-1])", stdin="abc\n")
check("stdin", r.run_result.stdout == "cba\n", r)

r = run(code="1/0")
check("exception", r.status == RunStatus.Failed and r.run_result.return_code == 1
      and "ZeroDivisionError" in r.run_result.stderr, r)
check("summary of a failure", summary_run_code_result(r, SummaryMapping(RunFailed="RunFailed")) == "RunFailed", r)

r = run(code="import sys; sys.exit(4)")
check("exit code", r.run_result.return_code == 4, r)

r = run(code="while True: pass", run_timeout=0.5)
check("time limit", r.run_result.status.value == "TimeLimitExceeded"
      and summary_run_code_result(r, SummaryMapping(RunTimeout="RunTimeout")) == "RunTimeout", r)

data = base64.b64encode(b"3,4\n").decode()
r = run(code="a, b = map(int, open('in.csv').read().split(','))\nopen('out.txt', 'w').write(str(a * b))",
        files={"in.csv": data}, fetch_files=["out.txt"])
check("files", base64.b64decode(r.files.get("out.txt", "")) == b"12", r)

r = run(code="#include <cstdio>\nint main() { long long a, b; std::scanf(\"%lld %lld\", &a, &b); std::printf(\"%lld\\n\", a * b); }",
        language="cpp", stdin="3000000000 3\n")
check("cpp", r.status == RunStatus.Success and r.compile_result.return_code == 0
      and r.run_result.stdout == "9000000000\n", r)

r = run(code="int main() { return x; }", language="cpp")
check("compile error", r.status == RunStatus.Failed and r.compile_result.return_code == 1
      and r.run_result is None, r)

r = run(code="int main() { volatile unsigned long i = 0; for (;;) i++; }", language="cpp", run_timeout=0.5)
check("cpp time limit", summary_run_code_result(r, SummaryMapping(RunTimeout="RunTimeout")) == "RunTimeout", r)

for language, code, out in [
    ("java", "public class Main { public static void main(String[] a) { System.out.println(Long.MAX_VALUE); } }",
     "9223372036854775807\n"),
    ("nodejs", "console.log(2 ** 53)", "9007199254740992\n"),
    ("rust", "fn main() { println!(\"{}\", u64::MAX); }", "18446744073709551615\n"),
    ("bash", "echo $((2 ** 62))", "4611686018427387904\n"),
]:
    r = run(code=code, language=language)
    check(language, r.status == RunStatus.Success and r.run_result.stdout == out, r)

try:
    run(code="<?php echo 1;", language="php")
    check("unsupported language", False, "no exception")
except Exception as e:  # the client raises on SandboxError, as for SandboxFusion's own
    check("unsupported language", "not supported" in str(e), e)

with concurrent.futures.ThreadPoolExecutor(8) as pool:
    outs = list(pool.map(lambda i: run(code=f"print({i} * {i})").run_result.stdout, range(32)))
check("32 concurrent calls", outs == [f"{i * i}\n" for i in range(32)], outs)

# /run_jupyter: cells in one interpreter, each reported apart; a raising cell does not stop the others.
cells = ["a = 123", "a", "print(a)", "import sys; sys.stderr.write('err')", "raise RuntimeError('boom')", "a + 1"]
r = run_jupyter(RunJupyterRequest(cells=cells), endpoint=URL, max_attempts=1)
out = [(c.stdout, c.stderr, c.display, [e["ename"] for e in c.error]) for c in r.cells]
check("jupyter cells", r.status == RunStatus.Success and out == [
    ("", "", [], []), ("", "", [{"text/plain": "123"}], []), ("123\n", "", [], []),
    ("", "err", [{"text/plain": "3"}], []), ("", "", [], ["RuntimeError"]), ("", "", [{"text/plain": "124"}], [])], out)
r = run_jupyter(RunJupyterRequest(cells=["x = open('in.csv').read()", "open('out.txt', 'w').write(x[::-1])"],
                                  files={"in.csv": data}, fetch_files=["out.txt"]), endpoint=URL, max_attempts=1)
check("jupyter files", base64.b64decode(r.files.get("out.txt", "")) == b"\n4,3", r)
r = run_jupyter(RunJupyterRequest(cells=["x = 1", "while True: pass", "print(x)"], total_timeout=1), endpoint=URL,
                max_attempts=1)
check("jupyter time limit", r.status == RunStatus.Failed and r.driver.status.value == "TimeLimitExceeded"
      and r.cells == [], r)
