"""CSV, read and typed once for every capability (conventions §3, support-metrics.md §4.2,
summary-citations.md §4.3, minimality.md §6).

Reading: RFC 4180 (comma, ``"`` quoting; TSV the same with a tab), UTF-8 with an optional
BOM, fully empty lines skipped, a repeated header name or a ragged row makes the file
unreadable, no header row is zero records. Every cell is text and an empty cell is null.

Typing: a contract types some columns. A cell of an integer column that is a base-10 integer
(ASCII digits with an optional ``-``, or ``+``/``-`` where the contract allows it) becomes an
int64; a cell of a boolean column that is ``true``/``false`` (any case) becomes a bool. A typed
cell that does not parse keeps its text. The cell rules are Polars expressions
(:func:`integer_cells`, :func:`boolean_cells`) used as whole columns by
:func:`type_csv_columns` and by the lazy corpus scan alike.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
from collections.abc import Collection
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from citelens.io import _bounds
from citelens.io._compressed import open_text_file
from citelens.io._json import decode_utf8
from citelens.io._refusal import Refused
from citelens.io._values import ReadFailure, drop_nulls

__all__ = [
    "boolean_cells",
    "csv_header",
    "integer_cells",
    "read_csv",
    "stage_csv",
    "type_csv_columns",
]

_SIGNED = r"[+-]?[0-9]+"
_NEGATIVE = r"-?[0-9]+"


# RFC 4180 with quoted line breaks; fully empty lines are skipped (Arrow's default).
_PARSE = pa_csv.ParseOptions(newlines_in_values=True)
# Errors of Arrow's CSV reader on malformed content (a ragged row, invalid UTF-8, a bad
# quote) and of the file system.
_UNREADABLE = (pa.ArrowInvalid, OSError)


def _text_cells(header: list[str]) -> pa_csv.ConvertOptions:
    """Every cell text, an empty cell (quoted or not) null."""
    return pa_csv.ConvertOptions(
        column_types={name: pa.string() for name in header},
        strings_can_be_null=True,
        quoted_strings_can_be_null=True,
        null_values=[""],
    )


def read_csv(data: bytes, delimiter: str = ",") -> pa.Table:
    """The CSV file ``data`` as an all-text Arrow table (empty cell = null); ``delimiter``
    ``"\t"`` reads TSV (the same rules, a tab between fields).

    Malformed content raises ``ValueError`` (Arrow's ``ArrowInvalid``, invalid UTF-8),
    ``csv.Error``, or :class:`ReadFailure` for a repeated header name."""
    text = decode_utf8(data)
    lines = [line for line in text.splitlines() if line != ""]
    if not lines:
        return pa.table({})
    header = csv_header(lines[0], delimiter)
    return pa_csv.read_csv(
        io.BytesIO(text.encode("utf-8")),
        read_options=pa_csv.ReadOptions(use_threads=False),
        parse_options=_parse(delimiter),
        convert_options=_text_cells(header),
    )


def _parse(delimiter: str) -> pa_csv.ParseOptions:
    """RFC 4180 parsing with ``delimiter`` between fields."""
    return (
        _PARSE
        if delimiter == ","
        else pa_csv.ParseOptions(newlines_in_values=True, delimiter=delimiter)
    )


def stage_csv(
    path: Path,
    header: list[str],
    target: Path,
    block_bytes: int,
    *,
    delimiter: str = ",",
    compression: str | None = None,
) -> None:
    """Read the CSV file ``path`` block by block into the Parquet file ``target``, by the
    rules of :func:`read_csv` (all-text cells, empty cell null; ``delimiter`` ``"\t"`` for
    TSV): one row group per block of about ``block_bytes``, so memory follows one block, not
    the file.

    A row longer than a block (Arrow's reader cannot split one) is read again with blocks
    sixteen times larger, up to the whole file but never beyond a block that holds a row of
    :data:`~citelens.io.MAX_LINE_BYTES` (a longer row: :class:`ReadFailure`, cause ``size``,
    so memory stays bounded by one block). ``header`` is the file's header row as
    :func:`csv_header` read it (checked by the caller); a file whose header Arrow reads
    otherwise, or whose content is malformed, raises :class:`ReadFailure` (``target`` may
    then be left for the caller to remove).

    A ``compression`` (``gzip``, ``zstd``) is undone first, as a stream, into a plain copy
    beside ``target`` (removed once staged) by :func:`citelens.io._compressed.open_text_file`,
    so its decompressed bound and its refusals (:class:`Refused`: ``gzip``, ``zstd``,
    ``decompressed``, ``zstd_missing``) apply; Arrow's reader then reads a plain file, as for
    an uncompressed input (a Python stream failing inside Arrow's reader can abort the
    interpreter at exit)."""
    if compression is None:
        _stage_plain(path, header, target, block_bytes, delimiter)
        return
    source = target.with_name(f"{target.name}.source")
    try:
        _decompress(path, compression, source)
        _stage_plain(source, header, target, block_bytes, delimiter)
    finally:
        source.unlink(missing_ok=True)


def _decompress(path: Path, compression: str, target: Path) -> None:
    """Write the decompressed bytes of ``path`` to ``target``, a piece at a time."""
    with open_text_file(path, compression) as stream, target.open("wb") as out:
        while piece := stream.read(_COPY_BYTES):
            out.write(piece)


# Decompressed bytes copied per step.
_COPY_BYTES = 4 * 1024 * 1024


def _stage_plain(
    path: Path, header: list[str], target: Path, block_bytes: int, delimiter: str
) -> None:
    """:func:`stage_csv` of an uncompressed file."""
    cause: str | None = None
    # one pass at a block size (a comma's pass is the plain four-argument call)
    passes = _stage_blocks if delimiter == "," else partial(_stage_blocks, delimiter=delimiter)
    try:
        size = path.stat().st_size
        largest = max(block_bytes, min(_bounds.MAX_LINE_BYTES + 1, _MAX_BLOCK_BYTES))
        while not passes(path, header, target, block_bytes):
            if block_bytes > size:
                raise ReadFailure()
            if block_bytes >= largest:  # a row beyond the line bound
                raise ReadFailure("size")
            block_bytes = min(block_bytes * 16, size + 1, largest)
    except ReadFailure as refused:
        cause = refused.cause
    except _UNREADABLE:  # Arrow refused the content: invalid UTF-8, or malformed CSV
        cause = "encoding" if not _utf8_file(path) else "csv"
    if cause is not None:
        # a staged row beyond the bound is a line too long (the file itself is not bounded)
        reason = {"size": "line_size", "encoding": "encoding", "csv": "csv"}.get(cause)
        raise Refused(reason) if reason is not None else ReadFailure(cause)


def _utf8_file(path: Path) -> bool:
    """Whether the file is valid UTF-8, decoded a block at a time (only after Arrow refused
    it, to tell the two causes apart without reading Arrow's message)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as handle:
            while block := handle.read(4 * 1024 * 1024):
                decoder.decode(block)
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    except OSError:  # unreadable now: not a question of encoding
        return True
    return True


# Arrow's CSV block size is an int32.
_MAX_BLOCK_BYTES = 2**31 - 1


def _stage_blocks(
    path: Path, header: list[str], target: Path, block_bytes: int, delimiter: str = ","
) -> bool:
    """One staging pass; False when a row straddles two blocks (retry with larger ones)."""
    try:
        reader = pa_csv.open_csv(
            path,
            read_options=pa_csv.ReadOptions(use_threads=False, block_size=block_bytes),
            parse_options=_parse(delimiter),
            convert_options=_text_cells(header),
        )
        schema = pa.schema([pa.field(name, pa.string()) for name in header])
        if not reader.schema.equals(schema):
            raise ReadFailure()
        with pq.ParquetWriter(target, schema) as writer:
            for batch in reader:
                if batch.num_rows:
                    writer.write_batch(batch)
    except pa.ArrowInvalid as error:
        if "straddl" in str(error) and block_bytes < _MAX_BLOCK_BYTES:
            return False  # Arrow's message for a row longer than the block
        raise
    return True


def csv_header(line: str, delimiter: str = ",") -> list[str]:
    """The column names of a CSV (or, with ``delimiter`` ``"\t"``, TSV) header line; a
    repeated name makes the file unreadable (:class:`ReadFailure`; engines would silently
    rename it). Raises ``csv.Error`` for a malformed line."""
    header = next(csv.reader([line], delimiter=delimiter), [])
    if len(set(header)) != len(header):
        raise ReadFailure("columns")
    return header


def integer_cells(cells: pl.Expr, *, plus_sign: bool = False) -> pl.Expr:
    """Each text cell as a base-10 int64; null where the cell is null, is not an integer
    (``plus_sign`` allows a leading ``+``) or lies outside int64."""
    pattern = f"^{_SIGNED if plus_sign else _NEGATIVE}$"
    return (
        pl.when(cells.str.contains(pattern)).then(cells.str.to_integer(strict=False)).cast(pl.Int64)
    )


def boolean_cells(cells: pl.Expr) -> pl.Expr:
    """Each text cell ``true``/``false`` (any case) as a bool; null for any other cell."""
    lowered = cells.str.to_lowercase()
    # The result keeps the name of ``cells`` (the ``then`` branch names it).
    return pl.when(lowered.is_in(["true", "false"])).then(lowered == "true")


def _is_text(data_type: pa.DataType) -> bool:
    return bool(pa.types.is_string(data_type) or pa.types.is_large_string(data_type))


def type_csv_columns(
    table: pa.Table,
    integer_columns: Collection[str],
    boolean_columns: Collection[str] = (),
    *,
    plus_sign: bool = False,
    int64_only: bool = False,
) -> pa.Table | list[dict[str, Any]]:
    """Type the text columns a contract types; every other column stays as it is.

    Args:
        table: an all-text table from :func:`read_csv`.
        integer_columns: names whose cells are parsed as base-10 integers.
        boolean_columns: names whose cells are parsed as ``true``/``false``.
        plus_sign: accept a leading ``+`` (support-metrics.md §4.2; summary citations and
            minimality accept ``-`` only).
        int64_only: an integer cell beyond int64 keeps its text (support); otherwise it
            becomes a Python ``int`` of any size (summary citations, minimality).

    Returns:
        The table with the typed columns as int64/bool when every non-null cell of them
        parses. A column that mixes parsed and unparsed cells cannot be one Arrow column:
        then the rows as Python records (nulls dropped), each typed cell converted alone.
    """
    ints = [n for n in table.column_names if n in integer_columns]
    bools = [n for n in table.column_names if n in boolean_columns and n not in ints]
    ints = [n for n in ints if _is_text(table.schema.field(n).type)]
    bools = [n for n in bools if _is_text(table.schema.field(n).type)]
    if not ints and not bools:
        return table
    frame = pl.from_arrow(table.select(ints + bools))
    assert isinstance(frame, pl.DataFrame)
    typed = frame.select(
        *(integer_cells(pl.col(n), plus_sign=plus_sign).alias(n) for n in ints),
        *(boolean_cells(pl.col(n)).alias(n) for n in bools),
    )
    untyped = frame.select(
        (pl.col(n).is_not_null() & typed[n].is_null()).any().alias(n) for n in ints + bools
    )
    if not any(untyped.row(0)):
        for name in ints + bools:
            table = table.set_column(table.column_names.index(name), name, typed[name].to_arrow())
        return table
    return _typed_rows(table, frame, typed, ints, plus_sign=plus_sign, int64_only=int64_only)


def _typed_rows(
    table: pa.Table,
    frame: pl.DataFrame,
    typed: pl.DataFrame,
    ints: list[str],
    *,
    plus_sign: bool,
    int64_only: bool,
) -> list[dict[str, Any]]:
    """The rows of a table whose typed columns mix parsed and unparsed cells (a defective
    file: the contract rejects it at the first row whose cell kept its text)."""
    integer = re.compile(_SIGNED if plus_sign else _NEGATIVE)
    rows: list[dict[str, Any]] = table.to_pylist()
    for name in frame.columns:
        texts = frame[name].to_list()
        values = typed[name].to_list()
        if name in ints and not int64_only:
            # A parsed cell is None only where it lay outside int64: convert it exactly.
            values = [
                int(t) if v is None and t is not None and integer.fullmatch(t) else v
                for v, t in zip(values, texts)
            ]
        for row, value, text in zip(rows, values, texts):
            row[name] = text if value is None else value
    return [drop_nulls(row) for row in rows]
