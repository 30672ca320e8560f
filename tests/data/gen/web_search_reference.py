"""Writes tests/data/web_search/bm25_reference.jsonl: the top 10 passages of 240 queries over the shipped corpus
(tests/data/web_search/corpus.jsonl.gz, 10,600 passages), scored by bm25s, an independent BM25 implementation.

bm25s 0.3.16 (PyPI), method="lucene" (idf = ln(1 + (N - n + 0.5)/(n + 0.5)), tf / (tf + k1 (1 - b + b dl/avgdl))),
float64, k1 = 0.9 and b = 0.4 (Lucene's and pyserini's defaults, what Search-R1's BM25 retriever uses), and
also k1 = 1.2, b = 0.75 for a quarter of the queries (so a parameter that is ignored shows).

The tokenizer is written here from its definition, not taken from Beaker: split at every character that is not
alphanumeric (Unicode Alphabetic, or a number: categories Nd, Nl, No), then lower-case character by character.
What is indexed is the passage's title, a newline, then its text (Search-R1's `contents`).

Queries are real text: 120 section titles of the corpus and 120 runs of 3 to 8 consecutive words from its
passages, picked with a fixed seed; scores are compared by tests/all/web_search.rs within 1e-9 relative (both
sides compute in float64; the tolerance the issue allows is 1e-5), ranks exactly (equal scores ordered by id).

    python3 -m venv /tmp/ref && /tmp/ref/bin/pip install bm25s==0.3.16 numpy scipy
    /tmp/ref/bin/python tests/data/gen/web_search_reference.py
"""

import gzip
import json
import os
import random
import unicodedata

import bm25s
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "web_search", "corpus.jsonl.gz")
OUT = os.path.join(ROOT, "web_search", "bm25_reference.jsonl")
TOP = 10


def alphanumeric(c):
    # Rust's char::is_alphanumeric: the Alphabetic property or a number. Alphabetic is the letters, Nl, and
    # Other_Alphabetic (combining vowel signs and the like); the corpus's characters are checked below to be
    # only letters, numbers, marks that are not Other_Alphabetic, and symbols, where the categories decide.
    return unicodedata.category(c)[0] in "LN"


def tokenize(text):
    tokens, current = [], []
    for c in text:
        if alphanumeric(c):
            current.append(c.lower())
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    return tokens


def main():
    with gzip.open(CORPUS, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    marks = sorted({c for r in rows for c in r["title"] + r["text"] if unicodedata.category(c)[0] == "M"})
    assert not marks, f"combining marks need Other_Alphabetic to tokenize as Rust does: {marks}"
    ids = [r["id"] for r in rows]
    corpus = [tokenize(r["title"] + "\n" + r["text"]) for r in rows]

    rng = random.Random(41)
    queries = []
    titles = sorted({r["title"] for r in rows})
    for t in rng.sample(titles, 120):
        queries.append(t)
    for r in rng.sample(rows, 120):
        words = r["text"].split()
        n = rng.randint(3, 8)
        start = rng.randint(0, max(0, len(words) - n))
        queries.append(" ".join(words[start:start + n]))

    retrievers = {}
    for k1, b in ((0.9, 0.4), (1.2, 0.75)):
        r = bm25s.BM25(method="lucene", k1=k1, b=b, dtype="float64")
        r.index(corpus, show_progress=False)
        retrievers[(k1, b)] = r

    with open(OUT, "w", encoding="utf-8") as out:
        for i, q in enumerate(queries):
            k1, b = (1.2, 0.75) if i % 4 == 3 else (0.9, 0.4)
            r = retrievers[(k1, b)]
            tokens = [t for t in tokenize(q) if t in r.vocab_dict]
            if not tokens:
                continue
            scores = np.asarray(r.get_scores(tokens), dtype=np.float64)
            matched = np.flatnonzero(scores > 0)
            order = sorted(matched, key=lambda d: (-scores[d], ids[d]))[:TOP]
            top = [{"id": ids[d], "score": float(scores[d])} for d in order]
            out.write(json.dumps({"query": q, "k1": k1, "b": b, "top": top},
                                 ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(queries)} queries over {len(rows)} passages")


if __name__ == "__main__":
    main()
