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

from citelens.summary_citations._api import (
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
    SummaryCitationError,
    SummaryCitationGateError,
    SummaryCitationMetrics,
    SummaryCitationReport,
    assert_summary_citation_gate,
    build_summary_citation_report,
    compute_summary_citation_metrics,
    summary_citation_metadata,
)

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
