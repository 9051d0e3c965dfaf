"""An import written as a corpus directory: four Parquet files published as one set.

``claims.parquet``, ``evidence.parquet``, ``citations.parquet`` and ``sources.parquet`` are
staged beside their targets and renamed into place together (:class:`citelens._atomic.
StagedFiles`: journal, staging files, ``flock``), so a directory holds the complete old import
or the complete new one. ``sources.parquet`` holds the cited documents' text: it is written
with mode 0600 and the Parquet key-value metadata ``citelens.privacy = PRIVATE``. The bytes
depend on the tables only (fixed compression, no timestamps), so the same input gives
byte-identical files.

:func:`write_batches` writes an import as it is converted, batch by batch (one row group per
batch and file): the Parquet encoding of a batch runs in a writer thread while the next one
converts (Arrow's writer and Polars release the GIL), and at most one batch waits, so memory
follows the batch. Its files hold the same rows as :func:`write_corpus` of the whole tables
(row groups apart), and the same input gives byte-identical files as well.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from citelens._atomic import WRITE_ERRORS, StagedFiles, WriteFailure
from citelens.errors import CitationImportError
from citelens.importers._tables import ImportTables

__all__ = ["FILES", "PRIVACY_KEY", "PRIVATE", "write_batches", "write_corpus"]

FILES: dict[str, str] = {
    "claims": "claims.parquet",
    "evidence": "evidence.parquet",
    "citations": "citations.parquet",
    "sources": "sources.parquet",
}
PRIVACY_KEY = b"citelens.privacy"
PRIVATE = b"PRIVATE"

_WRITE_ERROR = "import output could not be written"


def _arrow(role: str, tables: ImportTables) -> pa.Table:
    table = tables.tables()[role].to_arrow()
    if role == "sources":
        metadata = dict(table.schema.metadata or {})
        metadata[PRIVACY_KEY] = PRIVATE
        table = table.replace_schema_metadata(metadata)
    return table


def _directory(out_dir: object, mkdir: bool) -> Path:
    if not isinstance(out_dir, str | os.PathLike) or os.fspath(out_dir) in ("", b""):
        raise CitationImportError(_WRITE_ERROR, "io")
    directory = Path(os.fspath(out_dir))
    if not mkdir and not directory.is_dir() and not directory.parent.is_dir():
        raise CitationImportError("import output directory does not exist", "io")
    return directory


def _append(writers: dict[str, pq.ParquetWriter], arrow: dict[str, pa.Table]) -> None:
    for role, table in arrow.items():
        writers[role].write_table(table)


def _stream(
    batches: Iterable[ImportTables],
    writers: dict[str, pq.ParquetWriter],
    pool: ThreadPoolExecutor,
    staged: StagedFiles,
    directory: Path,
) -> None:
    """Write each batch in the writer thread while the next converts (one waits at most)."""
    pending: Future[None] | None = None
    for tables in batches:
        arrow = {role: _arrow(role, tables) for role in FILES}
        if pending is not None:
            pending.result()
        if not writers:  # the first batch gives the schemas
            for role, name in FILES.items():
                handle = staged.open(directory / name, private=role == "sources")
                writers[role] = pq.ParquetWriter(handle, arrow[role].schema, compression="zstd")
        pending = pool.submit(_append, writers, arrow)
    if pending is not None:
        pending.result()


def write_batches(
    batches: Iterable[ImportTables], out_dir: object, *, mkdir: bool = False
) -> list[Path]:
    """Write the tables of ``batches`` (consecutive parts of one import, in order, at least
    one) into ``out_dir`` as :func:`write_corpus` writes one, as they come (module
    docstring). An exception of ``batches`` leaves the old set; raises
    :class:`~citelens.errors.CitationImportError` (category ``io``) as :func:`write_corpus`."""
    directory = _directory(out_dir, mkdir)
    failed = False
    written: list[Path] = []
    try:
        with StagedFiles() as staged:
            writers: dict[str, pq.ParquetWriter] = {}
            try:
                with ThreadPoolExecutor(1, "citelens-write") as pool:
                    _stream(batches, writers, pool, staged, directory)
            finally:  # every writer closed before its file: committed, or removed on failure
                for writer in writers.values():
                    with contextlib.suppress(*WRITE_ERRORS):
                        writer.close()
            written = staged.commit()
    except (WriteFailure, *WRITE_ERRORS):
        failed = True
    if failed:
        raise CitationImportError(_WRITE_ERROR, "io")
    return written


def write_corpus(tables: ImportTables, out_dir: object, *, mkdir: bool = False) -> list[Path]:
    """Write ``tables`` into the directory ``out_dir`` as one atomic set of four Parquet
    files (module docstring) and return their paths. ``out_dir`` may be missing; its parent
    must exist unless ``mkdir``. Raises :class:`~citelens.errors.CitationImportError`:
    ``import output directory does not exist`` or ``import output could not be written``
    (category ``io``)."""
    if not isinstance(tables, ImportTables):
        raise CitationImportError("tables must be an ImportTables", "policy")
    # one batch: ParquetWriter writes the bytes pq.write_table would (one row group per file)
    return write_batches([tables], out_dir, mkdir=mkdir)
