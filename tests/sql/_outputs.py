"""Test-only stand-in for ``citelens corpus support``: builds a corpus output directory
(``documents.parquet``, optional ``edges.parquet``) by calling the single-document API on each
document. The SQL views are built against the contract of these files, not against this code."""

from __future__ import annotations

import pathlib
from collections import defaultdict
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

import citelens
from citelens.errors import CitelensError

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE_CORPUS = ROOT / "data-samples" / "corpus"
ROLES = ("claims", "evidence", "citations", "adjudications")
_S = pa.large_string()
EDGE_SCHEMA = pa.schema(
    [
        ("document_ref", _S),
        ("claim_id", _S),
        ("evidence_id", _S),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("source_id", _S),
        ("multiplicity", pa.int64()),
        ("reason", _S),
        ("valid", pa.bool_()),
        ("label", _S),
    ]
)


def _report_schema() -> pa.Schema:
    return citelens.compute_citation_support_metrics([], []).to_arrow().schema


def documents_schema() -> pa.Schema:
    """``document_ref``, ``status``, ``error_category``, ``error_message`` + the 59 columns."""
    return pa.schema(
        [
            pa.field("document_ref", _S, nullable=False),
            pa.field("status", _S, nullable=False),
            pa.field("error_category", _S),
            pa.field("error_message", _S),
            *[pa.field(f.name, f.type, nullable=True) for f in _report_schema()],
        ]
    )


def evaluate(corpus: dict[str, list[dict[str, Any]]]) -> tuple[pa.Table, pa.Table]:
    """documents and edges tables of a corpus given as role → rows (with ``document_ref``)."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(
        lambda: {role: [] for role in ROLES}
    )
    for role in ROLES:
        for row in corpus.get(role, []):
            row = dict(row)
            grouped[row.pop("document_ref")][role].append(row)
    schema = documents_schema()
    names = schema.names
    rows: list[dict[str, Any]] = []
    edge_tables: list[pa.Table] = []
    for ref in sorted(grouped):
        parts = grouped[ref]
        base: dict[str, Any] = dict.fromkeys(names)
        base["document_ref"] = ref
        try:
            report = citelens.compute_citation_support_metrics(
                parts["claims"],
                parts["evidence"],
                parts["citations"],
                parts["adjudications"] or None,
            )
        except CitelensError as error:
            base.update(status="error", error_category=error.category, error_message=str(error))
            rows.append(base)
            continue
        base.update(report.to_arrow().to_pylist()[0], status="ok")
        rows.append(base)
        tables = report.tables()
        assert tables is not None
        edges = tables.edges
        refs = pa.array([ref] * edges.num_rows, type=_S)
        edge_tables.append(edges.add_column(0, "document_ref", refs).cast(EDGE_SCHEMA))
    documents = pa.Table.from_pylist(rows, schema=schema)
    edges = pa.concat_tables(edge_tables) if edge_tables else EDGE_SCHEMA.empty_table()
    return documents, edges


def read_corpus(folder: pathlib.Path) -> dict[str, list[dict[str, Any]]]:
    """The four Parquet tables of a corpus directory as rows without null cells."""
    out: dict[str, list[dict[str, Any]]] = {}
    for role in ROLES:
        rows = pq.read_table(folder / f"{role}.parquet").to_pylist()
        out[role] = [{k: v for k, v in row.items() if v is not None} for row in rows]
    return out


def write_outputs(
    corpus: dict[str, list[dict[str, Any]]], out_dir: pathlib.Path, *, edges: bool = True
) -> tuple[pa.Table, pa.Table]:
    """Write ``documents.parquet`` (and ``edges.parquet``) for ``corpus`` into ``out_dir``."""
    documents, edge_table = evaluate(corpus)
    out_dir.mkdir(parents=True, exist_ok=True)
    pq.write_table(documents, out_dir / "documents.parquet")
    if edges:
        pq.write_table(edge_table, out_dir / "edges.parquet")
    return documents, edge_table
