"""Canonical Arrow schemas of the support engine (§9.1 without the derived columns)."""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "ADJUDICATION_SCHEMA",
    "CLAIM_SCHEMA",
    "EDGE_SCHEMA",
    "EVIDENCE_SCHEMA",
    "LABEL_CODES",
    "REPORT_SCHEMA",
]

_S = pa.large_string()
_I = pa.int64()

CLAIM_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
        pa.field("source_length", _I),
        pa.field("claim_type", _S, nullable=False),
    ]
)
EVIDENCE_SCHEMA = pa.schema(
    [
        pa.field("evidence_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
        pa.field("source_length", _I),
    ]
)
EDGE_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("evidence_id", _S, nullable=False),
        pa.field("start", _I),
        pa.field("end", _I),
        pa.field("source_id", _S, nullable=False),
    ]
)
ADJUDICATION_SCHEMA = pa.schema(
    [
        pa.field("claim_id", _S, nullable=False),
        pa.field("evidence_id", _S, nullable=False),
        pa.field("label", _S, nullable=False),
        pa.field("origin", _S, nullable=False),
    ]
)

LABEL_CODES: dict[str, int] = {"supports": 0, "contradicts": 1, "irrelevant": 2, "unclear": 3}


def _report_schema() -> pa.Schema:
    """The flat report row (§9.2): one column per leaf of ``to_dict()``, in its order."""
    i64, f64, text, flag = pa.int64(), pa.float64(), pa.large_string(), pa.bool_()
    det = "deterministic_span_checks."
    adj = "clinician_adjudication."
    reasons = (
        "citation_outside_evidence",
        "invalid_citation_span",
        "invalid_evidence_span",
        "missing_claim",
        "missing_evidence",
        "source_mismatch",
    )
    fields: list[tuple[str, pa.DataType, bool]] = [
        ("suite", text, False),
        ("schema_version", i64, False),
        ("claim_count", i64, False),
        ("evidence_count", i64, False),
        ("citation_count", i64, False),
        ("orphan_claim_count", i64, False),
        ("orphan_claim_rate", f64, False),
        ("unused_evidence_count", i64, False),
        ("unused_evidence_rate", f64, False),
        ("citation_precision", f64, True),
        ("support_recall", f64, True),
    ]
    for kind in ("claim", "evidence"):
        fields += [
            (f"{det}{kind}_span_count", i64, False),
            (f"{det}valid_{kind}_span_count", i64, False),
            (f"{det}missing_{kind}_span_count", i64, False),
            (f"{det}invalid_{kind}_span_count", i64, False),
            (f"{det}{kind}_span_validity", f64, False),
        ]
    fields += [
        (f"{det}citation_count", i64, False),
        (f"{det}valid_citation_count", i64, False),
        (f"{det}invalid_citation_count", i64, False),
        (f"{det}citation_span_validity", f64, False),
        (f"{det}duplicate_citation_count", i64, False),
        *[(f"{det}invalid_citation_reasons.{code}", i64, False) for code in reasons],
        (f"{det}passed", flag, False),
        (f"{adj}available", flag, False),
        (f"{adj}status", text, False),
        *[
            (f"{adj}{name}", i64, False)
            for name in (
                "adjudicated_citation_count",
                "unadjudicated_citation_count",
                "adjudicated_claim_count",
                "unadjudicated_claim_count",
                "supporting_citation_count",
                "contradicting_citation_count",
                "irrelevant_citation_count",
                "unclear_citation_count",
                "supported_claim_count",
            )
        ],
        (f"{adj}citation_precision", f64, True),
        (f"{adj}support_recall", f64, True),
        (f"{adj}adjudication_coverage", f64, False),
        (f"{adj}unmatched_adjudication_count", i64, False),
        (f"{adj}conflicting_adjudication_count", i64, False),
        *[(f"{adj}label_counts.{label}", i64, False) for label in LABEL_CODES],
        *[
            (f"provenance.{name}_digest", text, False)
            for name in ("claim", "evidence", "adjudication", "input")
        ],
        ("human_review_required", flag, False),
        ("disclaimer", text, False),
    ]
    return pa.schema([pa.field(name, dtype, nullable) for name, dtype, nullable in fields])


REPORT_SCHEMA = _report_schema()
"""The 59 columns of ``CitationSupportReport.to_arrow()`` and of each corpus document row."""
