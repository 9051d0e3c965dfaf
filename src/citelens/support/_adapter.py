"""The thin adapter from Python objects to what the rule engine reads. It evaluates no rule.

Every Python form of a collection (records, typed records, objects converted by ``to_dict`` or
``vars``, compact mappings, citation pairs) becomes an :class:`Adapted`: one row per item in
contract order, the fields the contract reads as Arrow columns (a key whose values are plain
and of one type) or as :class:`~citelens.support._cells.Cell`s built from the Python values
(mixed types, huge integers, lone surrogates, irregular nested values), and a
:class:`~citelens.support._cells.RowForm` with what conversion found (the contract's conversion
errors as row problem codes, default identifiers, pairs). The engine (``_normalize``,
``_edges``) then applies every rule to those columns, so the first defective item in input
order, and its first failing step, decide the error.

Caller code runs here and only here (``to_dict``, ``vars``, mapping reads, iteration): what it
raises becomes the error the contract names for it.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import polars as pl
import pyarrow as pa

from citelens.support._aliases import (
    CLAIM_CITATION_ALIASES,
    CLAIM_ID_ALIASES,
    CLAIM_SOURCE_ALIASES,
    CLAIM_TYPE_ALIASES,
    EDGE_CLAIM_ALIASES,
    EDGE_EVIDENCE_ALIASES,
    EDGE_SOURCE_ALIASES,
    EVIDENCE_ID_ALIASES,
    EVIDENCE_SOURCE_ALIASES,
    LENGTH_ALIASES,
    TEXT_ALIASES,
    TypedRecord,
)
from citelens.support._cells import Cell, RowForm, row_index
from citelens.support._edges import ROW
from citelens.support._fields import (
    FLAG_KEYS,
    LABEL_KEYS,
    NESTED_ALIASES,
    NOT_MAPPING,
    NOT_NORMALIZED,
    SPAN_END,
    SPAN_START,
    Problem,
)
from citelens.support._pyvalues import (
    CallerFailed,
    bounded_items,
    caller_read,
    caller_value,
    python_cell,
    read_mapping,
)
from citelens.support._rules import fail, is_int, is_pair_sequence

__all__ = [
    "ADJUDICATION_RECORD_KEYS",
    "CITATION_RECORD_KEYS",
    "CLAIM_RECORD_KEYS",
    "EVIDENCE_RECORD_KEYS",
    "RECORD_KEYS",
    "Adapted",
    "citations",
    "compact_adjudications",
    "compact_citations",
    "compact_claims",
    "compact_evidence",
    "empty_frame",
    "has_any_key",
    "records",
    "source_lengths",
]

_FLAG_COLUMNS: Final = tuple(key for key, _ in FLAG_KEYS)

# Every key any support record rule reads; other keys are never converted.
RECORD_KEYS: Final = frozenset(
    (
        *CLAIM_ID_ALIASES,
        *EVIDENCE_ID_ALIASES,
        *CLAIM_SOURCE_ALIASES,
        *EVIDENCE_SOURCE_ALIASES,
        *CLAIM_CITATION_ALIASES,
        *CLAIM_TYPE_ALIASES,
        *LENGTH_ALIASES,
        *TEXT_ALIASES,
        *EDGE_CLAIM_ALIASES,
        *EDGE_EVIDENCE_ALIASES,
        *EDGE_SOURCE_ALIASES,
        "source_id",
        *SPAN_START,
        *SPAN_END,
        *NESTED_ALIASES,
        *LABEL_KEYS,
        *_FLAG_COLUMNS,
        "claim_key",
    )
)

# The keys that make a mapping ONE record rather than a compact mapping (§3.3, §3.4).
CLAIM_RECORD_KEYS = frozenset(
    (
        "claim_id",
        "id",
        "fact_id",
        "claim_key",
        "start",
        "end",
        "span",
        "citations",
        "citation_ids",
        "evidence_ids",
        "claim_type",
    )
)
EVIDENCE_RECORD_KEYS = frozenset(
    (
        "evidence_id",
        "id",
        "citation_id",
        "span_id",
        "start",
        "end",
        "span",
        "source_length",
        "document_length",
        "source_id",
        "document_id",
    )
)
CITATION_RECORD_KEYS = frozenset(("claim_id", "claim", "fact_id", "evidence_id", "evidence"))
ADJUDICATION_RECORD_KEYS = frozenset(
    (
        "claim_id",
        "claim",
        "fact_id",
        "evidence_id",
        "evidence",
        "label",
        "adjudication",
        "judgment",
        "clinician_label",
    )
)


def _is_typed(value: object, kind: str) -> bool:
    """Whether ``value`` is a typed record of collection ``kind`` (§3.9)."""
    return isinstance(value, TypedRecord) and kind == value.KIND


@dataclass(frozen=True)
class Adapted:
    """One collection as the engine reads it: the Arrow-typed field columns (and ``_row``,
    so that the frame has one row per item), the Python-valued fields as cells, the row form,
    and for a compact mapping its keys and what the first pass found about each value."""

    frame: pl.DataFrame
    typed: dict[str, Cell] = field(default_factory=dict)
    form: RowForm | None = None
    keys: Cell | None = None
    key_shape: pl.Series | None = None


def empty_frame(schema: pa.Schema) -> pl.DataFrame:
    """An empty canonical frame of ``schema``'s columns (Int64 or String)."""
    return pl.DataFrame(
        {
            f.name: pl.Series([], dtype=pl.Int64 if pa.types.is_integer(f.type) else pl.String)
            for f in schema
        }
    )


