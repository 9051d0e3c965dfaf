"""Corpus mode of citation support: documents.parquet, summary.json/.md and edges.parquet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from citelens._fixed import attempt
from citelens._jsonout import canonical_json
from citelens.corpus._edges import EDGE_TABLE_SCHEMA, EdgeBatch, edge_batch, empty_edge_batch
from citelens.corpus._outputs import OutputSet, _score, _write_outputs
from citelens.corpus._pipeline import BATCH_WORKERS, ordered_map, phase
from citelens.corpus._pseudonyms import run_key, worst_documents
from citelens.corpus._scan import (
    DOC,
    _check_schema,
    _collect,
    _fail,
    _is_csv,
    _lazy,
    _plan,
)
from citelens.corpus._support import (
    ROLES,
    SUPPORT_DOCUMENTS_SCHEMA,
    evaluate_support_frames,
)
from citelens.limits import Limits
from citelens.support._kernel import REASON_CODES
from citelens.types import CorpusInput

# Documents per batch: peak memory grows with the batch (measured: one batch of 20,000
# documents of 105 edges peaks at about 1.6 GiB, batches of 5,000 at about 0.75 GiB at 1 M and
# 10 M edges alike) while time per edge barely changes (benchmarks/README.md, issue 9).
SUPPORT_BATCH_DOCUMENTS = 5_000


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
        """A Markdown view of the corpus totals (no identifiers other than the document
        refs of ``summary``, pseudonymised unless the run kept raw identifiers)."""
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

    def to_arrow(self) -> pa.Table:
        """:attr:`documents`: one row per document (the table of ``documents.parquet``)."""
        return self.documents

    def to_polars(self) -> pl.DataFrame:
        """:attr:`documents` as a Polars frame (:attr:`edges` stays Arrow)."""
        from citelens.io._values import polars_frame

        return polars_frame(self.documents)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The Arrow PyCapsule stream of :attr:`documents` (``pa.table(result)``,
        ``pl.DataFrame(result)``, DuckDB read one row per document)."""
        return self.documents.__arrow_c_stream__(requested_schema)

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


