"""Tolerances, baseline comparison and the regression gate (gold-harness.md §9.8)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from citelens.gold._guard import as_text, caller, invalid
from citelens.gold._metrics import delta
from citelens.gold._registry import METRICS, MetricSpec, scorer_metrics
from citelens.gold._ws import trim_ws

__all__ = [
    "Tolerances",
    "checked_tolerances",
    "compute_gate",
    "gate_baseline",
    "gate_entry",
    "parse_tolerances",
]

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
        """``(gated, tolerance)`` for one registry metric (one of ``METRICS``; a ``Tolerances``
        built by hand is checked as :func:`checked_tolerances` does)."""
        if type(spec) is not MetricSpec or spec not in _SPECS:
            raise invalid()
        return checked_tolerances(self)._resolve(spec)

    def _resolve(self, spec: MetricSpec) -> tuple[bool, Decimal]:
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


class _Spec:
    """Membership in the registry without hashing the caller's fields (a hand-built
    ``MetricSpec`` may hold a ``str`` subclass whose ``__hash__`` raises)."""

    def __init__(self) -> None:
        self._known = {(s.scorer, s.name, s.kind, s.direction, s.gate) for s in METRICS}

    def __contains__(self, spec: object) -> bool:
        fields = [getattr(spec, n) for n in ("scorer", "name", "kind", "direction", "gate")]
        if not all(type(f) is str for f in fields):
            return False
        return tuple(fields) in self._known


_SPECS = _Spec()


def _tolerance(value: object) -> Decimal | None:
    # what parse_tolerances makes: None (off) or a finite, non-negative Decimal
    if value is None:
        return None
    if type(value) is not Decimal or not value.is_finite() or value < 0:
        raise invalid()
    return value


def _tolerance_map(value: object) -> dict[str, Decimal | None]:
    if type(value) is not dict:
        raise invalid()
    pairs = list(dict.items(value))
    return {as_text(name): _tolerance(tol) for name, tol in pairs}


def checked_tolerances(value: object) -> Tolerances:
    """``value`` rebuilt from exact types when it is a ``Tolerances`` that
    :func:`parse_tolerances` could have made (names are texts, values ``None`` or finite
    non-negative ``Decimal``); otherwise ``GoldError("gold input is invalid")``."""
    if type(value) is not Tolerances:
        raise invalid()
    if value.has_default is not True and value.has_default is not False:
        raise invalid()
    return Tolerances(
        _tolerance_map(value.qualified),
        _tolerance_map(value.bare),
        _tolerance(value.default),
        value.has_default,
    )


def parse_tolerances(specs: Sequence[str]) -> Tolerances | str:
    """Parse ``--tolerance`` values; returns the offending spec (a ``str``) when one is invalid."""
    qualified: dict[str, Decimal | None] = {}
    bare: dict[str, Decimal | None] = {}
    default: Decimal | None = None
    has_default = False
    for raw in specs:
        text = trim_ws(raw)
        name, sep, value_text = text.rpartition("=")
        if value_text == "off":
            value: Decimal | None = None
        elif _VALUE.fullmatch(value_text) and math.isfinite(float(value_text)):
            # beyond float range the scorecard's tolerance (a JSON float) would be infinite
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
    # A finite real that float() can hold: NaN or infinity (a baseline file may carry them) would
    # make the delta Decimal unorderable, an int beyond float range would overflow.
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, int):
        return int.bit_length(value) <= 1023
    return math.isfinite(value)


def _field(value: object) -> str | None:
    return as_text(value) if isinstance(value, str) else None


def gate_entry(entry: object) -> dict[str, Any] | None:
    """The fields of one scorecard entry the gate reads, as plain data (``None`` when ``entry``
    is not a mapping). A field of the wrong type counts as absent; a metric value that is not a
    finite number (nor ``None``) becomes ``""``: present, but no number."""
    if not isinstance(entry, Mapping):
        return None
    fields = caller(lambda: [entry.get(key) for key in ("id", "status", "skip_code", "metrics")])
    plain: dict[str, Any] = {
        "id": _field(fields[0]),
        "status": _field(fields[1]),
        "skip_code": _field(fields[2]),
        "metrics": {},
    }
    metrics = fields[3]
    if isinstance(metrics, Mapping):
        pairs = caller(lambda: list(metrics.items()))
        for pair in pairs:
            if isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str):
                value = pair[1]
                plain["metrics"][as_text(pair[0])] = value if value is None or _num(value) else ""
    return plain


def gate_baseline(baseline: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a baseline document the gate reads, as plain data: the entries with a text
    ``id`` and the dataset digest (``None`` when it is not text)."""
    fields = caller(lambda: [baseline.get("results"), baseline.get("dataset_digest")])
    raw = fields[0]
    entries = caller(lambda: list(raw)) if isinstance(raw, list | tuple) else []
    kept = [
        entry for entry in map(gate_entry, entries) if entry is not None and entry["id"] is not None
    ]
    return {"results": kept, "dataset_digest": _field(fields[1])}


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
    # Plain copies of what the gate reads: a baseline file may hold anything JSON can.
    results = [entry for entry in map(gate_entry, results) if entry is not None]
    if baseline is not None:
        baseline = gate_baseline(baseline)
    base_entries: dict[str, Mapping[str, Any]] = {}
    if baseline is not None and compare:
        for entry in baseline["results"]:
            base_entries[entry["id"]] = entry
    comparisons: list[dict[str, Any]] = []
    unmeasured_keys: set[str] = set()
    regressions = 0
    failures = sum(1 for r in results if r.get("status") == "failed")
    for entry in results:
        sid = entry["id"] or ""
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
