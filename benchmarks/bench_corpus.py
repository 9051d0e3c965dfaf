"""Corpus benchmark: many documents from Parquet, end to end (read → evaluate → write).

Targets (issue 5): 100,000 documents and 10,000,000 citation edges in ≤ 30 s and ≤ 4 GB peak
RSS on a 2-core machine, and scaling within 1.3x of linear from 1M to 10M edges.

Each document has 20 claims citing 5 evidence spans each (100 claim-embedded edges), 40
evidence spans, 5 explicit citations and 30 adjudications; a few percent of the edges are
invalid (missing evidence, bad sub-spans). Inputs are generated with Polars expressions
(deterministic), written to ``benchmarks/.data/corpus-<edges>/`` sorted by ``document_ref``,
and reused across runs.

    python benchmarks/bench_corpus.py                 # 1M and 10M edges, median of 3
    python benchmarks/bench_corpus.py --sizes 1000000 --runs 5
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import child_main, is_child, print_table, run_child

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


def setup_corpus(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from citelens.corpus import run_support_corpus

    edges = int(argv[-1])
    root = generate(edges)
    out = Path(tempfile.mkdtemp(prefix="citelens-bench-"))

    def run() -> object:
        result = run_support_corpus(
            root / "claims.parquet",
            root / "evidence.parquet",
            root / "citations.parquet",
            root / "adjudications.parquet",
        )
        result.write(out)
        extra["documents"] = result.summary["document_count"]
        extra["edges"] = (
            result.summary["citation_count"] + result.summary["duplicate_citation_count"]
        )
        extra["failed"] = result.summary["failed_document_count"]
        return result

    return run


SCENARIOS = {"corpus": setup_corpus}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results = []
    for size in args.sizes:
        generate(size)  # untimed, outside the measured child
        result = run_child(__file__, "corpus", runs=args.runs, args=[str(size)])
        result["scenario"] = f"corpus {size:,} edges"
        results.append(result)
    print_table(results, title="corpus support (Parquet → documents.parquet + summary)")
    if len(results) >= 2:
        small, large = results[0], results[-1]
        scale = args.sizes[-1] / args.sizes[0]
        ratio = (large["median_s"] / small["median_s"]) / scale
        print(f"scaling {args.sizes[0]:,} → {args.sizes[-1]:,} edges: {ratio:.2f}x of linear")
    shutil.rmtree(Path(tempfile.gettempdir()) / "citelens-bench-unused", ignore_errors=True)


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