def has_any_key(mapping: Mapping[Any, Any], keys: frozenset[str]) -> bool:
    """True when ``mapping`` holds at least one of ``keys`` (a single record)."""
    return caller_value(lambda: any(key in mapping for key in keys))


def _entries(value: Mapping[Any, Any], name: str, limit: int) -> list[tuple[Any, Any]]:
    """The entries of a compact mapping, pulled under a collection name and bound."""
    view: Any = caller_value(value.items)
    entries: list[tuple[Any, Any]] = bounded_items(view, name, limit)
    return entries


# -- fields as columns -------------------------------------------------------------------------

_PLAIN_TYPES: Final = frozenset((str, int, bool, float, type(None), list, dict))


# Nested values deeper than this, or with more nested elements than the budget, are not made
# Arrow columns: they stay Python values in a cell, which the rules read one level at a time,
# only as deep as a rule looks (a claim's citation list, its mapping items, their span, an
# offset: four levels). So a value nested 900 levels deep, or a small graph of shared
# references that unfolds exponentially, costs what its first levels cost (Arrow's type
# inference and Polars' conversion of deep nesting take time, memory and stack without bound).
_COLUMN_DEPTH: Final = 4
_COLUMN_NODES: Final = 1 << 20


def _plain_values_list(values: list[Any], types: set[type]) -> bool:
    """Values that Arrow types exactly as the rules read them: plain types, no int/float mix
    at any level, no ``None`` inside a nested mapping (a present key holding ``None`` is not a
    missing key there), nested at most ``_COLUMN_DEPTH`` levels with a bounded number of
    nested elements. ``types`` is the set of the types of ``values``."""
    depth = 0
    budget = _COLUMN_NODES + 4 * len(values)
    while values:
        depth += 1
        if depth > _COLUMN_DEPTH + 1:
            return False
        if not types <= _PLAIN_TYPES:
            return False
        if int in types and float in types:
            return False  # Arrow would make the integers floats, which the rules reject
        if list not in types and dict not in types:
            return True
        lists: list[Any] = []
        dicts: list[Any] = []
        if types == _LIST_ONLY:
            lists = values
        elif list in types:
            is_list = map(operator.is_, map(type, values), itertools.repeat(list))
            lists = list(itertools.compress(values, is_list))
        if dict in types:
            is_dict = map(operator.is_, map(type, values), itertools.repeat(dict))
            dicts = list(itertools.compress(values, is_dict))
        # the next level's size before it is built (len() of a list or dict is O(1))
        budget -= sum(map(len, lists)) + sum(map(len, dicts))
        if budget < 0:
            return False
        nested = list(itertools.chain.from_iterable(lists))
        if dicts:
            inner = list(itertools.chain.from_iterable(map(dict.values, dicts)))
            if any(map(operator.is_, inner, itertools.repeat(None))):
                return False
            nested.extend(inner)
        values = nested
        types = set(map(type, values))
    return True


