"""Staging of corpus inputs that cannot be scanned lazily (JSON Lines): each file is read
block by block (:func:`citelens.io.stage_jsonl`) into Parquet files in a temporary directory,
then scanned like any Parquet input, so each batch reads only its own ``document_ref`` range
and memory follows one block and one batch, not the file.

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
from pathlib import Path

import polars as pl
import pyarrow as pa

from citelens.io import DEFAULT_BLOCK_BYTES, stage_jsonl

__all__ = ["Stage", "staged_jsonl"]

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
