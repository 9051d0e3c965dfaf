"""Canonical, deterministic order of the citations of one claim (contract: ``ordering.md``).

:func:`order_citations` sorts citations by (document, section, offsets, evidence id) and makes
sure at most one of them is marked as the primary evidence. Records hold only opaque
``sha256:`` identifiers, offsets and a boolean; never text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from citelens._jsonout import canonical_json
from citelens.errors import CitationOrderingError
from citelens.limits import Limits

__all__ = [
    "CITATION_ORDERING_SCHEMA_VERSION",
    "Citation",
    "CitationOrdering",
    "CitationOrderingError",
    "order_citations",
    "order_citations_table",
]

CITATION_ORDERING_SCHEMA_VERSION = 1
DEFAULT_CITATION_BOUND = 4096

_ID_PATTERN = re.compile(r"sha256:[0-9a-f]{64}")


def _is_identifier(value: object) -> bool:
    return type(value) is str and len(value) == 71 and _ID_PATTERN.fullmatch(value) is not None


@dataclass(frozen=True)
class Citation:
    """One citation of a claim: opaque ids, a half-open source span and a primary marker."""

    document_id: str
    section: str
    source_start: int
    source_end: int
    evidence_id: str
    primary: bool = False

    def __post_init__(self) -> None:
        for value in (self.document_id, self.section, self.evidence_id):
            if not _is_identifier(value):
                raise CitationOrderingError("invalid citation metadata identifier", "identifier")
        start, end = self.source_start, self.source_end
        if type(start) is not int or type(end) is not int or not 0 <= start < end:
            raise CitationOrderingError("invalid citation source offset", "span")
        if type(self.primary) is not bool:
            raise CitationOrderingError("invalid citation primary marker", "value")

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


def _collection_error(category: str) -> CitationOrderingError:
    return CitationOrderingError("invalid citation collection", category)


def order_citations(citations: Any, *, limits: Limits | None = None) -> tuple[Citation, ...]:
    """The citations in canonical order (stable; exact duplicates kept).

    Raises :class:`CitationOrderingError` for a bad collection, more than the citation bound
    (4,096 or ``limits.citations``), or conflicting primary markers.
    """
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
    except Exception:
        failed = True
    if failed or not all(isinstance(item, Citation) for item in items):
        raise _collection_error("collection")
    if over:
        raise _collection_error("limit")
    markers: dict[tuple[str, str, int, int, str], bool] = {}
    for citation in items:
        key = citation.key()
        previous = markers.setdefault(key, citation.primary)
        if previous != citation.primary:
            raise CitationOrderingError("conflicting citation primary markers", "reference")
    if sum(1 for primary in markers.values() if primary) > 1:
        raise CitationOrderingError("conflicting citation primary markers", "reference")
    return tuple(sorted(items, key=Citation.key))


@dataclass(frozen=True)
class CitationOrdering:
    """A value-free artifact holding one claim's citations in canonical order."""

    citations: tuple[Citation, ...]
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


_TABLE_COLUMNS = (
    "claim_id",
    "document_id",
    "section",
    "source_start",
    "source_end",
    "evidence_id",
    "primary",
)


def _read_ordering_table(table: Any, bound: int) -> pa.Table:
    from citelens.io._files import (
        ReadFailure,
        data_file_suffix,
        is_table_object,
        read_data_file,
        read_table_object,
    )

    failed = False
    result: Any = None
    try:
        if is_table_object(table):
            result = read_table_object(table)
        elif data_file_suffix(table) is not None:
            result = read_data_file(table)
            if not isinstance(result, pa.Table):
                rows = _drop_nulls(result)
                if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                    raise ReadFailure()
                result = pa.Table.from_pylist(rows) if rows else pa.table({})
        else:
            raise ReadFailure()
    except Exception:
        failed = True
    if failed:
        raise _collection_error("input")
    assert isinstance(result, pa.Table)
    del bound
    return result


def _drop_nulls(value: Any) -> Any:
    from citelens.io._files import drop_nulls

    return drop_nulls(value)


