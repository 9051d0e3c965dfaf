"""Corpus scale: evaluate many documents in one vectorised pass, keyed by ``document_ref``.

Inputs are tables with a ``document_ref`` column (an opaque reference chosen by the caller)
plus the record columns of the single-document contract: Arrow tables, Polars frames, or
Parquet / Arrow IPC / JSONL / CSV files or directories of them (hive partitioning allowed).
The per-document contract is exactly that of :func:`citelens.compute_citation_support_metrics`
(bounds apply per document). Outputs: ``documents.parquet`` (one flat row per document),
``summary.json`` and ``summary.md`` (corpus totals), and an optional pseudonymised edge-level
``edges.parquet``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa

from citelens._atomic import WriteFailure, parquet_bytes, write_many_atomic
from citelens._jsonout import canonical_json
from citelens._pseudonym import pseudonymise
from citelens.corpus._support import (
    EDGE_EXPORT_COLUMNS,
    ROLES,
    SUPPORT_DOCUMENTS_SCHEMA,
    evaluate_support_frames,
)
from citelens.errors import CorpusError
from citelens.limits import Limits
from citelens.support._kernel import REASON_CODES

__all__ = [
    "MINIMALITY_DOCUMENTS_SCHEMA",
    "SUMMARY_DOCUMENTS_SCHEMA",
    "SUPPORT_DOCUMENTS_SCHEMA",
    "CorpusError",
    "CorpusResult",
    "SupportCorpusResult",
    "evaluate_support_tables",
    "run_minimality_corpus",
    "run_summary_citations_corpus",
    "run_support_corpus",
]

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


# -- evaluation ------------------------------------------------------------------------------


def _write_outputs(
    out_dir: object,
    documents: pa.Table,
    summary_json: str,
    summary_markdown: str,
    extra: tuple[tuple[str, pa.Table | None], ...] = (),
) -> list[Path]:
    """Write a corpus run's files into ``out_dir`` as one unit (staged, then renamed)."""
    failed = False
    written: list[Path] = []
    try:
        root = Path(os.fspath(out_dir))  # type: ignore[call-overload]
        files: list[tuple[object, bytes]] = [
            (root / "documents.parquet", parquet_bytes(documents)),
            (root / "summary.json", summary_json.encode("utf-8")),
            (root / "summary.md", summary_markdown.encode("utf-8")),
        ]
        files.extend(
            (root / name, parquet_bytes(table)) for name, table in extra if table is not None
        )
        written = write_many_atomic(files)
    except (WriteFailure, TypeError, OSError):
        failed = True
    if failed:
        raise _fail("corpus report could not be written", "io")
    return written


@dataclass(frozen=True)
class SupportCorpusResult:
    """The corpus outputs: one row per document, totals, and (optionally) edges."""

    documents: pa.Table
    summary: dict[str, Any]
    edges: pa.Table | None = field(default=None, repr=False)

    def summary_json(self) -> str:
        """Canonical JSON of the corpus totals."""
        return canonical_json(self.summary)

    def summary_markdown(self) -> str:
        """A Markdown view of the corpus totals (no identifiers other than document refs)."""
        return _summary_markdown(self.summary)

    def write(self, out_dir: object) -> list[Path]:
        """Write documents.parquet, summary.json, summary.md (and edges.parquet) atomically,
        as one unit: a failure leaves none of them half-written."""
        return _write_outputs(
            out_dir,
            self.documents,
            self.summary_json(),
            self.summary_markdown(),
            (("edges.parquet", self.edges),),
        )

    def __repr__(self) -> str:
        return f"SupportCorpusResult(document_count={self.documents.num_rows})"


