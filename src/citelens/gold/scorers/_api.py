"""The seven gold scorers in their fixed order (gold-harness.md §6, issue 13), with their arguments
revalidated at this public boundary (:mod:`citelens.gold._records`): a hand-built or changed
dataset, adapter record, flag or repeat count of the wrong kind is ``GoldError("gold input is
invalid")``; an unexpected exception inside citelens is :class:`~citelens.errors.InternalError`."""

from __future__ import annotations

from citelens._fixed import attempt
from citelens.gold._adapters import LoadedAdapter
from citelens.gold._cases import GoldDataset
from citelens.gold._records import (
    checked_adapter,
    checked_dataset,
    checked_online,
    checked_repeats,
)
from citelens.gold._registry import SCORERS
from citelens.gold._ws import normalise_label
from citelens.gold.scorers import (
    citation_detection,
    claim_extraction,
    grounding,
    redaction,
    retrieval,
    simplification,
)
from citelens.gold.scorers import verdict_accuracy as _verdicts
from citelens.gold.scorers._session import ScorerResult

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


def score_citation_detection(dataset: GoldDataset) -> ScorerResult:
    """Detected citation keys against the gold claims' keys and the style fixture (§6.1)."""
    return attempt(lambda: citation_detection.score_citation_detection(checked_dataset(dataset)))


def score_claim_extraction(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool
) -> ScorerResult:
    """The adapter's ``split_claims`` against the gold claims and non-claims (§6.2)."""
    return attempt(
        lambda: claim_extraction.score_claim_extraction(
            checked_dataset(dataset), checked_adapter(adapter), checked_online(online)
        )
    )


def score_verdict_accuracy(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool, repeats: int = 1
) -> ScorerResult:
    """Predicted verdicts against gold verdicts, passages, consistency, tokens (§6.3)."""
    return attempt(
        lambda: _verdicts.score_verdict_accuracy(
            checked_dataset(dataset),
            checked_adapter(adapter),
            checked_online(online),
            checked_repeats(repeats),
        )
    )


def score_grounding(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """The adapter's answers against the grounding cases (§6.4)."""
    return attempt(
        lambda: grounding.score_grounding(
            checked_dataset(dataset), checked_adapter(adapter), checked_online(online)
        )
    )


def score_redaction(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """The adapter's ``redact`` against the redaction cases (issue 13)."""
    return attempt(
        lambda: redaction.score_redaction(
            checked_dataset(dataset), checked_adapter(adapter), checked_online(online)
        )
    )


def score_simplification(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool
) -> ScorerResult:
    """The adapter's ``simplify`` against the simplification cases (issue 13)."""
    return attempt(
        lambda: simplification.score_simplification(
            checked_dataset(dataset), checked_adapter(adapter), checked_online(online)
        )
    )


def score_retrieval(dataset: GoldDataset, adapter: LoadedAdapter, online: bool) -> ScorerResult:
    """The adapter's ``fetch_record`` against the retrieval cases (issue 13)."""
    return attempt(
        lambda: retrieval.score_retrieval(
            checked_dataset(dataset), checked_adapter(adapter), checked_online(online)
        )
    )


def run_scorers(
    dataset: GoldDataset, adapter: LoadedAdapter, online: bool, repeats: int = 1
) -> list[ScorerResult]:
    """Run the seven scorers in order; returns one entry per scorer.

    Adapter errors are scorer failures (gold-harness.md §6.0); an unexpected exception inside
    citelens raises :class:`~citelens.errors.InternalError`.
    """

    def scored() -> list[ScorerResult]:
        data = checked_dataset(dataset)
        loaded = checked_adapter(adapter)
        flag = checked_online(online)
        count = checked_repeats(repeats)
        results = [
            citation_detection.score_citation_detection(data),
            claim_extraction.score_claim_extraction(data, loaded, flag),
            _verdicts.score_verdict_accuracy(data, loaded, flag, count),
            grounding.score_grounding(data, loaded, flag),
            redaction.score_redaction(data, loaded, flag),
            simplification.score_simplification(data, loaded, flag),
            retrieval.score_retrieval(data, loaded, flag),
        ]
        if [r.id for r in results] != list(SCORERS):
            raise AssertionError  # the registry and this list disagree: a citelens bug
        return results

    return attempt(scored)
