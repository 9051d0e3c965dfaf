"""Corpus benchmark for JSON Lines inputs: the corpus of ``bench_corpus.py`` as ``.jsonl``.

JSONL corpus inputs are staged once into temporary Parquet files, block by block, so that
peak memory follows the batch (and the staging block), not the size of the files. This script
writes the Parquet corpus of ``bench_corpus.py`` (``benchmarks/.data/corpus-<edges>/``) as
JSON Lines with Polars ``write_ndjson`` into a temporary directory (or ``--jsonl-dir``) and
times ``write_support_corpus`` over it, each scenario in a fresh child process (peak RSS is
that child's, imports included):

* ``jsonl``: ``write_support_corpus(<four .jsonl files>, out_dir=tmp)``;
* ``parquet``: the same corpus from its Parquet files, for comparison.

``--src DIR`` puts ``DIR`` first on the children's ``PYTHONPATH``, to measure another
checkout of ``src/`` (for example the tree before a change) with the same inputs.

    python benchmarks/bench_corpus_jsonl.py                      # 1M edges, median of 3
    python benchmarks/bench_corpus_jsonl.py --runs 1 --src /tmp/old/src
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import MEASURED_COLUMNS, child_main, is_child, print_table, run_child
from bench_corpus import ROLES, generate


def write_jsonl(edges: int, folder: Path) -> Path:
    """The Parquet corpus for ``edges`` as ``<role>.jsonl`` files in ``folder`` (cached)."""
    import polars as pl

    root = generate(edges)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ROLES:
        target = folder / f"{name}.jsonl"
        if not target.exists():
            pl.read_parquet(root / f"{name}.parquet").write_ndjson(target)
    return folder


def _setup(kind: str) -> Callable[[dict[str, Any], Sequence[str]], Callable[[], object]]:
    def setup(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
        from citelens.corpus import write_support_corpus

        edges, batch, folder = int(argv[-3]), int(argv[-2]), Path(argv[-1])
        if kind == "jsonl":
            inputs = [folder / f"{name}.jsonl" for name in ROLES]
        else:
            inputs = [generate(edges) / f"{name}.parquet" for name in ROLES]
        out = Path(tempfile.mkdtemp(prefix="citelens-bench-"))
        atexit.register(shutil.rmtree, out, True)
        options: dict[str, Any] = {}
        if batch > 0:
            options["batch_documents"] = batch

        def run() -> object:
            summary = write_support_corpus(*inputs, out_dir=out, **options)
            extra["documents"] = summary["document_count"]
            extra["edges"] = summary["citation_count"] + summary["duplicate_citation_count"]
            extra["input_mb"] = sum(p.stat().st_size for p in inputs) / (1024 * 1024)
            return summary

        return run

    return setup


SCENARIOS = {kind: _setup(kind) for kind in ("jsonl", "parquet")}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--edges", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--batch-documents", type=int, default=0, help="0: the library default (5,000)"
    )
    parser.add_argument("--jsonl-dir", type=Path, default=None, help="where the .jsonl go")
    parser.add_argument("--src", type=Path, default=None, help="import citelens from here")
    parser.add_argument("--no-parquet", action="store_true", help="skip the Parquet scenario")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per child")
    args = parser.parse_args()
    folder = args.jsonl_dir
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="citelens-jsonl-"))
        atexit.register(shutil.rmtree, folder, True)
    write_jsonl(args.edges, folder)  # untimed, outside the measured child
    env = dict(os.environ)
    if args.src is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(args.src.resolve())] + [p for p in [env.get("PYTHONPATH", "")] if p]
        )
    print(f"load average at start: {os.getloadavg()} ({os.cpu_count()} cores)")
    rows = []
    kinds = ["jsonl"] + ([] if args.no_parquet else ["parquet"])
    for kind in kinds:
        print(f"running {kind} at {args.edges:,} edges ({args.runs} runs) ...", flush=True)
        result = run_child(
            __file__,
            kind,
            runs=args.runs,
            args=[str(args.edges), str(args.batch_documents), str(folder)],
            timeout=args.timeout,
            env=env,
        )
        extra = result.get("extra", {})
        if "error" in result:
            result["verdict"] = f"failed: {result['error']}"
        else:
            result["scenario"] = (
                f"{kind}, {extra['documents']:,} documents, {extra['edges']:,} edges, "
                f"{extra['input_mb']:.0f} MiB input"
            )
        rows.append(result)
    print_table(
        rows,
        title="corpus support from JSON Lines (→ documents.parquet + summary)",
        columns=(
            *MEASURED_COLUMNS,
            ("verdict", "verdict"),
        ),
    )


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
