"""Whole-frame steps every importer uses: one row per list item, the first bad line, and the
claims table of claims located in the answer."""

from __future__ import annotations

import polars as pl

from citelens.importers._decode import LINE, malformed

__all__ = ["answer_claims", "exploded", "first_line", "raise_first"]


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


def answer_claims(
    frame: pl.DataFrame,
    *,
    start: pl.Expr | str,
    end: pl.Expr | str,
    source_length: pl.Expr | str,
    offset_unit: str,
    original: tuple[pl.Expr | str, pl.Expr | str] | None = None,
    document_ref: pl.Expr | str = "document_ref",
    claim_id: pl.Expr | str = "claim_id",
) -> pl.DataFrame:
    """The claims-table columns of ``frame``, one row per row: every claim is a span of the
    answer (``source_id`` ``"answer"``). ``start``/``end`` are its half-open code-point
    offsets, ``source_length`` the answer's length in code points, ``offset_unit`` the unit the
    provider measured in and ``original`` its own two numbers (null when it gives none).

    A string names a column of ``frame``; an expression is evaluated on ``frame``.
    """
    missing = pl.lit(None, dtype=pl.Int64)
    original_start, original_end = (missing, missing) if original is None else original
    return frame.select(
        _named(document_ref, "document_ref"),
        _named(claim_id, "claim_id"),
        _named(start, "start"),
        _named(end, "end"),
        pl.lit("answer").alias("source_id"),
        _named(source_length, "source_length"),
        pl.lit(offset_unit).alias("offset_unit"),
        _named(original_start, "original_start"),
        _named(original_end, "original_end"),
    )


def _named(value: pl.Expr | str, name: str) -> pl.Expr:
    # a column name or an expression, under the claims-table column name ``name``
    return (pl.col(value) if isinstance(value, str) else value).alias(name)
