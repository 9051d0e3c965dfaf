"""Typed cells: one record field over all rows, as a kind code plus typed value columns.

A record field may hold a text in one row, an integer in the next and nothing in a third (a
Python record list, a CSV column whose cells do not all parse). A :class:`Cell` carries, for
every row, the *kind* of the value (absent, text, integer, boolean, float, list, struct, other)
and the value in the column of its kind, so that the contract's rules — which depend on the
Python type of the value — are whole-column expressions over ``kind`` and the value columns.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Final

import polars as pl

from citelens.io import boolean_cells, drop_nulls, integer_cells

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
    "absent_cell",
    "cell_of",
    "constant",
    "csv_cells",
    "first_value",
    "row_index",
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
    ``i`` the value of an ``INT`` (and 0/1 of a ``BOOL``); ``u`` the value of a ``BIG``; ``f``
    the value of a ``FLOAT``; ``raw`` the original column of ``LIST``/``STRUCT`` values.
    """

    kind: pl.Series
    s: pl.Series
    i: pl.Series
    u: pl.Series
    f: pl.Series
    raw: pl.Series | None = None

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
    """``n`` copies of ``value`` (built by Polars, not from a Python list)."""
    return pl.repeat(value, n, dtype=dtype, eager=True)


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


def _raw_equal(a: pl.Series, b: pl.Series, both: pl.Series) -> pl.Series:
    """Python equality of nested values (lists, structs) where both are present."""
    if a.dtype == b.dtype:
        return (a == b).fill_null(False)
    # Nested values of different Arrow types are rare; the contract's equality is Python's,
    # so exactly those rows are compared as Python values (nulls dropped, as a row means).
    rows = both.arg_true()
    left = a.gather(rows).to_list()
    right = b.gather(rows).to_list()
    equal = [drop_nulls(x) == drop_nulls(y) for x, y in zip(left, right)]
    out = constant(False, len(a), pl.Boolean)
    return out.scatter(rows, pl.Series(equal, dtype=pl.Boolean)) if len(rows) else out


def _equal(a: Cell, b: Cell) -> pl.Series:
    """Python ``==`` of two present values, row by row (``1 == 1.0 == True``, ``"1" != 1``)."""
    ka, kb = a.kind, b.kind
    int_like = (INT, BOOL)
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
    big_float = (b.f.cast(pl.UInt64, strict=False) == a.u).fill_null(False) & (
        b.f.floor() == b.f
    ).fill_null(False)
    float_big = (a.f.cast(pl.UInt64, strict=False) == b.u).fill_null(False) & (
        a.f.floor() == a.f
    ).fill_null(False)
    both = a.present & b.present
    nested = constant(False, len(a), pl.Boolean)
    if a.raw is not None and b.raw is not None:
        nested_rows = both & ka.is_in([LIST, STRUCT, OTHER]) & kb.is_in([LIST, STRUCT, OTHER])
        if bool(nested_rows.any()):
            nested = _raw_equal(a.raw, b.raw, nested_rows) & nested_rows
    return pl.select(
        pl.when((ka == STR) & (kb == STR))
        .then((a.s == b.s).fill_null(False))
        .when(ka.is_in(int_like) & kb.is_in(int_like))
        .then((a.i == b.i).fill_null(False))
        .when((ka == BIG) & (kb == BIG))
        .then((a.u == b.u).fill_null(False))
        .when((ka == FLOAT) & (kb == FLOAT))
        .then((a.f == b.f).fill_null(False))
        .when(ka.is_in(int_like) & (kb == FLOAT))
        .then(float_int)
        .when((ka == FLOAT) & kb.is_in(int_like))
        .then(int_float)
        .when((ka == BIG) & (kb == FLOAT))
        .then(big_float)
        .when((ka == FLOAT) & (kb == BIG))
        .then(float_big)
        .otherwise(nested)
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
        out = Cell(
            kind=_select(take, later.kind, out.kind),
            s=_select(take, later.s, out.s),
            i=_select(take, later.i, out.i),
            u=_select(take, later.u, out.u),
            f=_select(take, later.f, out.f),
            raw=_merge_raw(take, out.raw, later.raw),
        )
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
    return None  # nested values of two different Arrow types: the caller checks ``raw``


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
