"""Claim and citation tables → columns, whole columns at a time (minimality.md §6, §13).

A table's rows are exactly the equivalent records (conventions §3: a null cell is an absent
field), so each contract step of §6 becomes one array per step: the READ of an alias group,
the pair rule of a list-valued span column, a candidate span, a comparison of two candidate
spans, an identifier. Per row the first nonzero step is its problem. The rules are those of
:mod:`citelens.minimality._rules`, shared with the record adapter.

Which reader handles a table is decided by its *schema* only, never by its values: columns of
text, integer, float/boolean, and lists of scalars are read here; a table holding anything else
in a column the contract reads (nested records, lists of lists, two alias columns of different
types) is read row by row through the record adapter.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._records import (
    CITATION_ENDS,
    CITATION_ID_NAMES,
    CITATION_NAMES,
    CITATION_SPAN_ALIASES,
    CITATION_STARTS,
    CLAIM_ENDS,
    CLAIM_ID_NAMES,
    CLAIM_NAMES,
    CLAIM_SPAN_ALIASES,
    CLAIM_STARTS,
)
from citelens.minimality._rules import (
    CODE_ALIAS_CONFLICT,
    CODE_BAD_PAIR,
    CODE_FIELDS,
    CODE_IDENTIFIER,
    CODE_NO_CITATION_CLAIM_ID,
    CODE_NO_CLAIM_ID,
    CODE_OFFSETS_REQUIRED,
    derive_citation_ids,
    identifier_mask,
    offset_problems,
    pair_problems,
    spans_differ,
)
from citelens.minimality._spans import map_offsets

__all__ = ["CSV_METADATA", "citations_from_table", "claims_from_table", "is_text_type"]

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]

# Schema metadata key set on CSV tables: their start/end cells are text, typed per cell (§6).
CSV_METADATA = b"citelens.minimality.csv"
_CSV_INT = r"^-?[0-9]+$"
_OFFSET_NAMES = frozenset(CLAIM_STARTS + CLAIM_ENDS + CITATION_STARTS + CITATION_ENDS)


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


def _scalar_kind(kind: pa.DataType) -> str | None:
    if is_text_type(kind):
        return "str"
    if pa.types.is_integer(kind):
        return "int"
    if pa.types.is_floating(kind) or pa.types.is_boolean(kind) or pa.types.is_decimal(kind):
        return "other"
    if pa.types.is_null(kind):
        return "null"
    return None


def _kind(kind: pa.DataType) -> str | None:
    """The reader's class of a column type, or ``None`` when this reader does not read it."""
    scalar = _scalar_kind(kind)
    if scalar is not None:
        return scalar
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        item = _scalar_kind(kind.value_type)
        return "list" if item is not None else None
    return None


@dataclass
class _Value:
    """One logical field read over its alias columns (READ of §6, column-wise)."""

    present: Bools
    conflict: Bools
    column: pa.Array | None  # the first present alias value per row (a single kind)
    kind: str


@dataclass
class _Offsets:
    """Raw offsets of one candidate span source: exact-int flags and values (0 elsewhere),
    and the place of its offset check among the steps."""

    place: int
    start_is_int: Bools
    start: npt.NDArray[np.generic]
    end_is_int: Bools
    end: npt.NDArray[np.generic]


