"""Corpus evaluation of citation support: many documents through one kernel pass.

Documents are keyed by ``document_ref``. Every table is coded by document (``_d``), normalised
by the same columnar functions as a single call, bounded and checked per document, evaluated by
the same kernel grouped by document, and flattened into the documents table. A document that
the vectorised pass cannot take exactly (a defective row, nested spans, embedded adjudications,
a bound exceeded) is isolated by bisection and evaluated by the single-document entry point, so
every row equals ``compute_citation_support_metrics`` on that document alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from citelens.errors import CitationSupportError, CorpusError
from citelens.limits import Limits
from citelens.support._columnar import (
    CORPUS_DOCUMENT,
    adjudications_from_table,
    citations_from_table,
    claims_from_table,
    empty_frame,
    evidence_from_table,
)
from citelens.support._digest import support_digests
from citelens.support._kernel import LABELS, REASON_CODES, run_kernel
from citelens.support._report import DISCLAIMER, SCHEMA_VERSION, SUITE
from citelens.support._schema import ADJUDICATION_SCHEMA, EDGE_SCHEMA

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

__all__ = [
    "EDGE_EXPORT_COLUMNS",
    "ROLES",
    "SUPPORT_DOCUMENTS_SCHEMA",
    "evaluate_support_frames",
    "report_columns",
]

DOC = "_d"
ROLES = ("claims", "evidence", "citations", "adjudications")


def _report_schema() -> pa.Schema:
    from citelens.support._api import compute_citation_support_metrics
    from citelens.support._report import report_row_table

    sample = compute_citation_support_metrics([], [])
    return report_row_table([sample.to_dict()]).schema


def report_columns() -> pa.Schema:
    """The 59-column schema of ``CitationSupportReport.to_arrow()``."""
    return _REPORT_SCHEMA


_REPORT_SCHEMA = _report_schema()
SUPPORT_DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.large_string(), nullable=False),
        pa.field("status", pa.large_string(), nullable=False),
        pa.field("error_category", pa.large_string()),
        pa.field("error_message", pa.large_string()),
        *[pa.field(f.name, f.type, nullable=True) for f in _REPORT_SCHEMA],
    ]
)


def _rate(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(pl.lit(0.0))


def _flat(per_document: pl.DataFrame, digests: pl.DataFrame) -> pl.DataFrame:
    """The report columns of every document, computed as expressions (same values as
    ``CitationSupportReport.to_arrow()``)."""
    c = pl.col
    frame = per_document.join(digests, on=DOC, how="left")
    claim_spans = c("claim_count") - c("missing_claim_span_count")
    evidence_spans = c("evidence_count") - c("missing_evidence_span_count")
    invalid_claims = claim_spans - c("valid_claim_span_count")
    invalid_evidence = evidence_spans - c("valid_evidence_span_count")
    invalid_citations = c("citation_count") - c("valid_citation_count")
    r = c("adjudicated_citation_count")
    precision = pl.when(r > 0).then(c("label_supports") / r).otherwise(None)
    recall = (
        pl.when((r > 0) & (c("claim_count") > 0))
        .then(c("supported_claim_count") / c("claim_count"))
        .otherwise(None)
    )
    unused = c("evidence_count") - c("used_evidence_count")
    columns: dict[str, pl.Expr] = {
        "suite": pl.lit(SUITE),
        "schema_version": pl.lit(SCHEMA_VERSION, dtype=pl.Int64),
        "claim_count": c("claim_count"),
        "evidence_count": c("evidence_count"),
        "citation_count": c("citation_count"),
        "orphan_claim_count": c("orphan_claim_count"),
        "orphan_claim_rate": _rate(c("orphan_claim_count"), c("claim_count")),
        "unused_evidence_count": unused,
        "unused_evidence_rate": _rate(unused, c("evidence_count")),
        "citation_precision": precision,
        "support_recall": recall,
    }
    d = "deterministic_span_checks."
    columns.update(
        {
            d + "claim_span_count": claim_spans,
            d + "valid_claim_span_count": c("valid_claim_span_count"),
            d + "missing_claim_span_count": c("missing_claim_span_count"),
            d + "invalid_claim_span_count": invalid_claims,
            d + "claim_span_validity": _rate(c("valid_claim_span_count"), claim_spans),
            d + "evidence_span_count": evidence_spans,
            d + "valid_evidence_span_count": c("valid_evidence_span_count"),
            d + "missing_evidence_span_count": c("missing_evidence_span_count"),
            d + "invalid_evidence_span_count": invalid_evidence,
            d + "evidence_span_validity": _rate(c("valid_evidence_span_count"), evidence_spans),
            d + "citation_count": c("citation_count"),
            d + "valid_citation_count": c("valid_citation_count"),
            d + "invalid_citation_count": invalid_citations,
            d + "citation_span_validity": _rate(c("valid_citation_count"), c("citation_count")),
            d + "duplicate_citation_count": c("duplicate_citation_count"),
        }
    )
    for code in REASON_CODES:
        columns[f"{d}invalid_citation_reasons.{code}"] = c(f"reason_{code}")
    columns[d + "passed"] = (
        (c("missing_claim_span_count") == 0)
        & (invalid_claims == 0)
        & (c("missing_evidence_span_count") == 0)
        & (invalid_evidence == 0)
        & (invalid_citations == 0)
    )
    a = "clinician_adjudication."
    available = c("adjudication_row_count") > 0
    columns.update(
        {
            a + "available": available,
            a + "status": pl.when(available)
            .then(pl.lit("available"))
            .otherwise(pl.lit("not_available")),
            a + "adjudicated_citation_count": r,
            a + "unadjudicated_citation_count": c("valid_citation_count") - r,
            a + "adjudicated_claim_count": c("adjudicated_claim_count"),
            a + "unadjudicated_claim_count": c("claim_count") - c("adjudicated_claim_count"),
            a + "supporting_citation_count": c("label_supports"),
            a + "contradicting_citation_count": c("label_contradicts"),
            a + "irrelevant_citation_count": c("label_irrelevant"),
            a + "unclear_citation_count": c("label_unclear"),
            a + "supported_claim_count": c("supported_claim_count"),
            a + "citation_precision": precision,
            a + "support_recall": recall,
            a + "adjudication_coverage": _rate(r, c("valid_citation_count")),
            a + "unmatched_adjudication_count": c("unmatched_adjudication_count"),
            a + "conflicting_adjudication_count": c("conflicting_adjudication_count"),
        }
    )
    for label in LABELS:
        columns[f"{a}label_counts.{label}"] = c(f"label_{label}")
    for name in ("claim_digest", "evidence_digest", "adjudication_digest", "input_digest"):
        columns[f"provenance.{name}"] = c(name)
    columns["human_review_required"] = pl.lit(True)
    columns["disclaimer"] = pl.lit(DISCLAIMER)
    return frame.select(DOC, *[expr.alias(name) for name, expr in columns.items()])


class _Outside(Exception):
    """Private: a batch holds a document the vectorised pass cannot take exactly."""


def _bounded(frame: pl.DataFrame, limit: int) -> None:
    if frame.height and int(frame.group_by(DOC).len()["len"].max()) > limit:  # type: ignore[arg-type]
        raise _Outside()


def _with_code(frame: pl.DataFrame) -> pa.Table:
    return frame.rename({DOC: CORPUS_DOCUMENT}).to_arrow()


def _vectorised(
    tables: dict[str, pl.DataFrame], codes: np.ndarray, limits: Limits
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Evaluate documents ``codes`` in one pass; raises ``_Outside`` when one needs the exact
    path. Returns the flat report columns and the kernel's edges."""
    from citelens.support._api import (
        DEFAULT_ADJUDICATIONS,
        DEFAULT_CITATIONS,
        DEFAULT_CLAIMS,
        DEFAULT_EVIDENCE,
    )

    claim_limit = limits.resolve("claims", DEFAULT_CLAIMS)
    evidence_limit = limits.resolve("evidence", DEFAULT_EVIDENCE)
    citation_limit = limits.resolve("citations", DEFAULT_CITATIONS)
    adjudication_limit = limits.resolve("adjudications", DEFAULT_ADJUDICATIONS)
    selected = pl.Series(DOC, codes, dtype=pl.UInt32).implode()
    part = {role: frame.filter(pl.col(DOC).is_in(selected)) for role, frame in tables.items()}
    _bounded(part["claims"], claim_limit)
    _bounded(part["evidence"], evidence_limit)
    _bounded(part["citations"], citation_limit)
    _bounded(part["adjudications"], adjudication_limit)

    def need(result: Any) -> Any:
        if result is None:
            raise _Outside()
        return result

    claims, embedded = need(
        claims_from_table(_with_code(part["claims"]), citation_limit, {}, corpus=True)
    )
    evidence, _ = need(evidence_from_table(_with_code(part["evidence"]), {}, corpus=True))
    if part["citations"].height:
        explicit = need(citations_from_table(_with_code(part["citations"]), corpus=True))
    else:
        explicit = empty_frame(EDGE_SCHEMA).with_columns(pl.lit(0, dtype=pl.UInt32).alias(DOC))
    if part["adjudications"].height:
        adjudications = need(
            adjudications_from_table(_with_code(part["adjudications"]), corpus=True)
        )
    else:
        adjudications = empty_frame(ADJUDICATION_SCHEMA).with_columns(
            pl.lit(0, dtype=pl.UInt32).alias(DOC)
        )
    if claims.select(DOC, "claim_id").is_duplicated().any():
        raise _Outside()
    if evidence.select(DOC, "evidence_id").is_duplicated().any():
        raise _Outside()
    edges = pl.concat([embedded, explicit.select(embedded.columns)])
    _bounded(edges, citation_limit)
    documents = pl.DataFrame({DOC: codes}, schema={DOC: pl.UInt32})
    kernel = run_kernel(claims, evidence, edges, adjudications, documents)
    digests = support_digests(
        np.sort(codes), kernel.claims, kernel.evidence, kernel.edges, kernel.adjudications
    )
    return _flat(kernel.documents, digests), kernel.edges


