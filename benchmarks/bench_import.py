"""Benchmark of ``citelens import anthropic`` (issue 12): 100,000 Messages API exchanges.

Each exchange is a request with two text documents of about 2 kB and a response of four
text blocks, two of them with ``char_location`` citations (three citations in all), shaped as
``data-samples/importers/anthropic.jsonl``. The parent writes the JSON Lines file once
(untimed); a fresh child process per scenario times (median of 3, that process's peak RSS):

* ``streamed``: ``import_corpus``, what ``citelens import`` runs (converted and written batch
  by batch as the file is read);
* ``whole``: ``import_exchanges`` + ``write_corpus`` (the whole tables in memory, then
  written).

Target: <= 10 s.

Usage: .venv/bin/python benchmarks/bench_import.py [--exchanges N]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _common import child_main, is_child, print_table, run_child
from citelens.importers import import_corpus, import_exchanges, write_corpus

WORDS = ["dose", "patient", "trial", "arm", "placebo", "week", "outcome", "rate", "café", "Zürich"]


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        words.append(rng.choice(WORDS) + str(rng.randrange(100)))
        length += len(words[-1]) + 1
    return " ".join(words)[:size]


def _exchange(rng: random.Random) -> str:
    docs = [_text(rng, 2000) for _ in range(2)]

    def cite(doc: int) -> dict[str, Any]:
        start = rng.randrange(1800)
        return {
            "type": "char_location",
            "document_index": doc,
            "start_char_index": start,
            "end_char_index": start + 120,
            "cited_text": docs[doc][start : start + 120],
        }

    request = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [
            {
                "role": "user",
                "content": [
                    *(
                        {
                            "type": "document",
                            "source": {"type": "text", "media_type": "text/plain", "data": d},
                        }
                        for d in docs
                    ),
                    {"type": "text", "text": "What do the documents say?"},
                ],
            }
        ],
    }
    response = {
        "id": f"msg_{rng.randrange(10**12)}",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "In short: "},
            {"type": "text", "text": "the first finding", "citations": [cite(0)]},
            {"type": "text", "text": ", and "},
            {"type": "text", "text": "the second finding.", "citations": [cite(1), cite(0)]},
        ],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1000, "output_tokens": 50},
    }
    return json.dumps({"request": request, "response": response}, ensure_ascii=False)


def _streamed(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    source = pathlib.Path(argv[argv.index("--input") + 1])
    out = source.parent / "out"

    def run() -> object:
        shutil.rmtree(out, ignore_errors=True)
        summary = import_corpus("anthropic", source, out)
        extra["rows"] = dict(summary.rows)
        return summary

    return run


def _whole(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    source = pathlib.Path(argv[argv.index("--input") + 1])
    out = source.parent / "out"

    def run() -> object:
        shutil.rmtree(out, ignore_errors=True)
        tables = import_exchanges("anthropic", source)
        write_corpus(tables, out)
        extra["rows"] = {role: frame.height for role, frame in tables.tables().items()}
        return tables

    return run


def main() -> None:
    """Write the input, time the import in a fresh process, print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exchanges", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="citelens-bench-import-") as folder:
        source = pathlib.Path(folder) / "exchanges.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for _ in range(args.exchanges):
                handle.write(_exchange(rng) + "\n")
        size_mb = source.stat().st_size / 2**20
        rows = [
            run_child(__file__, scenario, runs=3, args=["--input", str(source)])
            for scenario in ("streamed", "whole")
        ]
    for row in rows:
        row["target"] = "<= 10 s"
        row["input"] = f"{args.exchanges:,} exchanges, {size_mb:.0f} MiB"
        row["rows"] = row.get("extra", {}).get("rows", "-")
    print_table(
        rows,
        title="import anthropic",
        columns=(
            ("scenario", "scenario"),
            ("input", "input"),
            ("median_s", "median s"),
            ("cpu_median_s", "CPU s"),
            ("peak_rss_mb", "peak RSS MiB"),
            ("load_avg", "load"),
            ("target", "target"),
            ("rows", "rows"),
            ("error", "error"),
        ),
    )


if __name__ == "__main__":
    if is_child():
        child_main({"streamed": _streamed, "whole": _whole})
    main()
