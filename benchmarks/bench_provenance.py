"""Benchmark of citelens.provenance (issue 12).

Scenarios, in one process:

  main   --edges citation edges (default 1,000,000) over --edges/10 sources of about 5 kB
         (10 sources per document), 95 % exact, the rest relocated, misattributed,
         normalized and absent quotes; median of 3 runs of ``run_provenance`` on the Parquet
         corpus, peak RSS, and a plain-Python ``str.find`` loop over the same edges (one run)
         with the ratio. Targets: <= 10 s, <= 2 GB, >= 10x the loop.
  fuzzy  --fuzzy-quotes non-exact quotes (default 10,000), each a 1-character edit of a
         100-character span of a 5 kB source; target <= 5 s.

Usage: .venv/bin/python benchmarks/bench_provenance.py [--edges N] [--fuzzy-quotes N]
"""

from __future__ import annotations

import argparse
import pathlib
import random
import resource
import statistics
import sys
import tempfile
import time

import polars as pl

from citelens.provenance import run_provenance

WORDS = [
    "patient",
    "admitted",
    "with",
    "acute",
    "chest",
    "pain",
    "treated",
    "discharged",
    "stable",
    "follow",
    "up",
]
KEY = b"b" * 32


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS) + str(rng.randrange(1000))
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def _corpus(folder: pathlib.Path, edges: int, fuzzy: bool = False) -> list[tuple[str, str, int]]:
    """Write the corpus; return (text, quote, start) per edge for the Python loop."""
    rng = random.Random(12)
    n_sources = max(edges // 10, 10)
    texts = [_text(rng, 5000) for _ in range(n_sources)]
    src_rows = {"document_ref": [], "source_id": [], "text": []}
    for i, text in enumerate(texts):
        src_rows["document_ref"].append(f"d{i // 10:07d}")
        src_rows["source_id"].append(f"s{i % 10}")
        src_rows["text"].append(text)
    ev = {k: [] for k in ("document_ref", "evidence_id", "source_id", "start", "end", "quote")}
    cit = {k: [] for k in ("document_ref", "claim_id", "evidence_id")}
    loop = []
    for e in range(edges):
        s = rng.randrange(n_sources)
        text = texts[s]
        start = rng.randrange(4800)
        quote = text[start : start + 100]
        kind = rng.random()
        cited = start
        if fuzzy:
            quote = quote[:50] + "#" + quote[51:]
        elif kind > 0.95:
            cited = (start + 7) % 4800  # relocated (or worse)
            if kind > 0.99:
                quote = quote.upper()  # normalized
        doc = f"d{s // 10:07d}"
        ev["document_ref"].append(doc)
        ev["evidence_id"].append(f"e{e}")
        ev["source_id"].append(f"s{s % 10}")
        ev["start"].append(cited)
        ev["end"].append(cited + len(quote))
        ev["quote"].append(quote)
        cit["document_ref"].append(doc)
        cit["claim_id"].append(f"c{e % 50}")
        cit["evidence_id"].append(f"e{e}")
        loop.append((text, quote, cited))
    pl.DataFrame(src_rows).sort("document_ref").write_parquet(folder / "sources.parquet")
    pl.DataFrame(ev).sort("document_ref").write_parquet(folder / "evidence.parquet")
    pl.DataFrame(cit).sort("document_ref").write_parquet(folder / "citations.parquet")
    return loop


def _python_loop(loop: list[tuple[str, str, int]]) -> float:
    began = time.perf_counter()
    found = 0
    for text, quote, start in loop:  # the hand-rolled check the issue compares against
        if text[start : start + len(quote)] == quote or text.find(quote) >= 0:
            found += 1
    return time.perf_counter() - began


def main() -> None:
    """Run the scenarios and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--fuzzy-quotes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="citelens-bench-provenance-") as folder:
        root = pathlib.Path(folder)
        (root / "main").mkdir()
        loop = _corpus(root / "main", args.edges)
        times = []
        for _ in range(3):
            began = time.perf_counter()
            result = run_provenance(root / "main", pseudonym_key=KEY)
            times.append(time.perf_counter() - began)
        median = statistics.median(times)
        python = _python_loop(loop)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        counts = result.summary["totals"]["counts"]
        print(
            f"main: {args.edges} edges median {median:.2f} s (target <= 10 s), peak RSS "
            f"{rss:.0f} MB (target <= 2048), python loop {python:.2f} s, ratio "
            f"{python / median:.1f}x (target >= 10x); {counts}"
        )
        (root / "fuzzy").mkdir()
        _corpus(root / "fuzzy", args.fuzzy_quotes, fuzzy=True)
        began = time.perf_counter()
        result = run_provenance(root / "fuzzy", pseudonym_key=KEY)
        took = time.perf_counter() - began
        print(
            f"fuzzy: {args.fuzzy_quotes} quotes {took:.2f} s (target <= 5 s); "
            f"{result.summary['totals']['counts']}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