def _single(
    tables: dict[str, pl.DataFrame], code: int, limits: Limits, keep_edges: bool
) -> tuple[pl.DataFrame | None, tuple[str, str] | None, pl.DataFrame | None]:
    """One document through the single-document entry point: its flat row, or its error."""
    from citelens.support._api import compute_citation_support_metrics

    part = {
        role: frame.filter(pl.col(DOC) == code).drop(DOC).to_arrow()
        for role, frame in tables.items()
    }
    error: tuple[str, str] | None = None
    try:
        report = compute_citation_support_metrics(
            part["claims"],
            part["evidence"],
            part["citations"],
            part["adjudications"],
            limits=limits,
        )
    except CitationSupportError as exc:
        error = (exc.category, exc.args[0])
    if error is not None:
        return None, error, None
    row = pl.from_arrow(report.to_arrow())
    assert isinstance(row, pl.DataFrame)
    edges = None
    if keep_edges:
        tables_out = report.tables(raw_identifiers=True)
        assert tables_out is not None
        edge_frame = pl.from_arrow(tables_out.edges)
        assert isinstance(edge_frame, pl.DataFrame)
        edges = edge_frame.with_columns(pl.lit(code, dtype=pl.UInt32).alias(DOC))
    flat = row.with_columns(pl.lit(code, dtype=pl.UInt32).alias(DOC)).select(DOC, *row.columns)
    return flat, None, edges


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
    rows: list[pl.DataFrame] = []
    errors: list[tuple[int, str, str]] = []
    edges: list[pl.DataFrame] = []
    pending = [np.asarray(codes, dtype=np.uint32)]
    while pending:
        batch = pending.pop()
        if batch.size == 0:
            continue
        try:
            flat, kernel_edges = _vectorised(tables, batch, limits)
        except _Outside:
            if batch.size > 1:
                half = batch.size // 2
                pending.extend([batch[half:], batch[:half]])
                continue
            row, error, single_edges = _single(tables, int(batch[0]), limits, keep_edges)
            if error is not None:
                errors.append((int(batch[0]), *error))
            else:
                assert row is not None
                rows.append(row)
                if single_edges is not None:
                    edges.append(single_edges.select(EDGE_EXPORT_COLUMNS))
            if on_documents:
                on_documents(1)
            continue
        rows.append(flat)
        if keep_edges:
            edges.append(
                kernel_edges.with_columns(pl.col("label").cast(pl.String)).select(
                    EDGE_EXPORT_COLUMNS
                )
            )
        if on_documents:
            on_documents(int(batch.size))
    empty = pl.from_arrow(_REPORT_SCHEMA.empty_table())
    assert isinstance(empty, pl.DataFrame)
    empty_rows = pl.DataFrame(schema={DOC: pl.UInt32, **empty.schema})
    row_frame = pl.concat([empty_rows, *[r.cast(empty_rows.schema) for r in rows]], how="vertical")
    error_frame = pl.DataFrame(
        errors,
        schema={DOC: pl.UInt32, "error_category": pl.String, "error_message": pl.String},
        orient="row",
    )
    edge_frame = None
    if keep_edges:
        edge_frame = pl.concat(edges, how="vertical_relaxed") if edges else None
    return row_frame, error_frame, edge_frame


def corpus_failure(message: str, category: str) -> CorpusError:
    """A fixed corpus error."""
    return CorpusError(message, category)
