"""code_test against execute_python through one beaker serve: `python3 benches/code_test_cost.py target/release/beaker`
(docs/PERFORMANCE.md, "code_test: two interpreters per test")."""
import json, subprocess, statistics, sys
B = sys.argv[1]
code = "def square(x):\n    return x * x\n"
tests = ["assert square(2) == 4", "assert square(3) == 9", "assert square(-4) == 16"]
calls = {
    "execute_python code+1 test (one instance: the old per-test cost)": ("execute_python", {"code": code + tests[0]}),
    "code_test 1 test (two instances)": ("code_test", {"code": code, "tests": tests[:1]}),
    "code_test 3 tests": ("code_test", {"code": code, "tests": tests}),
}
p = subprocess.Popen([B, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(tool, params, i):
    p.stdin.write(json.dumps({"id": i, "tool": tool, "params": params}) + "\n"); p.stdin.flush()
    return json.loads(p.stdout.readline())
i = 0
for name, (tool, params) in calls.items():
    for _ in range(3):
        i += 1; call(tool, params, i)
    xs = []
    for _ in range(40):
        i += 1; v = call(tool, params, i); assert v["success"], v; xs.append(v["elapsed_us"] / 1000)
    xs.sort()
    print(f"{name}: p50 {statistics.median(xs):.2f} ms, p90 {xs[int(0.9*len(xs))]:.2f} ms")
p.stdin.close(); p.wait()
