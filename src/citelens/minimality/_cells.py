"""Kind-tagged columns: the one form every claim and citation input reaches (minimality.md §6).

A *cell* is one field value of one row, carried as a kind code plus typed value columns, so
values of mixed Python types under one name (text, ints of any size, bools, floats, containers,
other objects) sit in one column. A :class:`Group` holds the cells of the alias names of one
READ; :class:`Levels` holds span values flattened into one row per nesting level (a span value,
its ``offset`` wrapper, that wrapper's wrapper, … up to the nesting cap of §6). The rules of
:mod:`citelens.minimality._tables` read these columns; nothing here decides a rule.

This module also converts plain Python values into cells (:func:`cells_from_values`), used by
the record adapter and by the typed records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from citelens._surrogates import storable_texts
from citelens.minimality._rules import BIG

__all__ = [
    "ABSENT",
    "BIG",
    "BIGINT",
    "BOOL",
    "CONTAINER_DEEP",
    "CONTAINER_MAPPING",
    "CONTAINER_OTHER",
    "CONTAINER_RAISED",
    "CONTAINER_SPAN",
    "CONTAINER_TEXT",
    "FLOAT",
    "INT",
    "OTHER",
    "RAISED",
    "RAISED_VALUE",
    "STR",
    "Cells",
    "Frame",
    "Group",
    "Levels",
    "Raised",
    "SpanValue",
    "absent_cells",
    "cells_from_values",
    "concat_cells",
    "concat_levels",
    "empty_group",
]

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

# Ints at or beyond ±BIG are carried in ``Frame.bigs`` (their value column holds the index):
# int64 columns then hold only values whose order and equality are exact.

# Cell kinds.
ABSENT = 0  # no value (a missing name, ``None``, a null cell)
STR = 1  # exact ``str``
INT = 2  # exact ``int`` with ``-BIG < v < BIG``
BIGINT = 3  # exact ``int`` beyond that range (value = index into the frame's ``bigs``)
BOOL = 4  # exact ``bool`` (value 0 / 1)
FLOAT = 5  # exact ``float``
OTHER = 6  # anything else: containers, subclasses, caller objects
RAISED = 7  # reading the value raised (caller code)

# What a span level's value is (SPAN_FROM of §6 looks at this before reading anything).
CONTAINER_MAPPING = 0  # a ``Mapping``
CONTAINER_TEXT = 1  # ``str``, ``bytes``, ``bytearray``
CONTAINER_SPAN = 2  # a typed span (start / end cells hold its offsets)
CONTAINER_OTHER = 3  # anything else (read by attribute, iterated when needed)
CONTAINER_DEEP = 4  # beyond the nesting cap: nothing was read
CONTAINER_RAISED = 5  # reading the span value itself raised

_KINDS: dict[type, int] = {str: STR, int: INT, bool: BOOL, float: FLOAT, type(None): ABSENT}


class SpanValue:
    """Marker base of the typed span class (:class:`citelens.minimality.CitationSpan`)."""

    __slots__ = ()
    start: int
    end: int


class Raised:
    """Marker value: reading this field raised (caller code)."""

    __slots__ = ()


RAISED_VALUE = Raised()


@dataclass
class Cells:
    """One value per row: ``kind`` plus the typed value columns (placeholders elsewhere)."""

    kind: I8
    ival: I64  # INT, BOOL: the value; BIGINT: index into the frame's ``bigs``
    fval: F64  # FLOAT: the value
    sval: pa.Array  # STR: the text (string array, null elsewhere)

    def __len__(self) -> int:
        return int(self.kind.size)

    def take(self, rows: I64) -> Cells:
        """The given rows, in order."""
        return Cells(
            self.kind[rows], self.ival[rows], self.fval[rows], self.sval.take(pa.array(rows))
        )


def absent_cells(n: int) -> Cells:
    """``n`` absent cells."""
    return Cells(np.zeros(n, np.int8), np.zeros(n, np.int64), np.zeros(n), pa.nulls(n, pa.string()))


def concat_cells(parts: Sequence[Cells]) -> Cells:
    """Rows of several cell columns, in order."""
    if len(parts) == 1:
        return parts[0]
    return Cells(
        np.concatenate([p.kind for p in parts]),
        np.concatenate([p.ival for p in parts]),
        np.concatenate([p.fval for p in parts]),
        pa.concat_arrays([p.sval for p in parts]) if parts else pa.nulls(0, pa.string()),
    )


@dataclass
class Group:
    """The cells of the alias names of one READ, in READ order.

    ``caller_unequal`` marks rows where a pair of present values involving a non-scalar
    (``OTHER``) value compared unequal under its own ``==`` or raised: that comparison is
    caller code, run by the adapter; every other comparison is a column rule.
    """

    cells: list[Cells]
    caller_unequal: Bools


def empty_group(n: int) -> Group:
    """A READ over names none of which is present."""
    return Group([], np.zeros(n, dtype=bool))


@dataclass
class Levels:
    """Span values flattened to one row per nesting level (all span sources of a frame).

    ``row`` is the record, ``source`` the span source (alias index, or the record fallback),
    ``depth`` the nesting level. ``start`` / ``end`` / ``nested`` are the READs of SPAN_FROM
    step 3 on the level's value; ``nested_self`` says the nested value is the level's value
    itself; ``iterated`` says items were pulled (SPAN_FROM step 5), ``iter_failed`` that pulling
    raised or the value is not iterable, ``n_items`` how many were pulled (at most 3) and
    ``item0`` / ``item1`` the first two.
    """

    row: I64
    source: I64
    depth: I64
    container: I8
    start: Group
    end: Group
    nested: Group
    nested_self: Bools
    iterated: Bools
    iter_failed: Bools
    n_items: I64
    item0: Cells
    item1: Cells

    def __len__(self) -> int:
        return int(self.row.size)


def _group_rows(groups: list[Group]) -> Group:
    width = max(len(g.cells) for g in groups)
    cells = [
        concat_cells(
            [
                g.cells[i] if i < len(g.cells) else absent_cells(g.caller_unequal.size)
                for g in groups
            ]
        )
        for i in range(width)
    ]
    return Group(cells, np.concatenate([g.caller_unequal for g in groups]))


def concat_levels(parts: list[Levels]) -> Levels:
    """Levels of several parts, in order (zero parts: no levels)."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        none = np.zeros(0, dtype=bool)
        zeros = np.zeros(0, dtype=np.int64)
        empty = Group([], none)
        return Levels(zeros, zeros, zeros, np.zeros(0, np.int8), empty, empty, empty, none,
                      none, none, zeros, absent_cells(0), absent_cells(0))  # fmt: skip
    return Levels(
        row=np.concatenate([p.row for p in parts]),
        source=np.concatenate([p.source for p in parts]),
        depth=np.concatenate([p.depth for p in parts]),
        container=np.concatenate([p.container for p in parts]),
        start=_group_rows([p.start for p in parts]),
        end=_group_rows([p.end for p in parts]),
        nested=_group_rows([p.nested for p in parts]),
        nested_self=np.concatenate([p.nested_self for p in parts]),
        iterated=np.concatenate([p.iterated for p in parts]),
        iter_failed=np.concatenate([p.iter_failed for p in parts]),
        n_items=np.concatenate([p.n_items for p in parts]),
        item0=concat_cells([p.item0 for p in parts]),
        item1=concat_cells([p.item1 for p in parts]),
    )


