"""Summary citation consistency: does every claim cite evidence that really exists?

Implements ``shared/spec/summary-citations.md``. Matching uses only opaque identifiers and
exact integer offsets; claim text, evidence values and identifiers are never stored or
printed. Reports hold counts, ratios, booleans and the nine fixed reason codes.

Pipeline: ``_input`` (arguments, files, tables) → ``_normalize`` (flat tables, column-wise)
or ``_records`` (Python records: the ``_nodes`` adapter, then the ``_node_rules`` columns)
→ ``_kernel`` (the one counting kernel, per document) → ``_derive`` (the one metrics
derivation, Polars expressions) → ``_report``. A single call is a corpus of one document;
``_corpus`` runs many documents through the same stages. Any unexpected exception becomes
:class:`citelens.errors.InternalError`, never an input error.

Example::

    from citelens.summary_citations import build_summary_citation_report

    report = build_summary_citation_report(
        claims=[{"claim": "synthetic claim", "citations": [{"evidence_id": "evidence-1"}]}],
        evidence=[{"id": "evidence-1", "start": 0, "end": 12, "value": "synthetic"}],
    )
    assert report.passed
"""

from __future__ import annotations

from typing import Any

import numpy as np

from citelens._fixed import attempt
from citelens.errors import SummaryCitationError, SummaryCitationGateError
from citelens.io._refusal import describe
from citelens.limits import Limits
from citelens.summary_citations._derive import derive_metrics, metrics_from_row
from citelens.summary_citations._input import Coerced, InputProblem, coerce
from citelens.summary_citations._kernel import count_by_document
from citelens.summary_citations._limits import DEFAULT_CITATIONS, DEFAULT_CLAIMS, DEFAULT_EVIDENCE
from citelens.summary_citations._normalize import (
    claims_frame_from_table,
    evidence_frame_from_table,
)
from citelens.summary_citations._records import (
    Inaccessible,
    TooManyItems,
    claims_frame,
    evidence_frame,
)
from citelens.summary_citations._report import (
    REASON_CODES,
    REASON_DUPLICATE_CITATION,
    REASON_DUPLICATE_SOURCE_EVIDENCE,
    REASON_INVALID_CITATION,
    REASON_INVALID_SOURCE_EVIDENCE,
    REASON_MISSING_CITATION,
    REASON_MISSING_SOURCE_EVIDENCE,
    REASON_MISSING_SOURCE_RECORD,
    REASON_UNAVAILABLE_SPAN,
    REASON_UNSUPPORTED_CLAIM,
    SUMMARY_CITATION_CONSISTENCY,
    SUMMARY_CITATION_SCHEMA_VERSION,
    SummaryCitationMetrics,
    SummaryCitationReport,
)
from citelens.types import CollectionLike

__all__ = [
    "REASON_CODES",
    "REASON_DUPLICATE_CITATION",
    "REASON_DUPLICATE_SOURCE_EVIDENCE",
    "REASON_INVALID_CITATION",
    "REASON_INVALID_SOURCE_EVIDENCE",
    "REASON_MISSING_CITATION",
    "REASON_MISSING_SOURCE_EVIDENCE",
    "REASON_MISSING_SOURCE_RECORD",
    "REASON_UNAVAILABLE_SPAN",
    "REASON_UNSUPPORTED_CLAIM",
    "SUMMARY_CITATION_CONSISTENCY",
    "SUMMARY_CITATION_SCHEMA_VERSION",
    "SummaryCitationError",
    "SummaryCitationGateError",
    "SummaryCitationMetrics",
    "SummaryCitationReport",
    "assert_summary_citation_gate",
    "build_summary_citation_report",
    "compute_summary_citation_metrics",
    "summary_citation_metadata",
]

_PROBLEM_MESSAGES = {
    "collection": ("{name} must be an iterable of structured records", "collection"),
    "access": ("summary citation input is not accessible", "input"),
    "file_type": ("{name} file type is not supported", "input"),
    "file": ("{name} file could not be read", "input"),
    "table": ("{name} table could not be read", "input"),
}
_LIMIT_MESSAGES = {
    "claims": "claims collection exceeds the configured limit",
    "evidence": "evidence collection exceeds the configured limit",
}


