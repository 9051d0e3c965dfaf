"""Arrow tables → kind-tagged columns, whole columns at a time (minimality.md §6, §13).

A table's rows are exactly the equivalent records (conventions §3: a null cell is an absent
field), so each column becomes cells of the kind its type gives (text, int, float, bool), a
list column a span level with its items, and rows without any span field the record fallback
level. Nothing here decides a rule. Which path reads a table is decided by its *schema* only:
columns of scalars, and lists of scalars under span names, are read here; anything else (nested
records, lists of lists, decimals, binary …) is read through the record adapter.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.minimality._cells import (
    ABSENT,
    BIG,
    BIGINT,
    BOOL,
    CONTAINER_MAPPING,
    CONTAINER_OTHER,
    CONTAINER_TEXT,
    FLOAT,
    INT,
    OTHER,
    STR,
    Cells,
    Frame,
    Group,
    Levels,
    absent_cells,
    concat_levels,
)
from citelens.minimality._names import (
    CITATION_ENDS,
    CITATION_ID_NAMES,
    CITATION_SPAN_ALIASES,
    CITATION_STARTS,
    CLAIM_ENDS,
    CLAIM_ID_NAMES,
    CLAIM_SPAN_ALIASES,
    CLAIM_STARTS,
    OFFSET_NAMES,
    SPAN_ENDS,
    SPAN_NESTED,
    SPAN_STARTS,
)

__all__ = ["CSV_METADATA", "frame_from_table", "is_text_type"]

I64 = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

# Schema metadata key set on CSV tables: their start/end cells are text, typed per cell (§6).
CSV_METADATA = b"citelens.minimality.csv"
_CSV_INT = r"^-?[0-9]+$"


def is_text_type(kind: pa.DataType) -> bool:
    """Arrow string, large_string or string_view (dictionary values included)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    view = getattr(pa.types, "is_string_view", None)
    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (view is not None and view(kind))
    )


def _is_scalar(kind: pa.DataType) -> bool:
    return bool(
        is_text_type(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_null(kind)
    )


def _is_list(kind: pa.DataType) -> bool:
    listed = (
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    )
    return bool(listed and _is_scalar(kind.value_type))


def _valid(array: pa.Array) -> Bools:
    if array.null_count == 0:
        return np.ones(len(array), dtype=bool)
    return np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _ints(values: list[int], kinds: npt.NDArray[np.int8], rows: I64, bigs: list[int]) -> I64:
    """Int cells: values beyond ±BIG move to ``bigs`` (their cell kind becomes BIGINT)."""
    ival = np.zeros(kinds.size, dtype=np.int64)
    for row, value in zip(rows.tolist(), values, strict=True):
        if -BIG < value < BIG:
            ival[row] = value
        else:
            kinds[row] = BIGINT
            ival[row] = len(bigs)
            bigs.append(value)
    return ival


def arrow_cells(array: pa.Array, bigs: list[int], csv_ints: bool = False) -> Cells:
    """Cells of a scalar column (``csv_ints``: text cells matching ``-?[0-9]+`` are ints)."""
    n = len(array)
    valid = _valid(array)
    kind = array.type
    cells = absent_cells(n)
    if pa.types.is_null(kind):
        return cells
    if is_text_type(kind):
        text = pc.cast(array, pa.string())
        cells.kind = np.where(valid, STR, ABSENT).astype(np.int8)
        cells.sval = text
        if csv_ints:
            matches = pc.fill_null(pc.match_substring_regex(text, _CSV_INT), False)
            is_int = np.asarray(matches.to_numpy(zero_copy_only=False), dtype=bool)
            if is_int.any():
                rows = np.flatnonzero(is_int)
                digits = text.take(pa.array(rows)).to_pylist()
                cells.kind[rows] = INT
                cells.ival = _ints([int(d) for d in digits], cells.kind, rows, bigs)
                cells.sval = pc.if_else(pa.array(is_int), pa.scalar(None, pa.string()), text)
        return cells
    if pa.types.is_integer(kind):
        cells.kind = np.where(valid, INT, ABSENT).astype(np.int8)
        filled = pc.fill_null(array, 0)
        if kind == pa.uint64():
            raw = np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.uint64)
            wide = raw >= np.uint64(BIG)
            values = np.where(wide, 0, raw).astype(np.int64)
        else:
            values = np.asarray(pc.cast(filled, pa.int64()).to_numpy(zero_copy_only=False))
            wide = (values >= BIG) | (values <= -BIG)
        cells.ival = values
        if wide.any():
            rows = np.flatnonzero(wide & valid)
            exact = filled.take(pa.array(rows)).to_pylist()
            big = _ints(exact, cells.kind, rows, bigs)
            cells.ival = np.where(wide & valid, big, values)
        return cells
    if pa.types.is_boolean(kind):
        cells.kind = np.where(valid, BOOL, ABSENT).astype(np.int8)
        cells.ival = np.asarray(pc.fill_null(array, False).to_numpy(zero_copy_only=False), np.int64)
        return cells
    cells.kind = np.where(valid, FLOAT, ABSENT).astype(np.int8)  # floating
    filled = pc.cast(pc.fill_null(array, 0), pa.float64())
    cells.fval = np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.float64)
    return cells


