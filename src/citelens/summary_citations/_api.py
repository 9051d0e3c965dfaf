"""Summary citation consistency: does every claim cite evidence that really exists?

Implements ``shared/spec/summary-citations.md``. Matching uses only opaque identifiers and
exact integer offsets; claim text, evidence values and identifiers are never stored or
printed. Reports hold counts, ratios, booleans and the nine fixed reason codes.

Flat Arrow/Polars tables and tabular files are normalised column-wise (Arrow compute); Python
records go through an exact record walker; registration, resolution, duplicates and
aggregates run over whole integer columns in both cases (identifiers factorised once with
Arrow, then NumPy/Polars counting).

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

from citelens.errors import SummaryCitationError, SummaryCitationGateError
from citelens.limits import Limits
from citelens.summary_citations._columnar import (
    Counts,
    claims_frame_from_table,
    claims_frame_from_walk,
    compute_counts,
    evidence_frame_from_table,
    evidence_frame_from_walk,
)
from citelens.summary_citations._input import Coerced, InputProblem, coerce
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
from citelens.summary_citations._walk import CitationLimitExceeded, walk_claims, walk_evidence

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

DEFAULT_CLAIMS = 100_000
DEFAULT_EVIDENCE = 200_000
DEFAULT_CITATIONS = 500_000

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
    return SummaryCitationError(template.format(name=name), category)


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
        problem = InputProblem(exc.kind)
    if problem is not None:
        raise _problem_error(problem, name)
    assert result is not None
    return result


def _evaluate(claims: Coerced, evidence: Coerced, citation_limit: int) -> Counts:
    """Step 5 of §2: evidence registration, then claim evaluation."""
    outcome = ""
    counts: Counts | None = None
    try:
        if evidence.table is not None:
            ev = evidence_frame_from_table(evidence.table)
        else:
            ev = evidence_frame_from_walk(walk_evidence(evidence.records or []))
        complex_items: list[Any] = []
        if claims.table is not None:
            items = claims_frame_from_table(claims.table)
            if items.num_rows > citation_limit:
                raise CitationLimitExceeded()
        else:
            walked = walk_claims(claims.records or [], citation_limit)
            items = claims_frame_from_walk(walked)
            complex_items = walked.complex_items
        counts = compute_counts(claims.count, items, complex_items, ev)
    except CitationLimitExceeded:
        outcome = "limit"
    except Exception:
        outcome = "access"
    if outcome == "limit":
        raise SummaryCitationError("citation items exceed the configured limit", "limit")
    if outcome or counts is None:
        raise SummaryCitationError("summary citation input is not accessible", "input")
    return counts


def _metrics_from_counts(c: Counts) -> SummaryCitationMetrics:
    reasons: set[str] = set()
    available = (
        c.valid_evidence_record_count > 0
        and c.invalid_evidence_record_count == 0
        and c.duplicate_evidence_record_count == 0
    )
    unsupported = c.claim_count - c.supported_claim_count
    invalid_citations = c.citation_count - c.valid_citation_count
    if c.duplicate_citation_count:
        reasons.add(REASON_DUPLICATE_CITATION)
    if c.duplicate_evidence_record_count:
        reasons.add(REASON_DUPLICATE_SOURCE_EVIDENCE)
    if invalid_citations:
        reasons.add(REASON_INVALID_CITATION)
    if c.invalid_evidence_record_count:
        reasons.add(REASON_INVALID_SOURCE_EVIDENCE)
    if c.missing_citation_count:
        reasons.add(REASON_MISSING_CITATION)
    if c.valid_evidence_record_count == 0:
        reasons.add(REASON_MISSING_SOURCE_EVIDENCE)
    if c.missing_source_record_count:
        reasons.add(REASON_MISSING_SOURCE_RECORD)
    if c.unavailable_span_count:
        reasons.add(REASON_UNAVAILABLE_SPAN)
    if unsupported:
        reasons.add(REASON_UNSUPPORTED_CLAIM)
    if available:
        coverage = c.supported_claim_count / c.claim_count if c.claim_count else 1.0
        evidence_coverage = c.referenced_evidence_count / c.valid_evidence_record_count
    else:
        coverage = 0.0
        evidence_coverage = 0.0
    abstention_rate = unsupported / c.claim_count if c.claim_count else 0.0
    return SummaryCitationMetrics(
        coverage=float(coverage),
        abstention_rate=float(abstention_rate),
        claim_count=c.claim_count,
        supported_claim_count=c.supported_claim_count,
        unsupported_claim_count=unsupported,
        abstention_count=unsupported,
        citation_count=c.citation_count,
        valid_citation_count=c.valid_citation_count,
        invalid_citation_count=invalid_citations,
        duplicate_citation_count=c.duplicate_citation_count,
        missing_citation_count=c.missing_citation_count,
        missing_source_record_count=c.missing_source_record_count,
        unavailable_span_count=c.unavailable_span_count,
        evidence_record_count=c.evidence_record_count,
        valid_evidence_record_count=c.valid_evidence_record_count,
        invalid_evidence_record_count=c.invalid_evidence_record_count,
        duplicate_evidence_record_count=c.duplicate_evidence_record_count,
        referenced_evidence_count=c.referenced_evidence_count,
        evidence_coverage=float(evidence_coverage),
        source_evidence_available=available,
        fail_closed=not available,
        passed=available and not reasons,
        failure_reasons=tuple(sorted(reasons)),
    )


def compute_summary_citation_metrics(
    claims: Any = None,
    evidence: Any = None,
    *,
    summary_claims: Any = None,
    source_evidence: Any = None,
    source_records: Any = None,
    limits: Limits | None = None,
) -> SummaryCitationMetrics:
    """Compute coverage, abstention rate, every count and the failure reasons (§8–§9).

    ``claims`` and ``evidence`` may be lists/iterables of records, id-keyed mappings, Arrow or
    Polars tables, any ``__arrow_c_stream__`` object, or paths to ``.parquet``, ``.arrow``/
    ``.feather``/``.ipc``, ``.jsonl``/``.ndjson``, ``.csv`` or ``.json`` files. Bounds come
    from ``limits`` (defaults 100,000 claims, 200,000 evidence records, 500,000 citation
    items). Raises :class:`SummaryCitationError` with a fixed message on unusable input.
    """
    claims_value, evidence_value, resolved = _resolve_arguments(
        claims, evidence, summary_claims, source_evidence, source_records, limits
    )
    claims_in = _coerce(claims_value, resolved.resolve("claims", DEFAULT_CLAIMS), "claims")
    evidence_in = _coerce(
        evidence_value, resolved.resolve("evidence", DEFAULT_EVIDENCE), "evidence"
    )
    counts = _evaluate(claims_in, evidence_in, resolved.resolve("citations", DEFAULT_CITATIONS))
    return _metrics_from_counts(counts)


def build_summary_citation_report(
    claims: Any = None,
    evidence: Any = None,
    *,
    fixture_count: int = 1,
    summary_claims: Any = None,
    source_evidence: Any = None,
    source_records: Any = None,
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
    if type(fixture_count) is not int or fixture_count < 0:
        raise SummaryCitationError("fixture_count must be a non-negative integer", "policy")
    return SummaryCitationReport(metrics=metrics, fixture_count=fixture_count)


def assert_summary_citation_gate(
    claims: Any = None,
    evidence: Any = None,
    *,
    fixture_count: int = 1,
    summary_claims: Any = None,
    source_evidence: Any = None,
    source_records: Any = None,
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
