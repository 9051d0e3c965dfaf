"""citelens: deterministic, columnar evaluation of citations attached to claims.

The public verbs and report types are re-exported lazily (PEP 562): ``import citelens`` loads
no engine (neither Polars, PyArrow nor DuckDB); a name is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# name -> the public module that defines it
_EXPORTS: dict[str, str] = {
    "ADJUDICATION_LABELS": "citelens.support",
    "AtomicClaim": "citelens.support",
    "CITATION_MINIMALITY_DISCLAIMER": "citelens.minimality",
    "CITATION_MINIMALITY_SCHEMA_VERSION": "citelens.minimality",
    "CITATION_ORDERING_SCHEMA_VERSION": "citelens.ordering",
    "Citation": "citelens.support",
    "CitationMinimalityBatchResult": "citelens.minimality",
    "CitationMinimalityError": "citelens.errors",
    "CitationMinimalityRecord": "citelens.minimality",
    "CitationMinimalityReport": "citelens.minimality",
    "CitationMinimalityStatus": "citelens.minimality",
    "CitationOrdering": "citelens.ordering",
    "CitationOrderingError": "citelens.errors",
    "CitationSupportError": "citelens.errors",
    "CollectionLike": "citelens.types",
    "CitationSupportReport": "citelens.support",
    "CitelensError": "citelens.errors",
    "ClinicianAdjudication": "citelens.support",
    "ClinicianAdjudicationMetrics": "citelens.support",
    "DeterministicSpanChecks": "citelens.support",
    "EvidenceSpan": "citelens.support",
    "GoldError": "citelens.errors",
    "ImportedSummaryReview": "citelens.review",
    "Limits": "citelens.limits",
    "PathLike": "citelens.types",
    "LimitsError": "citelens.errors",
    "REASON_CODES": "citelens.support",
    "ReviewBinding": "citelens.review",
    "SUMMARY_CITATION_CONSISTENCY": "citelens.summary_citations",
    "SUMMARY_CITATION_SCHEMA_VERSION": "citelens.summary_citations",
    "SealedSummaryReview": "citelens.review",
    "SummaryCitationError": "citelens.errors",
    "SummaryCitationGateError": "citelens.errors",
    "SummaryCitationMetrics": "citelens.summary_citations",
    "SummaryCitationReport": "citelens.summary_citations",
    "SummaryReviewError": "citelens.errors",
    "SupportTables": "citelens.support",
    "TableLike": "citelens.types",
    "TOKENIZER_UNICODE_VERSION": "citelens.minimality",
    "assert_summary_citation_gate": "citelens.summary_citations",
    "build_summary_citation_report": "citelens.summary_citations",
    "check_citation_minimality": "citelens.minimality",
    "check_citation_minimality_batch": "citelens.minimality",
    "check_identifier_leakage": "citelens.review",
    "compute_citation_support_metrics": "citelens.support",
    "compute_summary_citation_metrics": "citelens.summary_citations",
    "evaluate_summary_gate": "citelens.review",
    "export_summary_review": "citelens.review",
    "gate_passed": "citelens.review",
    "import_summary_review": "citelens.review",
    "order_citations": "citelens.ordering",
    "render_blinded_packets": "citelens.review",
    "reviewer_agreement_report": "citelens.review",
    "summary_citation_metadata": "citelens.summary_citations",
    "tokenize": "citelens.minimality",
}
_SUBMODULES = frozenset(
    {
        "errors",
        "limits",
        "support",
        "summary_citations",
        "minimality",
        "ordering",
        "review",
        "corpus",
        "sql",
        "spark",
        "gold",
        "io",
        "cli",
        "types",
    }
)

if TYPE_CHECKING:  # static names for type checkers; nothing is imported at run time
    from citelens import errors, types
    from citelens.errors import (
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
    from citelens.limits import (
        Limits,
    )
    from citelens.minimality import (
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
    from citelens.ordering import (
        CITATION_ORDERING_SCHEMA_VERSION,
        CitationOrdering,
        order_citations,
    )
    from citelens.review import (
        ImportedSummaryReview,
        ReviewBinding,
        SealedSummaryReview,
        check_identifier_leakage,
        evaluate_summary_gate,
        export_summary_review,
        gate_passed,
        import_summary_review,
        render_blinded_packets,
        reviewer_agreement_report,
    )
    from citelens.summary_citations import (
        SUMMARY_CITATION_CONSISTENCY,
        SUMMARY_CITATION_SCHEMA_VERSION,
        SummaryCitationMetrics,
        SummaryCitationReport,
        assert_summary_citation_gate,
        build_summary_citation_report,
        compute_summary_citation_metrics,
        summary_citation_metadata,
    )
    from citelens.support import (
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
    from citelens.types import CollectionLike, PathLike, TableLike

__all__ = [
    "ADJUDICATION_LABELS",
    "CITATION_MINIMALITY_DISCLAIMER",
    "CITATION_MINIMALITY_SCHEMA_VERSION",
    "CITATION_ORDERING_SCHEMA_VERSION",
    "REASON_CODES",
    "SUMMARY_CITATION_CONSISTENCY",
    "SUMMARY_CITATION_SCHEMA_VERSION",
    "TOKENIZER_UNICODE_VERSION",
    "AtomicClaim",
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
    "CollectionLike",
    "DeterministicSpanChecks",
    "EvidenceSpan",
    "GoldError",
    "ImportedSummaryReview",
    "Limits",
    "LimitsError",
    "PathLike",
    "ReviewBinding",
    "SealedSummaryReview",
    "SummaryCitationError",
    "SummaryCitationGateError",
    "SummaryCitationMetrics",
    "SummaryCitationReport",
    "SummaryReviewError",
    "SupportTables",
    "TableLike",
    "__version__",
    "assert_summary_citation_gate",
    "build_summary_citation_report",
    "check_citation_minimality",
    "check_citation_minimality_batch",
    "check_identifier_leakage",
    "compute_citation_support_metrics",
    "compute_summary_citation_metrics",
    "errors",
    "evaluate_summary_gate",
    "export_summary_review",
    "gate_passed",
    "import_summary_review",
    "order_citations",
    "render_blinded_packets",
    "reviewer_agreement_report",
    "summary_citation_metadata",
    "tokenize",
    "types",
]


def __getattr__(name: str) -> Any:
    """Import a public name (or submodule) on first use."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"citelens.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
