"""What a gold run writes and how it stops (gold-harness.md §9.3, §9.5, §9.12): the scorecard
entries and JSON text, atomic result writes, and the internal stop that carries the diagnostics
and the error."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citelens._atomic import WriteFailure, write_text_atomic
from citelens.errors import GoldError
from citelens.gold._metrics import round_metric
from citelens.gold.scorers import ScorerResult

__all__ = [
    "Abort",
    "card_json",
    "results_not_written",
    "round_detail",
    "rounded_metrics",
    "scorecard_entry",
    "utf8_text",
    "write_text",
]


class Abort(Exception):
    """Internal: stop the run with exit 2, its diagnostic lines and the library error.

    The library functions raise ``error`` (unchained); the CLI prints ``lines`` (or the
    error line when there are none) and exits 2.
    """

    def __init__(self, lines: list[str], error: GoldError) -> None:
        super().__init__()
        self.lines = lines
        self.error = error


def results_not_written() -> Abort:
    """The stop for a scorecard, history file, baseline or report that could not be written."""
    return Abort([], GoldError("gold results could not be written", "io"))


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (a failed write stops the run)."""
    failed = False
    try:
        write_text_atomic(path, text)
    except WriteFailure:
        failed = True
    if failed:
        raise results_not_written()
    return path


def card_json(card: Mapping[str, Any]) -> str:
    """The scorecard as indented JSON text with a final newline."""
    return json.dumps(card, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def rounded_metrics(metrics: Mapping[str, float | int | None]) -> dict[str, float | int | None]:
    """Float metrics rounded to the scorecard precision; counts and ``None`` as they are."""
    out: dict[str, float | int | None] = {}
    for name, value in metrics.items():
        if isinstance(value, float):
            out[name] = round_metric(value)
        else:
            out[name] = value
    return out


def utf8_text(text: str) -> str:
    """``text`` as it reads back from UTF-8: a lone surrogate from a command line that was not
    UTF-8 (U+DC80-U+DCFF) becomes its byte, read as U+FFFD; any other lone surrogate becomes
    ``?``. Adapter replies, errors and labels reach the scorecard, the console and the report;
    a lone surrogate among them made every UTF-8 write fail (an internal error)."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def round_detail(value: Any) -> Any:
    """Every float inside a per-case detail value rounded to the scorecard precision, every text
    (keys too) made writable as UTF-8 (:func:`utf8_text`)."""
    if isinstance(value, float):
        return round_metric(value)
    if isinstance(value, str):
        return utf8_text(value)
    if isinstance(value, list):
        return [round_detail(v) for v in value]
    if isinstance(value, dict):
        return {round_detail(k): round_detail(v) for k, v in value.items()}
    return value


def scorecard_entry(result: ScorerResult) -> dict[str, Any]:
    """The scorecard entry of one scorer (§9.5): its status and rounded metrics and details."""
    if result.status == "skipped":
        return {
            "id": result.id,
            "mode": result.mode,
            "status": result.status,
            "skip_code": result.skip_code,
            "reason": None if result.reason is None else utf8_text(result.reason),
        }
    return {
        "id": result.id,
        "mode": result.mode,
        "status": result.status,
        "metrics": rounded_metrics(result.metrics),
        "failures": [utf8_text(line) for line in result.failures],
        "notes": [utf8_text(line) for line in result.notes],
        "detail": round_detail(result.detail),
    }
