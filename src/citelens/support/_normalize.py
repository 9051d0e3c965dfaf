"""The support rule engine: record rules (§3.5–§3.7) over whole columns, with problem codes.

Each ``*_stage`` function takes one collection as a Polars frame (one row per record, column
name = field name) and the document code of every row, and returns the canonical frame(s) and
a problem column: for every row, the code of the first check of its record rule that fails, in
the contract's step order, or null. A single call raises the first problem row's error; the
corpus mode gives every document with a problem row its error row. The same expressions decide
both, so the error a call raises and the document a corpus run flags are found by one pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import polars as pl

from citelens.support._cells import (
    BIG,
    INT,
    LIST,
    STR,
    STRUCT,
    Cell,
    cell_of,
    constant,
    first_value,
    row_index,
)
from citelens.support._fields import (
    Check,
    Problem,
    claim_type_rule,
    first_problem,
    group,
    identifier_rule,
    label_rule,
    length_rule,
    optional_identifier_rule,
    span_rule,
)
from citelens.support._records import (
    CLAIM_CITATION_ALIASES,
    CLAIM_ID_ALIASES,
    CLAIM_SOURCE_ALIASES,
    CLAIM_TYPE_ALIASES,
    EDGE_CLAIM_ALIASES,
    EDGE_EVIDENCE_ALIASES,
    EDGE_SOURCE_ALIASES,
    EVIDENCE_ID_ALIASES,
    EVIDENCE_SOURCE_ALIASES,
    ITEM_EVIDENCE_ALIASES,
)

__all__ = [
    "DOC",
    "ROW",
    "AdjudicationStage",
    "ClaimStage",
    "EdgeStage",
    "EvidenceStage",
    "Typed",
    "adjudication_stage",
    "citation_stage",
    "claim_stage",
    "evidence_stage",
]

DOC: Final = "_d"
ROW: Final = "_row"


Typed = Mapping[str, Cell]
"""Cells that replace a frame's own columns (CSV columns typed cell by cell)."""


def _cells(frame: pl.DataFrame, typed: Typed | None) -> dict[str, Cell]:
    cells = {name: cell_of(frame[name]) for name in frame.columns if name not in (DOC, ROW)}
    if typed:
        cells.update(typed)
    return cells


def _where(mask: pl.Series, then: pl.Series | object, otherwise: pl.Series | object) -> pl.Series:
    return pl.select(pl.when(mask).then(then).otherwise(otherwise)).to_series()  # type: ignore[arg-type]


def _lengths(length: pl.Series, source: pl.Series, lengths: Mapping[str, int]) -> pl.Series:
    """Fill a missing length from ``source_lengths`` by the normalised, non-empty source id."""
    if not lengths:
        return length
    fill = pl.DataFrame(
        {"_source": list(lengths), "_length": list(lengths.values())},
        schema={"_source": pl.String, "_length": pl.Int64},
    )
    return (
        pl.DataFrame({"_source": source, "_own": length})
        .join(fill, on="_source", how="left", maintain_order="left")
        .select(pl.coalesce("_own", "_length"))
        .to_series()
    )


@dataclass(frozen=True)
class EdgeStage:
    """Edges (claim_id, evidence_id, start, end, source_id, _d, _row) and row problems."""

    edges: pl.DataFrame
    problem: pl.Series


@dataclass(frozen=True)
class ClaimStage:
    """Claims, their embedded edges (claim order), and the problem of every claim row."""

    claims: pl.DataFrame
    edges: pl.DataFrame
    problem: pl.Series


@dataclass(frozen=True)
class EvidenceStage:
    """Evidence, embedded adjudications (evidence order), and the problem of every row."""

    evidence: pl.DataFrame
    adjudications: pl.DataFrame
    problem: pl.Series


@dataclass(frozen=True)
class AdjudicationStage:
    """Explicit adjudications and the problem of every row."""

    adjudications: pl.DataFrame
    problem: pl.Series