def _documents_table(refs: pl.DataFrame, rows: pl.DataFrame, errors: pl.DataFrame) -> pa.Table:
    ok = rows.join(refs, on=DOC, how="left").with_columns(
        pl.lit("ok").alias("status"),
        pl.lit(None, dtype=pl.String).alias("error_category"),
        pl.lit(None, dtype=pl.String).alias("error_message"),
    )
    failed = errors.join(refs, on=DOC, how="left").with_columns(pl.lit("error").alias("status"))
    combined = pl.concat([ok, failed], how="diagonal_relaxed").sort("document_ref")
    arrow = combined.select(SUPPORT_DOCUMENTS_SCHEMA.names).to_arrow()
    return pa.Table.from_arrays(
        [arrow.column(f.name).cast(f.type) for f in SUPPORT_DOCUMENTS_SCHEMA],
        schema=SUPPORT_DOCUMENTS_SCHEMA,
    )


def _summary(documents: pa.Table) -> dict[str, Any]:
    frame = pl.from_arrow(documents)
    assert isinstance(frame, pl.DataFrame)
    ok = frame.filter(pl.col("status") == "ok")
    d = "deterministic_span_checks."
    a = "clinician_adjudication."

    def total(name: str) -> int:
        return int(ok[name].sum()) if ok.height else 0

    adjudicated = total(a + "adjudicated_citation_count")
    supporting = total(a + "supporting_citation_count")
    claims = total("claim_count")
    reviewed_claims_docs = ok.filter(pl.col(a + "adjudicated_citation_count") > 0)
    supported = int(reviewed_claims_docs[a + "supported_claim_count"].sum()) if ok.height else 0
    recall_claims = int(reviewed_claims_docs["claim_count"].sum()) if ok.height else 0
    precision_values = ok["citation_precision"].drop_nulls()
    recall_values = ok["support_recall"].drop_nulls()
    reasons = {code: total(f"{d}invalid_citation_reasons.{code}") for code in REASON_CODES}
    worst = (
        ok.filter(pl.col(d + "invalid_citation_count") > 0)
        .sort([d + "invalid_citation_count", "document_ref"], descending=[True, False])
        .head(10)
    )
    errors = frame.filter(pl.col("status") == "error")
    error_counts = (
        errors.group_by("error_category", "error_message")
        .len()
        .sort("error_category", "error_message")
    )
    return {
        "suite": "citation_support_corpus",
        "schema_version": 1,
        "document_count": frame.height,
        "evaluated_document_count": ok.height,
        "failed_document_count": errors.height,
        "passed_document_count": int(ok[d + "passed"].sum()) if ok.height else 0,
        "claim_count": claims,
        "evidence_count": total("evidence_count"),
        "citation_count": total("citation_count"),
        "valid_citation_count": total(d + "valid_citation_count"),
        "invalid_citation_count": total(d + "invalid_citation_count"),
        "duplicate_citation_count": total(d + "duplicate_citation_count"),
        "orphan_claim_count": total("orphan_claim_count"),
        "unused_evidence_count": total("unused_evidence_count"),
        "adjudicated_citation_count": adjudicated,
        "invalid_citation_reasons": reasons,
        "micro_citation_precision": supporting / adjudicated if adjudicated else None,
        "micro_support_recall": supported / recall_claims if recall_claims else None,
        "macro_citation_precision": (
            float(precision_values.mean()) if precision_values.len() else None  # type: ignore[arg-type]
        ),
        "macro_support_recall": (
            float(recall_values.mean()) if recall_values.len() else None  # type: ignore[arg-type]
        ),
        "worst_documents": [
            {
                "document_ref": row["document_ref"],
                "invalid_citation_count": row[d + "invalid_citation_count"],
            }
            for row in worst.select("document_ref", d + "invalid_citation_count").to_dicts()
        ],
        "errors": [
            {
                "category": row["error_category"],
                "message": row["error_message"],
                "documents": row["len"],
            }
            for row in error_counts.to_dicts()
        ],
    }


