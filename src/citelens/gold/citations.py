"""Deterministic citation detection (gold-harness.md §4): the four public functions."""

from __future__ import annotations

from citelens.gold._public_values import (
    detect_author_year,
    detect_citations,
    normalise_citations,
    parse_numeric_citations,
)

__all__ = [
    "detect_author_year",
    "detect_citations",
    "normalise_citations",
    "parse_numeric_citations",
]
