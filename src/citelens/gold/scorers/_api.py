"""The four gold scorers in their fixed order (gold-harness.md §6)."""

from __future__ import annotations

from citelens._fixed import attempt
from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset
from citelens.gold._registry import SCORERS
from citelens.gold.scorers._session import ScorerResult
from citelens.gold.scorers.citation_detection import score_citation_detection
from citelens.gold.scorers.claim_extraction import score_claim_extraction
from citelens.gold.scorers.grounding import score_grounding
from citelens.gold.scorers.verdict_accuracy import normalise_label, score_verdict_accuracy

__all__ = [
    "ScorerResult",
    "normalise_label",
    "run_scorers",
    "score_citation_detection",
    "score_claim_extraction",
    "score_grounding",
    "score_verdict_accuracy",
]


def run_scorers(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool, repeats: int = 1
) -> list[ScorerResult]:
    """Run the four scorers in order; returns one entry per scorer.

    Adapter errors are scorer failures (gold-harness.md §6.0); an unexpected exception inside
    citelens raises :class:`~citelens.errors.InternalError`.
    """

    def scored() -> list[ScorerResult]:
        results = [
            score_citation_detection(dataset),
            score_claim_extraction(dataset, adapter, online),
            score_verdict_accuracy(dataset, adapter, online, repeats),
            score_grounding(dataset, adapter, online),
        ]
        if [r.id for r in results] != list(SCORERS):
            raise AssertionError  # the registry and this list disagree: a citelens bug
        return results

    return attempt(scored)
