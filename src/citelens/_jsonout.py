"""Canonical JSON (conventions §5.1)."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["canonical_json"]


def canonical_json(value: Any) -> str:
    """Sorted keys, compact separators, ASCII escapes, no NaN, one trailing newline."""
    return (
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
        + "\n"
    )
