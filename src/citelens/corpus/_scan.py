"""Corpus ingest: lazy scans of files, directories (hive partitions) and tables keyed by
``document_ref``; schema checks that name the role and column; batch planning.

The scans hand no hostile file to Polars: the schema of every Parquet and Arrow IPC file is
read by Arrow first and checked by :func:`citelens.io.check_schema` (distinct column names,
nesting within :data:`citelens.io.MAX_DEPTH`; Polars panics on two IPC columns of one name
and crashes on deep types), as are the schemas of the caller's tables; JSON Lines and CSV go
through the bounded readers of :mod:`citelens.io`, as do TSV and the gzip/zstd forms of the
text formats (``claims.jsonl.gz``, ``evidence.tsv.zst``: decompressed as a stream under the
decompressed bound; a directory may mix plain and compressed files of one format). A Polars
panic while a scan reads the files is the reader refusing them: ``<role> input could not be
read``, like any unreadable input.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.ipc as pa_ipc
import pyarrow.parquet as pq

from citelens.corpus._staging import staged_csv, staged_jsonl
from citelens.errors import CorpusError
from citelens.io import (
    READER_PANICS,
    FileKind,
    ReadFailure,
    _bounds,
    boolean_cells,
    check_schema,
    csv_header,
    decode_utf8,
    file_kind,
    integer_cells,
    jsonl_table,
)
from citelens.io._compressed import open_text_file
from citelens.io._refusal import Refused, describe, opened
from citelens.io._values import is_table_object, table_object_frame
from citelens.support._fields import CSV_BOOLEAN_COLUMNS, CSV_INTEGER_COLUMNS

DOC = "_d"
# The format of a data file (FileKind.suffix: ``.tsv`` is ``.csv`` with a tab) -> the reader
# of the corpus mode. ``.json`` (one document) is no corpus format.
_READERS = {
    ".parquet": "parquet",
    ".arrow": "ipc",
    ".feather": "ipc",
    ".ipc": "ipc",
    ".jsonl": "ndjson",
    ".ndjson": "ndjson",
    ".csv": "csv",
}
# Columns the support contract types (§4.2): checked up front so that a malformed corpus
# fails with the role and column named, before any document is evaluated.
_INTEGER_COLUMNS = CSV_INTEGER_COLUMNS
_BOOLEAN_COLUMNS = CSV_BOOLEAN_COLUMNS
_DEFAULT_BATCH_DOCUMENTS = 20_000

# What the engines raise while reading a malformed, missing or mismatched input (checked per
# class: a parse error, an empty file, files of one role whose schemas disagree, the file
# system, Arrow's readers, a staged CSV file that cannot be read, a Polars reader's panic on
# a hostile file that the schema checks did not foresee: these queries only read the role's
# files, so a panic in them is the reader refusing the input). Any other exception is a bug
# and propagates, so that the public entry point reports it as an internal error instead of
# blaming the input.
_UNREADABLE: tuple[type[BaseException], ...] = (
    pl.exceptions.ComputeError,
    pl.exceptions.NoDataError,
    pl.exceptions.SchemaError,
    OSError,
    pa.ArrowException,
    ReadFailure,
    *READER_PANICS,
)
_HEADER_UNREADABLE: tuple[type[BaseException], ...] = (csv.Error, UnicodeDecodeError, *_UNREADABLE)


def _fail(message: str, category: str, detail: str | None = None) -> CorpusError:
    return CorpusError(message, category, detail)


def _unreadable(role: str, refused: BaseException | None = None) -> CorpusError:
    """``<role> input could not be read``; when a reader said why (a :class:`ReadFailure`),
    that reason as the error's fixed detail (``claims file not found``)."""
    detail = describe(refused, role) if isinstance(refused, ReadFailure) else None
    return _fail(f"{role} input could not be read", "input", detail)


# -- loading ---------------------------------------------------------------------------------


