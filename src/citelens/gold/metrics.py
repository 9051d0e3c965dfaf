"""Metric primitives of the gold harness (gold-harness.md §5)."""

from __future__ import annotations

from citelens.gold._metrics import Confusion
from citelens.gold._public_values import (
    claim_match,
    confusion_matrix,
    exact_set_match,
    jaccard,
    mean,
    norm_claim_text,
    norm_passage,
    passage_status,
    percentile,
    precision_recall_f1,
    round_metric,
)

__all__ = [
    "Confusion",
    "claim_match",
    "confusion_matrix",
    "exact_set_match",
    "jaccard",
    "mean",
    "norm_claim_text",
    "norm_passage",
    "passage_status",
    "percentile",
    "precision_recall_f1",
    "round_metric",
]
