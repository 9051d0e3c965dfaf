"""Benchmarks for citelens.sql (issue 5, SQL inspection).

A synthetic corpus output (generated once into benchmarks/.data/sql/, git-ignored):
100,000 documents in documents.parquet (the 63-column schema) and 1,000,000 rows in
edges.parquet. Each example query of sql/examples/ runs through ``citelens.sql.run_query``
(open the views, run, return Arrow), median of 5 runs, in a fresh subprocess per scenario
for its peak RSS. No target is set by the issue: these are interactive-latency figures.
openmed 3.1.0 has no SQL layer, so there is no peer column.

Usage: .venv/bin/python benchmarks/bench_sql.py [--documents N] [--edges N]
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / ".data" / "sql"
EXAMPLES = sorted((ROOT / "sql" / "examples").glob("*.sql"))
sys.path.insert(0, str(HERE))

from _common import child_main, is_child, print_table, run_child  # noqa: E402

REASONS = (
    "citation_outside_evidence",
    "invalid_citation_span",
    "invalid_evidence_span",
    "missing_claim",
    "missing_evidence",
    "source_mismatch",
)


def _digests(prefix: str, n: int) -> list[str]:
    return ["sha256:" + hashlib.sha256(f"{prefix}{i}".encode()).hexdigest() for i in range(n)]


def build(documents: int, edges: int) -> pathlib.Path:
    """Write documents.parquet and edges.parquet (once per size) and return the folder."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    import citelens

    folder = DATA / f"d{documents}-e{edges}"
    if (folder / "edges.parquet").is_file():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(5)
    batches = np.array(["release-a", "release-b", "rag"])[rng.integers(0, 3, documents)]
    refs = [f"{b}/{d}" for b, d in zip(batches, _digests("doc", documents))]
    report = citelens.compute_citation_support_metrics([], []).to_arrow()
    columns: dict[str, Any] = {
        "document_ref": pa.array(refs, pa.large_string()),
        "status": pa.array(
            np.where(rng.random(documents) < 0.01, "error", "ok"), pa.large_string()
        ),
        "error_category": pa.nulls(documents, pa.large_string()),
        "error_message": pa.nulls(documents, pa.large_string()),
    }
    for field in report.schema:
        if pa.types.is_integer(field.type):
            values: Any = rng.integers(0, 12, documents)
        elif pa.types.is_floating(field.type):
            values = rng.random(documents)
        elif pa.types.is_boolean(field.type):
            values = rng.random(documents) < 0.5
        else:
            values = [report[field.name][0].as_py()] * documents
        columns[field.name] = pa.array(values, field.type)
    pq.write_table(pa.table(columns), folder / "documents.parquet", compression="zstd")

    doc_index = np.sort(rng.integers(0, documents, edges))
    sources = np.array(_digests("source", 500))
    reason_pick = rng.integers(0, 60, edges)
    reason = pa.array(
        [REASONS[r] if r < 6 else None for r in reason_pick.tolist()], pa.large_string()
    )
    labels = np.array(["supports", "contradicts", "irrelevant", "unclear", None], dtype=object)
    label_pick = rng.integers(0, 6, edges)
    label = pa.array(
        [labels[p] if p < 5 and r >= 6 else None for p, r in zip(label_pick, reason_pick)],
        pa.large_string(),
    )
    ids = _digests("claim", 4096)
    table = pa.table(
        {
            "document_ref": pa.array(np.array(refs, dtype=object)[doc_index], pa.large_string()),
            "claim_id": pa.array(np.array(ids, dtype=object)[rng.integers(0, 4096, edges)]),
            "evidence_id": pa.array(np.array(ids, dtype=object)[rng.integers(0, 4096, edges)]),
            "start": pa.nulls(edges, pa.int64()),
            "end": pa.nulls(edges, pa.int64()),
            "source_id": pa.array(sources[rng.integers(0, 500, edges)], pa.large_string()),
            "multiplicity": pa.array(np.ones(edges, dtype=np.int64)),
            "reason": reason,
            "valid": pa.array(reason_pick >= 6),
            "label": label,
        }
    )
    pq.write_table(table, folder / "edges.parquet", compression="zstd")
    return folder


def _options(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000)
    known, _ = parser.parse_known_args(list(argv))
    return known


def _setup(example: pathlib.Path | None) -> Callable[[dict[str, Any], Sequence[str]], Any]:
    def setup(extra: dict[str, Any], argv: Sequence[str]) -> Callable[[], object]:
        from citelens.sql import open_views, run_query

        options = _options([a for a in argv if a not in ("--child",)])
        folder = build(options.documents, options.edges)
        empty = DATA / "no-results"
        empty.mkdir(parents=True, exist_ok=True)
        if example is None:
            return lambda: open_views(folder, results_dir=empty).close()
        query = example.read_text(encoding="utf-8")
        extra["rows"] = run_query(folder, query, results_dir=empty).num_rows
        return lambda: run_query(folder, query, results_dir=empty)

    return setup


SCENARIOS = {"open_views": _setup(None), **{p.stem: _setup(p) for p in EXAMPLES}}


def main() -> int:
    options = _options(sys.argv[1:])
    args = ["--documents", str(options.documents), "--edges", str(options.edges)]
    # Build the data in its own process: Linux keeps a process's peak RSS across exec, so a
    # large parent would inflate every child's figure.
    subprocess.run([sys.executable, __file__, "--build", *args], check=True)
    rows = []
    for name in SCENARIOS:
        result = run_child(__file__, name, runs=5, args=args, timeout=600)
        result["target"] = "-"
        result["verdict"] = "error" if "error" in result else "info"
        rows.append(result)
    print_table(
        rows,
        title=f"sql: {options.documents:,} documents, {options.edges:,} edges (peer: n/a)",
    )
    return 1 if any("error" in row for row in rows) else 0


if __name__ == "__main__":
    if is_child():
        child_main(SCENARIOS)
    if "--build" in sys.argv:
        chosen = _options([a for a in sys.argv[1:] if a != "--build"])
        build(chosen.documents, chosen.edges)
        raise SystemExit(0)
    raise SystemExit(main())
