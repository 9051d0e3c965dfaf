"""Corpus adapter of citation support: coded batch tables → the support batch engine.

Documents are keyed by ``document_ref``. Every table of a batch is coded by document (``_d``)
and handed to :func:`citelens.support._batch.evaluate_batch`, the same rule engine, kernel and
report derivation as a single call: defective documents get their error row from the same
columnar pass, the rest are evaluated together, and every row equals
``compute_citation_support_metrics`` on that document alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl
import pyarrow as pa

from citelens.limits import Limits
from citelens.support._batch import evaluate_batch
from citelens.support._schema import REPORT_SCHEMA

__all__ = [
    "EDGE_EXPORT_COLUMNS",
    "ROLES",
    "SUPPORT_DOCUMENTS_SCHEMA",
    "evaluate_support_frames",
]

EDGE_EXPORT_COLUMNS = [
    "_d",
    "claim_id",
    "evidence_id",
    "start",
    "end",
    "source_id",
    "multiplicity",
    "reason",
    "valid",
    "label",
]
DOC = "_d"
ROLES = ("claims", "evidence", "citations", "adjudications")

SUPPORT_DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.large_string(), nullable=False),
        pa.field("status", pa.large_string(), nullable=False),
        pa.field("error_category", pa.large_string()),
        pa.field("error_message", pa.large_string()),
        *[pa.field(f.name, f.type, nullable=True) for f in REPORT_SCHEMA],
    ]
)


def evaluate_support_frames(
    tables: dict[str, pl.DataFrame],
    codes: np.ndarray,
    limits: Limits,
    *,
    keep_edges: bool = False,
    on_documents: Callable[[int], None] | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame | None]:
    """Evaluate the documents ``codes`` of coded tables (each with a ``_d`` column).

    Returns ``(rows, errors, edges)``: flat report rows (``_d`` + report columns), errors
    (``_d``, ``error_category``, ``error_message``) and, when asked, the kernel edges.
    """
    result = evaluate_batch(tables, codes, limits, keep_edges=keep_edges)
    if on_documents:
        on_documents(len(codes))
    edges = None
    if result.edges is not None:
        edges = result.edges.with_columns(pl.col("label").cast(pl.String)).select(
            EDGE_EXPORT_COLUMNS
        )
    return result.rows, result.errors, edges
