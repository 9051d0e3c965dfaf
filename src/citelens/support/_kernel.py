"""The support metric kernel (§6): joins and group-bys over the canonical tables.

Every canonical table carries an integer document key ``_d``; every aggregate is grouped by it,
so one call evaluates one document (``_d = 0``) or a whole corpus in the same pass.

Identifiers are looked up exactly once: claims and evidence are sorted by
``(_d, identifier)`` and numbered (``_c``, ``_e``), edges and adjudications look their numbers
up (a join on a 64-bit hash of the key, every hit checked against the key), and everything
after that — de-duplication, reasons, pairs, labels, orphans — works on integer codes. Because
the numbering follows the byte order of the identifiers, sorting by code is sorting by
identifier, which the provenance digests use; the identifier strings of edges and
adjudications are dropped once looked up and come back by rank (:class:`KernelResult`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import polars as pl

from citelens.support._byte_order import by_identifier

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
_LABEL_VALUES = pl.Series(LABELS, dtype=_LABEL_ENUM)
_REASON_VALUES = pl.Series(REASON_CODES, dtype=pl.String)


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


def _span_valid(start: pl.Expr, end: pl.Expr, length: pl.Expr) -> pl.Expr:
    """``span_status(start, end, length) == "valid"`` as a boolean expression (never null)."""
    return (
        start.is_not_null()
        & end.is_not_null()
        & (start >= 0)
        & (end > start)
        & (length.is_null() | ((length >= 0) & (end <= length)))
    ).fill_null(False)


@dataclass(frozen=True)
class KernelResult:
    """Per-document aggregates plus the derived detail tables.

    Claims and evidence carry their identifiers as strings. Edges and adjudications name
    theirs by rank only (``_rk``: claim rank * 2**32 + evidence rank): ``claim_names`` and
    ``evidence_names`` hold the identifier of every rank, known and unknown, so a table's
    identifier strings are built only where they are read (:attr:`edges`,
    :attr:`adjudications`, the digests chunk by chunk) and the input's strings can be freed
    once they are looked up."""

    documents: pl.DataFrame
    claims: pl.DataFrame
    evidence: pl.DataFrame
    coded_edges: pl.DataFrame
    coded_adjudications: pl.DataFrame
    claim_names: pl.Series
    evidence_names: pl.Series

    @functools.cached_property
    def edges(self) -> pl.DataFrame:
        """The de-duplicated edges with ``claim_id`` and ``evidence_id`` strings."""
        return with_identifiers(self.coded_edges, self.claim_names, self.evidence_names)

    @functools.cached_property
    def adjudications(self) -> pl.DataFrame:
        """The adjudication rows with ``claim_id`` and ``evidence_id`` strings."""
        return with_identifiers(self.coded_adjudications, self.claim_names, self.evidence_names)


def identifier_ranks(frame: pl.DataFrame) -> tuple[pl.Series, pl.Series]:
    """The claim and evidence ranks of each row of a coded table (from its ``_rk``)."""
    ranks = frame[RANK]
    claim = (ranks // (1 << 32)).cast(pl.UInt32)
    evidence = (ranks % (1 << 32)).cast(pl.UInt32)
    return claim, evidence


def with_identifiers(
    frame: pl.DataFrame, claim_names: pl.Series, evidence_names: pl.Series
) -> pl.DataFrame:
    """``frame`` (a coded edge or adjudication table) with its identifier strings first."""
    claim, evidence = identifier_ranks(frame)
    return frame.select(
        _gather(claim_names, claim, "claim_id"),
        _gather(evidence_names, evidence, "evidence_id"),
        pl.all(),
    )


def _counts(frame: pl.DataFrame, docs: pl.DataFrame, **aggs: pl.Expr) -> pl.DataFrame:
    grouped = frame.group_by(DOC).agg(**aggs)
    joined = docs.join(grouped, on=DOC, how="left")
    return joined.with_columns(pl.col(name).fill_null(0) for name in aggs)


def run_kernel(tables: list[pl.DataFrame], documents: pl.DataFrame) -> KernelResult:
    """Evaluate every document of the canonical tables.

    ``tables`` holds the claims, evidence, all edges and all adjudications, and is emptied:
    the kernel takes the only references, so the input's identifier strings are freed once
    they are looked up (the peak memory of a call). ``documents`` lists the document keys
    ``_d`` to report (one row each), including documents with no rows in some tables.
    Identifier columns are ``String``; ``_d`` is an integer on every table.
    """
    claims, evidence, raw_edges, adjudications = tables
    tables.clear()
    single = documents.height == 1
    claims = (
        by_identifier(claims, "claim_id", single)
        .with_row_index("_c")
        .with_columns(
            span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias(
                "span_status"
            )
        )
    )
    evidence = (
        by_identifier(evidence, "evidence_id", single)
        .with_row_index("_e")
        .with_columns(
            span_status(pl.col("start"), pl.col("end"), pl.col("source_length")).alias(
                "span_status"
            )
        )
    )

    # One string join per identifier column (the key columns alone, in the order of the
    # rows); afterwards only integer codes are compared. With a single document the document
    # key is constant and is left out of the join keys.
    claim_key = ["claim_id"] if single else [DOC, "claim_id"]
    evidence_key = ["evidence_id"] if single else [DOC, "evidence_id"]
    claim_codes = claims.select(*claim_key, "_c")
    evidence_codes = evidence.select(*evidence_key, "_e")
    # Adjudications first, then edges: a frame's identifier strings are dropped as soon as
    # they are looked up (only its rows of unknown identifiers keep theirs, in a compact
    # copy), so the two frames' strings are never held at once (the peak memory of a call).
    adjudications, adjudication_missing = _coded(
        adjudications, claim_codes, claim_key, evidence_codes, evidence_key
    )
    edges, edge_missing = _coded(raw_edges, claim_codes, claim_key, evidence_codes, evidence_key)
    del raw_edges
    # Rank codes: the position of (document, identifier) in byte order among the known and
    # the unknown identifiers alike, so that sorting by rank is sorting by identifier. From
    # here on an identifier is its code and rank; ``claim_names``/``evidence_names`` give the
    # strings back.
    (edges, adjudications), claim_names = _with_ranks(
        claims,
        claim_key,
        "_c",
        "_rc",
        [edges, adjudications],
        [edge_missing[0], adjudication_missing[0]],
    )
    (edges, adjudications), evidence_names = _with_ranks(
        evidence,
        evidence_key,
        "_e",
        "_re",
        [edges, adjudications],
        [edge_missing[1], adjudication_missing[1]],
    )
    del edge_missing, adjudication_missing
    edges = edges.with_columns(_rank_key()).drop("_rc", "_re")
    adjudications = adjudications.with_columns(_rank_key()).drop("_rc", "_re")
    edges = _deduplicated(edges)
    # Evidence attributes by code: ``_e`` is the row position in ``evidence`` (a gather).
    codes = edges["_e"]
    edges = edges.with_columns(
        _gather(evidence["start"], codes, "_ev_start"),
        _gather(evidence["end"], codes, "_ev_end"),
        _gather(evidence["source_id"], codes, "_ev_source"),
        _gather(evidence["source_length"], codes, "_ev_length"),
        _gather(evidence["span_status"] != "valid", codes, "_ev_invalid"),
    )
    start, end = pl.col("start"), pl.col("end")

    def coded(name: str) -> pl.Expr:
        return pl.lit(REASON_CODES.index(name), dtype=pl.UInt8)

    none = pl.lit(None, dtype=pl.UInt8)
    reason = (
        pl.when(pl.col("_c").is_null())
        .then(coded("missing_claim"))
        .when(pl.col("_e").is_null())
        .then(coded("missing_evidence"))
        .when(pl.col("_ev_invalid"))
        .then(coded("invalid_evidence_span"))
        .when(
            (pl.col("source_id") != "")
            & (pl.col("_ev_source") != "")
            & (pl.col("source_id") != pl.col("_ev_source"))
        )
        .then(coded("source_mismatch"))
        .when(start.is_null() & end.is_null())
        .then(none)
        .when(~_span_valid(start, end, pl.col("_ev_length")))
        .then(coded("invalid_citation_span"))
        .when((start < pl.col("_ev_start")) | (end > pl.col("_ev_end")))
        .then(coded("citation_outside_evidence"))
        .otherwise(none)
    )
    # The reason as a code (cheap to compute and count), then as its string.
    reasons = edges.select(reason).to_series()
    edges = edges.with_columns(
        _REASON_VALUES.gather(reasons).alias("reason"), reasons.is_null().alias("valid")
    )
    edges = edges.drop("_ev_start", "_ev_end", "_ev_source", "_ev_length", "_ev_invalid")

    # Adjudications: a row is matched when its pair has a valid edge; a pair's labels
    # collapse to one effective label (``unclear`` when they disagree). A pair is named by
    # its rank key, which edges are sorted by: adjudications sorted by (rank, label) hold each
    # pair's rows as one run whose first and last labels are the lowest and the highest.
    adjudications = adjudications.with_columns(pl.col("label").cast(_LABEL_ENUM))
    pairs = _pair_runs(adjudications, edges.filter(pl.col("valid"))[RANK].to_numpy())
    adjudications = adjudications.with_columns(pairs.matched)
    pair_labels = pairs.labels.with_columns(_gather(claims[DOC], pairs.labels["_c"], DOC))
    edges = edges.with_columns(
        _labels_by_rank(pair_labels, edges[RANK], edges["valid"]).alias("label")
    )
    claims = claims.with_columns(
        _marked(pair_labels["_c"], claims.height).alias("adjudicated"),
        _marked(pair_labels.filter(pl.col("pair_label") == "supports")["_c"], claims.height).alias(
            "supported"
        ),
        (~_marked(edges["_c"], claims.height)).alias("orphan"),
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
    return KernelResult(
        documents=per_document,
        claims=claims,
        evidence=evidence,
        coded_edges=edges,
        coded_adjudications=adjudications.with_columns(pl.col("label").cast(pl.String)),
        claim_names=claim_names,
        evidence_names=evidence_names,
    )


RANK = "_rk"
"""Edges and adjudications: ``claim rank * 2**32 + evidence rank`` (sorts by identifiers)."""


@dataclass(frozen=True)
class _Missing:
    """A frame's rows whose identifier is unknown (code null) and their keys (document and
    identifier) in a compact copy: what the ranks need once the frame's identifier strings
    are dropped."""

    rows: pl.Series
    keys: pl.DataFrame


def _coded(
    frame: pl.DataFrame,
    claim_codes: pl.DataFrame,
    claim_key: list[str],
    evidence_codes: pl.DataFrame,
    evidence_key: list[str],
) -> tuple[pl.DataFrame, tuple[_Missing, _Missing]]:
    """``frame`` (edges or adjudications) with the codes of its claim and evidence instead of
    their identifier strings, and its rows of unknown claims and of unknown evidence."""
    claim = _lookup(frame, claim_codes, claim_key)
    evidence = _lookup(frame, evidence_codes, evidence_key)
    missing = (_missing(frame, claim, claim_key), _missing(frame, evidence, evidence_key))
    return frame.with_columns(claim, evidence).drop("claim_id", "evidence_id"), missing


def _missing(frame: pl.DataFrame, codes: pl.Series, key: list[str]) -> _Missing:
    rows = codes.is_null().arg_true()
    # A copy: the strings of a filtered frame share the input's buffers, which are to be freed.
    return _Missing(rows, _compact(frame.select(key).gather(rows)))


def _with_ranks(
    known: pl.DataFrame,
    key: list[str],
    code: str,
    rank: str,
    frames: list[pl.DataFrame],
    missing: list[_Missing],
) -> tuple[list[pl.DataFrame], pl.Series]:
    """Add ``rank`` to each of ``frames``: the position of its (document,) identifier in the
    byte order of the known identifiers (``known``, sorted by ``key``, code = row position)
    and the unknown ones the frames reference (``code`` null, rows and keys in ``missing``);
    also return the identifier of every rank. Without unknown identifiers the rank is the
    code.

    The unknown identifiers are few and the known ones already sorted, so the union is not
    sorted again: each sorted unknown is placed by a binary search among the known ones
    (``before``: how many known ones precede it), and both ranks follow by counting."""
    unknown = pl.concat([part.keys for part in missing]).unique()
    if unknown.height == 0:
        return [frame.with_columns(pl.col(code).alias(rank)) for frame in frames], known[key[-1]]
    unknown = by_identifier(unknown, key[-1], len(key) == 1)
    before = (
        _sort_key(known, key).search_sorted(_sort_key(unknown, key), side="left").to_numpy()
        if known.height
        else np.zeros(unknown.height, dtype=np.int64)
    )
    # Unknown j (in order) has ``before[j]`` known and ``j`` unknown identifiers below it;
    # known i has ``i`` known ones and those unknown ones whose ``before`` is at most i.
    unknown_ranks = unknown.with_columns(
        pl.Series(rank, before.astype(np.int64) + np.arange(unknown.height), dtype=pl.UInt32)
    )
    positions = np.arange(known.height)
    known_at = positions + np.searchsorted(before, positions, side="right")
    known_ranks = pl.Series(known_at, dtype=pl.UInt32)
    # The identifier of every rank: known ones at ``known_at``, unknown ones in between.
    source = np.empty(known.height + unknown.height, dtype=np.int64)
    source[known_at] = positions
    source[unknown_ranks[rank].to_numpy()] = known.height + np.arange(unknown.height)
    names = pl.concat([known[key[-1]], unknown[key[-1]]]).gather(source)
    out = []
    for frame, part in zip(frames, missing):
        ranks = known_ranks.gather(frame[code]) if known.height else frame[code]
        if len(part.rows):
            found = part.keys.join(unknown_ranks, on=key, how="left", maintain_order="left")
            ranks = ranks.cast(pl.UInt32).scatter(part.rows, found[rank])
        out.append(frame.with_columns(ranks.cast(pl.UInt32).alias(rank)))
    return out, names


def _compact(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` copied into buffers of its own (Polars' string views share the buffers of
    the frame they were filtered from: a few unknown identifiers would keep a whole input
    column alive)."""
    copied = pl.from_arrow(frame.to_arrow())
    assert isinstance(copied, pl.DataFrame)
    return copied


