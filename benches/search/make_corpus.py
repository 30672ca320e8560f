"""Writes a large corpus of real text for web_search's speed measurements (docs/PERFORMANCE.md), and the query
scenario that goes with it.

The text is Debian's Python 3.11 and git documentation (python3.11-doc, git-doc), every passage of it, as
tests/data/gen/web_search_corpus.py cuts it (27,782 passages without combining marks, 1.6M words). A corpus of N passages is N windows of
65 words (the shipped corpus's average) at pseudo-random places in that text (seed 41), each titled and linked as
the passage it starts in. So it is real text with the word statistics of technical documentation; the same words
recur across passages far more than in Wikipedia (a vocabulary of tens of thousands, not millions), so each query
word's postings are longer than in wiki-18 of the same size: a pessimistic corpus for query time.

    apt-get install -y python3.11-doc git-doc
    python3 benches/search/make_corpus.py --passages 1000000 --out ~/.cache/beaker/bench-search/corpus.jsonl.gz
"""

import argparse
import gzip
import json
import os
import random
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "data", "gen"))
import web_search_corpus as shipped  # noqa: E402

WORDS = 65


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passages", type=int, default=1_000_000)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    words, owner, sources = [], [], []
    for doc, title, text, url in list(shipped.python_docs()) + list(shipped.git_docs()):
        # Combining marks (a few Telugu examples in the Unicode HOWTO) are word characters to web_search's
        # analyzer when Unicode calls them Alphabetic, which Python cannot tell: the peer's bm25s would split
        # those words differently, so those passages are left out.
        if any(unicodedata.category(c)[0] == "M" for c in title + text):
            continue
        sources.append((title, url))
        for w in text.split():
            words.append(w)
            owner.append(len(sources) - 1)
    rng = random.Random(41)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with gzip.open(args.out, "wt", encoding="utf-8", compresslevel=1) as out:
        for i in range(args.passages):
            start = rng.randrange(0, len(words) - WORDS)
            title, url = sources[owner[start]]
            text = " ".join(words[start:start + WORDS])
            out.write(json.dumps({"id": str(i), "title": title, "text": text, "url": url}, ensure_ascii=False) + "\n")
    print(f"{args.out}: {args.passages} passages from {len(sources)} source passages ({len(words)} words)")


if __name__ == "__main__":
    main()
