"""Corpus summary-citations benchmark: many documents from Parquet, end to end.

Scenarios (each in a fresh interpreter, median of N runs, whole-process peak RSS):

* ``corpus``: ``run_summary_citations_corpus`` on Parquet files plus ``write`` (documents.parquet,
  summary.json, summary.md); 100,000 documents, 1,000,000 claims, 1,000,000 evidence records,
  about 1,250,000 citation items by default.
* ``loop-citelens``: the per-document alternative, ``build_summary_citation_report`` called
  once per document (rows already grouped, as Python dicts) on the first ``--loop-documents``
  documents; the table shows the time extrapolated to the whole corpus.
* ``loop-openmed``: the same loop with openmed 3.1.0 (black box), when it is importable.

Inputs are generated with Polars (deterministic) into ``benchmarks/.data/corpus-summary-<N>/``.

    python benchmarks/bench_corpus_summary.py                       # 100,000 documents
    python benchmarks/bench_corpus_summary.py --documents 20000 --runs 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import child_main, is_child, print_table, run_child

DATA = Path(__file__).resolve().parent / ".data"
CLAIMS_PER_DOC = 10
EVIDENCE_PER_DOC = 10


def generate(documents: int) -> Path:
    """Write claims.parquet and evidence.parquet for ``documents`` documents (cached)."""
    import polars as pl

    root = DATA / f"corpus-summary-{documents}"
    if (root / "evidence.parquet").exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    refs = pl.DataFrame({"d": pl.int_range(0, documents, eager=True, dtype=pl.Int64)}).with_columns(
        ("doc-" + pl.col("d").cast(pl.String).str.zfill(8)).alias("document_ref")
    )

    def per_doc(count: int) -> pl.DataFrame:
        return (
            refs.with_columns(pl.int_ranges(0, count).alias("i"))
            .explode("i")
            .with_columns(pl.col("i").cast(pl.Int64))
        )

    key = pl.col("d") * 31 + pl.col("i") * 7
    claims = per_doc(CLAIMS_PER_DOC).with_columns(
        pl.lit("synthetic summary sentence").alias("claim"),
        # One or two cited ids; every 40th id does not exist in the document's evidence.
        pl.when(key % 4 == 0)
        .then(
            pl.concat_list(
                [
                    "e-" + pl.col("i").cast(pl.String),
                    "e-" + ((pl.col("i") + 1) % EVIDENCE_PER_DOC).cast(pl.String),
                ]
            )
        )
        .when(key % 40 == 1)
        .then(pl.concat_list([pl.lit("e-missing")]))
        .otherwise(pl.concat_list(["e-" + pl.col("i").cast(pl.String)]))
        .alias("citations"),
    )
    evidence = per_doc(EVIDENCE_PER_DOC).with_columns(
        ("e-" + pl.col("i").cast(pl.String)).alias("id"),
        (pl.col("i") * 50).alias("start"),
        (pl.col("i") * 50 + 40).alias("end"),
        pl.lit("synthetic source fact").alias("value"),
    )
    claims.select("document_ref", "claim", "citations").write_parquet(root / "claims.parquet")
    evidence.select("document_ref", "id", "start", "end", "value").write_parquet(
        root / "evidence.parquet"
    )
    return root


def _option(argv: Sequence[str], name: str, default: int) -> int:
    args = list(argv)
    return int(args[args.index(name) + 1]) if name in args else default


def setup_corpus(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from citelens.corpus import run_summary_citations_corpus

    root = generate(_option(argv, "--documents", 100_000))
    out = Path(tempfile.mkdtemp(prefix="bench-corpus-summary-"))

    def run() -> object:
        result = run_summary_citations_corpus(root / "claims.parquet", root / "evidence.parquet")
        result.write(out)
        extra["documents"] = result.summary["totals"]["documents"]
        extra["micro_coverage"] = result.summary["totals"]["micro_coverage"]
        return result

    return run


def _grouped(argv: Sequence[str]) -> list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    import polars as pl

    documents = _option(argv, "--documents", 100_000)
    loop = min(_option(argv, "--loop-documents", 2_000), documents)
    root = generate(documents)
    wanted = pl.col("document_ref") < f"doc-{loop:08d}"
    claims = pl.scan_parquet(root / "claims.parquet").filter(wanted).collect()
    evidence = pl.scan_parquet(root / "evidence.parquet").filter(wanted).collect()
    by_doc_c = claims.partition_by("document_ref", as_dict=True, include_key=False)
    by_doc_e = evidence.partition_by("document_ref", as_dict=True, include_key=False)
    return [(part.to_dicts(), by_doc_e[key].to_dicts()) for key, part in by_doc_c.items()]


def setup_loop_citelens(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from citelens.summary_citations import build_summary_citation_report

    groups = _grouped(argv)
    extra["loop_documents"] = len(groups)
    return lambda: [build_summary_citation_report(c, e) for c, e in groups]


def setup_loop_openmed(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
    from openmed.clinical.summary_citations import build_summary_citation_report

    groups = _grouped(argv)
    extra["loop_documents"] = len(groups)
    return lambda: [build_summary_citation_report(c, e) for c, e in groups]


SCENARIOS = {
    "corpus": setup_corpus,
    "loop-citelens": setup_loop_citelens,
    "loop-openmed": setup_loop_openmed,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--loop-documents", type=int, default=2_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    generate(options.documents)
    args = ["--documents", str(options.documents), "--loop-documents", str(options.loop_documents)]
    rows = []
    for name in SCENARIOS:
        if name == "loop-openmed":
            try:
                import openmed.clinical.summary_citations  # noqa: F401
            except Exception:
                print("openmed 3.1.0 is not importable: loop-openmed skipped")
                continue
        result = run_child(__file__, name, runs=options.runs, args=args)
        if "error" in result:
            print(f"{name}: failed: {result['error']}")
            continue
        loop = result["extra"].get("loop_documents")
        if loop:
            result["whole_corpus_s"] = result["median_s"] * options.documents / loop
        else:
            result["whole_corpus_s"] = result["median_s"]
        rows.append(result)
    print_table(
        rows,
        title=f"corpus summary citations: {options.documents} documents",
        columns=(
            ("scenario", "scenario"),
            ("median_s", "median s"),
            ("whole_corpus_s", "whole corpus s"),
            ("cpu_median_s", "CPU s"),
            ("runs", "runs"),
            ("peak_rss_mb", "peak RSS MiB"),
        ),
    )
    by_name = {row["scenario"]: row for row in rows}
    if "corpus" in by_name:
        for name in ("loop-citelens", "loop-openmed"):
            if name in by_name:
                ratio = by_name[name]["whole_corpus_s"] / by_name["corpus"]["median_s"]
                print(f"{name} (extrapolated) / corpus: {ratio:.1f}x")


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    main()
