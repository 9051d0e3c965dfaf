"""Per-adapter baselines (gold-harness.md §9.8): the file name, reading a saved scorecard or
baseline document, and saving a run as the new baseline (offline-skipped scorers keep their
previous entry)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citelens.errors import GoldError
from citelens.gold._outputs import Abort, card_json, write_text

__all__ = ["baseline_file_name", "read_card", "save_baseline"]


def baseline_file_name(adapter_name: str) -> str:
    """``baseline.<safe>.json`` for an adapter name (§9.8)."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", adapter_name).lower()
    if not safe.strip("-"):
        safe = "default"
    return f"baseline.{safe}.json"


def _no_constant(_name: str) -> Any:
    # NaN, Infinity and -Infinity are not JSON (conventions.md §3): the file is unreadable
    raise ValueError("non-finite number")


def read_card(path: Path) -> Any:
    """A scorecard or baseline JSON object; unreadable or not an object stops the run."""
    failed = False
    value: Any = None
    try:
        value = json.loads(path.read_text(encoding="utf-8-sig"), parse_constant=_no_constant)
    except (OSError, ValueError):  # ValueError covers bad UTF-8, bad JSON, NaN and huge ints
        failed = True
    if failed or not isinstance(value, dict):
        raise Abort([], GoldError("gold baseline could not be read", "io"))
    return value


def save_baseline(path: Path, card: Mapping[str, Any], previous: Mapping[str, Any] | None) -> None:
    """Write ``card`` (without gate and details) as the baseline at ``path``."""
    prev_entries: dict[str, Mapping[str, Any]] = {}
    if previous is not None:
        for entry in previous.get("results") or []:
            if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                prev_entries[entry["id"]] = entry
    results: list[dict[str, Any]] = []
    for entry in card["results"]:
        prev = prev_entries.get(entry["id"])
        if (
            entry.get("skip_code") == "offline"
            and prev is not None
            and prev.get("status") in ("passed", "failed")
        ):
            kept = {k: v for k, v in prev.items() if k != "detail"}
            if "carried_from" not in kept and previous is not None:
                kept["carried_from"] = previous.get("run_id")
            results.append(kept)
            continue
        results.append({k: v for k, v in entry.items() if k != "detail"})
    doc = {k: v for k, v in card.items() if k not in ("gate", "results")}
    doc["results"] = results
    ordered = {k: doc[k] for k in card if k in doc}
    ordered["results"] = results
    write_text(path, card_json(ordered))