def _score(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _summary_markdown(summary: dict[str, Any]) -> str:
    lines = [
        "# Corpus citation support summary",
        "",
        "| Metric | Value |",
        "| --- | ---: |",
        f"| Documents | {summary['document_count']} |",
        f"| Documents evaluated | {summary['evaluated_document_count']} |",
        f"| Documents failed | {summary['failed_document_count']} |",
        f"| Documents passing span checks | {summary['passed_document_count']} |",
        f"| Atomic claims | {summary['claim_count']} |",
        f"| Evidence spans | {summary['evidence_count']} |",
        f"| Citation edges | {summary['citation_count']} |",
        f"| Invalid citation edges | {summary['invalid_citation_count']} |",
        f"| Citation precision (micro) | {_score(summary['micro_citation_precision'])} |",
        f"| Citation precision (macro) | {_score(summary['macro_citation_precision'])} |",
        f"| Support recall (micro) | {_score(summary['micro_support_recall'])} |",
        f"| Support recall (macro) | {_score(summary['macro_support_recall'])} |",
        "",
        "## Invalid citation reasons",
        "",
        "| Reason | Edges |",
        "| --- | ---: |",
        *[f"| `{code}` | {count} |" for code, count in summary["invalid_citation_reasons"].items()],
        "",
        "## Documents with the most invalid citations",
        "",
        "| Document reference | Invalid edges |",
        "| --- | ---: |",
        *[
            f"| `{row['document_ref']}` | {row['invalid_citation_count']} |"
            for row in summary["worst_documents"]
        ],
        "",
        "## Failed documents",
        "",
        "| Category | Message | Documents |",
        "| --- | --- | ---: |",
        *[f"| `{e['category']}` | {e['message']} | {e['documents']} |" for e in summary["errors"]],
        "",
    ]
    return "\n".join(lines)


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


def run_support_corpus(
    claims: Any,
    evidence: Any = None,
    citations: Any = None,
    adjudications: Any = None,
    *,
    limits: Limits | None = None,
    batch_documents: int = _DEFAULT_BATCH_DOCUMENTS,
    edges: bool = False,
    raw_identifiers: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> SupportCorpusResult:
    """Evaluate citation support for every document of a corpus.

    Documents are processed in batches of ``batch_documents`` (bounded memory); each batch is
    one vectorised pass. ``edges=True`` also returns the edge-level table, identifiers
    pseudonymised with SHA-256 unless ``raw_identifiers=True`` (such output must not be
    published). ``progress(done, total)`` is called as documents complete.
    """
    if limits is not None and not isinstance(limits, Limits):
        raise _fail("limits must be a Limits instance", "policy")
    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    limits = limits or Limits()
    lazy = {
        role: _lazy(value, role)
        for role, value in zip(ROLES, (claims, evidence, citations, adjudications))
    }
    values = dict(zip(ROLES, (claims, evidence, citations, adjudications)))
    frames = {
        role: _check_schema(frame, role, _is_csv(values[role]))
        for role, frame in lazy.items()
        if frame is not None
    }
    if "claims" not in frames:
        raise _fail("claims input could not be read", "input")
    refs = _plan(frames)
    total = refs.height
    done = 0
    rows: list[pl.DataFrame] = []
    errors: list[pl.DataFrame] = []
    edge_parts: list[pl.DataFrame] = []
    for first in range(0, max(total, 1), batch_documents):
        batch = refs.slice(first, batch_documents)
        if batch.height == 0:
            break
        # Batches are contiguous in document_ref order, so a range predicate selects exactly
        # the batch and lets Parquet readers skip row groups by their min/max statistics.
        low, high = batch["document_ref"][0], batch["document_ref"][-1]
        in_batch = (pl.col("document_ref") >= low) & (pl.col("document_ref") <= high)
        tables: dict[str, pl.DataFrame] = {}
        for role in ROLES:
            if role in frames:
                collected = _collect(frames[role].filter(in_batch), role)
                tables[role] = collected.join(
                    batch, on="document_ref", how="left", maintain_order="left"
                ).drop("document_ref")
            else:
                tables[role] = pl.DataFrame(schema={DOC: pl.UInt32})

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress:
                progress(done, total)

        batch_rows, batch_errors, batch_edges = evaluate_support_frames(
            tables, batch[DOC].to_numpy(), limits, keep_edges=edges, on_documents=tick
        )
        rows.append(batch_rows)
        errors.append(batch_errors)
        if batch_edges is not None:
            edge_parts.append(batch_edges)
    row_frame = pl.concat(rows) if rows else pl.DataFrame()
    error_frame = (
        pl.concat(errors)
        if errors
        else pl.DataFrame(
            schema={DOC: pl.UInt32, "error_category": pl.String, "error_message": pl.String}
        )
    )
    if not rows:
        documents = SUPPORT_DOCUMENTS_SCHEMA.empty_table()
    else:
        documents = _documents_table(refs, row_frame, error_frame)
    edge_table = None
    if edges:
        edge_frame = (
            pl.concat(edge_parts, how="vertical_relaxed")
            if edge_parts
            else pl.DataFrame(schema={c: pl.String for c in EDGE_EXPORT_COLUMNS})
        )
        edge_frame = (
            edge_frame.join(refs, on=DOC, how="left").select(
                "document_ref", *[c for c in EDGE_EXPORT_COLUMNS if c != DOC]
            )
            if edge_frame.height
            else edge_frame.rename({DOC: "document_ref"})
        )
        if not raw_identifiers:
            edge_frame = pseudonymise(edge_frame, ["claim_id", "evidence_id", "source_id"])
        edge_table = edge_frame.sort(
            ["document_ref", "claim_id", "evidence_id", "start", "end", "source_id"],
            nulls_last=False,
        ).to_arrow()
    return SupportCorpusResult(documents=documents, summary=_summary(documents), edges=edge_table)


def evaluate_support_tables(
    claims: pa.Table,
    evidence: pa.Table | None = None,
    citations: pa.Table | None = None,
    adjudications: pa.Table | None = None,
    *,
    limits: Limits | None = None,
) -> pa.Table:
    """Evaluate in-memory corpus tables (each with ``document_ref``); returns the documents
    table (:data:`SUPPORT_DOCUMENTS_SCHEMA`), one row per document, sorted by reference.

    This is the kernel entry point used per partition by :mod:`citelens.spark`.
    """
    result = run_support_corpus(
        claims,
        evidence,
        citations,
        adjudications,
        limits=limits,
        batch_documents=2**31 - 1,
    )
    return result.documents


# -- minimality ------------------------------------------------------------------------------

MINIMALITY_DOCUMENTS_SCHEMA = pa.schema(
    [
        pa.field("document_ref", pa.large_string(), nullable=False),
        pa.field("status", pa.large_string(), nullable=False),
        pa.field("error_category", pa.large_string()),
        pa.field("error_message", pa.large_string()),
        pa.field("claim_count", pa.int64()),
        pa.field("citation_count", pa.int64()),
        pa.field("minimal_count", pa.int64()),
        pa.field("flagged_count", pa.int64()),
        pa.field("excess_context_count", pa.int64()),
        pa.field("missing_required_span_count", pa.int64()),
        pa.field("excess_token_count", pa.int64()),
    ]
)


@dataclass(frozen=True)
class CorpusResult:
    """Corpus outputs of a mode: per-document rows, totals and a per-record table."""

    documents: pa.Table
    summary: dict[str, Any]
    records: pa.Table | None = field(default=None, repr=False)
    records_name: str = "records.parquet"

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


def _batches(refs: pl.DataFrame, size: int) -> list[pl.DataFrame]:
    return [refs.slice(first, size) for first in range(0, refs.height, size)]


def _batch_frames(frames: dict[str, pl.LazyFrame], batch: pl.DataFrame) -> dict[str, pl.DataFrame]:
    low, high = batch["document_ref"][0], batch["document_ref"][-1]
    in_batch = (pl.col("document_ref") >= low) & (pl.col("document_ref") <= high)
    return {role: _collect(frame.filter(in_batch), role) for role, frame in frames.items()}


def _totals_errors(frame: pl.DataFrame) -> list[dict[str, Any]]:
    errors = frame.filter(pl.col("status") == "error")
    counts = errors.group_by("error_category", "error_message").len()
    return [
        {"category": r["error_category"], "message": r["error_message"], "documents": r["len"]}
        for r in counts.sort("error_category", "error_message").to_dicts()
    ]


def run_minimality_corpus(
    documents: Any,
    claims: Any,
    citations: Any,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
    batch_documents: int = _DEFAULT_BATCH_DOCUMENTS,
    progress: Callable[[int, int], None] | None = None,
) -> CorpusResult:
    """Citation minimality for every document of a corpus.

    ``documents`` holds ``document_ref`` and ``source_text``; ``claims`` and ``citations``
    hold ``document_ref`` plus the minimality record columns. Each batch is one call of
    :func:`citelens.minimality.check_citation_minimality_batch` (one tokenisation pass for
    all its documents); a failing document is reported with its fixed category and message.
    """
    from citelens.errors import CitationMinimalityError
    from citelens.minimality._api import check_citation_minimality_batch

    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    values = {"documents": documents, "claims": claims, "citations": citations}
    frames: dict[str, pl.LazyFrame] = {}
    for role, value in values.items():
        lazy = _lazy(value, role)
        if lazy is None:
            raise _fail(f"{role} input could not be read", "input")
        schema = _check_schema(lazy, role, False).collect_schema()
        if role == "documents" and "source_text" not in schema:
            raise _fail("documents input requires a source_text column", "input")
        frames[role] = lazy.with_columns(pl.col("document_ref").cast(pl.String))
    refs = _plan(frames)
    done = 0
    doc_parts: list[pa.Table] = []
    record_parts: list[pa.Table] = []
    error_parts: list[pa.Table] = []
    for batch in _batches(refs, batch_documents):
        tables = _batch_frames(frames, batch)
        known = tables["documents"].select("document_ref")
        missing = batch.join(known, on="document_ref", how="anti")["document_ref"]
        if missing.len():
            tables["documents"] = pl.concat(
                [
                    tables["documents"],
                    pl.DataFrame({"document_ref": missing, "source_text": [""] * missing.len()}),
                ],
                how="diagonal_relaxed",
            )
        failed: tuple[str, str] | None = None
        try:
            result = check_citation_minimality_batch(
                tables["documents"].select("document_ref", "source_text").to_arrow(),
                tables["claims"].to_arrow(),
                tables["citations"].to_arrow(),
                max_excess_tokens=max_excess_tokens,
                limits=limits,
                max_documents=max(batch.height, 1),
                errors="collect",
            )
        except CitationMinimalityError as exc:
            failed = (exc.args[0], exc.category)
        if failed is not None:
            raise _fail("minimality corpus input is invalid", "input")
        doc_parts.append(result.documents)
        record_parts.append(result.table)
        error_parts.append(result.errors)
        if missing.len():
            error_parts.append(
                pa.table(
                    {
                        "document_ref": pa.array(missing.to_list(), pa.string()),
                        "category": pa.array(["reference"] * missing.len(), pa.string()),
                        "message": pa.array(
                            ["document reference has no source text"] * missing.len(), pa.string()
                        ),
                    }
                )
            )
        done += batch.height
        if progress:
            progress(done, refs.height)
    records = _concat_tables(record_parts)
    per_doc = _concat_frames(doc_parts)
    errors = _concat_frames(error_parts)
    rec = pl.from_arrow(records) if records is not None else None
    if isinstance(rec, pl.DataFrame) and rec.height:
        extra = rec.group_by("document_ref").agg(
            (pl.col("status") == "excess_context").sum().alias("excess_context_count"),
            (pl.col("status") == "missing_required_span")
            .sum()
            .alias("missing_required_span_count"),
            pl.col("excess_token_count").sum().alias("excess_token_count"),
        )
    else:
        extra = pl.DataFrame(
            schema={
                "document_ref": pl.String,
                "excess_context_count": pl.Int64,
                "missing_required_span_count": pl.Int64,
                "excess_token_count": pl.Int64,
            }
        )
    ok = (
        per_doc.join(extra, on="document_ref", how="left").with_columns(
            pl.col("excess_context_count", "missing_required_span_count", "excess_token_count")
            .fill_null(0)
            .cast(pl.Int64),
            pl.lit("ok").alias("status"),
        )
        if per_doc.height
        else pl.DataFrame()
    )
    failed_rows = (
        errors.rename({"category": "error_category", "message": "error_message"}).with_columns(
            pl.lit("error").alias("status")
        )
        if errors.height
        else pl.DataFrame()
    )
    combined = pl.concat([f for f in (ok, failed_rows) if f.height], how="diagonal_relaxed")
    if combined.height:
        combined = combined.with_columns(
            *(
                pl.lit(None, dtype=pl.String).alias(c)
                for c in ("error_category", "error_message")
                if c not in combined.columns
            )
        )
        arrow = combined.sort("document_ref").select(MINIMALITY_DOCUMENTS_SCHEMA.names).to_arrow()
        documents_table = pa.Table.from_arrays(
            [arrow.column(f.name).cast(f.type) for f in MINIMALITY_DOCUMENTS_SCHEMA],
            schema=MINIMALITY_DOCUMENTS_SCHEMA,
        )
    else:
        documents_table = MINIMALITY_DOCUMENTS_SCHEMA.empty_table()
    frame = pl.from_arrow(documents_table)
    assert isinstance(frame, pl.DataFrame)
    okf = frame.filter(pl.col("status") == "ok")
    citations_total = int(okf["citation_count"].sum()) if okf.height else 0
    flagged_total = int(okf["flagged_count"].sum()) if okf.height else 0
    worst = (
        okf.filter(pl.col("flagged_count") > 0)
        .sort(["flagged_count", "document_ref"], descending=[True, False])
        .head(10)
    )
    summary = {
        "suite": "citation_minimality_corpus",
        "schema_version": 1,
        "title": "Corpus citation minimality summary",
        "totals": {
            "documents": frame.height,
            "documents_evaluated": okf.height,
            "documents_failed": frame.height - okf.height,
            "claims": int(okf["claim_count"].sum()) if okf.height else 0,
            "citations": citations_total,
            "minimal": int(okf["minimal_count"].sum()) if okf.height else 0,
            "flagged": flagged_total,
            "excess_context": int(okf["excess_context_count"].sum()) if okf.height else 0,
            "missing_required_span": int(okf["missing_required_span_count"].sum())
            if okf.height
            else 0,
            "excess_tokens": int(okf["excess_token_count"].sum()) if okf.height else 0,
            "flagged_rate": flagged_total / citations_total if citations_total else 0.0,
        },
        "worst_documents": [
            {"document_ref": r["document_ref"], "flagged_count": r["flagged_count"]}
            for r in worst.select("document_ref", "flagged_count").to_dicts()
        ],
        "errors": _totals_errors(frame),
    }
    return CorpusResult(
        documents=documents_table,
        summary=summary,
        records=records,
        records_name="citations.parquet",
    )


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


# -- summary citations -----------------------------------------------------------------------


def _summary_documents_schema() -> pa.Schema:
    from citelens.summary_citations._columnar import DOCUMENT_COLUMNS

    types: dict[str, pa.DataType] = {
        "schema_version": pa.int64(),
        "coverage": pa.float64(),
        "abstention_rate": pa.float64(),
        "evidence_coverage": pa.float64(),
        "source_evidence_available": pa.bool_(),
        "fail_closed": pa.bool_(),
        "passed": pa.bool_(),
        "failure_reasons": pa.list_(pa.large_string()),
    }
    fields = [
        pa.field("document_ref", pa.large_string(), nullable=False),
        pa.field("status", pa.large_string(), nullable=False),
        pa.field("error_category", pa.large_string()),
        pa.field("error_message", pa.large_string()),
    ]
    fields += [pa.field(name, types.get(name, pa.int64())) for name in DOCUMENT_COLUMNS[4:]]
    return pa.schema(fields)


SUMMARY_DOCUMENTS_SCHEMA = _summary_documents_schema()
"""documents.parquet of the summary-citations mode: ``document_ref``, ``status``,
``error_category``, ``error_message``, the 24 fields of ``SummaryCitationMetrics.to_dict()``
(null on error rows), then ``failure_reasons.<code>`` (1 when the document has that reason)."""

_SUMMARY_REASON_CODES = tuple(
    f.name.removeprefix("failure_reasons.")
    for f in SUMMARY_DOCUMENTS_SCHEMA
    if f.name.startswith("failure_reasons.")
)


def _check_ref_column(frame: pl.LazyFrame, role: str) -> pl.LazyFrame:
    """``document_ref`` present, text, cast to String (no support-contract column typing)."""
    failed = False
    schema: pl.Schema | None = None
    try:
        schema = frame.collect_schema()
    except Exception:
        failed = True
    if failed or schema is None:
        raise _fail(f"{role} input could not be read", "input")
    if "document_ref" not in schema:
        raise _fail(f"{role} input requires a document_ref column", "input")
    if schema["document_ref"] not in (pl.String, pl.Categorical):
        raise _fail(f"{role} column document_ref must be text", "input")
    return frame.with_columns(pl.col("document_ref").cast(pl.String))


class _SummaryCorpusResult(CorpusResult):
    """:class:`CorpusResult` of the summary-citations mode (its own Markdown view)."""

    def summary_markdown(self) -> str:
        """A Markdown view of the corpus totals (document references only)."""
        s = self.summary
        t = s["totals"]
        lines = [f"# {s['title']}", "", "| Metric | Value |", "| --- | ---: |"]
        for key, value in t.items():
            shown = _score(value) if value is None or isinstance(value, float) else value
            lines.append(f"| {key} | {shown} |")
        lines += ["", "## Failure reasons", "", "| Reason | Documents |", "| --- | ---: |"]
        lines += [f"| `{code}` | {count} |" for code, count in s["failure_reasons"].items()]
        lines += ["", "## Documents with the most uncovered claims", ""]
        lines += ["| Document reference | Uncovered claims | Claims | Coverage |"]
        lines += ["| --- | ---: | ---: | ---: |"]
        lines += [
            f"| `{r['document_ref']}` | {r['uncovered_claim_count']} | {r['claim_count']} "
            f"| {_score(r['coverage'])} |"
            for r in s["worst_documents"]
        ]
        lines += ["", "## Failed documents", "", "| Category | Message | Documents |"]
        lines += ["| --- | --- | ---: |"]
        lines += [f"| `{e['category']}` | {e['message']} | {e['documents']} |" for e in s["errors"]]
        lines.append("")
        return "\n".join(lines)


def _summary_citation_totals(documents: pa.Table) -> dict[str, Any]:
    frame = pl.from_arrow(documents)
    assert isinstance(frame, pl.DataFrame)
    ok = frame.filter(pl.col("status") == "ok")
    # A claim is covered when it is supported in a document that does not fail closed, so
    # micro coverage agrees with the per-document coverage (0.0 when failing closed).
    ok = ok.with_columns(
        pl.when(pl.col("source_evidence_available"))
        .then(pl.col("supported_claim_count"))
        .otherwise(0)
        .alias("_covered"),
    ).with_columns((pl.col("claim_count") - pl.col("_covered")).alias("_uncovered"))

    def total(name: str) -> int:
        return int(ok[name].sum()) if ok.height else 0

    claims = total("claim_count")
    covered = total("_covered")
    worst = (
        ok.filter(pl.col("_uncovered") > 0)
        .sort(["_uncovered", "document_ref"], descending=[True, False])
        .head(10)
    )
    return {
        "suite": "summary_citation_corpus",
        "schema_version": 1,
        "title": "Corpus summary citation consistency",
        "totals": {
            "documents": frame.height,
            "documents_evaluated": ok.height,
            "documents_failed": frame.height - ok.height,
            "documents_passing": int(ok["passed"].sum()) if ok.height else 0,
            "documents_failing_closed": int(ok["fail_closed"].sum()) if ok.height else 0,
            "claims": claims,
            "covered_claims": covered,
            "supported_claims": total("supported_claim_count"),
            "unsupported_claims": total("unsupported_claim_count"),
            "citations": total("citation_count"),
            "valid_citations": total("valid_citation_count"),
            "invalid_citations": total("invalid_citation_count"),
            "duplicate_citations": total("duplicate_citation_count"),
            "missing_citations": total("missing_citation_count"),
            "missing_source_records": total("missing_source_record_count"),
            "unavailable_spans": total("unavailable_span_count"),
            "evidence_records": total("evidence_record_count"),
            "invalid_evidence_records": total("invalid_evidence_record_count"),
            "duplicate_evidence_records": total("duplicate_evidence_record_count"),
            "micro_coverage": covered / claims if claims else None,
            "macro_coverage": float(ok["coverage"].mean()) if ok.height else None,  # type: ignore[arg-type]
            "micro_abstention_rate": (
                total("unsupported_claim_count") / claims if claims else None
            ),
            "macro_abstention_rate": (
                float(ok["abstention_rate"].mean()) if ok.height else None  # type: ignore[arg-type]
            ),
        },
        "failure_reasons": {
            code: total(f"failure_reasons.{code}") for code in _SUMMARY_REASON_CODES
        },
        "worst_documents": [
            {
                "document_ref": r["document_ref"],
                "uncovered_claim_count": r["_uncovered"],
                "claim_count": r["claim_count"],
                "coverage": r["coverage"],
            }
            for r in worst.select(
                "document_ref", "_uncovered", "claim_count", "coverage"
            ).to_dicts()
        ],
        "errors": _totals_errors(frame),
    }


def _summary_batch(
    tables: dict[str, pl.DataFrame], limits: Limits, csv: tuple[bool, bool]
) -> pl.DataFrame:
    from citelens.summary_citations._columnar import summary_metrics_by_document

    failed = False
    rows: pl.DataFrame | None = None
    try:
        rows = summary_metrics_by_document(
            tables["claims"].to_arrow(), tables["evidence"].to_arrow(), limits, csv=csv
        )
    except Exception:
        failed = True
    if failed or rows is None:
        raise _fail("summary citation corpus input is invalid", "input")
    return rows


def run_summary_citations_corpus(
    claims: Any,
    evidence: Any = None,
    *,
    limits: Limits | None = None,
    batch_documents: int = _DEFAULT_BATCH_DOCUMENTS,
    progress: Callable[[int, int], None] | None = None,
) -> CorpusResult:
    """Summary citation consistency for every document of a corpus.

    ``claims`` and ``evidence`` hold ``document_ref`` plus the record columns of
    :mod:`citelens.summary_citations` (files, directories, Arrow tables or Polars frames).
    Every document's row equals ``build_summary_citation_report`` on that document's rows
    alone (bounds from ``limits`` per document); a document that would raise is reported with
    status ``"error"`` and the fixed message and category. Each batch of ``batch_documents``
    documents is one vectorised pass. ``progress(done, total)`` is called per batch.
    """
    if limits is not None and not isinstance(limits, Limits):
        raise _fail("limits must be a Limits instance", "policy")
    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    limits = limits or Limits()
    values = {"claims": claims, "evidence": evidence}
    frames: dict[str, pl.LazyFrame] = {}
    for role, value in values.items():
        lazy = _lazy(value, role)
        if lazy is None:
            if role == "claims":
                raise _fail("claims input could not be read", "input")
            continue
        frames[role] = _check_ref_column(lazy, role)
    csv = (_is_csv(claims), _is_csv(evidence))
    refs = _plan(frames)
    parts: list[pl.DataFrame] = []
    done = 0
    for batch in _batches(refs, batch_documents):
        tables = _batch_frames(frames, batch)
        if "evidence" not in tables:
            tables["evidence"] = pl.DataFrame(schema={"document_ref": pl.String})
        parts.append(_summary_batch(tables, limits, csv))
        done += batch.height
        if progress:
            progress(done, refs.height)
    if parts:
        arrow = pl.concat(parts).sort("document_ref").to_arrow()
        documents = pa.Table.from_arrays(
            [arrow.column(f.name).cast(f.type) for f in SUMMARY_DOCUMENTS_SCHEMA],
            schema=SUMMARY_DOCUMENTS_SCHEMA,
        )
    else:
        documents = SUMMARY_DOCUMENTS_SCHEMA.empty_table()
    return _SummaryCorpusResult(documents=documents, summary=_summary_citation_totals(documents))
