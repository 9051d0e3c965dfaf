"""The field rules of the support contract (§3.5–§3.8) as whole-column expressions over cells.

Every function takes :class:`~citelens.support._cells.Cell` columns and returns the normalised
column plus *ordered checks*: ``(rows that fail, problem code)`` pairs in the order the contract
evaluates them. The record rules (``_normalize``) concatenate these lists in their own step
order, and the first failing check of every row becomes its problem code.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import polars as pl
import pyarrow as pa

from citelens.support._aliases import LENGTH_ALIASES, TEXT_ALIASES
from citelens.support._cells import (
    ABSENT,
    BIG,
    BOOL,
    FLOAT,
    INT,
    LIST,
    STR,
    STRUCT,
    Cell,
    cell_of,
    constant,
    first_value,
    python_values,
    where_cell,
)
from citelens.support._pyvalues import item_cell, list_items, struct_fields
from citelens.support._rules import FLAG_KEYS, LABEL_KEYS, LABEL_SPELLINGS, fail

__all__ = [
    "CSV_BOOLEAN_COLUMNS",
    "CSV_INTEGER_COLUMNS",
    "FLAG_KEYS",
    "LABEL_KEYS",
    "LENGTH_ALIASES",
    "PROBLEMS",
    "TEXT_ALIASES",
    "Check",
    "Problem",
    "claim_type_rule",
    "first_problem",
    "group",
    "identifier_rule",
    "label_rule",
    "length_rule",
    "optional_identifier_rule",
    "raise_first",
    "span_rule",
    "whitespace",
]


class Problem:
    """Problem codes: the index of a (message, category) pair in :data:`PROBLEMS`."""

    CONFLICT: Final = 0
    CLAIM_ID_REQUIRED: Final = 1
    EVIDENCE_ID_REQUIRED: Final = 2
    SPAN_TUPLE: Final = 3
    SPAN_CONFLICT: Final = 4
    SPAN_NOT_INT: Final = 5
    LENGTH_NOT_INT: Final = 6
    CITATION_VALUE: Final = 7
    CITATION_LIMIT: Final = 8
    ITEM_EVIDENCE: Final = 9
    ID_NOT_STRING: Final = 10
    ID_INVALID: Final = 11
    CLAIM_TYPE: Final = 12
    CITATION_IDS: Final = 13
    LABEL_NOT_STRING: Final = 14
    LABEL_UNSUPPORTED: Final = 15
    FLAG_NOT_BOOL: Final = 16
    LABEL_CONFLICT: Final = 17
    ADJUDICATION_FIELDS: Final = 18
    ADJUDICATION_LIMIT: Final = 19
    # what the adapter finds while converting an item (record conversion, item shapes)
    CLAIM_NOT_NORMALIZED: Final = 20
    EVIDENCE_NOT_NORMALIZED: Final = 21
    ADJUDICATION_NOT_NORMALIZED: Final = 22
    CLAIM_NOT_MAPPING: Final = 23
    EVIDENCE_NOT_MAPPING: Final = 24
    ADJUDICATION_NOT_MAPPING: Final = 25
    EVIDENCE_VALUES: Final = 26
    CITATION_TUPLE: Final = 27
    CITATION_RECORDS: Final = 28
    CITATION_ITERABLE: Final = 29
    INPUT: Final = 30
    CITATION_IDS_SEQUENCE: Final = 31
    # only through ``Citation.from_mapping`` (inside a collection such items are pairs)
    CITATION_NOT_NORMALIZED: Final = 32
    CITATION_NOT_MAPPING: Final = 33


PROBLEMS: Final[tuple[tuple[str, str], ...]] = (
    ("conflicting field aliases", "record"),
    ("claim identifier is required", "record"),
    ("evidence identifier is required", "record"),
    ("span tuple must contain two offsets", "span"),
    ("conflicting span offsets", "span"),
    ("span offsets must be integers", "span"),
    ("source lengths must be integers", "value"),
    ("citation values must be identifiers or records", "record"),
    ("citation collection exceeds the record limit", "limit"),
    ("citation record requires an evidence identifier", "record"),
    ("identifier must be a string", "identifier"),
    ("identifier is empty, bounded, and control-free", "identifier"),
    ("claim type must be a bounded label", "value"),
    ("citation requires claim and evidence identifiers", "record"),
    ("adjudication label must be a string", "value"),
    ("adjudication label is unsupported", "value"),
    ("adjudication flags must be boolean", "value"),
    ("conflicting adjudication labels", "value"),
    ("adjudication requires claim, evidence, and label", "record"),
    ("adjudication collection exceeds the record limit", "limit"),
    ("claim record cannot be normalized", "record"),
    ("evidence record cannot be normalized", "record"),
    ("adjudication record cannot be normalized", "record"),
    ("claim record must be a mapping", "record"),
    ("evidence record must be a mapping", "record"),
    ("adjudication record must be a mapping", "record"),
    ("evidence mapping values must be records or spans", "record"),
    ("citation tuple must contain two identifiers", "record"),
    ("citation records must be mappings or pairs", "record"),
    ("citation collection must be an iterable of records", "collection"),
    ("citation-support input cannot be normalized", "input"),
    ("citation identifiers must be a sequence", "record"),
    ("citation record cannot be normalized", "record"),
    ("citation record must be a mapping", "record"),
)

NOT_NORMALIZED: Final = {
    "claim": Problem.CLAIM_NOT_NORMALIZED,
    "evidence": Problem.EVIDENCE_NOT_NORMALIZED,
    "adjudication": Problem.ADJUDICATION_NOT_NORMALIZED,
    "citation": Problem.CITATION_NOT_NORMALIZED,
}
NOT_MAPPING: Final = {
    "claim": Problem.CLAIM_NOT_MAPPING,
    "evidence": Problem.EVIDENCE_NOT_MAPPING,
    "adjudication": Problem.ADJUDICATION_NOT_MAPPING,
    "citation": Problem.CITATION_NOT_MAPPING,
}

Check = tuple[pl.Series, int]
"""Rows that fail a check (Boolean) and the problem code they get."""


# Every character for which ``str.isspace()`` is true (the identifier rule's strip): written
# out, because scanning all code points costs 0.4 s; a test checks it against the interpreter.
_WHITESPACE: Final = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def whitespace() -> str:
    """Every character for which ``str.isspace()`` is true (the identifier rule's strip)."""
    return _WHITESPACE


def first_problem(checks: Sequence[Check], n: int) -> pl.Series:
    """Per row, the code of its first failing check (UInt8), null when every check passes."""
    if not checks:
        return constant(None, n, pl.UInt8)
    expr: Any = pl.when(checks[0][0].fill_null(False)).then(pl.lit(checks[0][1], pl.UInt8))
    for mask, code in checks[1:]:
        expr = expr.when(mask.fill_null(False)).then(pl.lit(code, pl.UInt8))
    return pl.select(expr.otherwise(pl.lit(None, pl.UInt8))).to_series().alias("_problem")


def raise_first(problem: pl.Series) -> None:
    """Raise the catalogue error of the first row with a problem (input order)."""
    rows = problem.is_not_null().arg_true()
    if len(rows):
        message, category = PROBLEMS[int(problem[int(rows[0])])]
        raise fail(message, category)


def _where(mask: pl.Series, then: pl.Series | Any, otherwise: pl.Series | Any) -> pl.Series:
    return pl.select(pl.when(mask).then(then).otherwise(otherwise)).to_series()


# -- identifiers (§3.8) ---------------------------------------------------------------------

_CONTROL = r"[\x00-\x1f\x7f]"


@functools.cache
def _whitespace_list() -> pl.Series:
    return pl.Series(list(whitespace()), dtype=pl.String).implode()


def _byte_range(text: pl.Series) -> tuple[int, int] | None:
    """The smallest and largest UTF-8 byte of all values together (``None``: not known).

    The bytes of a value outside ``0x20``–``0x7e`` include those of every control character
    (``0x00``–``0x1f``, ``0x7f``) and of every non-ASCII character; whitespace other than
    ``" "`` (``0x20``) is among them. A range inside ``0x21``–``0x7e`` therefore proves that no
    value holds a control character or needs stripping, without a per-value scan. The column
    is copied out block by block, each block as one contiguous Arrow buffer (Polars' own views
    may reference buffers that hold other bytes too, such as Parquet length prefixes; and a
    whole copy would be the rule stage's largest allocation); bytes of a null slot can only
    widen the range, and the exact checks then run."""
    low, high = 0x100, -1
    for first in range(0, len(text), _RANGE_BLOCK):
        block = _block_range(text.slice(first, _RANGE_BLOCK))
        if block is not None:
            low, high = min(low, block[0]), max(high, block[1])
    return None if high < 0 else (low, high)


_RANGE_BLOCK: Final = 1 << 16


def _block_range(text: pl.Series) -> tuple[int, int] | None:
    """:func:`_byte_range` of one block (``None``: no bytes; every byte value when the
    values are not a string array, so that the exact checks run)."""
    array = text.to_arrow(compat_level=pl.CompatLevel.oldest())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_large_string(array.type):
        width: Any = np.int64
    elif pa.types.is_string(array.type):
        width = np.int32
    else:
        return 0x00, 0xFF
    _, offsets, data = array.buffers()
    if offsets is None or data is None:
        return None
    bounds = np.frombuffer(offsets, dtype=width)[[array.offset, array.offset + len(array)]]
    values = np.frombuffer(data, dtype=np.uint8)[int(bounds[0]) : int(bounds[1])]
    if not len(values):
        return None
    return int(values.min()), int(values.max())


def _identifier_text(text: pl.Series) -> tuple[pl.Series, pl.Series]:
    """Stripped text and the rows it fails (empty, over 256 code points, a control)."""
    # One pass finds the values that need stripping or hold a control character; only those
    # are stripped, and code points are counted only where the byte length could exceed 256.
    # Printable ASCII text (all bytes in 0x20-0x7e, the usual identifier) skips the scans that
    # its byte range already answers: no control at all, and no edge to strip without a space.
    ws = _whitespace_list()
    byte_range = _byte_range(text) if len(text) else None
    printable = byte_range is not None and byte_range[0] >= 0x20 and byte_range[1] <= 0x7E
    if printable and byte_range is not None and byte_range[0] > 0x20:
        needs_work = constant(False, len(text), pl.Boolean)
    elif printable:
        needs_work = (text.str.head(1).is_in(ws) | text.str.tail(1).is_in(ws)).fill_null(False)
    else:
        edges = text.str.head(1).is_in(ws) | text.str.tail(1).is_in(ws)
        control = text.str.contains(_CONTROL)
        needs_work = (edges | control).fill_null(False)
    work = bool(needs_work.any())
    stripped = _where(needs_work, text.str.strip_chars(whitespace()), text) if work else text
    length = stripped.str.len_bytes()
    bad = (length < 1).fill_null(False)
    if bool((length > 256).any()):
        bad = bad | (stripped.str.len_chars() > 256).fill_null(False)
    if work:
        bad = bad | stripped.str.contains(_CONTROL).fill_null(False)
    return stripped, bad


def identifier_rule(cell: Cell) -> tuple[pl.Series, list[Check]]:
    """The identifier rule: text or integer, stripped, 1–256 code points, no control."""
    textual = cell.is_kind(STR, INT, BIG)
    stripped, bad = _identifier_text(cell.s)
    if cell.sur is not None:
        bad = bad | cell.sur  # a lone surrogate (decision i)
    return stripped, [(~textual, Problem.ID_NOT_STRING), (textual & bad, Problem.ID_INVALID)]


def optional_identifier_rule(cell: Cell) -> tuple[pl.Series, list[Check]]:
    """The optional-identifier rule: absent, null or ``""`` → ``""``, else the identifier rule."""
    none = (cell.kind == ABSENT) | ((cell.kind == STR) & (cell.s == "")).fill_null(False)
    value, checks = identifier_rule(cell)
    return (
        _where(none, pl.lit(""), value),
        [(~none & mask, code) for mask, code in checks],
    )


# -- spans (§3.6) ---------------------------------------------------------------------------

NESTED_ALIASES: Final = ("span", "source_span", "claim_span", "evidence_span")
NESTED_START: Final = ("start", "begin", "offset_start")
NESTED_END: Final = ("end", "stop", "offset_end")
SPAN_START: Final = ("start", "source_start", "span_start")
SPAN_END: Final = ("end", "source_end", "span_end")


def group(cells: dict[str, Cell], aliases: Sequence[str], n: int) -> tuple[Cell, pl.Series]:
    """The first-value rule over the alias columns present: the value and conflict rows."""
    present = [cells[a] for a in aliases if a in cells]
    if not present:
        return _absent(n), constant(False, n, pl.Boolean)
    value, conflict, _ = first_value(present)
    return value, conflict


def _absent(n: int) -> Cell:
    return cell_of(constant(None, n, pl.Null))


def _nested_offsets(cell: Cell, n: int) -> tuple[Cell, Cell, list[Check]]:
    """Nested start/end of one nested span value (a mapping or a two-element sequence)."""
    checks: list[Check] = []
    start, end = _absent(n), _absent(n)
    if cell.raw is None and cell.py is None:
        return start, end, checks
    structs = cell.kind == STRUCT
    if bool(structs.any()):
        fields = struct_fields(cell, (*NESTED_START, *NESTED_END))
        start, start_conflict = group(fields, NESTED_START, n)
        end, end_conflict = group(fields, NESTED_END, n)
        # a null struct row has no nested offsets
        start = _masked(start, structs)
        end = _masked(end, structs)
        checks += [
            (structs & start_conflict, Problem.CONFLICT),
            (structs & end_conflict, Problem.CONFLICT),
        ]
    lists = cell.kind == LIST
    if bool(lists.any()):
        raw = cell.raw
        if raw is not None and isinstance(raw.dtype, pl.List | pl.Array):
            values = raw.cast(pl.List(raw.dtype.inner)) if isinstance(raw.dtype, pl.Array) else raw
            length = values.list.len()
            first = cell_of(values.list.get(0, null_on_oob=True))
            second = cell_of(values.list.get(1, null_on_oob=True))
        else:
            items = list_items(cell)
            length = items.length
            first, second = item_cell(items, 0, n), item_cell(items, 1, n)
        checks.append((lists & (length != 2).fill_null(False), Problem.SPAN_TUPLE))
        ok = lists & (length == 2).fill_null(False)
        start = where_cell(ok, first, start)
        end = where_cell(ok, second, end)
    return start, end, checks


def _masked(cell: Cell, mask: pl.Series) -> Cell:
    kind = _where(mask, cell.kind, pl.lit(ABSENT, pl.UInt8))
    return dataclasses.replace(cell, kind=kind)


def _choose(cells: list[Cell], chosen: pl.Series) -> Cell:
    """Per row, the cell at position ``chosen`` (absent where ``chosen`` is null)."""
    out = _absent(len(chosen))
    for position, cell in enumerate(cells):
        out = where_cell((chosen == position).fill_null(False), cell, out)
    return out


def _int64(cell: Cell) -> pl.Series:
    return _where(cell.kind == INT, cell.i, pl.lit(None, pl.Int64))


def span_rule(cells: dict[str, Cell], n: int) -> tuple[pl.Series, pl.Series, list[Check]]:
    """The span rule: nested and top-level offsets, conflicts, int64 offsets."""
    checks: list[Check] = []
    nested_cells = [cells[a] for a in NESTED_ALIASES if a in cells]
    nested_start, nested_end = _absent(n), _absent(n)
    if nested_cells:
        _, nested_conflict, chosen = first_value(nested_cells)
        checks.append((nested_conflict, Problem.CONFLICT))
        starts, ends = [], []
        inner: list[list[Check]] = []
        for cell in nested_cells:
            start, end, cell_checks = _nested_offsets(cell, n)
            starts.append(start)
            ends.append(end)
            inner.append(cell_checks)
        for position, cell_checks in enumerate(inner):
            take = (chosen == position).fill_null(False)
            checks += [(take & mask, code) for mask, code in cell_checks]
        nested_start, nested_end = _choose(starts, chosen), _choose(ends, chosen)
    start, start_conflict = group(cells, SPAN_START, n)
    end, end_conflict = group(cells, SPAN_END, n)
    checks += [(start_conflict, Problem.CONFLICT), (end_conflict, Problem.CONFLICT)]
    from_nested: list[Cell] = []
    for top, nested in ((start, nested_start), (end, nested_end)):
        both = top.present & nested.present
        value, differ, _ = first_value([top, nested])
        checks.append((both & differ, Problem.SPAN_CONFLICT))
        from_nested.append(value)
    start_value, end_value = from_nested
    checks.append((start_value.present & (start_value.kind != INT), Problem.SPAN_NOT_INT))
    checks.append((end_value.present & (end_value.kind != INT), Problem.SPAN_NOT_INT))
    return _int64(start_value), _int64(end_value), checks


# -- lengths --------------------------------------------------------------------------------

# The CSV columns the contract types (§4.2): offsets and lengths as int64, flags as booleans.
CSV_INTEGER_COLUMNS: Final = (*SPAN_START, *SPAN_END, *LENGTH_ALIASES)
CSV_BOOLEAN_COLUMNS: Final = tuple(key for key, _ in FLAG_KEYS)


def length_rule(cells: dict[str, Cell], n: int) -> tuple[pl.Series, list[Check]]:
    """Explicit length aliases (non-bool int64), else the length of a text alias."""
    length, conflict = group(cells, LENGTH_ALIASES, n)
    text, text_conflict = group(cells, TEXT_ALIASES, n)
    absent = ~length.present
    checks: list[Check] = [
        (conflict, Problem.CONFLICT),
        (length.present & (length.kind != INT), Problem.LENGTH_NOT_INT),
        (absent & text_conflict, Problem.CONFLICT),
    ]
    from_text = _where(
        text.kind == STR, text.s.str.len_chars().cast(pl.Int64), pl.lit(None, pl.Int64)
    )
    return _where(absent, from_text, _int64(length)), checks


# -- distinct-value rules: claim types and labels --------------------------------------------


def _python_text(cell: Cell) -> pl.Series:
    """``str(value)`` per row for the kinds a text rule reads (Python's own formatting)."""
    text = _where(cell.kind == STR, cell.s, pl.lit(None, pl.String))
    text = _where(cell.is_kind(INT, BIG), cell.s, text)
    text = _where(cell.kind == BOOL, _where(cell.i == 1, pl.lit("True"), pl.lit("False")), text)
    floats = cell.kind == FLOAT
    if bool(floats.any()):
        text = _where(floats, _map_distinct(cell.f, repr), text)
    return text


def _map_distinct(series: pl.Series, function: Callable[[Any], str | None]) -> pl.Series:
    """Apply a Python function to the distinct values only (a vocabulary, not the rows)."""
    distinct = series.drop_nulls().unique()
    mapped = pl.Series([function(v) for v in distinct.to_list()], dtype=pl.String)
    return series.replace_strict(distinct, mapped, default=None, return_dtype=pl.String)


def _per_distinct(text: pl.Series, function: Callable[[pl.Series], pl.Series]) -> pl.Series:
    """``function`` of a text column (row by row, null for null) computed on the distinct
    values only and mapped back to the rows: labels and claim types are a small vocabulary."""
    distinct = text.drop_nulls().unique()
    if 2 * len(distinct) > len(text):
        return function(text)
    mapped = function(distinct)
    if not len(distinct):
        return constant(None, len(text), mapped.dtype)
    return text.replace_strict(distinct, mapped, default=None, return_dtype=mapped.dtype)


def _casefold(text: pl.Series) -> pl.Series:
    """``str.casefold()``: Polars lower-casing for ASCII, Python's casefold for the rest."""
    lowered = text.str.to_lowercase()
    foreign = text.str.contains(r"[^\x00-\x7f]").fill_null(False)
    if not bool(foreign.any()):
        return lowered
    return _where(foreign, _map_distinct(text, str.casefold), lowered)


def _claim_type_text(text: pl.Series) -> pl.Series:
    return (
        _casefold(text.str.strip_chars(whitespace()))
        .str.replace_all(r"[^a-z0-9_.-]+", "-")
        .str.strip_chars("-")
    )


def _claim_type_ok(normal: pl.Series) -> pl.Series:
    return normal.str.contains(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def claim_type_rule(cell: Cell) -> tuple[pl.Series, list[Check]]:
    """The claim-type rule: a bounded, normalised label or ``""``."""
    none = (cell.kind == ABSENT) | ((cell.kind == STR) & (cell.s == "")).fill_null(False)
    text = _python_text(cell)
    other = ~none & ~cell.is_kind(STR, INT, BIG, BOOL, FLOAT)
    if bool(other.any()):
        text = _where(other, _python_str(cell, other), text)
    normal = _per_distinct(text, _claim_type_text)
    ok = _per_distinct(normal, _claim_type_ok).fill_null(False)
    return _where(none, pl.lit(""), normal), [(~none & ~ok, Problem.CLAIM_TYPE)]


def _python_str(cell: Cell, rows: pl.Series) -> pl.Series:
    """``str(value)`` of nested and foreign values (Python's own text; caller ``__str__``
    runs here, and what it raises is the contract's input error)."""
    index = rows.arg_true()
    out = constant(None, len(rows), pl.String)
    texts: list[str] = []
    broken = False
    try:
        texts = [str(v) for v in python_values(cell, index)]
    except Exception:  # raised by a caller object's __str__
        broken = True
    if broken:
        raise fail("citation-support input cannot be normalized", "input")
    return out.scatter(index, pl.Series(texts, dtype=pl.String)) if len(index) else out


def _label_text(text: pl.Series) -> pl.Series:
    key = (
        _casefold(text.str.strip_chars(whitespace()))
        .str.replace_all(r"[^a-z0-9]+", "_")
        .str.strip_chars("_")
    )
    return key.replace_strict(LABEL_SPELLINGS, default=None, return_dtype=pl.String)


def _normal_label(cell: Cell) -> tuple[pl.Series, pl.Series, pl.Series]:
    """One label value: the label, rows that are not strings, rows that are unsupported."""
    text = _where(cell.kind == STR, cell.s, pl.lit(None, pl.String))
    label = _per_distinct(text, _label_text)
    label = _where(
        cell.kind == BOOL, _where(cell.i == 1, pl.lit("supports"), pl.lit("irrelevant")), label
    )
    not_string = cell.present & ~cell.is_kind(STR, BOOL)
    unsupported = (cell.kind == STR) & label.is_null()
    return label, not_string, unsupported


def label_rule(cells: dict[str, Cell], n: int) -> tuple[pl.Series, list[Check]]:
    """The label rule (§3.7): label keys, boolean flags, conflicts; null = no label."""
    checks: list[Check] = []
    collected: list[pl.Series] = []
    for key in LABEL_KEYS:
        if key not in cells:
            continue
        label, not_string, unsupported = _normal_label(cells[key])
        # the first bad key decides, so a key's two checks sit together in key order
        checks.append((not_string, Problem.LABEL_NOT_STRING))
        checks.append((unsupported, Problem.LABEL_UNSUPPORTED))
        collected.append(label)
    flags_present = constant(False, n, pl.Boolean)
    false_targets: list[pl.Series] = []
    for key, target in FLAG_KEYS:
        if key not in cells:
            continue
        flag = cells[key]
        # a flag key holding None is present (and not a boolean) in a Python mapping
        keyed = flag.present if flag.keyed is None else flag.keyed
        flags_present = flags_present | keyed
        checks.append((keyed & (flag.kind != BOOL), Problem.FLAG_NOT_BOOL))
        is_bool = flag.kind == BOOL
        collected.append(_where(is_bool & (flag.i == 1), pl.lit(target), pl.lit(None, pl.String)))
        false_targets.append(
            _where(is_bool & (flag.i == 0), pl.lit(target), pl.lit(None, pl.String))
        )
    if not collected:
        return constant(None, n, pl.String), checks
    first = pl.select(pl.coalesce(collected)).to_series()
    conflict = constant(False, n, pl.Boolean)
    for column in collected:
        conflict = conflict | (column.is_not_null() & (column != first)).fill_null(False)
    for column in false_targets:
        conflict = conflict | (column.is_not_null() & (column == first)).fill_null(False)
    checks.append((conflict, Problem.LABEL_CONFLICT))
    label = _where(first.is_null() & flags_present, pl.lit("irrelevant"), first)
    return label, checks
