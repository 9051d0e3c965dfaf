"""Python records → reference frames (summary-citations.md §4.5–§7, §13 Steps A and C).

Two routes, one set of rules:

* **Regular records** (exact ``dict`` records whose rule keys hold only ``str``, only ``int``,
  or lists of only ``str`` / only ``int``) are built into an Arrow table key by key
  (``pa.array`` per key) and normalised by the flat-table path of ``_normalize``. The type
  test is exact (``type(v)``), so the table is the records themselves.
* **Every other record** is shredded by the adapter (``_nodes``) and normalised by the column
  rules over the node table (``_node_rules``).

Citation items are bounded as the contract says (§3): the item count of every claim is exact
before any citation list is read (lists are deferred with their length), so the running total
is a cumulative sum in record order and the lists of the claim that exceeds the bound, and of
later claims, are never read.
"""

from __future__ import annotations

from itertools import chain, compress, repeat
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from citelens._fixed import ContractFailure
from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
)
from citelens.summary_citations._node_rules import (
    Rows,
    Rules,
    claim_stage,
    evidence_rows,
    item_rows,
)
from citelens.summary_citations._nodes import (
    MODE_CLAIM,
    MODE_EVIDENCE,
    MODE_ITEM,
    V_SEQ,
    NodeTable,
    sequence_items,
    shred,
)
from citelens.summary_citations._nodes import _Unreadable as Unreadable
from citelens.summary_citations._normalize import (
    claims_frame_from_table,
    empty_items,
    evidence_frame_from_table,
)
from citelens.summary_citations._schema import flat_claims_ok, flat_evidence_ok

__all__ = ["Inaccessible", "TooManyItems", "claims_frame", "evidence_frame", "regular_table"]

_CLAIM_KEYS = frozenset(
    CLAIM_ID_KEYS + DIRECT_SPAN_KEYS + CONTAINER_KEYS + CITATION_COLLECTION_KEYS
)
_EVIDENCE_KEYS = frozenset(EVIDENCE_ID_KEYS + DIRECT_SPAN_KEYS + CONTAINER_KEYS)
# Keys a citation record's rules read (CIT_REFS, §7).
_ITEM_KEYS = frozenset(
    CITATION_ID_KEYS + DIRECT_SPAN_KEYS + CONTAINER_KEYS + CITATION_COLLECTION_KEYS
)
_NONE = type(None)


class Inaccessible(ContractFailure):
    """Private marker: a caller object raised while read (§4.5: input is not accessible)."""


class TooManyItems(ContractFailure):
    """Private marker: the running total of citation items exceeded the bound (§3)."""


def _column(values: list[Any], structs: bool = True) -> pa.Array | None:
    """One Arrow column of exactly typed values, ``None`` when the values are irregular.

    Scalars: only ``str`` or only ``int``; lists of only ``str`` / only ``int``; with
    ``structs``, exact dicts (or lists of exact dicts) whose rule keys hold such scalars."""
    types = set(map(type, values))
    types.discard(_NONE)
    if not types:
        return pa.nulls(len(values))
    if types == {str}:
        return _texts(values, pa.large_string())
    if types == {int}:
        return _ints(values, pa.int64())
    if types == {dict} and structs:
        return _struct(values)
    if types == {list}:
        inner_values = list(chain.from_iterable(filter(None, values)))
        inner = set(map(type, inner_values))
        inner.discard(_NONE)
        if inner <= {str}:
            return _texts(values, pa.list_(pa.large_string()))
        if inner == {int}:
            return _ints(values, pa.list_(pa.int64()))
        if inner == {dict} and structs:
            elements = _struct(inner_values)
            if elements is None:
                return None
            lengths = np.fromiter(map(len, map(_or_empty, values)), np.int64, len(values))
            offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
            mask = pa.array(np.fromiter(map(_is_none, values), bool, len(values)))
            return pa.ListArray.from_arrays(pa.array(offsets), elements, mask=mask)
    return None