def _running_over(counts: pl.Series, doc: pl.Series, limit: int) -> pl.Series:
    """Rows at which the running per-document total of ``counts`` first exceeds ``limit``."""
    running = (
        pl.DataFrame({"c": counts, DOC: doc}).select(pl.col("c").cum_sum().over(DOC)).to_series()
    )
    return running > limit


# -- citations: explicit records and mapping items ----------------------------------------------


def _citation_rule(
    cells: dict[str, Cell], n: int, default_claim: pl.Series | None = None
) -> tuple[dict[str, pl.Series], list[Check]]:
    """The citation record rule (§3.5): claim, evidence, span, source id, identifiers."""
    if default_claim is not None:
        # a mapping item without a ``claim_id`` key gets the claim's normalised identifier
        own = cells.get("claim_id")
        given = cell_of(default_claim)
        cells = {**cells, "claim_id": given if own is None else _prefer(own, given)}
    claim, claim_conflict = group(cells, EDGE_CLAIM_ALIASES, n)
    evidence, evidence_conflict = group(cells, EDGE_EVIDENCE_ALIASES, n)
    start, end, span_checks = span_rule(cells, n)
    source, source_conflict = group(cells, EDGE_SOURCE_ALIASES, n)
    if "source_id" in cells:
        fallback = cells["source_id"]
        source = _prefer(source, fallback)
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


def _prefer(first: Cell, second: Cell) -> Cell:
    """``first`` where present, else ``second`` (no conflict check)."""
    take = ~first.present
    return Cell(
        _where(take, second.kind, first.kind),
        _where(take, second.s, first.s),
        _where(take, second.i, first.i),
        _where(take, second.u, first.u),
        _where(take, second.f, first.f),
    )


def _edge_frame(columns: dict[str, pl.Series], doc: pl.Series, row: pl.Series) -> pl.DataFrame:
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


def citation_stage(frame: pl.DataFrame, doc: pl.Series, typed: Typed | None = None) -> EdgeStage:
    """Explicit citation records (§5 stage 6): one edge per row."""
    n = frame.height
    columns, checks = _citation_rule(_cells(frame, typed), n)
    row = row_index(n)
    return EdgeStage(_edge_frame(columns, doc, row), first_problem(checks, n))


# -- claims ---------------------------------------------------------------------------------


def _struct_cells(series: pl.Series) -> dict[str, Cell]:
    dtype = series.dtype
    assert isinstance(dtype, pl.Struct)
    return {f.name: cell_of(series.struct.field(f.name)) for f in dtype.fields}


@dataclass(frozen=True)
class _Items:
    """Citation items of claim rows, in claim order then item order: the claim row of each
    item, its value as a cell, and the struct of mapping items (null for other items)."""

    row: pl.Series
    cell: Cell
    raw: pl.Series | None


def _concat_cells(cells: list[Cell]) -> Cell:
    return Cell(
        pl.concat([c.kind for c in cells]),
        pl.concat([c.s for c in cells]),
        pl.concat([c.i for c in cells]),
        pl.concat([c.u for c in cells]),
        pl.concat([c.f for c in cells]),
    )


