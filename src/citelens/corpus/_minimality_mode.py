"""Corpus mode of citation minimality.

Each batch of documents is one evaluation of the minimality engine
(:func:`citelens.minimality._check.evaluate_split`): every document of the batch is read,
checked and counted in the same pass, and a defective document gets its ``status = "error"``
row with exactly the category and message the single-document call raises for it. Nothing is
re-run per document, so the cost does not depend on how many documents are defective.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from citelens._fixed import attempt
from citelens.corpus._outputs import CorpusResult, _concat_tables, _totals_errors
from citelens.corpus._pipeline import phase
from citelens.corpus._pseudonyms import run_key, worst_documents
from citelens.corpus._scan import (
    _DEFAULT_BATCH_DOCUMENTS,
    _batch_frames,
    _batches,
    _check_schema,
    _fail,
    _lazy,
    _plan,
)
from citelens.errors import CitationMinimalityError
from citelens.limits import Limits
from citelens.minimality._check import (
    BATCH_TABLE_SCHEMA,
    DOCUMENTS_SCHEMA,
    ERRORS_SCHEMA,
    batch_options,
    evaluate_split,
)
from citelens.minimality._rules import identifier_mask
from citelens.types import CorpusInput

__all__ = ["MINIMALITY_DOCUMENTS_SCHEMA", "run_minimality_corpus"]

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
_POLARS_SCHEMA = {
    "document_ref": pl.String,
    "status": pl.String,
    "error_category": pl.String,
    "error_message": pl.String,
    "claim_count": pl.Int64,
    "citation_count": pl.Int64,
    "minimal_count": pl.Int64,
    "flagged_count": pl.Int64,
    "excess_context_count": pl.Int64,
    "missing_required_span_count": pl.Int64,
    "excess_token_count": pl.Int64,
}
_NO_SOURCE = ("document reference has no source text", "reference")
_INVALID = "minimality corpus input is invalid"


def _frame(table: pa.Table) -> pl.DataFrame:
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    return frame


def _batch_rows(
    tables: dict[str, pl.DataFrame], batch: pl.DataFrame, max_excess: int, bounds: tuple[int, int]
) -> tuple[pl.DataFrame, pa.Table]:
    """One batch: its per-document rows (schema :data:`_POLARS_SCHEMA`) and its records."""
    refs = batch["document_ref"].to_list()
    documents = tables["documents"]
    if documents["document_ref"].is_duplicated().any():
        raise _fail(_INVALID, "input")
    joined = batch.select("document_ref").join(
        documents.select("document_ref", "source_text").with_columns(pl.lit(True).alias("_known")),
        on="document_ref",
        how="left",
    )
    # document_ref follows the minimality identifier rule (§4), as in the batch form.
    if not bool(identifier_mask(pa.array(refs, pa.string())).all()):
        raise _fail(_INVALID, "input")
    known = joined["_known"].fill_null(False).to_numpy()
    texts = (
        joined["source_text"].to_list()
        if joined.schema["source_text"] == pl.String
        else [None] * len(refs)
    )
    errors = {int(doc): _NO_SOURCE for doc in np.flatnonzero(~known)}
    failure: CitationMinimalityError | None = None
    result = None
    try:
        result = evaluate_split(
            refs,
            texts,
            tables["claims"].to_arrow(),
            tables["citations"].to_arrow(),
            max_excess=max_excess,
            bounds=bounds,
            errors=errors,
        )
    except CitationMinimalityError as exc:  # a whole-input problem (not one document's)
        failure = exc
    if failure is not None or result is None:
        raise _fail(_INVALID, "input")
    records = (
        _frame(result.table) if result.table.num_rows else _frame(BATCH_TABLE_SCHEMA.empty_table())
    )
    extra = records.group_by("document_ref").agg(
        (pl.col("status") == "excess_context").sum().cast(pl.Int64).alias("excess_context_count"),
        (pl.col("status") == "missing_required_span")
        .sum()
        .cast(pl.Int64)
        .alias("missing_required_span_count"),
        pl.col("excess_token_count").sum().cast(pl.Int64).alias("excess_token_count"),
    )
    ok = (
        _frame(result.documents if result.documents.num_rows else DOCUMENTS_SCHEMA.empty_table())
        .join(extra, on="document_ref", how="left")
        .with_columns(
            pl.col("excess_context_count", "missing_required_span_count", "excess_token_count")
            .fill_null(0)
            .cast(pl.Int64),
            pl.lit("ok").alias("status"),
            pl.lit(None, dtype=pl.String).alias("error_category"),
            pl.lit(None, dtype=pl.String).alias("error_message"),
        )
    )
    failed = _frame(result.errors if result.errors.num_rows else ERRORS_SCHEMA.empty_table())
    failed = failed.select(
        pl.col("document_ref"),
        pl.lit("error").alias("status"),
        pl.col("category").alias("error_category"),
        pl.col("message").alias("error_message"),
        *(pl.lit(None, dtype=pl.Int64).alias(name) for name in list(_POLARS_SCHEMA)[4:]),
    )
    rows = pl.concat(
        [
            ok.select(list(_POLARS_SCHEMA)).cast(_POLARS_SCHEMA),  # type: ignore[arg-type]
            failed.select(list(_POLARS_SCHEMA)).cast(_POLARS_SCHEMA),  # type: ignore[arg-type]
        ]
    )
    return rows, result.table


def _run(
    documents: Any,
    claims: Any,
    citations: Any,
    max_excess_tokens: Any,
    limits: Any,
    batch_documents: Any,
    progress: Callable[[int, int], None] | None,
    key: bytes | None,
) -> CorpusResult:
    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    options_failure: CitationMinimalityError | None = None
    try:
        max_excess, claims_bound, citations_bound = batch_options(
            max_excess_tokens, limits, 1, "collect"
        )
    except CitationMinimalityError as exc:
        options_failure = exc
    if options_failure is not None:  # the message corpus mode has always given for it
        raise _fail(_INVALID, "input")
    phase(progress, "reading")
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
    phase(progress, "evaluating", refs.height)
    done = 0
    row_parts: list[pl.DataFrame] = []
    record_parts: list[pa.Table] = []
    for batch in _batches(refs, batch_documents):
        tables = _batch_frames(frames, batch)
        rows, records = _batch_rows(tables, batch, max_excess, (claims_bound, citations_bound))
        row_parts.append(rows)
        record_parts.append(records)
        done += batch.height
        if progress:
            progress(done, refs.height)
    phase(progress, "writing", step="summary")
    frame = (
        pl.concat(row_parts).sort("document_ref")
        if row_parts
        else pl.DataFrame(schema=_POLARS_SCHEMA)
    )
    arrow = frame.to_arrow()
    documents_table = pa.Table.from_arrays(
        [arrow.column(f.name).cast(f.type) for f in MINIMALITY_DOCUMENTS_SCHEMA],
        schema=MINIMALITY_DOCUMENTS_SCHEMA,
    )
    records = _concat_tables(record_parts)
    if records is None:
        # A run where no document produced a record (every one defective, or none cited)
        # still writes its complete set: citations.parquet with the schema and no rows.
        records = BATCH_TABLE_SCHEMA.empty_table()
    return CorpusResult(
        documents=documents_table,
        summary=_summary(frame, key),
        records=records,
        records_name="citations.parquet",
    )


def _summary(frame: pl.DataFrame, key: bytes | None) -> dict[str, Any]:
    okf = frame.filter(pl.col("status") == "ok")

    def total(name: str) -> int:
        return int(okf[name].sum()) if okf.height else 0

    citations_total = total("citation_count")
    flagged_total = total("flagged_count")
    # the refs shown are keyed pseudonyms (issue 10), as in the other corpus modes: a
    # minimality ref is opaque (`sha256:` + hex) but may be a plain digest of a guessable name
    worst = worst_documents(okf.filter(pl.col("flagged_count") > 0), "flagged_count", key)
    return {
        "suite": "citation_minimality_corpus",
        "schema_version": 1,
        "title": "Corpus citation minimality summary",
        "totals": {
            "documents": frame.height,
            "documents_evaluated": okf.height,
            "documents_failed": frame.height - okf.height,
            "claims": total("claim_count"),
            "citations": citations_total,
            "minimal": total("minimal_count"),
            "flagged": flagged_total,
            "excess_context": total("excess_context_count"),
            "missing_required_span": total("missing_required_span_count"),
            "excess_tokens": total("excess_token_count"),
            "flagged_rate": flagged_total / citations_total if citations_total else 0.0,
        },
        "worst_documents": [
            {"document_ref": r["document_ref"], "flagged_count": r["flagged_count"]}
            for r in worst.select("document_ref", "flagged_count").to_dicts()
        ],
        "errors": _totals_errors(frame),
    }


def run_minimality_corpus(
    documents: CorpusInput,
    claims: CorpusInput,
    citations: CorpusInput,
    *,
    max_excess_tokens: int = 0,
    limits: Limits | None = None,
    batch_documents: int = _DEFAULT_BATCH_DOCUMENTS,
    raw_identifiers: bool = False,
    pseudonym_key: bytes | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CorpusResult:
    """Citation minimality for every document of a corpus.

    ``documents`` holds ``document_ref`` and ``source_text``; ``claims`` and ``citations``
    hold ``document_ref`` plus the minimality record columns. Each batch is one evaluation of
    the minimality engine (one tokenisation pass for all its documents); a failing document is
    reported with the fixed category and message the single-document call raises for it.
    Raises :class:`citelens.errors.CorpusError` for unusable input and
    :class:`citelens.errors.InternalError` for anything that is not an input problem.

    The document refs ``summary.json``/``summary.md`` name are keyed pseudonyms under
    ``pseudonym_key`` (bytes, at least 16; ``None``: a random key for this run) unless
    ``raw_identifiers=True``; ``documents`` keeps the refs as given. ``progress(done, total)``
    is called per batch; a ``progress`` with a ``phase`` method is also told the phases of the
    run (:class:`citelens.corpus._pipeline.PhaseProgress`).
    """
    return attempt(
        lambda: _run(
            documents,
            claims,
            citations,
            max_excess_tokens,
            limits,
            batch_documents,
            progress,
            run_key(raw_identifiers, pseudonym_key),
        )
    )