class _Columns:
    def __init__(self, table: pa.Table, names: frozenset[str], aliases: tuple[str, ...]) -> None:
        self.n = table.num_rows
        self.csv = bool(table.schema.metadata and CSV_METADATA in table.schema.metadata)
        self.arrays: dict[str, pa.Array] = {}
        self.supported = True
        listable = frozenset(aliases) | frozenset(SPAN_NESTED)
        for name in table.column_names:
            if name not in names:
                continue
            column = table.column(name)
            if not (_is_scalar(column.type) or (name in listable and _is_list(column.type))):
                self.supported = False
                return
            if pa.types.is_null(column.type):
                continue  # an all-null column is an absent field
            array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
            if pa.types.is_dictionary(array.type):
                array = pc.cast(array, array.type.value_type)
            if pa.types.is_fixed_size_list(array.type) or pa.types.is_large_list(array.type):
                array = pc.cast(array, pa.list_(array.type.value_type))
            self.arrays[name] = array
        self.bigs: list[int] = []

    def cells(self, name: str, rows: I64 | None = None) -> Cells:
        """Cells of a column (a list value is an ``OTHER`` cell), optionally some rows."""
        array = self.arrays[name]
        if rows is not None:
            array = array.take(pa.array(rows, pa.int64()))
        if pa.types.is_list(array.type):
            cells = absent_cells(len(array))
            cells.kind = np.where(_valid(array), OTHER, ABSENT).astype(np.int8)
            return cells
        return arrow_cells(array, self.bigs, self.csv and name in OFFSET_NAMES)

    def group(self, names: tuple[str, ...], rows: I64 | None = None) -> Group:
        n = self.n if rows is None else rows.size
        cells = [self.cells(name, rows) for name in names if name in self.arrays]
        return Group(cells, np.zeros(n, dtype=bool))

    def level(self, name: str, rows: I64, source: int, depth: int) -> Levels:
        """The values of one span column at ``rows`` as span levels (SPAN_FROM on a list
        pulls its items; a text has no offsets; a number cannot be iterated)."""
        array = self.arrays[name].take(pa.array(rows, pa.int64()))
        count = rows.size
        none = np.zeros(count, dtype=bool)
        empty = Group([], none)
        item0 = item1 = absent_cells(count)
        n_items = np.zeros(count, dtype=np.int64)
        iterated = np.ones(count, dtype=bool)
        failed = none.copy()
        container = np.full(count, CONTAINER_OTHER, dtype=np.int8)
        if pa.types.is_list(array.type):
            offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
            lengths = offsets[1:] - offsets[:-1]
            n_items = np.minimum(lengths, 3)
            values = arrow_cells(array.values, self.bigs)
            if len(values):
                last = len(values) - 1
                first = np.minimum(offsets[:-1], last)
                second = np.minimum(offsets[:-1] + 1, last)
                item0, item1 = values.take(first), values.take(second)
        elif is_text_type(array.type):
            container[:] = CONTAINER_TEXT
            iterated = none.copy()
        else:
            failed = np.ones(count, dtype=bool)
        return Levels(
            rows.astype(np.int64),
            np.full(count, source, np.int64),
            np.full(count, depth, np.int64),
            container,
            empty,
            empty,
            empty,
            none,
            iterated,
            failed,
            n_items,
            item0,
            item1,
        )


def frame_from_table(table: pa.Table, names: frozenset[str], *, claims: bool) -> Frame | None:
    """A claims or citations table as a :class:`Frame`, or ``None`` when its schema needs the
    record adapter."""
    aliases = CLAIM_SPAN_ALIASES if claims else CITATION_SPAN_ALIASES
    columns = _Columns(table, names, aliases)
    if not columns.supported:
        return None
    n = columns.n
    starts = CLAIM_STARTS if claims else CITATION_STARTS
    ends = CLAIM_ENDS if claims else CITATION_ENDS
    parts: list[Levels] = []
    have = np.zeros(n, dtype=bool)
    for source, name in enumerate(aliases):
        if name in columns.arrays:
            valid = _valid(columns.arrays[name])
            have |= valid
            parts.append(columns.level(name, np.flatnonzero(valid), source, 0))
    for name in starts + ends:
        if name in columns.arrays:
            have |= _valid(columns.arrays[name])
    # The record itself falls through to SPAN_FROM: a mapping whose READs are its columns.
    rows = np.flatnonzero(~have)
    if rows.size:
        fallback = len(aliases)
        nested = columns.group(SPAN_NESTED, rows)
        none = np.zeros(rows.size, dtype=bool)
        parts.append(
            Levels(
                rows.astype(np.int64),
                np.full(rows.size, fallback, np.int64),
                np.zeros(rows.size, np.int64),
                np.full(rows.size, CONTAINER_MAPPING, np.int8),
                columns.group(SPAN_STARTS, rows),
                columns.group(SPAN_ENDS, rows),
                nested,
                none,
                none,
                none,
                np.zeros(rows.size, np.int64),
                absent_cells(rows.size),
                absent_cells(rows.size),
            )
        )
        # Its nested value (the first present nested name) is the next level.
        taken = np.zeros(rows.size, dtype=bool)
        for name in SPAN_NESTED:
            if name in columns.arrays:
                valid = _valid(columns.arrays[name])[rows] & ~taken
                taken |= valid
                if valid.any():
                    parts.append(columns.level(name, rows[valid], fallback, 1))
    return Frame(
        n=n,
        claim_id=columns.group(CLAIM_ID_NAMES),
        citation_id=columns.group(()) if claims else columns.group(CITATION_ID_NAMES),
        start=columns.group(starts),
        end=columns.group(ends),
        levels=concat_levels(parts),
        n_aliases=len(aliases),
        bigs=columns.bigs,
    )