_LIST_ONLY: Final = frozenset((list,))


_FLAT: Final = {
    frozenset((str,)): pl.String,
    frozenset((str, type(None))): pl.String,
    frozenset((int,)): pl.Int64,
    frozenset((int, type(None))): pl.Int64,
}
"""Value types Polars builds a column of directly, as the type Arrow would infer (about
three times faster than ``pa.array`` plus the conversion, and no Arrow array in between)."""


def _column(values: list[Any]) -> pl.Series | None:
    types = set(map(type, values))
    if not _plain_values_list(values, types):
        return None
    flat = _FLAT.get(frozenset(types))
    try:
        if flat is not None:
            return pl.Series(values, dtype=flat, strict=True)
        series = pl.from_arrow(pa.array(values))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, UnicodeEncodeError, TypeError):
        # several Python types under one key, an integer beyond 64 bits, a lone surrogate:
        # not one typed column, so the values become a cell
        return None
    assert isinstance(series, pl.Series)
    return series


def _present_keys(rows: list[dict[Any, Any]], wanted: frozenset[str]) -> list[str]:
    """The keys of ``wanted`` that any of ``rows`` holds, sorted. One C-level pass over the
    keys of every row (``dict.keys`` views would be half a million live objects for the
    garbage collector to walk)."""
    return sorted(wanted.intersection(set(itertools.chain.from_iterable(rows))))


def _columns(rows: list[dict[Any, Any]]) -> tuple[pl.DataFrame, dict[str, Cell]]:
    """The fields the rules read, as Arrow columns or cells, plus the ``_row`` column."""
    n = len(rows)
    columns: list[pl.Series] = []
    typed: dict[str, Cell] = {}
    for key in _present_keys(rows, RECORD_KEYS):
        values = list(map(dict.get, rows, itertools.repeat(key)))
        keyed: pl.Series | None = None
        if key in _FLAG_COLUMNS:
            # a flag key holding None is present (and not a boolean) in a mapping
            nones = sum(map(operator.is_, values, itertools.repeat(None)))
            present = sum(map(dict.__contains__, rows, itertools.repeat(key)))
            if present != n - nones:
                keyed = pl.Series(list(map(dict.__contains__, rows, itertools.repeat(key))))
        column = _column(values) if keyed is None else None
        if column is not None:
            columns.append(column.alias(key))
            continue
        cell = python_cell(values)
        typed[key] = cell if keyed is None else dataclasses.replace(cell, keyed=keyed)
    columns.append(row_index(n).alias(ROW))
    return pl.DataFrame(columns), typed


# -- record conversion -------------------------------------------------------------------------


def _typed_record(value: TypedRecord) -> dict[str, Any]:
    """A typed record's fields as the mapping the record rule reads."""
    record = {name: getattr(value, name) for name in value.FIELDS}
    if type(record.get("citations")) is tuple:
        record["citations"] = list(record["citations"])
    return record


def _convert(kind: str, typed: bool, value: Any) -> tuple[dict[Any, Any], int | None]:
    """Record conversion (§3.5) of one item: its mapping, or the problem code it raises.
    ``typed``: a typed record of the collection's kind is read as its fields (inside a
    collection); otherwise it is converted like any object (``from_mapping``: slotted, with
    no ``to_dict``, it is not a mapping)."""
    if type(value) is dict:
        return value, None
    if typed and _is_typed(value, kind):
        return _typed_record(value), None
    if isinstance(value, Mapping):
        return read_mapping(value, RECORD_KEYS), None
    to_dict: Any = caller_value(lambda: getattr(value, "to_dict", None))
    if callable(to_dict):
        result = caller_read(to_dict)
        if isinstance(result, CallerFailed):
            return {}, NOT_NORMALIZED[kind]
        if isinstance(result, Mapping):
            return read_mapping(result, RECORD_KEYS), None
    # vars() fails without a __dict__ (slots, builtins) or through a caller __getattribute__
    converted = caller_read(lambda: vars(value))
    if not isinstance(converted, Mapping):
        return {}, NOT_MAPPING[kind]
    return read_mapping(converted, RECORD_KEYS), None


