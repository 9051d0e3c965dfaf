"""The support metric kernel (§6): joins and group-bys over the canonical tables.

Every canonical table carries an integer document key ``_d``; every aggregate is grouped by it,
so one call evaluates one document (``_d = 0``) or a whole corpus in the same pass.

Identifiers are joined as strings exactly once: claims and evidence are sorted by
``(_d, identifier)`` and numbered (``_c``, ``_e``), edges and adjudications look their numbers
up, and everything after that — de-duplication, reasons, pairs, labels, orphans — works on
integer codes. Because the numbering follows the byte order of the identifiers, sorting by code
is sorting by identifier, which the provenance digests use.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

__all__ = ["LABELS", "REASON_CODES", "KernelResult", "run_kernel", "span_status"]

DOC = "_d"
REASON_CODES: tuple[str, ...] = (
    "citation_outside_evidence",
    "invalid_citation_span",
    "invalid_evidence_span",
    "missing_claim",
    "missing_evidence",
    "source_mismatch",
)
LABELS: tuple[str, ...] = ("supports", "contradicts", "irrelevant", "unclear")
_LABEL_ENUM = pl.Enum(list(LABELS))


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
    """Per-document aggregates plus the derived detail tables (identifiers as strings)."""

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

    ``documents`` lists the document keys ``_d`` to report (one row each), including
    documents with no rows in some tables. Identifier columns are ``String``; ``_d`` is an
    integer on every table.
    """
    claims = (
        claims.sort(DOC, "claim_id")
        .with_row_index("_c")
        .with_columns(
            span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias(
                "span_status"
            )
        )
    )
    evidence = (
        evidence.sort(DOC, "evidence_id")
        .with_row_index("_e")
        .with_columns(
            span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias(
                "span_status"
            )
        )
    )

    # One string join per identifier column; afterwards only integer codes are joined. With a
    # single document the document key is constant and is left out of the join keys.
    single = documents.height == 1
    claim_key = ["claim_id"] if single else [DOC, "claim_id"]
    evidence_key = ["evidence_id"] if single else [DOC, "evidence_id"]
    claim_codes = claims.select(*claim_key, "_c")
    evidence_codes = evidence.select(*evidence_key, "_e")
    edges = raw_edges.join(claim_codes, on=claim_key, how="left").join(
        evidence_codes, on=evidence_key, how="left"
    )
    # Exact de-duplication of the five-tuple (per document). Known identifiers are keyed by
    # their code (which implies the document); an unknown one keeps its string.
    if edges["_c"].null_count() == 0 and edges["_e"].null_count() == 0:
        key = ["_c", "_e", "start", "end", "source_id"]
        edges = edges.group_by(key).agg(
            pl.len().cast(pl.Int64).alias("multiplicity"), pl.col(DOC).first()
        )
        edges = edges.with_columns(
            pl.lit(None, dtype=pl.String).alias("_mc"), pl.lit(None, dtype=pl.String).alias("_me")
        )
    else:
        edges = edges.with_columns(
            pl.when(pl.col("_c").is_null()).then(pl.col("claim_id")).alias("_mc"),
            pl.when(pl.col("_e").is_null()).then(pl.col("evidence_id")).alias("_me"),
        )
        key = [DOC, "_c", "_e", "_mc", "_me", "start", "end", "source_id"]
        edges = edges.group_by(key).agg(pl.len().cast(pl.Int64).alias("multiplicity"))
    edges = edges.join(
        evidence.select(
            "_e",
            pl.col("start").alias("_ev_start"),
            pl.col("end").alias("_ev_end"),
            pl.col("source_id").alias("_ev_source"),
            pl.col("source_length").alias("_ev_length"),
            pl.col("span_status").alias("_ev_status"),
        ),
        on="_e",
        how="left",
    )
    start, end = pl.col("start"), pl.col("end")
    reason = (
        pl.when(pl.col("_c").is_null())
        .then(pl.lit("missing_claim"))
        .when(pl.col("_e").is_null())
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
    edges = (
        edges.with_columns(reason.alias("reason"))
        .with_columns(pl.col("reason").is_null().alias("valid"))
        .drop("_ev_start", "_ev_end", "_ev_source", "_ev_length", "_ev_status")
    )

    # Adjudications: a row is matched when its pair has a valid edge; a pair's labels
    # collapse to one effective label (``unclear`` when they disagree).
    adjudications = (
        adjudications.join(claim_codes, on=claim_key, how="left")
        .join(evidence_codes, on=evidence_key, how="left")
        .with_columns(pl.col("label").cast(_LABEL_ENUM))
    )
    valid_pairs = (
        edges.filter(pl.col("valid")).select("_c", "_e").unique().with_columns(_m=pl.lit(True))
    )
    adjudications = adjudications.join(valid_pairs, on=["_c", "_e"], how="left").with_columns(
        pl.col("_m").fill_null(False).alias("matched")
    )
    pair_labels = (
        adjudications.filter(pl.col("matched"))
        .group_by("_c", "_e")
        .agg(pl.col("label").min().alias("_low"), pl.col("label").max().alias("_high"))
        .with_columns(
            pl.when(pl.col("_low") != pl.col("_high"))
            .then(pl.lit("unclear", dtype=_LABEL_ENUM))
            .otherwise(pl.col("_low"))
            .alias("pair_label"),
            (pl.col("_low") != pl.col("_high")).alias("_conflict"),
        )
        .join(claims.select("_c", DOC), on="_c", how="left")
    )
    edges = edges.join(
        pair_labels.select("_c", "_e", "pair_label"), on=["_c", "_e"], how="left"
    ).with_columns(
        pl.when(pl.col("valid")).then(pl.col("pair_label")).otherwise(None).alias("label")
    )
    claim_flags = pair_labels.group_by("_c").agg(
        pl.lit(True).alias("adjudicated"),
        (pl.col("pair_label") == "supports").any().alias("supported"),
    )
    attached = edges.filter(pl.col("_c").is_not_null())
    claims = claims.join(claim_flags, on="_c", how="left").with_columns(
        (~pl.col("_c").is_in(attached["_c"].unique().implode())).alias("orphan"),
        pl.col("adjudicated").fill_null(False),
        pl.col("supported").fill_null(False),
    )
    evidence = evidence.with_columns(
        pl.col("_e").is_in(attached["_e"].drop_nulls().unique().implode()).alias("used")
    )

    docs = documents.select(DOC).unique()
    status = pl.col("span_status")
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
    per_document = (
        docs.join(
            _counts(
                claims,
                docs,
                claim_count=pl.len(),
                valid_claim_span_count=(status == "valid").sum(),
                missing_claim_span_count=(status == "missing").sum(),
                orphan_claim_count=pl.col("orphan").sum(),
                adjudicated_claim_count=pl.col("adjudicated").sum(),
                supported_claim_count=pl.col("supported").sum(),
            ),
            on=DOC,
            how="left",
        )
        .join(
            _counts(
                evidence,
                docs,
                evidence_count=pl.len(),
                valid_evidence_span_count=(status == "valid").sum(),
                missing_evidence_span_count=(status == "missing").sum(),
                used_evidence_count=pl.col("used").sum(),
            ),
            on=DOC,
            how="left",
        )
        .join(_counts(edges, docs, **edge_aggs), on=DOC, how="left")
        .join(
            _counts(
                adjudications,
                docs,
                adjudication_row_count=pl.len(),
                unmatched_adjudication_count=(~pl.col("matched")).sum(),
            ),
            on=DOC,
            how="left",
        )
        .join(
            _counts(pair_labels, docs, conflicting_adjudication_count=pl.col("_conflict").sum()),
            on=DOC,
            how="left",
        )
        .with_columns(pl.exclude(DOC).cast(pl.Int64))
        .sort(DOC)
    )
    # Identifier strings of edges come back from the code tables (a gather, not a join).
    edges = edges.with_columns(
        _by_code(edges["_c"], claims["claim_id"], edges["_mc"]).alias("claim_id"),
        _by_code(edges["_e"], evidence["evidence_id"], edges["_me"]).alias("evidence_id"),
    )
    return KernelResult(
        documents=per_document,
        claims=claims,
        evidence=evidence,
        edges=edges,
        adjudications=adjudications.with_columns(pl.col("label").cast(pl.String)),
    )


def _by_code(codes: pl.Series, values: pl.Series, unknown: pl.Series) -> pl.Series:
    """``values[code]`` where the code is known, else the unknown identifier's string."""
    if values.len() == 0:
        return unknown.cast(pl.String)
    known = values.gather(codes.fill_null(0))
    return pl.select(pl.when(codes.is_null()).then(unknown).otherwise(known)).to_series()
