"""Reading fields and spans of caller objects into checks (minimality.md §5, §6).

The adapter never decides a value rule itself. Walking one record, it records *checks* in the
order the contract performs them — a candidate span ``(start, end)`` with its raw offsets, a
sequence length, a comparison of two candidates, an identifier — into an :class:`Checks`
collector; :meth:`Checks.evaluate` then runs every rule of :mod:`citelens.minimality._rules`
over all recorded checks at once and returns, per record, the code of its first failing check.
Only what is about the *shape* of a caller object is decided while walking (a missing field,
a wrapper nested too deep, a mapping without offsets, an object that cannot be iterated, a
caller object that raised), because nothing further can be read from it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from citelens._fixed import attempt
from citelens.minimality._rules import (
    BIG,
    CODE_ALIAS_CONFLICT,
    CODE_BAD_PAIR,
    CODE_FIELDS,
    CODE_IDENTIFIER,
    CODE_NESTING,
    CODE_OFFSETS_REQUIRED,
    first_problem,
    identifier_mask,
    offset_problems,
    pair_problems,
    problem_error,
    spans_differ,
)

__all__ = [
    "MAX_SPAN_NESTING",
    "MISSING",
    "Checks",
    "CitationSpan",
    "Stop",
    "map_offsets",
    "raise_first",
    "read_field",
    "read_value",
    "walk_span",
]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
MAX_SPAN_NESTING = 32

_SPAN_STARTS = ("start", "source_start")
_SPAN_ENDS = ("end", "source_end")
_SPAN_NESTED = ("source_offset", "source_offsets", "offset")

# Kinds of recorded checks.
_FAIL, _SPAN, _SAME, _IDENT, _PAIR = 0, 1, 2, 3, 4


class _Missing:
    """Marker of an absent field."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Stop(Exception):
    """Private marker: nothing more can be read from this record.

    ``code`` is the shape problem found, or 0 when the failing check is already recorded.
    """

    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code


def read_value(value: object, names: Sequence[str]) -> Any:
    """READ of §6: the first present (non-``None``) alias, or ``MISSING``.

    Raises :class:`Stop` (``citation record fields are invalid``) when two present aliases
    are unequal or a caller object raised while being read or compared (the contract's
    handler for caller objects).
    """
    found: list[Any] = []
    failed = False
    try:
        if isinstance(value, Mapping):
            for name in names:
                item = value.get(name)
                if item is not None:
                    found.append(item)
        else:
            for name in names:
                item = getattr(value, name, None)
                if item is not None:
                    found.append(item)
        if len(found) > 1:
            for index, left in enumerate(found):
                for right in found[index + 1 :]:
                    if not bool(left == right):
                        failed = True
    except Exception:  # caller objects that raise: the contract's fixed record error
        failed = True
    if failed:
        raise Stop(CODE_FIELDS)
    return found[0] if found else MISSING


def read_field(value: object, names: Sequence[str]) -> Any:
    """:func:`read_value` raising the fixed ``citation record fields are invalid`` error."""
    code = 0
    try:
        return read_value(value, names)
    except Stop as stop:
        code = stop.code
    raise problem_error(code)


def map_offsets(groups: Sequence[Sequence[Any] | npt.NDArray[Any]]) -> list[I64]:
    """Offsets as ``int64`` with exact order and equality: negatives → -1, values ≥ BIG
    (beyond any text, possibly beyond int64) → BIG + their rank among such values.

    Each group is a list of Python ints or an integer NumPy array; all groups share one
    ranking, so offsets of different groups compare exactly.
    """
    big: set[int] = set()
    arrays: list[npt.NDArray[Any]] = []
    for group in groups:
        array = np.asarray(group) if isinstance(group, np.ndarray) else _as_array(group)
        arrays.append(array)
        if array.dtype == object:
            big.update(int(v) for v in array[array >= BIG].tolist())
        elif array.size:
            over = array >= BIG
            if over.any():
                big.update(int(v) for v in array[over].tolist())
    rank = {value: BIG + index for index, value in enumerate(sorted(big))}
    out: list[I64] = []
    for array in arrays:
        if array.dtype == object or (array.size and bool((array >= BIG).any())):
            items = array.tolist()
            mapped = np.fromiter(
                (-1 if v < 0 else (v if v < BIG else rank[v]) for v in items),
                dtype=np.int64,
                count=len(items),
            )
        else:
            mapped = np.maximum(array.astype(np.int64, copy=False), -1)
        out.append(mapped)
    return out