def _items(value: Cell, chosen: pl.Series, aliases: list[Cell], n: int) -> _Items:
    """Expand each claim's citation value (§3.6): a text, an integer or a mapping is one item,
    a list its elements. ``aliases`` are the alias cells, ``chosen`` the alias each row's value
    came from (aliases may differ in type, so each is expanded on the rows it provides)."""
    index = row_index(n)
    rows: list[pl.Series] = []
    cells: list[Cell] = []
    structs: list[pl.Series] = []
    for position, alias in enumerate(aliases):
        mine = (chosen == position).fill_null(False)
        scalar = mine & value.is_kind(STR, INT, BIG)
        if bool(scalar.any()):
            rows.append(index.filter(scalar))
            cells.append(cell_of(alias.s.filter(scalar)))
            structs.append(constant(None, int(scalar.sum()), pl.Null))
        for kind in (STRUCT, LIST):
            take = mine & (value.kind == kind)
            if not bool(take.any()) or alias.raw is None:
                continue
            raw = alias.raw.filter(take)
            item_rows = index.filter(take)
            if kind == LIST:
                if isinstance(raw.dtype, pl.Array):
                    raw = raw.cast(pl.List(raw.dtype.inner))
                exploded = pl.DataFrame({"r": item_rows, "v": raw}).explode(
                    "v", empty_as_null=False
                )
                exploded = exploded.filter(pl.col("r").is_not_null())
                # an empty list contributes no item: explode keeps it as one null row
                lengths = raw.list.len()
                keep = pl.DataFrame({"r": item_rows, "l": lengths}).filter(pl.col("l") > 0)["r"]
                exploded = exploded.filter(pl.col("r").is_in(keep.implode()))
                item_rows, raw = exploded["r"], exploded["v"]
            rows.append(item_rows)
            cells.append(cell_of(raw))
            structs.append(
                raw if isinstance(raw.dtype, pl.Struct) else constant(None, len(raw), pl.Null)
            )
    if not rows:
        return _Items(pl.Series([], dtype=pl.UInt32), cell_of(pl.Series([], dtype=pl.String)), None)
    item_row = pl.concat(rows)
    cell = _concat_cells(cells)
    raw_all: pl.Series | None = None
    if any(isinstance(s.dtype, pl.Struct) for s in structs):
        frames = [s.alias("v").to_frame() for s in structs]
        raw_all = pl.concat(frames, how="vertical_relaxed")["v"]
    order = pl.DataFrame({"r": item_row}).with_row_index("i").sort("r", maintain_order=True)["i"]
    return _Items(
        item_row.gather(order),
        Cell(
            cell.kind.gather(order),
            cell.s.gather(order),
            cell.i.gather(order),
            cell.u.gather(order),
            cell.f.gather(order),
        ),
        None if raw_all is None else raw_all.gather(order),
    )


