"""Tolerances, baseline comparison and the regression gate (gold-harness.md §9.8)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from citelens.gold._metrics import delta
from citelens.gold._registry import METRICS, MetricSpec, scorer_metrics

__all__ = ["Tolerances", "compute_gate", "parse_tolerances"]

_VALUE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_NAMES = {spec.name for spec in METRICS}
_QUALIFIED = {spec.qualified: spec for spec in METRICS}


@dataclass(frozen=True)
class Tolerances:
    """Parsed ``--tolerance`` entries: ``None`` value means ``off``."""

    qualified: dict[str, Decimal | None]
    bare: dict[str, Decimal | None]
    default: Decimal | None
    has_default: bool

    def resolve(self, spec: MetricSpec) -> tuple[bool, Decimal]:
        """``(gated, tolerance)`` for one registry metric."""
        if spec.direction == "none" or spec.gate == "no":
            return False, Decimal(0)
        if spec.qualified in self.qualified:
            value = self.qualified[spec.qualified]
            return (value is not None), (value or Decimal(0))
        if spec.name in self.bare:
            value = self.bare[spec.name]
            return (value is not None), (value or Decimal(0))
        if spec.gate == "opt":
            return False, Decimal(0)
        if self.has_default:
            return (self.default is not None), (self.default or Decimal(0))
        return True, Decimal(0)


def parse_tolerances(specs: Sequence[str]) -> Tolerances | str:
    """Parse ``--tolerance`` values; returns the offending spec (a ``str``) when one is invalid."""
    qualified: dict[str, Decimal | None] = {}
    bare: dict[str, Decimal | None] = {}
    default: Decimal | None = None
    has_default = False
    for raw in specs:
        text = raw.strip()
        name, sep, value_text = text.rpartition("=")
        if value_text == "off":
            value: Decimal | None = None
        elif _VALUE.fullmatch(value_text):
            value = Decimal(value_text)
        else:
            return raw
        if not sep:
            default, has_default = value, True
            continue
        if name in _QUALIFIED:
            if _QUALIFIED[name].direction == "none":
                return raw
            qualified[name] = value
        elif name in _NAMES:
            if all(s.direction == "none" for s in METRICS if s.name == name):
                return raw
            bare[name] = value
        else:
            return raw
    return Tolerances(qualified, bare, default, has_default)


def _num(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _ran(entry: Mapping[str, Any] | None) -> bool:
    return entry is not None and entry.get("status") in ("passed", "failed")


def _fmt_tol(t: Decimal) -> float:
    return float(t)


def compute_gate(
    results: Sequence[Mapping[str, Any]],
    baseline: Mapping[str, Any] | None,
    baseline_name: str | None,
    tolerances: Tolerances,
    *,
    enforced: bool,
    dataset_digest: str,
    compare: bool = True,
) -> dict[str, Any]:
    """The scorecard's ``gate`` section from rounded scorecard entries and a baseline document."""
    base_entries: dict[str, Mapping[str, Any]] = {}
    if baseline is not None and compare:
        for entry in baseline.get("results") or []:
            if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                base_entries[entry["id"]] = entry
    comparisons: list[dict[str, Any]] = []
    unmeasured_keys: set[str] = set()
    regressions = 0
    failures = sum(1 for r in results if r.get("status") == "failed")
    for entry in results:
        sid = str(entry.get("id"))
        if entry.get("status") == "skipped":
            code = entry.get("skip_code")
            if code == "unavailable":
                unmeasured_keys.add(f"{sid}:unavailable")
            elif code in ("no_capability", "no_cases"):
                prev = base_entries.get(sid)
                if _ran(prev) and prev is not None:
                    bmetrics = prev.get("metrics") or {}
                    for spec in scorer_metrics(sid):
                        gated, _ = tolerances.resolve(spec)
                        if gated and _num(bmetrics.get(spec.name)):
                            unmeasured_keys.add(spec.qualified)
            continue
        metrics: Mapping[str, Any] = entry.get("metrics") or {}
        for spec in scorer_metrics(sid):
            gated, _ = tolerances.resolve(spec)
            if gated and spec.name in metrics and metrics[spec.name] is None:
                unmeasured_keys.add(spec.qualified)
        prev = base_entries.get(sid)
        if not _ran(prev) or prev is None:
            continue
        bmetrics = prev.get("metrics") or {}
        for spec in scorer_metrics(sid):
            has_c, has_b = spec.name in metrics, spec.name in bmetrics
            if not has_c and not has_b:
                continue
            c, b = metrics.get(spec.name), bmetrics.get(spec.name)
            gated, tol = tolerances.resolve(spec)
            d: Decimal | None = None
            if isinstance(c, int | float) and isinstance(b, int | float) and _num(c) and _num(b):
                d = delta(float(c), float(b))
            if not gated:
                if d is not None:
                    status = "unchanged" if d == 0 else "changed"
                elif _num(c) and not _num(b):
                    status = "new"
                elif c is None and b is None:
                    status = "unchanged"
                else:
                    status = "changed"
            elif (not _num(c) and _num(b)) or (has_c and c is None):
                status = "unmeasured"
                unmeasured_keys.add(spec.qualified)
            elif not _num(b):
                status = "new"
            elif d == 0:
                status = "unchanged"
            else:
                assert d is not None
                signed = d if spec.direction == "higher" else -d
                if signed > 0:
                    status = "improved"
                elif -signed <= tol:
                    status = "worse"
                else:
                    status = "regression"
                    regressions += 1
            comparisons.append(
                {
                    "scorer": sid,
                    "metric": spec.name,
                    "baseline": b if _num(b) else None,
                    "current": c if _num(c) else None,
                    "delta": float(d) if d is not None else None,
                    "direction": spec.direction,
                    "tolerance": _fmt_tol(tol) if gated else None,
                    "status": status,
                }
            )
    unmeasured = len(unmeasured_keys)
    return {
        "enforced": enforced,
        "baseline": baseline_name if (baseline is not None and compare) else None,
        "dataset_changed": bool(
            baseline is not None and compare and baseline.get("dataset_digest") != dataset_digest
        ),
        "comparisons": comparisons,
        "scorer_failures": failures,
        "regressions": regressions,
        "unmeasured": unmeasured,
        "passed": failures == 0 and regressions == 0 and unmeasured == 0,
    }
