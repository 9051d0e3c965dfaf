"""What the scorers share (gold-harness.md §6.0): the result record, the skip rules of
the online scorers, and one scorer's session of adapter calls with its latency sample."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from citelens.gold._adapters import AdapterCall, LoadedAdapter
from citelens.gold._cases import CitationKey, canonical_key
from citelens.gold._metrics import percentile, round_metric
from citelens.gold._registry import scorer_metrics

__all__ = [
    "CAPABILITY",
    "ScorerResult",
    "Session",
    "compact",
    "finish",
    "keys_of",
    "ordered",
    "pre_skip",
    "rounded",
    "skip",
]

CAPABILITY = {
    "claim-extraction": ("claims", "split_claims"),
    "verdict-accuracy": ("verdicts", "analyze_batch"),
    "grounding": ("grounding", "answer"),
    "redaction": ("redaction", "redact"),
    "simplification": ("simplification", "simplify"),
    "retrieval": ("retrieval", "fetch_record"),
}

# The capabilities of issue 13: until the adapter loader lists them (helper D's part), a
# callable export is the capability; once it does, the two tests agree.
_EXPORT_CHECKED = frozenset(("redaction", "simplification", "retrieval"))


@dataclass
class ScorerResult:
    """One scorer's entry: status, unrounded metrics (``None`` = unmeasured), failures, detail."""

    id: str
    mode: str
    status: str
    metrics: dict[str, float | int | None] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)
    skip_code: str | None = None
    reason: str | None = None

    @property
    def ran(self) -> bool:
        """True when the scorer ran (passed or failed)."""
        # exact text only: `in` would run a str subclass's __eq__ (a hand-built result)
        return type(self.status) is str and self.status in ("passed", "failed")


def compact(value: object) -> str:
    """Compact JSON of a value named in a failure line."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def rounded(value: float | None) -> float | None:
    """A metric rounded for the per-case detail (``None`` stays ``None``)."""
    return None if value is None else round_metric(value)


def ordered(scorer: str, metrics: dict[str, float | int | None]) -> dict[str, float | int | None]:
    """``metrics`` in the registry order of ``scorer``'s metrics."""
    return {
        spec.name: metrics[spec.name] for spec in scorer_metrics(scorer) if spec.name in metrics
    }


def finish(result: ScorerResult) -> ScorerResult:
    """Order the metrics and set the status: ``failed`` with any failure, else ``passed``."""
    result.metrics = ordered(result.id, result.metrics)
    result.status = "failed" if result.failures else "passed"
    return result


def keys_of(values: tuple[CitationKey, ...] | list[CitationKey]) -> list[CitationKey]:
    """The canonical form of each citation key."""
    return [canonical_key(v) for v in values]


def skip(scorer: str, code: str, reason: str) -> ScorerResult:
    """A skipped online scorer with its skip code and reason."""
    return ScorerResult(scorer, "online", "skipped", skip_code=code, reason=reason)


def _availability(adapter: LoadedAdapter) -> str | None:
    """``None`` when available, else the skip reason."""
    call = adapter.call("online_available")
    if not call.ok:
        return f"online_available() raised {call.error}"
    if call.value:
        return None
    hint = adapter.call("online_config_hint")
    return str(hint.value) if hint.ok and hint.value is not None else ""


def pre_skip(scorer: str, adapter: LoadedAdapter, online: bool) -> ScorerResult | None:
    """The skip entry of an online scorer that cannot run (offline, no capability, adapter
    unavailable), or ``None`` when it runs."""
    if not online:
        return skip(scorer, "offline", "online scorer (pass --online)")
    capability, export = CAPABILITY[scorer]
    has = capability in adapter.capabilities or (scorer in _EXPORT_CHECKED and adapter.has(export))
    if not has:
        return skip(
            scorer,
            "no_capability",
            f'adapter "{adapter.name}" has no {capability} capability (needs {export}())',
        )
    reason = _availability(adapter)
    if reason is not None:
        return skip(scorer, "unavailable", reason)
    return None


class Session:
    """Hooks, latency sample and response usage of one online scorer."""

    def __init__(self, adapter: LoadedAdapter) -> None:
        self.adapter = adapter
        self.started = False
        self.wall: list[float] = []

    def call(self, export: str, *args: Any) -> AdapterCall:
        if not self.started:
            self.started = True
            self.adapter.hook("reset_timing")
            self.adapter.hook("reset_tokens")
        result = self.adapter.call(export, *args)
        self.wall.append(result.elapsed_ms)
        return result

    def latency(self, metrics: dict[str, float | int | None]) -> None:
        sample: list[float] = list(self.wall)
        hooked = self.adapter.hook("call_latencies")
        if hooked is not None and hooked.ok and isinstance(hooked.value, list | tuple):
            sample = [
                float(v)
                for v in hooked.value
                if isinstance(v, int | float) and not isinstance(v, bool)
            ]
        p50 = percentile(sample, 50)
        p95 = percentile(sample, 95)
        if sample and p50 is not None and p95 is not None:
            metrics["latency_p50_ms"] = float(p50)
            metrics["latency_p95_ms"] = float(p95)
            metrics["latency_calls"] = len(sample)
