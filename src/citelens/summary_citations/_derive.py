"""The one metrics derivation (summary-citations.md §9): counts become ratios, flags, the
verdict and the reason codes as Polars expressions over a frame with one row per document.

A single call derives its one row here too and builds :class:`SummaryCitationMetrics` from it,
so single-document and corpus values are the same by construction.
"""

from __future__ import annotations

import functools
from typing import Any

import polars as pl

from citelens.summary_citations._report import (
    METRIC_KEYS,
    REASON_CODES,
    SummaryCitationMetrics,
)

__all__ = [
    "DOCUMENT_COLUMNS",
    "DOCUMENT_METRIC_COLUMNS",
    "REASON_COLUMNS",
    "derive_metrics",
    "document_dtype",
    "metrics_from_row",
]

# Per-document output columns, in order: the key and status, then the 24 fields of
# ``SummaryCitationMetrics.to_dict()`` and one 0/1 count column per failure reason.
DOCUMENT_METRIC_COLUMNS: tuple[str, ...] = METRIC_KEYS
REASON_COLUMNS: tuple[str, ...] = tuple(f"failure_reasons.{code}" for code in REASON_CODES)
DOCUMENT_COLUMNS: tuple[str, ...] = (
    "document_ref",
    "status",
    "error_category",
    "error_message",
    *DOCUMENT_METRIC_COLUMNS,
    *REASON_COLUMNS,
)
_DOCUMENT_DTYPES: dict[str, Any] = {
    "document_ref": pl.String,
    "status": pl.String,
    "error_category": pl.String,
    "error_message": pl.String,
    "schema_version": pl.Int64,
    "coverage": pl.Float64,
    "abstention_rate": pl.Float64,
    "evidence_coverage": pl.Float64,
    "source_evidence_available": pl.Boolean,
    "fail_closed": pl.Boolean,
    "passed": pl.Boolean,
    "failure_reasons": pl.List(pl.String),
}


def document_dtype(name: str) -> Any:
    """The Polars dtype of a :data:`DOCUMENT_COLUMNS` column."""
    return _DOCUMENT_DTYPES.get(name, pl.Int64)


@functools.cache
def _derivation() -> tuple[tuple[pl.Expr, ...], tuple[pl.Expr, ...]]:
    """The two stages of expressions, built once (a single call derives one row, so building
    about forty expressions per call would cost more than evaluating them)."""
    c = pl.col
    available = (
        (c("valid_evidence_record_count") > 0)
        & (c("invalid_evidence_record_count") == 0)
        & (c("duplicate_evidence_record_count") == 0)
    )
    first = (
        (c("claim_count") - c("supported_claim_count")).alias("unsupported_claim_count"),
        (c("citation_count") - c("valid_citation_count")).alias("invalid_citation_count"),
        available.alias("source_evidence_available"),
    )
    has_claims = c("claim_count") > 0
    flags = {
        "duplicate_citation": c("duplicate_citation_count") > 0,
        "duplicate_source_evidence": c("duplicate_evidence_record_count") > 0,
        "invalid_citation": c("invalid_citation_count") > 0,
        "invalid_source_evidence": c("invalid_evidence_record_count") > 0,
        "missing_citation": c("missing_citation_count") > 0,
        "missing_source_evidence": c("valid_evidence_record_count") == 0,
        "missing_source_record": c("missing_source_record_count") > 0,
        "unavailable_span": c("unavailable_span_count") > 0,
        "unsupported_claim": c("unsupported_claim_count") > 0,
    }
    any_reason = pl.any_horizontal(*flags.values())
    second = (
        c("unsupported_claim_count").alias("abstention_count"),
        pl.when(~c("source_evidence_available"))
        .then(0.0)
        .when(has_claims)
        .then(c("supported_claim_count").cast(pl.Float64) / c("claim_count").cast(pl.Float64))
        .otherwise(1.0)
        .alias("coverage"),
        pl.when(c("source_evidence_available"))
        .then(
            c("referenced_evidence_count").cast(pl.Float64)
            / c("valid_evidence_record_count").cast(pl.Float64)
        )
        .otherwise(0.0)
        .alias("evidence_coverage"),
        pl.when(has_claims)
        .then(c("unsupported_claim_count").cast(pl.Float64) / c("claim_count").cast(pl.Float64))
        .otherwise(0.0)
        .alias("abstention_rate"),
        (~c("source_evidence_available")).alias("fail_closed"),
        (c("source_evidence_available") & ~any_reason).alias("passed"),
        pl.concat_list([pl.when(flags[code]).then(pl.lit(code)) for code in REASON_CODES])
        .list.drop_nulls()
        .alias("failure_reasons"),
        *[flag.cast(pl.Int64).alias(f"failure_reasons.{code}") for code, flag in flags.items()],
        pl.lit(1, dtype=pl.Int64).alias("schema_version"),
    )
    return first, second


def derive_metrics(counts: pl.DataFrame) -> pl.DataFrame:
    """Add the derived metric columns (§9.2) and one 0/1 column per reason to a frame of
    :data:`~citelens.summary_citations._kernel.COUNT_COLUMNS` (one row per document)."""
    first, second = _derivation()
    # One lazy plan, collected once.
    return counts.lazy().with_columns(*first).with_columns(*second).collect()


def metrics_from_row(derived: pl.DataFrame) -> SummaryCitationMetrics:
    """:class:`SummaryCitationMetrics` of the one row of a :func:`derive_metrics` frame."""
    if derived.height != 1:
        raise ValueError("metrics_from_row needs exactly one derived row")
    row = derived.row(0, named=True)
    values: dict[str, Any] = {key: row[key] for key in METRIC_KEYS}
    values["failure_reasons"] = tuple(values["failure_reasons"])
    return SummaryCitationMetrics(**values)
