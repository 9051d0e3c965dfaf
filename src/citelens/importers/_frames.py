"""Whole-frame steps every importer uses: one row per list item, and the first bad line."""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, malformed

__all__ = ["exploded", "first_line", "raise_first"]


def exploded(frame: pl.DataFrame, column: str, position: str) -> pl.DataFrame:
    """``frame`` with one row per item of its list ``column`` and the item's 0-based
    ``position``; rows of empty or null lists are dropped."""
    return (
        frame.with_columns(pl.int_ranges(pl.col(column).list.len()).alias(position))
        .explode([column, position], empty_as_null=False)
        .filter(pl.col(position).is_not_null())
    )


def first_line(frame: pl.DataFrame, bad: pl.Expr) -> int | None:
    """The line of the first row of ``frame`` where ``bad`` holds, or ``None``."""
    lines = frame.filter(bad).get_column(LINE)
    return None if lines.is_empty() else int(lines.min())  # type: ignore[arg-type]


def raise_first(fmt: str, frame: pl.DataFrame, checks: list[tuple[pl.Expr, str, str]]) -> None:
    """Raise :func:`~citelens.importers._decode.malformed` for the first row (by line) that
    fails one of ``checks`` (condition, field path, problem; the first failing check of that
    row wins)."""
    problem: pl.Expr = pl.lit(None, dtype=pl.Int64)
    for position, (bad, _, _) in reversed(list(enumerate(checks))):
        problem = pl.when(bad.fill_null(False)).then(position).otherwise(problem)
    found = frame.select(LINE, problem.alias("_problem")).drop_nulls("_problem")
    if found.height:
        first = found.sort(LINE, maintain_order=True).row(0, named=True)
        _, field, text = checks[first["_problem"]]
        raise malformed(fmt, field, text, int(first[LINE]))
