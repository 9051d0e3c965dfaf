"""Reading minimality collections into columns (minimality.md §6, §13 "Parsing flat tables").

Two paths give identical results and errors: an exact row-by-row parser (any Python records,
irregular tables) and a vectorised parser for flat Arrow tables (one id column, one start and
one end column, optional citation id column). The vectorised parser never raises: when it sees
anything it does not handle exactly (a null, a float, an invalid id or span), it returns
``None`` and the caller runs the row parser, which raises the exact first error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens.errors import CitationMinimalityError
from citelens.io._files import (
    ReadFailure,
    data_file_suffix,
    is_table_object,
    read_data_file,
    read_table_object,
)
from citelens.io._files import drop_nulls as _drop_nulls
from citelens.minimality._types import (
    MISSING,
    AtomicClaim,
    CitationSpan,
    ClaimCitation,
    check_identifier,
    derive_citation_id,
    error,
    read_field,
    span_from,
)

__all__ = [
    "CLAMP",
    "CitationColumns",
    "ClaimColumns",
    "parse_citations",
    "parse_claims",
    "resolve_collection",
]

I64 = npt.NDArray[np.int64]

# Offsets are clamped here before they enter int64 arrays: any text is far shorter, so a
# clamped offset still exceeds the text exactly when the original one does (§7 order kept).
CLAMP = 1 << 62

CLAIM_ID_NAMES = ("claim_id", "id")
CLAIM_SPAN_ALIASES = (
    "required_span",
    "minimal_span",
    "required_source_span",
    "minimal_source_span",
    "required_offset",
    "minimal_offset",
    "required_source_offset",
    "minimal_source_offset",
    "source_span",
    "source_offset",
    "source_offsets",
)
CLAIM_STARTS = (
    "required_start",
    "minimal_start",
    "required_source_start",
    "minimal_source_start",
    "source_start",
    "start",
)
CLAIM_ENDS = (
    "required_end",
    "minimal_end",
    "required_source_end",
    "minimal_source_end",
    "source_end",
    "end",
)
CITATION_ID_NAMES = ("citation_id", "evidence_id")
CITATION_SPAN_ALIASES = (
    "source_span",
    "citation_span",
    "citation_source_span",
    "citation_offset",
    "citation_source_offset",
    "source_offset",
    "source_offsets",
    "offset",
)
CITATION_STARTS = ("citation_start", "source_start", "start")
CITATION_ENDS = ("citation_end", "source_end", "end")
# Names SPAN_FROM reads when a record itself falls through to it.
_FALLBACK_NAMES = ("start", "source_start", "end", "source_end", "source_offset",
                   "source_offsets", "offset")  # fmt: skip

_CLAIM_NAMES = frozenset(
    CLAIM_ID_NAMES + CLAIM_SPAN_ALIASES + CLAIM_STARTS + CLAIM_ENDS + _FALLBACK_NAMES
)
_CITATION_NAMES = frozenset(
    CLAIM_ID_NAMES
    + CITATION_ID_NAMES
    + CITATION_SPAN_ALIASES
    + CITATION_STARTS
    + CITATION_ENDS
    + _FALLBACK_NAMES
)
_CSV_INT_COLUMNS = frozenset(CLAIM_STARTS + CLAIM_ENDS + CITATION_STARTS + CITATION_ENDS)
_CSV_INT = re.compile(r"-?[0-9]+")


@dataclass
class ClaimColumns:
    """Parsed claims: ids (Arrow string array), required start/end (clamped int64)."""

    claim_ids: pa.Array
    starts: I64
    ends: I64


@dataclass
class CitationColumns:
    """Parsed citations: claim ids, citation ids (given or derived), start/end (int64)."""

    claim_ids: pa.Array
    citation_ids: pa.Array
    starts: I64
    ends: I64


# --------------------------------------------------------------------------- collections


def _table_of(value: object, label: str, limit: int, *, is_file: bool) -> pa.Table | Any:
    failed = False
    result: Any = None
    try:
        result = read_data_file(value, limit) if is_file else read_table_object(value, limit)
    except ReadFailure:
        failed = True
    if failed:
        kind = "file" if is_file else "table"
        raise error(f"{label} {kind} could not be read", "input")
    return result


def _type_csv(table: pa.Table) -> pa.Table | list[Any]:
    """CSV cells of start/end columns that match ``-?[0-9]+`` become ints (§6)."""
    converted = False
    for name in table.column_names:
        if name not in _CSV_INT_COLUMNS:
            continue
        column = table.column(name)
        matches = pc.match_substring_regex(column, r"^-?[0-9]+$")
        if pc.all(pc.or_kleene(matches, pc.is_null(column))).as_py() is not False:
            cast_ok = True
            ints: Any = None
            try:
                ints = pc.cast(column, pa.int64())
            except Exception:
                cast_ok = False
            if cast_ok:
                table = table.set_column(table.column_names.index(name), name, ints)
                continue
        converted = True
    if not converted:
        return table
    rows: list[Any] = [_drop_nulls(row) for row in table.to_pylist()]
    for row in rows:
        for key, cell in list(row.items()):
            if key in _CSV_INT_COLUMNS and type(cell) is str and _CSV_INT.fullmatch(cell):
                row[key] = int(cell)
    return rows


def _bounded(items: list[Any] | pa.Table, limit: int, strict: bool) -> list[Any] | pa.Table:
    size = items.num_rows if isinstance(items, pa.Table) else len(items)
    if size > limit and strict:
        raise error("citation collection is invalid or exceeds limit", "limit")
    return items


def _iterate(value: object, limit: int, strict: bool = True) -> list[Any]:
    items: list[Any] = []
    failed = False
    over = False
    try:
        for item in value:  # type: ignore[attr-defined]
            if len(items) == limit:
                over = True
                if not strict:
                    items.append(item)
                break
            items.append(item)
    except Exception:
        failed = True
    if failed:
        raise error("citation collection is invalid or exceeds limit", "collection")
    if over and strict:
        raise error("citation collection is invalid or exceeds limit", "limit")
    return items


def resolve_collection(
    value: object, label: str, limit: int, *, strict: bool = True
) -> list[Any] | pa.Table:
    """The records of a collection argument (§6 "Collections"), bounded by ``limit``.

    Returns a list of records, or a ``pyarrow.Table`` whose rows are the records. With
    ``strict=False`` up to ``limit + 1`` records are returned instead of raising, so that a
    caller can attribute the failure to a row (batch grouping, §14).
    """
    if isinstance(value, AtomicClaim | ClaimCitation):
        return [value]
    if is_table_object(value):
        return _bounded(_table_of(value, label, limit, is_file=False), limit, strict)
    suffix = data_file_suffix(value)
    if suffix is not None:
        content = _table_of(value, label, limit, is_file=True)
        if isinstance(content, pa.Table):
            if suffix == ".csv":
                content = _type_csv(content)
            return _bounded(content, limit, strict)
        value = _drop_nulls(content)
    elif isinstance(value, os.PathLike):
        raise error(f"{label} file type is not supported", "input")
    if isinstance(value, Mapping):
        inner = read_field(value, (label,))
        if inner is MISSING:
            return [value]
        # An unwrapped collection is read like any other (a mapping is iterated).
        value = inner
        if isinstance(value, AtomicClaim | ClaimCitation):
            return [value]
        if is_table_object(value):
            return _bounded(_table_of(value, label, limit, is_file=False), limit, strict)
    if isinstance(value, str | bytes | bytearray):
        raise error(f"{label} must be an iterable of records", "collection")
    return _iterate(value, limit, strict)


def table_records(table: pa.Table, label: str) -> list[Any]:
    """The rows of a table as records (nulls dropped); failure → ``<label> table could not…``."""
    rows: list[Any] = []
    failed = False
    try:
        rows = [_drop_nulls(row) for row in table.to_pylist()]
    except Exception:
        failed = True
    if failed:
        raise error(f"{label} table could not be read", "input")
    return rows


# --------------------------------------------------------------------------- row parser


class _Plan:
    """Which alias names a plain dict of one key shape holds (cached per key shape)."""

    __slots__ = ("aliases", "citation_ids", "ends", "ids", "starts")

    def __init__(self, present: frozenset[str], claims: bool) -> None:
        def hits(names: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(name for name in names if name in present)

        self.ids = hits(CLAIM_ID_NAMES)
        self.citation_ids = () if claims else hits(CITATION_ID_NAMES)
        self.aliases = hits(CLAIM_SPAN_ALIASES if claims else CITATION_SPAN_ALIASES)
        self.starts = hits(CLAIM_STARTS if claims else CITATION_STARTS)
        self.ends = hits(CLAIM_ENDS if claims else CITATION_ENDS)


_PLANS: dict[tuple[bool, frozenset[str]], _Plan] = {}


def _plan(record: dict[Any, Any], claims: bool) -> _Plan:
    names = _CLAIM_NAMES if claims else _CITATION_NAMES
    present = frozenset(key for key in record.keys() & names if record[key] is not None)
    key = (claims, present)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 4096:
            _PLANS.clear()
        plan = _PLANS[key] = _Plan(present, claims)
    return plan


def _get(record: Any, hits: tuple[str, ...]) -> Any:
    """READ restricted to the aliases known to be present (same result as the full READ)."""
    if not hits:
        return MISSING
    if len(hits) == 1:
        return record[hits[0]]
    return read_field(record, hits)


def _generic_span(
    record: object, aliases: tuple[str, ...], starts: tuple[str, ...], ends: tuple[str, ...]
) -> CitationSpan:
    spans: list[CitationSpan] = []
    for name in aliases:
        value = read_field(record, (name,))
        if value is not MISSING:
            spans.append(span_from(value, 0))
    return _finish_span(record, spans, read_field(record, starts), read_field(record, ends))


def _finish_span(record: object, spans: list[CitationSpan], start: Any, end: Any) -> CitationSpan:
    if (start is MISSING) != (end is MISSING):
        raise error("citation spans require start and end offsets", "span")
    if start is not MISSING:
        spans.append(CitationSpan(start, end))
    if not spans:
        return span_from(record, 0)
    first = spans[0]
    for span in spans[1:]:
        if span.start != first.start or span.end != first.end:
            raise error("citation span aliases conflict", "span")
    return first


def _planned_span(record: dict[Any, Any], plan: _Plan) -> CitationSpan:
    spans = [span_from(record[name], 0) for name in plan.aliases]
    return _finish_span(record, spans, _get(record, plan.starts), _get(record, plan.ends))


def parse_claim(record: object) -> tuple[str, int, int]:
    """One claim record → ``(claim_id, start, end)`` (§6 "Claim record")."""
    if isinstance(record, AtomicClaim):
        return record.claim_id, record.required_span.start, record.required_span.end
    if type(record) is dict:
        plan = _plan(record, True)
        claim_id = _get(record, plan.ids)
        if claim_id is MISSING:
            raise error("atomic claims require an opaque claim id", "record")
        span = _planned_span(record, plan)
    else:
        claim_id = read_field(record, CLAIM_ID_NAMES)
        if claim_id is MISSING:
            raise error("atomic claims require an opaque claim id", "record")
        span = _generic_span(record, CLAIM_SPAN_ALIASES, CLAIM_STARTS, CLAIM_ENDS)
    check_identifier(claim_id)
    return claim_id, span.start, span.end


def parse_citation(record: object) -> tuple[str, str, int, int]:
    """One citation record → ``(claim_id, citation_id, start, end)`` (§6 "Citation record")."""
    if isinstance(record, ClaimCitation):
        span = record.source_span
        return record.claim_id, record.citation_id, span.start, span.end
    if type(record) is dict:
        plan = _plan(record, False)
        claim_id = _get(record, plan.ids)
        if claim_id is MISSING:
            raise error("citations require an opaque claim id", "record")
        citation_id = _get(record, plan.citation_ids)
        span = _planned_span(record, plan)
    else:
        claim_id = read_field(record, CLAIM_ID_NAMES)
        if claim_id is MISSING:
            raise error("citations require an opaque claim id", "record")
        citation_id = read_field(record, CITATION_ID_NAMES)
        span = _generic_span(record, CITATION_SPAN_ALIASES, CITATION_STARTS, CITATION_ENDS)
    check_identifier(claim_id)
    if citation_id is MISSING:
        citation_id = derive_citation_id(claim_id, span.start, span.end)
    else:
        check_identifier(citation_id)
    return claim_id, citation_id, span.start, span.end


T = TypeVar("T")


def _guard(parse: Callable[[object], T], record: object) -> T:
    """Run a record parser; a foreign exception from a caller object becomes a fixed error."""
    result: Any = None
    failed = False
    try:
        result = parse(record)
    except CitationMinimalityError:
        raise
    except Exception:
        failed = True
    if failed:
        raise error("citation record fields are invalid", "record")
    parsed: T = result
    return parsed


def _int_array(values: list[int]) -> I64:
    return np.fromiter((min(v, CLAMP) for v in values), dtype=np.int64, count=len(values))


def _claims_from_rows(records: list[Any]) -> ClaimColumns:
    ids: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for record in records:
        claim_id, start, end = _guard(parse_claim, record)
        ids.append(claim_id)
        starts.append(start)
        ends.append(end)
    return ClaimColumns(pa.array(ids, pa.string()), _int_array(starts), _int_array(ends))


def _citations_from_rows(records: list[Any]) -> CitationColumns:
    claim_ids: list[str] = []
    citation_ids: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for record in records:
        claim_id, citation_id, start, end = _guard(parse_citation, record)
        claim_ids.append(claim_id)
        citation_ids.append(citation_id)
        starts.append(start)
        ends.append(end)
    return CitationColumns(
        pa.array(claim_ids, pa.string()),
        pa.array(citation_ids, pa.string()),
        _int_array(starts),
        _int_array(ends),
    )


# --------------------------------------------------------------------------- table parser


def _single(columns: set[str], names: tuple[str, ...]) -> str | bool | None:
    """The one column among ``names`` (``None`` when none, ``False`` when several)."""
    hits = [name for name in names if name in columns]
    if len(hits) > 1:
        return False
    return hits[0] if hits else None


def is_text_type(kind: pa.DataType) -> bool:
    """Arrow string, large_string or string_view."""
    view = getattr(pa.types, "is_string_view", None)
    return bool(
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (view is not None and view(kind))
    )


def _string_column(table: pa.Table, name: str, *, nulls: bool = False) -> pa.Array | None:
    column = table.column(name)
    kind = column.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not is_text_type(kind):
        return None
    if not nulls and column.null_count:
        return None
    array = pc.cast(column, pa.string()).combine_chunks()
    if isinstance(array, pa.ChunkedArray):  # pragma: no cover - defensive
        array = array.combine_chunks()
    if not _valid_ids(array):
        return None
    return array


_HEX = np.zeros(256, dtype=bool)
_HEX[np.frombuffer(b"0123456789abcdef", dtype=np.uint8)] = True
_PREFIX = np.frombuffer(b"sha256:", dtype=np.uint8)


def _valid_ids(array: pa.Array) -> bool:
    """Every non-null value is ``sha256:`` + 64 lowercase hex (byte matrix check, no regex)."""
    values = array.drop_null() if array.null_count else array
    if len(values) == 0:
        return True
    lengths = pc.binary_length(values)
    if pc.min(lengths).as_py() != 71 or pc.max(lengths).as_py() != 71:
        return False
    if not isinstance(values, pa.StringArray):
        values = pc.cast(values, pa.string())
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)
    first = int(offsets[values.offset])
    data = np.frombuffer(values.buffers()[2], dtype=np.uint8)
    matrix = data[first : first + 71 * len(values)].reshape(len(values), 71)
    step = 1 << 16  # blocks keep the temporaries small (cache-friendly, no n×64 copies)
    for low in range(0, len(values), step):
        block = matrix[low : low + step]
        if not (bool(np.all(block[:, :7] == _PREFIX)) and bool(np.all(_HEX[block[:, 7:]]))):
            return False
    return True


def _int_column(table: pa.Table, name: str) -> I64 | None:
    column = table.column(name)
    kind = column.type
    if not pa.types.is_integer(kind) or column.null_count:
        return None
    if pa.types.is_unsigned_integer(kind) and kind.bit_width == 64:
        column = pc.min_element_wise(column, pa.scalar(CLAMP, pa.uint64()))
    values = pc.cast(column, pa.int64()).to_numpy()
    return np.minimum(np.asarray(values, dtype=np.int64), CLAMP)


def _valid_spans(starts: I64, ends: I64) -> bool:
    return bool(np.all(starts >= 0)) and bool(np.all(ends > starts))


def claims_from_table(table: pa.Table) -> ClaimColumns | None:
    """Vectorised parse of a flat claims table, or ``None`` when the row parser must decide."""
    columns = set(table.column_names) & _CLAIM_NAMES
    id_name = _single(columns, CLAIM_ID_NAMES)
    start_name = _single(columns, CLAIM_STARTS)
    end_name = _single(columns, CLAIM_ENDS)
    if not (isinstance(id_name, str) and isinstance(start_name, str)):
        return None
    if not isinstance(end_name, str):
        return None
    if columns != {id_name, start_name, end_name}:
        return None
    ids = _string_column(table, id_name)
    starts = _int_column(table, start_name)
    ends = _int_column(table, end_name)
    if ids is None or starts is None or ends is None or not _valid_spans(starts, ends):
        return None
    return ClaimColumns(ids, starts, ends)


def citations_from_table(table: pa.Table) -> CitationColumns | None:
    """Vectorised parse of a flat citations table, or ``None`` (see :func:`claims_from_table`)."""
    columns = set(table.column_names) & _CITATION_NAMES
    id_name = _single(columns, CLAIM_ID_NAMES)
    cid_name = _single(columns, CITATION_ID_NAMES)
    start_name = _single(columns, CITATION_STARTS)
    end_name = _single(columns, CITATION_ENDS)
    if not (isinstance(id_name, str) and isinstance(start_name, str)):
        return None
    if not isinstance(end_name, str) or cid_name is False:
        return None
    expected = {id_name, start_name, end_name}
    if isinstance(cid_name, str):
        expected.add(cid_name)
    if columns != expected:
        return None
    claim_ids = _string_column(table, id_name)
    starts = _int_column(table, start_name)
    ends = _int_column(table, end_name)
    if claim_ids is None or starts is None or ends is None or not _valid_spans(starts, ends):
        return None
    if isinstance(cid_name, str):
        citation_ids = _string_column(table, cid_name, nulls=True)
        if citation_ids is None:
            return None
    else:
        citation_ids = pa.nulls(len(claim_ids), pa.string())
    if citation_ids.null_count:
        missing = np.flatnonzero(citation_ids.is_null().to_numpy(zero_copy_only=False))
        given = citation_ids.to_pylist()
        claim_list = claim_ids.take(pa.array(missing)).to_pylist()
        for index, claim_id, start, end in zip(
            missing.tolist(),
            claim_list,
            starts[missing].tolist(),
            ends[missing].tolist(),
            strict=True,
        ):
            given[index] = derive_citation_id(claim_id, start, end)
        citation_ids = pa.array(given, pa.string())
    return CitationColumns(claim_ids, citation_ids, starts, ends)


# --------------------------------------------------------------------------- entry points


def parse_claims(records: list[Any] | pa.Table) -> ClaimColumns:
    """Parse claim records (vectorised for flat tables, exact row parser otherwise)."""
    if isinstance(records, pa.Table):
        fast = claims_from_table(records)
        if fast is not None:
            return fast
        records = table_records(records, "claims")
    return _claims_from_rows(records)


def parse_citations(records: list[Any] | pa.Table) -> CitationColumns:
    """Parse citation records (vectorised for flat tables, exact row parser otherwise)."""
    if isinstance(records, pa.Table):
        fast = citations_from_table(records)
        if fast is not None:
            return fast
        records = table_records(records, "citations")
    return _citations_from_rows(records)