def claim_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    citation_limit: int,
    lengths: Mapping[str, int],
    typed: Typed | None = None,
) -> ClaimStage:
    """Claim records (§5 stage 2): the claim record rule, embedded edges, the running bound."""
    n = frame.height
    cells = _cells(frame, typed)
    claim, id_conflict = group(cells, CLAIM_ID_ALIASES, n)
    start, end, span_checks = span_rule(cells, n)
    source, source_conflict = group(cells, CLAIM_SOURCE_ALIASES, n)
    length, length_checks = length_rule(cells, n)
    citation_cells = [cells[a] for a in CLAIM_CITATION_ALIASES if a in cells]
    citation, citation_conflict = group(cells, CLAIM_CITATION_ALIASES, n)
    claim_type, type_conflict = group(cells, CLAIM_TYPE_ALIASES, n)
    claim_id, claim_checks = identifier_rule(claim)
    source_id, source_checks = optional_identifier_rule(source)
    type_value, type_checks = claim_type_rule(claim_type)
    bad_value = citation.present & ~citation.is_kind(STR, INT, BIG, LIST, STRUCT)

    # Step 8 and 11: the claim's own citation list and its edges, item by item.
    if citation_cells:
        _, _, chosen = first_value(citation_cells)
        items = _items(citation, chosen, citation_cells, n)
    else:
        items = _Items(
            pl.Series([], dtype=pl.UInt32), cell_of(pl.Series([], dtype=pl.String)), None
        )
    counts = (
        pl.DataFrame({"r": items.row})
        .group_by("r")
        .len()
        .join(pl.DataFrame({"r": row_index(n)}), on="r", how="right")
        .sort("r")
        .select(pl.col("len").fill_null(0).cast(pl.Int64))
        .to_series()
    )
    listed = citation.kind == LIST
    list_over = listed & (counts > citation_limit)
    mapping = items.cell.kind == STRUCT
    item_n = len(items.row)
    if items.raw is not None and bool(mapping.any()):
        fields = _struct_cells(items.raw)
        evidence, _ = group(fields, ITEM_EVIDENCE_ALIASES, item_n)
        item_value = _where_cell(mapping, evidence, items.cell)
        no_evidence = mapping & ~evidence.present
    else:
        fields = {}
        item_value = items.cell
        no_evidence = constant(False, item_n, pl.Boolean)
    item_id, item_checks = identifier_rule(item_value)
    item_problem = first_problem(item_checks, item_n)
    per_claim = _per_claim(items.row, no_evidence, item_problem, n)

    # Edges: plain items become (claim, item); mapping items go through the citation rule.
    claim_of_item = claim_id.gather(items.row) if item_n else pl.Series([], dtype=pl.String)
    if fields:
        record_columns, record_checks = _citation_rule(fields, item_n, claim_of_item)
        record_problem = first_problem(record_checks, item_n)
        record_problem = _where(mapping, record_problem, pl.lit(None, pl.UInt8))
    else:
        record_columns = {}
        record_problem = constant(None, item_n, pl.UInt8)
    edge_columns = {
        "claim_id": _where(mapping, record_columns.get("claim_id", claim_of_item), claim_of_item)
        if fields
        else claim_of_item,
        "evidence_id": _where(mapping, record_columns["evidence_id"], item_id)
        if fields
        else item_id,
        "start": _where(mapping, record_columns["start"], pl.lit(None, pl.Int64))
        if fields
        else constant(None, item_n, pl.Int64),
        "end": _where(mapping, record_columns["end"], pl.lit(None, pl.Int64))
        if fields
        else constant(None, item_n, pl.Int64),
        "source_id": _where(mapping, record_columns["source_id"], pl.lit(""))
        if fields
        else constant("", item_n, pl.String),
    }
    edge_doc = doc.gather(items.row) if item_n else pl.Series([], dtype=pl.UInt32)
    edges = _edge_frame(edge_columns, edge_doc, items.row)
    edge_problem = _first_by_claim(items.row, record_problem, n)

    checks: list[Check] = [
        (id_conflict, Problem.CONFLICT),
        (~claim.present, Problem.CLAIM_ID_REQUIRED),
        *span_checks,
        (source_conflict, Problem.CONFLICT),
        *length_checks,
        (citation_conflict, Problem.CONFLICT),
        (type_conflict, Problem.CONFLICT),
        (bad_value, Problem.CITATION_VALUE),
        (list_over, Problem.CITATION_LIMIT),
        (per_claim["evidence"], Problem.ITEM_EVIDENCE),
        *_code_checks(per_claim["identifier"]),
        *claim_checks,
        *source_checks,
        *type_checks,
        *_code_checks(edge_problem),
        (_running_over(counts, doc, citation_limit), Problem.CITATION_LIMIT),
    ]
    claims = pl.DataFrame(
        {
            "claim_id": claim_id.cast(pl.String),
            "start": start,
            "end": end,
            "source_id": source_id.cast(pl.String),
            "source_length": _lengths(length, source_id, lengths),
            "claim_type": type_value.cast(pl.String),
            DOC: doc.cast(pl.UInt32),
        }
    )
    return ClaimStage(claims, edges, first_problem(checks, n))


def _where_cell(mask: pl.Series, a: Cell, b: Cell) -> Cell:
    return Cell(
        _where(mask, a.kind, b.kind),
        _where(mask, a.s, b.s),
        _where(mask, a.i, b.i),
        _where(mask, a.u, b.u),
        _where(mask, a.f, b.f),
    )


def _code_checks(codes: pl.Series) -> list[Check]:
    """A per-row problem code column as checks (one per distinct code, same position)."""
    distinct = sorted(int(c) for c in codes.drop_nulls().unique().to_list())
    return [(codes == code, code) for code in distinct]


