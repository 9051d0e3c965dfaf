"""Reading collection inputs: table objects and data files (conventions §3).

Readers return either a ``pyarrow.Table`` (tabular files, table objects) or a plain Python
value (a ``.json`` document, or a JSON Lines file whose values the Arrow reader cannot type
exactly). They raise :class:`ReadFailure`, a private marker without a message (its ``cause``
says why); every module turns it into its own fixed, unchained error.

Nothing reaches an engine unchecked (:mod:`citelens.io._bounds`): text files are read only up
to :data:`~citelens.io.MAX_FILE_BYTES` and JSON is pre-scanned for its nesting depth before it
is parsed; every schema (Parquet, Arrow IPC, table objects) must have distinct column names and
nest at most :data:`~citelens.io.MAX_DEPTH` levels before its data is converted.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.ipc as pa_ipc
import pyarrow.parquet as pq

from citelens.io._bounds import READER_PANICS, check_json, check_schema, read_bounded
from citelens.io._csv import read_csv
from citelens.io._json import decode_utf8, loads_json
from citelens.io._jsonl import read_jsonl
from citelens.io._values import ReadFailure, drop_nulls, table_rows

# ReadFailure, drop_nulls and table_rows live in _values; they stay importable from here for
# the modules that import them from ``citelens.io._files`` (``citelens.io`` is the public face).
__all__ = [
    "DATA_SUFFIXES",
    "ReadFailure",
    "data_file_suffix",
    "drop_nulls",
    "is_table_object",
    "read_data_file",
    "read_data_frame",
    "read_table_object",
    "table_rows",
]

DATA_SUFFIXES: tuple[str, ...] = (
    ".parquet",
    ".arrow",
    ".feather",
    ".ipc",
    ".jsonl",
    ".ndjson",
    ".csv",
    ".json",
)

# What reading a malformed or missing input file raises: the file system (OSError), invalid
# UTF-8 and JSON (ValueError), nesting deeper than the interpreter allows (RecursionError),
# Python's csv module (csv.Error) and every Arrow reader (ArrowException). Anything else is a
# bug and propagates.
_UNREADABLE = (OSError, ValueError, RecursionError, csv.Error, pa.ArrowException, ReadFailure)


def data_file_suffix(value: object) -> str | None:
    """The lower-cased data-file suffix of a ``str``/``os.PathLike`` path, else ``None``."""
    if isinstance(value, str):
        name = value
    elif isinstance(value, os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:  # a caller object raised (conventions §1.2): not a data file
            return None
        if not isinstance(raw, str):
            return None
        name = raw
    else:
        return None
    lowered = name.lower()
    for suffix in DATA_SUFFIXES:
        if lowered.endswith(suffix):
            return suffix
    return None


def is_table_object(value: object) -> bool:
    """True for Arrow tables/batches, Polars frames and any ``__arrow_c_stream__`` object."""
    if isinstance(value, pa.Table | pa.RecordBatch):
        return True
    module = type(value).__module__
    if module.startswith("polars") and type(value).__name__ == "DataFrame":
        return True
    try:
        return callable(getattr(type(value), "__arrow_c_stream__", None))
    except Exception:  # a caller class whose attribute lookup raises is no table object
        return False


def _table_of(value: object, limit: int | None) -> pa.Table:
    if isinstance(value, pa.Table):
        return value
    if isinstance(value, pa.RecordBatch):
        return pa.Table.from_batches([value])
    if type(value).__module__.startswith("polars") and hasattr(value, "to_arrow"):
        table: pa.Table = value.to_arrow()
        return table
    reader = pa.RecordBatchReader.from_stream(value)
    batches: list[pa.RecordBatch] = []
    seen = 0
    for batch in reader:
        batches.append(batch)
        seen += batch.num_rows
        if limit is not None and seen > limit:
            break  # limit + 1 rows seen: the rest of the stream is never consumed
    return pa.Table.from_batches(batches, schema=reader.schema)


def read_table_object(value: object, limit: int | None = None) -> pa.Table:
    """Read a table object; a stream is read only until ``limit + 1`` rows have been seen."""
    failed = False
    table: pa.Table | None = None
    try:
        table = _table_of(value, limit)
    except Exception:  # the caller's object raised while read (conventions §1.2)
        failed = True
    if failed or not isinstance(table, pa.Table):
        raise ReadFailure()
    # repeated names or too deep a nesting: refused before any engine converts the table
    check_schema(table.schema)
    if limit is not None and table.num_rows > limit + 1:
        table = table.slice(0, limit + 1)
    return table


def _read_ipc(path: Path) -> pa.Table:
    """The Arrow IPC file format (Feather v2); if that fails, the IPC stream format."""
    table: pa.Table | None = None
    try:
        with pa_ipc.open_file(path) as file_reader:
            check_schema(file_reader.schema)
            table = file_reader.read_all()
    except pa.ArrowInvalid:  # not the file format: the stream format is also accepted
        table = None
    if table is not None:
        return table
    with pa_ipc.open_stream(path) as stream_reader:
        check_schema(stream_reader.schema)
        return stream_reader.read_all()


def _read(target: Path, suffix: str) -> pa.Table | Any:
    if not target.is_file():
        raise ReadFailure()
    if suffix == ".parquet":
        # ParquetFile reads the one file without the dataset layer (which imports pandas)
        with pq.ParquetFile(target) as parquet:
            check_schema(parquet.schema_arrow)
            return parquet.read()
    if suffix in (".arrow", ".feather", ".ipc"):
        return _read_ipc(target)
    data = read_bounded(target)
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(data)
    if suffix == ".csv":
        return read_csv(data)
    check_json(data, lines=False)  # nesting bounded before json.loads recurses into it
    return loads_json(decode_utf8(data))


def read_data_file(path: object, limit: int | None = None) -> pa.Table | Any:
    """Read a data file by its suffix. Tables come back as Arrow, ``.json`` as Python values.

    CSV columns are all text (empty cell = null); modules type the columns their contract
    types (:func:`citelens.io.type_csv_columns`). ``limit`` caps the rows taken from a table
    at ``limit + 1``. A missing, unreadable or malformed file raises :class:`ReadFailure`;
    so does a file beyond a bound of :mod:`citelens.io._bounds` (``cause`` names which).
    """
    suffix = data_file_suffix(path)
    if suffix is None:
        raise ReadFailure()
    target = Path(os.fspath(path))  # type: ignore[call-overload]
    cause: str | None = None
    result: Any = None
    try:
        result = _read(target, suffix)
    except ReadFailure as refused:  # a bound or a rule of citelens refused the file
        cause = refused.cause
    except UnicodeError:  # invalid UTF-8 in a text format (conventions §3)
        cause = "encoding"
    except _UNREADABLE:  # the readers of the input refused it (conventions §3)
        cause = "unreadable"
    if cause is not None:
        raise ReadFailure(cause)
    if isinstance(result, pa.Table) and limit is not None and result.num_rows > limit + 1:
        result = result.slice(0, limit + 1)
    return result


# -- Parquet straight into Polars ----------------------------------------------------------------

# What reading a Parquet file with Polars' own reader may raise; the file is then read by the
# Arrow reader, as every other file, so that what is accepted and refused stays Arrow's. A
# panic of Polars' reader is its refusal of a hostile file (an input, not a bug of citelens).
_POLARS_REFUSED: tuple[type[BaseException], ...] = (
    pl.exceptions.PolarsError,
    OSError,
    ValueError,
    *READER_PANICS,
)


_PLAIN_TYPES = (
    pa.types.is_string,
    pa.types.is_large_string,
    pa.types.is_string_view,
    pa.types.is_integer,
    pa.types.is_boolean,
    pa.types.is_float32,
    pa.types.is_float64,
)


def _plain_type(dtype: pa.DataType) -> bool:
    return any(bool(test(dtype)) for test in _PLAIN_TYPES)


def _polars_readable(schema: pa.Schema) -> bool:
    """True when Polars' reader gives exactly the frame ``pl.from_arrow`` gives of the Arrow
    reader's table: distinct names, text, integer, boolean and float columns and lists of them.
    Every other schema (dictionaries, temporal, decimal, binary, structs, nested lists,
    extension types, null columns) keeps the Arrow reader."""
    if not schema.names:
        return False
    try:
        check_schema(schema)
    except ReadFailure:  # repeated names or too deep: the Arrow reader refuses the file
        return False
    for field in schema:
        dtype = field.type
        if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
            dtype = dtype.value_type
        if not _plain_type(dtype):
            return False
    return True


def _parquet_frame(target: Path) -> pl.DataFrame | None:
    """The Parquet file as a Polars frame read by Polars (no Arrow table in between: about
    half the memory), or ``None`` when it is for the Arrow reader (see _polars_readable)."""
    try:
        schema = pq.read_schema(target) if target.is_file() else None
    except _UNREADABLE:  # the Arrow reader decides (and refuses) below
        schema = None
    if schema is None:
        return None
    if not _polars_readable(schema):
        return None
    try:
        return pl.read_parquet(
            target, glob=False, hive_partitioning=False, credential_provider=None
        )
    except _POLARS_REFUSED:  # e.g. invalid UTF-8: the Arrow reader decides
        return None


def read_data_frame(path: object, limit: int | None = None) -> pl.DataFrame | pa.Table | Any:
    """:func:`read_data_file`, except that a Parquet file of plain columns comes back as a
    Polars frame read by Polars (the same frame as ``pl.from_arrow`` of the Arrow table)."""
    if data_file_suffix(path) == ".parquet":
        frame = _parquet_frame(Path(os.fspath(path)))  # type: ignore[call-overload]
        if frame is not None:
            if limit is not None and frame.height > limit + 1:
                frame = frame.slice(0, limit + 1)
            return frame
    return read_data_file(path, limit)