def _summary(documents: pa.Table, key: bytes | None) -> dict[str, Any]:
    """The corpus totals of ``documents``; the document refs it names are pseudonymised under
    ``key`` (raw when ``key`` is ``None``)."""
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
    worst = worst_documents(
        ok.filter(pl.col(d + "invalid_citation_count") > 0), d + "invalid_citation_count", key
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


def run_support_corpus(
    claims: CorpusInput,
    evidence: CorpusInput | None = None,
    citations: CorpusInput | None = None,
    adjudications: CorpusInput | None = None,
    *,
    limits: Limits | None = None,
    batch_documents: int = SUPPORT_BATCH_DOCUMENTS,
    edges: bool = False,
    raw_identifiers: bool = False,
    pseudonym_key: bytes | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SupportCorpusResult:
    """Evaluate citation support for every document of a corpus.

    Documents are processed in batches of ``batch_documents`` (bounded memory); each batch is
    one vectorised pass. ``edges=True`` also returns the edge-level table. Its identifiers
    and the document refs of ``summary`` are pseudonymised as ``"hmac-sha256:" + hex`` of
    HMAC-SHA-256 under ``pseudonym_key`` (bytes, at least 16), or under a random key drawn
    for this run when it is ``None`` (pseudonyms then link rows within this run only), unless
    ``raw_identifiers=True`` (such output must not be published). ``progress(done, total)``
    is called as documents complete; a ``progress`` with a ``phase`` method is also told the
    phases of the run (:class:`citelens.corpus._pipeline.PhaseProgress`).
    """
    return attempt(
        lambda: _run_support_corpus(
            claims=claims,
            evidence=evidence,
            citations=citations,
            adjudications=adjudications,
            limits=limits,
            batch_documents=batch_documents,
            edges=edges,
            key=run_key(raw_identifiers, pseudonym_key),
            progress=progress,
        )
    )


@dataclass(frozen=True)
class _Batch:
    """One evaluated batch: its documents rows (sorted) and its edges (when asked)."""

    documents: pa.Table
    edges: EdgeBatch | None


def _support_batches(
    claims: Any,
    evidence: Any,
    citations: Any,
    adjudications: Any,
    *,
    limits: Limits | None,
    batch_documents: int,
    edges: bool,
    key: bytes | None,
    progress: Callable[[int, int], None] | None,
) -> Iterator[_Batch]:
    """Plan the corpus, then evaluate it batch by batch (documents in ``document_ref`` order);
    only one batch's rows are in memory at a time. Edge identifiers are pseudonymised under
    the run's ``key`` (raw when ``None``)."""
    if limits is not None and not isinstance(limits, Limits):
        raise _fail("limits must be a Limits instance", "policy")
    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    resolved = limits or Limits()
    phase(progress, "reading")
    values = dict(zip(ROLES, (claims, evidence, citations, adjudications)))
    lazy = {role: _lazy(value, role) for role, value in values.items()}
    frames = {
        role: _check_schema(frame, role, _is_csv(values[role]))
        for role, frame in lazy.items()
        if frame is not None
    }
    if "claims" not in frames:
        raise _fail("claims input could not be read", "input")
    refs = _plan(frames)
    total = refs.height
    phase(progress, "evaluating", total)

    def evaluate(batch: pl.DataFrame) -> _Batch:
        # Batches are contiguous in document_ref order, so a range predicate selects exactly
        # the batch and lets Parquet readers skip row groups by their min/max statistics.
        # Each row's document code is computed in the scan (the batch's references as the
        # categories of an Enum, whose physical code is the position in the batch), so the
        # collected tables never hold the reference strings.
        low, high = batch["document_ref"][0], batch["document_ref"][-1]
        in_batch = (pl.col("document_ref") >= low) & (pl.col("document_ref") <= high)
        position = pl.col("document_ref").cast(pl.Enum(batch["document_ref"])).to_physical()
        code = (position.cast(pl.UInt32) + int(batch[DOC][0])).alias(DOC)
        tables: dict[str, pl.DataFrame] = {}
        for role in ROLES:
            if role in frames:
                query = frames[role].filter(in_batch).with_columns(code).drop("document_ref")
                tables[role] = _collect(query, role)
            else:
                tables[role] = pl.DataFrame(schema={DOC: pl.UInt32})
        rows, errors, batch_edges = evaluate_support_frames(
            tables, batch[DOC].to_numpy(), resolved, keep_edges=edges
        )
        del tables  # the batch's input rows are no longer needed
        documents = _documents_table(batch, rows, errors)
        edge_codes = None
        if edges:
            edge_codes = (
                edge_batch(batch_edges, batch, key is None, key)
                if batch_edges is not None
                else empty_edge_batch()
            )
        return _Batch(documents, edge_codes)

    batches = (refs.slice(first, batch_documents) for first in range(0, total, batch_documents))
    done = 0
    for result in ordered_map(evaluate, batches, BATCH_WORKERS):
        count = result.documents.num_rows
        yield result
        del result  # written by the consumer: not held while the next batches run
        done += count
        if progress:
            progress(done, total)
    phase(progress, "writing")


def _run_support_corpus(**options: Any) -> SupportCorpusResult:
    documents: list[pa.Table] = []
    edge_parts: list[pa.Table] = []
    for batch in _support_batches(**options):
        documents.append(batch.documents)
        if batch.edges is not None:
            edge_parts.append(batch.edges.table())
    table = pa.concat_tables(documents) if documents else SUPPORT_DOCUMENTS_SCHEMA.empty_table()
    edge_table = None
    if options["edges"]:
        edge_table = pa.concat_tables(edge_parts) if edge_parts else EDGE_TABLE_SCHEMA.empty_table()
    phase(options["progress"], "writing", step="summary")
    summary = _summary(table, options["key"])
    return SupportCorpusResult(documents=table, summary=summary, edges=edge_table)


def write_support_corpus(
    claims: CorpusInput,
    evidence: CorpusInput | None = None,
    citations: CorpusInput | None = None,
    adjudications: CorpusInput | None = None,
    *,
    out_dir: object,
    limits: Limits | None = None,
    batch_documents: int = SUPPORT_BATCH_DOCUMENTS,
    edges: bool = False,
    raw_identifiers: bool = False,
    pseudonym_key: bytes | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Evaluate a corpus like :func:`run_support_corpus`, streaming ``documents.parquet`` (and
    ``edges.parquet``) batch by batch into ``out_dir``, so memory holds one batch, never the
    whole corpus; ``summary.json`` and ``summary.md`` follow. The files are committed as one
    set (a failure or Ctrl-C leaves none of them). Identifiers and summary document refs are
    pseudonymised as in :func:`run_support_corpus`. Returns the corpus totals."""

    def run() -> dict[str, Any]:
        key = run_key(raw_identifiers, pseudonym_key)
        with OutputSet(out_dir) as out:
            out.open_table("documents.parquet", SUPPORT_DOCUMENTS_SCHEMA)
            if edges:
                out.open_table("edges.parquet", EDGE_TABLE_SCHEMA)
            else:
                out.remove("edges.parquet")  # an earlier run's edges belong to its own set
            for batch in _support_batches(
                claims,
                evidence,
                citations,
                adjudications,
                limits=limits,
                batch_documents=batch_documents,
                edges=edges,
                key=key,
                progress=progress,
            ):
                out.write_batch("documents.parquet", batch.documents)
                if batch.edges is not None:
                    for part in batch.edges.slices():  # text materialised slice by slice
                        out.write_batch("edges.parquet", part)
                del batch  # released before the next batch is awaited
            # read through a Python file object: Arrow cannot open a path that is not UTF-8
            # (an output directory named by undecodable bytes), Python can
            phase(progress, "writing", step="parquet")
            with out.finish_table("documents.parquet").open("rb") as staged:
                documents = pq.read_table(staged)
            phase(progress, "writing", step="summary")
            summary = _summary(documents, key)
            out.write_text("summary.json", canonical_json(summary))
            out.write_text("summary.md", _summary_markdown(summary))
            phase(progress, "writing", step="publish")  # fsync every file, then rename
            out.commit()
        return summary

    return attempt(run)


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
