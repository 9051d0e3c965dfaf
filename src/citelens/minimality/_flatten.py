"""Caller values → kind-tagged columns: the boundary to caller code (minimality.md §6).

Everything that runs caller code lives here: looking a name up in a caller mapping or object
(``get`` / ``getattr``), comparing two caller objects (``==``), iterating a span value. What it
returns is recorded in cells (a raise becomes a ``RAISED`` cell, an unequal or raising
comparison a ``caller_unequal`` flag, a failed iteration an ``iter_failed`` flag); whether and
where that is an error is decided by the column rules of :mod:`citelens.minimality._tables`.

Span values are flattened level by level (:class:`LevelBuilder`): a value, its nested
``offset`` value, that value's nested value, … down to one level past the nesting cap. The
walk follows SPAN_FROM only as far as it must to know *which caller code to run*: the nested
value is followed when it is present, items are pulled only when SPAN_FROM would pull them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from citelens.minimality._cells import (
    ABSENT,
    CONTAINER_DEEP,
    CONTAINER_MAPPING,
    CONTAINER_OTHER,
    CONTAINER_RAISED,
    CONTAINER_SPAN,
    CONTAINER_TEXT,
    OTHER,
    RAISED_VALUE,
    Group,
    Levels,
    Raised,
    SpanValue,
    cells_from_values,
)
from citelens.minimality._names import SPAN_ENDS, SPAN_NESTED, SPAN_STARTS

__all__ = ["MAX_SPAN_NESTING", "LevelBuilder", "group_from_lists", "read_names"]

# Span wrappers may nest 32 levels (§3); the level below is recorded as "too deep".
MAX_SPAN_NESTING = 32

_SCALARS = (str, int, bool, float)


def read_names(value: object, names: Sequence[str]) -> list[Any]:
    """The value of each name (``None`` when absent, :data:`RAISED_VALUE` when the lookup
    raised): mapping keys for a ``Mapping``, attributes for anything else (READ of §6)."""
    out: list[Any] = []
    mapping = isinstance(value, Mapping)
    for name in names:
        item: Any = None
        try:
            item = value.get(name) if mapping else getattr(value, name, None)  # type: ignore[attr-defined]
        except Exception:  # caller code raised: recorded, the rules decide (fields error)
            item = RAISED_VALUE
        out.append(item)
    return out


def _is_other(value: object) -> bool:
    return value is not None and type(value) not in _SCALARS and not isinstance(value, Raised)


def _unequal(values: list[Any]) -> bool:
    """Caller ``==`` on every pair that involves a non-scalar value: unequal or raising."""
    try:
        for left, right in combinations(values, 2):
            if (_is_other(left) or _is_other(right)) and not bool(left == right):
                return True
    except Exception:  # a caller __eq__ / __bool__ raised: recorded as unequal
        return True
    return False


def group_from_lists(lists: Sequence[list[Any]], n: int, bigs: list[int]) -> Group:
    """One READ's cells from the value lists of its names (one list per name, ``n`` rows)."""
    cells = [cells_from_values(values, bigs) for values in lists]
    unequal = np.zeros(n, dtype=bool)
    if len(cells) > 1:
        kinds = np.stack([c.kind for c in cells])
        present = (kinds != ABSENT).sum(axis=0)
        other = (kinds == OTHER).any(axis=0)
        for row in np.flatnonzero((present > 1) & other).tolist():
            found = [values[row] for values in lists if values[row] is not None]
            unequal[row] = _unequal(found)
    return Group(cells, unequal)


