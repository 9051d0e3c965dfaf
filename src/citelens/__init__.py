"""citelens: deterministic, columnar evaluation of citations attached to claims."""

from __future__ import annotations

from . import errors
from .errors import (
    CitationMinimalityError,
    CitationOrderingError,
    CitationSupportError,
    CitelensError,
    GoldError,
    LimitsError,
    SummaryCitationError,
    SummaryCitationGateError,
    SummaryReviewError,
)
from .limits import Limits
from .minimality import (
    CITATION_MINIMALITY_DISCLAIMER,
    CITATION_MINIMALITY_SCHEMA_VERSION,
    TOKENIZER_UNICODE_VERSION,
    CitationMinimalityBatchResult,
    CitationMinimalityRecord,
    CitationMinimalityReport,
    CitationMinimalityStatus,
    check_citation_minimality,
    check_citation_minimality_batch,
    tokenize,
)
from .ordering import CITATION_ORDERING_SCHEMA_VERSION, CitationOrdering, order_citations
from .support import (
    ADJUDICATION_LABELS,
    REASON_CODES,
    AtomicClaim,
    Citation,
    CitationSupportReport,
    ClinicianAdjudication,
    ClinicianAdjudicationMetrics,
    DeterministicSpanChecks,
    EvidenceSpan,
    SupportTables,
    compute_citation_support_metrics,
)
from .summary_citations import (
    SUMMARY_CITATION_CONSISTENCY,
    SUMMARY_CITATION_SCHEMA_VERSION,
    SummaryCitationMetrics,
    SummaryCitationReport,
    assert_summary_citation_gate,
    build_summary_citation_report,
    compute_summary_citation_metrics,
    summary_citation_metadata,
)

__version__ = "0.1.0"

__all__ = [
    "ADJUDICATION_LABELS",
    "AtomicClaim",
    "CITATION_MINIMALITY_DISCLAIMER",
    "CITATION_MINIMALITY_SCHEMA_VERSION",
    "CITATION_ORDERING_SCHEMA_VERSION",
    "Citation",
    "CitationMinimalityBatchResult",
    "CitationMinimalityError",
    "CitationMinimalityRecord",
    "CitationMinimalityReport",
    "CitationMinimalityStatus",
    "CitationOrdering",
    "CitationOrderingError",
    "CitationSupportError",
    "CitationSupportReport",
    "CitelensError",
    "ClinicianAdjudication",
    "ClinicianAdjudicationMetrics",
    "DeterministicSpanChecks",
    "EvidenceSpan",
    "GoldError",
    "Limits",
    "LimitsError",
    "REASON_CODES",
    "SUMMARY_CITATION_CONSISTENCY",
    "SUMMARY_CITATION_SCHEMA_VERSION",
    "SummaryCitationError",
    "SummaryCitationGateError",
    "SummaryCitationMetrics",
    "SummaryCitationReport",
    "SummaryReviewError",
    "SupportTables",
    "TOKENIZER_UNICODE_VERSION",
    "__version__",
    "assert_summary_citation_gate",
    "build_summary_citation_report",
    "check_citation_minimality",
    "check_citation_minimality_batch",
    "compute_citation_support_metrics",
    "compute_summary_citation_metrics",
    "errors",
    "order_citations",
    "summary_citation_metadata",
    "tokenize",
]