def _checked(files: list[Path], kind: str) -> list[Path]:
    """``files`` once Arrow has read each one's schema and :func:`citelens.io.check_schema`
    accepted it (a file Arrow cannot open raises ``ArrowException``/``OSError``): only then
    may Polars scan them. A column name that is not UTF-8 (Arrow decodes the names when the
    file is opened or the schema read) is an unreadable input too: :class:`ReadFailure`."""
    for file in files:
        reason: str | None = None
        try:
            check_schema(pq.read_schema(file) if kind == "parquet" else _ipc_schema(file))
        except UnicodeDecodeError:  # a name in the file's metadata is not UTF-8 (issue 10)
            reason = "encoding"
        except ReadFailure as refused:  # repeated names, too deep a nesting
            reason = refused.cause
        except (OSError, pa.ArrowException):  # Arrow cannot open the bytes as the format
            reason = "parquet" if kind == "parquet" else "arrow"
        if reason is not None:
            raise Refused(reason)
    return files


def _ipc_schema(file: Path) -> pa.Schema:
    """The schema of an Arrow IPC file (file format, else stream format)."""
    try:
        with pa_ipc.open_file(file) as reader:
            return reader.schema
    except pa.ArrowInvalid:  # not the file format: the stream format is also accepted
        pass
    with pa_ipc.open_stream(file) as stream:
        return stream.schema


def _corpus_kind(name: str) -> tuple[str, FileKind] | None:
    """The corpus reader of a file named ``name`` (``parquet``, ``ipc``, ``ndjson``, ``csv``
    or ``tsv``) and its kind (delimiter, compression), else ``None`` (no corpus format)."""
    kind = file_kind(name)
    if kind is None or kind.suffix not in _READERS:
        return None
    reader = _READERS[kind.suffix]
    return ("tsv" if reader == "csv" and kind.delimiter != "," else reader), kind


def _engine_readable(files: list[Path], reader: str) -> bool:
    """False when Arrow or Polars would be handed a path that is not UTF-8 (a file name of
    undecodable bytes, which Python keeps as lone surrogates): their readers cannot encode it
    (``UnicodeEncodeError``), so such an input is unreadable. JSON Lines, and any compressed
    file (decompressed into a staged copy of a fixed name), are read by Python, which opens
    any path."""
    if reader == "ndjson":
        return True
    try:
        for file in files:
            kind = file_kind(file.name)
            if kind is None or kind.compression is None:
                str(file).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _scan_path(path: Path, role: str) -> pl.LazyFrame:
    """A lazy scan of a file or a directory of files (hive partitioning allowed)."""
    if path.is_dir():
        found = {p: _corpus_kind(p.name) for p in path.rglob("*") if p.is_file()}
        kinds = {p: k for p, k in found.items() if k is not None}
        files = sorted(kinds)
        if not files:
            raise _fail(f"{role} input could not be read", "input")
        readers = {reader for reader, _ in kinds.values()}
        if len(readers) != 1:  # one format per role (plain and compressed may mix)
            raise _fail(f"{role} input could not be read", "input")
        reader = readers.pop()
        if not _engine_readable(files, reader):
            raise _fail(f"{role} input could not be read", "input")
        if reader == "parquet":
            files = _checked(files, reader)
            return pl.scan_parquet(files, hive_partitioning=False).pipe(_with_hive, files, path)
        if reader == "ipc":
            return pl.scan_ipc(_checked(files, reader)).pipe(_with_hive, files, path)
        if reader == "ndjson":
            return pl.concat([_jsonl(p, role) for p in files], how="diagonal_relaxed")
        return pl.concat([_csv(p, role, kinds[p][1]) for p in files], how="diagonal_relaxed")
    opened(path)  # missing, a special file, not readable: Refused with its reason
    single = _corpus_kind(path.name)
    if single is None:
        raise Refused("type")
    reader, kind = single
    if not _engine_readable([path], reader):
        raise _fail(f"{role} input could not be read", "input")
    if reader == "parquet":
        return pl.scan_parquet(_checked([path], reader)[0])
    if reader == "ipc":
        return pl.scan_ipc(_checked([path], reader)[0])
    if reader == "ndjson":
        return _jsonl(path, role)
    return _csv(path, role, kind)


