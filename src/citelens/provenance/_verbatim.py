"""The verbatim checks of the provenance check, as whole-column Polars and NumPy work.

:func:`edge_frame` joins the citations to their evidence and the evidence to its source text;
:func:`verbatim_statuses` then settles, for all edges at once, the four statuses that need a
verbatim occurrence of the quote: ``exact``, ``offset_unit``, ``relocated``, ``misattributed``
(and ``not_checkable``). Every step works on the rows the previous steps left open, so the
cost of the later (slower) steps follows the few edges that reach them. No Python loop runs
over edges, sources or occurrences here.

Offsets are code points (``str.slice``, ``str.len_chars``); Polars' ``str.find`` answers in
UTF-8 bytes, so positions are measured by the code-point length of the text before them
(``str.split``/``str.splitn`` pieces) instead.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from citelens._offsets import OffsetUnit, to_code_points

__all__ = ["EDGE_COLUMNS", "STATUS_COLUMNS", "edge_frame", "verbatim_statuses"]

# One row per edge after :func:`edge_frame` (``_edge``: the citation's row; ``_src``: the row
# of its source in the sources frame, null when the source has no text).
# The evidence fields an edge carries (joined from the evidence table).
_EVIDENCE_FIELDS = (
    "source_id",
    "start",
    "end",
    "quote",
    "offset_unit",
    "original_start",
    "original_end",
)
EDGE_COLUMNS = ("_edge", "document_ref", "claim_id", "evidence_id", *_EVIDENCE_FIELDS, "_src")

# What the checks add to every edge (null where the status does not give it).
STATUS_COLUMNS = {
    "status": pl.String,
    "found_start": pl.Int64,
    "found_end": pl.Int64,
    "found_source_id": pl.String,
    "score": pl.Float64,
    "matched_unit": pl.String,
}

# The readings of the cited offsets that ``offset_unit`` tries, in this order: the first that
# yields the quote wins. (column pair, unit it is read in, the unit's name in the output)
_READINGS: tuple[tuple[str, str, OffsetUnit | None, str], ...] = (
    ("original_start", "original_end", None, "code_point"),
    ("original_start", "original_end", "utf8", "utf8_byte"),
    ("original_start", "original_end", "utf16", "utf16_code_unit"),
    ("start", "end", "utf8", "utf8_byte"),
    ("start", "end", "utf16", "utf16_code_unit"),
)


def edge_frame(
    citations: pl.DataFrame, evidence: pl.DataFrame, sources: pl.DataFrame
) -> pl.DataFrame:
    """Every citation with its evidence (joined on ``document_ref`` and ``evidence_id``) and
    the row ``_src`` of its source in ``sources`` (on ``document_ref`` and ``source_id``), in
    the citations' order. A citation without evidence keeps null evidence columns."""
    edges = citations.select("document_ref", "claim_id", "evidence_id").with_row_index("_edge")
    joined = edges.join(
        evidence.select("document_ref", "evidence_id", *_EVIDENCE_FIELDS),
        on=["document_ref", "evidence_id"],
        how="left",
    )
    rows = sources.select("document_ref", "source_id").with_row_index("_src")
    rows = rows.filter(sources.get_column("text").is_not_null())
    joined = joined.join(rows, on=["document_ref", "source_id"], how="left")
    return joined.sort("_edge").select(EDGE_COLUMNS)


def _texts(sources: pl.DataFrame, rows: pl.Series) -> pl.Series:
    """The source text of every ``rows`` entry (a gather: Polars shares the string bytes)."""
    return sources.get_column("text").gather(rows).alias("text")


