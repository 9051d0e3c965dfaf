"""JSON Lines, read once for every capability (conventions §3).

Lines are split on ``\\n`` and a trailing ``\\r`` is removed; blank lines (spaces, tabs and
``\\r`` only) are skipped; every other line is one JSON value. Arrow's JSON reader is used
when it types every column exactly; otherwise the values are decoded with :mod:`json`, because
an Arrow float or null column would lose the int/float or absent/null distinction and Arrow
reads ISO-date-like strings as timestamps.

Before either parser sees a byte, the file is pre-scanned (:class:`citelens.io.JsonScan`):
no line longer than :data:`~citelens.io.MAX_LINE_BYTES`, nesting at most
:data:`~citelens.io.MAX_DEPTH` levels, every line's brackets and strings closed on the line.
Only lines that are objects reach Arrow's reader (a ``null`` first line crashes it); the
values of the others follow each contract's rule for a non-object line.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.json as pa_json

from citelens.io._bounds import check_json
from citelens.io._compressed import file_kind, read_text_file
from citelens.io._json import decode_utf8, loads_json
from citelens.io._refusal import Refused
from citelens.io._values import ReadFailure, drop_nulls

__all__ = ["jsonl_records", "jsonl_table", "jsonl_values", "read_jsonl"]

# What Python's json module and the readers of the input raise on malformed input.
_MALFORMED = (ValueError, RecursionError, pa.ArrowException)
# What building one table of records raises when the values form none: lines that are not
# objects (``TypeError``), an integer beyond int64 (``OverflowError``), a column mixing types.
RECORDS_UNREADABLE = (OSError, TypeError, OverflowError, *_MALFORMED)
# A newline followed by a blank line (spaces, tabs and ``\r`` only), and a blank first line.
_BLANK_AFTER_NEWLINE = re.compile(r"\n(?=[ \t\r]*(?:\n|\Z))")
_BLANK_START = re.compile(r"[ \t\r]*(?:\n|\Z)")
# A newline followed by a line that is neither blank nor starts with an object.
_NOT_AN_OBJECT = re.compile(r"\n[ \t\r]*[^{ \t\r\n]")


def _inexact(data_type: pa.DataType) -> bool:
    """True for column types that would not round-trip the JSON values exactly: floats (the
    int/float distinction), nulls, and temporal types (Arrow reads ISO-date-like strings as
    timestamps)."""
    if (
        pa.types.is_floating(data_type)
        or pa.types.is_null(data_type)
        or pa.types.is_temporal(data_type)
    ):
        return True
    if pa.types.is_struct(data_type):
        return any(_inexact(data_type.field(i).type) for i in range(data_type.num_fields))
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return _inexact(data_type.value_type)
    return False


def jsonl_values(text: str) -> list[Any]:
    """The values of the non-blank lines of ``text``, nulls dropped from every mapping.

    A malformed line raises :class:`~citelens.io._refusal.Refused` (a ``ValueError``) naming
    the line (1-based)."""
    values: list[Any] = []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip(" \t\r"):
            continue
        malformed = False
        try:
            values.append(drop_nulls(loads_json(line)))
        except (ValueError, RecursionError):  # the line is no JSON value
            malformed = True
        if malformed:
            raise Refused("jsonl", number)
    return values


def _arrow_table(text: str) -> pa.Table | None:
    """Arrow's reading of the lines when it is exact, else ``None``."""
    # Arrow reads records only, and its reader crashes the process on a file whose first
    # line is ``null`` (pyarrow 26): a line that is not an object is left to the values.
    if _NOT_AN_OBJECT.search("\n" + text):
        return None
    failed = False
    table: pa.Table | None = None
    try:
        table = pa_json.read_json(io.BytesIO(text.encode("utf-8")))
        # Arrow's JSON reader can build an invalid list array (a list whose first item is
        # null): such a table is not Arrow's exact reading, so the values are decoded instead
        table.validate(full=True)
    except pa.ArrowException:  # not one Arrow type per column: decode the values instead
        failed = True
    if failed or table is None or any(_inexact(field.type) for field in table.schema):
        return None
    # Arrow reads values, not lines: two objects on one line, or one object spread over
    # lines, would be rows. Only a reading with one row per non-blank line is the file's.
    if table.num_rows != _non_blank_lines(text):
        return None
    return table


def _non_blank_lines(text: str) -> int:
    """How many lines of ``text`` (split on ``\\n``) are not blank."""
    blank = len(_BLANK_AFTER_NEWLINE.findall(text)) + (1 if _BLANK_START.match(text) else 0)
    return text.count("\n") + 1 - blank


def read_jsonl(data: bytes) -> pa.Table | list[Any]:
    """A JSON Lines file's content: an Arrow table when Arrow types every column exactly,
    else the list of its values. Malformed content raises ``ValueError``; content beyond a
    bound (or a line whose brackets or strings do not close) :class:`ReadFailure`."""
    check_json(data, lines=True)
    text = decode_utf8(data)
    table = _arrow_table(text)
    if table is not None:
        return table
    return jsonl_values(text)


def jsonl_records(text: str) -> pa.Table | pa.Array | None:
    """The records of JSON Lines ``text``: Arrow's reading when it is exact, else the array
    of the values of the lines typed by :func:`pyarrow.array` (one type per field, inferred
    from every line); ``None`` when no line holds a value. The caller has pre-scanned the
    text's bytes (:func:`citelens.io.check_json`).

    A struct array is a table's rows (see :func:`jsonl_table`); a null array means every line
    is ``null``. Malformed text or values that no Arrow type holds raise one of
    :data:`RECORDS_UNREADABLE`."""
    table = _arrow_table(text)
    if table is not None:
        return table
    values = jsonl_values(text)
    if not values:
        return None
    return pa.array(values)


def jsonl_table(path: object) -> pa.Table:
    """A JSON Lines file of records as one Arrow table, typed from every line (the corpus
    reader: Polars' own reader infers types from the first lines only).

    Values that no single Arrow type holds exactly (a column mixing identifiers and records,
    a line that is not an object, an integer beyond int64) cannot form a table:
    :class:`ReadFailure`, as for a file that is missing or malformed. A file without records
    is a table without rows. So is a file beyond a bound (:mod:`citelens.io._bounds`). A
    ``.gz``/``.zst`` name is decompressed first (:mod:`citelens.io._compressed`)."""
    failure: ReadFailure | None = None
    table: pa.Table | None = None
    try:
        target = Path(os.fspath(path))  # type: ignore[call-overload]
        kind = file_kind(target.name)
        data = read_text_file(target, None if kind is None else kind.compression)
        check_json(data, lines=True)
        records = jsonl_records(decode_utf8(data))
        if isinstance(records, pa.Table) and (records.num_rows or records.num_columns):
            table = records
        elif records is not None and not isinstance(records, pa.Table):
            table = pa.Table.from_struct_array(records)
        else:  # no records: no line, or only blank lines (Arrow reads those as no columns)
            table = pa.table({"document_ref": pa.array([], pa.string())})
    except Refused as refused:  # a bound or rule of citelens.io, with its reason
        failure = Refused(refused.reason, refused.line)
    except ReadFailure as refused:
        failure = ReadFailure(refused.cause)
    except UnicodeError:  # invalid UTF-8
        failure = Refused("encoding")
    except RECORDS_UNREADABLE:  # the lines' values form no one table
        failure = Refused("jsonl_table")
    if failure is not None or table is None:
        raise failure or ReadFailure()
    return table