def _csv(path: Path, role: str, kind: FileKind) -> pl.LazyFrame:
    """A lazy CSV (or TSV) scan, every cell text, staged block by block as Parquet when the
    scan is made (:func:`citelens.corpus._staging.staged_csv`: memory follows one block and
    one batch; a compressed file is decompressed as a stream). The header is checked first by
    the one CSV header rule of :mod:`citelens.io` (Polars would rename a repeated name
    silently). A file without a header row has no columns."""
    failed: BaseException | None = None
    header: list[str] = []
    try:
        header = csv_header(decode_utf8(_first_line(path, kind.compression)), kind.delimiter)
    except UnicodeDecodeError:  # the header line is not UTF-8
        failed = Refused("encoding")
    except Refused as refused:  # not openable, corrupt or beyond the decompressed bound
        failed = refused
    except ReadFailure as refused:  # too long, or a repeated name
        failed = Refused("line_size") if refused.cause == "size" else refused
    except _HEADER_UNREADABLE:  # the header line is malformed
        failed = Refused("csv")
    if failed is not None:
        raise _unreadable(role, failed)
    if not header:  # no header row: nothing to stage (the schema check reports it)
        # a compressed file holds only empty lines then: scanned as the empty text it is
        source: Path | io.BytesIO = path if kind.compression is None else io.BytesIO(b"")
        return pl.scan_csv(source, infer_schema=False)
    return staged_csv(path, header, kind)


def _first_line(path: Path, compression: str | None) -> bytes:
    """The first line of ``path`` that is not empty (without its BOM and line end), read at
    most :data:`citelens.io.MAX_LINE_BYTES` at a time: a longer line is refused
    (:class:`citelens.io.ReadFailure`, cause ``size``) without being read whole. A compressed
    file is decompressed as it is read (only as far as that line)."""
    with open_text_file(path, compression) as handle:
        first = True
        while True:
            raw = handle.readline(_bounds.MAX_LINE_BYTES + 1)
            if len(raw) > _bounds.MAX_LINE_BYTES and not raw.endswith(b"\n"):
                raise ReadFailure("size")
            line = raw.rstrip(b"\r\n")
            if first:
                line = line.removeprefix(b"\xef\xbb\xbf")  # the BOM, not a line
                first = False
            if line or not raw:  # the header is the first line that is not empty
                return line


def _jsonl(path: Path, role: str) -> pl.LazyFrame:
    """A JSON Lines file staged block by block as Parquet and scanned lazily, typed from every
    line as :func:`citelens.io.jsonl_table` types the whole file (Polars' own reader infers
    from the first lines only). Values that no single Arrow type holds exactly cannot form a
    corpus table. A schema Parquet cannot hold (records without fields) is read whole."""
    failed: BaseException | None = None
    frame: pl.LazyFrame | pl.DataFrame | pl.Series | None = None
    try:
        frame = staged_jsonl(path)
        if frame is None:
            frame = pl.from_arrow(jsonl_table(path))
    except _UNREADABLE as exc:
        failed = exc
    if failed is not None or not isinstance(frame, pl.LazyFrame | pl.DataFrame):
        raise _unreadable(role, failed)
    return frame.lazy()


def _with_hive(frame: pl.LazyFrame, files: list[Path], root: Path) -> pl.LazyFrame:
    """Add hive partition columns (``key=value`` folders) as strings, file by file."""
    keys = [part.split("=", 1) for part in files[0].relative_to(root).parts[:-1] if "=" in part]
    if not keys:
        return frame
    pieces = []
    for file in files:
        values = dict(
            part.split("=", 1) for part in file.relative_to(root).parts[:-1] if "=" in part
        )
        scan = pl.scan_parquet(file) if file.suffix.lower() == ".parquet" else pl.scan_ipc(file)
        pieces.append(scan.with_columns(pl.lit(values.get(k)).alias(k) for k, _ in keys))
    return pl.concat(pieces, how="diagonal_relaxed")


