"""The support rule engine: record rules (§3.5–§3.7) over whole columns, with problem codes.

Each ``*_stage`` function takes one collection as a Polars frame (one row per record, column
name = field name) and the document code of every row, and returns the canonical frame(s) and
a problem column: for every row, the code of the first check of its record rule that fails, in
the contract's step order, or null. A single call raises the first problem row's error; the
corpus mode gives every document with a problem row its error row. The same expressions decide
both, so the error a call raises and the document a corpus run flags are found by one pass.

Python records reach these stages through the thin adapter (``_adapter``): their fields as
frame columns or :class:`~citelens.support._cells.Cell`s (``typed``), and a
:class:`~citelens.support._cells.RowForm` with what conversion found. Citations and
adjudications are in :mod:`citelens.support._edges`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import polars as pl

from citelens.support._aliases import (
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
from citelens.support._cells import (
    BIG,
    INT,
    LIST,
    STR,
    STRUCT,
    Cell,
    RowForm,
    absent_cell,
    concat_cells,
    constant,
    filter_cell,
    first_value,
    gather_cell,
    row_index,
    where_cell,
)
from citelens.support._edges import (
    DOC,
    ROW,
    AdjudicationStage,
    EdgeStage,
    Typed,
    adjudication_stage,
    cells_of,
    citation_rule,
    citation_stage,
    code_checks,
    edge_frame,
    key_stage,
    running_over,
    source_length_stage,
    where,
    with_default,
)
from citelens.support._fields import (
    NESTED_ALIASES,
    NESTED_END,
    NESTED_START,
    SPAN_END,
    SPAN_START,
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
from citelens.support._pyvalues import list_items, struct_fields

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
    "key_stage",
    "source_length_stage",
]

# The keys the citation record rule reads from a mapping item of a claim's citation list.
_ITEM_KEYS: Final = frozenset(
    (
        *EDGE_CLAIM_ALIASES,
        *EDGE_EVIDENCE_ALIASES,
        *ITEM_EVIDENCE_ALIASES,
        *EDGE_SOURCE_ALIASES,
        "source_id",
        *SPAN_START,
        *SPAN_END,
        *NESTED_ALIASES,
        *NESTED_START,
        *NESTED_END,
    )
)


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
class ClaimStage:
    """Claims, their embedded edges (claim order), the problem of every claim row, and each
    claim's own citation-id list (step 8): the claim row (``_row``) and the normalised
    evidence identifier of every citation item, in claim order then item order."""

    claims: pl.DataFrame
    edges: pl.DataFrame
    problem: pl.Series
    items: pl.DataFrame


@dataclass(frozen=True)
class EvidenceStage:
    """Evidence, embedded adjudications (evidence order), and the problem of every row."""

    evidence: pl.DataFrame
    adjudications: pl.DataFrame
    problem: pl.Series


# -- claims ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Items:
    """Citation items of claim rows, in claim order then item order: the claim row of each
    item, its value as a cell, the fields of mapping items, and the claim rows whose citation
    sequence could not be iterated."""

    row: pl.Series
    cell: Cell
    fields: dict[str, Cell]
    failed: pl.Series


def _items(value: Cell, chosen: pl.Series, aliases: list[Cell], n: int) -> _Items:
    """Expand each claim's citation value (§3.6): a text, an integer or a mapping is one item,
    a sequence its elements. ``aliases`` are the alias cells, ``chosen`` the alias each row's
    value came from (aliases may differ in type, so each is expanded on the rows it provides)."""
    index = row_index(n)
    rows: list[pl.Series] = []
    cells: list[Cell] = []
    failed = constant(False, n, pl.Boolean)
    for position, alias in enumerate(aliases):
        mine = (chosen == position).fill_null(False)
        single = mine & value.is_kind(STR, INT, BIG, STRUCT)
        if bool(single.any()):
            rows.append(index.filter(single))
            cells.append(filter_cell(alias, single))
        lists = mine & (value.kind == LIST)
        if bool(lists.any()):
            kind = where(lists, alias.kind, pl.lit(0, pl.UInt8))
            items = list_items(Cell(kind, alias.s, alias.i, alias.u, alias.f, alias.raw, alias.py))
            failed = failed | items.failed
            if len(items.row):
                rows.append(items.row)
                cells.append(items.cell)
    if not rows:
        return _Items(pl.Series([], dtype=pl.UInt32), absent_cell(0), {}, failed)
    item_row = pl.concat(rows)
    cell = concat_cells(cells)
    if len(rows) > 1:
        order = pl.DataFrame({"r": item_row}).with_row_index("i").sort("r", maintain_order=True)
        item_row = item_row.gather(order["i"])
        cell = gather_cell(cell, order["i"])
    fields = struct_fields(cell, _ITEM_KEYS) if bool((cell.kind == STRUCT).any()) else {}
    return _Items(item_row, cell, fields, failed)


def claim_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    citation_limit: int,
    lengths: Mapping[str, int],
    typed: Typed | None = None,
    *,
    form: RowForm | None = None,
    edges: bool = True,
) -> ClaimStage:
    """Claim records (§5 stage 2): the claim record rule, embedded edges, the running bound.

    ``edges=False`` is the record rule alone (``AtomicClaim.from_mapping``, §3.9): the citation
    rule of mapping items (edge building) and the running bound are not checked."""
    # the row count is the document column's: a frame without columns has height 0 on Polars
    # 1.43 (the floor) whatever its rows, so a claims table of document_ref alone would
    # otherwise lose its rows
    n = len(doc)
    cells = cells_of(frame, typed)
    claim, id_conflict = group(cells, CLAIM_ID_ALIASES, n)
    claim = with_default(claim, form)
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
            pl.Series([], dtype=pl.UInt32), absent_cell(0), {}, constant(False, n, pl.Boolean)
        )
    # the number of items of every claim row (an integer histogram of the item rows)
    counts = pl.Series(np.bincount(items.row.to_numpy(), minlength=n).astype(np.int64))
    listed = citation.kind == LIST
    list_over = listed & (counts > citation_limit)
    mapping = items.cell.kind == STRUCT
    item_n = len(items.row)
    fields = items.fields
    mappings = bool(mapping.any())  # mapping items (possibly without any field: ``{}``)
    if mappings:
        evidence, evidence_conflict = group(fields, ITEM_EVIDENCE_ALIASES, item_n)
        item_value = where_cell(mapping, evidence, items.cell)
        # step 8, item by item: the first value of the evidence aliases (a conflict), then
        # that a mapping item has one
        evidence_checks: list[Check] = [
            (mapping & evidence_conflict, Problem.CONFLICT),
            (mapping & ~evidence.present, Problem.ITEM_EVIDENCE),
        ]
    else:
        item_value = items.cell
        evidence_checks = []
    item_id, item_checks = identifier_rule(item_value)
    evidence_problem = _first_by_claim(items.row, first_problem(evidence_checks, item_n), n)
    item_problem = _first_by_claim(items.row, first_problem(item_checks, item_n), n)

    # Edges: plain items become (claim, item); mapping items go through the citation rule.
    claim_of_item = claim_id.gather(items.row) if item_n else pl.Series([], dtype=pl.String)
    if mappings:
        record_columns, record_checks = citation_rule(fields, item_n, claim_of_item)
        record_problem = first_problem(record_checks, item_n)
        record_problem = where(mapping, record_problem, pl.lit(None, pl.UInt8))
    else:
        record_columns = {}
        record_problem = constant(None, item_n, pl.UInt8)
    edge_columns = {
        "claim_id": where(mapping, record_columns.get("claim_id", claim_of_item), claim_of_item)
        if mappings
        else claim_of_item,
        "evidence_id": where(mapping, record_columns["evidence_id"], item_id)
        if mappings
        else item_id,
        "start": where(mapping, record_columns["start"], pl.lit(None, pl.Int64))
        if mappings
        else constant(None, item_n, pl.Int64),
        "end": where(mapping, record_columns["end"], pl.lit(None, pl.Int64))
        if mappings
        else constant(None, item_n, pl.Int64),
        "source_id": where(mapping, record_columns["source_id"], pl.lit(""))
        if mappings
        else constant("", item_n, pl.String),
    }
    edge_doc = doc.gather(items.row) if item_n else pl.Series([], dtype=pl.UInt32)
    edge_table = edge_frame(edge_columns, edge_doc, items.row)
    edge_checks: list[Check] = []
    if edges:
        edge_problem = _first_by_claim(items.row, record_problem, n)
        edge_checks = [
            *code_checks(edge_problem),
            (running_over(counts, doc, citation_limit), Problem.CITATION_LIMIT),
        ]

    checks: list[Check] = [
        *code_checks(None if form is None else form.pre),
        (id_conflict, Problem.CONFLICT),
        (~claim.present, Problem.CLAIM_ID_REQUIRED),
        *span_checks,
        (source_conflict, Problem.CONFLICT),
        *length_checks,
        (citation_conflict, Problem.CONFLICT),
        (type_conflict, Problem.CONFLICT),
        (bad_value, Problem.CITATION_VALUE),
        (items.failed, Problem.CITATION_ITERABLE),
        (list_over, Problem.CITATION_LIMIT),
        *code_checks(evidence_problem),
        *code_checks(item_problem),
        *claim_checks,
        *source_checks,
        *type_checks,
        *edge_checks,
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
    own = pl.DataFrame({ROW: items.row, "evidence_id": item_id.cast(pl.String)})
    return ClaimStage(claims, edge_table, first_problem(checks, n), own)


def _first_by_claim(item_row: pl.Series, problem: pl.Series, n: int) -> pl.Series:
    """Per claim row, the first non-null problem of its items in item order (else null)."""
    out = constant(None, n, pl.UInt8)
    failing = problem.is_not_null()
    if not bool(failing.any()):
        return out
    rows = item_row.filter(failing)
    first = rows.is_first_distinct()
    return out.scatter(rows.filter(first), problem.filter(failing).filter(first).cast(pl.UInt8))


# -- evidence -------------------------------------------------------------------------------


def evidence_stage(
    frame: pl.DataFrame,
    doc: pl.Series,
    adjudication_limit: int,
    lengths: Mapping[str, int],
    typed: Typed | None = None,
    *,
    form: RowForm | None = None,
    labels: bool = True,
) -> EvidenceStage:
    """Evidence records (§5 stage 3) with their embedded adjudications and running bound.

    ``labels=False`` is the record rule alone (``EvidenceSpan.from_mapping``, §3.9): embedded
    adjudications (steps 7–8) are not checked."""
    # the row count is the document column's: a frame without columns has height 0 on Polars
    # 1.43 (the floor) whatever its rows, so a claims table of document_ref alone would
    # otherwise lose its rows
    n = len(doc)
    cells = cells_of(frame, typed)
    evidence, id_conflict = group(cells, EVIDENCE_ID_ALIASES, n)
    evidence = with_default(evidence, form)
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
        *code_checks(None if form is None else form.pre),
        (id_conflict, Problem.CONFLICT),
        (~evidence.present, Problem.EVIDENCE_ID_REQUIRED),
        *span_checks,
        (source_conflict, Problem.CONFLICT),
        *length_checks,
        *evidence_checks,
        *source_checks,
    ]
    if labels:
        checks += [
            (claim_conflict, Problem.CONFLICT),
            *[(has_claim & mask, code) for mask, code in label_checks],
            *[(embeds & mask, code) for mask, code in claim_checks],
            (
                running_over(embeds.cast(pl.Int64), doc, adjudication_limit),
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