def verbatim_statuses(edges: pl.DataFrame, sources: pl.DataFrame) -> pl.DataFrame:
    """``edges`` (:func:`edge_frame`) with :data:`STATUS_COLUMNS`: ``status`` is set for the
    edges settled verbatim and null for the rest (normalized, fuzzy or absent: decided by
    :mod:`citelens.provenance._approx`)."""
    if sources.height:
        rows = edges.get_column("_src").fill_null(0).cast(pl.Int64)
        text = _texts(sources, rows)
        # each source's length counted once, not once per edge that cites it
        length = sources.get_column("text").str.len_chars().cast(pl.Int64).gather(rows)
    else:
        text = pl.Series("text", [None] * edges.height, dtype=pl.String)
        length = pl.Series("text", [None] * edges.height, dtype=pl.Int64)
    known = pl.col("_src").is_not_null()
    frame = edges.with_columns(
        pl.when(known).then(text).otherwise(None).alias("text"),
        pl.when(known).then(length).otherwise(None).alias("_text_length"),
    )
    frame = frame.with_columns(
        [pl.lit(None, dtype=dtype).alias(name) for name, dtype in STATUS_COLUMNS.items()]
    )
    checkable = (
        pl.col("quote").is_not_null() & (pl.col("quote") != "") & pl.col("text").is_not_null()
    )
    frame = frame.with_columns(
        status=pl.when(checkable).then(None).otherwise(pl.lit("not_checkable"))
    )
    frame = _exact(frame)
    frame = _offset_units(frame, sources)
    frame = _relocated(frame)
    frame = _misattributed(frame, sources)
    return frame.drop("_text_length").sort("_edge")


def _span_equals(frame: pl.DataFrame, start: str, end: str) -> pl.Expr:
    """The quote equals the text at code points ``[start, end)`` (a known, possible span;
    ``_text_length`` is the text's length)."""
    s, e = pl.col(start), pl.col(end)
    possible = (
        s.is_not_null() & e.is_not_null() & (s >= 0) & (s <= e) & (e <= pl.col("_text_length"))
    )
    sliced = pl.col("text").str.slice(
        pl.when(possible).then(s).otherwise(0), pl.when(possible).then(e - s).otherwise(0)
    )
    return possible & (sliced == pl.col("quote"))


def _settle(frame: pl.DataFrame, found: pl.Expr, status: str, **values: pl.Expr) -> pl.DataFrame:
    """Give ``status`` (and ``values``) to the open rows where ``found`` holds."""
    chosen = pl.col("status").is_null() & found.fill_null(False)
    return frame.with_columns(
        status=pl.when(chosen).then(pl.lit(status)).otherwise(pl.col("status")),
        **{
            name: pl.when(chosen).then(value).otherwise(pl.col(name))
            for name, value in values.items()
        },
    )


def _exact(frame: pl.DataFrame) -> pl.DataFrame:
    """``exact``: the quote is the text at the cited code-point offsets."""
    return _settle(
        frame,
        _span_equals(frame, "start", "end"),
        "exact",
        found_start=pl.col("start"),
        found_end=pl.col("end"),
        score=pl.lit(1.0),
        matched_unit=pl.lit("code_point"),
    )


def _offset_units(frame: pl.DataFrame, sources: pl.DataFrame) -> pl.DataFrame:
    """``offset_unit``: the quote is the text at the cited offsets read in another unit
    (:data:`_READINGS`; UTF-8 and UTF-16 offsets converted by :func:`to_code_points`)."""
    open_rows = frame.filter(pl.col("status").is_null())
    if open_rows.height == 0:
        return frame
    # only the texts these rows cite are handed to NumPy (each once)
    cited = open_rows.get_column("_src").unique().sort()
    texts = sources.get_column("text").gather(cited).to_arrow()
    position = {int(v): i for i, v in enumerate(cited.to_list())}
    index = open_rows.get_column("_src").replace_strict(position, return_dtype=pl.Int64)
    index_np = index.to_numpy()
    candidates = []
    for number, (start, end, unit, name) in enumerate(_READINGS):
        s = open_rows.get_column(start).fill_null(-1).to_numpy()
        e = open_rows.get_column(end).fill_null(-1).to_numpy()
        if unit is not None:
            s = to_code_points(texts, index_np, s, unit)
            e = to_code_points(texts, index_np, e, unit)
        candidates.append(
            pl.DataFrame(
                {
                    "_edge": open_rows.get_column("_edge"),
                    "_reading": pl.Series([number] * open_rows.height, dtype=pl.Int64),
                    "_s": pl.Series(np.where(s >= 0, s, -1), dtype=pl.Int64),
                    "_e": pl.Series(np.where(e >= 0, e, -1), dtype=pl.Int64),
                    "_name": pl.Series([name] * open_rows.height, dtype=pl.String),
                    "quote": open_rows.get_column("quote"),
                    "text": open_rows.get_column("text"),
                    "_text_length": open_rows.get_column("_text_length"),
                }
            ).filter((pl.col("_s") >= 0) & (pl.col("_e") >= 0))
        )
    readings = pl.concat(candidates)
    matched = (
        readings.filter(_span_equals(readings, "_s", "_e"))
        .sort("_edge", "_reading")
        .unique("_edge", keep="first")
        .select("_edge", "_s", "_e", "_name")
    )
    if matched.height == 0:
        return frame
    frame = frame.join(matched, on="_edge", how="left")
    frame = _settle(
        frame,
        pl.col("_s").is_not_null(),
        "offset_unit",
        found_start=pl.col("_s"),
        found_end=pl.col("_e"),
        score=pl.lit(1.0),
        matched_unit=pl.col("_name"),
    )
    return frame.drop("_s", "_e", "_name")


