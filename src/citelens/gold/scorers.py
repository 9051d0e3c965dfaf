"""The four gold scorers (gold-harness.md §6)."""

from __future__ import annotations

from citelens.gold._scorers import (
    ScorerResult,
    normalise_label,
    run_scorers,
    score_citation_detection,
    score_claim_extraction,
    score_grounding,
    score_verdict_accuracy,
)

__all__ = [
    "ScorerResult",
    "normalise_label",
    "run_scorers",
    "score_citation_detection",
    "score_claim_extraction",
    "score_grounding",
    "score_verdict_accuracy",
]
