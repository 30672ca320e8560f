"""Writes large trace files for `beaker lint`'s throughput figure (docs/PERFORMANCE.md, "Trace lint").

    python3 benches/gen_traces.py DIR      # DIR/qa.txt (1,000,000 lines), DIR/conv.jsonl (200,000 lines)
    beaker lint --no-python --tools tests/data/traces/tools.json DIR/qa.txt DIR/conv.jsonl

The examples are the good fixtures of tests/data/traces/ repeated, with every 50th example broken (a
`User:` turn), so the linter reports as it would on a real file.
"""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
good = os.path.join(here, "..", "tests", "data", "traces", "good")
out = sys.argv[1] if len(sys.argv) > 1 else "."
os.makedirs(out, exist_ok=True)

text = open(os.path.join(good, "qa.txt"), encoding="utf-8").read()
header, body = text.split('"""\n\n', 1)
header += '"""\n\n'
examples = ["Q:" + e for e in body.split("\nQ:") if e.strip()]
examples[0] = examples[0][2:]
lines = header.count("\n")
with open(os.path.join(out, "qa.txt"), "w", encoding="utf-8") as f:
    f.write(header)
    i = 0
    while lines < 1_000_000:
        e = examples[i % len(examples)].rstrip("\n") + "\n\n"
        if i % 50 == 49:
            e = e.replace("Q:", "User:", 1)
        f.write(e)
        lines += e.count("\n")
        i += 1

conv = open(os.path.join(good, "conversation.jsonl"), encoding="utf-8").read().strip()
with open(os.path.join(out, "conv.jsonl"), "w", encoding="utf-8") as f:
    for i in range(200_000):
        f.write(conv.replace("conv_single_0000", f"conv_{i:07d}") + "\n")
print(f"{out}/qa.txt: {lines} lines; {out}/conv.jsonl: 200000 lines")