def _as_array(values: Sequence[Any]) -> npt.NDArray[Any]:
    ints = [int(v) for v in values]
    if all(-BIG < v < BIG for v in ints):
        return np.fromiter(ints, dtype=np.int64, count=len(ints))
    return np.array(ints, dtype=object)


@dataclass(frozen=True)
class CitationSpan:
    """A validated, non-empty half-open code-point span ``[start, end)``."""

    start: int
    end: int

    def __post_init__(self) -> None:
        checks = Checks()
        checks.span(self.start, self.end)
        checks.close()
        code = int(attempt(lambda: checks.evaluate(1))[0])
        if code:
            raise problem_error(code)

    @property
    def source_offset(self) -> tuple[int, int]:
        """``(start, end)``."""
        return (self.start, self.end)

    def to_dict(self) -> dict[str, int]:
        """``{"start": start, "end": end}``."""
        return {"start": self.start, "end": self.end}

    @classmethod
    def from_obj(cls, value: object) -> CitationSpan:
        """Parse a span value (pair, mapping, nested ``offset`` wrappers; §6 SPAN_FROM)."""
        checks = Checks()
        index = -1
        failure = 0
        try:
            index = walk_span(checks, value, 0)
        except Stop as stop:
            failure = stop.code
        checks.close(failure)
        code = int(attempt(lambda: checks.evaluate(1))[0])
        if code:
            raise problem_error(code)
        start, end = checks.span_values(index)
        return cls._trusted(start, end)

    @classmethod
    def _trusted(cls, start: int, end: int) -> CitationSpan:
        span = object.__new__(cls)
        span.__dict__.update(start=start, end=end)
        return span


