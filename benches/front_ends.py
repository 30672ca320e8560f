"""Latency and throughput of one call through each front end, on one machine, in one run (docs/PERFORMANCE.md).

Starts `beaker serve` (stdio JSON Lines), `beaker serve --mcp` (MCP's JSON-RPC on stdio, spoken here directly so
that the figure is the server's, not a client library's) and `beaker serve --http` from the binary given, then for each request
kind measures N sequential round trips (p50, p99) and the calls per second of C concurrent clients:
  calc:   calculator `7 * 8`
  python: execute_python `print(2**100)` (through /run_code on HTTP, as a SandboxFusion client posts it)

With `import beaker` available (run it with the test venv's python after scripts/build-python-package.sh, or
a venv holding a release wheel), it also measures the Python API in-process: `Engine.call` round trips and
`Engine.acall` with C tasks in flight.

Usage: python3 benches/front_ends.py PATH/TO/beaker [N] [C]
"""

import http.client
import json
import statistics
import subprocess
import sys
import threading
import time

BEAKER = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 500
C = int(sys.argv[3]) if len(sys.argv) > 3 else 8
CALC = {"tool": "calculator", "params": {"expression": "7 * 8"}}
PY = {"tool": "execute_python", "params": {"code": "print(2**100)"}}
RUN_CODE = {"code": "print(2**100)", "language": "python"}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def report(name, lat, rate):
    print(f"{name:<28} p50 {pct(lat, 50) * 1e3:8.3f} ms   p99 {pct(lat, 99) * 1e3:8.3f} ms   "
          f"{rate:8.0f} calls/s with {C} clients", flush=True)


def over_pipe(p, send, ok):
    """N sequential round trips, then C requests in flight at a time, on a server's stdin and stdout.
    `send(i)` writes request i (unflushed); `ok()` reads the next answer and says whether it succeeded."""
    lat = []
    for i in range(N):
        t = time.perf_counter()
        send(i)
        p.stdin.flush()
        assert ok()
        lat.append(time.perf_counter() - t)
    t = time.perf_counter()
    total = N * 2
    sent = 0
    for _ in range(min(C, total)):
        send(sent)
        sent += 1
    p.stdin.flush()
    for _ in range(total):
        assert ok()
        if sent < total:
            send(sent)
            p.stdin.flush()
            sent += 1
    rate = total / (time.perf_counter() - t)
    p.stdin.close()
    p.wait()
    return lat, rate


def stdio(call):
    p = subprocess.Popen([BEAKER, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    return over_pipe(p, lambda i: p.stdin.write(json.dumps({"id": i, **call}) + "\n"),
                     lambda: json.loads(p.stdout.readline())["success"])


def mcp(call):
    p = subprocess.Popen([BEAKER, "serve", "--mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         bufsize=1)

    def send(msg):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", **msg}) + "\n")

    def answer():
        while True:
            m = json.loads(p.stdout.readline())
            if "id" in m:
                return m

    send({"id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
    p.stdin.flush()
    answer()
    send({"method": "notifications/initialized"})
    params = {"name": call["tool"], "arguments": call["params"]}
    return over_pipe(p, lambda i: send({"id": i, "method": "tools/call", "params": params}),
                     lambda: answer()["result"]["isError"] is False)


def python_api(call):
    import asyncio
    import beaker

    engine = beaker.Engine()
    lat = []
    for _ in range(N):
        t = time.perf_counter()
        env = engine.call(call["tool"], call["params"])
        lat.append(time.perf_counter() - t)
        assert env["success"], env

    async def flood():
        total = N * 2
        sem = asyncio.Semaphore(C)

        async def one():
            async with sem:
                assert (await engine.acall(call["tool"], call["params"]))["success"]

        t = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(total)))
        return total / (time.perf_counter() - t)

    return lat, asyncio.run(flood())


def http_server():
    p = subprocess.Popen([BEAKER, "serve", "--http", "127.0.0.1:0"], stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        if "http://127.0.0.1:" in line:
            return p, int(line.rsplit(":", 1)[1])
    raise SystemExit("the HTTP server did not start")


def over_http(port, path, body, check):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    data = json.dumps(body)
    lat = []
    for _ in range(N):
        t = time.perf_counter()
        conn.request("POST", path, data, {"Content-Type": "application/json"})
        r = json.loads(conn.getresponse().read())
        lat.append(time.perf_counter() - t)
        assert check(r), r

    def client(k, out):
        c = http.client.HTTPConnection("127.0.0.1", port)
        for _ in range(k):
            c.request("POST", path, data, {"Content-Type": "application/json"})
            assert check(json.loads(c.getresponse().read()))
        out.append(k)

    per = max(1, N * 2 // C)
    done = []
    threads = [threading.Thread(target=client, args=(per, done)) for _ in range(C)]
    t = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return lat, sum(done) / (time.perf_counter() - t)


def main():
    print(f"beaker: {BEAKER}; {N} sequential round trips, then {2 * N} calls from {C} concurrent clients")
    report("stdio calculator 7*8", *stdio(CALC))
    report("stdio execute_python", *stdio(PY))
    report("mcp calculator 7*8", *mcp(CALC))
    report("mcp execute_python", *mcp(PY))
    try:
        import beaker  # noqa: F401
        report("python calculator 7*8", *python_api(CALC))
        report("python execute_python", *python_api(PY))
    except ImportError:
        print("(no `import beaker` in this interpreter: the Python API is not measured)")
    p, port = http_server()
    try:
        ok = lambda r: r.get("success") is True
        report("http /v1/call calculator", *over_http(port, "/v1/call", CALC, ok))
        report("http /v1/call execute_python", *over_http(port, "/v1/call", PY, ok))
        report("http /run_code print(2**100)", *over_http(port, "/run_code", RUN_CODE, lambda r: r["status"] == "Success"))
    finally:
        p.terminate()
        p.wait()


if __name__ == "__main__":
    main()
