"""Staging of corpus inputs that cannot be scanned lazily (JSON Lines, CSV and TSV, plain or
gzip/zstd compressed): each file is read block by block (:func:`citelens.io.stage_jsonl`,
:func:`citelens.io._csv.stage_csv`) into Parquet files in a temporary directory, then scanned
like any Parquet input, so each batch reads only its own ``document_ref`` range (row groups
outside it are skipped by their statistics) and memory follows one block and one batch, not
the file. A compressed file is decompressed as a stream under the one decompressed bound of
:mod:`citelens.io._compressed`.

A CSV file is staged when its scan is made: the scan is a Polars IO source with the
header's all-text schema whose every call scans the staged file with the predicate and
projection Polars pushes down. A malformed file (a ragged row, invalid UTF-8) fails then, with
:class:`citelens.io.ReadFailure` and its reason, in this module's own frame (an IO source's
exception reaches the caller as itself on new Polars, as a bare ``ComputeError`` on 1.43).

The directory lives as long as the run's plan: the scan carries the :class:`Stage` as an
identity step that every optimisation passes through (predicates and projections reach the
Parquet scan), so the directory is removed when the last lazy frame over it is released, when
staging fails (also on ``KeyboardInterrupt``), or at interpreter exit at the latest
(:func:`weakref.finalize` runs at exit).
"""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import polars as pl
import pyarrow as pa
from polars.io.plugins import register_io_source

from citelens.io import DEFAULT_BLOCK_BYTES, FileKind, stage_jsonl
from citelens.io._csv import stage_csv

__all__ = ["Stage", "staged_csv", "staged_jsonl"]

# Bytes of JSON Lines text read per block (tests make it small to see several blocks).
BLOCK_BYTES = DEFAULT_BLOCK_BYTES


class Stage:
    """A temporary staging directory, removed once no plan holds this object (or at exit).

    Calling it is the identity on a frame: it is the step that ties the directory's life to
    the lazy frames that scan it."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="citelens-stage-"))
        self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)

    def __call__(self, frame: pl.DataFrame) -> pl.DataFrame:
        return frame

    def remove(self) -> None:
        """Remove the directory now (at most once)."""
        self._finalizer()


def staged_jsonl(path: Path) -> pl.LazyFrame | None:
    """A lazy Parquet scan of the JSON Lines file ``path`` staged block by block, typed as
    :func:`citelens.io.jsonl_table` types the whole file; ``None`` when Parquet cannot hold
    the file's schema (the caller reads it whole). Raises what staging raises
    (:class:`citelens.io.ReadFailure` for a malformed file), the directory removed."""
    stage = Stage()
    try:
        staged = stage_jsonl(path, stage.path, BLOCK_BYTES)
    except BaseException:  # any failure, Ctrl-C included: nothing stays behind; re-raised
        stage.remove()
        raise
    if staged is None or not staged.files:
        stage.remove()
        if staged is None:
            return None
        frame = pl.from_arrow(pa.Table.from_pylist([], schema=staged.schema))
        assert isinstance(frame, pl.DataFrame)
        return frame.lazy()
    scan = pl.scan_parquet(staged.files, hive_partitioning=False)
    return scan.map_batches(
        stage,
        predicate_pushdown=True,
        projection_pushdown=True,
        slice_pushdown=True,
        streamable=True,
    )


class _CsvSource:
    """The Polars IO source of one CSV file already staged as Parquet: every call scans the
    staged file with the predicate and projection Polars pushes down. It holds the
    :class:`Stage`, so the directory lives as long as the plan that holds the source."""

    def __init__(self, stage: Stage, staged: Path) -> None:
        self._stage = stage
        self._staged = staged

    def __call__(
        self,
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        scan = pl.scan_parquet(self._staged)
        if predicate is not None:
            scan = scan.filter(predicate)
        if with_columns is not None:
            scan = scan.select(with_columns)
        if n_rows is not None:
            scan = scan.head(n_rows)
        yield scan.collect()


def staged_csv(path: Path, header: list[str], kind: FileKind | None = None) -> pl.LazyFrame:
    """A lazy scan of the CSV file ``path`` (``header`` as :func:`citelens.io.csv_header`
    read it), every cell text, staged block by block as Parquet now; ``kind`` (by default a
    plain CSV file) gives its delimiter (TSV) and compression (decompressed as a stream,
    under the decompressed bound). A malformed file raises :class:`citelens.io.ReadFailure`
    (with its reason) from this call, the directory removed: staged inside a Polars query
    instead, the reason would be lost on the Polars versions that report a Python source's
    exception as a bare ``ComputeError`` (1.43)."""
    stage = Stage()
    target = stage.path / "data.parquet"
    # a plain CSV file is staged by the plain four-argument call
    staging: Callable[[Path, list[str], Path, int], None] = stage_csv
    if kind is not None and (kind.delimiter != "," or kind.compression is not None):
        staging = partial(stage_csv, delimiter=kind.delimiter, compression=kind.compression)
    try:
        staging(path, header, target, BLOCK_BYTES)
    except BaseException:  # any failure, Ctrl-C included: nothing stays behind; re-raised
        stage.remove()
        raise
    schema = {name: pl.String for name in header}
    return register_io_source(_CsvSource(stage, target), schema=schema)