class Checks:
    """Checks recorded while walking records, evaluated all at once by :meth:`evaluate`.

    Records are numbered in order; :meth:`close` ends the current record (with the shape
    problem that stopped it, if any).
    """

    def __init__(self) -> None:
        self.record = 0
        self._events: list[tuple[int, int, int, int]] = []  # (record, kind, a, b)
        self._starts: list[Any] = []
        self._ends: list[Any] = []
        self._ids: list[Any] = []
        self._mapped: tuple[I64, I64] | None = None

    def span(self, start: Any, end: Any) -> int:
        """A candidate span: offsets must be exact ints forming a half-open span."""
        index = len(self._starts)
        self._starts.append(start)
        self._ends.append(end)
        self._events.append((self.record, _SPAN, index, 0))
        return index

    def same(self, first: int, other: int) -> None:
        """Two collected spans of one record must be equal."""
        self._events.append((self.record, _SAME, first, other))

    def pair(self, length: int) -> None:
        """A span given as a sequence must have exactly two items."""
        self._events.append((self.record, _PAIR, length, 0))

    def identifier(self, value: Any) -> int:
        """An identifier must follow §4."""
        index = len(self._ids)
        self._ids.append(value)
        self._events.append((self.record, _IDENT, index, 0))
        return index

    def close(self, failure: int = 0) -> None:
        """End the current record; ``failure`` is the shape problem that stopped it."""
        if failure:
            self._events.append((self.record, _FAIL, failure, 0))
        self.record += 1

    def identifier_values(self) -> list[Any]:
        """The recorded identifier values, in order."""
        return self._ids

    def mapped_spans(self) -> tuple[I64, I64]:
        """The recorded candidate offsets as exact-order ``int64`` (non-ints → 0)."""
        if self._mapped is None:
            starts = [v if type(v) is int else 0 for v in self._starts]
            ends = [v if type(v) is int else 0 for v in self._ends]
            mapped_starts, mapped_ends = map_offsets([starts, ends])
            self._mapped = (mapped_starts, mapped_ends)
        return self._mapped

    def span_values(self, index: int) -> tuple[int, int]:
        """The raw ``(start, end)`` of a candidate (valid once evaluation found no problem)."""
        start: int = self._starts[index]
        end: int = self._ends[index]
        return start, end

    def evaluate(self, n_records: int) -> I8:
        """Run every rule over all recorded checks; per record, its first failing code."""
        flat = itertools.chain.from_iterable(self._events)
        events = np.fromiter(flat, dtype=np.int64, count=4 * len(self._events)).reshape(-1, 4)
        rows, kinds, a, b = events[:, 0], events[:, 1], events[:, 2], events[:, 3]
        codes = np.zeros(kinds.size, dtype=np.int8)
        fail = kinds == _FAIL
        codes[fail] = a[fail]
        pair = kinds == _PAIR
        codes[pair] = pair_problems(a[pair])
        starts, ends = self.mapped_spans()
        if starts.size:
            start_int = np.fromiter((type(v) is int for v in self._starts), bool, starts.size)
            end_int = np.fromiter((type(v) is int for v in self._ends), bool, ends.size)
            span_codes = offset_problems(start_int, starts, end_int, ends)
            span = kinds == _SPAN
            codes[span] = span_codes[a[span]]
            same = kinds == _SAME
            differ = spans_differ(starts[a[same]], ends[a[same]], starts[b[same]], ends[b[same]])
            codes[same] = np.where(differ, CODE_ALIAS_CONFLICT, 0)
        if self._ids:
            valid = identifier_mask(self._ids)
            ident = kinds == _IDENT
            codes[ident] = np.where(valid[a[ident]], 0, CODE_IDENTIFIER)
        return first_problem(rows, codes, n_records)


def walk_span(checks: Checks, value: object, depth: int) -> int:
    """SPAN_FROM of §6: record the checks of one span value; return its candidate index."""
    if depth > MAX_SPAN_NESTING:
        raise Stop(CODE_NESTING)
    if isinstance(value, CitationSpan):
        return checks.span(value.start, value.end)
    if type(value) is list or type(value) is tuple:
        # Exact lists/tuples have none of the alias attributes: straight to the pair rule.
        checks.pair(len(value))
        if len(value) < 2:
            raise Stop(0)
        return checks.span(value[0], value[1])
    start = read_value(value, _SPAN_STARTS)
    end = read_value(value, _SPAN_ENDS)
    nested = read_value(value, _SPAN_NESTED)
    if start is not MISSING and end is not MISSING:
        if nested is not MISSING:
            inner = walk_span(checks, nested, depth + 1)
            outer = checks.span(start, end)
            checks.same(inner, outer)
            return outer
        return checks.span(start, end)
    if nested is not MISSING and nested is not value:
        return walk_span(checks, nested, depth + 1)
    if isinstance(value, Mapping | str | bytes | bytearray):
        raise Stop(CODE_OFFSETS_REQUIRED)
    items: list[Any] = []
    failed = False
    try:
        for item in value:  # type: ignore[attr-defined]
            items.append(item)
            if len(items) > 2:
                break
    except Exception:  # a caller object that is not iterable or raises: the span error
        failed = True
    if failed:
        raise Stop(CODE_BAD_PAIR)
    checks.pair(len(items))
    if len(items) < 2:
        raise Stop(0)
    return checks.span(items[0], items[1])


def raise_first(codes: I8) -> None:
    """Raise the fixed error of the first nonzero code, if any."""
    failing = np.flatnonzero(codes)
    if failing.size:
        raise problem_error(int(codes[failing[0]]))
