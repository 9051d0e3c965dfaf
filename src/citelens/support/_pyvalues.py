"""Cells from Python values, and the nested values (mapping fields, sequence items) of a cell.

:func:`python_cell` turns the values of one record field (any Python objects) into a
:class:`~citelens.support._cells.Cell`: the kind of every value comes from its type (one
``map`` over the values, one classification per distinct type), and the value columns are
built from the values of each kind. It evaluates no rule.

:func:`struct_fields` and :func:`list_items` give the engine the fields of mapping values and
the items of sequence values, whether the cell came from an Arrow column (struct and list
columns) or from Python values, so that every rule that reads a nested value is one column
expression over them.

Lone surrogates (decision i) cannot be Arrow text: a text holding one is carried with each
surrogate U+D800+k written as the private-use character U+10F800+k (one code point, not
whitespace, not ``[a-z0-9]``, unchanged by case folding, so every text rule sees it as the
interpreter sees the surrogate) and the row is flagged in ``Cell.sur``, which the identifier
rule rejects.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import polars as pl

from citelens._surrogates import storable_texts
from citelens.support._cells import (
    ABSENT,
    BIG,
    BOOL,
    FLOAT,
    INT,
    LIST,
    OTHER,
    STR,
    STRUCT,
    Cell,
    absent_cell,
    cell_of,
    constant,
    gather_cell,
    row_index,
    scatter_cell,
)
from citelens.support._rules import CallerFailed, caller_failed, caller_read, caller_value, fail

__all__ = [
    "CallerFailed",
    "Items",
    "bounded_items",
    "caller_failed",
    "caller_read",
    "caller_value",
    "item_cell",
    "list_items",
    "python_cell",
    "read_mapping",
    "struct_fields",
]

_KINDS: Final[dict[type, int]] = {
    str: STR,
    int: INT,
    bool: BOOL,
    float: FLOAT,
    list: LIST,
    tuple: LIST,
    dict: STRUCT,
    type(None): ABSENT,
}


def _kind_of_type(kind: type) -> int:
    known = _KINDS.get(kind)
    if known is not None:
        return known
    if issubclass(kind, bool):
        return BOOL
    if issubclass(kind, int):
        return INT
    if issubclass(kind, str):
        return STR
    if issubclass(kind, float):
        return FLOAT
    if issubclass(kind, Mapping):
        return STRUCT
    if issubclass(kind, Sequence) and not issubclass(kind, bytes | bytearray):
        return LIST
    return OTHER


def bounded_items(value: Any, name: str, limit: int) -> list[Any]:
    """Pull at most ``limit + 1`` items; more than ``limit`` → the collection's limit error
    (an item count the contract bounds is known without pulling the rest)."""
    items = caller_read(lambda: list(itertools.islice(iter(value), limit + 1)))
    if isinstance(items, CallerFailed):
        raise fail(f"{name} must be an iterable of records", "collection")
    if len(items) > limit:
        raise fail(f"{name} exceeds the record limit", "limit")
    return items


def _guarded(function: Callable[[Any], Any], values: list[Any]) -> list[Any]:
    """``list(map(function, values))`` where ``function`` runs caller code (``__str__``,
    ``__int__``): what it raises is the contract's input error."""
    return caller_value(lambda: list(map(function, values)))


def _texts(values: list[str]) -> tuple[pl.Series, pl.Series | None]:
    """Texts as a String column, lone surrogates written as private-use characters."""
    unencodable = False
    try:
        return pl.Series(values, dtype=pl.String), None
    except UnicodeEncodeError:
        unencodable = True
    assert unencodable
    fixed, flags = storable_texts(values)
    return pl.Series(fixed, dtype=pl.String), pl.Series(flags, dtype=pl.Boolean)


def _objects(values: Sequence[Any]) -> np.ndarray[Any, Any]:
    return np.fromiter(values, dtype=object, count=len(values))


