"""Builds the bm25s index the Python peer's web_search searches (benches/peers/python_server.py), from the same
corpus file `beaker index build` reads, and saves it with its corpus for memory-mapped loading; prints the time
and the peak memory it took. Tokens as web_search's analyzer makes them; bm25s's `lucene` method in float64 with
k1 = 0.9, b = 0.4, as web_search's defaults.

    ~/.cache/beaker/peers/bin/python benches/search/bm25s_index.py CORPUS.jsonl.gz OUT_DIR
"""

import gzip
import json
import resource
import sys
import time

import bm25s

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/benches/peers")
from python_server import _words  # noqa: E402


def main():
    corpus_path, out = sys.argv[1], sys.argv[2]
    t = time.perf_counter()
    opener = gzip.open if corpus_path.endswith(".gz") else open
    docs, tokens = [], []
    with opener(corpus_path, "rt", encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "contents" in row:
                first, _, rest = row["contents"].partition("\n")
                row = {"id": str(row["id"]), "title": first.strip('"'), "text": rest}
            docs.append({"id": str(row["id"]), "title": row.get("title", ""), "url": row.get("url")})
            tokens.append(_words(row.get("title", "") + "\n" + row["text"]))
    read = time.perf_counter() - t
    r = bm25s.BM25(method="lucene", k1=0.9, b=0.4, dtype="float64")
    r.index(tokens, show_progress=False)
    del tokens
    r.save(out, corpus=docs)
    total = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"bm25s: {len(docs)} passages, {total:.1f} s ({read:.1f} s reading and tokenizing), peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
