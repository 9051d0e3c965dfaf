"""The metric registry (gold-harness.md §7): kind, direction and default gating per metric."""

from __future__ import annotations

from dataclasses import dataclass

from citelens.gold._guard import as_text

__all__ = ["METRICS", "SCORERS", "MetricSpec", "metric_spec", "scorer_metrics"]

SCORERS: tuple[str, ...] = (
    "citation-detection",
    "claim-extraction",
    "verdict-accuracy",
    "grounding",
    "redaction",
    "simplification",
    "retrieval",
)
"""Scorer ids in run order."""


@dataclass(frozen=True)
class MetricSpec:
    """One registry entry: ``kind`` (rate/count/ms/per_claim), ``direction`` and ``gate``.

    ``direction`` is ``higher``, ``lower`` or ``none``; ``gate`` is ``yes`` (gated by default),
    ``opt`` (gated only when a tolerance names it) or ``no``.
    """

    scorer: str
    name: str
    kind: str
    direction: str
    gate: str

    @property
    def qualified(self) -> str:
        """``<scorer>.<metric>``."""
        return as_text(self.scorer) + "." + as_text(self.name)  # GoldError unless texts


def _m(scorer: str, name: str, kind: str, direction: str = "none", gate: str = "no") -> MetricSpec:
    return MetricSpec(scorer, name, kind, direction, gate)


_LAT = ("latency_p50_ms", "latency_p95_ms")


def _latency(scorer: str) -> list[MetricSpec]:
    return [_m(scorer, n, "ms", "lower", "opt") for n in _LAT] + [
        _m(scorer, "latency_calls", "count")
    ]


_CD = "citation-detection"
_CE = "claim-extraction"
_VA = "verdict-accuracy"
_GR = "grounding"
_RD = "redaction"
_SI = "simplification"
_RT = "retrieval"

METRICS: tuple[MetricSpec, ...] = tuple(
    [
        _m(_CD, "perClaim_exactSetRate", "rate", "higher", "yes"),
        _m(_CD, "perClaim_jaccardMean", "rate", "higher", "yes"),
        _m(_CD, "supportedStyle_accuracy", "rate", "higher", "yes"),
        _m(_CD, "n_claims", "count"),
        _m(_CD, "n_supported_styles", "count"),
        _m(_CD, "knownGap_open", "count"),
        _m(_CD, "knownGap_closed", "count"),
        _m(_CD, "knownGap_changed", "count"),
        _m(_CE, "f1", "rate", "higher", "yes"),
        _m(_CE, "precision", "rate", "higher", "yes"),
        _m(_CE, "recall", "rate", "higher", "yes"),
        _m(_CE, "citationJaccardMean", "rate", "higher", "yes"),
        _m(_CE, "nonClaim_leakRate", "rate", "lower", "yes"),
        _m(_CE, "totalLeaked", "count", "lower", "yes"),
        _m(_CE, "fidelityRate", "rate", "higher", "yes"),
        _m(_CE, "totalInfidelities", "count", "lower", "yes"),
        _m(_CE, "splitErrors", "count", "lower", "yes"),
        _m(_CE, "n_extracted", "count"),
        _m(_CE, "casesEvaluated", "count"),
        *_latency(_CE),
        _m(_VA, "verdict_exact", "rate", "higher", "yes"),
        _m(_VA, "verdict_adjacency", "rate", "higher", "yes"),
        _m(_VA, "hallucination_rate", "rate", "lower", "yes"),
        _m(_VA, "consistency", "rate", "higher", "yes"),
        _m(_VA, "n_verdicts", "count"),
        _m(_VA, "n_pairs", "count"),
        _m(_VA, "n_no_prediction", "count", "lower", "yes"),
        _m(_VA, "n_passages", "count"),
        _m(_VA, "n_passages_hallucinated", "count"),
        _m(_VA, "n_passages_empty", "count"),
        _m(_VA, "guard_downgrades", "count"),
        _m(_VA, "repeats", "count"),
        *_latency(_VA),
        _m(_VA, "token_calls", "count"),
        _m(_VA, "tokens_input_total", "count"),
        _m(_VA, "tokens_output_total", "count"),
        _m(_VA, "tokens_reasoning_total", "count"),
        _m(_VA, "tokens_total", "count"),
        _m(_VA, "tokens_per_claim", "per_claim", "lower", "opt"),
        _m(_GR, "answer_recall", "rate", "higher", "yes"),
        _m(_GR, "grounded_rate", "rate", "higher", "yes"),
        _m(_GR, "abstention_rate", "rate", "higher", "yes"),
        _m(_GR, "ungrounded_numbers", "count", "lower", "yes"),
        _m(_GR, "answer_errors", "count", "lower", "yes"),
        _m(_GR, "n_cases", "count"),
        _m(_GR, "n_answerable", "count"),
        _m(_GR, "n_unanswerable", "count"),
        *_latency(_GR),
        # issue 13: OpenGATE 0.9.0's names; leaks, missed anchors, fabricated numbers, contract
        # violations and failed checks are named failures, the gate watches their counts too
        _m(_RD, "n_cases", "count"),
        _m(_RD, "n_entities", "count"),
        _m(_RD, "recall", "rate", "higher", "yes"),
        _m(_RD, "leaks", "count", "lower", "yes"),
        _m(_RD, "over_redactions", "count"),
        _m(_RD, "knownGap_open", "count"),
        _m(_RD, "knownGap_closed", "count"),
        _m(_RD, "mean_case_recall", "rate", "higher", "yes"),
        *_latency(_RD),
        _m(_SI, "n_cases", "count"),
        _m(_SI, "n_anchors", "count"),
        _m(_SI, "anchor_recall", "rate", "higher", "yes"),
        _m(_SI, "dropped_facts", "count", "lower", "yes"),
        _m(_SI, "fabricated_numbers", "count", "lower", "yes"),
        _m(_SI, "contract_violations", "count", "lower", "yes"),
        _m(_SI, "mean_grade", "grade"),
        *_latency(_SI),
        _m(_RT, "n_cases", "count"),
        _m(_RT, "n_checks", "count"),
        _m(_RT, "failed_checks", "count", "lower", "yes"),
        _m(_RT, "fidelity", "rate", "higher", "yes"),
        *_latency(_RT),
    ]
)
"""Every metric a scorer can emit, in scorecard order."""

_BY_KEY = {spec.qualified: spec for spec in METRICS}


def metric_spec(scorer: str, name: str) -> MetricSpec | None:
    """The registry entry of ``<scorer>.<name>``."""
    return _BY_KEY.get(f"{scorer}.{name}")


def scorer_metrics(scorer: str) -> tuple[MetricSpec, ...]:
    """The registry entries of one scorer, in order."""
    return tuple(spec for spec in METRICS if spec.scorer == scorer)
