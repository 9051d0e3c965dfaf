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
