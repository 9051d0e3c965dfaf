"""Corpus mode of summary citation consistency."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pyarrow as pa

from citelens._fixed import attempt
from citelens.corpus._outputs import CorpusResult, _score, _totals_errors
from citelens.corpus._pipeline import phase
from citelens.corpus._pseudonyms import run_key, worst_documents
from citelens.corpus._scan import (
    _DEFAULT_BATCH_DOCUMENTS,
    _batch_frames,
    _batches,
    _check_ref_column,
    _fail,
    _is_csv,
    _lazy,
    _plan,
)
from citelens.limits import Limits
from citelens.summary_citations._corpus import summary_metrics_by_document
from citelens.summary_citations._derive import DOCUMENT_COLUMNS
from citelens.types import CorpusInput

# -- summary citations -----------------------------------------------------------------------


def _summary_documents_schema() -> pa.Schema:
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


class _SummaryCorpusResult(CorpusResult):
    """:class:`CorpusResult` of the summary-citations mode (its own Markdown view)."""

    def summary_markdown(self) -> str:
        """A Markdown view of the corpus totals (document references only, pseudonymised
        unless the run kept raw identifiers)."""
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


def _summary_citation_totals(documents: pa.Table, key: bytes | None) -> dict[str, Any]:
    """The corpus totals of ``documents``; the document refs it names are pseudonymised under
    ``key`` (raw when ``key`` is ``None``)."""
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
    worst = worst_documents(ok.filter(pl.col("_uncovered") > 0), "_uncovered", key)
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
    # One pass per batch; defective documents come back as status="error" rows. Anything
    # else raised here is a bug, not bad input: the public entry point makes it internal.
    return summary_metrics_by_document(
        tables["claims"].to_arrow(), tables["evidence"].to_arrow(), limits, csv=csv
    )


def run_summary_citations_corpus(
    claims: CorpusInput,
    evidence: CorpusInput | None = None,
    *,
    limits: Limits | None = None,
    batch_documents: int = _DEFAULT_BATCH_DOCUMENTS,
    raw_identifiers: bool = False,
    pseudonym_key: bytes | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CorpusResult:
    """Summary citation consistency for every document of a corpus.

    ``claims`` and ``evidence`` hold ``document_ref`` plus the record columns of
    :mod:`citelens.summary_citations` (files, directories, Arrow tables or Polars frames).
    Every document's row equals ``build_summary_citation_report`` on that document's rows
    alone (bounds from ``limits`` per document); a document that would raise is reported with
    status ``"error"`` and the fixed message and category. Each batch of ``batch_documents``
    documents is one vectorised pass. The document refs that ``summary`` names (its worst
    documents) are pseudonymised as ``"hmac-sha256:" + hex`` of HMAC-SHA-256 under
    ``pseudonym_key`` (bytes, at least 16; ``None``: a random key for this run) unless
    ``raw_identifiers=True``; ``documents`` keeps the refs as given. ``progress(done, total)``
    is called per batch; a ``progress`` with a ``phase`` method is also told the phases of the
    run (:class:`citelens.corpus._pipeline.PhaseProgress`).
    """
    return attempt(
        lambda: _run(
            claims,
            evidence,
            limits,
            batch_documents,
            run_key(raw_identifiers, pseudonym_key),
            progress,
        )
    )


def _run(
    claims: Any,
    evidence: Any,
    limits: Limits | None,
    batch_documents: int,
    key: bytes | None,
    progress: Callable[[int, int], None] | None,
) -> CorpusResult:
    if limits is not None and not isinstance(limits, Limits):
        raise _fail("limits must be a Limits instance", "policy")
    if type(batch_documents) is not int or batch_documents < 1:
        raise _fail("batch_documents must be a positive integer", "policy")
    limits = limits or Limits()
    phase(progress, "reading")
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
    phase(progress, "evaluating", refs.height)
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
    phase(progress, "writing", step="summary")
    if parts:
        arrow = pl.concat(parts).sort("document_ref").to_arrow()
        documents = pa.Table.from_arrays(
            [arrow.column(f.name).cast(f.type) for f in SUMMARY_DOCUMENTS_SCHEMA],
            schema=SUMMARY_DOCUMENTS_SCHEMA,
        )
    else:
        documents = SUMMARY_DOCUMENTS_SCHEMA.empty_table()
    summary = _summary_citation_totals(documents, key)
    return _SummaryCorpusResult(documents=documents, summary=summary)