def _is_csv(value: Any) -> bool:
    if not isinstance(value, str | os.PathLike):
        return False
    try:
        raw = os.fspath(value)
    except Exception:  # the caller's __fspath__ raised (conventions §1.2): not a CSV path
        return False
    if not isinstance(raw, str) or raw == "":
        return False
    path = Path(raw)
    if path.is_dir():
        return any(_text_cells(p.name) for p in path.rglob("*") if p.is_file())
    return _text_cells(path.name)


def _text_cells(name: str) -> bool:
    """Whether a file named ``name`` is CSV or TSV (plain or compressed): all-text cells."""
    found = _corpus_kind(name)
    return found is not None and found[0] in ("csv", "tsv")


def _arrow_frame(value: Any, role: str) -> pl.LazyFrame:
    """An Arrow table, batch or ``__arrow_c_stream__`` object (the caller's) as a frame."""
    failed = False
    frame: pl.DataFrame | pl.Series | None = None
    try:
        table = value if isinstance(value, pa.Table | pa.RecordBatch) else pa.table(value)
        check_schema(table.schema)  # repeated names, deep types: refused before Polars
        frame = pl.from_arrow(table)
    except Exception:  # the caller's object raised while read (conventions §1.2)
        failed = True
    except READER_PANICS:  # Polars refused the caller's table by panicking
        failed = True
    if failed or not isinstance(frame, pl.DataFrame):
        raise _fail(f"{role} input could not be read", "input")
    return frame.lazy()


def _path_frame(value: str | os.PathLike[str], role: str) -> pl.LazyFrame:
    failed: BaseException | None = None
    frame: pl.LazyFrame | None = None
    raw: object = None
    try:
        raw = os.fspath(value)
    except Exception:  # the caller's __fspath__ raised (conventions §1.2): no path
        raw = None
    try:
        # an empty path names no file (``Path("")`` would be the working directory, read
        # whole), a NUL byte no path at all, and bytes no path of this API
        if not isinstance(raw, str) or raw == "" or "\x00" in raw:
            raise Refused("missing")
        frame = _scan_path(Path(raw), role)
    except _UNREADABLE as exc:  # a directory that cannot be listed, a file the scan refuses
        failed = exc
    if failed is not None or frame is None:
        raise _unreadable(role, failed)
    return frame


def _lazy(value: Any, role: str) -> pl.LazyFrame | None:
    """The lazy frame of one role's input (``None`` when the role is absent). A path is
    scanned lazily, so each batch later reads only its own ``document_ref`` range."""
    if value is None:
        return None
    if isinstance(value, pl.LazyFrame):
        return value
    if isinstance(value, pl.DataFrame):
        return value.lazy()
    if isinstance(value, str | os.PathLike):
        return _path_frame(value, role)
    if isinstance(value, pa.Table | pa.RecordBatch) or hasattr(value, "__arrow_c_stream__"):
        return _arrow_frame(value, role)
    if is_table_object(value):  # Arrow datasets (scanned lazily), DuckDB relations, readers
        return _table_object_frame(value, role)
    raise _fail(f"{role} input could not be read", "input")


def _table_object_frame(value: object, role: str) -> pl.LazyFrame:
    """A table object that :func:`_arrow_frame` does not take, as a lazy frame
    (:func:`citelens.io._values.table_object_frame`)."""
    frame: pl.LazyFrame | None = None
    try:
        frame = table_object_frame(value)
    except ReadFailure:  # the caller's object raised, or its schema is refused
        frame = None
    if frame is None:
        raise _fail(f"{role} input could not be read", "input")
    return frame


def _ref_schema(frame: pl.LazyFrame, role: str) -> pl.Schema:
    """The frame's schema, with ``document_ref`` present and text (the checks every mode
    makes before any document is read)."""
    failed: BaseException | None = None
    schema: pl.Schema | None = None
    try:
        schema = frame.collect_schema()
    except _UNREADABLE as exc:  # the scan could not read the files' schemas
        failed = exc
    if failed is not None or schema is None:
        raise _unreadable(role, failed)
    if "document_ref" not in schema:
        raise _fail(f"{role} input requires a document_ref column", "input")
    if schema["document_ref"] not in (pl.String, pl.Categorical):
        raise _fail(f"{role} column document_ref must be text", "input")
    return schema


