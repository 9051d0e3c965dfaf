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

import numpy as np
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
    adjudications = adjudications.join(claim_codes, on=claim_key, how="left").join(
        evidence_codes, on=evidence_key, how="left"
    )
    # Rank codes: the position of (document, identifier) in byte order among the known and
    # the unknown identifiers alike, so that sorting by rank is sorting by identifier.
    edges, adjudications = _with_ranks(claims, claim_key, "_c", "_rc", [edges, adjudications])
    edges, adjudications = _with_ranks(evidence, evidence_key, "_e", "_re", [edges, adjudications])
    edges = _deduplicated(
        edges.with_columns(
            pl.when(pl.col("_c").is_null()).then(pl.col("claim_id")).alias("_mc"),
            pl.when(pl.col("_e").is_null()).then(pl.col("evidence_id")).alias("_me"),
            _rank_key(),
        ).drop("_rc", "_re")
    )
    # Evidence attributes by code: ``_e`` is the row position in ``evidence`` (a gather).
    edges = edges.with_columns(
        _gather(evidence, "start", edges["_e"], "_ev_start"),
        _gather(evidence, "end", edges["_e"], "_ev_end"),
        _gather(evidence, "source_id", edges["_e"], "_ev_source"),
        _gather(evidence, "source_length", edges["_e"], "_ev_length"),
        _gather(evidence, "span_status", edges["_e"], "_ev_status"),
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
    edges = edges.with_columns(reason.alias("reason"), _pair_key()).with_columns(
        pl.col("reason").is_null().alias("valid")
    )
    edges = edges.drop("_ev_start", "_ev_end", "_ev_source", "_ev_length", "_ev_status")

    # Adjudications: a row is matched when its pair has a valid edge; a pair's labels
    # collapse to one effective label (``unclear`` when they disagree). A pair is keyed by
    # one integer, ``_c * 2**32 + _e`` (null when either identifier is unknown).
    adjudications = adjudications.with_columns(
        pl.col("label").cast(_LABEL_ENUM), _pair_key(), _rank_key()
    ).drop("_rc", "_re")
    valid_pairs = edges.filter(pl.col("valid"))[_PAIR].unique()
    adjudications = adjudications.with_columns(
        pl.col(_PAIR).is_in(valid_pairs.implode()).fill_null(False).alias("matched")
    )
    pair_labels = (
        adjudications.filter(pl.col("matched"))
        .group_by(_PAIR)
        .agg(
            pl.col("_c").first(),
            pl.col("label").min().alias("_low"),
            pl.col("label").max().alias("_high"),
        )
        .with_columns(
            pl.when(pl.col("_low") != pl.col("_high"))
            .then(pl.lit("unclear", dtype=_LABEL_ENUM))
            .otherwise(pl.col("_low"))
            .alias("pair_label"),
            (pl.col("_low") != pl.col("_high")).alias("_conflict"),
        )
    )
    pair_labels = pair_labels.with_columns(_gather(claims, DOC, pair_labels["_c"], DOC))
    edges = (
        edges.join(
            pair_labels.select(_PAIR, "pair_label"), on=_PAIR, how="left", maintain_order="left"
        )
        .with_columns(
            pl.when(pl.col("valid")).then(pl.col("pair_label")).otherwise(None).alias("label")
        )
        .drop(_PAIR)
    )
    claim_flags = pair_labels.group_by("_c").agg(
        pl.lit(True).alias("adjudicated"),
        (pl.col("pair_label") == "supports").any().alias("supported"),
    )
    claims = claims.join(claim_flags, on="_c", how="left").with_columns(
        (~_marked(edges["_c"], claims.height)).alias("orphan"),
        pl.col("adjudicated").fill_null(False),
        pl.col("supported").fill_null(False),
    )
    evidence = evidence.with_columns(
        _marked(edges.filter(pl.col("_c").is_not_null())["_e"], evidence.height).alias("used")
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


_PAIR = "_p"
RANK = "_rk"
"""Edges and adjudications: ``claim rank * 2**32 + evidence rank`` (sorts by identifiers)."""


def _with_ranks(
    known: pl.DataFrame,
    key: list[str],
    code: str,
    rank: str,
    frames: list[pl.DataFrame],
) -> list[pl.DataFrame]:
    """Add ``rank`` to each of ``frames``: the position of its (document,) identifier in the
    byte order of the known identifiers (``known``, sorted by ``key``, code = row position)
    and the unknown ones the frames reference (``code`` null). Without unknown identifiers
    the rank is the code."""
    unknown = pl.concat(
        [frame.filter(pl.col(code).is_null()).select(key) for frame in frames]
    ).unique()
    if unknown.height == 0:
        return [frame.with_columns(pl.col(code).alias(rank)) for frame in frames]
    union = (
        pl.concat(
            [
                known.select(key).with_columns(pl.lit(True).alias("_known")),
                unknown.with_columns(pl.lit(False).alias("_known")),
            ]
        )
        .sort(key)
        .with_row_index(rank)
    )
    known_ranks = union.filter(pl.col("_known"))[rank]
    unknown_ranks = union.filter(~pl.col("_known")).select(*key, rank)
    out = []
    for frame in frames:
        ranks = known_ranks.gather(frame[code]) if known.height else frame[code]
        missing = frame[code].is_null().arg_true()
        if len(missing):
            found = (
                frame.select(key)
                .gather(missing)
                .join(unknown_ranks, on=key, how="left", maintain_order="left")[rank]
            )
            ranks = ranks.cast(pl.UInt32).scatter(missing, found)
        out.append(frame.with_columns(ranks.cast(pl.UInt32).alias(rank)))
    return out


def _rank_key() -> pl.Expr:
    return (pl.col("_rc").cast(pl.UInt64) * (1 << 32) + pl.col("_re").cast(pl.UInt64)).alias(RANK)


def _deduplicated(edges: pl.DataFrame) -> pl.DataFrame:
    """Exact de-duplication of the five-tuple per document, by sorting: rows sorted by
    (rank key, start, end, source_id) with nulls first — the order of the provenance digests —
    and one row per run of equal rows, with the run length as ``multiplicity``."""
    key = [RANK, "start", "end", "source_id"]
    edges = edges.sort(key, nulls_last=False)
    if edges.height == 0:
        return edges.with_columns(pl.lit(0, dtype=pl.Int64).alias("multiplicity"))
    first = edges.select(
        pl.any_horizontal(pl.col(name).ne_missing(pl.col(name).shift()) for name in key)
    ).to_series()
    starts = first.arg_true()
    stops = pl.concat([starts.slice(1), pl.Series([edges.height], dtype=starts.dtype)])
    return edges.gather(starts).with_columns((stops - starts).cast(pl.Int64).alias("multiplicity"))


def _pair_key() -> pl.Expr:
    """The integer key of a (claim, evidence) pair: ``_c * 2**32 + _e``."""
    return (pl.col("_c").cast(pl.UInt64) * (1 << 32) + pl.col("_e").cast(pl.UInt64)).alias(_PAIR)


def _gather(frame: pl.DataFrame, column: str, codes: pl.Series, name: str) -> pl.Series:
    """``frame[column]`` at the row positions ``codes`` (null where the code is null)."""
    if frame.height == 0:
        return pl.repeat(None, len(codes), dtype=frame.schema[column], eager=True).alias(name)
    return frame[column].gather(codes).alias(name)


def _marked(codes: pl.Series, n: int) -> pl.Series:
    """For each of ``n`` row positions, whether some non-null code in ``codes`` names it."""
    marks = np.zeros(n, dtype=bool)
    marks[codes.drop_nulls().to_numpy()] = True
    return pl.Series(marks)


def _by_code(codes: pl.Series, values: pl.Series, unknown: pl.Series) -> pl.Series:
    """``values[code]`` where the code is known, else the unknown identifier's string."""
    if values.len() == 0:
        return unknown.cast(pl.String)
    known = values.gather(codes.fill_null(0))
    return pl.select(pl.when(codes.is_null()).then(unknown).otherwise(known)).to_series()
