"""Corpus benchmark: many documents from Parquet, end to end (read → evaluate → write).

Targets (issue 9): peak RSS at 10 M edges ≤ 1.5x the peak at 1 M edges with the same batch
size; ``--edges`` adds at most 300 MB at 10 M edges; 10 M edges / 100 k documents ≤ 20 s.
(Issue 5, earlier: 10 M edges in ≤ 30 s and ≤ 4 GB, scaling within 1.3x of linear.)

Each document has 20 claims citing 5 evidence spans each (100 claim-embedded edges), 40
evidence spans, 5 explicit citations and 30 adjudications; a few percent of the edges are
invalid (missing evidence, bad sub-spans). Inputs are generated with Polars expressions
(deterministic), written to ``benchmarks/.data/corpus-<edges>/`` sorted by ``document_ref``,
and reused across runs.

Scenarios (each in a fresh child process; peak RSS is that child's, imports included):

* ``stream``: ``write_support_corpus(..., out_dir=tmp)``, the CLI's streaming path
  (documents.parquet one row group per batch, then summary.json + summary.md);
* ``stream-edges``: the same with ``edges=True`` (edges.parquet streamed as well);
* ``in-memory``: the older ``run_support_corpus(...).write(tmp)``, which builds every output
  table in memory before writing (``--in-memory`` to include it).

The batch size is the library default (``--batch-documents`` to change it) and is the same
for every size, as the issue's memory target requires. Batches are evaluated two at a time,
one per core, as the library does by default (``--workers 1``: one after another).

    python benchmarks/bench_corpus.py                       # 1M and 10M edges, median of 3
    python benchmarks/bench_corpus.py --sizes 1000000 --runs 5 --in-memory
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

DATA = Path(__file__).resolve().parent / ".data"
CLAIMS_PER_DOC = 20
CITES_PER_CLAIM = 5
EVIDENCE_PER_DOC = 40
EXPLICIT_PER_DOC = 5
ADJUDICATIONS_PER_DOC = 30
EDGES_PER_DOC = CLAIMS_PER_DOC * CITES_PER_CLAIM + EXPLICIT_PER_DOC


def generate(edges: int) -> Path:
    """Write the corpus for about ``edges`` citation edges (cached)."""
    import polars as pl

    documents = max(1, edges // EDGES_PER_DOC)
    root = DATA / f"corpus-{edges}"
    if (root / "adjudications.parquet").exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    doc = pl.int_range(0, documents, eager=True, dtype=pl.Int64).alias("d")
    refs = pl.DataFrame({"d": doc}).with_columns(
        ("sha256:" + pl.col("d").hash(7).cast(pl.String).str.zfill(64)).alias("document_ref")
    )

    def per_doc(count: int) -> pl.DataFrame:
        return (
            refs.with_columns(pl.int_ranges(0, count).alias("i"))
            .explode("i")
            .with_columns(pl.col("i").cast(pl.Int64))
        )

    claims = per_doc(CLAIMS_PER_DOC).with_columns(
        ("claim-" + pl.col("i").cast(pl.String)).alias("claim_id"),
        (pl.col("i") * 40).alias("start"),
        (pl.col("i") * 40 + 35).alias("end"),
        pl.concat_list(
            [
                # every 50th citation points to evidence that does not exist
                pl.when(((pl.col("d") + pl.col("i") + k) % 50) == 0)
                .then(pl.lit("evidence-missing-") + pl.lit(str(k)))
                .otherwise(
                    "evidence-"
                    + ((pl.col("i") * 3 + k * 7 + pl.col("d")) % EVIDENCE_PER_DOC).cast(pl.String)
                )
                for k in range(CITES_PER_CLAIM)
            ]
        ).alias("citations"),
    )
    evidence = per_doc(EVIDENCE_PER_DOC).with_columns(
        ("evidence-" + pl.col("i").cast(pl.String)).alias("evidence_id"),
        (pl.col("i") * 100).alias("start"),
        (pl.col("i") * 100 + 60).alias("end"),
        pl.lit("sha256:" + "2" * 64).alias("source_id"),
        pl.lit(5_000).alias("source_length"),
    )
    citations = per_doc(EXPLICIT_PER_DOC).with_columns(
        ("claim-" + pl.col("i").cast(pl.String)).alias("claim_id"),
        ("evidence-" + (pl.col("i") * 2).cast(pl.String)).alias("evidence_id"),
        (pl.col("i") * 200 + 10).alias("start"),
        (pl.col("i") * 200 + pl.when(pl.col("i") == 4).then(90).otherwise(30)).alias("end"),
    )
    labels = pl.Series(["supports", "contradicts", "irrelevant", "unclear", "supports"])
    adjudications = per_doc(ADJUDICATIONS_PER_DOC).with_columns(
        ("claim-" + (pl.col("i") % CLAIMS_PER_DOC).cast(pl.String)).alias("claim_id"),
        (
            "evidence-"
            + ((pl.col("i") % CLAIMS_PER_DOC) * 3 + pl.col("d"))
            .mod(EVIDENCE_PER_DOC)
            .cast(pl.String)
        ).alias("evidence_id"),
        pl.col("i").mod(5).replace_strict(list(range(5)), labels.to_list()).alias("label"),
    )
    for name, frame in (
        ("claims", claims),
        ("evidence", evidence),
        ("citations", citations),
        ("adjudications", adjudications),
    ):
        frame.drop("d", "i").sort("document_ref").write_parquet(
            root / f"{name}.parquet", row_group_size=250_000
        )
    return root


def _corpus_setup(mode: str) -> Callable[[dict[str, Any], Sequence[str]], Callable[[], object]]:
    def setup(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
        import citelens.corpus._support_mode as support_mode
        from citelens.corpus import run_support_corpus, write_support_corpus

        edges, batch, workers = int(argv[-3]), int(argv[-2]), int(argv[-1])
        if workers > 0:
            support_mode.BATCH_WORKERS = workers
        root = generate(edges)
        out = Path(tempfile.mkdtemp(prefix="citelens-bench-"))
        atexit.register(shutil.rmtree, out, True)
        inputs = [root / f"{name}.parquet" for name in ROLES]
        options: dict[str, Any] = {}
        if batch > 0:
            options["batch_documents"] = batch

        def run() -> object:
            if mode == "in-memory":
                result = run_support_corpus(*inputs, **options)
                result.write(out)
                summary = result.summary
            else:
                summary = write_support_corpus(
                    *inputs, out_dir=out, edges=(mode == "stream-edges"), **options
                )
            extra["documents"] = summary["document_count"]
            extra["edges"] = summary["citation_count"] + summary["duplicate_citation_count"]
            extra["failed"] = summary["failed_document_count"]
            extra["out_mb"] = sum(f.stat().st_size for f in out.iterdir()) / (1024 * 1024)
            return summary

        return run

    return setup


ROLES = ("claims", "evidence", "citations", "adjudications")
MODES = ("stream", "stream-edges", "in-memory")
SCENARIOS = {mode: _corpus_setup(mode) for mode in MODES}
TARGET_TIME_S = 20.0  # 10 M edges / 100 k documents
TARGET_RSS_RATIO = 1.5  # RSS(10 M) / RSS(1 M), same batch size
TARGET_EDGES_MB = 300.0  # RSS(--edges) - RSS(no edges) at 10 M edges


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--large-runs", type=int, default=None, help="runs at the largest size (default --runs)"
    )
    parser.add_argument(
        "--batch-documents", type=int, default=0, help="0: the library default (5,000)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="batches evaluated at once (0: the library default, 2; 1: one after another)",
    )
    parser.add_argument("--no-edges", action="store_true", help="skip the edges=True scenario")
    parser.add_argument(
        "--in-memory", action="store_true", help="also time run_support_corpus(...).write()"
    )
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per child")
    args = parser.parse_args()
    modes = ["stream"] + ([] if args.no_edges else ["stream-edges"])
    modes += ["in-memory"] if args.in_memory else []
    sizes = sorted(args.sizes)
    batch = "library default" if args.batch_documents <= 0 else f"{args.batch_documents:,}"
    workers = "library default" if args.workers <= 0 else str(args.workers)
    print(
        f"load average at start: {os.getloadavg()} ({os.cpu_count()} cores); batch: {batch}; "
        f"workers: {workers}"
    )
    results: dict[tuple[str, int], dict[str, Any]] = {}
    rows = []
    for size in sizes:
        generate(size)  # untimed, outside the measured child
        runs = args.runs if size != sizes[-1] or args.large_runs is None else args.large_runs
        for mode in modes:
            print(f"running {mode} at {size:,} edges ({runs} runs) ...", flush=True)
            result = run_child(
                __file__,
                mode,
                runs=runs,
                args=[str(size), str(args.batch_documents), str(args.workers)],
                timeout=args.timeout,
            )
            extra = result.get("extra", {})
            docs = extra.get("documents")
            result["scenario"] = (
                f"{mode}, {docs:,} documents, {extra.get('edges', 0):,} edges"
                if docs is not None
                else f"{mode}, {size:,} edges"
            )
            if "error" in result:
                result["verdict"] = f"failed: {result['error']}"
            else:
                result["load"] = f"{result['load_avg']:.2f}"
                if size == 10_000_000 and mode != "in-memory":
                    result["target"] = f"≤ {TARGET_TIME_S:.0f} s"
                    wall_ok = result["median_s"] <= TARGET_TIME_S
                    cpu_ok = result["cpu_median_s"] <= TARGET_TIME_S
                    result["verdict"] = _verdict(wall_ok)
                    if wall_ok != cpu_ok:
                        result["verdict"] += f" (CPU: {_verdict(cpu_ok)})"
            results[(mode, size)] = result
            rows.append(result)
    print_table(
        rows,
        title="corpus support (Parquet → documents.parquet [+ edges.parquet] + summary)",
        columns=(
            *MEASURED_COLUMNS,
            ("load", "load avg"),
            ("target", "target"),
            ("verdict", "verdict"),
        ),
    )
    print(f"\nuptime load averages at the end: {os.getloadavg()}")
    ok = {k: r for k, r in results.items() if "error" not in r}
    small, large = sizes[0], sizes[-1]
    if small != large:
        scale = large / small
        for mode in modes:
            a, b = ok.get((mode, small)), ok.get((mode, large))
            if not (a and b):
                continue
            wall = (b["median_s"] / a["median_s"]) / scale
            cpu = (b["cpu_median_s"] / a["cpu_median_s"]) / scale
            ratio = b["peak_rss_mb"] / a["peak_rss_mb"]
            line = (
                f"{mode}: {small:,} → {large:,} edges: time {wall:.2f}x of linear (CPU "
                f"{cpu:.2f}x); peak RSS {b['peak_rss_mb']:.0f} / {a['peak_rss_mb']:.0f} MiB "
                f"= {ratio:.2f}x"
            )
            if mode != "in-memory" and (small, large) == (1_000_000, 10_000_000):
                line += f" (target ≤ {TARGET_RSS_RATIO}x: {_verdict(ratio <= TARGET_RSS_RATIO)})"
            print(line)
    for size in sizes:
        plain, with_edges = ok.get(("stream", size)), ok.get(("stream-edges", size))
        if plain and with_edges:
            added = with_edges["peak_rss_mb"] - plain["peak_rss_mb"]
            line = (
                f"--edges at {size:,} edges adds {added:.0f} MiB peak RSS "
                f"({with_edges['peak_rss_mb']:.0f} vs {plain['peak_rss_mb']:.0f} MiB) and "
                f"{with_edges['median_s'] - plain['median_s']:.2f} s"
            )
            if size == 10_000_000:
                line += f" (target ≤ {TARGET_EDGES_MB:.0f} MB: "
                line += f"{_verdict(added * 1.048576 <= TARGET_EDGES_MB)})"
            print(line)


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
