"""The grounding check (gold-harness.md §6.4)."""

from __future__ import annotations

from citelens.gold._grounding import DEFAULT_ABSTAIN_MARKERS, GroundingResult
from citelens.gold._public_values import check_grounding, contains, fold, neg_norm, numbers_in

__all__ = [
    "DEFAULT_ABSTAIN_MARKERS",
    "GroundingResult",
    "check_grounding",
    "contains",
    "fold",
    "neg_norm",
    "numbers_in",
]