def _or_empty(value: Any) -> Any:
    return () if value is None else value


def _is_none(value: Any) -> bool:
    return value is None


def _struct(values: list[Any]) -> pa.Array | None:
    """A struct column of exact dicts (or None) over their rule keys (scalars or lists)."""
    present = [v for v in values if v is not None] if None in values else values
    names = sorted(set().union(*present) & _ITEM_KEYS) if present else []
    n = len(values)
    empty: dict[str, Any] = {}
    filled = list(map(_or_empty_dict, values, repeat(empty))) if len(present) < n else values
    arrays: list[pa.Array] = []
    for name in names:
        col = _column(list(map(dict.get, filled, repeat(name))), structs=False)
        if col is None:
            return None
        arrays.append(col)
    mask = pa.array(np.fromiter(map(_is_none, values), bool, n))
    if not arrays:
        return pa.StructArray.from_arrays([pa.nulls(n)], ["_rows"], mask=mask)
    return pa.StructArray.from_arrays(arrays, names, mask=mask)


def _or_empty_dict(value: Any, empty: dict[str, Any]) -> Any:
    return empty if value is None else value


def _texts(values: list[Any], data_type: pa.DataType) -> pa.Array | None:
    result: pa.Array | None = None
    try:
        result = pa.array(values, data_type)
    except UnicodeEncodeError:  # a lone surrogate is no UTF-8: the node path is exact
        result = None
    return result


def _ints(values: list[Any], data_type: pa.DataType) -> pa.Array | None:
    result: pa.Array | None = None
    try:
        result = pa.array(values, data_type)
    except (OverflowError, pa.ArrowInvalid):  # ints beyond int64: the node path is exact
        result = None
    return result


def regular_table(records: list[Any], keys: frozenset[str]) -> pa.Table | None:
    """The records as an Arrow table of their rule keys, when that is exact; else ``None``."""
    n = len(records)
    if n == 0 or set(map(type, records)) != {dict}:
        return None
    present = sorted(set().union(*records) & keys)
    columns: dict[str, pa.Array] = {}
    for name in present:
        col = _column(list(map(dict.get, records, repeat(name))))
        if col is None:
            return None
        columns[name] = col
    if not columns:
        columns["_rows"] = pa.nulls(n)
    return pa.table(columns)


def _id_strings(codes: Any, dictionary: pa.Array) -> pa.Array:
    if len(codes) == 0:
        return pa.array([], pa.large_string())
    indices = pa.array(np.maximum(codes, 0), pa.int64(), mask=codes < 0)
    if len(dictionary) == 0:
        return pa.nulls(len(codes), pa.large_string())
    return pc.cast(pc.take(dictionary, indices), pa.large_string())


def _offsets(values: Any) -> pa.Array:
    return pa.array(values, pa.int64(), mask=values < 0)


def evidence_frame(records: list[Any]) -> pa.Table:
    """The ``(id, s, e)`` frame of evidence records (SOURCE_REFS, §6), in record order."""
    table = regular_table(records, _EVIDENCE_KEYS)
    if table is not None and flat_evidence_ok(table.schema):
        return evidence_frame_from_table(table)
    n = len(records)
    nodes = shred(records, np.arange(n), MODE_EVIDENCE)
    if nodes.failed is not None:
        raise Inaccessible()
    rules = Rules(nodes)
    ident, s, e = evidence_rows(rules, n)
    return pa.table(
        {"id": _id_strings(ident, rules.dictionary), "s": _offsets(s), "e": _offsets(e)}
    )


def _item_table(rows: Rows, item_no: Any, claim_no: Any, dictionary: pa.Array) -> pa.Table:
    return pa.table(
        {
            "item_no": pa.array(item_no, pa.int64()),
            "claim_no": pa.array(claim_no, pa.int64()),
            "id": _id_strings(rows.ident, dictionary),
            "s": _offsets(rows.s),
            "e": _offsets(rows.e),
        }
    )


