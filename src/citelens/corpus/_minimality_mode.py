"""Corpus mode of citation minimality."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pyarrow as pa

from citelens.corpus._outputs import CorpusResult, _concat_frames, _concat_tables, _totals_errors
from citelens.corpus._scan import (
    _DEFAULT_BATCH_DOCUMENTS,
    _batch_frames,
    _batches,
    _check_schema,
    _fail,
    _lazy,
    _plan,
)
from citelens.limits import Limits

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
