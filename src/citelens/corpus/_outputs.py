"""Corpus outputs: result objects, Markdown helpers and the staged multi-file write."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from citelens._atomic import PATH_ERRORS, WRITE_ERRORS, StagedFiles, WriteFailure
from citelens._jsonout import canonical_json
from citelens.corpus._scan import _fail

__all__ = ["CorpusResult", "OutputSet"]


def _write_error() -> Exception:
    return _fail("corpus report could not be written", "io")


class OutputSet:
    """The files of one corpus run, streamed into the output directory and committed as a set.

    Each Parquet output is a ``pyarrow.parquet.ParquetWriter`` on a temporary
    ``.citelens-*.tmp`` file in ``out_dir``: :meth:`write_batch` appends one Arrow table per
    batch as one row group, so memory holds one batch, never the whole file. :meth:`commit`
    finishes every file, fsyncs it and renames all of them onto their targets only when all
    are complete. :meth:`abort`, an exception or ``KeyboardInterrupt`` inside the ``with``
    block, or leaving it without :meth:`commit`, removes every temporary file (and the
    directories the set created), leaving existing targets untouched. Callers write batches
    in ``document_ref`` order, so the files keep the sorted order of the in-memory tables.

    Every write failure raises ``CorpusError("corpus report could not be written", "io")``.

    >>> with OutputSet(out_dir) as out:                         # doctest: +SKIP
    ...     for documents, edges in batches:
    ...         out.write_batch("documents.parquet", documents, SUPPORT_DOCUMENTS_SCHEMA)
    ...     out.write_text("summary.json", summary_json)
    ...     written = out.commit()
    """

    def __init__(self, out_dir: object) -> None:
        if not isinstance(out_dir, str | os.PathLike):
            raise _write_error()
        failed = False
        try:
            self._root = Path(os.fspath(out_dir))
        except (TypeError, *PATH_ERRORS):
            failed = True
        if failed:
            raise _write_error()
        self._staged = StagedFiles()
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._handles: dict[str, BinaryIO] = {}
        self._names: set[str] = set()

    def _open(self, name: str) -> BinaryIO:
        if name in self._names or Path(name).name != name:
            self.abort()
            raise _write_error()
        self._names.add(name)
        failed = False
        handle: BinaryIO | None = None
        try:
            handle = self._staged.open(self._root / name)
        except WriteFailure:
            failed = True
        if failed or handle is None:
            self.abort()
            raise _write_error()
        self._handles[name] = handle
        return handle

    def open_table(self, name: str, schema: pa.Schema) -> None:
        """Start Parquet output ``name`` with ``schema`` (written even if no batch follows)."""
        handle = self._open(name)
        failed = False
        try:
            self._writers[name] = pq.ParquetWriter(handle, schema, compression="zstd")
        except WRITE_ERRORS:
            failed = True
        if failed:
            self.abort()
            raise _write_error()

    def write_batch(self, name: str, table: pa.Table, schema: pa.Schema | None = None) -> None:
        """Append ``table`` to Parquet output ``name`` as one row group.

        The first call opens the file with ``schema`` (default: the table's own); every
        table is cast to the file's schema. An empty table adds no row group."""
        if name not in self._writers:
            self.open_table(name, schema if schema is not None else table.schema)
        writer = self._writers[name]
        if table.schema != writer.schema:
            table = table.cast(writer.schema)  # a table that cannot be cast is a bug: raises
        if table.num_rows == 0:
            return
        failed = False
        try:
            writer.write_table(table, row_group_size=table.num_rows)
        except WRITE_ERRORS:
            failed = True
        if failed:
            self.abort()
            raise _write_error()

    def write_text(self, name: str, text: str) -> None:
        """Stage UTF-8 text output ``name`` (summary.json, summary.md)."""
        handle = self._open(name)
        failed = False
        try:
            handle.write(text.encode("utf-8"))
        except WRITE_ERRORS:
            failed = True
        if failed:
            self.abort()
            raise _write_error()

    def finish_table(self, name: str) -> Path:
        """Finish Parquet output ``name`` (its footer is written) and return the path of its
        staged temporary file, which can then be scanned (``pl.scan_parquet``) before
        :meth:`commit`, e.g. to compute the corpus totals from the streamed documents."""
        writer = self._writers.pop(name, None)
        failed = writer is None
        try:
            if writer is not None:
                writer.close()
                self._handles[name].flush()
        except WRITE_ERRORS:
            failed = True
        if failed:
            self.abort()
            raise _write_error()
        return self._staged.temporary_path(self._handles[name])

    def remove(self, name: str) -> None:
        """Remove output ``name`` when the set is published: a file an earlier run wrote
        that this run does not (``edges.parquet`` without ``--edges``), so that no file of
        an old set sits beside the new one."""
        if Path(name).name != name:
            self.abort()
            raise _write_error()
        self._staged.remove(self._root / name)

    def commit(self) -> list[Path]:
        """Finish every file and publish the set (one journal, then renames: a kill at any
        moment leaves the complete old set or the complete new one); return the targets."""
        for name in list(self._writers):
            self.finish_table(name)
        failed = False
        written: list[Path] = []
        try:
            written = self._staged.commit()
        except WriteFailure:
            failed = True
        if failed:
            raise _write_error()
        return written

    def abort(self) -> None:
        """Remove every temporary file of the set (idempotent)."""
        self._writers.clear()
        self._staged.abort()

    def __enter__(self) -> OutputSet:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.abort()


def _write_outputs(
    out_dir: object,
    documents: pa.Table,
    summary_json: str,
    summary_markdown: str,
    extra: tuple[tuple[str, pa.Table | None], ...] = (),
) -> list[Path]:
    """Write a corpus run's files into ``out_dir`` as one unit (staged, then renamed)."""
    with OutputSet(out_dir) as out:
        out.write_batch("documents.parquet", documents)
        out.write_text("summary.json", summary_json)
        out.write_text("summary.md", summary_markdown)
        for name, table in extra:
            if table is not None:
                out.write_batch(name, table)
            else:
                out.remove(name)  # an earlier run's file belongs to its own set
        return out.commit()


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


@dataclass(frozen=True)
class CorpusResult:
    """Corpus outputs of a mode: per-document rows, totals and a per-record table."""

    documents: pa.Table
    summary: dict[str, Any]
    records: pa.Table | None = field(default=None, repr=False)
    records_name: str = "records.parquet"

    def to_arrow(self) -> pa.Table:
        """:attr:`documents`: one row per document (the table of ``documents.parquet``)."""
        return self.documents

    def to_polars(self) -> pl.DataFrame:
        """:attr:`documents` as a Polars frame (:attr:`records` stays Arrow)."""
        from citelens.io._values import polars_frame

        return polars_frame(self.documents)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :attr:`documents` (``pa.table(result)``,
        ``pl.DataFrame(result)``, DuckDB read one row per document)."""
        return self.documents.__arrow_c_stream__(requested_schema)

    def summary_json(self) -> str:
        """Canonical JSON of the corpus totals."""
        return canonical_json(self.summary)

    def summary_markdown(self) -> str:
        """A Markdown view of the corpus totals."""
        lines = [f"# {self.summary['title']}", "", "| Metric | Value |", "| --- | ---: |"]
        for key, value in self.summary["totals"].items():
            lines.append(f"| {key} | {_score(value) if isinstance(value, float) else value} |")
        lines += ["", "## Documents with the most flagged records", ""]
        lines += ["| Document reference | Flagged |", "| --- | ---: |"]
        lines += [
            f"| `{r['document_ref']}` | {r['flagged_count']} |"
            for r in self.summary["worst_documents"]
        ]
        lines += ["", "## Failed documents", "", "| Category | Message | Documents |"]
        lines += ["| --- | --- | ---: |"]
        lines += [
            f"| `{e['category']}` | {e['message']} | {e['documents']} |"
            for e in self.summary["errors"]
        ]
        lines.append("")
        return "\n".join(lines)

    def write(self, out_dir: object) -> list[Path]:
        """Write documents.parquet, summary.json, summary.md and the record table as a unit."""
        return _write_outputs(
            out_dir,
            self.documents,
            self.summary_json(),
            self.summary_markdown(),
            ((self.records_name, self.records),),
        )

    def __repr__(self) -> str:
        return f"CorpusResult(document_count={self.documents.num_rows})"


def _totals_errors(frame: pl.DataFrame) -> list[dict[str, Any]]:
    errors = frame.filter(pl.col("status") == "error")
    counts = errors.group_by("error_category", "error_message").len()
    return [
        {"category": r["error_category"], "message": r["error_message"], "documents": r["len"]}
        for r in counts.sort("error_category", "error_message").to_dicts()
    ]


def _concat_tables(parts: list[pa.Table]) -> pa.Table | None:
    parts = [p for p in parts if p.num_rows]
    if not parts:
        return None
    return pa.concat_tables(parts, promote_options="permissive")


def _concat_frames(parts: list[pa.Table]) -> pl.DataFrame:
    frames = []
    for part in parts:
        if part.num_rows:
            frame = pl.from_arrow(part)
            assert isinstance(frame, pl.DataFrame)
            frames.append(frame)
    return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