def order_citations_table(table: Any, *, limits: Limits | None = None) -> pa.Table:
    """Order the citations of many claims at once (ordering.md §5).

    ``table`` is an Arrow/Polars table, any ``__arrow_c_stream__`` object or a data-file path
    with the columns ``claim_id, document_id, section, source_start, source_end, evidence_id,
    primary`` (``primary`` null = ``False``). Rows are validated as :class:`Citation` would
    validate them (the first failing row raises), the citation bound applies per claim, and
    the result is the table sorted by (``claim_id``, document, section, start, end, evidence
    id) with the same columns — equal to calling :func:`order_citations` per claim.
    """
    if limits is None:
        limits = Limits()
    if not isinstance(limits, Limits):
        raise CitationOrderingError("limits must be a Limits instance", "policy")
    bound = limits.resolve("citations", DEFAULT_CITATION_BOUND)
    source = _read_ordering_table(table, bound)
    if not set(_TABLE_COLUMNS) <= set(source.column_names):
        raise _collection_error("input")
    ordered = source.select(list(_TABLE_COLUMNS))
    if ordered.num_rows and ordered.column("primary").null_count:
        primary = ordered.column("primary")
        if pa.types.is_null(primary.type):
            primary = pa.chunked_array([pa.array([None] * len(primary), pa.bool_())])
        filled = pc.fill_null(primary, False)
        ordered = ordered.set_column(len(_TABLE_COLUMNS) - 1, "primary", filled)
    if not _clean_table(ordered, bound):
        _validate_rows(source, bound)
    if ordered.num_rows == 0:
        return ordered
    indices = pc.sort_indices(
        ordered, sort_keys=[(name, "ascending") for name in _TABLE_COLUMNS[:-1]]
    )
    return ordered.take(indices)


def _clean_table(table: pa.Table, bound: int) -> bool:
    """Vectorised check that no row or claim breaks a rule (``False`` → exact row path)."""
    from citelens.minimality._parse import _valid_ids

    if table.num_rows == 0:
        return True
    try:
        for name in ("claim_id", "document_id", "section", "evidence_id"):
            column = table.column(name)
            if not pa.types.is_string(column.type) or column.null_count:
                return False
            if not _valid_ids(column.combine_chunks()):
                return False
        starts, ends = table.column("source_start"), table.column("source_end")
        for column in (starts, ends):
            if not pa.types.is_integer(column.type) or column.null_count:
                return False
        if not pa.types.is_boolean(table.column("primary").type):
            return False
        if pc.min(starts).as_py() < 0 or not pc.all(pc.less(starts, ends)).as_py():
            return False
        per_claim = table.group_by("claim_id").aggregate([("claim_id", "count")])
        if pc.max(per_claim.column("claim_id_count")).as_py() > bound:
            return False
        keys = list(_TABLE_COLUMNS[:-1])
        grouped = table.group_by(keys).aggregate([("primary", "min"), ("primary", "max")])
        if not pc.all(
            pc.equal(grouped.column("primary_min"), grouped.column("primary_max"))
        ).as_py():
            return False
        marked = grouped.filter(grouped.column("primary_max"))
        if marked.num_rows:
            per = marked.group_by("claim_id").aggregate([("claim_id", "count")])
            if pc.max(per.column("claim_id_count")).as_py() > 1:
                return False
    except Exception:
        return False
    return True


def _validate_rows(source: pa.Table, bound: int) -> None:
    """Exact row-by-row rules (raises the first failing row's or claim's error)."""
    rows: list[dict[str, Any]] = []
    failed = False
    try:
        rows = source.select(list(_TABLE_COLUMNS)).to_pylist()
    except Exception:
        failed = True
    if failed:
        raise _collection_error("input")
    # Row validation in table order (exactly as Citation would), then per-claim rules.
    first_row: dict[str, int] = {}
    counts: dict[str, int] = {}
    for index, row in enumerate(rows):
        claim_id = row["claim_id"]
        if not _is_identifier(claim_id):
            raise CitationOrderingError("invalid citation metadata identifier", "identifier")
        primary = row["primary"]
        Citation(
            row["document_id"],
            row["section"],
            row["source_start"],
            row["source_end"],
            row["evidence_id"],
            False if primary is None else primary,
        )
        first_row.setdefault(claim_id, index)
        counts[claim_id] = counts.get(claim_id, 0) + 1
    markers: dict[tuple[Any, ...], bool] = {}
    conflicted: set[str] = set()
    primaries: dict[str, set[tuple[Any, ...]]] = {}
    for row in rows:
        key = (row["claim_id"], row["document_id"], row["section"], row["source_start"],
               row["source_end"], row["evidence_id"])  # fmt: skip
        primary = bool(row["primary"])
        if markers.setdefault(key, primary) != primary:
            conflicted.add(row["claim_id"])
        if primary:
            primaries.setdefault(row["claim_id"], set()).add(key)
    conflicted |= {claim for claim, keys in primaries.items() if len(keys) > 1}
    for claim_id in sorted(first_row, key=first_row.__getitem__):
        if counts[claim_id] > bound:
            raise _collection_error("limit")
        if claim_id in conflicted:
            raise CitationOrderingError("conflicting citation primary markers", "reference")
