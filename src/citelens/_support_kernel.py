"""The support metric kernel (§6): joins and group-bys over the canonical tables.

Every table carries a ``document_ref`` column and every aggregate is grouped by it, so one
call evaluates one document (a constant key) or a whole corpus in the same pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

__all__ = ["REASON_CODES", "KernelResult", "run_kernel", "span_status"]

DOC = "document_ref"
REASON_CODES: tuple[str, ...] = (
    "citation_outside_evidence",
    "invalid_citation_span",
    "invalid_evidence_span",
    "missing_claim",
    "missing_evidence",
    "source_mismatch",
)
LABELS: tuple[str, ...] = ("supports", "contradicts", "irrelevant", "unclear")


def span_status(start: pl.Expr, end: pl.Expr, length: pl.Expr) -> pl.Expr:
    """§6.1 span status as an expression."""
    return (
        pl.when(start.is_null() & end.is_null())
        .then(pl.lit("missing"))
        .when(start.is_null() | end.is_null())
        .then(pl.lit("invalid"))
        .when((start < 0) | (end <= start))
        .then(pl.lit("invalid"))
        .when(length.is_not_null() & (length < 0))
        .then(pl.lit("invalid"))
        .when(length.is_not_null() & (end > length))
        .then(pl.lit("out_of_bounds"))
        .otherwise(pl.lit("valid"))
    )


@dataclass(frozen=True)
class KernelResult:
    """Per-document aggregates plus the derived detail tables."""

    documents: pl.DataFrame
    claims: pl.DataFrame
    evidence: pl.DataFrame
    edges: pl.DataFrame
    adjudications: pl.DataFrame


def _counts(frame: pl.DataFrame, docs: pl.DataFrame, **aggs: pl.Expr) -> pl.DataFrame:
    grouped = frame.group_by(DOC).agg(**aggs)
    joined = docs.join(grouped, on=DOC, how="left")
    return joined.with_columns(pl.col(name).fill_null(0) for name in aggs)


def run_kernel(
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    raw_edges: pl.DataFrame,
    adjudications: pl.DataFrame,
    documents: pl.DataFrame,
) -> KernelResult:
    """Evaluate every document of the canonical tables.

    ``documents`` lists the document keys to report (one row per document, column
    ``document_ref``), including documents that have no rows in some tables.
    """
    frames = _kernel_frames(claims, evidence, raw_edges, adjudications, documents)
    return KernelResult(*frames)


def _kernel_frames(
    claims: pl.DataFrame,
    evidence: pl.DataFrame,
    raw_edges: pl.DataFrame,
    adjudications: pl.DataFrame,
    documents: pl.DataFrame,
) -> list[pl.DataFrame]:
    claims = claims.with_columns(
        span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias("span_status")
    )
    evidence = evidence.with_columns(
        span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias("span_status")
    )
    edge_key = [DOC, "claim_id", "evidence_id", "start", "end", "source_id"]
    edges = raw_edges.group_by(edge_key).agg(pl.len().cast(pl.Int64).alias("multiplicity"))

    claim_keys = claims.select(DOC, "claim_id").with_columns(pl.lit(True).alias("_claim"))
    evidence_cols = evidence.select(
        DOC,
        "evidence_id",
        pl.col("start").alias("_ev_start"),
        pl.col("end").alias("_ev_end"),
        pl.col("source_id").alias("_ev_source"),
        pl.col("source_length").alias("_ev_length"),
        pl.col("span_status").alias("_ev_status"),
    )
    edges = edges.join(claim_keys, on=[DOC, "claim_id"], how="left").join(
        evidence_cols, on=[DOC, "evidence_id"], how="left"
    )
    start, end = pl.col("start"), pl.col("end")
    reason = (
        pl.when(pl.col("_claim").is_null())
        .then(pl.lit("missing_claim"))
        .when(pl.col("_ev_status").is_null())
        .then(pl.lit("missing_evidence"))
        .when(pl.col("_ev_status") != "valid")
        .then(pl.lit("invalid_evidence_span"))
        .when(
            (pl.col("source_id") != "")
            & (pl.col("_ev_source") != "")
            & (pl.col("source_id") != pl.col("_ev_source"))
        )
        .then(pl.lit("source_mismatch"))
        .when(start.is_null() & end.is_null())
        .then(pl.lit(None, dtype=pl.String))
        .when(span_status(start, end, pl.col("_ev_length")) != "valid")
        .then(pl.lit("invalid_citation_span"))
        .when((start < pl.col("_ev_start")) | (end > pl.col("_ev_end")))
        .then(pl.lit("citation_outside_evidence"))
        .otherwise(pl.lit(None, dtype=pl.String))
    )
    edges = edges.with_columns(
        reason.alias("reason"), pl.col("_claim").is_not_null().alias("_attached")
    ).with_columns(pl.col("reason").is_null().alias("valid"))

    # Adjudications: matched rows are those whose pair has a valid edge.
    valid_pairs = (
        edges.filter(pl.col("valid"))
        .select(DOC, "claim_id", "evidence_id")
        .unique()
        .with_columns(pl.lit(True).alias("matched"))
    )
    adjudications = adjudications.join(
        valid_pairs, on=[DOC, "claim_id", "evidence_id"], how="left"
    ).with_columns(pl.col("matched").fill_null(False))
    pair_labels = (
        adjudications.filter(pl.col("matched"))
        .group_by(DOC, "claim_id", "evidence_id")
        .agg(pl.col("label").n_unique().alias("_distinct"), pl.col("label").first().alias("_one"))
        .with_columns(
            pl.when(pl.col("_distinct") > 1)
            .then(pl.lit("unclear"))
            .otherwise(pl.col("_one"))
            .alias("pair_label"),
            (pl.col("_distinct") > 1).alias("_conflict"),
        )
    )
    edges = edges.join(
        pair_labels.select(DOC, "claim_id", "evidence_id", "pair_label"),
        on=[DOC, "claim_id", "evidence_id"],
        how="left",
    ).with_columns(
        pl.when(pl.col("valid")).then(pl.col("pair_label")).otherwise(None).alias("label")
    )
    claim_flags = pair_labels.group_by(DOC, "claim_id").agg(
        pl.lit(True).alias("adjudicated"),
        (pl.col("pair_label") == "supports").any().alias("supported"),
    )
    attached = edges.filter(pl.col("_attached"))
    claims = (
        claims.join(
            attached.select(DOC, "claim_id").unique().with_columns(pl.lit(False).alias("orphan")),
            on=[DOC, "claim_id"],
            how="left",
        )
        .join(claim_flags, on=[DOC, "claim_id"], how="left")
        .with_columns(
            pl.col("orphan").fill_null(True),
            pl.col("adjudicated").fill_null(False),
            pl.col("supported").fill_null(False),
        )
    )
    evidence = evidence.join(
        attached.select(DOC, "evidence_id").unique().with_columns(pl.lit(True).alias("used")),
        on=[DOC, "evidence_id"],
        how="left",
    ).with_columns(pl.col("used").fill_null(False))

    docs = documents.select(DOC).unique()
    status = pl.col("span_status")
    claim_counts = _counts(
        claims,
        docs,
        claim_count=pl.len(),
        valid_claim_span_count=(status == "valid").sum(),
        missing_claim_span_count=(status == "missing").sum(),
        orphan_claim_count=pl.col("orphan").sum(),
        adjudicated_claim_count=pl.col("adjudicated").sum(),
        supported_claim_count=pl.col("supported").sum(),
    )
    evidence_counts = _counts(
        evidence,
        docs,
        evidence_count=pl.len(),
        valid_evidence_span_count=(status == "valid").sum(),
        missing_evidence_span_count=(status == "missing").sum(),
        used_evidence_count=pl.col("used").sum(),
    )
    label = pl.col("label")
    edge_aggs: dict[str, pl.Expr] = {
        "citation_count": pl.len(),
        "valid_citation_count": pl.col("valid").sum(),
        "duplicate_citation_count": (pl.col("multiplicity") - 1).sum(),
        "adjudicated_citation_count": label.is_not_null().sum(),
    }
    for code in REASON_CODES:
        edge_aggs[f"reason_{code}"] = (pl.col("reason") == code).sum()
    for name in LABELS:
        edge_aggs[f"label_{name}"] = (label == name).sum()
    edge_counts = _counts(edges, docs, **edge_aggs)
    adjudication_counts = _counts(
        adjudications,
        docs,
        adjudication_row_count=pl.len(),
        unmatched_adjudication_count=(~pl.col("matched")).sum(),
    )
    conflict_counts = _counts(
        pair_labels, docs, conflicting_adjudication_count=pl.col("_conflict").sum()
    )
    per_document = (
        docs.join(claim_counts, on=DOC, how="left")
        .join(evidence_counts, on=DOC, how="left")
        .join(edge_counts, on=DOC, how="left")
        .join(adjudication_counts, on=DOC, how="left")
        .join(conflict_counts, on=DOC, how="left")
        .with_columns(pl.exclude(DOC).cast(pl.Int64))
        .sort(DOC)
    )
    return [
        per_document,
        claims,
        evidence,
        edges.select(*edge_key, "multiplicity", "reason", "valid", "label", "_attached"),
        adjudications,
    ]
