"""Shared test input for the importer tests: exchanges as the ``(_line, raw)`` frame that a
format's ``convert`` takes, built from Python values or read from a fixture file.

Named distinctively (not ``_helpers``) because ``tests/importers`` is not a package: pytest
puts this folder on ``sys.path`` and imports the module under its bare name."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import polars as pl

__all__ = ["fixture_lines", "raw_lines"]


def raw_lines(items: Sequence[object], first: int = 1) -> pl.DataFrame:
    """``items`` as JSON Lines, one per line, numbered from ``first``."""
    lines = [json.dumps(item, ensure_ascii=False) for item in items]
    return pl.DataFrame({"_line": range(first, first + len(lines)), "raw": lines})


def fixture_lines(path: Path) -> pl.DataFrame:
    """The lines of the fixture file ``path`` as they are, numbered from 1."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return pl.DataFrame({"_line": range(1, len(lines) + 1), "raw": lines})