class LevelBuilder:
    """Collects span levels (:class:`~._cells.Levels`) while walking span values."""

    def __init__(self) -> None:
        self.row: list[int] = []
        self.source: list[int] = []
        self.depth: list[int] = []
        self.container: list[int] = []
        self.reads: list[list[Any]] = [[] for _ in range(7)]  # start ×2, end ×2, nested ×3
        self.nested_self: list[bool] = []
        self.iterated: list[bool] = []
        self.iter_failed: list[bool] = []
        self.n_items: list[int] = []
        self.item0: list[Any] = []
        self.item1: list[Any] = []

    def _emit(
        self, row: int, source: int, depth: int, container: int, reads: Sequence[Any] = (),
        nested_self: bool = False, items: Sequence[Any] | None = None, failed: bool = False,
    ) -> None:  # fmt: skip
        self.row.append(row)
        self.source.append(source)
        self.depth.append(depth)
        self.container.append(container)
        for index, column in enumerate(self.reads):
            column.append(reads[index] if reads else None)
        self.nested_self.append(nested_self)
        self.iterated.append(items is not None or failed)
        self.iter_failed.append(failed)
        count = 0 if items is None else len(items)
        self.n_items.append(count)
        self.item0.append(items[0] if items is not None and count > 0 else None)
        self.item1.append(items[1] if items is not None and count > 1 else None)

    def add_pairs(self, rows: list[int], source: int, values: list[Any]) -> None:
        """Span values that are exact lists or tuples (no attributes: straight to items)."""
        count = len(rows)
        self.row += rows
        self.source += [source] * count
        self.depth += [0] * count
        self.container += [CONTAINER_OTHER] * count
        for column in self.reads:
            column += [None] * count
        self.nested_self += [False] * count
        self.iterated += [True] * count
        self.iter_failed += [False] * count
        lengths = [min(len(v), 3) for v in values]
        self.n_items += lengths
        self.item0 += [v[0] if k > 0 else None for v, k in zip(values, lengths, strict=True)]
        self.item1 += [v[1] if k > 1 else None for v, k in zip(values, lengths, strict=True)]

    def raised(self, row: int, source: int) -> None:
        """Reading the span value itself raised."""
        self._emit(row, source, 0, CONTAINER_RAISED)

    def walk(self, value: Any, row: int, source: int, depth: int = 0) -> None:
        """Flatten one span value (and its nested values) into levels."""
        while True:
            if depth > MAX_SPAN_NESTING:
                self._emit(row, source, depth, CONTAINER_DEEP)
                return
            if isinstance(value, SpanValue):
                # Read like any attribute (a typed span mutated after construction may have
                # lost a field or hold anything); the column rules revalidate the offsets.
                start, end = read_names(value, ("start", "end"))
                reads = [start, None, end, None, None, None, None]
                self._emit(row, source, depth, CONTAINER_SPAN, reads)
                return
            kind = type(value)
            if kind is list or kind is tuple:
                self._emit(row, source, depth, CONTAINER_OTHER, (), items=value[:3])
                return
            if kind is str or kind is bytes or kind is bytearray:
                self._emit(row, source, depth, CONTAINER_TEXT)
                return
            reads = read_names(value, SPAN_STARTS + SPAN_ENDS + SPAN_NESTED)
            container = (
                CONTAINER_MAPPING
                if isinstance(value, Mapping)
                else CONTAINER_TEXT
                if isinstance(value, str | bytes | bytearray)
                else CONTAINER_OTHER
            )
            if any(isinstance(item, Raised) for item in reads):
                self._emit(row, source, depth, container, reads)
                return
            has_pair = (reads[0] is not None or reads[1] is not None) and (
                reads[2] is not None or reads[3] is not None
            )
            nested = next((item for item in reads[4:] if item is not None), None)
            if nested is not None and (has_pair or nested is not value):
                self._emit(row, source, depth, container, reads)
                value, depth = nested, depth + 1
                continue
            if has_pair or container != CONTAINER_OTHER:
                self._emit(row, source, depth, container, reads, nested is not None)
                return
            items: list[Any] = []
            failed = False
            try:
                for item in value:
                    items.append(item)
                    if len(items) > 2:
                        break
            except Exception:  # not iterable, or the caller's iterator raised: recorded
                failed = True
            self._emit(
                row, source, depth, container, reads, nested is not None,
                None if failed else items, failed,
            )  # fmt: skip
            return

    def levels(self, bigs: list[int]) -> Levels:
        """The collected levels as columns."""
        n = len(self.row)
        reads = self.reads
        return Levels(
            row=np.asarray(self.row, dtype=np.int64),
            source=np.asarray(self.source, dtype=np.int64),
            depth=np.asarray(self.depth, dtype=np.int64),
            container=np.asarray(self.container, dtype=np.int8),
            start=group_from_lists(reads[0:2], n, bigs),
            end=group_from_lists(reads[2:4], n, bigs),
            nested=group_from_lists(reads[4:7], n, bigs),
            nested_self=np.asarray(self.nested_self, dtype=bool),
            iterated=np.asarray(self.iterated, dtype=bool),
            iter_failed=np.asarray(self.iter_failed, dtype=bool),
            n_items=np.asarray(self.n_items, dtype=np.int64),
            item0=cells_from_values(self.item0, bigs),
            item1=cells_from_values(self.item1, bigs),
        )
