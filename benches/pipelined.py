"""Pipelined stdio throughput of `beaker serve`, against an in-run reference, as a ratio.

    python3 benches/pipelined.py BEAKER [--calls N] [--rounds R] [--compare OTHER_BEAKER] [--min-ratio X]

One thread writes N calculator requests (the eight expressions of `EXPRESSIONS`, in turn) into the server's
stdin as fast as the pipe takes them; the main thread reads answers in 1 MiB chunks and counts lines. The
client does as little as it can per call so that the figure is the server's, not the client's (`beaker
bench`, which checks every answer, saturates at about 100,000 calls/s on 2 cores). Every answer is then
checked: ids answered exactly once, every call a success.

Rounds alternate between Beaker (and `--compare`, another Beaker binary) and the reference server
`benches/peers/echo_server.py` (a Python loop that parses each line and writes a fixed answer), so the
machine's load moves both; the report gives the medians and Beaker's median ratio to the reference. With
`--min-ratio`, exit 1 when that ratio is below X: the check that would have caught a throughput regression
without asserting a wall-clock time (docs/PERFORMANCE.md, "Pipelined throughput").
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time

EXPRESSIONS = ["7 * 8", "2**64", "1/3 + 1/6", "sqrt(2)", "sin(pi/6)", "log(1000, 10)", "(3+4)*(5-2)", "factorial(10)"]
HERE = os.path.dirname(os.path.abspath(__file__))


def requests(n):
    return b"".join(
        json.dumps({"id": i, "tool": "calculator", "params": {"expression": EXPRESSIONS[i % len(EXPRESSIONS)]}}).encode()
        + b"\n"
        for i in range(n)
    )


def one_round(command, data, n):
    """Calls per second of one server over `data` (n requests), and its answers."""
    p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    # One call first, so that the server's start-up is not measured.
    p.stdin.write(b'{"id": -1, "tool": "calculator", "params": {"expression": "1+1"}}\n')
    fd = p.stdout.fileno()
    chunks = [os.read(fd, 1 << 16)]
    while not chunks[-1].endswith(b"\n"):
        chunks.append(os.read(fd, 1 << 16))
    writer = threading.Thread(target=p.stdin.write, args=(data,))
    start = time.perf_counter()
    writer.start()
    got, chunks = 0, []
    while got < n:
        b = os.read(fd, 1 << 20)
        if not b:
            break
        got += b.count(b"\n")
        chunks.append(b)
    elapsed = time.perf_counter() - start
    writer.join()
    p.stdin.close()
    p.wait()
    return n / elapsed, b"".join(chunks), got


def check(answers, n, name):
    seen = set()
    for line in answers.splitlines():
        a = json.loads(line)
        if a.get("success") is not True:
            sys.exit(f"{name}: a call failed: {line[:200]!r}")
        if a["id"] in seen:
            sys.exit(f"{name}: id {a['id']} answered twice")
        seen.add(a["id"])
    if len(seen) != n:
        sys.exit(f"{name}: {n - len(seen)} of {n} calls were not answered")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("beaker")
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compare", help="a second beaker binary, measured in the same rounds")
    ap.add_argument("--min-ratio", type=float, help="exit 1 when Beaker's median ratio to the reference is below this")
    args = ap.parse_args()
    data = requests(args.calls)
    serve = ["serve", "--no-python", "--max-in-flight", "1024"]
    servers = {"beaker": [args.beaker, *serve]}
    if args.compare:
        servers["compare"] = [args.compare, *serve]
    servers["reference"] = [sys.executable, os.path.join(HERE, "peers", "echo_server.py")]
    rates = {name: [] for name in servers}
    for r in range(args.rounds):
        for name, command in servers.items():
            rate, answers, got = one_round(command, data, args.calls)
            check(answers, args.calls, name)
            rates[name].append(rate)
    ref = statistics.median(rates["reference"])
    print(f"{args.calls} pipelined calculator calls, {args.rounds} alternating rounds, {os.cpu_count()} cores")
    for name, command in servers.items():
        med = statistics.median(rates[name])
        each = ", ".join(f"{x:,.0f}" for x in rates[name])
        print(f"  {name:9} {med:>9,.0f} calls/s (median; rounds {each}), ratio to reference {med / ref:.2f}  [{' '.join(command)}]")
    ratio = statistics.median(rates["beaker"]) / ref
    if args.min_ratio is not None and ratio < args.min_ratio:
        sys.exit(f"beaker's ratio to the reference is {ratio:.2f}, below {args.min_ratio}")


if __name__ == "__main__":
    main()
