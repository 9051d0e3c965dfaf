"""citelens.gold: a regression harness for evidence-grounded AI systems (gold-harness.md).

Load a hand-labelled gold set, run a system through an adapter, score its outputs with
deterministic scorers, write a scorecard stamped with the evaluated repository's commit, append it
to a Parquet history and compare it with a per-adapter baseline so that a drop fails CI.
"""

from __future__ import annotations

from citelens.errors import GoldError
from citelens.gold._adapters import CAPABILITIES, AdapterCheck, LoadedAdapter
from citelens.gold._cases import (
    VERDICT_SCALE,
    Anchor,
    DatasetCheck,
    GoldClaim,
    GoldDataset,
    GoldVerdict,
    GroundingCase,
    QACase,
    RedactionCase,
    RedactionEntity,
    Reference,
    RetrievalAnchor,
    RetrievalCase,
    SimplificationCase,
    StyleItem,
)
from citelens.gold._dataset import bundled_dataset_dir
from citelens.gold._gate import Tolerances
from citelens.gold._grounding import DEFAULT_ABSTAIN_MARKERS, GroundingResult
from citelens.gold._history import HISTORY_SCHEMA
from citelens.gold._public import (
    baseline_file_name,
    check_adapter,
    check_dataset,
    compute_gate,
    dataset_digest,
    evaluated_commit,
    history_view_sql,
    load_adapter,
    load_dataset,
    parse_tolerances,
    read_history,
    report,
    run,
    run_scorers,
)
from citelens.gold._public_values import (
    canonical_key,
    check_grounding,
    claim_match,
    detect_author_year,
    detect_citations,
    exact_set_match,
    jaccard,
    norm_claim_text,
    norm_passage,
    normalise_citations,
    parse_numeric_citations,
    percentile,
    precision_recall_f1,
    round_metric,
    verdict_index,
)
from citelens.gold._registry import METRICS, SCORERS, MetricSpec
from citelens.gold._run import GoldRun
from citelens.gold.scorers import ScorerResult

__all__ = [
    "CAPABILITIES",
    "DEFAULT_ABSTAIN_MARKERS",
    "HISTORY_SCHEMA",
    "METRICS",
    "SCORERS",
    "VERDICT_SCALE",
    "AdapterCheck",
    "Anchor",
    "DatasetCheck",
    "GoldClaim",
    "GoldDataset",
    "GoldError",
    "GoldRun",
    "GoldVerdict",
    "GroundingCase",
    "GroundingResult",
    "LoadedAdapter",
    "MetricSpec",
    "QACase",
    "RedactionCase",
    "RedactionEntity",
    "Reference",
    "RetrievalAnchor",
    "RetrievalCase",
    "ScorerResult",
    "SimplificationCase",
    "StyleItem",
    "Tolerances",
    "baseline_file_name",
    "bundled_dataset_dir",
    "canonical_key",
    "check_adapter",
    "check_dataset",
    "check_grounding",
    "claim_match",
    "compute_gate",
    "dataset_digest",
    "detect_author_year",
    "detect_citations",
    "evaluated_commit",
    "exact_set_match",
    "history_view_sql",
    "jaccard",
    "load_adapter",
    "load_dataset",
    "norm_claim_text",
    "norm_passage",
    "normalise_citations",
    "parse_numeric_citations",
    "parse_tolerances",
    "percentile",
    "precision_recall_f1",
    "read_history",
    "report",
    "round_metric",
    "run",
    "run_scorers",
    "verdict_index",
]
