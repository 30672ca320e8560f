"""Search-R1's rollout loop, with Beaker as its retrieval server: `beaker serve --http` answers `POST /retrieve`
as Search-R1's `retrieval_server.py` does, so the loop below is the one Search-R1 and verl's `SearchTool` run,
pointed at another URL.

What it shows, turn by turn, for a batch of trajectories (as Search-R1's `LLMGenerationManager` does):
- the model's output is cut after its first `</search>` or `</answer>`;
- every active trajectory's `<search>QUERY</search>` goes into ONE request, Search-R1's exact body
  `{"queries": [...], "topk": 3, "return_scores": true}`, posted with `requests` to `/retrieve`;
- each query's documents are formatted as Search-R1 formats them (`Doc 1(Title: ...) text`, the title being the
  first line of `contents`) and appended as `<information>...</information>`;
- an `<answer>` ends the trajectory, rewarded 1.0 when it matches a golden answer after Search-R1's
  normalisation (lower case, no punctuation or articles), else 0.0.

The model's outputs are replayed from tests/data/examples/search_r1_rollout.policy.jsonl; the searches run over
Beaker's built-in `docs` index (Python's and git's documentation). Needs `requests` (pip install requests):

    python examples/search_r1_rollout.py --beaker target/release/beaker      # starts `beaker serve --http`
    python examples/search_r1_rollout.py --url http://127.0.0.1:8000/retrieve   # any Search-R1 server
"""

import argparse
import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import requests

RECORDING = Path(__file__).resolve().parent.parent / "tests" / "data" / "examples" / "search_r1_rollout.policy.jsonl"
TOPK = 3


def start_beaker(binary):
    """`beaker serve --http` on a free port; returns the process and its /retrieve URL."""
    proc = subprocess.Popen([binary, "serve", "--http", "127.0.0.1:0", "--no-python"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if found:
            return proc, f"http://127.0.0.1:{found.group(1)}/retrieve"
    raise SystemExit("beaker serve --http exited before listening")


def postprocess(response):
    """Search-R1 keeps a turn's text up to its first complete action."""
    if "</search>" in response:
        return response.split("</search>")[0] + "</search>"
    if "</answer>" in response:
        return response.split("</answer>")[0] + "</answer>"
    return response


def action(response):
    found = re.search(r"<(search|answer)>(.*?)</\1>", response, re.DOTALL)
    return (found.group(1), found.group(2).strip()) if found else (None, "")


def batch_search(url, queries):
    payload = {"queries": queries, "topk": TOPK, "return_scores": True}
    response = requests.post(url, json=payload, timeout=30)
    response.raise_for_status()
    return response.json()["result"]


def passages2string(retrieval_result):
    reference = ""
    for idx, doc_item in enumerate(retrieval_result):
        content = doc_item["document"]["contents"]
        title = content.split("\n")[0]
        text = "\n".join(content.split("\n")[1:])
        reference += f"Doc {idx + 1}(Title: {title}) {text}\n"
    return reference


def normalize_answer(s):
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beaker", default=os.environ.get("BEAKER_BIN", "beaker"), help="the beaker binary")
    ap.add_argument("--url", help="a running retrieval server's /retrieve (default: start beaker serve --http)")
    args = ap.parse_args()
    proc = None
    url = args.url
    if url is None:
        proc, url = start_beaker(args.beaker)
    try:
        episodes = [json.loads(line) for line in RECORDING.read_text().splitlines() if line.strip()]
        active = {i: 0 for i in range(len(episodes))}  # trajectory -> its next turn
        out = sys.stdout
        while active:
            searching = []
            for i, turn in sorted(active.items()):
                response = postprocess(episodes[i]["turns"][turn])
                kind, content = action(response)
                if kind == "answer":
                    golden = {normalize_answer(g) for g in episodes[i]["golden_answers"]}
                    reward = 1.0 if normalize_answer(content) in golden else 0.0
                    print(json.dumps({"trajectory": i, "turn": turn, "answer": content, "reward": reward}), file=out)
                    del active[i]
                elif kind == "search":
                    searching.append((i, turn, content))
                else:
                    print(json.dumps({"trajectory": i, "turn": turn, "invalid_action": True}), file=out)
                    del active[i]
            if not searching:
                continue
            results = batch_search(url, [q for _, _, q in searching])
            for (i, turn, query), result in zip(searching, results):
                observation = f"\n\n<information>{passages2string(result).strip()}</information>\n\n"
                scores = [round(d["score"], 6) for d in result]
                print(json.dumps({"trajectory": i, "turn": turn, "search": query, "scores": scores,
                                  "observation": observation}, ensure_ascii=False), file=out)
                active[i] = turn + 1
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
