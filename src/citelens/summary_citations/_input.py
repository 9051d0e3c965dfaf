"""Argument coercion for summary citations (summary-citations.md §4.1–§4.4, §3 bounds).

A claims or evidence argument becomes either a flat Arrow table (normalised column-wise later)
or a list of Python records (read by the record walker). Failures raise private markers that
carry no message; the public module turns them into fixed, unchained errors.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from citelens.io import check_json, decode_utf8, file_kind, jsonl_values, read_text_file
from citelens.io._files import (
    ReadFailure,
    data_file_suffix,
    drop_nulls,
    read_data_file,
)
from citelens.io._values import is_table_object
from citelens.io._values import read_table_object as _read_table_object
from citelens.summary_citations._keys import DIRECT_SPAN_KEYS, HINT_KEYS
from citelens.summary_citations._schema import flat_claims_ok, flat_evidence_ok

__all__ = ["Coerced", "InputProblem", "coerce", "table_rows", "type_csv_offsets"]

_INT_TEXT = re.compile(r"-?[0-9]+")


class InputProblem(Exception):
    """Private marker: ``kind`` names the fixed message suffix; no input value is kept."""

    def __init__(self, kind: str, refused: ReadFailure | None = None) -> None:
        super().__init__()
        self.kind = kind
        # why a reader refused the file (a cause and a line number, never a value): the
        # error's detail (citelens.io.describe)
        self.refused = refused


@dataclass
class Coerced:
    """Either a flat table or a list of records (never both)."""

    table: pa.Table | None
    records: list[Any] | None

    @property
    def count(self) -> int:
        """Number of records."""
        if self.table is not None:
            return int(self.table.num_rows)
        return len(self.records or ())

    def __repr__(self) -> str:
        return f"Coerced(<{self.count} records>)"


def table_rows(table: pa.Table, source: str) -> list[Any]:
    """The rows of a table as Python records (§4.4, null rule applied).

    A conversion failure is Arrow failing on the caller's data: it becomes the marker
    ``source`` (``table`` or ``file``), the contract's fixed error for it.
    """
    rows: list[Any] = []
    ok = True
    try:
        rows = [drop_nulls(row) for row in table.to_pylist(maps_as_pydicts="lossy")]
    except (pa.ArrowException, ValueError, OverflowError):  # Arrow cannot convert the data
        ok = False
    if not ok:
        raise InputProblem(source)
    return rows


def _fits_int64(col: pa.ChunkedArray) -> bool:
    # Digits after the sign and leading zeros: 18 always fit an int64; longer texts may not,
    # and they take the exact row path (Python ints) instead.
    digits = pc.utf8_ltrim(pc.utf8_ltrim(col, characters="-"), characters="0")
    longest = pc.max(pc.utf8_length(digits)).as_py()
    return longest is None or longest <= 18


def type_csv_offsets(table: pa.Table) -> pa.Table | list[Any]:
    """CSV typing (§4.3): offset cells matching ``-?[0-9]+`` become ints, others stay text.

    Columns where every cell matches are cast column-wise; a mixed column makes the whole
    table Python rows (typed cell by cell) for the record walker.
    """
    names = [n for n in table.column_names if n in DIRECT_SPAN_KEYS]
    if not names:
        return table
    for name in names:
        col = table.column(name)
        if col.null_count == len(col):
            continue
        matches = pc.match_substring_regex(col, r"^-?[0-9]+$")
        if not pc.all(pc.fill_null(matches, True)).as_py() or not _fits_int64(col):
            break
        typed = pc.cast(col, pa.int64())
        table = table.set_column(table.column_names.index(name), name, typed)
    else:
        return table
    rows = table_rows(table, "file")
    for row in rows:
        for name in names:
            cell = row.get(name)
            if isinstance(cell, str) and _INT_TEXT.fullmatch(cell):
                row[name] = int(cell)
    return rows


def _has_temporal(data_type: pa.DataType) -> bool:
    if pa.types.is_temporal(data_type):
        return True
    if pa.types.is_struct(data_type):
        return any(_has_temporal(data_type.field(i).type) for i in range(data_type.num_fields))
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return _has_temporal(data_type.value_type)
    return False


def _jsonl_values(path: Any) -> list[Any]:
    """JSON Lines read as Python values (§4.3), used when Arrow's reader typed a string
    column as a timestamp (Arrow infers timestamps from ISO-like strings): the readers' own
    bounded read, pre-scan and line decoding (:mod:`citelens.io`)."""
    values: list[Any] = []
    failed = False
    refused: ReadFailure | None = None
    try:
        target = Path(os.fspath(path))
        kind = file_kind(target.name)
        data = read_text_file(target, None if kind is None else kind.compression)
        check_json(data, lines=True)
        values = jsonl_values(decode_utf8(data))
    except ReadFailure as exc:  # a bound or rule of the readers, with its reason
        refused = exc
    except (OSError, ValueError, RecursionError):  # unreadable or bad JSON
        failed = True
    if failed or refused is not None:
        raise InputProblem("file", refused)
    return values


def _from_table(table: pa.Table, limit: int, claims: bool, source: str) -> Coerced:
    if table.num_rows > limit:
        raise InputProblem("limit")
    flat = flat_claims_ok(table.schema) if claims else flat_evidence_ok(table.schema)
    if flat:
        return Coerced(table, None)
    return Coerced(None, table_rows(table, source))


def _from_mapping(value: Mapping[Any, Any], limit: int, claims: bool) -> list[Any]:
    hinted = False
    entries: list[tuple[Any, Any]] = []
    ok = True
    try:
        for key, item in value.items():
            if item is not None and str(key) in HINT_KEYS:
                hinted = True
                break
        if not hinted:
            for key, item in value.items():
                entries.append((key, item))
                if len(entries) > limit:
                    break
    except Exception:  # a caller mapping raised while read (§4.5: input is not accessible)
        ok = False
    if not ok:
        raise InputProblem("access")
    if hinted:
        return [value]
    if len(entries) > limit:
        raise InputProblem("limit")
    records: list[Any] = []
    try:
        for key, item in entries:
            if isinstance(item, Mapping):
                record = dict(item.items())
                if record.get("id") is None:
                    record["id"] = key
                records.append(record)
            elif claims:
                records.append({"id": key, "claim": item})
            else:
                records.append({"id": key, "value": item})
    except Exception:  # a caller mapping raised while read (§4.5: input is not accessible)
        ok = False
    if not ok:
        raise InputProblem("access")
    return records


def _iterate(value: Any, limit: int) -> list[Any]:
    if type(value) is list or type(value) is tuple:
        # Exact lists and tuples cannot raise while iterated; bound them by length.
        if len(value) > limit:
            raise InputProblem("limit")
        return list(value)
    items: list[Any] = []
    failed = False
    try:
        iterator = iter(value)
    except Exception:  # a caller iterable (§4.2 step 6: not an iterable of records)
        failed = True
    if failed:
        raise InputProblem("collection")
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            break
        except Exception:  # a caller iterator raised (§4.2 step 6, §14 D4)
            failed = True
            break
        items.append(item)
        if len(items) > limit:
            raise InputProblem("limit")
    if failed:
        raise InputProblem("collection")
    return items


def _content(value: Any, limit: int, claims: bool) -> Coerced:
    """Coerce a decoded file's content (§4.3): never re-read as a path."""
    if value is None:
        return Coerced(None, [])
    if isinstance(value, pa.Table):
        return _from_table(value, limit, claims, "file")
    if isinstance(value, Mapping):
        return Coerced(None, _from_mapping(value, limit, claims))
    if isinstance(value, str):
        return Coerced(None, [value])
    if isinstance(value, list):
        if len(value) > limit:
            raise InputProblem("limit")
        return Coerced(None, value)
    raise InputProblem("collection")


