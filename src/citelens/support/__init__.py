"""Claim-level citation support metrics (contract ``support-metrics.md``).

``compute_citation_support_metrics`` turns claims, evidence, citations and adjudications (Python
records, typed records, Arrow tables, Polars frames or data files) into four canonical Arrow
tables, then evaluates span checks, reason codes, orphans, unused evidence and adjudication
metrics as joins and group-bys over them. Reports hold counts, rates, fixed labels and SHA-256
digests only.
"""

from citelens.support._api import (
    ADJUDICATION_LABELS,
    DISCLAIMER,
    REASON_CODES,
    SCHEMA_VERSION,
    SUITE,
    AtomicClaim,
    Citation,
    CitationSupportError,
    CitationSupportReport,
    CitelensError,
    ClinicianAdjudication,
    ClinicianAdjudicationMetrics,
    DeterministicSpanChecks,
    EvidenceSpan,
    Limits,
    LimitsError,
    SupportTables,
    compute_citation_support_metrics,
)

__all__ = [
    "ADJUDICATION_LABELS",
    "DISCLAIMER",
    "REASON_CODES",
    "SCHEMA_VERSION",
    "SUITE",
    "AtomicClaim",
    "Citation",
    "CitationSupportError",
    "CitationSupportReport",
    "CitelensError",
    "ClinicianAdjudication",
    "ClinicianAdjudicationMetrics",
    "DeterministicSpanChecks",
    "EvidenceSpan",
    "Limits",
    "LimitsError",
    "SupportTables",
    "compute_citation_support_metrics",
]
