"""Typed cells: one record field over all rows, as a kind code plus typed value columns.

A record field may hold a text in one row, an integer in the next and nothing in a third (a
Python record list, a CSV column whose cells do not all parse). A :class:`Cell` carries, for
every row, the *kind* of the value (absent, text, integer, boolean, float, list, struct, other)
and the value in the column of its kind, so that the contract's rules — which depend on the
Python type of the value — are whole-column expressions over ``kind`` and the value columns.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import polars as pl

from citelens.io import boolean_cells, drop_nulls, integer_cells
from citelens.support._rules import fail

__all__ = [
    "ABSENT",
    "BIG",
    "BOOL",
    "FLOAT",
    "INT",
    "LIST",
    "OTHER",
    "STR",
    "STRUCT",
    "Cell",
    "RowForm",
    "absent_cell",
    "cell_of",
    "concat_cells",
    "constant",
    "csv_cells",
    "filter_cell",
    "first_value",
    "gather_cell",
    "python_values",
    "row_index",
    "scatter_cell",
    "where_cell",
]

ABSENT: Final = 0
STR: Final = 1
INT: Final = 2  # a non-bool integer in int64
BIG: Final = 3  # a non-bool integer above int64 (an unsigned 64-bit value)
BOOL: Final = 4
FLOAT: Final = 5
LIST: Final = 6
STRUCT: Final = 7
OTHER: Final = 8

_INT64_MAX: Final = 2**63 - 1


@dataclass(frozen=True)
class Cell:
    """One field over ``n`` rows: ``kind`` (UInt8) and the value in the column of its kind.

    ``s`` holds the text of a ``STR`` value and the decimal form of an ``INT``/``BIG`` value;
    ``i`` the value of an ``INT`` (and 0/1 of a ``BOOL``); ``u`` the value of a ``BIG`` that
    fits 64 bits; ``f`` the value of a ``FLOAT``; ``raw`` the original column of
    ``LIST``/``STRUCT`` values of an Arrow column.

    Cells built from Python values (:mod:`citelens.support._pyvalues`) also carry ``py``, the
    values themselves (a NumPy object array, ``None`` where absent: nested and foreign values
    are read from it), ``sur``, the rows whose text held a lone surrogate (the text columns
    hold it as a private-use character, see ``_pyvalues``), and, for keys where it matters
    (flags, a citation item's ``claim_id``), ``keyed``: the rows whose mapping has the key,
    even with a ``None`` value.
    """

    kind: pl.Series
    s: pl.Series
    i: pl.Series
    u: pl.Series
    f: pl.Series
    raw: pl.Series | None = None
    py: np.ndarray[Any, Any] | None = None
    sur: pl.Series | None = None
    keyed: pl.Series | None = None

    def __len__(self) -> int:
        return len(self.kind)

    @property
    def present(self) -> pl.Series:
        """Rows whose value is present (not null, not missing)."""
        return self.kind != ABSENT

    def is_kind(self, *kinds: int) -> pl.Series:
        """Rows whose value is of one of ``kinds``."""
        return self.kind.is_in(list(kinds))


Scalar = int | str | bool | None


def constant(value: Scalar, n: int, dtype: pl.DataType | type[pl.DataType]) -> pl.Series:
    """``n`` copies of ``value`` (built by Polars, not from a Python list). Repeating the one
    element of a one-element Series is an order of magnitude cheaper than ``pl.repeat``, and
    the rule stages build thousands of these per batch."""
    return pl.Series("literal", [value], dtype=dtype).new_from_index(0, n)


def row_index(n: int) -> pl.Series:
    """``0 .. n-1`` as UInt32 row positions."""
    return pl.int_range(0, n, dtype=pl.UInt32, eager=True)


def _nulls(n: int, dtype: pl.DataType) -> pl.Series:
    return constant(None, n, dtype)


def absent_cell(n: int) -> Cell:
    """A field that no row has."""
    return Cell(
        kind=constant(ABSENT, n, pl.UInt8),
        s=_nulls(n, pl.String()),
        i=_nulls(n, pl.Int64()),
        u=_nulls(n, pl.UInt64()),
        f=_nulls(n, pl.Float64()),
    )


def _constant_kind(series: pl.Series, kind: int) -> pl.Series:
    return pl.select(
        pl.when(series.is_not_null())
        .then(pl.lit(kind, pl.UInt8))
        .otherwise(pl.lit(ABSENT, pl.UInt8))
    ).to_series()


def cell_of(series: pl.Series) -> Cell:
    """The cell of one uniformly typed column (a null is an absent value)."""
    n = len(series)
    dtype = series.dtype
    empty = absent_cell(n)
    if isinstance(dtype, pl.Categorical | pl.Enum):
        series = series.cast(pl.String)
        dtype = series.dtype
    if dtype == pl.Null:
        return empty
    if dtype == pl.String:
        return Cell(_constant_kind(series, STR), series, empty.i, empty.u, empty.f)
    if dtype == pl.Boolean:
        return Cell(_constant_kind(series, BOOL), empty.s, series.cast(pl.Int64), empty.u, empty.f)
    if dtype.is_integer():
        big = (series.cast(pl.UInt64, strict=False) > _INT64_MAX) if dtype == pl.UInt64 else None
        kind = _constant_kind(series, INT)
        if big is not None:
            kind = pl.select(
                pl.when(big.fill_null(False)).then(pl.lit(BIG, pl.UInt8)).otherwise(kind)
            ).to_series()
        return Cell(
            kind,
            series.cast(pl.String),
            series.cast(pl.Int64, strict=False),
            series.cast(pl.UInt64, strict=False) if big is not None else empty.u,
            empty.f,
        )
    if dtype.is_float():
        return Cell(
            _constant_kind(series, FLOAT), empty.s, empty.i, empty.u, series.cast(pl.Float64)
        )
    if isinstance(dtype, pl.List | pl.Array):
        return Cell(_constant_kind(series, LIST), empty.s, empty.i, empty.u, empty.f, series)
    if isinstance(dtype, pl.Struct):
        return Cell(_constant_kind(series, STRUCT), empty.s, empty.i, empty.u, empty.f, series)
    return Cell(_constant_kind(series, OTHER), empty.s, empty.i, empty.u, empty.f, series)


def _select(mask: pl.Series, a: pl.Series, b: pl.Series) -> pl.Series:
    return pl.select(pl.when(mask).then(a).otherwise(b)).to_series()


def _or_false(flags: pl.Series | None, n: int) -> pl.Series:
    return constant(False, n, pl.Boolean) if flags is None else flags


def _py_of(cell: Cell) -> np.ndarray[Any, Any]:
    """The Python value of every row (``None`` where absent), as an object array: ``py`` when
    the cell has it, else rebuilt from the typed columns (Arrow nested values as rows mean
    them, nulls dropped)."""
    if cell.py is not None:
        return cell.py
    n = len(cell)
    out = np.full(n, None, dtype=object)
    kind = cell.kind.to_numpy()
    for code, column in ((STR, cell.s), (INT, cell.i), (FLOAT, cell.f)):
        rows = np.flatnonzero(kind == code)
        if len(rows):
            out[rows] = _objects(column.gather(rows).to_list())
    rows = np.flatnonzero(kind == BIG)
    if len(rows):
        out[rows] = _objects(list(map(int, cell.s.gather(rows).to_list())))
    rows = np.flatnonzero(kind == BOOL)
    if len(rows):
        out[rows] = _objects(list(map(bool, cell.i.gather(rows).to_list())))
    rows = np.flatnonzero(np.isin(kind, (LIST, STRUCT, OTHER)))
    if len(rows) and cell.raw is not None:
        out[rows] = _objects(list(map(drop_nulls, cell.raw.gather(rows).to_list())))
    return out


def _objects(values: Sequence[Any]) -> np.ndarray[Any, Any]:
    """A one-dimensional object array of ``values`` (nested lists stay single elements)."""
    return np.fromiter(values, dtype=object, count=len(values))


def python_values(cell: Cell, rows: pl.Series) -> list[Any]:
    """The Python values of the given rows (positions)."""
    values: list[Any] = _py_of(cell)[rows.to_numpy()].tolist()
    return values


def _python_differ(first: Cell, later: Cell, rows: pl.Series) -> list[bool]:
    """``later != first`` with Python semantics, for the given rows. Caller objects' ``__eq__``
    and ``__ne__`` run here: what they raise is the contract's input error."""
    left = python_values(first, rows)
    right = python_values(later, rows)
    differ: list[bool] = []
    broken = False
    try:
        differ = [bool(b != a) for a, b in zip(left, right)]
    except Exception:  # raised by a caller object's comparison
        broken = True
    if broken:
        raise fail("citation-support input cannot be normalized", "input")
    return differ


_INT_LIKE: Final = (INT, BOOL)


def _equal(a: Cell, b: Cell) -> pl.Series:
    """Python ``==`` of two present values, row by row (``1 == 1.0 == True``, ``"1" != 1``).

    Texts, integers, booleans and floats compare as columns; nested Arrow values of one type
    compare as columns; every other pair (a foreign object, a nested Python value, nested
    values of two types, a huge integer beside a float) is compared by Python on exactly
    those rows."""
    ka, kb = a.kind, b.kind
    n = len(a)
    float_int = (
        b.f.is_finite().fill_null(False)
        & (b.f.floor() == b.f).fill_null(False)
        & (b.f.cast(pl.Int64, strict=False) == a.i).fill_null(False)
    )
    int_float = (
        a.f.is_finite().fill_null(False)
        & (a.f.floor() == a.f).fill_null(False)
        & (a.f.cast(pl.Int64, strict=False) == b.i).fill_null(False)
    )
    both = a.present & b.present
    simple = (
        ((ka == STR) & (kb == STR))
        | (ka.is_in(_INT_LIKE) & kb.is_in(_INT_LIKE))
        | ((ka == BIG) & (kb == BIG))
        | ((ka == FLOAT) & (kb == FLOAT))
        | (ka.is_in(_INT_LIKE) & (kb == FLOAT))
        | ((ka == FLOAT) & kb.is_in(_INT_LIKE))
    )
    # disjoint simple kinds (a text and a number, a bool and a text, …) are never equal
    scalar = (STR, INT, BOOL, BIG, FLOAT)
    big_float = ((ka == BIG) & (kb == FLOAT)) | ((ka == FLOAT) & (kb == BIG))
    unequal = ka.is_in(scalar) & kb.is_in(scalar) & ~simple & ~big_float
    slow = both & ~simple & ~unequal
    other = constant(False, n, pl.Boolean)
    if bool(slow.any()):
        vectorised = (
            a.py is None
            and b.py is None
            and a.raw is not None
            and b.raw is not None
            and a.raw.dtype == b.raw.dtype
            and not bool((slow & big_float).any())
        )
        if vectorised:
            assert a.raw is not None and b.raw is not None
            other = (a.raw == b.raw).fill_null(False) & slow
        else:
            rows = slow.arg_true()
            equal = pl.Series([not d for d in _python_differ(a, b, rows)], dtype=pl.Boolean)
            other = other.scatter(rows, equal)
    return pl.select(
        pl.when((ka == STR) & (kb == STR))
        .then((a.s == b.s).fill_null(False))
        .when(ka.is_in(_INT_LIKE) & kb.is_in(_INT_LIKE))
        .then((a.i == b.i).fill_null(False))
        .when((ka == BIG) & (kb == BIG))
        .then((a.s == b.s).fill_null(False))
        .when((ka == FLOAT) & (kb == FLOAT))
        .then((a.f == b.f).fill_null(False))
        .when(ka.is_in(_INT_LIKE) & (kb == FLOAT))
        .then(float_int)
        .when((ka == FLOAT) & kb.is_in(_INT_LIKE))
        .then(int_float)
        .otherwise(other)
    ).to_series()


def first_value(cells: list[Cell]) -> tuple[Cell, pl.Series, pl.Series]:
    """The first-value rule over alias cells in priority order.

    Returns the first present value per row, the rows where a later present value compares
    unequal to it (``conflicting field aliases``), and per row the position of the alias the
    value came from (null when absent).
    """
    if not cells:
        raise ValueError("first_value needs at least one cell")
    n = len(cells[0])
    out = cells[0]
    conflict = constant(False, n, pl.Boolean)
    chosen = _select(out.present, constant(0, n, pl.UInt8), _nulls(n, pl.UInt8()))
    for position, later in enumerate(cells[1:], start=1):
        both = out.present & later.present
        if bool(both.any()):
            conflict = conflict | (both & ~_equal(out, later))
        take = ~out.present & later.present
        chosen = _select(take, constant(position, n, pl.UInt8), chosen)
        out = where_cell(take, later, out)
    return out, conflict, chosen


def _merge_raw(
    take: pl.Series, current: pl.Series | None, later: pl.Series | None
) -> pl.Series | None:
    if later is None:
        return current
    if current is None:
        return _select(take, later, constant(None, len(take), later.dtype))
    if current.dtype == later.dtype:
        return _select(take, later, current)
    return None  # nested values of two different Arrow types: read from ``py`` instead


def where_cell(mask: pl.Series, a: Cell, b: Cell) -> Cell:
    """``a`` on the rows of ``mask``, ``b`` elsewhere (every column of the cell)."""
    n = len(mask)
    raw = _merge_raw(mask, b.raw, a.raw)
    raw_lost = (a.raw is not None and b.raw is not None and a.raw.dtype != b.raw.dtype) or (
        raw is None and (a.raw is not None or b.raw is not None)
    )
    py = None
    if a.py is not None or b.py is not None or raw_lost:
        py = np.where(mask.to_numpy(), _py_of(a), _py_of(b))
    sur = None
    if a.sur is not None or b.sur is not None:
        sur = _select(mask, _or_false(a.sur, n), _or_false(b.sur, n))
    return Cell(
        _select(mask, a.kind, b.kind),
        _select(mask, a.s, b.s),
        _select(mask, a.i, b.i),
        _select(mask, a.u, b.u),
        _select(mask, a.f, b.f),
        None if raw_lost else raw,
        py,
        sur,
    )


def filter_cell(cell: Cell, mask: pl.Series) -> Cell:
    """The rows of ``mask``."""
    return gather_cell(cell, mask.arg_true())


def gather_cell(cell: Cell, rows: pl.Series) -> Cell:
    """The rows at positions ``rows``, in that order."""
    index = rows.to_numpy()
    return Cell(
        cell.kind.gather(rows),
        cell.s.gather(rows),
        cell.i.gather(rows),
        cell.u.gather(rows),
        cell.f.gather(rows),
        None if cell.raw is None else cell.raw.gather(rows),
        None if cell.py is None else cell.py[index],
        None if cell.sur is None else cell.sur.gather(rows),
        None if cell.keyed is None else cell.keyed.gather(rows),
    )


def concat_cells(cells: Sequence[Cell]) -> Cell:
    """The rows of several cells one after the other."""
    lengths = [len(c) for c in cells]
    n = sum(lengths)
    raws = [c.raw for c in cells]
    raw: pl.Series | None = None
    nested = [r for r in raws if r is not None]
    same = bool(nested) and all(r.dtype == nested[0].dtype for r in nested)
    if same and len(nested) == len(raws):
        raw = pl.concat(nested)
    py = None
    if any(c.py is not None for c in cells) or (nested and raw is None):
        py = np.concatenate([_py_of(c) for c in cells]) if cells else None
    sur = None
    if any(c.sur is not None for c in cells):
        sur = pl.concat([_or_false(c.sur, len(c)) for c in cells])
    keyed = None
    if any(c.keyed is not None for c in cells):
        keyed = pl.concat([c.present if c.keyed is None else c.keyed for c in cells])
    if not cells:
        return absent_cell(0)
    out = Cell(
        pl.concat([c.kind for c in cells]),
        pl.concat([c.s for c in cells]),
        pl.concat([c.i for c in cells]),
        pl.concat([c.u for c in cells]),
        pl.concat([c.f for c in cells]),
        raw,
        py,
        sur,
        keyed,
    )
    assert len(out) == n
    return out


def scatter_cell(cell: Cell, rows: pl.Series, n: int) -> Cell:
    """A cell of ``n`` rows holding ``cell``'s rows at positions ``rows``, absent elsewhere."""
    empty = absent_cell(n)
    py = None
    if cell.py is not None or cell.raw is not None:
        py = np.full(n, None, dtype=object)
        py[rows.to_numpy()] = _py_of(cell)
    return Cell(
        empty.kind.scatter(rows, cell.kind),
        empty.s.scatter(rows, cell.s),
        empty.i.scatter(rows, cell.i),
        empty.u.scatter(rows, cell.u),
        empty.f.scatter(rows, cell.f),
        None,
        py,
        None if cell.sur is None else constant(False, n, pl.Boolean).scatter(rows, cell.sur),
        None if cell.keyed is None else constant(False, n, pl.Boolean).scatter(rows, cell.keyed),
    )


def csv_cells(
    frame: pl.DataFrame, integer_columns: Collection[str], boolean_columns: Collection[str]
) -> dict[str, Cell]:
    """The typed columns of an all-text CSV frame as cells (§4.2), by the one CSV cell rule of
    :mod:`citelens.io`: a cell that parses is an integer (or a boolean), any other cell stays
    text, which the record rules then reject where they read it."""
    out: dict[str, Cell] = {}
    for name in frame.columns:
        if frame.schema[name] != pl.String:
            continue
        text = cell_of(frame[name])
        if name in integer_columns:
            parsed = frame.select(integer_cells(pl.col(name), plus_sign=True)).to_series()
            ok = parsed.is_not_null()
            out[name] = Cell(
                _select(ok, constant(INT, len(ok), pl.UInt8), text.kind),
                text.s,
                parsed,
                text.u,
                text.f,
            )
        elif name in boolean_columns:
            flag = frame.select(boolean_cells(pl.col(name))).to_series()
            ok = flag.is_not_null()
            out[name] = Cell(
                _select(ok, constant(BOOL, len(ok), pl.UInt8), text.kind),
                _select(ok, constant(None, len(ok), pl.String), text.s),
                flag.cast(pl.Int64),
                text.u,
                text.f,
            )
    return out


@dataclass(frozen=True)
class RowForm:
    """What the adapter knows about each row of a collection besides its fields.

    ``pre``: the problem code the conversion of the item found (record conversion, item
    shapes), checked before every rule of the row; ``default``: the default identifier of a
    compact-mapping entry (a record's own identifier wins); ``pair``: the rows that are plain
    ``(claim, evidence)`` pairs (citations), with their two elements ``first`` and ``second``;
    ``counted``: the rows that are edges, for a running bound (a compact citation mapping).
    """

    pre: pl.Series | None = None
    default: Cell | None = None
    pair: pl.Series | None = None
    first: Cell | None = None
    second: Cell | None = None
    counted: pl.Series | None = None