def _problem_error(problem: InputProblem, name: str) -> SummaryCitationError:
    if problem.kind == "limit":
        return SummaryCitationError(_LIMIT_MESSAGES[name], "limit")
    template, category = _PROBLEM_MESSAGES[problem.kind]
    detail = None if problem.refused is None else describe(problem.refused, name)
    return SummaryCitationError(template.format(name=name), category, detail)


def _resolve_arguments(
    claims: Any,
    evidence: Any,
    summary_claims: Any,
    source_evidence: Any,
    source_records: Any,
    limits: Any,
) -> tuple[Any, Any, Limits]:
    if limits is None:
        limits = Limits()
    elif not isinstance(limits, Limits):
        raise SummaryCitationError("limits must be a Limits instance", "policy")
    if claims is not None and summary_claims is not None:
        raise SummaryCitationError("claims was supplied more than once", "input")
    claims_value = claims if claims is not None else summary_claims
    evidence_value = evidence
    for alias in (source_evidence, source_records):
        if alias is not None:
            if evidence_value is not None:
                raise SummaryCitationError("evidence was supplied more than once", "input")
            evidence_value = alias
    return claims_value, evidence_value, limits


def _coerce(value: Any, limit: int, name: str) -> Coerced:
    problem: InputProblem | None = None
    result: Coerced | None = None
    try:
        result = coerce(value, limit, claims=name == "claims")
    except InputProblem as exc:
        problem = InputProblem(exc.kind, exc.refused)
    if problem is not None:
        raise _problem_error(problem, name)
    assert result is not None
    return result


def _access_error() -> SummaryCitationError:
    return SummaryCitationError("summary citation input is not accessible", "input")


def _limit_error() -> SummaryCitationError:
    return SummaryCitationError("citation items exceed the configured limit", "limit")


def _evidence_frame(records: list[Any]) -> Any:
    frame: Any = None
    try:
        frame = evidence_frame(records)
    except Inaccessible:  # a caller object raised while read (§4.5)
        frame = None
    if frame is None:
        raise _access_error()
    return frame


def _claims_frame(records: list[Any], citation_limit: int) -> tuple[Any, int]:
    result: tuple[Any, int] | None = None
    over = False
    try:
        result = claims_frame(records, citation_limit)
    except TooManyItems:
        over = True
    except Inaccessible:  # a caller object raised while read (§4.5)
        result = None
    if over:
        raise _limit_error()
    if result is None:
        raise _access_error()
    return result


def _evaluate(claims: Coerced, evidence: Coerced, citation_limit: int) -> SummaryCitationMetrics:
    """Step 5 of §2: evidence registration, then claim evaluation, as a corpus of one
    document through the one kernel and the one derivation."""
    if evidence.table is not None:
        ev = evidence_frame_from_table(evidence.table)
    else:
        ev = _evidence_frame(evidence.records or [])
    if claims.table is not None:
        items = claims_frame_from_table(claims.table)
        n_items = items.num_rows
    else:
        items, n_items = _claims_frame(claims.records or [], citation_limit)
    if n_items > citation_limit:
        raise _limit_error()
    counts = count_by_document(
        np.zeros(claims.count, dtype=np.int64),
        items,
        n_items,
        np.zeros(ev.num_rows, dtype=np.int64),
        ev,
        1,
    )
    return metrics_from_row(derive_metrics(counts))