def _check_ref_column(frame: pl.LazyFrame, role: str) -> pl.LazyFrame:
    """``document_ref`` present, text, cast to String; no contract column typing (the
    summary-citations and minimality modes type their columns in their own kernels)."""
    _ref_schema(frame, role)
    return frame.with_columns(pl.col("document_ref").cast(pl.String))


def _check_schema(frame: pl.LazyFrame, role: str, csv: bool) -> pl.LazyFrame:
    """:func:`_check_ref_column` plus the support contract's column types (§4.2): integer and
    boolean columns, parsed from text for CSV input by the one CSV cell rule of
    :mod:`citelens.io`, so a malformed corpus fails with the role and column named."""
    schema = _ref_schema(frame, role)
    casts: dict[str, pl.Expr] = {}
    for name in _INTEGER_COLUMNS:
        if name in schema:
            dtype = schema[name]
            if dtype == pl.String and csv:  # CSV cells are text: base-10 integers (§4.2)
                parsed = integer_cells(pl.col(name), plus_sign=True)
                bad = _collect(
                    frame.select((pl.col(name).is_not_null() & parsed.is_null()).any()), role
                ).item()
                if bad:
                    raise _fail(f"{role} column {name} must be an integer column", "input")
                casts[name] = parsed
            elif not (dtype.is_integer() or dtype == pl.Null):
                raise _fail(f"{role} column {name} must be an integer column", "input")
    for name in _BOOLEAN_COLUMNS:
        if name in schema:
            dtype = schema[name]
            if dtype == pl.String and csv:
                casts[name] = boolean_cells(pl.col(name))
            elif dtype not in (pl.Boolean, pl.Null):
                raise _fail(f"{role} column {name} must be a boolean column", "input")
    if casts:
        frame = frame.with_columns(**casts)
    return frame.with_columns(pl.col("document_ref").cast(pl.String))


def _collect(frame: pl.LazyFrame, role: str) -> pl.DataFrame:
    """Run a lazy query over one role's input. Only the readers' failures on malformed input
    become ``<role> input could not be read``; any other exception propagates."""
    failed: BaseException | None = None
    result: pl.DataFrame | None = None
    try:
        result = frame.collect()
    except _UNREADABLE as exc:  # a staged file's ReadFailure carries its reason
        failed = exc
    if failed is not None or result is None:
        raise _unreadable(role, failed)
    return result


def _plan(frames: dict[str, pl.LazyFrame]) -> pl.DataFrame:
    # Only the distinct references of each role are held (projection pushdown: the scan
    # reads the document_ref column alone), never a whole role table.
    refs = pl.concat(
        [_collect(frame.select("document_ref").unique(), role) for role, frame in frames.items()]
    )
    if refs["document_ref"].null_count():
        role = next(
            r
            for r, f in frames.items()
            if _collect(f.select(pl.col("document_ref").null_count()), r).item()
        )
        raise _fail(f"{role} column document_ref must not be null", "record")
    return (
        refs.unique()
        .sort("document_ref")
        .with_row_index(DOC)
        .with_columns(pl.col(DOC).cast(pl.UInt32))
    )


def _batches(refs: pl.DataFrame, size: int) -> list[pl.DataFrame]:
    """Contiguous slices of the sorted references (views: no copy)."""
    return [refs.slice(first, size) for first in range(0, refs.height, size)]


def _batch_frames(frames: dict[str, pl.LazyFrame], batch: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The rows of one batch, role by role. Batches are contiguous in ``document_ref`` order,
    so a range predicate selects exactly the batch and is pushed down to the scan (Parquet
    row groups outside the range are skipped by their statistics)."""
    low, high = batch["document_ref"][0], batch["document_ref"][-1]
    in_batch = (pl.col("document_ref") >= low) & (pl.col("document_ref") <= high)
    return {role: _collect(frame.filter(in_batch), role) for role, frame in frames.items()}
