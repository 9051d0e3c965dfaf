"""Report derivation (§6): the kernel's per-document counts → the flat report columns.

One set of Polars expressions derives every rate and verdict for one document or a whole
corpus; the single-call report object and every corpus document row are built from it.
"""

from __future__ import annotations

import polars as pl

from citelens.support._kernel import DOC, LABELS, REASON_CODES
from citelens.support._report import DISCLAIMER, SCHEMA_VERSION, SUITE

__all__ = ["derive_report_rows"]


def _rate(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(pl.lit(0.0))


def derive_report_rows(per_document: pl.DataFrame, digests: pl.DataFrame) -> pl.DataFrame:
    """The report columns of every document (``_d`` + :data:`REPORT_SCHEMA`), computed as
    expressions from the kernel's per-document counts and the digests. This is the only
    derivation of rates, precision, recall, coverage and ``passed``: a single call's report is
    its one row."""
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
