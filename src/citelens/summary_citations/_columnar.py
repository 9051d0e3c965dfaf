"""Columnar core of summary citations (summary-citations.md §13).

* Flat Arrow tables are normalised with Arrow compute kernels (Steps A and C): identifier
  columns are trimmed and cast, list columns are exploded with ``list_flatten`` /
  ``list_parent_indices``, offsets are coalesced. :func:`flat_evidence_ok` and
  :func:`flat_claims_ok` decide from the schema alone whether a table is flat; other tables go
  through the exact record walker (``_summary_walk``).
* Registration, resolution, duplicates and aggregates (Steps B, D, E, F) run over whole
  columns whatever path produced the references: every identifier string (evidence and
  citations together) is factorised once with Arrow's ``dictionary_encode``; spans become one
  int64 key; the rest is NumPy integer work (``bincount``, gathers, ``searchsorted``) plus
  Polars ``n_unique`` for the per-claim duplicate pairs. Only evidence rows that share a
  reference with another row go through the sequential "earlier valid record" rule.
* Corpus mode (:func:`summary_metrics_by_document`): many documents keyed by ``document_ref``
  in one pass; identifier codes and span keys become dense (document, reference) codes so
  every rule stays inside its document, and counts are per-document ``bincount`` group-bys.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from citelens.summary_citations._report import _METRIC_KEYS
from citelens.summary_citations._report import REASON_CODES as _REASON_CODES
from citelens.summary_citations._walk import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
    ClaimItems,
    EvidenceRefs,
    Ref,
)

__all__ = [
    "DOCUMENT_COLUMNS",
    "DOCUMENT_METRIC_COLUMNS",
    "REASON_COLUMNS",
    "Counts",
    "claims_frame_from_table",
    "claims_frame_from_walk",
    "compute_counts",
    "evidence_frame_from_table",
    "evidence_frame_from_walk",
    "flat_claims_ok",
    "flat_evidence_ok",
    "summary_metrics_by_document",
]

# Python's own str.isspace() set (derived from the running interpreter, §13 Step A).
_WHITESPACE = "".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())

_SCALAR_KINDS = frozenset({"null", "str", "int", "u64", "bool", "float"})
_OFFSET_KINDS = frozenset({"null", "int"})
_CLAIM_CONTAINER_ONLY = tuple(k for k in CONTAINER_KEYS if k not in CITATION_COLLECTION_KEYS)


# --------------------------------------------------------------------------------------------
# Schema classification


def _kind(t: pa.DataType) -> str:
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_null(t):
        return "null"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "str"
    if pa.types.is_uint64(t):
        return "u64"
    if pa.types.is_integer(t):
        return "int"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_floating(t):
        return "float"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "list"
    if pa.types.is_struct(t):
        return "struct"
    return "other"


def _unique_names(names: list[str]) -> bool:
    return len(set(names)) == len(names)


def _flat_struct(t: pa.StructType) -> bool:
    names = [t.field(i).name for i in range(t.num_fields)]
    if not _unique_names(names):
        return False
    for i in range(t.num_fields):
        field = t.field(i)
        kind = _kind(field.type)
        if field.name in DIRECT_SPAN_KEYS:
            if kind not in _OFFSET_KINDS:
                return False
        elif field.name in CITATION_ID_KEYS:
            if kind not in _SCALAR_KINDS:
                return False
        elif (field.name in CONTAINER_KEYS or field.name in CITATION_COLLECTION_KEYS) and (
            kind != "null"
        ):
            return False
    return True


def _collection_ok(t: pa.DataType, *, container: bool) -> bool:
    kind = _kind(t)
    if kind in _SCALAR_KINDS:
        return True
    if kind == "struct":
        return not container and _flat_struct(t)
    if kind == "list":
        inner = t.value_type
        inner_kind = _kind(inner)
        if inner_kind in ("int", "u64"):
            # An int list under a container key could be a span of the direct item.
            return not container
        if inner_kind in _SCALAR_KINDS:
            return True
        if inner_kind == "struct":
            return _flat_struct(inner)
    return False


def flat_evidence_ok(schema: pa.Schema) -> bool:
    """True when an evidence table can be normalised column-wise exactly."""
    if not _unique_names(list(schema.names)):
        return False
    for field in schema:
        kind = _kind(field.type)
        if field.name in EVIDENCE_ID_KEYS:
            if kind not in _SCALAR_KINDS:
                return False
        elif field.name in DIRECT_SPAN_KEYS:
            if kind not in _OFFSET_KINDS:
                return False
        elif field.name in CONTAINER_KEYS and kind != "null":
            return False
    return True


def flat_claims_ok(schema: pa.Schema) -> bool:
    """True when a claims table can be normalised column-wise exactly."""
    if not _unique_names(list(schema.names)):
        return False
    for field in schema:
        name = field.name
        kind = _kind(field.type)
        if name in DIRECT_SPAN_KEYS:
            if kind not in _OFFSET_KINDS:
                return False
        elif name in _CLAIM_CONTAINER_ONLY:
            if kind != "null":
                return False
        elif name in CLAIM_ID_KEYS or name in CITATION_COLLECTION_KEYS:
            container = name in CONTAINER_KEYS
            if not _collection_ok(field.type, container=container):
                return False
    return True


# --------------------------------------------------------------------------------------------
# Arrow normalisation helpers


def _array(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return col


def _ident(col: pa.Array) -> pa.Array:
    kind = _kind(col.type)
    if kind == "str":
        text = pc.utf8_trim(pc.cast(col, pa.large_string()), characters=_WHITESPACE)
        return pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.large_string()), text)
    if kind in ("int", "u64"):
        return pc.cast(pc.cast(col, pa.string()), pa.large_string())
    return pa.nulls(len(col), pa.large_string())


def _offset(col: pa.Array | None, n: int) -> pa.Array:
    if col is None or _kind(col.type) == "null":
        return pa.nulls(n, pa.int64())
    return pc.cast(col, pa.int64())


def _coalesced_span(get: Any, n: int, mask: pa.Array | None = None) -> tuple[pa.Array, pa.Array]:
    """(start, end) columns: null unless a valid span (coalesce by presence, §5 SPAN)."""
    s = pc.coalesce(_offset(get("start"), n), _offset(get("start_char"), n))
    e = pc.coalesce(_offset(get("end"), n), _offset(get("end_char"), n))
    ok = pc.and_kleene(
        pc.and_kleene(pc.is_valid(s), pc.is_valid(e)),
        pc.and_kleene(pc.greater_equal(s, 0), pc.greater(e, s)),
    )
    ok = pc.fill_null(ok, False)
    if mask is not None:
        ok = pc.and_(ok, mask)
    null = pa.scalar(None, pa.int64())
    return pc.if_else(ok, s, null), pc.if_else(ok, e, null)


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
        return _array(table.column(name)) if name in names else None

    ident_cols = [_ident(col) for k in EVIDENCE_ID_KEYS if (col := get(k)) is not None]
    if ident_cols:
        ids = pc.coalesce(*ident_cols) if len(ident_cols) > 1 else ident_cols[0]
    else:
        ids = pa.nulls(n, pa.large_string())
    s, e = _coalesced_span(get, n)
    return pa.table({"id": pc.cast(ids, pa.large_string()), "s": s, "e": e})


def evidence_frame_from_walk(refs: EvidenceRefs) -> pa.Table:
    """The (id, s, e) table of walked evidence records."""
    return pa.table(
        {
            "id": pa.array(refs.ids, pa.large_string()),
            "s": pa.array(refs.start, pa.int64()),
            "e": pa.array(refs.end, pa.int64()),
        }
    )


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
        return _array(pc.struct_field(elements, [fields[name]]))

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
    kind = _kind(col.type)
    if kind == "list":
        keep = pc.and_(include, pc.is_valid(col))
        sub = col.filter(keep)
        parents_local = pc.list_parent_indices(sub)
        parents = pc.take(claim_no.filter(keep), parents_local)
        elements = _array(pc.list_flatten(sub))
        if _kind(elements.type) == "struct":
            return _struct_items(elements, parents)
        return _id_items(parents, _ident(elements))
    keep = pc.and_(include, pc.is_valid(col))
    if kind == "struct":
        return _struct_items(col.filter(keep), claim_no.filter(keep))
    return _id_items(claim_no.filter(keep), _ident(col).filter(keep))


def claims_frame_from_table(table: pa.Table) -> pa.Table:
    """The (claim_no, id, s, e) item frame of a flat claims table (§7, column-wise)."""
    n = table.num_rows
    names = set(table.column_names)

    def get(name: str) -> pa.Array | None:
        return _array(table.column(name)) if name in names else None

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
        if _kind(col.type) in _SCALAR_KINDS:
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
        return _empty_items()
    return pa.concat_tables(frames)


def _empty_items() -> pa.Table:
    return pa.table(
        {
            "claim_no": pa.array([], pa.int64()),
            "id": pa.array([], pa.large_string()),
            "s": pa.array([], pa.int64()),
            "e": pa.array([], pa.int64()),
        }
    )


def claims_frame_from_walk(items: ClaimItems) -> pa.Table:
    """The (claim_no, id, s, e) table of walked simple items."""
    return pa.table(
        {
            "claim_no": pa.array(items.claim_no, pa.int64()),
            "id": pa.array(items.ids, pa.large_string()),
            "s": pa.array(items.start, pa.int64()),
            "e": pa.array(items.end, pa.int64()),
        }
    )


# --------------------------------------------------------------------------------------------
# Steps B, D, E, F


@dataclass(frozen=True)
class Counts:
    """Raw totals before the ratios and the verdict (§9.2)."""

    claim_count: int
    supported_claim_count: int
    citation_count: int
    valid_citation_count: int
    duplicate_citation_count: int
    missing_citation_count: int
    missing_source_record_count: int
    unavailable_span_count: int
    evidence_record_count: int
    valid_evidence_record_count: int
    invalid_evidence_record_count: int
    duplicate_evidence_record_count: int
    referenced_evidence_count: int


def _id_codes(ev_ids: pa.ChunkedArray, item_ids: pa.ChunkedArray) -> tuple[Any, Any, int]:
    """Factorise every identifier string once (one hash pass): int codes, -1 for none."""
    n_ev = len(ev_ids)
    combined = pa.chunked_array(
        list(ev_ids.chunks) + list(item_ids.chunks), type=pa.large_string()
    ).combine_chunks()
    if len(combined) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0
    encoded = pc.dictionary_encode(combined)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    codes = codes.astype(np.int64, copy=False)
    return codes[:n_ev], codes[n_ev:], len(encoded.dictionary)


def _span_keys(ev_s: Any, ev_e: Any, it_s: Any, it_e: Any) -> tuple[Any, Any]:
    """One int64 key per (start, end) pair, equal iff the spans are equal; -1 for none.

    Offsets below 2**31 pack as ``start << 32 | end``; larger ones are factorised.
    """
    ev_has = ev_s >= 0
    it_has = it_s >= 0
    top = max(
        int(ev_e[ev_has].max()) if ev_has.any() else 0,
        int(it_e[it_has].max()) if it_has.any() else 0,
    )
    if top < (1 << 31):
        ev_key = np.where(ev_has, (ev_s << 32) | np.maximum(ev_e, 0), -1)
        it_key = np.where(it_has, (it_s << 32) | np.maximum(it_e, 0), -1)
        return ev_key, it_key
    s = np.concatenate([ev_s, it_s])
    e = np.concatenate([ev_e, it_e])
    has = s >= 0
    codes = np.full(len(s), -1, dtype=np.int64)
    _, inverse = np.unique(np.stack([s[has], e[has]], axis=1), axis=0, return_inverse=True)
    codes[has] = inverse.reshape(-1)
    return codes[: len(ev_s)], codes[len(ev_s) :]


def _duplicated(keys: Any, dense: int | None = None) -> Any:
    """Mask of rows whose key (>= 0) occurs in another row too.

    Dense codes (``0 <= key < dense``) are counted with ``bincount``; other keys are sorted.
    """
    out = np.zeros(len(keys), dtype=bool)
    has = keys >= 0
    present = keys[has]
    if len(present) < 2:
        return out
    if dense is not None:
        counts = np.bincount(present, minlength=dense)
        out[has] = counts[present] > 1
        return out
    order = np.argsort(present)
    ordered = present[order]
    same = ordered[1:] == ordered[:-1]
    flags = np.zeros(len(present), dtype=bool)
    flags[1:] |= same
    flags[:-1] |= same
    mask = np.zeros(len(present), dtype=bool)
    mask[order] = flags
    out[has] = mask
    return out


def _resolve_keys(ev_keys: Any, ev_idx: Any, it_keys: Any) -> Any:
    """Record index of each item key (-1 when absent or unknown), by binary search."""
    out = np.full(len(it_keys), -1, dtype=np.int64)
    it_has = it_keys >= 0
    ev_has = ev_idx >= 0
    if not it_has.any() or not ev_has.any():
        return out
    keys = ev_keys[ev_has]
    idx = ev_idx[ev_has]
    order = np.argsort(keys, kind="stable")
    keys, idx = keys[order], idx[order]
    wanted = it_keys[it_has]
    pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    out[it_has] = np.where(keys[pos] == wanted, idx[pos], -1)
    return out


def _offsets(col: pa.ChunkedArray) -> Any:
    return pc.fill_null(col, -1).to_numpy().astype(np.int64, copy=False)


def _lookup(table: Any, codes: Any) -> Any:
    """``table[codes]`` with -1 for code -1 (and for an empty table)."""
    if len(table) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    out = table[np.maximum(codes, 0)]
    return np.where(codes >= 0, out, -1)


def _n_unique_pairs(left: Any, right: Any, width: int) -> int:
    if len(left) == 0:
        return 0
    if width > 0 and (int(left.max()) + 1) * width < (1 << 62):
        return int(pl.Series(left * width + right).n_unique())
    frame = pl.DataFrame({"a": left, "b": right})
    return int(frame.select(pl.struct("a", "b").n_unique()).item())


def _n_unique_triples(a: Any, b: Any, c: Any) -> int:
    if len(a) == 0:
        return 0
    frame = pl.DataFrame({"a": a, "b": b, "c": c})
    return int(frame.select(pl.struct("a", "b", "c").n_unique()).item())


def _register(ev_id: Any, ev_sp: Any, n_id: int) -> tuple[Any, Any, int, int]:
    """Step B: valid mask, dense index per row (-1 if not valid), invalid and duplicate counts."""
    has_id = ev_id >= 0
    has_sp = ev_sp >= 0
    has_ref = has_id | has_sp
    n_invalid = int(len(has_ref) - int(has_ref.sum()))
    involved = np.flatnonzero(_duplicated(ev_id, n_id) | _duplicated(ev_sp))
    valid = has_ref.copy()
    n_dup = 0
    if len(involved):
        # The "earlier valid record" rule is sequential; only rows sharing a reference with
        # another row take part (rows whose references are all unique are always valid).
        seen_ids: set[int] = set()
        seen_spans: set[int] = set()
        for row, rid, rsp in zip(
            involved.tolist(), ev_id[involved].tolist(), ev_sp[involved].tolist()
        ):
            if (rid >= 0 and rid in seen_ids) or (rsp >= 0 and rsp in seen_spans):
                valid[row] = False
                n_dup += 1
                continue
            if rid >= 0:
                seen_ids.add(rid)
            if rsp >= 0:
                seen_spans.add(rsp)
    idx = np.where(valid, np.cumsum(valid, dtype=np.int64) - 1, -1)
    return valid, idx, n_invalid, n_dup


def _resolve_complex(
    complex_items: list[tuple[int, list[Ref]]], ev: pa.Table, idx: Any
) -> tuple[list[tuple[int, bool, bool, bool, int]], int]:
    """Steps D/E for items with several identifiers or spans (walker output only, rare).

    Returns per item (claim_no, valid, missing_record, unavailable, record key or -1) and
    the duplicates among items whose key is their reference set (such sets hold two ids
    or two spans, so they never equal a simple item's set).
    """
    ids = ev.column("id").to_pylist()
    starts = ev.column("s").to_pylist()
    ends = ev.column("e").to_pylist()
    id_index: dict[str, int] = {}
    span_index: dict[tuple[int, int], int] = {}
    for rid, s, e, i in zip(ids, starts, ends, idx.tolist()):
        if i < 0:
            continue
        if rid is not None:
            id_index[rid] = i
        if s is not None:
            span_index[(s, e)] = i
    rows: list[tuple[int, bool, bool, bool, int]] = []
    seen_sets: set[tuple[int, frozenset[Ref]]] = set()
    duplicates = 0
    for claim_no, refs in complex_items:
        resolved: set[int] = set()
        unres_id = unres_span = False
        for ref in refs:
            hit = id_index.get(ref[1]) if ref[0] == "i" else span_index.get((ref[1], ref[2]))
            if hit is None:
                if ref[0] == "i":
                    unres_id = True
                else:
                    unres_span = True
            else:
                resolved.add(hit)
        valid = not unres_id and not unres_span and len(resolved) == 1
        rec_key = next(iter(resolved)) if len(resolved) == 1 else -1
        if rec_key < 0:
            key = (claim_no, frozenset(refs))
            if key in seen_sets:
                duplicates += 1
            seen_sets.add(key)
        rows.append((claim_no, valid, unres_id and not valid, unres_span and not valid, rec_key))
    return rows, duplicates


def compute_counts(
    claim_count: int,
    items: pa.Table,
    complex_items: list[tuple[int, list[Ref]]],
    ev: pa.Table,
) -> Counts:
    """Steps B, D, E, F over whole columns (Arrow factorisation, NumPy lookups)."""
    ev_id, it_id, n_id = _id_codes(ev.column("id"), items.column("id"))
    ev_sp, it_sp = _span_keys(
        _offsets(ev.column("s")),
        _offsets(ev.column("e")),
        _offsets(items.column("s")),
        _offsets(items.column("e")),
    )
    valid_ev, idx, n_invalid_ev, n_dup_ev = _register(ev_id, ev_sp, n_id)
    n_valid_ev = int(valid_ev.sum())
    # Step D: resolve each item's id and span to a record index (-1 when absent/unknown).
    idx_by_id = np.full(n_id, -1, dtype=np.int64)
    keep = valid_ev & (ev_id >= 0)
    idx_by_id[ev_id[keep]] = idx[keep]
    ri = _lookup(idx_by_id, it_id)
    rs = _resolve_keys(ev_sp, idx, it_sp)
    has_id = it_id >= 0
    has_sp = it_sp >= 0
    has_ref = has_id | has_sp
    unres_id = has_id & (ri < 0)
    unres_sp = has_sp & (rs < 0)
    n_distinct = (
        (ri >= 0).astype(np.int8)
        + (rs >= 0).astype(np.int8)
        - ((ri >= 0) & (ri == rs)).astype(np.int8)
    )
    valid = has_ref & ~unres_id & ~unres_sp & (n_distinct == 1)
    rec = np.where(n_distinct == 1, np.where(ri >= 0, ri, rs), -1)
    needs_set_key = has_ref & (n_distinct != 1)
    claim_no = pc.fill_null(items.column("claim_no"), 0).to_numpy().astype(np.int64, copy=False)
    n_items = len(claim_no)
    n_valid = int(valid.sum())
    n_miss = int((~valid & unres_id).sum())
    n_unavail = int((~valid & unres_sp).sum())
    # Step E: per claim, (items with a key) - (distinct keys).
    set_claims = claim_no[needs_set_key]
    duplicates = len(set_claims) - _n_unique_triples(
        set_claims, it_id[needs_set_key], it_sp[needs_set_key]
    )
    rec_claims = claim_no[rec >= 0]
    rec_keys = rec[rec >= 0]
    valid_claims = claim_no[valid]
    valid_recs = rec[valid]
    all_claims = claim_no
    if complex_items:
        rows, complex_dups = _resolve_complex(complex_items, ev, idx)
        duplicates += complex_dups
        c_claim = np.array([r[0] for r in rows], dtype=np.int64)
        c_valid = np.array([r[1] for r in rows], dtype=bool)
        c_rec = np.array([r[4] for r in rows], dtype=np.int64)
        n_items += len(rows)
        n_valid += int(c_valid.sum())
        n_miss += sum(1 for r in rows if r[2])
        n_unavail += sum(1 for r in rows if r[3])
        rec_claims = np.concatenate([rec_claims, c_claim[c_rec >= 0]])
        rec_keys = np.concatenate([rec_keys, c_rec[c_rec >= 0]])
        valid_claims = np.concatenate([valid_claims, c_claim[c_valid]])
        valid_recs = np.concatenate([valid_recs, c_rec[c_valid]])
        all_claims = np.concatenate([all_claims, c_claim])
    duplicates += len(rec_keys) - _n_unique_pairs(rec_claims, rec_keys, n_valid_ev)
    # Step F: claims with a valid item, claims with any item, records cited by valid items.
    supported = np.zeros(claim_count, dtype=bool)
    supported[valid_claims] = True
    with_items = np.zeros(claim_count, dtype=bool)
    with_items[all_claims] = True
    referenced = np.zeros(n_valid_ev, dtype=bool)
    referenced[valid_recs] = True
    return Counts(
        claim_count=claim_count,
        supported_claim_count=int(supported.sum()),
        citation_count=n_items,
        valid_citation_count=n_valid,
        duplicate_citation_count=int(duplicates),
        missing_citation_count=claim_count - int(with_items.sum()),
        missing_source_record_count=n_miss,
        unavailable_span_count=n_unavail,
        evidence_record_count=ev.num_rows,
        valid_evidence_record_count=n_valid_ev,
        invalid_evidence_record_count=n_invalid_ev,
        duplicate_evidence_record_count=n_dup_ev,
        referenced_evidence_count=int(referenced.sum()),
    )


# --------------------------------------------------------------------------------------------
# Corpus mode: every document of a corpus in one pass (keyed by ``document_ref``)

# Per-document output columns, in order: the key and status, then the 24 fields of
# ``SummaryCitationMetrics.to_dict()`` and one 0/1 count column per failure reason.
DOCUMENT_METRIC_COLUMNS: tuple[str, ...] = _METRIC_KEYS
REASON_COLUMNS: tuple[str, ...] = tuple(f"failure_reasons.{code}" for code in _REASON_CODES)
DOCUMENT_COLUMNS: tuple[str, ...] = (
    "document_ref",
    "status",
    "error_category",
    "error_message",
    *DOCUMENT_METRIC_COLUMNS,
    *REASON_COLUMNS,
)
_DOCUMENT_DTYPES: dict[str, Any] = {
    "document_ref": pl.String,
    "status": pl.String,
    "error_category": pl.String,
    "error_message": pl.String,
    "schema_version": pl.Int64,
    "coverage": pl.Float64,
    "abstention_rate": pl.Float64,
    "evidence_coverage": pl.Float64,
    "source_evidence_available": pl.Boolean,
    "fail_closed": pl.Boolean,
    "passed": pl.Boolean,
    "failure_reasons": pl.List(pl.String),
}


def _document_dtype(name: str) -> Any:
    return _DOCUMENT_DTYPES.get(name, pl.Int64)


def _dense_pairs(doc: Any, key: Any) -> tuple[Any, int]:
    """Dense codes of the (document, key) pairs; -1 where ``key`` is -1 (no reference)."""
    out = np.full(len(key), -1, dtype=np.int64)
    has = key >= 0
    if not has.any():
        return out, 0
    a = doc[has]
    b = key[has]
    order = np.lexsort((b, a))
    sa, sb = a[order], b[order]
    new = np.ones(len(sa), dtype=bool)
    new[1:] = (sa[1:] != sa[:-1]) | (sb[1:] != sb[:-1])
    dense = np.cumsum(new, dtype=np.int64) - 1
    codes = np.empty(len(sa), dtype=np.int64)
    codes[order] = dense
    out[has] = codes
    return out, int(dense[-1]) + 1


def _register_rows(ev_id: Any, ev_sp: Any, n_id: int, n_sp: int) -> tuple[Any, Any, Any, Any]:
    """Step B over dense (document, reference) codes: valid mask, record index (-1 if not
    valid), has-reference mask and duplicate mask, row by row in table order."""
    has_ref = (ev_id >= 0) | (ev_sp >= 0)
    involved = np.flatnonzero(_duplicated(ev_id, n_id) | _duplicated(ev_sp, n_sp))
    valid = has_ref.copy()
    dup = np.zeros(len(ev_id), dtype=bool)
    if len(involved):
        # The "earlier valid record" rule is sequential; only rows sharing a (document,
        # reference) pair with another row take part. Codes are document-scoped, so this one
        # pass equals the per-document passes.
        seen_ids: set[int] = set()
        seen_spans: set[int] = set()
        for row, rid, rsp in zip(
            involved.tolist(), ev_id[involved].tolist(), ev_sp[involved].tolist()
        ):
            if (rid >= 0 and rid in seen_ids) or (rsp >= 0 and rsp in seen_spans):
                valid[row] = False
                dup[row] = True
                continue
            if rid >= 0:
                seen_ids.add(rid)
            if rsp >= 0:
                seen_spans.add(rsp)
    idx = np.where(valid, np.cumsum(valid, dtype=np.int64) - 1, -1)
    return valid, idx, has_ref, dup


def _not_first(*columns: Any) -> Any:
    """Mask of rows whose column tuple already occurred in an earlier row."""
    if len(columns[0]) == 0:
        return np.zeros(0, dtype=bool)
    frame = pl.DataFrame({f"c{i}": col for i, col in enumerate(columns)})
    first = frame.select(pl.struct(frame.columns).is_first_distinct()).to_series().to_numpy()
    return ~first


def _per_doc(doc: Any, mask: Any | None, n_docs: int) -> Any:
    """Per-document count of rows (where ``mask``), by ``bincount``."""
    picked = doc if mask is None else doc[mask]
    return np.bincount(picked, minlength=n_docs).astype(np.int64)


def _counts_by_document(
    claim_doc: Any, items: pa.Table, ev_doc: Any, ev: pa.Table, n_docs: int
) -> dict[str, Any]:
    """Steps B, D, E, F for every document at once: per-document count arrays.

    ``claim_doc``/``ev_doc`` give each claim / evidence row's document code; ``items`` holds
    the global claim row of each citation item. Identifier codes and span keys are made
    document-scoped as dense (document, reference) codes, so every join, duplicate and
    registration rule stays inside its document; counts are ``bincount`` group-bys.
    """
    ev_id, it_id, _ = _id_codes(ev.column("id"), items.column("id"))
    ev_sp, it_sp = _span_keys(
        _offsets(ev.column("s")),
        _offsets(ev.column("e")),
        _offsets(items.column("s")),
        _offsets(items.column("e")),
    )
    claim_no = pc.fill_null(items.column("claim_no"), 0).to_numpy().astype(np.int64, copy=False)
    item_doc = claim_doc[claim_no] if len(claim_no) else np.zeros(0, dtype=np.int64)
    n_ev = len(ev_id)
    both_doc = np.concatenate([ev_doc, item_doc])
    idp, n_idp = _dense_pairs(both_doc, np.concatenate([ev_id, it_id]))
    spp, n_spp = _dense_pairs(both_doc, np.concatenate([ev_sp, it_sp]))
    ev_idp, it_idp = idp[:n_ev], idp[n_ev:]
    ev_spp, it_spp = spp[:n_ev], spp[n_ev:]
    valid_ev, idx, has_ref_ev, dup_ev = _register_rows(ev_idp, ev_spp, n_idp, n_spp)
    # Step D: each item's id and span resolve to a registered record of its own document.
    idx_by_id = np.full(n_idp, -1, dtype=np.int64)
    keep = valid_ev & (ev_idp >= 0)
    idx_by_id[ev_idp[keep]] = idx[keep]
    idx_by_sp = np.full(n_spp, -1, dtype=np.int64)
    keep = valid_ev & (ev_spp >= 0)
    idx_by_sp[ev_spp[keep]] = idx[keep]
    ri = _lookup(idx_by_id, it_idp)
    rs = _lookup(idx_by_sp, it_spp)
    has_id = it_idp >= 0
    has_sp = it_spp >= 0
    has_ref = has_id | has_sp
    unres_id = has_id & (ri < 0)
    unres_sp = has_sp & (rs < 0)
    n_distinct = (
        (ri >= 0).astype(np.int8)
        + (rs >= 0).astype(np.int8)
        - ((ri >= 0) & (ri == rs)).astype(np.int8)
    )
    valid = has_ref & ~unres_id & ~unres_sp & (n_distinct == 1)
    rec = np.where(n_distinct == 1, np.where(ri >= 0, ri, rs), -1)
    # Step E: per claim, an item repeating an earlier item's key is a duplicate.
    set_key = has_ref & (n_distinct != 1)
    dup_items = np.zeros(len(claim_no), dtype=bool)
    dup_items[set_key] = _not_first(claim_no[set_key], it_id[set_key], it_sp[set_key])
    rec_key = rec >= 0
    dup_items[rec_key] = _not_first(claim_no[rec_key], rec[rec_key])
    # Step F: supported claims, claims with items, records cited by valid items.
    n_claims = len(claim_doc)
    supported = np.zeros(n_claims, dtype=bool)
    supported[claim_no[valid]] = True
    with_items = np.zeros(n_claims, dtype=bool)
    with_items[claim_no] = True
    n_valid_ev = int(valid_ev.sum())
    referenced = np.zeros(n_valid_ev, dtype=bool)
    referenced[rec[valid]] = True
    valid_doc = ev_doc[valid_ev]  # record index order == row order of valid rows
    claim_count = _per_doc(claim_doc, None, n_docs)
    return {
        "claim_count": claim_count,
        "supported_claim_count": _per_doc(claim_doc, supported, n_docs),
        "citation_count": _per_doc(item_doc, None, n_docs),
        "valid_citation_count": _per_doc(item_doc, valid, n_docs),
        "duplicate_citation_count": _per_doc(item_doc, dup_items, n_docs),
        "missing_citation_count": claim_count - _per_doc(claim_doc, with_items, n_docs),
        "missing_source_record_count": _per_doc(item_doc, ~valid & unres_id, n_docs),
        "unavailable_span_count": _per_doc(item_doc, ~valid & unres_sp, n_docs),
        "evidence_record_count": _per_doc(ev_doc, None, n_docs),
        "valid_evidence_record_count": _per_doc(ev_doc, valid_ev, n_docs),
        "invalid_evidence_record_count": _per_doc(ev_doc, ~has_ref_ev, n_docs),
        "duplicate_evidence_record_count": _per_doc(ev_doc, dup_ev, n_docs),
        "referenced_evidence_count": _per_doc(valid_doc, referenced, n_docs),
    }


def _metrics_frame(counts: pl.DataFrame) -> pl.DataFrame:
    """The metric columns of :func:`summary_citations._metrics_from_counts`, column-wise."""
    c = pl.col
    available = (
        (c("valid_evidence_record_count") > 0)
        & (c("invalid_evidence_record_count") == 0)
        & (c("duplicate_evidence_record_count") == 0)
    )
    frame = counts.with_columns(
        (c("claim_count") - c("supported_claim_count")).alias("unsupported_claim_count"),
        (c("citation_count") - c("valid_citation_count")).alias("invalid_citation_count"),
        available.alias("source_evidence_available"),
    )
    has_claims = c("claim_count") > 0
    flags = {
        "duplicate_citation": c("duplicate_citation_count") > 0,
        "duplicate_source_evidence": c("duplicate_evidence_record_count") > 0,
        "invalid_citation": c("invalid_citation_count") > 0,
        "invalid_source_evidence": c("invalid_evidence_record_count") > 0,
        "missing_citation": c("missing_citation_count") > 0,
        "missing_source_evidence": c("valid_evidence_record_count") == 0,
        "missing_source_record": c("missing_source_record_count") > 0,
        "unavailable_span": c("unavailable_span_count") > 0,
        "unsupported_claim": c("unsupported_claim_count") > 0,
    }
    any_reason = pl.any_horizontal(*flags.values())
    frame = frame.with_columns(
        c("unsupported_claim_count").alias("abstention_count"),
        pl.when(~c("source_evidence_available"))
        .then(0.0)
        .when(has_claims)
        .then(c("supported_claim_count").cast(pl.Float64) / c("claim_count").cast(pl.Float64))
        .otherwise(1.0)
        .alias("coverage"),
        pl.when(c("source_evidence_available"))
        .then(
            c("referenced_evidence_count").cast(pl.Float64)
            / c("valid_evidence_record_count").cast(pl.Float64)
        )
        .otherwise(0.0)
        .alias("evidence_coverage"),
        pl.when(has_claims)
        .then(c("unsupported_claim_count").cast(pl.Float64) / c("claim_count").cast(pl.Float64))
        .otherwise(0.0)
        .alias("abstention_rate"),
        (~c("source_evidence_available")).alias("fail_closed"),
        (c("source_evidence_available") & ~any_reason).alias("passed"),
        pl.concat_list([pl.when(flags[code]).then(pl.lit(code)) for code in _REASON_CODES])
        .list.drop_nulls()
        .alias("failure_reasons"),
        *[flag.cast(pl.Int64).alias(f"failure_reasons.{code}") for code, flag in flags.items()],
        pl.lit(1, dtype=pl.Int64).alias("schema_version"),
    )
    return frame


def _csv_typed(table: pa.Table) -> pa.Table | list[Any]:
    from citelens.summary_citations._input import _type_csv_offsets  # import cycle

    return _type_csv_offsets(table)


def _single_document(
    claims: pa.Table | list[Any], evidence: pa.Table | list[Any], limits: Any
) -> dict[str, Any]:
    """The exact fallback: ``build_summary_citation_report`` on one document's rows."""
    from citelens.errors import SummaryCitationError
    from citelens.summary_citations._api import build_summary_citation_report

    failure: tuple[str, str] | None = None
    row: dict[str, Any] = {}
    try:
        report = build_summary_citation_report(claims, evidence, limits=limits)
        row = report.metrics.to_dict()
    except SummaryCitationError as exc:
        failure = (str(exc.args[0]), exc.category)
    if failure is not None:
        return {"status": "error", "error_message": failure[0], "error_category": failure[1]}
    row["failure_reasons"] = list(row["failure_reasons"])
    for code, column in zip(_REASON_CODES, REASON_COLUMNS):
        row[column] = int(code in row["failure_reasons"])
    row["status"] = "ok"
    return row


def _document_rows(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(
        [{name: row.get(name) for name in DOCUMENT_COLUMNS} for row in rows],
        schema={name: _document_dtype(name) for name in DOCUMENT_COLUMNS},
        orient="row",
    )


def _empty_documents() -> pl.DataFrame:
    return pl.DataFrame(schema={name: _document_dtype(name) for name in DOCUMENT_COLUMNS})


def _rows_of(table: pa.Table | list[Any], positions: Any) -> pa.Table | list[Any]:
    if isinstance(table, pa.Table):
        return table.take(pa.array(positions, pa.int64()))
    return [table[i] for i in positions.tolist()]


def _fallback(
    refs: list[str],
    claims: pa.Table | list[Any],
    claim_doc: Any,
    evidence: pa.Table | list[Any],
    ev_doc: Any,
    documents: Any,
    limits: Any,
) -> list[dict[str, Any]]:
    """Evaluate the given documents one by one through the public entry point (exact)."""
    claim_order = np.argsort(claim_doc, kind="stable")
    ev_order = np.argsort(ev_doc, kind="stable")
    claim_bounds = np.searchsorted(claim_doc[claim_order], [documents, documents + 1])
    ev_bounds = np.searchsorted(ev_doc[ev_order], [documents, documents + 1])
    rows: list[dict[str, Any]] = []
    for k, code in enumerate(documents.tolist()):
        c_rows = _rows_of(claims, claim_order[claim_bounds[0][k] : claim_bounds[1][k]])
        e_rows = _rows_of(evidence, ev_order[ev_bounds[0][k] : ev_bounds[1][k]])
        row = _single_document(c_rows, e_rows, limits)
        row["document_ref"] = refs[code]
        rows.append(row)
    return rows


def _document_codes(claims: pa.Table, evidence: pa.Table) -> tuple[list[str], Any, Any]:
    """Code every row by its document (first-appearance order of ``document_ref``)."""
    combined = pa.chunked_array(
        [
            pc.cast(_array(claims.column("document_ref")), pa.large_string()),
            pc.cast(_array(evidence.column("document_ref")), pa.large_string()),
        ],
        type=pa.large_string(),
    ).combine_chunks()
    if combined.null_count:
        raise ValueError("document_ref must not be null")
    encoded = pc.dictionary_encode(combined)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)
    refs = [str(v) for v in encoded.dictionary.to_pylist()]
    return refs, codes[: claims.num_rows], codes[claims.num_rows :]


def summary_metrics_by_document(
    claims: pa.Table,
    evidence: pa.Table,
    limits: Any = None,
    *,
    csv: tuple[bool, bool] = (False, False),
) -> pl.DataFrame:
    """Every document's summary-citation metrics in one vectorised pass.

    ``claims`` and ``evidence`` both carry a non-null ``document_ref`` column; every row of a
    document, in table order, is that document's input. Returns one row per document
    (columns :data:`DOCUMENT_COLUMNS`, sorted by ``document_ref``) equal to
    ``build_summary_citation_report`` on that document's rows alone (bounds from ``limits``
    apply per document): its ``metrics.to_dict()`` values with status ``"ok"``, or status
    ``"error"`` with the fixed message and category it raises. ``csv`` marks roles read from
    CSV (offset cells typed as in a CSV file).

    Flat tables go through one pass: identifiers are factorised once, made document-scoped as
    dense (document, reference) codes, and counted per document with ``bincount``. Tables
    outside the flat columnar domain, or a pass that raises, fall back document by document to
    the public entry point (exact).
    """
    from citelens.limits import Limits
    from citelens.summary_citations._api import (
        DEFAULT_CITATIONS,
        DEFAULT_CLAIMS,
        DEFAULT_EVIDENCE,
    )

    resolved = limits if isinstance(limits, Limits) else Limits()
    refs, claim_doc, ev_doc = _document_codes(claims, evidence)
    n_docs = len(refs)
    if n_docs == 0:
        return _empty_documents()
    claim_body: pa.Table | list[Any] = claims.drop_columns(["document_ref"])
    ev_body: pa.Table | list[Any] = evidence.drop_columns(["document_ref"])
    if csv[0]:
        claim_body = _csv_typed(claims.drop_columns(["document_ref"]))
    if csv[1]:
        ev_body = _csv_typed(evidence.drop_columns(["document_ref"]))
    all_docs = np.arange(n_docs, dtype=np.int64)
    flat = (
        isinstance(claim_body, pa.Table)
        and isinstance(ev_body, pa.Table)
        and flat_claims_ok(claim_body.schema)
        and flat_evidence_ok(ev_body.schema)
    )
    arrays: dict[str, Any] | None = None
    if flat:
        assert isinstance(claim_body, pa.Table) and isinstance(ev_body, pa.Table)
        try:
            items = claims_frame_from_table(claim_body)
            ev = evidence_frame_from_table(ev_body)
            arrays = _counts_by_document(claim_doc, items, ev_doc, ev, n_docs)
        except Exception:
            arrays = None
    if arrays is None:
        rows = _fallback(refs, claim_body, claim_doc, ev_body, ev_doc, all_docs, resolved)
        return _document_rows(rows).sort("document_ref")
    counts = pl.DataFrame({"document_ref": refs, **arrays})
    # Bounds per document, in the single call's order: claims, evidence, citation items.
    c = pl.col
    over = (
        pl.when(c("claim_count") > resolved.resolve("claims", DEFAULT_CLAIMS))
        .then(pl.lit("claims collection exceeds the configured limit"))
        .when(c("evidence_record_count") > resolved.resolve("evidence", DEFAULT_EVIDENCE))
        .then(pl.lit("evidence collection exceeds the configured limit"))
        .when(c("citation_count") > resolved.resolve("citations", DEFAULT_CITATIONS))
        .then(pl.lit("citation items exceed the configured limit"))
    )
    counts = counts.with_columns(over.alias("error_message"))
    failed = counts.filter(c("error_message").is_not_null()).select(
        "document_ref",
        pl.lit("error").alias("status"),
        pl.lit("limit").alias("error_category"),
        "error_message",
    )
    ok = _metrics_frame(counts.filter(c("error_message").is_null())).with_columns(
        pl.lit("ok").alias("status"), pl.lit(None, dtype=pl.String).alias("error_category")
    )
    frames = [
        frame.with_columns(
            *[
                pl.lit(None, dtype=_document_dtype(name)).alias(name)
                for name in DOCUMENT_COLUMNS
                if name not in frame.columns
            ]
        ).select([pl.col(name).cast(_document_dtype(name)) for name in DOCUMENT_COLUMNS])
        for frame in (ok, failed)
    ]
    return pl.concat(frames).sort("document_ref")