def coerce(value: Any, limit: int, claims: bool) -> Coerced:
    """Turn one claims/evidence argument into records (§4.2), enforcing ``limit``."""
    if value is None:
        return Coerced(None, [])
    suffix = data_file_suffix(value)
    if suffix is not None:
        refused: ReadFailure | None = None
        content: Any = None
        try:
            content = read_data_file(value, limit)
        except ReadFailure as exc:
            refused = exc
        if refused is not None:
            raise InputProblem("file", refused)
        if (
            suffix in (".jsonl", ".ndjson")
            and isinstance(content, pa.Table)
            and any(_has_temporal(field.type) for field in content.schema)
        ):
            content = _jsonl_values(value)
        if suffix == ".csv" and isinstance(content, pa.Table):
            if content.num_rows > limit:
                raise InputProblem("limit")
            content = type_csv_offsets(content)
        return _content(content, limit, claims)
    if isinstance(value, os.PathLike):
        raise InputProblem("file_type")
    if is_table_object(value):
        failed = False
        table: pa.Table | None = None
        try:
            table = _read_table_object(value, limit)
        except ReadFailure:
            failed = True
        if failed or table is None:
            raise InputProblem("table")
        return _from_table(table, limit, claims, "table")
    if isinstance(value, Mapping):
        return Coerced(None, _from_mapping(value, limit, claims))
    if isinstance(value, str | bytes):
        return Coerced(None, [value])
    return Coerced(None, _iterate(value, limit))