class _Table:
    def __init__(self, table: pa.Table, names: frozenset[str], csv: bool) -> None:
        self.n = table.num_rows
        self.csv = csv
        self.columns: dict[str, pa.Array] = {}
        self.kinds: dict[str, str] = {}
        self.supported = True
        for name in table.column_names:
            if name not in names:
                continue
            column = table.column(name)
            kind = _kind(column.type)
            if kind is None:
                self.supported = False
                return
            if kind == "null":
                continue  # an all-null column is an absent field
            array = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
            if kind == "str":
                array = pc.cast(array, pa.string())
            if kind == "list" and not pa.types.is_list(array.type):
                array = pc.cast(array, pa.list_(array.type.value_type))
            self.columns[name] = array
            self.kinds[name] = kind

    def valid(self, name: str) -> Bools:
        array = self.columns[name]
        if array.null_count == 0:
            return np.ones(self.n, dtype=bool)
        return np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)

    def read(self, names: tuple[str, ...]) -> _Value | None:
        """READ over alias columns; ``None`` when the aliases mix kinds (row reader)."""
        present_names = [name for name in names if name in self.columns]
        none = np.zeros(self.n, dtype=bool)
        if not present_names:
            return _Value(none, none, None, "null")
        kinds = {self.kinds[name] for name in present_names}
        if len(present_names) == 1:
            name = present_names[0]
            return _Value(self.valid(name), none, self.columns[name], self.kinds[name])
        if len(kinds) != 1 or not kinds <= {"str", "int"}:
            return None
        arrays = [self.columns[name] for name in present_names]
        if kinds == {"int"}:
            if any(a.type == pa.uint64() for a in arrays):
                return None
            arrays = [pc.cast(a, pa.int64()) for a in arrays]
        first = pc.coalesce(*arrays)
        compared = arrays
        if self.csv and any(name in _OFFSET_NAMES for name in present_names):
            compared = [_csv_equality_text(array) for array in arrays]
        reference = pc.coalesce(*compared)
        conflict = np.zeros(self.n, dtype=bool)
        for array in compared:
            unequal = pc.fill_null(pc.not_equal(array, reference), False)
            conflict |= np.asarray(unequal.to_numpy(zero_copy_only=False), dtype=bool)
        present = np.asarray(first.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        return _Value(present, conflict, first, kinds.pop())


def _csv_equality_text(array: pa.Array) -> pa.Array:
    """CSV offset cells as text that is equal exactly when the typed cells are (``==``):
    cells matching ``-?[0-9]+`` are ints (written without sign of zero or leading zeros),
    every other cell stays text and never equals an int."""
    matches = pc.fill_null(pc.match_substring_regex(array, _CSV_INT), False)
    digits = pc.replace_substring_regex(array, r"^(-?)0+([0-9])", r"\1\2")
    digits = pc.replace_substring_regex(digits, r"^-0$", "0")
    text = pc.binary_join_element_wise(pa.scalar("\x00", pa.string()), array, "")
    return pc.if_else(matches, digits, text)


def _ints(array: pa.Array, kind: str, csv: bool) -> tuple[Bools, npt.NDArray[np.generic]]:
    """Exact-int flags and raw values of a scalar column (value + kind)."""
    n = len(array)
    valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if kind == "int":
        filled = pc.fill_null(array, 0)
        if filled.type != pa.uint64():
            filled = pc.cast(filled, pa.int64())
        return valid, np.asarray(filled.to_numpy(zero_copy_only=False))
    if kind == "str" and csv:
        # CSV cells matching -?[0-9]+ are ints (§6); the rest stay text (not an integer).
        matches = pc.fill_null(pc.match_substring_regex(array, _CSV_INT), False)
        is_int = np.asarray(matches.to_numpy(zero_copy_only=False), dtype=bool)
        texts = pc.if_else(matches, array, pa.scalar("0", pa.string()))
        lengths = np.asarray(pc.utf8_length(texts).to_numpy(zero_copy_only=False))
        if bool((lengths > 18).any()):
            values: npt.NDArray[np.generic] = np.array(
                [int(text) for text in texts.to_pylist()], dtype=object
            )
        else:
            values = np.asarray(pc.cast(texts, pa.int64()).to_numpy(zero_copy_only=False))
        return is_int, values
    return np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)