def python_cell(values: Sequence[Any]) -> Cell:
    """The cell of one field over rows of Python values (``None`` = absent)."""
    py = values if isinstance(values, np.ndarray) else _objects(values)
    n = len(py)
    types = list(map(type, py))
    table = {t: _kind_of_type(t) for t in set(types)}
    kinds = np.fromiter(map(table.__getitem__, types), dtype=np.uint8, count=n)
    foreign = {table[t] for t in table if t not in _KINDS}
    empty = absent_cell(n)
    s, i, u, f, sur = empty.s, empty.i, empty.u, empty.f, None

    rows = np.flatnonzero(kinds == STR)
    if rows.size:
        texts = py[rows].tolist()
        if STR in foreign:
            texts = _guarded(str, texts)
        series, flags = _texts(texts)
        s = s.scatter(rows, series)
        if flags is not None:
            sur = constant(False, n, pl.Boolean).scatter(rows, flags)

    rows = np.flatnonzero(kinds == INT)
    if rows.size:
        ints = py[rows].tolist()
        decimal: pl.Series | None = None
        if INT in foreign:
            # an int subclass: its own ``str()`` is its identifier text (caller code)
            decimal = pl.Series(_guarded(str, ints), dtype=pl.String)
            ints = _guarded(int, ints)
        small = pl.Series(ints, dtype=pl.Int64, strict=False)
        big = small.is_null().to_numpy()
        i = i.scatter(rows, small)
        s = s.scatter(rows, small.cast(pl.String) if decimal is None else decimal)
        if big.any():
            big_rows = rows[big]
            kinds[big_rows] = BIG
            huge = [value for value, flag in zip(ints, big) if flag]
            # beyond int64: the decimal text (the identifier), and the value when it fits
            # 64 unsigned bits (``u``); Python's own limit on printing integers applies
            if decimal is None:
                s = s.scatter(big_rows, pl.Series(_guarded(str, huge), dtype=pl.String))
            u = u.scatter(big_rows, pl.Series(huge, dtype=pl.UInt64, strict=False))

    rows = np.flatnonzero(kinds == BOOL)
    if rows.size:
        flags_ = pl.Series(list(map(bool, py[rows].tolist())), dtype=pl.Boolean)
        i = i.scatter(rows, flags_.cast(pl.Int64))

    rows = np.flatnonzero(kinds == FLOAT)
    if rows.size:
        floats = py[rows].tolist()
        if FLOAT in foreign:
            floats = _guarded(float, floats)
        f = f.scatter(rows, pl.Series(floats, dtype=pl.Float64))

    nested = bool(np.isin(kinds, (LIST, STRUCT, OTHER)).any())
    return Cell(pl.Series(kinds, dtype=pl.UInt8), s, i, u, f, None, py if nested else None, sur)


# -- nested values --------------------------------------------------------------------------


def read_mapping(value: Mapping[Any, Any], keys: Collection[str] | None) -> dict[Any, Any]:
    """A plain ``dict`` of a mapping's keys (only ``keys`` when given), read as the record
    rules read it (``in`` and ``[]``). Caller mappings run code here: what they raise is the
    contract's input error."""
    if type(value) is dict and keys is None:
        return value
    if keys is None:
        return caller_value(lambda: dict(value.items()))
    return caller_value(lambda: {key: value[key] for key in keys if key in value})


def _field_cells(records: list[dict[Any, Any]], keys: Collection[str]) -> dict[str, Cell]:
    """One cell per key of ``keys`` present in any record (``keyed``: rows with the key)."""
    # the keys of every record in one C-level pass (no ``dict.keys`` view per record)
    present = set(itertools.chain.from_iterable(records))
    out: dict[str, Cell] = {}
    for key in sorted(k for k in present if k in keys):
        values = list(map(dict.get, records, itertools.repeat(key)))
        cell = python_cell(values)
        has = pl.Series(list(map(dict.__contains__, records, itertools.repeat(key))))
        if bool((has & ~cell.present).any()):
            cell = dataclasses.replace(cell, keyed=has)
        out[key] = cell
    return out


def struct_fields(cell: Cell, keys: Collection[str]) -> dict[str, Cell]:
    """The fields (of ``keys``) of the mapping values of a cell, one cell per field over all
    rows of ``cell``: absent on rows whose value is not a mapping."""
    n = len(cell)
    mask = cell.kind == STRUCT
    if cell.raw is not None and isinstance(cell.raw.dtype, pl.Struct):
        out: dict[str, Cell] = {}
        for field in cell.raw.dtype.fields:
            if field.name in keys:
                inner = cell_of(cell.raw.struct.field(field.name))
                out[field.name] = _masked(inner, mask)
        return out
    if cell.py is None or not bool(mask.any()):
        return {}
    rows = mask.arg_true()
    values = cell.py[rows.to_numpy()].tolist()
    records = [v if type(v) is dict else read_mapping(v, keys) for v in values]
    return {
        key: scatter_cell(sub, rows, n) if len(rows) != n else sub
        for key, sub in _field_cells(records, keys).items()
    }