def _per_claim(
    item_row: pl.Series, no_evidence: pl.Series, item_problem: pl.Series, n: int
) -> dict[str, pl.Series]:
    """Step 8 per claim: any mapping item without evidence; else the first item's id problem."""
    frame = pl.DataFrame({"r": item_row, "e": no_evidence, "p": item_problem}).with_row_index("i")
    agg = frame.group_by("r").agg(
        pl.col("e").any().alias("e"),
        pl.col("p").filter(pl.col("p").is_not_null()).first().alias("p"),
    )
    full = pl.DataFrame({"r": row_index(n)}).join(agg, on="r", how="left").sort("r")
    return {"evidence": full["e"].fill_null(False), "identifier": full["p"]}


def _first_by_claim(item_row: pl.Series, problem: pl.Series, n: int) -> pl.Series:
    frame = pl.DataFrame({"r": item_row, "p": problem})
    agg = frame.group_by("r").agg(pl.col("p").filter(pl.col("p").is_not_null()).first())
    full = pl.DataFrame({"r": row_index(n)}).join(agg, on="r", how="left").sort("r")
    return full["p"]


# -- evidence -------------------------------------------------------------------------------


def evidence_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    adjudication_limit: int,
    lengths: Mapping[str, int],
    typed: Typed | None = None,
) -> EvidenceStage:
    """Evidence records (§5 stage 3) with their embedded adjudications and running bound."""
    n = frame.height
    cells = _cells(frame, typed)
    evidence, id_conflict = group(cells, EVIDENCE_ID_ALIASES, n)
    start, end, span_checks = span_rule(cells, n)
    source, source_conflict = group(cells, EVIDENCE_SOURCE_ALIASES, n)
    length, length_checks = length_rule(cells, n)
    evidence_id, evidence_checks = identifier_rule(evidence)
    source_id, source_checks = optional_identifier_rule(source)
    claim, claim_conflict = group(cells, EDGE_CLAIM_ALIASES, n)
    has_claim = claim.present
    label, label_checks = label_rule(cells, n)
    claim_id, claim_checks = identifier_rule(claim)
    embeds = has_claim & label.is_not_null()
    checks: list[Check] = [
        (id_conflict, Problem.CONFLICT),
        (~evidence.present, Problem.EVIDENCE_ID_REQUIRED),
        *span_checks,
        (source_conflict, Problem.CONFLICT),
        *length_checks,
        *evidence_checks,
        *source_checks,
        (claim_conflict, Problem.CONFLICT),
        *[(has_claim & mask, code) for mask, code in label_checks],
        *[(embeds & mask, code) for mask, code in claim_checks],
        (
            _running_over(embeds.cast(pl.Int64), doc, adjudication_limit),
            Problem.ADJUDICATION_LIMIT,
        ),
    ]
    evidence_frame = pl.DataFrame(
        {
            "evidence_id": evidence_id.cast(pl.String),
            "start": start,
            "end": end,
            "source_id": source_id.cast(pl.String),
            "source_length": _lengths(length, source_id, lengths),
            DOC: doc.cast(pl.UInt32),
        }
    )
    adjudications = pl.DataFrame(
        {
            "claim_id": claim_id.cast(pl.String),
            "evidence_id": evidence_id.cast(pl.String),
            "label": label.cast(pl.String),
            "origin": constant("evidence", n, pl.String),
            DOC: doc.cast(pl.UInt32),
        }
    ).filter(embeds)
    return EvidenceStage(evidence_frame, adjudications, first_problem(checks, n))


# -- adjudications --------------------------------------------------------------------------


def adjudication_stage(
    frame: pl.DataFrame, doc: pl.Series, typed: Typed | None = None
) -> AdjudicationStage:
    """Explicit adjudication records (§5 stage 9)."""
    n = frame.height
    cells = _cells(frame, typed)
    claim, claim_conflict = group(cells, EDGE_CLAIM_ALIASES, n)
    evidence, evidence_conflict = group(cells, EDGE_EVIDENCE_ALIASES, n)
    if "source_id" in cells:
        evidence = _prefer(evidence, cells["source_id"])
    label, label_checks = label_rule(cells, n)
    claim_id, claim_checks = identifier_rule(claim)
    evidence_id, evidence_checks = identifier_rule(evidence)
    checks: list[Check] = [
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
