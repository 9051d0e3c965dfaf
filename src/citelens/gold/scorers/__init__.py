"""The seven gold scorers (gold-harness.md §6, issue 13), one module each.

:func:`run_scorers` runs them in the registry order: ``citation-detection`` (offline),
``claim-extraction``, ``verdict-accuracy``, ``grounding``, ``redaction``, ``simplification`` and
``retrieval`` (online, through an adapter).
"""

from __future__ import annotations

from citelens.gold.scorers._api import (
    ScorerResult,
    normalise_label,
    run_scorers,
    score_citation_detection,
    score_claim_extraction,
    score_grounding,
    score_redaction,
    score_retrieval,
    score_simplification,
    score_verdict_accuracy,
)

__all__ = [
    "ScorerResult",
    "normalise_label",
    "run_scorers",
    "score_citation_detection",
    "score_claim_extraction",
    "score_grounding",
    "score_redaction",
    "score_retrieval",
    "score_simplification",
    "score_verdict_accuracy",
]