def _codes(codes: Sequence[int | None]) -> pl.Series | None:
    if not any(code is not None for code in codes):
        return None
    return pl.Series(list(codes), dtype=pl.UInt8)


def records(
    items: list[Any], kind: str, form: RowForm | None = None, *, read_typed: bool = True
) -> Adapted:
    """Claim, evidence or adjudication items (``kind``) in order (``citation`` too, for
    ``Citation.from_mapping``); ``read_typed``: whether typed records of the kind are read as
    their fields (inside a collection) or converted like any other object (``from_mapping``)."""
    pre: pl.Series | None = None
    if set(map(type, items)) <= {dict}:
        rows = items
    else:
        converted = list(map(functools.partial(_convert, kind, read_typed), items))
        rows = [row for row, _ in converted]
        pre = _codes([code for _, code in converted])
    frame, typed = _columns(rows)
    if pre is not None:
        form = RowForm(pre=pre) if form is None else _with_pre(form, pre)
    return Adapted(frame, typed, form)


def _with_pre(form: RowForm, pre: pl.Series) -> RowForm:
    return RowForm(pre, form.default, form.pair, form.first, form.second, form.counted)


# -- citations -------------------------------------------------------------------------------


def _citation_fields(value: TypedRecord, claim: Any = None) -> dict[str, Any]:
    record = _typed_record(value)
    if claim is not None:
        record["claim_id"] = claim
    return record


def _pair(item: Any) -> tuple[Any, Any, int | None]:
    """The two elements of a plain citation pair, or the code of a wrong length."""
    elements: Any = item if type(item) in (list, tuple) else caller_value(lambda: list(item))
    if len(elements) != 2:
        return None, None, Problem.CITATION_TUPLE
    return elements[0], elements[1], None


def _citation_item(item: Any) -> tuple[dict[Any, Any], bool, Any, Any, int | None]:
    """One explicit citation item: (record, is pair, first, second, problem code)."""
    if type(item) is dict:
        return item, False, None, None, None
    if _is_typed(item, "citation"):
        return _citation_fields(item), False, None, None, None
    if isinstance(item, Mapping):
        return read_mapping(item, RECORD_KEYS), False, None, None, None
    if is_pair_sequence(item):
        first, second, code = _pair(item)
        return {}, code is None, first, second, code
    return {}, False, None, None, Problem.CITATION_RECORDS


def _citation_rows(
    converted: list[tuple[dict[Any, Any], bool, Any, Any, int | None]],
    counted: pl.Series | None = None,
) -> Adapted:
    rows = [c[0] for c in converted]
    frame, typed = _columns(rows)
    pairs = [c[1] for c in converted]
    form = RowForm(
        pre=_codes([c[4] for c in converted]),
        pair=pl.Series(pairs, dtype=pl.Boolean) if any(pairs) else None,
        first=python_cell([c[2] for c in converted]) if any(pairs) else None,
        second=python_cell([c[3] for c in converted]) if any(pairs) else None,
        counted=counted,
    )
    return Adapted(frame, typed, form)


def citations(items: list[Any]) -> Adapted:
    """Explicit citation items in order (records, typed citations, pairs)."""
    if set(map(type, items)) <= {dict}:
        frame, typed = _columns(items)
        return Adapted(frame, typed)
    return _citation_rows(list(map(_citation_item, items)))


def _citation_value(value: Any, limit: int) -> tuple[list[Any], int | None]:
    """The citation-value rule's items of one compact-mapping value (§3.6), or the code of
    the error the value raises."""
    if value is None:
        return [], None
    if isinstance(value, Mapping | str) or is_int(value):
        return [value], None
    if not is_pair_sequence(value):
        return [], Problem.CITATION_VALUE
    items = caller_read(lambda: list(itertools.islice(iter(value), limit + 1)))
    if isinstance(items, CallerFailed):
        return [], Problem.CITATION_ITERABLE
    if len(items) > limit:
        return [], Problem.CITATION_LIMIT
    return items, None


