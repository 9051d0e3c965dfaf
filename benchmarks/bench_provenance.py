"""Benchmark of citelens.provenance (issue 12).

The parent writes two corpora once (untimed), then runs each scenario in a fresh child process
(``_common.run_child``: median of 3 runs, that process's own peak RSS):

  engine       ``run_provenance`` on --edges citation edges (default 1,000,000) over --edges/10
               sources of about 5 kB (10 sources per document), 95 % exact, the rest relocated,
               normalized or absent; Parquet in, the result table in memory.
               Targets: <= 10 s, <= 2 GB.
  streamed     ``write_provenance_corpus`` on the same corpus, what ``citelens provenance``
               runs: checked and written to Parquet batch by batch (memory follows the batch).
               Targets: <= 10 s, <= 2 GB.
  loop         the plain-Python check the issue compares against, over the same edges: for
               each (text, quote, cited start), ``text[start:start + len(quote)] == quote or
               text.find(quote) >= 0``; the edges are Python tuples already joined in memory
               (building them is setup, untimed). Target: engine >= 10x faster.
  loop-statuses  a plain-Python loop doing the check's work per edge, over the same edges
               joined in memory (untimed setup): exact at the offsets, else at the offsets read
               as UTF-8 bytes or UTF-16 units, else ``str.find`` in the cited source
               (relocated), else in the document's other sources (misattributed), else after
               NFKC, case folding and whitespace collapsing (normalized); no fuzzy step.
  loop-e2e     the same loop with what a plain-Python tool must also do to get those tuples
               from the same Parquet files: read them (pyarrow ``to_pylist``) and join each
               edge to its source text through a dict.
  fuzzy        ``run_provenance`` on --fuzzy-quotes non-exact quotes (default 10,000), each a
               1-character edit of a 100-character span of a 5 kB source; target <= 5 s.

Usage: .venv/bin/python benchmarks/bench_provenance.py [--edges N] [--fuzzy-quotes N]
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
import pyarrow.parquet as pq

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _common import child_main, is_child, print_table, run_child
from citelens.provenance import run_provenance, write_provenance_corpus

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


def _loop(edges: list[tuple[str, str, int]]) -> int:
    found = 0
    for text, quote, start in edges:  # the hand-rolled check the issue compares against
        if text[start : start + len(quote)] == quote or text.find(quote) >= 0:
            found += 1
    return found


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _status_loop(edges: list[tuple[dict[str, str], str, str, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for sources, source_id, quote, start in edges:  # the same work, one edge at a time
        text = sources[source_id]
        end = start + len(quote)
        if text[start:end] == quote:
            status = "exact"
        elif text.encode("utf-8")[start : start + len(quote.encode("utf-8"))] == quote.encode(
            "utf-8"
        ) or text.encode("utf-16-le")[2 * start : 2 * start + 2 * len(quote)] == quote.encode(
            "utf-16-le"
        ):
            status = "offset_unit"
        elif text.find(quote) >= 0:
            status = "relocated"
        elif any(quote in other for sid, other in sources.items() if sid != source_id):
            status = "misattributed"
        elif _norm(quote) in _norm(text):
            status = "normalized"
        else:
            status = "absent"
        counts[status] = counts.get(status, 0) + 1
    return counts


def _document_edges(folder: pathlib.Path) -> list[tuple[dict[str, str], str, str, int]]:
    """The edges as (the document's sources by id, cited source id, quote, cited start)."""
    by_document: dict[str, dict[str, str]] = {}
    for row in pq.read_table(folder / "sources.parquet").to_pylist():
        by_document.setdefault(row["document_ref"], {})[row["source_id"]] = row["text"]
    evidence = pq.read_table(folder / "evidence.parquet").to_pylist()
    by_id = {(row["document_ref"], row["evidence_id"]): row for row in evidence}
    edges = []
    for edge in pq.read_table(folder / "citations.parquet").to_pylist():
        row = by_id[(edge["document_ref"], edge["evidence_id"])]
        sources = by_document[row["document_ref"]]
        edges.append((sources, row["source_id"], row["quote"], row["start"]))
    return edges


def _tuples(folder: pathlib.Path) -> list[tuple[str, str, int]]:
    """The edges of the corpus as (source text, quote, cited start), joined in Python."""
    sources = pq.read_table(folder / "sources.parquet").to_pylist()
    text = {(row["document_ref"], row["source_id"]): row["text"] for row in sources}
    evidence = pq.read_table(folder / "evidence.parquet").to_pylist()
    by_id = {(row["document_ref"], row["evidence_id"]): row for row in evidence}
    edges = []
    for edge in pq.read_table(folder / "citations.parquet").to_pylist():
        row = by_id[(edge["document_ref"], edge["evidence_id"])]
        edges.append((text[(row["document_ref"], row["source_id"])], row["quote"], row["start"]))
    return edges


def _folder(argv: Sequence[str]) -> pathlib.Path:
    return pathlib.Path(argv[argv.index("--corpus") + 1])


def _setup_engine(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    folder = _folder(argv)

    def run() -> object:
        result = run_provenance(folder, pseudonym_key=KEY)
        extra["counts"] = result.summary["totals"]["counts"]
        return result

    return run


def _setup_streamed(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    folder = _folder(argv)
    out = folder.parent / f"{folder.name}-out"

    def run() -> object:
        summary = write_provenance_corpus(folder, out, pseudonym_key=KEY)
        extra["counts"] = summary["totals"]["counts"]
        return summary

    return run


def _setup_loop(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    edges = _tuples(_folder(argv))  # untimed: the loop alone is measured
    return lambda: _loop(edges)


def _setup_status_loop(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    edges = _document_edges(_folder(argv))  # untimed: the loop alone is measured

    def run() -> object:
        extra["counts"] = _status_loop(edges)
        return extra["counts"]

    return run


def _setup_loop_e2e(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    folder = _folder(argv)
    return lambda: _loop(_tuples(folder))


def _setup_write(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    """Write a corpus (in a child process of its own, so that the parent stays small: Linux
    carries a process's peak RSS across ``exec`` into the children it starts)."""
    edges = int(argv[argv.index("--edges") + 1])
    _corpus(_folder(argv), edges, fuzzy="--fuzzy" in argv)
    return lambda: None


SCENARIOS = {
    "write": _setup_write,
    "engine": _setup_engine,
    "streamed": _setup_streamed,
    "fuzzy": _setup_engine,
    "loop": _setup_loop,
    "loop-e2e": _setup_loop_e2e,
    "loop-statuses": _setup_status_loop,
}


def main() -> None:
    """Write the corpora, run every scenario in its own process, print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--fuzzy-quotes", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="citelens-bench-provenance-") as folder:
        root = pathlib.Path(folder)
        (root / "main").mkdir()
        (root / "fuzzy").mkdir()
        for corpus, edges, fuzzy in (
            ("main", args.edges, []),
            ("fuzzy", args.fuzzy_quotes, ["--fuzzy"]),
        ):
            written = run_child(
                __file__,
                "write",
                runs=1,
                args=["--corpus", str(root / corpus), "--edges", str(edges), *fuzzy],
            )
            if "error" in written:
                raise SystemExit(f"could not write the {corpus} corpus: {written['error']}")
        rows = []
        for name, corpus in (
            ("engine", "main"),
            ("streamed", "main"),
            ("loop", "main"),
            ("loop-e2e", "main"),
            ("loop-statuses", "main"),
            ("fuzzy", "fuzzy"),
        ):
            rows.append(run_child(__file__, name, runs=3, args=["--corpus", str(root / corpus)]))
    by_name = {row["scenario"]: row for row in rows}
    engine = by_name["engine"]
    for row in rows:
        if "error" in row:
            continue
        if row["scenario"] in ("loop", "loop-e2e", "loop-statuses") and "median_s" in engine:
            row["ratio"] = f"engine {row['median_s'] / engine['median_s']:.2f}x faster"
        row["counts"] = row.get("extra", {}).get("counts", "-")
    engine["target"] = "<= 10 s, <= 2048 MiB"
    by_name["streamed"]["target"] = "<= 10 s, <= 2048 MiB"
    by_name["fuzzy"]["target"] = "<= 5 s"
    by_name["loop"]["target"] = "engine >= 10x faster"
    print_table(
        rows,
        title=f"provenance: {args.edges:,} edges, fuzzy {args.fuzzy_quotes:,} quotes",
        columns=(
            ("scenario", "scenario"),
            ("median_s", "median s"),
            ("cpu_median_s", "CPU s"),
            ("peak_rss_mb", "peak RSS MiB"),
            ("load_avg", "load"),
            ("ratio", "vs engine"),
            ("target", "target"),
            ("counts", "statuses"),
            ("error", "error"),
        ),
    )


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