def _with_null_rows(rows: Rows, owners: Any, n: int) -> Rows:
    """Add one row of nulls for every owner without a reference row (an empty item)."""
    covered = np.zeros(n, dtype=bool)
    covered[rows.owner] = True
    empty = owners[~covered[owners]]
    none = np.full(len(empty), -1, dtype=np.int64)
    return Rows(
        owner=np.concatenate([rows.owner, empty]),
        ident=np.concatenate([rows.ident, none]),
        s=np.concatenate([rows.s, none]),
        e=np.concatenate([rows.e, none]),
    )


def _list_items(nodes: NodeTable, lists: Any) -> tuple[list[Any], Any, int | None]:
    """The items of the reached citation lists, their claim numbers, and the first claim
    whose (non-list) sequence raised while iterated."""
    pos = np.searchsorted(nodes.deferred_nodes, lists)
    objects = [nodes.deferred_values[i] for i in pos.tolist()]
    roots = nodes.root[lists]
    exact = nodes.vkind[lists] == V_SEQ
    items = list(chain.from_iterable(compress(objects, exact.tolist())))
    owners = [np.repeat(roots[exact], nodes.seq_len[lists][exact])]
    failed: int | None = None
    for i in np.flatnonzero(~exact).tolist():
        try:
            got = sequence_items(objects[i])
        except Unreadable:
            root = int(roots[i])
            failed = root if failed is None else min(failed, root)
            continue
        items.extend(got)
        owners.append(np.full(len(got), roots[i], dtype=np.int64))
    return items, np.concatenate(owners), failed


def claims_frame(records: list[Any], citation_limit: int | None) -> tuple[pa.Table, int]:
    """The item frame ``(item_no, claim_no, id, s, e)`` of claim records (CLAIM_CITATIONS,
    §7) and its item count. ``citation_limit`` bounds the running item total (``None``: no
    bound, the caller bounds per document)."""
    table = regular_table(records, _CLAIM_KEYS)
    if table is not None and flat_claims_ok(table.schema):
        items = claims_frame_from_table(table)
        return items, items.num_rows
    n = len(records)
    nodes = shred(records, np.arange(n), MODE_CLAIM)
    rules = Rules(nodes)
    stage = claim_stage(rules, n)
    stop = n if nodes.failed is None else nodes.failed
    over: int | None = None
    if citation_limit is not None:
        running = np.cumsum(stage.counts[:stop])
        exceeded = np.flatnonzero(running > citation_limit)
        if len(exceeded):
            over = int(exceeded[0])
            stop = over
    lists = stage.lists[nodes.root[stage.lists] < stop]
    values, owners, failed = _list_items(nodes, lists)
    second = shred(values, owners, MODE_ITEM)
    # The first failing claim in record order decides: a caller object of a claim before
    # the one that exceeds the bound, the bound, or a caller object of a later claim.
    if failed is not None or second.failed is not None:
        raise Inaccessible()
    if over is not None:
        raise TooManyItems()
    if nodes.failed is not None:
        raise Inaccessible()
    k = len(stage.item_nodes)
    number = np.full(nodes.size, -1, dtype=np.int64)
    number[stage.item_nodes] = np.arange(k, dtype=np.int64)
    first_rows = _with_null_rows(stage.rows, stage.item_nodes, nodes.size)
    m = len(values)
    rules2 = Rules(second)
    second_rows = _with_null_rows(item_rows(rules2, m), np.arange(m), max(second.size, m))
    frames = [
        _item_table(
            first_rows,
            number[first_rows.owner],
            nodes.root[first_rows.owner],
            rules.dictionary,
        ),
        _item_table(
            second_rows,
            k + second_rows.owner,
            second.root[second_rows.owner],
            rules2.dictionary,
        ),
    ]
    frames = [f for f in frames if f.num_rows]
    if not frames:
        return empty_items(), 0
    return pa.concat_tables(frames), k + m
