"""Blinded summary review: export, sealed import, reviewer agreement and the summary gate.

Contract: ``shared/spec/review.md``. The workflow moves claim/evidence pairs to authorised
reviewers without revealing which system wrote the summary (:func:`render_blinded_packets`),
binds their returned decisions to exactly the evaluated artifacts (:func:`export_summary_review`,
:func:`import_summary_review`), measures agreement without publishing small cells
(:func:`reviewer_agreement_report`) and lets only complete reviewer evidence pass
:func:`evaluate_summary_gate`.

It verifies binding and completeness, not reviewer credentials or clinical truth. The sealed
private document and the identity mapping hold raw identifiers: keep them, and the key, under
access control. No function here writes files.
"""

from __future__ import annotations

from citelens.errors import SummaryReviewError
from citelens.review._agreement import (
    DisagreementReason,
    PublishedRate,
    ReasonRate,
    ReviewerAgreementReport,
    ReviewerDecision,
    reviewer_agreement_report,
)
from citelens.review._common import (
    AGREEMENT_SCHEMA,
    AUDIT_SCHEMA,
    BALANCE_SCHEMA,
    MAPPING_SCHEMA,
    MAX_PRIVATE_JSON,
    MAX_ROWS,
    PACKET_SCHEMA,
    REVIEW_LABELS,
    REVIEW_SCHEMA,
    artifact_digest,
)
from citelens.review._export import ReviewBinding, SealedSummaryReview, export_summary_review
from citelens.review._gate import GateCheck, evaluate_summary_gate, gate_passed
from citelens.review._import import ImportedSummaryReview, import_summary_review
from citelens.review._leakage import LeakageCheck, check_identifier_leakage
from citelens.review._mapping import (
    IdentityAssignment,
    MappingAudit,
    MappingEntry,
    PacketBalance,
    SealedIdentityMapping,
    validate_packet_balance,
)
from citelens.review._packets import (
    BlindedCandidate,
    BlindedPacket,
    ComparisonCase,
    ConflictOfInterest,
    RubricCriterion,
    SourceEvidence,
    render_blinded_packets,
    verify_sealed_identity_mapping,
)

__all__ = [
    "AGREEMENT_SCHEMA",
    "AUDIT_SCHEMA",
    "BALANCE_SCHEMA",
    "MAPPING_SCHEMA",
    "MAX_PRIVATE_JSON",
    "MAX_ROWS",
    "PACKET_SCHEMA",
    "REVIEW_LABELS",
    "REVIEW_SCHEMA",
    "BlindedCandidate",
    "BlindedPacket",
    "ComparisonCase",
    "ConflictOfInterest",
    "DisagreementReason",
    "GateCheck",
    "IdentityAssignment",
    "ImportedSummaryReview",
    "LeakageCheck",
    "MappingAudit",
    "MappingEntry",
    "PacketBalance",
    "PublishedRate",
    "ReasonRate",
    "ReviewBinding",
    "ReviewerAgreementReport",
    "ReviewerDecision",
    "RubricCriterion",
    "SealedIdentityMapping",
    "SealedSummaryReview",
    "SourceEvidence",
    "SummaryReviewError",
    "artifact_digest",
    "check_identifier_leakage",
    "evaluate_summary_gate",
    "export_summary_review",
    "gate_passed",
    "import_summary_review",
    "render_blinded_packets",
    "reviewer_agreement_report",
    "validate_packet_balance",
    "verify_sealed_identity_mapping",
]
