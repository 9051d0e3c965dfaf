"""Reading minimality collections (minimality.md §6 "Collections", conventions §3).

A collection argument becomes either a list of records or a ``pyarrow.Table``; both become
kind-tagged columns (:mod:`~._cells`) — tables column by column (:mod:`~._arrow_frame`),
records through the thin record adapter (:mod:`~._records`), tables with nested values too —
and the one set of field rules (:mod:`~._tables`) turns those into the columns of
:mod:`~._columns`. Which adapter reads a table depends on its schema only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from citelens.io._files import (
    ReadFailure,
    data_file_suffix,
    read_data_file,
)
from citelens.io._files import drop_nulls as _drop_nulls
from citelens.io._refusal import describe
from citelens.io._values import is_table_object, read_table_object
from citelens.minimality._columns import CitationColumns, ClaimColumns
from citelens.minimality._records import (
    MISSING,
    citations_from_records,
    claims_from_records,
    field_value,
)
from citelens.minimality._rules import error
from citelens.minimality._tables import CSV_METADATA, citations_from_table, claims_from_table
from citelens.minimality._types import ClaimCitation, MinimalityClaim

__all__ = [
    "parse_citations",
    "parse_claims",
    "resolve_collection",
    "table_records",
]

# --------------------------------------------------------------------------- collections


def _table_of(value: object, label: str, limit: int, *, is_file: bool) -> pa.Table | Any:
    refused: ReadFailure | None = None
    result: Any = None
    try:
        result = read_data_file(value, limit) if is_file else read_table_object(value, limit)
    except ReadFailure as exc:
        refused = exc
    if refused is not None:
        kind = "file" if is_file else "table"
        failure = error(f"{label} {kind} could not be read", "input")
        if is_file:  # why the reader refused it, as fixed text (citelens.io.describe)
            failure.detail = describe(refused, label)
        raise failure
    return result


def _mark_csv(table: pa.Table) -> pa.Table:
    """Mark a CSV table: its start/end cells are typed per cell by the readers (§6)."""
    metadata = dict(table.schema.metadata or {})
    metadata[CSV_METADATA] = b"1"
    return table.replace_schema_metadata(metadata)


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
    except Exception:  # a caller iterable that is not iterable or raises (§6 Collections)
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
    if isinstance(value, MinimalityClaim | ClaimCitation):
        return [value]
    if is_table_object(value):
        return _bounded(_table_of(value, label, limit, is_file=False), limit, strict)
    suffix = data_file_suffix(value)
    if suffix is not None:
        content = _table_of(value, label, limit, is_file=True)
        if isinstance(content, pa.Table):
            if suffix == ".csv":
                content = _mark_csv(content)
            return _bounded(content, limit, strict)
        value = _drop_nulls(content)
    elif isinstance(value, os.PathLike):
        raise error(f"{label} file type is not supported", "input")
    if isinstance(value, Mapping):
        inner = field_value(value, label)
        if inner is MISSING:
            return [value]
        # An unwrapped collection is read like any other (a mapping is iterated).
        value = inner
        if isinstance(value, MinimalityClaim | ClaimCitation):
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
    except (pa.ArrowException, ValueError, OverflowError):  # input Arrow cannot convert
        failed = True
    if failed:
        raise error(f"{label} table could not be read", "input")
    return rows


# --------------------------------------------------------------------------- entry points


def parse_claims(records: list[Any] | pa.Table) -> ClaimColumns:
    """Claims → columns: tables whole-column, other records through the record adapter."""
    if isinstance(records, pa.Table):
        columns = claims_from_table(records)
        if columns is not None:
            return columns
        records = table_records(records, "claims")
    return claims_from_records(records)


def parse_citations(records: list[Any] | pa.Table) -> CitationColumns:
    """Citations → columns: tables whole-column, other records through the record adapter."""
    if isinstance(records, pa.Table):
        columns = citations_from_table(records)
        if columns is not None:
            return columns
        records = table_records(records, "citations")
    return citations_from_records(records)