def compact_citations(value: Mapping[Any, Any], limit: int) -> Adapted:
    """A compact citation mapping ``{claim_id: value}`` (§3.4): one row per edge item, in
    entry order; an entry whose value fails gives one row with its problem code (and ends the
    conversion: nothing after it can come first). Items stop once the running number exceeds
    ``limit`` (that item is the first the running bound rejects)."""
    converted: list[tuple[dict[Any, Any], bool, Any, Any, int | None]] = []
    counted: list[bool] = []
    for key, entry in _entries(value, "citation collection", limit):
        items, code = _citation_value(entry, limit)
        if code is not None:
            converted.append(({}, False, None, None, code))
            counted.append(False)
            break
        for item in items:
            if _is_typed(item, "citation"):
                converted.append((_citation_fields(item, key), False, None, None, None))
            elif isinstance(item, Mapping):
                record = read_mapping(item, RECORD_KEYS)
                if "claim_id" not in record:
                    record = {**record, "claim_id": key}
                converted.append((record, False, None, None, None))
            else:
                converted.append(({}, True, key, item, None))
            counted.append(True)
            if len(converted) > limit:
                break
        if len(converted) > limit:
            break
    return _citation_rows(converted, pl.Series(counted, dtype=pl.Boolean))


# -- compact claim, evidence and adjudication mappings ---------------------------------------


def _offset_pair(value: Any) -> bool:
    """A non-string sequence of exactly two non-bool ints."""
    if not is_pair_sequence(value):
        return False
    return caller_value(lambda: len(value) == 2 and is_int(value[0]) and is_int(value[1]))


def _split(entries: list[tuple[Any, Any]]) -> tuple[list[Any], list[Any]]:
    return list(map(operator.itemgetter(0), entries)), list(map(operator.itemgetter(1), entries))


def compact_claims(value: Mapping[Any, Any], limit: int) -> Adapted:
    """A compact claim mapping ``{claim_id: value}`` (§3.3)."""
    keys, values = _split(_entries(value, "record collection", limit))
    items: list[Any] = []
    defaults: list[Any] = []
    for key, entry in zip(keys, values):
        if isinstance(entry, Mapping) or _is_typed(entry, "claim"):
            items.append(entry)
            defaults.append(key if isinstance(entry, Mapping) else None)
        elif _offset_pair(entry):
            items.append({"claim_id": key, "start": entry[0], "end": entry[1]})
            defaults.append(None)
        else:
            items.append({"claim_id": key, "citations": entry})
            defaults.append(None)
    adapted = records(items, "claim", RowForm(default=python_cell(defaults)))
    return Adapted(adapted.frame, adapted.typed, adapted.form, python_cell(keys))


def compact_evidence(value: Mapping[Any, Any], limit: int) -> Adapted:
    """A compact evidence mapping ``{evidence_id: value}`` (§3.4)."""
    keys, values = _split(_entries(value, "record collection", limit))
    items: list[Any] = []
    defaults: list[Any] = []
    shape: list[int | None] = []
    for key, entry in zip(keys, values):
        code = None
        if isinstance(entry, Mapping) or _is_typed(entry, "evidence"):
            items.append(entry)
            defaults.append(key if isinstance(entry, Mapping) else None)
        elif _offset_pair(entry):
            items.append({"evidence_id": key, "start": entry[0], "end": entry[1]})
            defaults.append(None)
        else:
            items.append({})
            defaults.append(None)
            code = Problem.EVIDENCE_VALUES
        shape.append(code)
    adapted = records(items, "evidence", RowForm(default=python_cell(defaults)))
    return Adapted(adapted.frame, adapted.typed, adapted.form, python_cell(keys), _codes(shape))


def compact_adjudications(value: Mapping[Any, Any], limit: int) -> Adapted:
    """A compact adjudication mapping ``{claim_id: record}`` (§3.4)."""
    keys, values = _split(_entries(value, "record collection", limit))
    defaults = [
        None if _is_typed(entry, "adjudication") else key for key, entry in zip(keys, values)
    ]
    adapted = records(values, "adjudication", RowForm(default=python_cell(defaults)))
    return Adapted(adapted.frame, adapted.typed, adapted.form, python_cell(keys))


def source_lengths(value: Any, limit: int) -> tuple[Cell, Cell] | None:
    """``source_lengths`` (§3.4): its keys and values as cells, or ``None`` for none."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise fail("source_lengths must be a mapping", "collection")
    keys, values = _split(_entries(value, "source collection", limit))
    return python_cell(keys), python_cell(values)