class _Steps:
    """Per-row codes of the §6 steps, in contract order; the first nonzero one wins."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.steps: list[I8] = []

    def add(self, mask: Bools, code: int | I8) -> None:
        self.steps.append(np.asarray(np.where(mask, code, 0), dtype=np.int8))

    def reserve(self) -> int:
        """A place for a step whose codes are known later (offset rules need every
        candidate's offsets mapped together first)."""
        self.steps.append(np.zeros(self.n, dtype=np.int8))
        return len(self.steps) - 1

    def fill(self, place: int, mask: Bools, codes: I8) -> None:
        self.steps[place] = np.asarray(np.where(mask, codes, 0), dtype=np.int8)

    def first(self) -> I8:
        result = np.zeros(self.n, dtype=np.int8)
        for step in reversed(self.steps):
            result = np.where(step != 0, step, result).astype(np.int8)
        return result


def _span_sources(
    table: _Table, steps: _Steps, aliases: tuple[str, ...], pair: tuple[_Value, _Value],
    record_offset: str | None,
) -> list[tuple[Bools, _Offsets]]:  # fmt: skip
    """§6 steps 2–5 for every row: candidates (present mask, raw offsets) in order."""
    sources: list[tuple[Bools, _Offsets]] = []
    for name in aliases:
        if name in table.columns:
            sources.append(_alias(table, steps, name, table.valid(name)))
    start, end = pair
    steps.add(start.conflict, CODE_FIELDS)
    steps.add(end.conflict, CODE_FIELDS)
    steps.add(start.present != end.present, CODE_OFFSETS_REQUIRED)
    both = start.present & end.present
    start_int, start_raw = _field_ints(table, start)
    end_int, end_raw = _field_ints(table, end)
    place = steps.reserve()
    sources.append((both, _Offsets(place, start_int & both, start_raw, end_int & both, end_raw)))
    have = np.zeros(table.n, dtype=bool)
    for present, _ in sources:
        have |= present
    if record_offset is not None and record_offset in table.columns:
        # A record without any span field is itself a span: its nested ``offset`` (§6 step 5).
        use = ~have & table.valid(record_offset)
        sources.append(_alias(table, steps, record_offset, use))
        have |= use
    steps.add(~have, CODE_OFFSETS_REQUIRED)
    return sources


def _field_ints(table: _Table, value: _Value) -> tuple[Bools, npt.NDArray[np.generic]]:
    if value.column is None:
        return np.zeros(table.n, dtype=bool), np.zeros(table.n, dtype=np.int64)
    is_int, raw = _ints(value.column, value.kind, table.csv)
    return is_int & value.present, raw


def _alias(table: _Table, steps: _Steps, name: str, present: Bools) -> tuple[Bools, _Offsets]:
    """One span alias column: the pair rule for lists, the shape rule for scalars."""
    kind = table.kinds[name]
    none = np.zeros(table.n, dtype=bool)
    zeros = np.zeros(table.n, dtype=np.int64)
    if kind == "str":
        steps.add(present, CODE_OFFSETS_REQUIRED)  # text has no offsets
        return none, _Offsets(steps.reserve(), none, zeros, none, zeros)
    if kind != "list":
        steps.add(present, CODE_BAD_PAIR)  # a scalar is not a pair
        return none, _Offsets(steps.reserve(), none, zeros, none, zeros)
    array = table.columns[name]
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    lengths = np.where(present, offsets[1:] - offsets[:-1], 2)
    steps.add(present, pair_problems(lengths))
    place = steps.reserve()
    usable = present & (lengths >= 2)
    items = array.values
    item_kind = _scalar_kind(items.type) or "other"
    first = np.where(usable, offsets[:-1], 0)
    second = np.where(usable, offsets[:-1] + 1, 0)
    if len(items) == 0:
        return usable, _Offsets(place, none, zeros, none, zeros)
    item_int, item_raw = _ints(items, item_kind if item_kind != "str" else "other", False)
    return usable, _Offsets(
        place,
        item_int[first] & usable,
        item_raw[first],
        item_int[second] & usable,
        item_raw[second],
    )


def _evaluate_spans(
    steps: _Steps, sources: list[tuple[Bools, _Offsets]], n: int
) -> tuple[I64, I64]:
    """Offset rules per candidate, then every later candidate against the first (§6 step 4)."""
    groups: list[npt.NDArray[np.generic]] = []
    for _, offsets in sources:
        groups += [
            np.where(offsets.start_is_int, offsets.start, 0),
            np.where(offsets.end_is_int, offsets.end, 0),
        ]
    mapped = map_offsets(groups)
    for index, (present, offsets) in enumerate(sources):
        starts, ends = mapped[2 * index], mapped[2 * index + 1]
        problems = offset_problems(offsets.start_is_int, starts, offsets.end_is_int, ends)
        steps.fill(offsets.place, present, problems)
    first_start = np.zeros(n, dtype=np.int64)
    first_end = np.zeros(n, dtype=np.int64)
    have = np.zeros(n, dtype=bool)
    conflict = np.zeros(n, dtype=bool)
    for index, (present, _) in enumerate(sources):
        starts, ends = mapped[2 * index], mapped[2 * index + 1]
        later = present & have
        conflict |= later & spans_differ(first_start, first_end, starts, ends)
        take = present & ~have
        first_start = np.where(take, starts, first_start)
        first_end = np.where(take, ends, first_end)
        have |= present
    steps.add(conflict, CODE_ALIAS_CONFLICT)
    return first_start, first_end


def _identifier_codes(value: _Value) -> tuple[Bools, pa.Array]:
    """Rows whose present identifier breaks §4, and the ids as strings (null elsewhere)."""
    if value.column is None:
        n = len(value.present)
        return np.zeros(n, dtype=bool), pa.nulls(n, pa.string())
    if value.kind != "str":
        return value.present.copy(), pa.nulls(len(value.present), pa.string())
    return value.present & ~identifier_mask(value.column), value.column


def claims_from_table(table: pa.Table) -> ClaimColumns | None:
    """Claims table → :class:`ClaimColumns`, or ``None`` when its schema needs the row
    reader (decided from the schema alone)."""
    csv = bool(table.schema.metadata and CSV_METADATA in table.schema.metadata)
    data = _Table(table, CLAIM_NAMES, csv)
    if not data.supported:
        return None
    ids = data.read(CLAIM_ID_NAMES)
    start, end = data.read(CLAIM_STARTS), data.read(CLAIM_ENDS)
    if ids is None or start is None or end is None:
        return None
    steps = _Steps(data.n)
    steps.add(ids.conflict, CODE_FIELDS)
    steps.add(~ids.present & ~ids.conflict, CODE_NO_CLAIM_ID)
    sources = _span_sources(data, steps, CLAIM_SPAN_ALIASES, (start, end), "offset")
    starts, ends = _evaluate_spans(steps, sources, data.n)
    bad_id, claim_ids = _identifier_codes(ids)
    steps.add(bad_id, CODE_IDENTIFIER)
    problem = steps.first()
    ok = problem == 0
    claim_ids = pc.if_else(pa.array(ok), claim_ids, pa.scalar("", pa.string()))
    return ClaimColumns(problem, claim_ids, np.where(ok, starts, 0), np.where(ok, ends, 0))


def citations_from_table(table: pa.Table) -> CitationColumns | None:
    """Citations table → :class:`CitationColumns` (ids derived where absent), or ``None``
    when its schema needs the row reader."""
    csv = bool(table.schema.metadata and CSV_METADATA in table.schema.metadata)
    data = _Table(table, CITATION_NAMES, csv)
    if not data.supported:
        return None
    ids = data.read(CLAIM_ID_NAMES)
    cited = data.read(CITATION_ID_NAMES)
    start, end = data.read(CITATION_STARTS), data.read(CITATION_ENDS)
    if ids is None or cited is None or start is None or end is None:
        return None
    steps = _Steps(data.n)
    steps.add(ids.conflict, CODE_FIELDS)
    steps.add(~ids.present & ~ids.conflict, CODE_NO_CITATION_CLAIM_ID)
    steps.add(cited.conflict, CODE_FIELDS)
    sources = _span_sources(data, steps, CITATION_SPAN_ALIASES, (start, end), None)
    starts, ends = _evaluate_spans(steps, sources, data.n)
    bad_id, claim_ids = _identifier_codes(ids)
    steps.add(bad_id, CODE_IDENTIFIER)
    bad_cited, citation_ids = _identifier_codes(cited)
    steps.add(bad_cited, CODE_IDENTIFIER)
    problem = steps.first()
    ok = problem == 0
    mask = pa.array(ok)
    claim_ids = pc.if_else(mask, claim_ids, pa.scalar("", pa.string()))
    citation_ids = pc.if_else(mask, citation_ids, pa.scalar("", pa.string()))
    starts = np.where(ok, starts, 0)
    ends = np.where(ok, ends, 0)
    if citation_ids.null_count:
        missing = np.flatnonzero(citation_ids.is_null().to_numpy(zero_copy_only=False))
        derived = derive_citation_ids(
            claim_ids.take(pa.array(missing)).to_pylist(),
            starts[missing].tolist(),
            ends[missing].tolist(),
        )
        filled = citation_ids.to_pylist()
        for row, value in zip(missing.tolist(), derived, strict=True):
            filled[row] = value
        citation_ids = pa.array(filled, pa.string())
    return CitationColumns(problem, claim_ids, citation_ids, starts, ends)
