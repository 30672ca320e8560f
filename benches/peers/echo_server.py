"""The in-run reference for `benches/pipelined.py`: the least a JSON Lines tool server can do per call.

It reads each request line, parses it with the standard library's `json`, and answers with a fixed success
envelope under the request's id, flushing once per line. No tool runs. Its speed is the speed of the
machine at that moment (one Python thread parsing and writing JSON), so Beaker's throughput divided by its
throughput in the same run is a figure the machine's load cancels out of: a change in the ratio is a change
in Beaker (docs/PERFORMANCE.md, "Pipelined throughput").
"""
import json
import sys


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        answer = {"id": request.get("id"), "success": True, "result": {"value": "56"}}
        out.write(json.dumps(answer).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