def _masked(cell: Cell, mask: pl.Series) -> Cell:
    kind = pl.select(pl.when(mask).then(cell.kind).otherwise(pl.lit(ABSENT, pl.UInt8)))
    return dataclasses.replace(cell, kind=kind.to_series())


@dataclass(frozen=True)
class Items:
    """The items of the sequence values of a cell, in row order then item order: the row of
    each item, its position in its sequence, the items as a cell, the number of items of
    every row (0 where the value is not a sequence) and the rows whose value could not be
    iterated (caller sequences)."""

    row: pl.Series
    position: pl.Series
    cell: Cell
    length: pl.Series
    failed: pl.Series


def list_items(cell: Cell) -> Items:
    """The items of the sequence (list) values of a cell."""
    n = len(cell)
    mask = cell.kind == LIST
    no_failure = constant(False, n, pl.Boolean)
    if cell.raw is not None and isinstance(cell.raw.dtype, pl.List | pl.Array):
        raw = cell.raw
        if isinstance(raw.dtype, pl.Array):
            raw = raw.cast(pl.List(raw.dtype.inner))
        lengths = pl.select(
            pl.when(mask).then(raw.list.len()).otherwise(pl.lit(0, pl.UInt32))
        ).to_series()
        frame = (
            pl.DataFrame({"r": row_index(n), "v": raw, "l": lengths})
            .filter(pl.col("l") > 0)
            # the item positions exploded beside the items (a window over the rows costs
            # about ten times more)
            .with_columns(pl.int_ranges(0, pl.col("l"), dtype=pl.UInt32).alias("p"))
            .explode(["v", "p"], empty_as_null=False)
        )
        return Items(
            frame["r"], frame["p"], cell_of(frame["v"]), lengths.cast(pl.Int64), no_failure
        )
    if cell.py is None or not bool(mask.any()):
        empty = pl.Series([], dtype=pl.UInt32)
        return Items(empty, empty, absent_cell(0), constant(0, n, pl.Int64), no_failure)
    rows = mask.arg_true().to_numpy()
    sequences = cell.py[rows].tolist()
    failed = np.zeros(len(rows), dtype=bool)
    if not {type(v) for v in sequences} <= {list, tuple}:
        sequences, failed = _pull(sequences)
    lengths_np = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    flat = list(itertools.chain.from_iterable(sequences))
    parent = np.repeat(rows, lengths_np)
    starts = np.repeat(np.cumsum(lengths_np) - lengths_np, lengths_np)
    position = np.arange(len(flat), dtype=np.int64) - starts
    length = np.zeros(n, dtype=np.int64)
    length[rows] = lengths_np
    failure = np.zeros(n, dtype=bool)
    failure[rows] = failed
    return Items(
        pl.Series(parent, dtype=pl.UInt32),
        pl.Series(position, dtype=pl.UInt32),
        python_cell(flat),
        pl.Series(length, dtype=pl.Int64),
        pl.Series(failure, dtype=pl.Boolean),
    )


def _pull(sequences: list[Any]) -> tuple[list[Any], np.ndarray[Any, Any]]:
    """Caller sequences as lists (iterated as the record rules iterate them); a sequence
    whose iteration raises contributes no item and is flagged."""
    failed = np.zeros(len(sequences), dtype=bool)
    plain = np.fromiter(
        map(operator.contains, itertools.repeat((list, tuple)), map(type, sequences)),
        dtype=bool,
        count=len(sequences),
    )
    if plain.all():
        return sequences, failed
    out = list(sequences)
    # Only the caller's own sequence types are iterated one by one (their code may raise).
    for position in np.flatnonzero(~plain).tolist():
        items: list[Any] | CallerFailed = caller_read(functools.partial(list, sequences[position]))
        failed[position] = isinstance(items, CallerFailed)
        out[position] = [] if isinstance(items, CallerFailed) else items
    return out, failed


def item_cell(items: Items, position: int, n: int) -> Cell:
    """The item at ``position`` of every row's sequence (absent where there is none)."""
    take = items.position == position
    return scatter_cell(gather_cell(items.cell, take.arg_true()), items.row.filter(take), n)
