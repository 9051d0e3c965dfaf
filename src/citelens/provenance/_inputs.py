"""The four input tables of the provenance check, from records, table objects, files or a
corpus directory, conformed to the importers' schemas (:mod:`citelens.importers._tables`)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from citelens.errors import ProvenanceError
from citelens.importers._tables import CITATIONS_SCHEMA, EVIDENCE_SCHEMA, SOURCES_SCHEMA
from citelens.io import ReadFailure, describe
from citelens.io._files import read_data_frame

__all__ = ["ROLES", "Tables", "batches", "conform", "corpus_refs", "corpus_scans", "tables_of"]

ROLES = ("citations", "evidence", "sources")
"""The tables the check reads (``claims`` is accepted and not read: no claim field matters)."""

_SCHEMAS = {"citations": CITATIONS_SCHEMA, "evidence": EVIDENCE_SCHEMA, "sources": SOURCES_SCHEMA}
_REQUIRED = {
    "citations": ("claim_id", "evidence_id"),
    "evidence": ("evidence_id",),
    "sources": ("source_id", "text"),
}
ONE_DOCUMENT = "document"
"""The ``document_ref`` of rows that carry none (the one-document form)."""

_NOT_ACCESSIBLE = "provenance input is not accessible"
_COLUMNS = "provenance input does not have the expected columns"
_UNREADABLE = "provenance input could not be read"

Tables = dict[str, pl.DataFrame]


def _to_frame(value: object, role: str) -> pl.DataFrame:
    """One collection argument as a Polars frame (conventions §3: tables, then paths, then
    sequences of mappings)."""
    if isinstance(value, pl.LazyFrame):
        value = value.collect()
    if isinstance(value, pl.DataFrame):
        return value
    if isinstance(value, pa.RecordBatch):
        value = pa.Table.from_batches([value])
    if not isinstance(value, pa.Table) and hasattr(value, "__arrow_c_stream__"):
        value = pa.table(value)
    if isinstance(value, str | os.PathLike):
        refused: ReadFailure | None = None
        try:
            value = read_data_frame(value)
        except ReadFailure as exc:
            refused = exc
        if refused is not None:
            raise ProvenanceError(_UNREADABLE, "input", describe(refused, role))
        if isinstance(value, pl.DataFrame):
            return value
        if isinstance(value, list):
            return _records(value, role)
    if isinstance(value, pa.Table):
        frame = pl.from_arrow(value)
        assert isinstance(frame, pl.DataFrame)
        return frame
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return _records(value, role)
    raise ProvenanceError(f"{role} must be a table or a collection of records", "collection")


def _records(values: Sequence[object], role: str) -> pl.DataFrame:
    if not all(isinstance(v, Mapping) for v in values):
        raise ProvenanceError(f"{role} must be a table or a collection of records", "collection")
    schema = _SCHEMAS[role]
    present = {k for row in values for k in row if k in schema}  # type: ignore[attr-defined]
    wanted = {name: dtype for name, dtype in schema.items() if name in present}
    rows = [{k: v for k, v in row.items() if k in wanted} for row in values]  # type: ignore[attr-defined]
    failed = False
    frame = pl.DataFrame()
    try:
        frame = pl.DataFrame(rows, schema=wanted, strict=False)
    except (TypeError, ValueError, pl.exceptions.PolarsError):  # a value of the wrong kind
        failed = True
    if failed:
        raise ProvenanceError(_COLUMNS, "record")
    return frame


def conform(frame: pl.DataFrame, role: str, *, one_document: bool) -> pl.DataFrame:
    """``frame`` with exactly the columns of its schema (absent ones null), cast; without a
    ``document_ref`` column (``one_document`` only) every row is :data:`ONE_DOCUMENT`."""
    schema = _SCHEMAS[role]
    missing = [name for name in _REQUIRED[role] if name not in frame.columns]
    if "document_ref" not in frame.columns and not one_document:
        missing.append("document_ref")
    if missing:
        raise ProvenanceError(_COLUMNS, "input")
    columns = []
    for name, dtype in schema.items():
        if name == "document_ref" and one_document:
            known = pl.col(name).cast(dtype, strict=True) if name in frame.columns else None
            fill = pl.lit(ONE_DOCUMENT, dtype=pl.String)
            columns.append((fill if known is None else known.fill_null(fill)).alias(name))
        elif name in frame.columns:
            columns.append(pl.col(name).cast(dtype, strict=True))
        else:
            columns.append(pl.lit(None, dtype=dtype).alias(name))
    failed = False
    result = frame
    try:
        result = frame.select(columns)
    except pl.exceptions.PolarsError:  # a column that does not cast: the input's type
        failed = True
    if failed:
        raise ProvenanceError(_COLUMNS, "input")
    return result


def tables_of(
    citations: object, evidence: object, sources: object, *, one_document: bool
) -> Tables:
    """The three tables read and conformed."""
    given = {"citations": citations, "evidence": evidence, "sources": sources}
    return {
        role: conform(_to_frame(value, role), role, one_document=one_document)
        for role, value in given.items()
    }


def corpus_scans(directory: object) -> dict[str, pl.LazyFrame]:
    """Lazy scans of ``DIR/<role>.parquet`` (or a directory ``DIR/<role>/`` of Parquet files)
    for every role of :data:`ROLES`."""
    if not isinstance(directory, str | os.PathLike):
        raise ProvenanceError(_NOT_ACCESSIBLE, "input")
    root = Path(os.fspath(directory))
    scans: dict[str, pl.LazyFrame] = {}
    for role in ROLES:
        single, folder = root / f"{role}.parquet", root / role
        try:
            target = single if single.is_file() else folder if folder.is_dir() else None
        except (OSError, ValueError):  # a path the OS refuses
            target = None
        if target is None:
            raise ProvenanceError(_NOT_ACCESSIBLE, "input", f"{role} file not found")
        pattern = target if target.is_file() else target / "**" / "*.parquet"
        scans[role] = pl.scan_parquet(pattern, hive_partitioning=False)
    return scans


def corpus_refs(scans: dict[str, pl.LazyFrame]) -> list[Any]:
    """The sorted distinct ``document_ref`` values the citations name."""
    failed = False
    refs: list[Any] = []
    try:
        refs = (
            scans["citations"]
            .select(pl.col("document_ref").cast(pl.String))
            .unique()
            .sort("document_ref")
            .collect()
            .get_column("document_ref")
            .drop_nulls()
            .to_list()
        )
    except (OSError, pl.exceptions.PolarsError):  # an unreadable or malformed file
        failed = True
    if failed:
        raise ProvenanceError(_UNREADABLE, "input")
    return refs


def batches(
    scans: dict[str, pl.LazyFrame], refs: list[Any], batch_documents: int
) -> Iterator[tuple[int, Tables]]:
    """The corpus ``batch_documents`` documents at a time (contiguous ranges of the sorted
    ``refs``: Parquet row-group statistics skip the rest), conformed, with the number of
    documents of each batch."""
    for first in range(0, len(refs), batch_documents):
        low, high = refs[first], refs[min(first + batch_documents, len(refs)) - 1]
        chosen = pl.col("document_ref").is_between(pl.lit(low), pl.lit(high), closed="both")
        tables: Tables = {}
        for role, scan in scans.items():
            frame: pl.DataFrame | None = None
            try:
                frame = scan.filter(chosen).collect()
            except (OSError, pl.exceptions.PolarsError):  # an unreadable or malformed file
                frame = None
            if frame is None:
                raise ProvenanceError(_UNREADABLE, "input")
            tables[role] = conform(frame, role, one_document=False)
        yield min(first + batch_documents, len(refs)) - first, tables
