"""The thin adapter for Python records: caller objects become a node table (no rule here).

Every value the rules of summary-citations.md §5–§7 may consult is read exactly once per
position and shredded into columns, level by level (breadth first):

* ``parent`` (node index, -1 for a root), ``root`` (record number), ``key`` (code of the
  mapping key, :data:`KEYS`; or :data:`K_PAIR0` / :data:`K_PAIR1` for the two items of a
  two-item sequence, :data:`K_ATTR_START` / :data:`K_ATTR_END` for attributes, -1 for a root);
* ``skind`` (scalar kind: none, exact ``str``, exact ``int`` within int64, other int text,
  ``bool``, other), ``text`` (the text of ``str`` and int-text values), ``ival`` (int64);
* ``vkind`` (record-view kind: view, exact list/tuple, other sequence, other object, none),
  ``is_seq`` (a ``Sequence`` other than ``str``/``bytes``) and ``seq_len``.

Reading a value is the contract's boundary to caller code (§4.5): the record view
(``Mapping`` / ``to_dict`` / ``vars``), the null rule and ``str`` keys only; ``start`` / ``end``
attributes, the length and items of a non-list sequence. A failure there marks the record
(``failed``); nothing else is caught. Which keys are read below a node follows from *roles*
(which rule may consult the node, with its remaining depth budget), so reading is bounded by
the nesting caps whatever the depth of the input. The elements of citation lists (CIT_ITEMS
sequences) are not read here: they are *deferred* with their length, so the caller can bound
the citation-item count before reading them (§3).
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress, repeat
from typing import Any, TypeVar, cast

import numpy as np
import pyarrow as pa

from citelens._surrogates import storable_texts
from citelens.summary_citations._keys import (
    CITATION_COLLECTION_KEYS,
    CITATION_ID_KEYS,
    CLAIM_ID_KEYS,
    CONTAINER_KEYS,
    DIRECT_SPAN_KEYS,
    EVIDENCE_ID_KEYS,
)

__all__ = [
    "KEYS",
    "K_ATTR_END",
    "K_ATTR_START",
    "K_PAIR0",
    "K_PAIR1",
    "MODE_CLAIM",
    "MODE_EVIDENCE",
    "MODE_ITEM",
    "S_BOOL",
    "S_INT",
    "S_INT_TEXT",
    "S_NONE",
    "S_OTHER",
    "S_STR",
    "V_NONE",
    "V_OSEQ",
    "V_OTHER",
    "V_SEQ",
    "V_VIEW",
    "NodeTable",
    "key_table",
    "sequence_items",
    "shred",
]

# Every key any rule reads, one code each (orders of the key lists live in the rules).
KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(
        EVIDENCE_ID_KEYS
        + CITATION_ID_KEYS
        + CONTAINER_KEYS
        + CITATION_COLLECTION_KEYS
        + DIRECT_SPAN_KEYS
    )
)
_CODE: dict[str, int] = {k: i for i, k in enumerate(KEYS)}
K_PAIR0, K_PAIR1, K_ATTR_START, K_ATTR_END = len(KEYS), len(KEYS) + 1, len(KEYS) + 2, len(KEYS) + 3
_N_CODES = len(KEYS) + 4

MODE_EVIDENCE, MODE_CLAIM, MODE_ITEM = 0, 1, 2

# Scalar kinds (what IDENT and the offset test look at).
S_NONE, S_STR, S_INT, S_INT_TEXT, S_BOOL, S_OTHER = 0, 1, 2, 3, 4, 5
# Record-view kinds (what SPAN / CIT_REFS / CIT_ITEMS look at).
V_NONE, V_VIEW, V_SEQ, V_OSEQ, V_OTHER = 0, 1, 2, 3, 4

_SKIND: dict[type, int] = {
    str: S_STR,
    int: S_INT,
    bool: S_BOOL,
    type(None): S_NONE,
    float: S_OTHER,
    bytes: S_OTHER,
    complex: S_OTHER,
    list: S_OTHER,
    tuple: S_OTHER,
    dict: S_OTHER,
}
# Exact types whose record view needs no caller code (summary-citations.md §4.5).
_VKIND: dict[type, int] = {
    dict: V_VIEW,
    list: V_SEQ,
    tuple: V_SEQ,
    str: V_NONE,
    int: V_NONE,
    float: V_NONE,
    bool: V_NONE,
    bytes: V_NONE,
    type(None): V_NONE,
    complex: V_NONE,
}
_NOT_NONE = operator.is_not
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)


def key_table(keys: tuple[str, ...]) -> Any:
    """Rank of each key code in ``keys`` (its position in the list), -1 elsewhere."""
    table = np.full(_N_CODES, -1, dtype=np.int64)
    for rank, k in enumerate(keys):
        table[_CODE[k]] = rank
    return table


_EV_ID = key_table(EVIDENCE_ID_KEYS) >= 0
_CIT_ID = key_table(CITATION_ID_KEYS) >= 0
_CLAIM_ID = key_table(CLAIM_ID_KEYS) >= 0
_CONTAINER = key_table(CONTAINER_KEYS) >= 0
_COLLECTION = key_table(CITATION_COLLECTION_KEYS) >= 0
_SPAN_KEY = key_table(DIRECT_SPAN_KEYS) >= 0


_T = TypeVar("_T")


class _Unreadable(Exception):
    """Private marker: a caller object raised while being read."""


def _normalised(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    # The null rule (§4.5): None entries are absent; only str keys are significant.
    return {k: v for k, v in mapping.items() if isinstance(k, str) and v is not None}


def _view(x: Any) -> dict[str, Any] | None:
    """The record view of an object of a type outside :data:`_VKIND` (caller code runs)."""
    if isinstance(x, Mapping):
        return _normalised(x)
    to_dict = getattr(x, "to_dict", None)
    if callable(to_dict):
        result = to_dict()
        if isinstance(result, Mapping):
            return _normalised(result)
    try:
        attrs = vars(x)
    except (TypeError, ValueError):  # §4.5: no record view
        return None
    return _normalised(attrs) if isinstance(attrs, Mapping) else None


def _is_sequence(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str | bytes)


_NOT_READ = object()


def _caller_read(read: Callable[[], _T]) -> _T:
    """``read()``, which calls into caller code: whatever that raises means the input is not
    accessible (§4.5). The one guard of this module; ``_Unreadable`` is raised outside the
    handler, so it chains nothing."""
    result: Any = _NOT_READ
    try:
        result = read()
    except Exception:  # a caller object, property or sequence raised while read
        result = _NOT_READ
    if result is _NOT_READ:
        raise _Unreadable()
    return cast(_T, result)


def _read_object(x: Any) -> tuple[int, bool, dict[str, Any] | None]:
    """(vkind, is_seq, view) of an object of an unusual type; caller failures → marker."""
    view, seq = _caller_read(lambda: (_view(x), _is_sequence(x)))
    if view is not None:
        return V_VIEW, seq, view
    if seq:
        return V_OSEQ, True, None
    return V_OTHER, False, None


def _start_end(x: Any) -> list[tuple[int, Any]]:
    out: list[tuple[int, Any]] = []
    try:
        start = getattr(x, "start")  # noqa: B009 - a caller attribute, read once
    except AttributeError:
        return out
    out.append((K_ATTR_START, start))
    with contextlib.suppress(AttributeError):
        out.append((K_ATTR_END, getattr(x, "end")))  # noqa: B009
    return out


def _attributes(x: Any) -> list[tuple[int, Any]]:
    """The ``start`` / ``end`` attributes of an object without record view (SPAN, §5)."""
    return _caller_read(lambda: _start_end(x))


def _sequence_pair(x: Any) -> list[tuple[int, Any]]:
    """The two items of a two-item non-list sequence (an int pair candidate, §5)."""
    return _caller_read(lambda: [(K_PAIR0, x[0]), (K_PAIR1, x[1])] if len(x) == 2 else [])


def sequence_items(x: Any) -> list[Any]:
    """The items of a deferred citation sequence, in iteration order (CIT_ITEMS, §7)."""
    if type(x) is list:
        return x
    if type(x) is tuple:
        return list(x)
    return _caller_read(lambda: list(x))


def _length(x: Any) -> int:
    return _caller_read(lambda: len(x))


@dataclass
class NodeTable:
    """Columns of the shredded nodes (see the module docstring), plus the deferred citation
    sequences: their node indices and objects, to be read by a later :func:`shred`."""

    parent: Any
    root: Any
    key: Any
    skind: Any
    vkind: Any
    is_seq: Any
    ival: Any
    seq_len: Any
    text: pa.ChunkedArray
    deferred_nodes: Any
    deferred_values: list[Any] = field(repr=False)
    failed: int | None = None

    def __repr__(self) -> str:
        return f"NodeTable(<{len(self.parent)} nodes>)"

    @property
    def size(self) -> int:
        """Number of nodes."""
        return len(self.parent)


@dataclass
class _Level:
    vals: list[Any]
    parent: Any
    root: Any
    key: Any
    span: Any  # remaining SPAN container levels, -1 when SPAN is not needed
    refs: Any  # CIT_REFS depth, -1 when not needed
    items: Any  # CIT_ITEMS depth, -1 when not needed
    ev_root: bool = False
    claim_root: bool = False


def _scalars(vals: list[Any], types: list[type], n: int) -> tuple[Any, Any, Any]:
    """skind, int64 values and text per value (no caller code: type tests only)."""
    sk = np.fromiter(map(_SKIND.get, types, repeat(-1)), dtype=np.int8, count=n)
    ival = np.zeros(n, dtype=np.int64)
    text: Any = None  # no text at all in this level (a common case: levels of mappings)
    is_str = sk == S_STR
    if is_str.any() or (sk < 0).any() or (sk == S_INT).any():
        text = np.full(n, None, dtype=object)
    if is_str.any():
        text[is_str] = list(compress(vals, is_str.tolist()))
    is_int = sk == S_INT
    if is_int.any():
        ints = list(compress(vals, is_int.tolist()))
        try:
            ival[is_int] = np.array(ints, dtype=np.int64)
        except OverflowError:
            # Ints beyond int64 are identifiers (decimal text), never offsets.
            where = np.flatnonzero(is_int)
            for i, v in zip(where.tolist(), ints, strict=True):
                if -(1 << 63) <= v < (1 << 63):
                    ival[i] = v
                else:
                    sk[i] = S_INT_TEXT
                    text[i] = int.__repr__(v)
    for i in np.flatnonzero(sk < 0).tolist():
        v = vals[i]
        if isinstance(v, str):
            sk[i], text[i] = S_STR, str.__str__(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            sk[i], text[i] = S_INT_TEXT, int.__repr__(v)
        else:
            sk[i] = S_OTHER
    return sk, ival, text


def _child_roles(level: _Level, p: Any, k: Any) -> tuple[Any, Any, Any, Any]:
    """Roles of the mapping entries ``(p, k)`` (parent positions in the level, key codes):
    leaf mask and SPAN / CIT_REFS / CIT_ITEMS budgets (-1 none)."""
    span_p, refs_p, items_p = level.span[p], level.refs[p], level.items[p]
    leaf = (span_p >= 0) & _SPAN_KEY[k]
    leaf |= (refs_p >= 0) & _CIT_ID[k]
    if level.ev_root:
        leaf |= _EV_ID[k]
    if level.claim_root:
        leaf |= _CLAIM_ID[k]
    span = np.where(
        _CONTAINER[k], np.where(refs_p >= 0, 4, np.where(span_p >= 1, span_p - 1, -1)), -1
    )
    refs = np.where(_COLLECTION[k] & (refs_p >= 0) & (refs_p < 5), refs_p + 1, -1)
    items = np.where(_COLLECTION[k] & (items_p >= 0) & (items_p < 5), items_p + 1, -1)
    if level.claim_root:
        items = np.where(_COLLECTION[k] | _CLAIM_ID[k], 0, items)
    refs = np.where(items >= 0, 0, refs)  # CIT_ITEMS of a view starts with CIT_REFS(m, 0)
    span = np.where(refs >= 0, 4, span)  # CIT_REFS reads SPAN(m, 0)
    return leaf, span.astype(np.int8), refs.astype(np.int8), items.astype(np.int8)


def _text_array(values: Any) -> pa.Array:
    """Node texts as an Arrow column; lone surrogates (which UTF-8 cannot hold) are written as
    private-use characters, so distinct texts stay distinct (:mod:`citelens._surrogates`)."""
    unencodable = False
    try:
        return pa.array(values, pa.large_string())
    except UnicodeEncodeError:
        unencodable = True
    assert unencodable
    texts: list[str | None] = list(values)
    present = [i for i, v in enumerate(texts) if v is not None]
    fixed, _ = storable_texts([str(texts[i]) for i in present])
    for i, text in zip(present, fixed, strict=True):
        texts[i] = text
    return pa.array(texts, pa.large_string())


def shred(values: list[Any], roots: Any, mode: int) -> NodeTable:
    """Shred ``values`` (records, or deferred citation items) into a :class:`NodeTable`.

    ``roots`` numbers each value's record. ``mode``: :data:`MODE_EVIDENCE` (SOURCE_REFS),
    :data:`MODE_CLAIM` (CLAIM_CITATIONS) or :data:`MODE_ITEM` (CIT_REFS of list items).
    Reading stops at the first record whose objects raise (``failed`` holds its number):
    evidence callers raise at once, claim callers need only the records before it.
    """
    n = len(values)
    level = _Level(
        vals=values,
        parent=np.full(n, -1, dtype=np.int64),
        root=np.asarray(roots, dtype=np.int64),
        key=np.full(n, -1, dtype=np.int16),
        span=np.full(n, 4, dtype=np.int8),
        refs=np.full(n, 0 if mode == MODE_ITEM else -1, dtype=np.int8),
        items=np.full(n, -1, dtype=np.int8),
        ev_root=mode == MODE_EVIDENCE,
        claim_root=mode == MODE_CLAIM,
    )
    cols: dict[str, list[Any]] = {
        name: []
        for name in ("parent", "root", "key", "skind", "vkind", "is_seq", "ival", "seq_len")
    }
    texts: list[pa.Array] = []
    deferred_nodes: list[Any] = []
    deferred_values: list[Any] = []
    failed: int | None = None
    offset = 0
    while len(level.vals):
        if failed is not None and (level.root >= failed).any():
            keep = level.root < failed
            level = _subset(level, keep)
            if not len(level.vals):
                break
        out = _expand(level, offset, mode != MODE_EVIDENCE)
        if out.failed is not None:
            if mode == MODE_EVIDENCE:
                failed = out.failed
                break
            failed = out.failed if failed is None else min(failed, out.failed)
        m = len(level.vals)
        cols["parent"].append(level.parent)
        cols["root"].append(level.root)
        cols["key"].append(level.key)
        cols["skind"].append(out.skind)
        cols["vkind"].append(out.vkind)
        cols["is_seq"].append(out.is_seq)
        cols["ival"].append(out.ival)
        cols["seq_len"].append(out.seq_len)
        texts.append(pa.nulls(m, pa.large_string()) if out.text is None else _text_array(out.text))
        deferred_nodes.append(out.deferred + offset)
        deferred_values.extend(out.deferred_values)
        offset += m
        level = out.next_level
    arrays = {
        name: np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        for name, parts in cols.items()
    }
    return NodeTable(
        parent=arrays["parent"],
        root=arrays["root"],
        key=arrays["key"].astype(np.int64),
        skind=arrays["skind"],
        vkind=arrays["vkind"],
        is_seq=arrays["is_seq"].astype(bool),
        ival=arrays["ival"],
        seq_len=arrays["seq_len"],
        text=pa.chunked_array(texts, pa.large_string()),
        deferred_nodes=(
            np.concatenate(deferred_nodes) if deferred_nodes else np.zeros(0, dtype=np.int64)
        ),
        deferred_values=deferred_values,
        failed=failed,
    )


def _subset(level: _Level, keep: Any) -> _Level:
    return _Level(
        vals=list(compress(level.vals, keep.tolist())),
        parent=level.parent[keep],
        root=level.root[keep],
        key=level.key[keep],
        span=level.span[keep],
        refs=level.refs[keep],
        items=level.items[keep],
        ev_root=level.ev_root,
        claim_root=level.claim_root,
    )


@dataclass
class _Expanded:
    skind: Any
    vkind: Any
    is_seq: Any
    ival: Any
    seq_len: Any
    text: Any
    deferred: Any
    deferred_values: list[Any]
    next_level: _Level
    failed: int | None


def _expand(level: _Level, offset: int, keep_going: bool) -> _Expanded:
    """Read one level: classify every value, read record views, emit the next level."""
    vals = level.vals
    n = len(vals)
    types = list(map(type, vals))
    sk, ival, text = _scalars(vals, types, n)
    structural = (level.span >= 0) | (level.refs >= 0) | (level.items >= 0)
    if level.ev_root or level.claim_root:
        structural[:] = True
    vk = np.full(n, V_NONE, dtype=np.int8)
    is_seq = np.zeros(n, dtype=np.int8)
    seq_len = np.zeros(n, dtype=np.int64)
    views: dict[int, dict[str, Any]] = {}
    extra: list[tuple[int, int, Any]] = []  # (position, key code, value) leaf entries
    failed: int | None = None
    bad = np.zeros(n, dtype=bool)
    vk_known = np.fromiter(map(_VKIND.get, types, repeat(-1)), dtype=np.int8, count=n)
    vk[structural] = vk_known[structural]
    is_seq[structural & (vk_known == V_SEQ)] = 1
    for i in np.flatnonzero(structural & (vk_known < 0)).tolist():
        try:
            kind, seq, view = _read_object(vals[i])
        except _Unreadable:
            bad[i] = True
            continue
        vk[i], is_seq[i] = kind, seq
        if view is not None:
            views[i] = view
    # Objects without a record view: attributes and pairs (SPAN), sequence lengths.
    spanning = structural & (level.span >= 0) & ~bad
    if level.claim_root:
        spanning[:] = False
    for i in np.flatnonzero(spanning & ((vk == V_OSEQ) | (vk == V_OTHER))).tolist():
        try:
            entries = _attributes(vals[i])
            if vk[i] == V_OSEQ:
                entries += _sequence_pair(vals[i])
        except _Unreadable:
            bad[i] = True
            continue
        extra.extend((i, code, value) for code, value in entries)
    exact = structural & (vk == V_SEQ)
    if exact.any():
        seq_len[exact] = np.fromiter(map(len, compress(vals, exact.tolist())), dtype=np.int64)
    for i in np.flatnonzero(structural & (vk == V_OSEQ) & ~bad).tolist():
        try:
            seq_len[i] = _length(vals[i])
        except _Unreadable:
            bad[i] = True
    if bad.any():
        failed = int(level.root[bad].min())
        if not keep_going:
            return _empty_expanded(sk, vk, is_seq, ival, seq_len, text, level, failed)
    pairs = np.flatnonzero(spanning & (vk == V_SEQ) & (seq_len == 2) & ~bad)
    # Citation sequences (CIT_ITEMS): deferred with their length, items not read here.
    deferring = (level.items >= 0) & ((vk == V_SEQ) | (vk == V_OSEQ)) & ~bad
    deferred = np.flatnonzero(deferring)
    deferred_values = list(compress(vals, deferring.tolist())) if len(deferred) else []
    # Mapping entries of every record view.
    dict_pos = np.flatnonzero((vk == V_VIEW) & ~bad)
    dicts = [views.get(i, vals[i]) for i in dict_pos.tolist()] if views else None
    if dicts is None:
        dicts = list(compress(vals, ((vk == V_VIEW) & ~bad).tolist()))
    counts = np.fromiter(map(len, dicts), dtype=np.int64, count=len(dicts))
    keys = list(chain.from_iterable(map(dict.keys, dicts)))
    entries = list(chain.from_iterable(map(dict.values, dicts)))
    codes = np.fromiter(map(_CODE.get, keys, repeat(-1)), dtype=np.int64, count=len(keys))
    present = np.fromiter(map(_NOT_NONE, entries, repeat(None)), dtype=bool, count=len(keys))
    p = np.repeat(dict_pos, counts)
    relevant = (codes >= 0) & present
    p, k = p[relevant], codes[relevant]
    leaf, span, refs, items = _child_roles(level, p, k)
    wanted = leaf | (span >= 0) | (refs >= 0) | (items >= 0)
    child_vals = list(compress(compress(entries, relevant.tolist()), wanted.tolist()))
    p, k, span, refs, items = p[wanted], k[wanted], span[wanted], refs[wanted], items[wanted]
    # Leaf entries: the two items of an exact two-item list/tuple, attributes.
    pair_vals = list(compress(vals, np.isin(np.arange(n), pairs).tolist())) if len(pairs) else []
    leaf_pos = [pairs, pairs, np.array([e[0] for e in extra], dtype=np.int64)]
    leaf_key = [
        np.full(len(pairs), K_PAIR0),
        np.full(len(pairs), K_PAIR1),
        np.array([e[1] for e in extra], dtype=np.int64),
    ]
    child_vals += list(map(_FIRST, pair_vals)) + list(map(_SECOND, pair_vals))
    child_vals += [e[2] for e in extra]
    lp = np.concatenate(leaf_pos).astype(np.int64)
    p = np.concatenate([p, lp])
    k = np.concatenate([k, *leaf_key]).astype(np.int16)
    none = np.full(len(lp), -1, dtype=np.int8)
    nxt = _Level(
        vals=child_vals,
        parent=p + offset,
        root=level.root[p],
        key=k,
        span=np.concatenate([span, none]),
        refs=np.concatenate([refs, none]),
        items=np.concatenate([items, none]),
    )
    return _Expanded(sk, vk, is_seq, ival, seq_len, text, deferred, deferred_values, nxt, failed)


def _empty_expanded(
    sk: Any, vk: Any, is_seq: Any, ival: Any, seq_len: Any, text: Any, level: _Level, failed: int
) -> _Expanded:
    empty = np.zeros(0, dtype=np.int64)
    nxt = _Level(
        vals=[],
        parent=empty,
        root=empty,
        key=empty.astype(np.int16),
        span=empty.astype(np.int8),
        refs=empty.astype(np.int8),
        items=empty.astype(np.int8),
    )
    return _Expanded(sk, vk, is_seq, ival, seq_len, text, empty, [], nxt, failed)
