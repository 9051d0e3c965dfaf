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

from citelens.io._bounds import READER_PANICS, check_json, check_schema
from citelens.io._compressed import FileKind, file_kind, read_text_file
from citelens.io._csv import read_csv
from citelens.io._json import decode_utf8, loads_json
from citelens.io._jsonl import read_jsonl
from citelens.io._refusal import Refused, opened
from citelens.io._values import ReadFailure, drop_nulls, table_rows

# ReadFailure, drop_nulls and table_rows live in _values; they stay importable from here for
# the modules that import them from ``citelens.io._files`` (``citelens.io`` is the public face).
__all__ = [
    "DATA_SUFFIXES",
    "ReadFailure",
    "data_file_kind",
    "data_file_suffix",
    "drop_nulls",
    "read_data_file",
    "read_data_frame",
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
    ".tsv",
    ".json",
)
"""The data-file formats by name; each text format (``.jsonl``, ``.ndjson``, ``.csv``,
``.tsv``, ``.json``) may also end in ``.gz`` or ``.zst``."""

# What reading a malformed or missing input file raises: the file system (OSError), invalid
# UTF-8 and JSON (ValueError), nesting deeper than the interpreter allows (RecursionError),
# Python's csv module (csv.Error) and every Arrow reader (ArrowException). Anything else is a
# bug and propagates.
_UNREADABLE = (OSError, ValueError, RecursionError, csv.Error, pa.ArrowException, ReadFailure)


def _name_of(value: object) -> str | None:
    """The path text of a ``str``/``os.PathLike`` value, else ``None``."""
    if isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:  # a caller object raised (conventions §1.2): not a data file
            return None
        return raw if isinstance(raw, str) else None
    return None


def data_file_kind(value: object) -> FileKind | None:
    """The :class:`FileKind` of a ``str``/``os.PathLike`` data-file path, else ``None``."""
    name = _name_of(value)
    return None if name is None else file_kind(name)


def data_file_suffix(value: object) -> str | None:
    """The lower-cased format suffix of a ``str``/``os.PathLike`` data-file path, else
    ``None``: a compressed file gives its format's (``claims.jsonl.gz`` is ``.jsonl``) and a
    TSV file ``.csv`` (it reads as CSV with a tab)."""
    kind = data_file_kind(value)
    return None if kind is None else kind.suffix


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


def _read_binary(target: Path, suffix: str) -> pa.Table:
    """A Parquet or Arrow IPC file; whatever its reader refuses is ``parquet``/``arrow``."""
    reason: str | None = None
    table: pa.Table | None = None
    try:
        if suffix == ".parquet":
            # ParquetFile reads the one file without the dataset layer (which imports pandas)
            with pq.ParquetFile(target) as parquet:
                check_schema(parquet.schema_arrow)
                table = parquet.read()
        else:
            table = _read_ipc(target)
    except ReadFailure:  # a bound of citelens.io (its reason is kept by the caller)
        raise
    except _UNREADABLE:  # the format's reader refused the bytes (the file itself was opened)
        reason = "parquet" if suffix == ".parquet" else "arrow"
    if reason is not None or table is None:
        raise Refused(reason or "arrow")
    return table


def _read(target: Path, kind: FileKind) -> pa.Table | Any:
    opened(target)
    if kind.suffix in (".parquet", ".arrow", ".feather", ".ipc"):
        return _read_binary(target, kind.suffix)
    data = read_text_file(target, kind.compression)
    if kind.suffix in (".jsonl", ".ndjson"):
        return read_jsonl(data)
    if kind.suffix == ".csv":
        return read_csv(data) if kind.delimiter == "," else read_csv(data, kind.delimiter)
    check_json(data, lines=False)  # nesting bounded before json.loads recurses into it
    return loads_json(decode_utf8(data))


def _refusal(exc: BaseException, kind: FileKind) -> ReadFailure:
    """The :class:`ReadFailure` to raise for what reading a file of ``kind`` raised."""
    if isinstance(exc, Refused):
        return Refused(exc.reason, exc.line)
    if isinstance(exc, ReadFailure):
        if exc.cause == "size" and kind.suffix in (".jsonl", ".ndjson"):
            return Refused("line_size")  # whole files are refused as Refused("size")
        if exc.cause in ("depth", "columns", "encoding"):
            return Refused(exc.cause)
        return ReadFailure(exc.cause)
    if isinstance(exc, UnicodeError):  # invalid UTF-8 in a text format (conventions §3)
        return Refused("encoding")
    if kind.suffix == ".csv":
        return Refused("csv")
    if kind.suffix == ".json":
        return Refused("json")
    return ReadFailure("unreadable")


def read_data_file(path: object, limit: int | None = None) -> pa.Table | Any:
    """Read a data file by its name. Tables come back as Arrow, ``.json`` as Python values.

    CSV and TSV columns are all text (empty cell = null); modules type the columns their
    contract types (:func:`citelens.io.type_csv_columns`). Text formats may be gzip or zstd
    compressed (:mod:`citelens.io._compressed`). ``limit`` caps the rows taken from a table
    at ``limit + 1``. A missing, unreadable or malformed file raises :class:`ReadFailure`;
    so does a file beyond a bound of :mod:`citelens.io._bounds` (``cause`` names which). It
    is a :class:`~citelens.io._refusal.Refused` when the reason is known more precisely
    (:func:`~citelens.io.describe` words it).
    """
    kind = data_file_kind(path)
    if kind is None:
        raise Refused("type")
    target = Path(os.fspath(path))  # type: ignore[call-overload]
    failure: ReadFailure | None = None
    result: Any = None
    try:
        result = _read(target, kind)
    except _UNREADABLE as exc:  # a bound, a rule of citelens or a reader refused the file
        failure = _refusal(exc, kind)
    if failure is not None:
        raise failure
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