def _sort_key(frame: pl.DataFrame, key: list[str]) -> pl.Series:
    """A string column whose byte order is the order of ``key`` (``[identifier]`` or
    ``[document, identifier]``): the document as ten zero-padded digits (every ``UInt32``
    fits), then the identifier."""
    if len(key) == 1:
        return frame[key[0]]
    return frame.select(
        pl.concat_str(pl.col(key[0]).cast(pl.String).str.zfill(10), pl.col(key[1]))
    ).to_series()


def _rank_key() -> pl.Expr:
    return (pl.col("_rc").cast(pl.UInt64) * (1 << 32) + pl.col("_re").cast(pl.UInt64)).alias(RANK)


def _deduplicated(edges: pl.DataFrame) -> pl.DataFrame:
    """Exact de-duplication of the five-tuple per document, by sorting: rows sorted by
    (rank key, start, end, source_id) with nulls first — the order of the provenance digests —
    and one row per run of equal rows, with the run length as ``multiplicity``. Only the key
    columns are sorted; the other columns are gathered once, at the first row of each run
    (every column is a function of the key: the rank names document, claim and evidence)."""
    key = [RANK, "start", "end", "source_id"]
    if edges.height == 0:
        return edges.with_columns(pl.lit(0, dtype=pl.Int64).alias("multiplicity"))
    order = edges.select(pl.arg_sort_by(key, nulls_last=False)).to_series()
    ordered = edges.select(key)[order]
    first = ordered.select(
        pl.any_horizontal(pl.col(name).ne_missing(pl.col(name).shift()) for name in key)
    ).to_series()
    starts = first.arg_true()
    stops = pl.concat([starts.slice(1), pl.Series([edges.height], dtype=starts.dtype)])
    rest = edges.drop(key)[order.gather(starts)]
    return (
        ordered[starts]
        .hstack(rest.get_columns())
        .select(edges.columns)
        .with_columns((stops - starts).cast(pl.Int64).alias("multiplicity"))
    )


