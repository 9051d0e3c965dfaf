"""Corpus ingest: lazy scans of files, directories (hive partitions) and tables keyed by
``document_ref``; schema checks that name the role and column; batch planning."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from citelens.errors import CorpusError

DOC = "_d"
_SUFFIXES = {
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
_INTEGER_COLUMNS = (
    "start",
    "end",
    "source_start",
    "source_end",
    "span_start",
    "span_end",
    "source_length",
    "document_length",
    "text_length",
    "length",
)
_BOOLEAN_COLUMNS = ("supports", "supported", "supports_claim", "contradicts", "contradicts_claim")
_DEFAULT_BATCH_DOCUMENTS = 20_000


def _fail(message: str, category: str) -> CorpusError:
    return CorpusError(message, category)


# -- loading ---------------------------------------------------------------------------------


def _scan_path(path: Path, role: str) -> pl.LazyFrame:
    """A lazy scan of a file or a directory of files (hive partitioning allowed)."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
        if not files:
            raise _fail(f"{role} input could not be read", "input")
        kinds = {_SUFFIXES[p.suffix.lower()] for p in files}
        if len(kinds) != 1:
            raise _fail(f"{role} input could not be read", "input")
        kind = kinds.pop()
        if kind == "parquet":
            return pl.scan_parquet(files, hive_partitioning=False).pipe(_with_hive, files, path)
        if kind == "ipc":
            return pl.scan_ipc(files).pipe(_with_hive, files, path)
        if kind == "ndjson":
            return pl.concat([_jsonl(p, role) for p in files], how="diagonal_relaxed")
        return pl.concat(
            [pl.scan_csv(p, infer_schema=False) for p in files], how="diagonal_relaxed"
        )
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES or not path.is_file():
        raise _fail(f"{role} input could not be read", "input")
    kind = _SUFFIXES[suffix]
    if kind == "parquet":
        return pl.scan_parquet(path)
    if kind == "ipc":
        return pl.scan_ipc(path)
    if kind == "ndjson":
        return _jsonl(path, role)
    return pl.scan_csv(path, infer_schema=False)


def _jsonl(path: Path, role: str) -> pl.LazyFrame:
    """A JSON Lines file read by Arrow's JSON reader, typed from every line (Polars' reader
    infers from the first lines only). Values that no single Arrow type holds exactly (a
    column mixing identifiers and records, ints and floats) cannot form a corpus table."""
    from citelens.io import _files as _io

    table: Any = None
    failed = False
    try:
        content = _io.read_data_file(path)
        if isinstance(content, pa.Table):
            table = content
        elif isinstance(content, list) and content:
            table = pa.Table.from_struct_array(pa.array(content))
        elif isinstance(content, list):
            table = pa.table({"document_ref": pa.array([], pa.string())})
    except Exception:
        failed = True
    if failed or table is None:
        raise _fail(f"{role} input could not be read", "input")
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
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
    path = Path(os.fspath(value))
    if path.is_dir():
        return any(p.suffix.lower() == ".csv" for p in path.rglob("*") if p.is_file())
    return path.suffix.lower() == ".csv"


def _lazy(value: Any, role: str) -> pl.LazyFrame | None:
    if value is None:
        return None
    failed = False
    frame: pl.LazyFrame | None = None
    try:
        if isinstance(value, pl.LazyFrame):
            frame = value
        elif isinstance(value, pl.DataFrame):
            frame = value.lazy()
        elif isinstance(value, pa.Table | pa.RecordBatch):
            eager = pl.from_arrow(value)
            assert isinstance(eager, pl.DataFrame)
            frame = eager.lazy()
        elif isinstance(value, str | os.PathLike):
            frame = _scan_path(Path(os.fspath(value)), role)
        elif hasattr(value, "__arrow_c_stream__"):
            eager = pl.from_arrow(pa.table(value))
            assert isinstance(eager, pl.DataFrame)
            frame = eager.lazy()
    except CorpusError:
        failed = True
    except Exception:
        failed = True
    if failed or frame is None:
        raise _fail(f"{role} input could not be read", "input")
    return frame


def _check_schema(frame: pl.LazyFrame, role: str, csv: bool) -> pl.LazyFrame:
    failed: tuple[str, str] | None = None
    schema: pl.Schema | None = None
    try:
        schema = frame.collect_schema()
    except Exception:
        failed = (f"{role} input could not be read", "input")
    if failed is not None or schema is None:
        raise _fail(*(failed or (f"{role} input could not be read", "input")))
    if "document_ref" not in schema:
        raise _fail(f"{role} input requires a document_ref column", "input")
    if schema["document_ref"] not in (pl.String, pl.Categorical):
        raise _fail(f"{role} column document_ref must be text", "input")
    casts: dict[str, pl.Expr] = {}
    for name in _INTEGER_COLUMNS:
        if name in schema:
            dtype = schema[name]
            if dtype == pl.String and csv:  # CSV cells are text: base-10 integers
                parsed = pl.col(name).str.to_integer(strict=False)
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
                casts[name] = (
                    pl.when(pl.col(name).str.to_lowercase() == "true")
                    .then(True)
                    .when(pl.col(name).str.to_lowercase() == "false")
                    .then(False)
                )
            elif dtype not in (pl.Boolean, pl.Null):
                raise _fail(f"{role} column {name} must be a boolean column", "input")
    if casts:
        frame = frame.with_columns(**casts)
    return frame.with_columns(pl.col("document_ref").cast(pl.String))


def _collect(frame: pl.LazyFrame, role: str) -> pl.DataFrame:
    failed = False
    result: pl.DataFrame | None = None
    try:
        result = frame.collect()
    except Exception:
        failed = True
    if failed or result is None:
        raise _fail(f"{role} input could not be read", "input")
    return result


def _plan(frames: dict[str, pl.LazyFrame]) -> pl.DataFrame:
    refs = pl.concat(
        [_collect(frame.select("document_ref"), role) for role, frame in frames.items()]
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
    return [refs.slice(first, size) for first in range(0, refs.height, size)]


def _batch_frames(frames: dict[str, pl.LazyFrame], batch: pl.DataFrame) -> dict[str, pl.DataFrame]:
    low, high = batch["document_ref"][0], batch["document_ref"][-1]
    in_batch = (pl.col("document_ref") >= low) & (pl.col("document_ref") <= high)
    return {role: _collect(frame.filter(in_batch), role) for role, frame in frames.items()}
