"""``check_provenance`` (one document), ``run_provenance`` (a corpus), their result and its
outputs."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from citelens._atomic import (
    WRITE_ERRORS,
    StagedFiles,
    WriteFailure,
    parquet_bytes,
    write_many_atomic,
)
from citelens._jsonout import canonical_json
from citelens._pseudonym import pseudonymise_series, resolve_key
from citelens.errors import ProvenanceError
from citelens.provenance._approx import approximate_statuses
from citelens.provenance._inputs import Tables, batches, corpus_refs, corpus_scans, tables_of
from citelens.provenance._verbatim import edge_frame, verbatim_statuses

__all__ = [
    "DEFAULT_BATCH_DOCUMENTS",
    "DEFAULT_FUZZY_THRESHOLD",
    "OUTPUT_SCHEMA",
    "STATUSES",
    "ProvenanceResult",
    "check_provenance",
    "run_provenance",
    "write_provenance",
    "write_provenance_corpus",
]

STATUSES: tuple[str, ...] = (
    "exact",
    "offset_unit",
    "relocated",
    "misattributed",
    "normalized",
    "fuzzy",
    "absent",
    "not_checkable",
)
"""Every status, in precedence order (``not_checkable`` is counted apart from the others)."""

DEFAULT_FUZZY_THRESHOLD = 0.90
DEFAULT_BATCH_DOCUMENTS = 20_000
_ID_COLUMNS = ("document_ref", "claim_id", "evidence_id", "source_id", "found_source_id")

OUTPUT_SCHEMA = pl.Schema(
    {
        "document_ref": pl.String,
        "claim_id": pl.String,
        "evidence_id": pl.String,
        "source_id": pl.String,
        "status": pl.String,
        "cited_start": pl.Int64,
        "cited_end": pl.Int64,
        "found_start": pl.Int64,
        "found_end": pl.Int64,
        "found_source_id": pl.String,
        "score": pl.Float64,
        "offset_unit": pl.String,
        "matched_unit": pl.String,
    }
)
"""The columns of ``provenance.parquet`` (one row per citation edge)."""

_WRITE_FAILED = "provenance outputs could not be written"


def _threshold(value: object) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise ProvenanceError("fuzzy threshold must be a number from 0 to 1", "policy")
    return float(value)


def _batch_size(value: object) -> int:
    if type(value) is not int or value < 1:
        raise ProvenanceError("batch_documents must be a positive integer", "policy")
    return value


def _check(tables: Tables, threshold: float) -> pl.DataFrame:
    """The statuses of every edge of ``tables`` (raw identifiers, :data:`OUTPUT_SCHEMA`)."""
    sources = tables["sources"]
    edges = edge_frame(tables["citations"], tables["evidence"], sources)
    frame = verbatim_statuses(edges, sources)
    frame = approximate_statuses(frame, sources, threshold)
    return (
        frame.sort("_edge")
        .select(
            "document_ref",
            "claim_id",
            "evidence_id",
            "source_id",
            "status",
            cited_start=pl.col("start"),
            cited_end=pl.col("end"),
            found_start="found_start",
            found_end="found_end",
            found_source_id="found_source_id",
            score="score",
            offset_unit="offset_unit",
            matched_unit="matched_unit",
        )
        .cast(OUTPUT_SCHEMA)
    )


def _pseudonymised(frame: pl.DataFrame, key: bytes) -> pl.DataFrame:
    """Every identifier column keyed-pseudonymised, each distinct value hashed once (and
    mapped back by a join of the columns, not through Python objects)."""
    columns = []
    for name in _ID_COLUMNS:
        values = frame.get_column(name)
        distinct = values.drop_nulls().unique().sort()
        mapped = pseudonymise_series(distinct, key)
        columns.append(
            values.replace_strict(distinct, mapped, default=None, return_dtype=pl.String)
        )
    return frame.with_columns(columns)


def _one_summary(counts: Mapping[str, int]) -> dict[str, Any]:
    edges = sum(counts.get(status, 0) for status in STATUSES)
    checkable = edges - counts.get("not_checkable", 0)
    full = {status: counts.get(status, 0) for status in STATUSES}
    rates: dict[str, float | None] = {
        status: (full[status] / checkable if checkable else None) for status in STATUSES[:-1]
    }
    rates["not_checkable"] = full["not_checkable"] / edges if edges else None
    return {"edges": edges, "checkable": checkable, "counts": full, "rates": rates}


def _counts(frame: pl.DataFrame) -> pl.DataFrame:
    """Edges per document and status (``document_ref``, ``status``, ``edges``)."""
    return frame.group_by("document_ref", "status").agg(edges=pl.len().cast(pl.Int64))


def _summary(counts: pl.DataFrame, threshold: float) -> dict[str, Any]:
    """Counts and rates per status, in total and per document (keyed by its pseudonym), of
    the :func:`_counts` of the edges (several parts of them may repeat a document). Rates of
    the seven checked statuses are over the checkable edges; ``not_checkable``'s over all
    edges; null when the denominator is 0."""
    grouped = counts.group_by("document_ref", "status").agg(pl.col("edges").sum()).rows()
    per_document: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    for document, status, count in grouped:  # one row per document and status: output only
        per_document.setdefault(document, {})[status] = count
        totals[status] = totals.get(status, 0) + count
    return {
        "check": "provenance",
        "fuzzy_threshold": threshold,
        "statuses": list(STATUSES),
        "document_count": len(per_document),
        "totals": _one_summary(totals),
        "documents": {ref: _one_summary(c) for ref, c in sorted(per_document.items())},
    }


def _summary_markdown(summary: dict[str, Any]) -> str:
    """The totals of ``summary`` as Markdown (``summary.md``)."""
    totals = summary["totals"]
    lines = [
        "# Verbatim provenance",
        "",
        f"- Documents: {summary['document_count']}",
        f"- Citation edges: {totals['edges']} (checkable {totals['checkable']})",
        f"- Fuzzy threshold: {summary['fuzzy_threshold']}",
        "",
        "| Status | Edges | Rate |",
        "| --- | ---: | ---: |",
    ]
    for status in STATUSES:
        rate = totals["rates"][status]
        shown = "n/a" if rate is None else f"{rate:.4f}"
        lines.append(f"| {status} | {totals['counts'][status]} | {shown} |")
    lines += ["", "Rates are over checkable edges (not_checkable: over all edges)."]
    return "\n".join(lines) + "\n"


class ProvenanceResult:
    """The provenance of every citation edge: :meth:`to_polars` (one row per edge,
    :data:`OUTPUT_SCHEMA`, identifiers pseudonymised unless raw ones were asked for) and
    :attr:`summary` (counts and rates). Holds no quote and no source text."""

    def __init__(self, frame: pl.DataFrame, fuzzy_threshold: float) -> None:
        self._frame = frame
        self.fuzzy_threshold = fuzzy_threshold
        self.summary: dict[str, Any] = _summary(_counts(frame), fuzzy_threshold)

    def to_polars(self) -> pl.DataFrame:
        """One row per citation edge."""
        return self._frame

    def to_arrow(self) -> pa.Table:
        """:meth:`to_polars` as an Arrow table."""
        return self._frame.to_arrow()

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        """The edge rows as an Arrow stream (``pa.table(result)``)."""
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def summary_json(self) -> str:
        """:attr:`summary` as canonical JSON (``summary.json``)."""
        return canonical_json(self.summary)

    def summary_markdown(self) -> str:
        """The totals as Markdown (``summary.md``)."""
        return _summary_markdown(self.summary)

    def write(self, out_dir: object) -> list[Path]:
        """:func:`write_provenance` of this result."""
        return write_provenance(self, out_dir)

    def __repr__(self) -> str:  # counts only
        totals = self.summary["totals"]
        return f"ProvenanceResult(edges={totals['edges']}, checkable={totals['checkable']})"


def _finish(frames: list[pl.DataFrame], threshold: float, key: bytes | None) -> ProvenanceResult:
    frame = pl.concat(frames) if frames else pl.DataFrame(schema=OUTPUT_SCHEMA)
    if key is not None:
        frame = _pseudonymised(frame, key)
    return ProvenanceResult(frame, threshold)


def check_provenance(
    claims: object,
    evidence: object,
    citations: object,
    sources: object,
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    pseudonym_key: bytes | None = None,
    raw_identifiers: bool = False,
) -> ProvenanceResult:
    """The provenance of every citation edge of one document (or of the documents the tables
    name by ``document_ref``; rows without one are one document). Each argument is a table
    object, a data file path or a list of records with the importers' columns. ``claims`` is
    accepted for the corpus layout and not read. Identifiers are pseudonymised with
    ``pseudonym_key`` (a random key per call when ``None``) unless ``raw_identifiers``."""
    del claims  # no claim field decides a status
    threshold = _threshold(fuzzy_threshold)
    key = None if raw_identifiers else resolve_key(pseudonym_key, ProvenanceError)
    tables = tables_of(citations, evidence, sources, one_document=True)
    frame = _check(tables, threshold)
    frame = frame.with_row_index("_order").sort("document_ref", "_order").drop("_order")
    return _finish([frame], threshold, key)


def run_provenance(
    corpus: object,
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    pseudonym_key: bytes | None = None,
    raw_identifiers: bool = False,
    batch_documents: int = DEFAULT_BATCH_DOCUMENTS,
    progress: Callable[[int, int], None] | None = None,
) -> ProvenanceResult:
    """The provenance check over a corpus: a directory as the importers write it
    (``citations``, ``evidence``, ``sources`` as ``<role>.parquet`` or ``<role>/``), or a
    mapping of those tables (an ``ImportTables`` too). Documents are read
    ``batch_documents`` at a time; rows come out by ``document_ref``, then in citation order.
    ``progress(done, total)`` is called after each batch with document counts."""
    threshold = _threshold(fuzzy_threshold)
    size = _batch_size(batch_documents)
    key = None if raw_identifiers else resolve_key(pseudonym_key, ProvenanceError)
    frames = list(_checked_batches(corpus, threshold, size, None, progress))
    return _finish(frames, threshold, key)


def _checked_batches(
    corpus: object,
    threshold: float,
    size: int,
    key: bytes | None,
    progress: Callable[[int, int], None] | None,
) -> Iterator[pl.DataFrame]:
    """The edge rows of ``corpus``, ``size`` documents at a time (pseudonymised with ``key``
    unless it is None), in ``document_ref`` order."""
    if hasattr(corpus, "tables") and callable(corpus.tables):
        corpus = corpus.tables()
    if isinstance(corpus, Mapping):
        given = {role: corpus.get(role) for role in ("citations", "evidence", "sources")}
        tables = tables_of(
            given["citations"], given["evidence"], given["sources"], one_document=False
        )
        scans = {role: frame.lazy() for role, frame in tables.items()}
    elif isinstance(corpus, str | os.PathLike):
        scans = corpus_scans(corpus)
    else:
        raise ProvenanceError("provenance input is not accessible", "input")
    done = 0
    refs = corpus_refs(scans)
    for count, batch in batches(scans, refs, size):
        frame = _check(batch, threshold)
        yield frame if key is None else _pseudonymised(frame, key)
        done += count
        if progress is not None:
            progress(done, len(refs))


def write_provenance_corpus(
    corpus: object,
    out_dir: object,
    *,
    fuzzy_threshold: float = DEFAULT_FUZZY_THRESHOLD,
    pseudonym_key: bytes | None = None,
    raw_identifiers: bool = False,
    batch_documents: int = DEFAULT_BATCH_DOCUMENTS,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """:func:`run_provenance` and :func:`write_provenance` in one pass that streams: each
    batch of documents is checked, pseudonymised and written to ``provenance.parquet`` (one
    row group per batch) before the next is read, so memory follows the batch, not the
    corpus; ``summary.json``/``summary.md`` follow from the counts. The same rows, summary and
    Markdown as the two calls (the Parquet's row groups apart), written as one output set.
    Returns the summary (:attr:`ProvenanceResult.summary`)."""
    threshold = _threshold(fuzzy_threshold)
    size = _batch_size(batch_documents)
    key = None if raw_identifiers else resolve_key(pseudonym_key, ProvenanceError)
    root = _out_root(out_dir)
    counts: list[pl.DataFrame] = []
    summary: dict[str, Any] = {}
    failed = False
    try:
        with StagedFiles() as staged:
            handle = staged.open(root / "provenance.parquet")
            schema = pl.DataFrame(schema=OUTPUT_SCHEMA).to_arrow().schema
            writer = pq.ParquetWriter(handle, schema, compression="zstd")
            try:
                for frame in _checked_batches(corpus, threshold, size, key, progress):
                    counts.append(_counts(frame))
                    writer.write_table(frame.to_arrow())
            finally:  # closed before its file is committed, or removed on failure
                with contextlib.suppress(*WRITE_ERRORS):
                    writer.close()
            empty = pl.DataFrame(
                schema={"document_ref": pl.String, "status": pl.String, "edges": pl.Int64}
            )
            summary = _summary(pl.concat(counts) if counts else empty, threshold)
            for name, text in (
                ("summary.json", canonical_json(summary)),
                ("summary.md", _summary_markdown(summary)),
            ):
                staged.open(root / name).write(text.encode("utf-8"))
            staged.commit()
    except (WriteFailure, *WRITE_ERRORS):
        failed = True
    if failed:
        raise ProvenanceError(_WRITE_FAILED, "io")
    return summary


def _out_root(out_dir: object) -> Path:
    if not isinstance(out_dir, str | os.PathLike):
        raise ProvenanceError(_WRITE_FAILED, "io")
    return Path(os.fspath(out_dir))


def write_provenance(result: ProvenanceResult, out_dir: object) -> list[Path]:
    """Write ``provenance.parquet``, ``summary.json`` and ``summary.md`` into ``out_dir`` as
    one output set (atomic; missing directories are created). Returns the written paths."""
    if not isinstance(result, ProvenanceResult):
        raise ProvenanceError("result must be a ProvenanceResult", "input")
    root = _out_root(out_dir)
    files = [
        (root / "provenance.parquet", parquet_bytes(result.to_arrow())),
        (root / "summary.json", result.summary_json().encode("utf-8")),
        (root / "summary.md", result.summary_markdown().encode("utf-8")),
    ]
    failed = False
    written: list[Path] = []
    try:
        written = write_many_atomic(files)
    except WriteFailure:
        failed = True
    if failed:
        raise ProvenanceError(_WRITE_FAILED, "io")
    return written
