"""The support rule engine, part two: citation and adjudication records, compact-mapping keys
and ``source_lengths`` (§3.4–§3.8) over whole columns, with problem codes.

Shared by the claim and evidence stages of :mod:`citelens.support._normalize`: the column
helpers, the stage result types and the citation record rule (also applied to the mapping items
of a claim's citation list).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import polars as pl

from citelens.support._aliases import (
    EDGE_CLAIM_ALIASES,
    EDGE_EVIDENCE_ALIASES,
    EDGE_SOURCE_ALIASES,
)
from citelens.support._cells import INT, Cell, RowForm, cell_of, constant, row_index, where_cell
from citelens.support._fields import (
    Check,
    Problem,
    first_problem,
    group,
    identifier_rule,
    label_rule,
    optional_identifier_rule,
    span_rule,
)

__all__ = [
    "DOC",
    "ROW",
    "AdjudicationStage",
    "EdgeStage",
    "Typed",
    "adjudication_stage",
    "citation_rule",
    "citation_stage",
    "code_checks",
    "key_stage",
    "source_length_stage",
]

DOC: Final = "_d"
ROW: Final = "_row"

Typed = Mapping[str, Cell]
"""Cells that replace a frame's own columns (CSV columns typed cell by cell, Python values)."""


def cells_of(frame: pl.DataFrame, typed: Typed | None) -> dict[str, Cell]:
    """The cell of every field column of ``frame``, ``typed`` cells overriding."""
    cells = {name: cell_of(frame[name]) for name in frame.columns if name not in (DOC, ROW)}
    if typed:
        cells.update(typed)
    return cells


def where(mask: pl.Series, then: pl.Series | object, otherwise: pl.Series | object) -> pl.Series:
    """``then`` on the rows of ``mask``, ``otherwise`` elsewhere."""
    return pl.select(pl.when(mask).then(then).otherwise(otherwise)).to_series()  # type: ignore[arg-type]


def code_checks(codes: pl.Series | None) -> list[Check]:
    """A per-row problem code column as checks (one per distinct code, same position)."""
    if codes is None:
        return []
    distinct = sorted(int(c) for c in codes.drop_nulls().unique().to_list())
    return [(codes == code, code) for code in distinct]


def prefer(first: Cell, second: Cell) -> Cell:
    """``first`` where present, else ``second`` (no conflict check)."""
    return where_cell(~first.present, second, first)


def with_default(value: Cell, form: RowForm | None) -> Cell:
    """A first-value that falls back to the row's default identifier (compact mappings)."""
    if form is None or form.default is None:
        return value
    return prefer(value, form.default)


def running_over(counts: pl.Series, doc: pl.Series, limit: int) -> pl.Series:
    """Rows at which the running per-document total of ``counts`` first exceeds ``limit``."""
    running = (
        pl.DataFrame({"c": counts, DOC: doc}).select(pl.col("c").cum_sum().over(DOC)).to_series()
    )
    return running > limit


@dataclass(frozen=True)
class EdgeStage:
    """Edges (claim_id, evidence_id, start, end, source_id, _d, _row) and row problems."""

    edges: pl.DataFrame
    problem: pl.Series


@dataclass(frozen=True)
class AdjudicationStage:
    """Explicit adjudications and the problem of every row."""

    adjudications: pl.DataFrame
    problem: pl.Series


# -- citations: explicit records and mapping items ----------------------------------------------


def citation_rule(
    cells: dict[str, Cell], n: int, default_claim: pl.Series | None = None
) -> tuple[dict[str, pl.Series], list[Check]]:
    """The citation record rule (§3.5): claim, evidence, span, source id, identifiers."""
    if default_claim is not None:
        # a mapping item without a ``claim_id`` key gets the claim's normalised identifier
        own = cells.get("claim_id")
        given = cell_of(default_claim)
        if own is None:
            claim_cell = given
        else:
            has_key = own.present if own.keyed is None else own.keyed
            claim_cell = where_cell(~has_key, given, own)
        cells = {**cells, "claim_id": claim_cell}
    claim, claim_conflict = group(cells, EDGE_CLAIM_ALIASES, n)
    evidence, evidence_conflict = group(cells, EDGE_EVIDENCE_ALIASES, n)
    start, end, span_checks = span_rule(cells, n)
    source, source_conflict = group(cells, EDGE_SOURCE_ALIASES, n)
    if "source_id" in cells:
        source = prefer(source, cells["source_id"])
    claim_id, claim_checks = identifier_rule(claim)
    evidence_id, evidence_checks = identifier_rule(evidence)
    source_id, source_checks = optional_identifier_rule(source)
    checks: list[Check] = [
        (claim_conflict, Problem.CONFLICT),
        (evidence_conflict, Problem.CONFLICT),
        (~claim.present | ~evidence.present, Problem.CITATION_IDS),
        *span_checks,
        (source_conflict, Problem.CONFLICT),
        *claim_checks,
        *evidence_checks,
        *source_checks,
    ]
    columns = {
        "claim_id": claim_id,
        "evidence_id": evidence_id,
        "start": start,
        "end": end,
        "source_id": source_id,
    }
    return columns, checks


