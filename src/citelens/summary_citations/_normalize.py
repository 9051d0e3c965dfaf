"""Normalisation (summary-citations.md §13 Steps A and C): inputs become reference frames.

* Flat Arrow tables are normalised with Arrow compute kernels: identifier columns are trimmed
  and cast, list columns are exploded with ``list_flatten`` / ``list_parent_indices``, offsets
  are coalesced.
* Python records (and tables outside the flat domain) are shredded by ``_nodes`` and
  normalised by ``_node_rules`` into the same frames.

Evidence frame: ``(id, s, e)``, one row per record in input order (null where the record has
no identifier / no valid span). Item frame: ``(item_no, claim_no, id, s, e)``, one or more
reference rows per citation item: an item with one identifier and one span may be one row,
an item with several references is one row per reference, an item without references is one
row of nulls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
)
from citelens.summary_citations._schema import SCALAR_KINDS, type_kind
from citelens.summary_citations._values import checked_span, ident_int, ident_text

__all__ = [
    "as_array",
    "claims_frame_from_table",
    "empty_items",
    "evidence_frame_from_table",
]


def as_array(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """One contiguous, dictionary-decoded array of a column."""
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return col


def _ident(col: pa.Array) -> pa.Array:
    kind = type_kind(col.type)
    if kind == "str":
        return ident_text(col)
    if kind in ("int", "u64"):
        return ident_int(col)
    return pa.nulls(len(col), pa.large_string())


def _offset(col: pa.Array | None, n: int) -> pa.Array:
    if col is None or type_kind(col.type) == "null":
        return pa.nulls(n, pa.int64())
    return pc.cast(col, pa.int64())


def _coalesced_span(get: Any, n: int, mask: pa.Array | None = None) -> tuple[pa.Array, pa.Array]:
    """(start, end) columns: null unless a valid span (coalesce by presence, §5 SPAN)."""
    # Offset columns are integer (or null) typed: null is exactly absent, so coalesce is the
    # presence fallback of §5.
    s = pc.coalesce(_offset(get("start"), n), _offset(get("start_char"), n))
    e = pc.coalesce(_offset(get("end"), n), _offset(get("end_char"), n))
    if mask is not None:
        null = pa.scalar(None, pa.int64())
        s = pc.if_else(mask, s, null)
    return checked_span(s, e)


def _any_valid(cols: list[pa.Array], n: int) -> pa.Array:
    out = pa.array(np.zeros(n, dtype=bool))
    for col in cols:
        out = pc.or_(out, pc.is_valid(col))
    return out


# --------------------------------------------------------------------------------------------
# Evidence (Step A)


def evidence_frame_from_table(table: pa.Table) -> pa.Table:
    """The (id, s, e) frame of a flat evidence table, one row per record in table order."""
    n = table.num_rows
    names = set(table.column_names)

    def get(name: str) -> pa.Array | None:
        return as_array(table.column(name)) if name in names else None

    ident_cols = [_ident(col) for k in EVIDENCE_ID_KEYS if (col := get(k)) is not None]
    if ident_cols:
        ids = pc.coalesce(*ident_cols) if len(ident_cols) > 1 else ident_cols[0]
    else:
        ids = pa.nulls(n, pa.large_string())
    s, e = _coalesced_span(get, n)
    return pa.table({"id": pc.cast(ids, pa.large_string()), "s": s, "e": e})


# --------------------------------------------------------------------------------------------
# Claims (Step C)


def _struct_items(elements: pa.StructArray, parents: pa.Array) -> pa.Table:
    """One item per struct element: CIT_REFS of a flat citation record."""
    n = len(elements)
    valid = elements.is_valid()
    t = elements.type
    fields = {t.field(i).name: i for i in range(t.num_fields)}

    def get(name: str) -> pa.Array | None:
        if name not in fields:
            return None
        return as_array(pc.struct_field(elements, [fields[name]]))

    idents = [_ident(col) for k in CITATION_ID_KEYS if (col := get(k)) is not None]
    if idents:
        ids = pc.coalesce(*idents) if len(idents) > 1 else idents[0]
        ids = pc.if_else(valid, ids, pa.scalar(None, pa.large_string()))
    else:
        ids = pa.nulls(n, pa.large_string())
    direct_cols = [col for k in DIRECT_SPAN_KEYS if (col := get(k)) is not None]
    direct = pc.and_(_any_valid(direct_cols, n), valid)
    s, e = _coalesced_span(get, n, direct)
    return pa.table({"claim_no": parents, "id": ids, "s": s, "e": e})


def _id_items(parents: pa.Array, ids: pa.Array) -> pa.Table:
    n = len(parents)
    return pa.table(
        {
            "claim_no": parents,
            "id": ids,
            "s": pa.nulls(n, pa.int64()),
            "e": pa.nulls(n, pa.int64()),
        }
    )


def _value_items(col: pa.Array, claim_no: pa.Array, include: pa.Array) -> pa.Table:
    """CIT_ITEMS of one claim-level column (scalar, list or struct values)."""
    kind = type_kind(col.type)
    if kind == "list":
        keep = pc.and_(include, pc.is_valid(col))
        sub = col.filter(keep)
        parents_local = pc.list_parent_indices(sub)
        parents = pc.take(claim_no.filter(keep), parents_local)
        elements = as_array(pc.list_flatten(sub))
        if type_kind(elements.type) == "struct":
            return _struct_items(elements, parents)
        return _id_items(parents, _ident(elements))
    keep = pc.and_(include, pc.is_valid(col))
    if kind == "struct":
        return _struct_items(col.filter(keep), claim_no.filter(keep))
    return _id_items(claim_no.filter(keep), _ident(col).filter(keep))


def claims_frame_from_table(table: pa.Table) -> pa.Table:
    """The (item_no, claim_no, id, s, e) item frame of a flat claims table (§7, column-wise)."""
    n = table.num_rows
    names = set(table.column_names)

    def get(name: str) -> pa.Array | None:
        return as_array(table.column(name)) if name in names else None

    claim_no = pa.array(np.arange(n, dtype=np.int64))
    direct_cols = [col for k in DIRECT_SPAN_KEYS if (col := get(k)) is not None]
    direct = _any_valid(direct_cols, n)
    all_rows = pa.array(np.ones(n, dtype=bool))
    pieces: list[pa.Table] = []
    taken = pa.array(np.zeros(n, dtype=bool))
    kstar_idents: list[pa.Array] = []
    for key in CLAIM_ID_KEYS:
        col = get(key)
        if col is None:
            continue
        if type_kind(col.type) in SCALAR_KINDS:
            idk = _ident(col)
            has = pc.is_valid(idk)
            is_kstar = pc.and_(pc.and_(direct, has), pc.invert(taken))
            taken = pc.or_(taken, has)
            kstar_idents.append(idk)
            pieces.append(_value_items(col, claim_no, pc.invert(is_kstar)))
        else:
            pieces.append(_value_items(col, claim_no, all_rows))
    # The one direct item: the claim's first scalar identifier plus its own span (D1).
    if kstar_idents:
        kid = pc.coalesce(*kstar_idents) if len(kstar_idents) > 1 else kstar_idents[0]
    else:
        kid = pa.nulls(n, pa.large_string())
    s, e = _coalesced_span(get, n)
    direct_item = pa.table({"claim_no": claim_no, "id": kid, "s": s, "e": e}).filter(direct)
    pieces.append(direct_item)
    for key in CITATION_COLLECTION_KEYS:
        col = get(key)
        if col is not None:
            pieces.append(_value_items(col, claim_no, all_rows))
    frames = [
        pa.table(
            {
                "claim_no": pc.cast(piece.column("claim_no"), pa.int64()),
                "id": pc.cast(piece.column("id"), pa.large_string()),
                "s": pc.cast(piece.column("s"), pa.int64()),
                "e": pc.cast(piece.column("e"), pa.int64()),
            }
        )
        for piece in pieces
        if piece.num_rows
    ]
    if not frames:
        return empty_items()
    items = pa.concat_tables(frames)
    # Flat items hold at most one identifier and one span: one row per item.
    return items.add_column(0, "item_no", pa.array(np.arange(items.num_rows, dtype=np.int64)))


def empty_items() -> pa.Table:
    """An item frame without rows."""
    return pa.table(
        {
            "item_no": pa.array([], pa.int64()),
            "claim_no": pa.array([], pa.int64()),
            "id": pa.array([], pa.large_string()),
            "s": pa.array([], pa.int64()),
            "e": pa.array([], pa.int64()),
        }
    )
