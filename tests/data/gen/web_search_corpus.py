"""Writes tests/data/web_search/corpus.jsonl.gz: the real-text corpus web_search is tested (and shipped) with.

The passages come from two Debian packages' documentation sources, so the text is real prose and code that a
registry ships, not invented filler:
  * python3.11-doc (3.11.2-6+deb12u9): the reStructuredText sources of the Python documentation,
    /usr/share/doc/python3.11/html/_sources/**/*.rst.txt, url https://docs.python.org/3.11/PATH.html
  * git-doc (1:2.39.5-0+deb12u3): git's AsciiDoc manual sources, /usr/share/doc/git-doc/*.txt,
    url https://git-scm.com/docs/NAME

Each document is split at its headings; a section's paragraphs are joined into passages of 40 to 100 words (the
shape of Search-R1's wiki-18 passages, which are 100 words). Every passage is {"id", "title", "text", "url"}:
title is the section's heading (the document's title for text before its first heading). A deterministic sample
(every k-th passage of each source) keeps the file near 10,500 passages.

    apt-get install -y python3.11-doc git-doc && python3 tests/data/gen/web_search_corpus.py
"""

import gzip
import io
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "web_search", "corpus.jsonl.gz")
PYTHON_DOCS = "/usr/share/doc/python3.11/html/_sources"
GIT_DOCS = "/usr/share/doc/git-doc"
TARGET = {"python": 8000, "git": 2600}
MIN_WORDS, MAX_WORDS = 40, 100

UNDERLINE = re.compile(r'^([=\-~^"\'`#*+.:_])\1{2,}\s*$')
ROLE = re.compile(r":[a-zA-Z]+(?::[a-zA-Z]+)*:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`")
LITERAL = re.compile(r"``([^`]+)``")
ASCIIDOC_LINK = re.compile(r"(?:link|linkgit):([^\[\s]+)\[([^\]]*)\]")


def clean(line):
    line = ROLE.sub(r"\1", line)
    line = LITERAL.sub(r"\1", line)
    line = ASCIIDOC_LINK.sub(lambda m: m.group(2) or m.group(1), line)
    return line.strip()


def sections(lines):
    """(heading, [paragraph, ...]) in document order; headings are lines underlined by a run of punctuation."""
    title, paragraphs, current = None, [], []
    out = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\n")
        nxt = lines[i + 1].rstrip("\n") if i + 1 < len(lines) else ""
        if UNDERLINE.match(line):  # an overline, or a stray rule
            i += 1
            continue
        if line.strip() and UNDERLINE.match(nxt) and len(nxt.strip()) >= len(line.strip()) - 1:
            if current:
                paragraphs.append(" ".join(current))
                current = []
            if paragraphs:
                out.append((title, paragraphs))
            title, paragraphs = clean(line), []
            i += 2
            continue
        stripped = line.strip()
        if not stripped:
            if current:
                paragraphs.append(" ".join(current))
                current = []
        elif stripped.startswith(".. ") or stripped.startswith("//") or stripped in ("::", "----", "...."):
            pass
        else:
            text = clean(stripped)
            if text:
                current.append(text)
        i += 1
    if current:
        paragraphs.append(" ".join(current))
    if paragraphs:
        out.append((title, paragraphs))
    return out


def passages(doc_title, secs):
    for heading, paragraphs in secs:
        title = heading or doc_title
        words = []
        for p in paragraphs:
            words.extend(p.split())
            while len(words) >= MAX_WORDS:
                yield title, " ".join(words[:MAX_WORDS])
                words = words[MAX_WORDS:]
            if len(words) >= MIN_WORDS:
                yield title, " ".join(words)
                words = []
        if len(words) >= MIN_WORDS // 2:
            yield title, " ".join(words)


def python_docs():
    for dirpath, dirnames, filenames in os.walk(PYTHON_DOCS):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".rst.txt"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, PYTHON_DOCS)[: -len(".rst.txt")]
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
            secs = sections(lines)
            doc_title = secs[0][0] if secs and secs[0][0] else rel
            url = f"https://docs.python.org/3.11/{rel}.html"
            for title, text in passages(doc_title, secs):
                yield rel, title, text, url


def git_docs():
    for name in sorted(os.listdir(GIT_DOCS)):
        if not name.endswith(".txt"):
            continue
        with open(os.path.join(GIT_DOCS, name), encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
        stem = name[: -len(".txt")]
        secs = sections(lines)
        url = f"https://git-scm.com/docs/{stem}"
        for title, text in passages(stem, secs):
            yield "git/" + stem, title, text, url


def sample(rows, target):
    rows = list(rows)
    step = max(1, len(rows) // target)
    return rows[::step][:target], len(rows)


def main():
    for d in (PYTHON_DOCS, GIT_DOCS):
        if not os.path.isdir(d):
            sys.exit(f"{d} is missing: apt-get install -y python3.11-doc git-doc")
    py, py_all = sample(python_docs(), TARGET["python"])
    git, git_all = sample(git_docs(), TARGET["git"])
    buf = io.BytesIO()
    # mtime=0 and no file name: the same sources give the same bytes.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        for n, (doc, title, text, url) in enumerate(py + git):
            row = {"id": str(n), "title": title, "text": text, "url": url}
            gz.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as f:
        f.write(buf.getvalue())
    print(f"{OUT}: {len(py)} of {py_all} Python passages, {len(git)} of {git_all} git passages, "
          f"{len(buf.getvalue())} bytes")


if __name__ == "__main__":
    main()
