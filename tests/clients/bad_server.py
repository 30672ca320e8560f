"""A JSON Lines "server" that breaks the protocol in one chosen way, for `beaker bench`'s checks.

    python3 bad_server.py twice    # answers every request twice
    python3 bad_server.py silent   # reads requests and never answers
    python3 bad_server.py garbage  # answers with a line that is not JSON
    python3 bad_server.py wrong    # answers every request once, well formed, with the value 57
    python3 bad_server.py flaky    # as `wrong`, but every fifth answer is a failure
"""
import json
import sys

mode = sys.argv[1]
for line in sys.stdin:
    if mode == "silent":
        continue
    if mode == "garbage":
        print("not json", flush=True)
        continue
    rid = json.loads(line)["id"]
    if mode == "flaky" and rid % 5 == 4:
        print(json.dumps({"id": rid, "success": False, "error": "busy", "error_kind": "internal"}), flush=True)
        continue
    if mode in ("wrong", "flaky"):
        print(json.dumps({"id": rid, "success": True, "result": {"value": "57", "exact": True}}), flush=True)
        continue
    for _ in range(2):
        print(json.dumps({"id": rid, "success": True, "result": None}), flush=True)