def compute_summary_citation_metrics(
    claims: CollectionLike | None = None,
    evidence: CollectionLike | None = None,
    *,
    summary_claims: CollectionLike | None = None,
    source_evidence: CollectionLike | None = None,
    source_records: CollectionLike | None = None,
    limits: Limits | None = None,
) -> SummaryCitationMetrics:
    """Compute coverage, abstention rate, every count and the failure reasons (§8–§9).

    ``claims`` and ``evidence`` may be lists/iterables of records, id-keyed mappings, table
    objects (:data:`citelens.types.TableLike`: Arrow tables, batches, readers and datasets,
    Polars ``DataFrame``/``LazyFrame``, DuckDB relations, any ``__arrow_c_stream__`` object), or
    paths to ``.parquet``, ``.arrow``/
    ``.feather``/``.ipc``, ``.jsonl``/``.ndjson``, ``.csv`` or ``.json`` files. Bounds come
    from ``limits`` (defaults 100,000 claims, 200,000 evidence records, 500,000 citation
    items). Raises :class:`SummaryCitationError` with a fixed message on unusable input.
    """
    return attempt(
        lambda: _metrics(claims, evidence, summary_claims, source_evidence, source_records, limits)
    )


def _metrics(
    claims: Any,
    evidence: Any,
    summary_claims: Any,
    source_evidence: Any,
    source_records: Any,
    limits: Any,
) -> SummaryCitationMetrics:
    claims_value, evidence_value, resolved = _resolve_arguments(
        claims, evidence, summary_claims, source_evidence, source_records, limits
    )
    claims_in = _coerce(claims_value, resolved.resolve("claims", DEFAULT_CLAIMS), "claims")
    evidence_in = _coerce(
        evidence_value, resolved.resolve("evidence", DEFAULT_EVIDENCE), "evidence"
    )
    return _evaluate(claims_in, evidence_in, resolved.resolve("citations", DEFAULT_CITATIONS))


def build_summary_citation_report(
    claims: CollectionLike | None = None,
    evidence: CollectionLike | None = None,
    *,
    fixture_count: int = 1,
    summary_claims: CollectionLike | None = None,
    source_evidence: CollectionLike | None = None,
    source_records: CollectionLike | None = None,
    limits: Limits | None = None,
) -> SummaryCitationReport:
    """Build a :class:`SummaryCitationReport` (metrics plus suite metadata).

    Same inputs as :func:`compute_summary_citation_metrics`; ``fixture_count`` (an exact
    ``int`` >= 0) is echoed in the report.
    """
    metrics = compute_summary_citation_metrics(
        claims,
        evidence,
        summary_claims=summary_claims,
        source_evidence=source_evidence,
        source_records=source_records,
        limits=limits,
    )
    if type(fixture_count) is not int or not 0 <= fixture_count < 2**63:
        raise SummaryCitationError("fixture_count must be a non-negative integer", "policy")
    return attempt(lambda: SummaryCitationReport(metrics=metrics, fixture_count=fixture_count))


def assert_summary_citation_gate(
    claims: CollectionLike | None = None,
    evidence: CollectionLike | None = None,
    *,
    fixture_count: int = 1,
    summary_claims: CollectionLike | None = None,
    source_evidence: CollectionLike | None = None,
    source_records: CollectionLike | None = None,
    limits: Limits | None = None,
) -> SummaryCitationReport:
    """Build the report and return it when it passes; otherwise raise the gate error (§11).

    The raised :class:`SummaryCitationGateError` (an ``AssertionError``) carries
    ``.report`` and ``.failure_reasons``; its message lists the reason codes only.
    """
    report = build_summary_citation_report(
        claims,
        evidence,
        fixture_count=fixture_count,
        summary_claims=summary_claims,
        source_evidence=source_evidence,
        source_records=source_records,
        limits=limits,
    )
    if report.passed:
        return report
    reasons = report.metrics.failure_reasons
    error = SummaryCitationGateError(
        "summary citation-consistency gate failed: " + ", ".join(reasons), "gate"
    )
    error.report = report  # type: ignore[attr-defined]
    error.failure_reasons = reasons  # type: ignore[attr-defined]
    raise error


def summary_citation_metadata() -> dict[str, Any]:
    """A new dict describing the suite (§12)."""
    return {
        "suite": SUMMARY_CITATION_CONSISTENCY,
        "schema_version": SUMMARY_CITATION_SCHEMA_VERSION,
        "synthetic": True,
        "matching": "opaque_evidence_ids_or_exact_source_spans",
        "metrics": ["coverage", "abstention_rate", "duplicate_citation_count"],
        "fail_closed_on_missing_source_evidence": True,
    }
