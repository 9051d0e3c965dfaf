"""Canonical, deterministic order of the citations of one claim (contract: ``ordering.md``).

:func:`order_citations` sorts citations by (document, section, offsets, evidence id) and makes
sure at most one of them is marked as the primary evidence. Records hold only opaque
``sha256:`` identifiers, offsets and a boolean; never text.

Every rule is one column expression shared by the typed record (a one-row table), by
:func:`order_citations` (its citations as columns) and by :func:`order_citations_table`: the
identifier rule and the offset rule are minimality's (:mod:`citelens.minimality._rules`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens._renamed import renamed
from citelens.errors import CitationOrderingError
from citelens.io._files import (
    ReadFailure,
    data_file_suffix,
    drop_nulls,
    read_data_file,
)
from citelens.io._values import is_table_object, read_table_object
from citelens.limits import Limits
from citelens.minimality._rules import identifier_mask, map_offsets, offset_problems
from citelens.minimality._tables import is_text_type
from citelens.types import PathLike, TableLike

__all__ = [
    "CITATION_ORDERING_SCHEMA_VERSION",
    "CitationOrdering",
    "CitationOrderingError",
    "OrderingCitation",
    "deprecated_name",
    "order_citations",
    "order_citations_table",
]

CITATION_ORDERING_SCHEMA_VERSION = 1
DEFAULT_CITATION_BOUND = 4096

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]
Bools = npt.NDArray[np.bool_]

_IDENTIFIER, _OFFSET, _PRIMARY, _LIMIT, _CONFLICT = 1, 2, 3, 4, 5
_ERRORS: dict[int, tuple[str, str]] = {
    _IDENTIFIER: ("invalid citation metadata identifier", "identifier"),
    _OFFSET: ("invalid citation source offset", "span"),
    _PRIMARY: ("invalid citation primary marker", "value"),
    _LIMIT: ("invalid citation collection", "limit"),
    _CONFLICT: ("conflicting citation primary markers", "reference"),
}
_TABLE_COLUMNS = (
    "claim_id",
    "document_id",
    "section",
    "source_start",
    "source_end",
    "evidence_id",
    "primary",
)
_KEY = _TABLE_COLUMNS[:-1]


def _error(code: int) -> CitationOrderingError:
    message, category = _ERRORS[code]
    return CitationOrderingError(message, category)


def _collection_error(category: str) -> CitationOrderingError:
    return CitationOrderingError("invalid citation collection", category)


# --------------------------------------------------------------------------- rules


def _ids_ok(column: pa.Array | pa.ChunkedArray) -> Bools:
    """§2 step 1 for a column: exact text matching the minimality identifier pattern."""
    if not is_text_type(column.type):
        return np.zeros(len(column), dtype=bool)
    return identifier_mask(pc.cast(column, pa.string()))


@dataclass
class _Fields:
    """The checked fields of some citations as arrays: identifier verdicts of each id
    column in order, offsets as value + kind, and non-bool markers."""

    ids_ok: list[Bools]
    start_is_int: Bools
    starts: npt.NDArray[Any] | list[int]
    end_is_int: Bools
    ends: npt.NDArray[Any] | list[int]
    bad_primary: Bools


def _int_values(column: pa.Array | pa.ChunkedArray) -> tuple[Bools, npt.NDArray[Any]]:
    if not pa.types.is_integer(column.type):
        return np.zeros(len(column), dtype=bool), np.zeros(len(column), dtype=np.int64)
    valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    filled = pc.fill_null(column, 0)
    if filled.type != pa.uint64():
        filled = pc.cast(filled, pa.int64())
    return valid, np.asarray(filled.to_numpy(zero_copy_only=False))


def _table_fields(table: pa.Table, with_claim: bool) -> _Fields:
    names: tuple[str, ...] = ("claim_id",) if with_claim else ()
    names += ("document_id", "section", "evidence_id")
    primary = table.column("primary")
    if pa.types.is_boolean(primary.type) or pa.types.is_null(primary.type):
        bad_primary = np.zeros(table.num_rows, dtype=bool)
    else:  # a non-null cell of another type is not a bool (null means False, §5)
        bad_primary = np.asarray(primary.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    start_int, starts = _int_values(table.column("source_start"))
    end_int, ends = _int_values(table.column("source_end"))
    return _Fields(
        [_ids_ok(table.column(name)) for name in names],
        start_int,
        starts,
        end_int,
        ends,
        bad_primary,
    )


def _record_fields(items: Sequence[Any]) -> _Fields:
    """Constructor values as arrays (value + kind); no rule is decided here."""
    ids_ok = []
    for name in ("document_id", "section", "evidence_id"):
        values = [getattr(c, name) for c in items]
        texts = pa.array([v if type(v) is str and v.isascii() else None for v in values])
        ids_ok.append(identifier_mask(pc.cast(texts, pa.string())))
    raw_starts = [c.source_start for c in items]
    raw_ends = [c.source_end for c in items]
    n = len(items)
    return _Fields(
        ids_ok,
        np.fromiter((type(v) is int for v in raw_starts), bool, n),
        [v if type(v) is int else 0 for v in raw_starts],
        np.fromiter((type(v) is int for v in raw_ends), bool, n),
        [v if type(v) is int else 0 for v in raw_ends],
        np.fromiter((type(c.primary) is not bool for c in items), bool, n),
    )


def _row_problems(fields: _Fields) -> I8:
    """Per row, the first failing check of §2 (identifiers, offsets, marker), in order."""
    mapped_starts, mapped_ends = map_offsets([fields.starts, fields.ends])
    offsets = (
        offset_problems(fields.start_is_int, mapped_starts, fields.end_is_int, mapped_ends) != 0
    )
    bad_ids = np.zeros(offsets.size, dtype=bool)
    for ok in fields.ids_ok:
        bad_ids |= ~ok
    code = np.where(bad_ids, _IDENTIFIER, np.where(offsets, _OFFSET, 0))
    return np.where(code == 0, np.where(fields.bad_primary, _PRIMARY, 0), code).astype(np.int8)


def _claim_problems(table: pa.Table, bound: int) -> int:
    """§3 per claim (table rows already valid, ``primary`` boolean without nulls): the first
    claim in row order whose rows exceed the bound or carry conflicting primary markers."""
    n = table.num_rows
    if n == 0:
        return 0
    claims = pc.dictionary_encode(table.column("claim_id")).combine_chunks()
    claim = np.asarray(claims.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    n_claims = len(claims.dictionary)
    count = np.bincount(claim, minlength=n_claims)
    marked = table.append_column("_claim", pa.array(claim, pa.int64()))
    grouped = marked.group_by(["_claim", *_KEY]).aggregate([("primary", "min"), ("primary", "max")])
    group_claim = np.asarray(grouped.column("_claim").to_numpy(), dtype=np.int64)
    low = np.asarray(grouped.column("primary_min").to_numpy(zero_copy_only=False), dtype=bool)
    high = np.asarray(grouped.column("primary_max").to_numpy(zero_copy_only=False), dtype=bool)
    # Two citations with one key and different markers, or two keys marked primary.
    mixed = np.bincount(group_claim, weights=low != high, minlength=n_claims) > 0
    primaries = np.bincount(group_claim, weights=high, minlength=n_claims) > 1
    per_claim = np.where(count > bound, _LIMIT, np.where(mixed | primaries, _CONFLICT, 0))
    first_row = np.full(n_claims, n, dtype=np.int64)
    np.minimum.at(first_row, claim, np.arange(n, dtype=np.int64))
    order = np.argsort(first_row, kind="stable")
    failing = order[per_claim[order] != 0]
    return int(per_claim[failing[0]]) if failing.size else 0


def _raise_first(codes: I8) -> None:
    failing = np.flatnonzero(codes)
    if failing.size:
        raise _error(int(codes[failing[0]]))


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class OrderingCitation:
    """One citation of a claim: opaque ids, a half-open source span and a primary marker
    (named apart from :class:`citelens.support.Citation`, a different record)."""

    document_id: str
    section: str
    source_start: int
    source_end: int
    evidence_id: str
    primary: bool = False

    def __post_init__(self) -> None:
        _raise_first(attempt(lambda: _row_problems(_record_fields([self]))))

    @property
    def source_offset(self) -> tuple[int, int]:
        """``(source_start, source_end)``."""
        return (self.source_start, self.source_end)

    @property
    def is_primary(self) -> bool:
        """Whether this citation is the claim's primary evidence."""
        return self.primary

    def key(self) -> tuple[str, str, int, int, str]:
        """The ordering key: document, section, start, end, evidence id."""
        return (
            self.document_id,
            self.section,
            self.source_start,
            self.source_end,
            self.evidence_id,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data in contract key order."""
        return {
            "document_id": self.document_id,
            "section": self.section,
            "source_offset": {"start": self.source_start, "end": self.source_end},
            "evidence_id": self.evidence_id,
            "primary": self.primary,
        }


def _as_table(items: Sequence[OrderingCitation]) -> pa.Table:
    """Validated citations as columns (one claim)."""
    columns: dict[str, pa.Array] = {"claim_id": pa.array([""] * len(items), pa.string())}
    for name in _TABLE_COLUMNS[1:]:
        values = [getattr(c, name) for c in items]
        kind = pa.string() if name in ("document_id", "section", "evidence_id") else None
        if name == "primary":
            kind = pa.bool_()
        columns[name] = pa.array(values, kind)
    return pa.table(columns)


def _order(citations: Any, limits: Limits | None) -> tuple[OrderingCitation, ...]:
    if limits is None:
        limits = Limits()
    if not isinstance(limits, Limits):
        raise CitationOrderingError("limits must be a Limits instance", "policy")
    bound = limits.resolve("citations", DEFAULT_CITATION_BOUND)
    if isinstance(citations, str | bytes | bytearray):
        raise _collection_error("collection")
    items: list[Any] = []
    failed = False
    over = False
    try:
        for item in citations:
            if len(items) == bound:
                over = True
                break
            items.append(item)
    except Exception:  # a caller iterable that is not iterable or raises (ordering.md §3)
        failed = True
    if failed or not all(isinstance(item, OrderingCitation) for item in items):
        raise _collection_error("collection")
    if over:
        raise _collection_error("limit")
    table = _as_table(items)
    if _claim_problems(table, bound):
        raise CitationOrderingError("conflicting citation primary markers", "reference")
    if not items:
        return ()
    indices = pc.sort_indices(table, sort_keys=[(name, "ascending") for name in _KEY[1:]])
    return tuple(items[i] for i in indices.to_pylist())


def order_citations(
    citations: Any, *, limits: Limits | None = None
) -> tuple[OrderingCitation, ...]:
    """The citations in canonical order (stable; exact duplicates kept).

    Raises :class:`CitationOrderingError` for a bad collection, more than the citation bound
    (4,096 or ``limits.citations``), or conflicting primary markers.
    """
    return attempt(lambda: _order(citations, limits))


@dataclass(frozen=True)
class CitationOrdering:
    """A value-free artifact holding one claim's citations in canonical order."""

    citations: tuple[OrderingCitation, ...]
    schema_version: int = CITATION_ORDERING_SCHEMA_VERSION

    def __post_init__(self) -> None:
        if type(self.schema_version) is not int or self.schema_version != 1:
            raise CitationOrderingError("unsupported citation ordering schema", "report")
        object.__setattr__(self, "citations", order_citations(self.citations))

    def to_dict(self) -> dict[str, Any]:
        """``{"schema_version": 1, "citations": [...]}``."""
        return {
            "schema_version": self.schema_version,
            "citations": [citation.to_dict() for citation in self.citations],
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, compact, ASCII, one trailing newline)."""
        return canonical_json(self.to_dict())


# --------------------------------------------------------------------------- table form


def _read_ordering_table(table: Any) -> pa.Table:
    result: Any = None
    failed = False
    try:
        if is_table_object(table):
            result = read_table_object(table)
        elif data_file_suffix(table) is not None:
            result = read_data_file(table)
    except ReadFailure:
        failed = True
    if not failed and result is not None and not isinstance(result, pa.Table):
        rows = drop_nulls(result)
        failed = not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows)
        if not failed:
            try:
                result = pa.Table.from_pylist(rows) if rows else pa.table({})
            except (pa.ArrowException, TypeError, ValueError, OverflowError):
                failed = True  # JSON values no single Arrow column holds: unreadable input
    if failed or not isinstance(result, pa.Table):
        raise _collection_error("input")
    return result


def _order_table(table: Any, limits: Limits | None) -> pa.Table:
    if limits is None:
        limits = Limits()
    if not isinstance(limits, Limits):
        raise CitationOrderingError("limits must be a Limits instance", "policy")
    bound = limits.resolve("citations", DEFAULT_CITATION_BOUND)
    source = _read_ordering_table(table)
    if not set(_TABLE_COLUMNS) <= set(source.column_names):
        raise _collection_error("input")
    ordered = source.select(list(_TABLE_COLUMNS))
    _raise_first(_row_problems(_table_fields(ordered, with_claim=True)))
    primary = ordered.column("primary")
    if pa.types.is_null(primary.type) or primary.null_count:
        filled = pc.fill_null(pc.cast(primary, pa.bool_()), False)
        ordered = ordered.set_column(len(_TABLE_COLUMNS) - 1, "primary", filled)
    problem = _claim_problems(ordered, bound)
    if problem:
        raise _error(problem)
    if ordered.num_rows == 0:
        return ordered
    indices = pc.sort_indices(ordered, sort_keys=[(name, "ascending") for name in _KEY])
    return ordered.take(indices)


def order_citations_table(table: TableLike | PathLike, *, limits: Limits | None = None) -> pa.Table:
    """Order the citations of many claims at once (ordering.md §5).

    ``table`` is a table object (:data:`citelens.types.TableLike`: Arrow, Polars eager or
    lazy, an Arrow dataset, a DuckDB relation, any ``__arrow_c_stream__`` object) or a path
    with the columns ``claim_id, document_id, section, source_start, source_end, evidence_id,
    primary`` (``primary`` null = ``False``). Rows are validated as :class:`OrderingCitation`
    would validate them (the first failing row raises), the citation bound applies per claim,
    and the result is the table sorted by (``claim_id``, document, section, start, end,
    evidence id) with the same columns — equal to calling :func:`order_citations` per claim.
    """
    return attempt(lambda: _order_table(table, limits))


# Old name → new name (PEP 562 aliases, with a warning).
DEPRECATED_NAMES = {"Citation": "OrderingCitation"}


def deprecated_name(module: str, name: str) -> Any:
    """The object behind a deprecated name of ``module`` (PEP 562), with a warning."""
    return renamed(module, name, DEPRECATED_NAMES, globals())


def __getattr__(name: str) -> Any:
    return deprecated_name(__name__, name)
