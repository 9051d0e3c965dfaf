"""Build review inputs from the vector JSON (review.md §13)."""

from __future__ import annotations

from typing import Any

from citelens.review import (
    ComparisonCase,
    ConflictOfInterest,
    ReviewBinding,
    RubricCriterion,
    SourceEvidence,
    render_blinded_packets,
)


def render(setup: dict[str, Any]) -> tuple[Any, Any]:
    """Render the packets and mapping of a vector's ``setup``."""
    cases = [
        ComparisonCase(
            case_ref=case["case_ref"],
            source_evidence=tuple(SourceEvidence(**e) for e in case["source_evidence"]),
            candidate_outputs=case["candidate_outputs"],
        )
        for case in setup["cases"]
    ]
    return render_blinded_packets(
        packet_set_ref=setup["packet_set_ref"],
        cases=cases,
        rubric=[RubricCriterion(**r) for r in setup["rubric"]],
        conflict_of_interest=ConflictOfInterest(**setup["conflict_of_interest"]),
        holdout_commitment_digest=setup["holdout_commitment_digest"],
        submission_manifest_digests=setup["submission_manifest_digests"],
        randomization_key=key(setup),
    )


def key(setup: dict[str, Any]) -> bytes:
    """The vector key (``b"k" * 32``)."""
    return bytes.fromhex(setup["randomization_key_hex"])


def export_kwargs(setup: dict[str, Any], export: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of ``export_summary_review`` for a vector."""
    packets, mapping = render(setup)
    return {
        "packets": packets,
        "mapping": mapping,
        "sealing_key": key(setup),
        "bindings": [ReviewBinding(**b) for b in export["bindings"]],
        "claims": export["claims"],
        "evidence": export["evidence"],
        "summary": export["summary"],
        "source": export["source"],
        "rubric_version": export["rubric_version"],
        "evidence_kind": export["evidence_kind"],
    }
