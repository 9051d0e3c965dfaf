"""The one counting kernel of summary citations (summary-citations.md §13 Steps B, D, E, F).

Every call is a corpus: each claim and evidence row carries a document code (all zeros for a
single call), and every count is a per-document ``bincount``. Identifier strings are
factorised once with Arrow's ``dictionary_encode``; spans become one int64 key; identifier
codes and span keys are then made document-scoped as dense (document, reference) codes, so
registration, resolution and duplicates stay inside their document. Items may hold several
references (several rows with one ``item_no``); per-item aggregates are ``bincount`` counts over
``item_no``. Only evidence rows that share a reference with another row of their document go
through the sequential "earlier valid record" rule (§13 Step B: one pass over integer codes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["COUNT_COLUMNS", "count_by_document"]

# Below this many values NumPy's single-threaded unique beats a Polars call (fixed cost of
# about a millisecond); above it Polars' parallel hash / sort is much faster.
_SMALL = 1 << 15

# The raw per-document totals, before ratios and the verdict (§9.2).
COUNT_COLUMNS: tuple[str, ...] = (
    "claim_count",
    "supported_claim_count",
    "citation_count",
    "valid_citation_count",
    "duplicate_citation_count",
    "missing_citation_count",
    "missing_source_record_count",
    "unavailable_span_count",
    "evidence_record_count",
    "valid_evidence_record_count",
    "invalid_evidence_record_count",
    "duplicate_evidence_record_count",
    "referenced_evidence_count",
)


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


def _offsets(col: pa.ChunkedArray) -> Any:
    return pc.fill_null(col, -1).to_numpy().astype(np.int64, copy=False)


def _lookup(table: Any, codes: Any) -> Any:
    """``table[codes]`` with -1 for code -1 (and for an empty table)."""
    if len(table) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    out = table[np.maximum(codes, 0)]
    return np.where(codes >= 0, out, -1)


def _packed(a: Any, b: Any) -> Any | None:
    """``a * width + b`` for non-negative int64 columns (one key per pair), or ``None`` when
    that could overflow int64."""
    if len(a) == 0:
        return a
    width = int(b.max()) + 1
    if (int(a.max()) + 1) * width >= (1 << 62):
        return None
    return a * width + b


def _dense_pairs(doc: Any, key: Any, n_docs: int, n_keys: int | None) -> tuple[Any, int]:
    """Dense codes of the (document, key) pairs; -1 where ``key`` is -1 (no reference).

    ``n_keys`` is given when the keys are already dense codes ``0 .. n_keys - 1`` that all
    occur: with one document they are their own pair codes.
    """
    if n_docs == 1 and n_keys is not None:
        return key, n_keys
    out = np.full(len(key), -1, dtype=np.int64)
    has = key >= 0
    if not has.any():
        return out, 0
    a = doc[has]
    b = key[has]
    packed = _packed(a, b)
    if packed is not None and len(packed) < _SMALL:
        _, inverse = np.unique(packed, return_inverse=True)
        dense = inverse.reshape(-1).astype(np.int64)
    elif packed is not None:
        # Polars' dense rank: a parallel sort of one int64 column, 1-based.
        dense = pl.Series(packed).rank("dense").to_numpy().astype(np.int64) - 1
    else:
        frame = pl.DataFrame({"a": a, "b": b})
        dense = frame.select(pl.struct("a", "b").rank("dense")).to_series().to_numpy() - 1
        dense = dense.astype(np.int64)
    out[has] = dense
    return out, int(dense.max()) + 1


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


def _per_doc(doc: Any, mask: Any | None, n_docs: int) -> Any:
    """Per-document count of rows (where ``mask``), by ``bincount``."""
    picked = doc if mask is None else doc[mask]
    return np.bincount(picked, minlength=n_docs).astype(np.int64)


def _ints(col: pa.ChunkedArray) -> Any:
    return pc.fill_null(col, 0).to_numpy().astype(np.int64, copy=False)


def _unique_pairs(a: Any, b: Any) -> tuple[Any, Any]:
    """The distinct (a, b) pairs of two non-negative int64 columns (in no particular order)."""
    packed = _packed(a, b)
    if packed is None:
        pairs = np.unique(np.stack([a, b], axis=1), axis=0)
        return pairs[:, 0], pairs[:, 1]
    if len(packed) == 0:
        return a, b
    if len(packed) < _SMALL:
        distinct = np.unique(packed)
    else:
        # Polars' hash-based unique is parallel and much faster than numpy's for int64.
        distinct = pl.Series(packed).unique().to_numpy()
    width = int(b.max()) + 1
    return distinct // width, distinct % width


def _distinct_records(item_no: Any, ri: Any, rs: Any, n_items: int) -> tuple[Any, Any]:
    """Per item: the number of distinct records its references resolve to, and that record
    when there is exactly one (else -1).

    A row holds at most one id and one span, so a one-row item is counted on its row; items
    of several rows (walker items with several ids or spans) are counted over distinct
    (item, record) pairs.
    """
    rows_per_item = np.bincount(item_no, minlength=n_items)
    alone = rows_per_item[item_no] == 1
    n_distinct = np.zeros(n_items, dtype=np.int64)
    rec = np.full(n_items, -1, dtype=np.int64)
    a_ri, a_rs, a_item = ri[alone], rs[alone], item_no[alone]
    n_distinct[a_item] = (
        (a_ri >= 0).astype(np.int64)
        + (a_rs >= 0).astype(np.int64)
        - ((a_ri >= 0) & (a_ri == a_rs)).astype(np.int64)
    )
    rec[a_item] = np.where(a_ri >= 0, a_ri, a_rs)
    several = ~alone
    if several.any():
        m_item, m_ri, m_rs = item_no[several], ri[several], rs[several]
        u_item, u_rec = _unique_pairs(
            np.concatenate([m_item[m_ri >= 0], m_item[m_rs >= 0]]),
            np.concatenate([m_ri[m_ri >= 0], m_rs[m_rs >= 0]]),
        )
        n_distinct += np.bincount(u_item, minlength=n_items)
        rec[u_item] = u_rec
    return n_distinct, np.where(n_distinct == 1, rec, -1)


def _set_key_repeats(item: Any, code: Any, item_claim: Any) -> tuple[Any, Any]:
    """Items keyed by their reference set (§8): which items repeat an earlier item's
    (claim, set of references). Returns the item numbers and their repeat mask."""
    frame = pl.DataFrame({"item": item, "code": code})
    keys = frame.group_by("item").agg(pl.col("code").unique().sort())
    items = keys["item"].to_numpy()
    keyed = keys.with_columns(
        pl.Series("claim", item_claim[items]),
        pl.col("code").list.eval(pl.element().cast(pl.String)).list.join(","),
    )
    first = keyed.select(pl.struct("claim", "code").is_first_distinct()).to_series().to_numpy()
    return items, ~first


def count_by_document(
    claim_doc: Any, items: pa.Table, n_items: int, ev_doc: Any, ev: pa.Table, n_docs: int
) -> pl.DataFrame:
    """Steps B, D, E, F for every document at once: one row of :data:`COUNT_COLUMNS` per
    document code ``0 .. n_docs - 1``.

    ``claim_doc`` / ``ev_doc`` give each claim / evidence row's document code; ``items``
    holds the reference rows ``(item_no, claim_no, id, s, e)`` of ``n_items`` citation items
    (``claim_no`` indexes ``claim_doc``); ``ev`` holds ``(id, s, e)`` per evidence row.
    """
    ev_id, it_id, n_id = _id_codes(ev.column("id"), items.column("id"))
    ev_sp, it_sp = _span_keys(
        _offsets(ev.column("s")),
        _offsets(ev.column("e")),
        _offsets(items.column("s")),
        _offsets(items.column("e")),
    )
    item_no = _ints(items.column("item_no"))
    claim_no = _ints(items.column("claim_no"))
    row_doc = claim_doc[claim_no] if len(claim_no) else np.zeros(0, dtype=np.int64)
    n_ev = len(ev_id)
    both_doc = np.concatenate([ev_doc, row_doc])
    idp, n_idp = _dense_pairs(both_doc, np.concatenate([ev_id, it_id]), n_docs, n_id)
    spp, n_spp = _dense_pairs(both_doc, np.concatenate([ev_sp, it_sp]), n_docs, None)
    ev_idp, it_idp = idp[:n_ev], idp[n_ev:]
    ev_spp, it_spp = spp[:n_ev], spp[n_ev:]
    valid_ev, idx, has_ref_ev, dup_ev = _register_rows(ev_idp, ev_spp, n_idp, n_spp)
    # Step D: each reference resolves to a registered record of its own document (or -1).
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
    # Per item (group by item_no): n_refs, any unresolved id / span, distinct records.
    n_refs = np.bincount(np.concatenate([item_no[has_id], item_no[has_sp]]), minlength=n_items)
    unres_id = np.bincount(item_no[has_id & (ri < 0)], minlength=n_items) > 0
    unres_sp = np.bincount(item_no[has_sp & (rs < 0)], minlength=n_items) > 0
    n_distinct, rec = _distinct_records(item_no, ri, rs, n_items)
    has_ref = n_refs > 0
    valid = has_ref & ~unres_id & ~unres_sp & (n_distinct == 1)
    item_claim = np.zeros(n_items, dtype=np.int64)
    item_claim[item_no] = claim_no
    item_doc = claim_doc[item_claim] if n_items else np.zeros(0, dtype=np.int64)
    # Step E: per claim, an item repeating an earlier item's key is a duplicate. The key is
    # the one record an item resolves to, else the set of its references.
    # Per document: (items with a key) - (distinct (claim, key) pairs).
    rec_key = rec >= 0
    u_claim, _ = _unique_pairs(item_claim[rec_key], rec[rec_key])
    duplicates = _per_doc(item_doc, rec_key, n_docs) - _per_doc(claim_doc[u_claim], None, n_docs)
    set_key = has_ref & (n_distinct != 1)
    if set_key.any():
        on_id = set_key[item_no] & has_id
        on_sp = set_key[item_no] & has_sp
        keyed, repeats = _set_key_repeats(
            np.concatenate([item_no[on_id], item_no[on_sp]]),
            np.concatenate([2 * it_idp[on_id], 2 * it_spp[on_sp] + 1]),
            item_claim,
        )
        duplicates += _per_doc(item_doc[keyed], repeats, n_docs)
    # Step F: supported claims, claims with items, records cited by valid items.
    n_claims = len(claim_doc)
    supported = np.zeros(n_claims, dtype=bool)
    supported[item_claim[valid]] = True
    with_items = np.zeros(n_claims, dtype=bool)
    with_items[item_claim] = True
    referenced = np.zeros(int(valid_ev.sum()), dtype=bool)
    referenced[rec[valid]] = True
    valid_doc = ev_doc[valid_ev]  # record index order == row order of valid rows
    claim_count = _per_doc(claim_doc, None, n_docs)
    columns = {
        "claim_count": claim_count,
        "supported_claim_count": _per_doc(claim_doc, supported, n_docs),
        "citation_count": _per_doc(item_doc, None, n_docs),
        "valid_citation_count": _per_doc(item_doc, valid, n_docs),
        "duplicate_citation_count": duplicates,
        "missing_citation_count": claim_count - _per_doc(claim_doc, with_items, n_docs),
        "missing_source_record_count": _per_doc(item_doc, ~valid & unres_id, n_docs),
        "unavailable_span_count": _per_doc(item_doc, ~valid & unres_sp, n_docs),
        "evidence_record_count": _per_doc(ev_doc, None, n_docs),
        "valid_evidence_record_count": _per_doc(ev_doc, valid_ev, n_docs),
        "invalid_evidence_record_count": _per_doc(ev_doc, ~has_ref_ev, n_docs),
        "duplicate_evidence_record_count": _per_doc(ev_doc, dup_ev, n_docs),
        "referenced_evidence_count": _per_doc(valid_doc, referenced, n_docs),
    }
    return pl.DataFrame({name: columns[name] for name in COUNT_COLUMNS})