@dataclass
class Frame:
    """One collection of claim or citation records as kind-tagged columns.

    ``claim_id`` / ``citation_id`` / ``start`` / ``end`` are the record-level READs of §6 (the
    citation id group is empty for claims); ``levels`` holds every span source; ``n_aliases``
    is the number of named span aliases (source ``n_aliases`` is the record fallback);
    ``bigs`` holds the ints beyond ±BIG that cells refer to.
    """

    n: int
    claim_id: Group
    citation_id: Group
    start: Group
    end: Group
    levels: Levels
    n_aliases: int
    bigs: list[int]


def cells_from_values(values: Sequence[Any], bigs: list[int]) -> Cells:
    """Python values → cells (``None`` is absent); ints beyond ±BIG are appended to ``bigs``."""
    n = len(values)
    kinds = np.fromiter(map(_KINDS.get, map(type, values), repeat(OTHER)), np.int8, count=n)
    if bool((kinds == OTHER).any()):
        raised = np.fromiter((isinstance(v, Raised) for v in values), dtype=bool, count=n)
        kinds[raised] = RAISED
    ival = np.zeros(n, dtype=np.int64)
    fval = np.zeros(n, dtype=np.float64)
    ints = np.flatnonzero((kinds == INT) | (kinds == BOOL))
    if ints.size:
        picked = [values[i] for i in ints.tolist()]
        if all(-BIG < v < BIG for v in picked):
            ival[ints] = np.array(picked, dtype=np.int64)
        else:
            for index, value in zip(ints.tolist(), picked, strict=True):
                if -BIG < value < BIG:
                    ival[index] = value
                else:
                    kinds[index] = BIGINT
                    ival[index] = len(bigs)
                    bigs.append(int(value))
    floats = np.flatnonzero(kinds == FLOAT)
    if floats.size:
        fval[floats] = np.array([values[i] for i in floats.tolist()], dtype=np.float64)
    if bool((kinds == STR).all()):
        sval = _strings(values)
    elif bool((kinds == STR).any()):
        sval = _strings([v if type(v) is str else None for v in values])
    else:
        sval = pa.nulls(n, pa.string())
    return Cells(kinds, ival, fval, sval)


def _strings(values: Sequence[Any]) -> pa.Array:
    """Text cells as an Arrow column. A lone surrogate (no UTF-8) is written as a private-use
    character (:mod:`citelens._surrogates`): no identifier holds either, so every rule that
    reads the text decides as it would on the original."""
    unencodable = False
    try:
        return pa.array(values, pa.string())
    except UnicodeEncodeError:
        unencodable = True
    assert unencodable
    texts = [v for v in values if v is not None]
    fixed = iter(storable_texts(texts)[0])
    return pa.array([None if v is None else next(fixed) for v in values], pa.string())