@dataclass(frozen=True)
class _Pairs:
    """Adjudication rows matched to a valid edge, and one row per matched pair."""

    matched: pl.Series
    labels: pl.DataFrame
    """``_rk`` (ascending), ``_c``, ``pair_label`` and ``_conflict`` of every matched pair."""


def _pair_runs(adjudications: pl.DataFrame, valid_ranks: np.ndarray) -> _Pairs:
    """Match adjudications to the valid edges' rank keys (ascending) and collapse each
    matched pair's labels. The rank key names the (claim, evidence) identities, known or not,
    and a valid edge has known ones, so equal keys are the same pair."""
    ranks = adjudications[RANK].to_numpy()
    codes = adjudications["label"].to_physical().to_numpy().astype(np.uint64)
    if len(ranks) and int(ranks.max()) < (1 << 62):
        order = np.argsort(ranks * np.uint64(4) + codes, kind="stable")
    else:
        order = np.lexsort((codes, ranks))
    ranks, codes = ranks[order], codes[order]
    if len(valid_ranks):
        found = np.minimum(np.searchsorted(valid_ranks, ranks), len(valid_ranks) - 1)
        hit = valid_ranks[found] == ranks
    else:
        hit = np.zeros(len(ranks), dtype=bool)
    matched = np.empty(len(ranks), dtype=bool)
    matched[order] = hit
    rows = order[hit]
    ranks, codes = ranks[hit], codes[hit]
    first = np.flatnonzero(np.r_[True, ranks[1:] != ranks[:-1]]) if len(ranks) else rows[:0]
    last = np.r_[first[1:], len(ranks)][: len(first)] - 1
    low, high = codes[first], codes[last]
    labels = pl.DataFrame(
        {
            RANK: ranks[first],
            "_c": adjudications["_c"].gather(rows[first]),
            "pair_label": _LABEL_VALUES.gather(np.where(low != high, 3, low)),
            "_conflict": low != high,
        }
    )
    return _Pairs(pl.Series("matched", matched), labels)