def edge_frame(columns: dict[str, pl.Series], doc: pl.Series, row: pl.Series) -> pl.DataFrame:
    """The canonical edge columns plus the document code and the input row."""
    return pl.DataFrame(
        {
            "claim_id": columns["claim_id"].cast(pl.String),
            "evidence_id": columns["evidence_id"].cast(pl.String),
            "start": columns["start"].cast(pl.Int64),
            "end": columns["end"].cast(pl.Int64),
            "source_id": columns["source_id"].cast(pl.String),
            DOC: doc.cast(pl.UInt32),
            ROW: row.cast(pl.UInt32),
        }
    )


def citation_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    typed: Typed | None = None,
    *,
    form: RowForm | None = None,
    limit: int | None = None,
) -> EdgeStage:
    """Explicit citation records (§5 stage 6): one edge per row.

    ``form`` carries what the adapter found: conversion problems, plain pairs (whose two
    elements go through the identifier rule), and for a compact mapping the rows that are edges,
    whose running number is bounded by ``limit``."""
    # the row count is the document column's: a frame without columns has height 0 on Polars
    # 1.43 (the floor) whatever its rows, so a claims table of document_ref alone would
    # otherwise lose its rows
    n = len(doc)
    columns, checks = citation_rule(cells_of(frame, typed), n)
    problem = first_problem(checks, n)
    if form is not None and form.pair is not None:
        assert form.first is not None and form.second is not None
        pair = form.pair
        claim_id, claim_checks = identifier_rule(form.first)
        evidence_id, evidence_checks = identifier_rule(form.second)
        problem = where(pair, first_problem([*claim_checks, *evidence_checks], n), problem)
        columns = {
            "claim_id": where(pair, claim_id, columns["claim_id"]),
            "evidence_id": where(pair, evidence_id, columns["evidence_id"]),
            "start": where(pair, pl.lit(None, pl.Int64), columns["start"]),
            "end": where(pair, pl.lit(None, pl.Int64), columns["end"]),
            "source_id": where(pair, pl.lit(""), columns["source_id"]),
        }
    if form is not None:
        later: list[Check] = []
        if form.counted is not None and limit is not None:
            over = running_over(form.counted.cast(pl.Int64), doc, limit)
            later.append((form.counted & over, Problem.CITATION_LIMIT))
        problem = pl.select(
            pl.coalesce(
                form.pre if form.pre is not None else pl.lit(None, pl.UInt8),
                problem,
                first_problem(later, n),
            )
        ).to_series()
    return EdgeStage(edge_frame(columns, doc, row_index(n)), problem)


# -- adjudications --------------------------------------------------------------------------


def adjudication_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    typed: Typed | None = None,
    *,
    form: RowForm | None = None,
) -> AdjudicationStage:
    """Explicit adjudication records (§5 stage 9)."""
    # the row count is the document column's: a frame without columns has height 0 on Polars
    # 1.43 (the floor) whatever its rows, so a claims table of document_ref alone would
    # otherwise lose its rows
    n = len(doc)
    cells = cells_of(frame, typed)
    claim, claim_conflict = group(cells, EDGE_CLAIM_ALIASES, n)
    claim = with_default(claim, form)
    evidence, evidence_conflict = group(cells, EDGE_EVIDENCE_ALIASES, n)
    if "source_id" in cells:
        evidence = prefer(evidence, cells["source_id"])
    label, label_checks = label_rule(cells, n)
    claim_id, claim_checks = identifier_rule(claim)
    evidence_id, evidence_checks = identifier_rule(evidence)
    checks: list[Check] = [
        *code_checks(None if form is None else form.pre),
        (claim_conflict, Problem.CONFLICT),
        (evidence_conflict, Problem.CONFLICT),
        *label_checks,
        (~claim.present | ~evidence.present | label.is_null(), Problem.ADJUDICATION_FIELDS),
        *claim_checks,
        *evidence_checks,
    ]
    adjudications = pl.DataFrame(
        {
            "claim_id": claim_id.cast(pl.String),
            "evidence_id": evidence_id.cast(pl.String),
            "label": label.cast(pl.String),
            "origin": constant("explicit", n, pl.String),
            DOC: doc.cast(pl.UInt32),
        }
    )
    return AdjudicationStage(adjudications, first_problem(checks, n))


# -- compact-mapping keys and source lengths -------------------------------------------------


def key_stage(keys: Cell, shape: pl.Series | None = None) -> pl.Series:
    """The first pass over a compact mapping's entries: each key through the identifier rule,
    then what the adapter found about its value (``shape``), entry by entry."""
    _, checks = identifier_rule(keys)
    return first_problem([*checks, *code_checks(shape)], len(keys))


def source_length_stage(keys: Cell, values: Cell) -> tuple[dict[str, int], pl.Series]:
    """``source_lengths`` (§3.4): each key through the identifier rule, each value a non-bool
    int64; the normalised mapping (a later duplicate key wins) and the problem of each entry."""
    key, checks = identifier_rule(keys)
    checks.append((values.kind != INT, Problem.LENGTH_NOT_INT))
    problem = first_problem(checks, len(keys))
    lengths = dict(zip(key.to_list(), values.i.to_list()))
    return lengths, problem