def _relocated(frame: pl.DataFrame) -> pl.DataFrame:
    """``relocated``: the quote occurs verbatim elsewhere in the cited text; the occurrence
    nearest the cited start (from 0 when none is known; the earlier one on a tie) is found.
    Occurrences are those of ``str.split``: left to right, not overlapping."""
    # the open rows first: a search through every edge's text (the settled ones included)
    # measured 1.8 s of a 1,000,000-edge check
    open_rows = frame.filter(pl.col("status").is_null())
    open_rows = open_rows.filter(
        pl.col("text").str.contains(pl.col("quote"), literal=True).fill_null(False)
    )
    if open_rows.height == 0:
        return frame
    pieces = (
        open_rows.select(
            "_edge",
            ref=pl.col("start").fill_null(0),
            length=pl.col("quote").str.len_chars().cast(pl.Int64),
            piece=pl.col("text").str.split(pl.col("quote")),
        )
        .explode("piece", empty_as_null=False)
        .with_columns(
            size=pl.col("piece").str.len_chars().cast(pl.Int64),
            k=pl.int_range(pl.len(), dtype=pl.Int64).over("_edge"),
            last=pl.int_range(pl.len(), dtype=pl.Int64).over("_edge") == pl.len().over("_edge") - 1,
        )
        # occurrence k starts after pieces 0..k and k earlier occurrences
        .with_columns(at=pl.col("size").cum_sum().over("_edge") + pl.col("k") * pl.col("length"))
        .filter(~pl.col("last"))
        .with_columns(distance=(pl.col("at") - pl.col("ref")).abs())
        .sort("_edge", "distance", "at")
        .unique("_edge", keep="first")
        .select("_edge", _at="at", _to=pl.col("at") + pl.col("length"))
    )
    frame = frame.join(pieces, on="_edge", how="left")
    frame = _settle(
        frame,
        pl.col("_at").is_not_null(),
        "relocated",
        found_start=pl.col("_at"),
        found_end=pl.col("_to"),
        score=pl.lit(1.0),
    )
    return frame.drop("_at", "_to")


def _misattributed(frame: pl.DataFrame, sources: pl.DataFrame) -> pl.DataFrame:
    """``misattributed``: the quote occurs verbatim in another source of the same document
    (the first such source in the sources' order; its first occurrence)."""
    open_rows = frame.filter(pl.col("status").is_null()).select(
        "_edge", "document_ref", "source_id", "quote"
    )
    if open_rows.height == 0:
        return frame
    others = (
        sources.with_row_index("_other")
        .filter(pl.col("text").is_not_null())
        .select("document_ref", "_other", other_id="source_id", other_text="text")
    )
    pairs = open_rows.join(others, on="document_ref", how="inner").filter(
        pl.col("other_id") != pl.col("source_id")
    )
    pairs = pairs.filter(pl.col("other_text").str.contains(pl.col("quote"), literal=True))
    if pairs.height == 0:
        return frame
    found = (
        pairs.sort("_edge", "_other")
        .unique("_edge", keep="first")
        .select(
            "_edge",
            "other_id",
            _at=pl.col("other_text")
            .str.splitn(pl.col("quote"), 2)
            .struct.field("field_0")
            .str.len_chars()
            .cast(pl.Int64),
            _length=pl.col("quote").str.len_chars().cast(pl.Int64),
        )
    )
    frame = frame.join(found, on="_edge", how="left")
    frame = _settle(
        frame,
        pl.col("_at").is_not_null(),
        "misattributed",
        found_start=pl.col("_at"),
        found_end=pl.col("_at") + pl.col("_length"),
        found_source_id=pl.col("other_id"),
        score=pl.lit(1.0),
    )
    return frame.drop("_at", "_length", "other_id")