def _labels_by_rank(pair_labels: pl.DataFrame, ranks: pl.Series, valid: pl.Series) -> pl.Series:
    """The effective label of each valid edge's pair (``pair_labels`` sorted by rank key)."""
    if pair_labels.height == 0:
        return pl.repeat(None, len(ranks), dtype=_LABEL_ENUM, eager=True)
    keys = pair_labels[RANK].to_numpy()
    found = np.minimum(np.searchsorted(keys, ranks.to_numpy()), len(keys) - 1)
    hit = (keys[found] == ranks.to_numpy()) & valid.to_numpy()
    label = pair_labels["pair_label"].gather(found)
    return pl.select(pl.when(pl.Series(hit)).then(label)).to_series()


def _gather(values: pl.Series, codes: pl.Series, name: str) -> pl.Series:
    """``values`` at the row positions ``codes`` (null where the code is null)."""
    if values.len() == 0:
        return pl.repeat(None, len(codes), dtype=values.dtype, eager=True).alias(name)
    return values.gather(codes).alias(name)


def _lookup(frame: pl.DataFrame, table: pl.DataFrame, key: list[str]) -> pl.Series:
    """The code column of ``table`` (unique ``key``, then the code) for each row of
    ``frame``, in row order (null where the key is not in ``table``).

    The join is on a 64-bit hash of the key rather than on the key itself (about half the
    CPU of a string or multi-column join), and every hit is then checked against the table's
    key at the code it found, so a hash collision with an absent key finds nothing. Only when
    two of the table's own keys share a hash does the join fall back to the keys themselves."""
    keys = frame.select(key)
    codes = table.columns[len(key)]
    if table.height == 0:
        return pl.repeat(None, keys.height, dtype=table.schema[codes], eager=True).alias(codes)
    hashes = table.select(key).hash_rows()
    if hashes.n_unique() < table.height:
        return keys.join(table, on=key, how="left", maintain_order="left")[codes]
    probe = pl.DataFrame({"_h": keys.hash_rows()})
    build = pl.DataFrame({"_h": hashes, codes: table[codes]})
    found = probe.join(build, on="_h", how="left", maintain_order="left")[codes]
    same = pl.all_horizontal(keys[name] == table[name].gather(found) for name in key)
    return keys.select(pl.when(same.fill_null(False)).then(found).alias(codes)).to_series()


def _marked(codes: pl.Series, n: int) -> pl.Series:
    """For each of ``n`` row positions, whether some non-null code in ``codes`` names it."""
    marks = np.zeros(n, dtype=bool)
    marks[codes.drop_nulls().to_numpy()] = True
    return pl.Series(marks)
