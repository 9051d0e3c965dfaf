"""The four gold scorers (gold-harness.md §6), one module each.

:func:`run_scorers` runs them in the registry order: ``citation-detection`` (offline),
``claim-extraction``, ``verdict-accuracy`` and ``grounding`` (online, through an adapter).
"""

from __future__ import annotations

from citelens.gold.scorers._api import (
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
