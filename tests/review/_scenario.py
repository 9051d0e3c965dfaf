"""A complete, synthetic review scenario with canary identifiers and text.

Every identifier and text value below is a canary: privacy tests assert that none of them
appears in the public request, the public import result, gate checks, errors or ``repr``.
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from typing import Any

from citelens.review import (
    ComparisonCase,
    ConflictOfInterest,
    ReviewBinding,
    RubricCriterion,
    SealedSummaryReview,
    SourceEvidence,
    export_summary_review,
    render_blinded_packets,
)

KEY = b"CANARYKEY-0123456789abcdefghijklmnopqrstuv"
SOURCE = (
    "Zebulon Quackenbush, 72, admitted with community-acquired pneumonia. Chest X-ray shows "
    "right lower lobe consolidation. Started ceftriaxone 1 g IV daily. Afebrile by day 3."
)
SUMMARY = "Pneumonia with right lower lobe consolidation, treated with ceftriaxone."
OTHER_OUTPUTS = {
    "CANARY-MODEL-beta": "Community-acquired pneumonia; antibiotics started.",
    "CANARY-MODEL-gamma": "Right lower lobe pneumonia on ceftriaxone, afebrile by day 3.",
}
IDENTITY = "CANARY-MODEL-alpha"
CASE = "CANARY-CASE-001"
CLAIMS = ("CANARY-CLAIM-dx", "CANARY-CLAIM-rx")
EVIDENCE = ("CANARY-EV-001", "CANARY-EV-002", "CANARY-EV-003")
REVIEWERS = tuple(
    "sha256:" + hashlib.sha256(f"CANARY-REVIEWER-{i}".encode()).hexdigest() for i in range(3)
)
ADJUDICATOR = "sha256:" + hashlib.sha256(b"CANARY-ADJUDICATOR").hexdigest()
RECEIPT = "sha256:" + hashlib.sha256(b"CANARY-RECEIPT").hexdigest()
PRIVATE_VALUES = (
    IDENTITY,
    *OTHER_OUTPUTS,
    CASE,
    *CLAIMS,
    *EVIDENCE,
    *REVIEWERS,
    ADJUDICATOR,
    "CANARY-REVIEWER",
    "CANARYKEY",
    KEY.hex(),
    "Zebulon",
    "Quackenbush",
    SUMMARY,
    "ceftriaxone",
)


def _span(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def claims() -> list[dict[str, Any]]:
    """Citation-support claims; offsets index the summary (``claim_span`` alias)."""
    dx = _span(SUMMARY, "Pneumonia with right lower lobe consolidation")
    rx = _span(SUMMARY, "treated with ceftriaxone")
    return [
        {
            "claim_id": CLAIMS[0],
            "claim_span": list(dx),
            "claim_type": "diagnosis",
            "citations": [EVIDENCE[0], EVIDENCE[1]],
        },
        {
            "claim_id": CLAIMS[1],
            "claim_span": list(rx),
            "claim_type": "medication",
            "citations": [EVIDENCE[2]],
        },
    ]


EXCERPTS = (
    "community-acquired pneumonia",
    "right lower lobe consolidation",
    "ceftriaxone 1 g IV daily",
)


def evidence() -> list[dict[str, Any]]:
    """Evidence records; offsets index the source."""
    rows = []
    for evidence_id, excerpt in zip(EVIDENCE, EXCERPTS):
        start, end = _span(SOURCE, excerpt)
        rows.append(
            {"evidence_id": evidence_id, "start": start, "end": end, "source_length": len(SOURCE)}
        )
    return rows


def setup_kwargs(status: str = "cleared") -> dict[str, Any]:
    """Keyword arguments of ``render_blinded_packets`` (two cases, three candidates)."""
    case = ComparisonCase(
        case_ref=CASE,
        source_evidence=tuple(
            SourceEvidence(evidence_ref=e, content=x) for e, x in zip(EVIDENCE, EXCERPTS)
        ),
        candidate_outputs={IDENTITY: SUMMARY, **OTHER_OUTPUTS},
    )
    other = ComparisonCase(
        case_ref="CANARY-CASE-002",
        source_evidence=(SourceEvidence(evidence_ref="CANARY-EV-101", content="Afebrile."),),
        candidate_outputs={
            IDENTITY: "Fever resolved.",
            "CANARY-MODEL-beta": "Afebrile on day 3.",
            "CANARY-MODEL-gamma": "No fever after day 3.",
        },
    )
    return {
        "packet_set_ref": "CANARY-SET",
        "cases": [case, other],
        "rubric": [RubricCriterion("support", "Does the excerpt support the claim?", 0, 2)],
        "conflict_of_interest": ConflictOfInterest(
            reviewer_ref="CANARY-PANEL", declaration_digest="sha256:" + "b" * 64, status=status
        ),
        "holdout_commitment_digest": "sha256:" + "a" * 64,
        "submission_manifest_digests": {
            IDENTITY: "sha256:" + "c" * 64,
            "CANARY-MODEL-beta": "sha256:" + "d" * 64,
            "CANARY-MODEL-gamma": "sha256:" + "e" * 64,
        },
        "randomization_key": KEY,
    }


def bindings() -> list[ReviewBinding]:
    """One binding per claim/evidence pair, all on the evaluated candidate."""
    pairs = [(CLAIMS[0], EVIDENCE[0]), (CLAIMS[0], EVIDENCE[1]), (CLAIMS[1], EVIDENCE[2])]
    return [ReviewBinding(CASE, IDENTITY, c, e) for c, e in pairs]


@dataclass
class Scenario:
    """Everything one export produced, plus the current artifacts."""

    packets: Any
    mapping: Any
    request: dict[str, Any]
    sealed: SealedSummaryReview
    claims: list[dict[str, Any]] = field(default_factory=claims)
    evidence: list[dict[str, Any]] = field(default_factory=evidence)
    summary: str = SUMMARY
    source: str = SOURCE

    def export_kwargs(self, evidence_kind: str = "reviewer") -> dict[str, Any]:
        """Keyword arguments that reproduce this export."""
        return {
            "packets": self.packets,
            "mapping": self.mapping,
            "sealing_key": KEY,
            "bindings": bindings(),
            "claims": claims(),
            "evidence": evidence(),
            "summary": SUMMARY,
            "source": SOURCE,
            "rubric_version": 1,
            "evidence_kind": evidence_kind,
        }

    def artifacts(self) -> dict[str, Any]:
        """The current artifacts (fresh copies)."""
        return {
            "claims": copy.deepcopy(self.claims),
            "evidence": copy.deepcopy(self.evidence),
            "summary": self.summary,
            "source": self.source,
        }

    def import_kwargs(self, minimum_cell_size: int = 5) -> dict[str, Any]:
        """Keyword arguments of ``import_summary_review`` (besides the document)."""
        return {
            "sealed": self.sealed,
            "sealing_key": KEY,
            "minimum_cell_size": minimum_cell_size,
            **self.artifacts(),
        }

    @property
    def refs(self) -> list[str]:
        """The review refs of the request, in request order."""
        return [row["review_ref"] for row in self.request["reviews"]]

    def returned(
        self,
        labels: dict[int, tuple[str, ...]] | None = None,
        reasons: dict[int, str] | None = None,
        resolutions: list[dict[str, Any]] | None = None,
        reviewers: int = 2,
    ) -> dict[str, Any]:
        """A return document; by default every reviewer says ``supports`` on every edge."""
        labels = labels or {}
        reasons = reasons or {}
        decisions = []
        for index, ref in enumerate(self.refs):
            edge_labels = labels.get(index, ("supports",) * reviewers)
            for reviewer, label in zip(REVIEWERS, edge_labels):
                decisions.append(
                    {
                        "review_ref": ref,
                        "reviewer_ref": reviewer,
                        "label": label,
                        "reason": reasons.get(index),
                    }
                )
        document = {key: self.request[key] for key in COPIED}
        document["review_evidence_digest"] = RECEIPT
        document["decisions"] = decisions
        document["resolutions"] = resolutions or []
        return document

    def resolution(self, index: int, label: str, reason: str) -> dict[str, Any]:
        """A resolution by the distinct adjudicator."""
        return {
            "review_ref": self.refs[index],
            "label": label,
            "reason": reason,
            "adjudicator_ref": ADJUDICATOR,
        }


COPIED = ("schema_version", "request_digest", "rubric_version", "rubric_digest", "evidence_kind")


def build(evidence_kind: str = "reviewer") -> Scenario:
    """Render, then export with ``evidence_kind``."""
    packets, mapping = render_blinded_packets(**setup_kwargs())
    scenario = Scenario(packets=packets, mapping=mapping, request={}, sealed=None)  # type: ignore[arg-type]
    request, sealed = export_summary_review(**scenario.export_kwargs(evidence_kind))
    scenario.request = request
    scenario.sealed = sealed
    return scenario


THRESHOLDS = {
    "citation_support_min": 0.5,
    "summary_citation_coverage_min": 1.0,
    "citation_minimality_flagged_max": 0,
    "leaked_identifier_count_max": 0,
}
PROTECTED = ["Zebulon Quackenbush", "MRN 4471902"]
