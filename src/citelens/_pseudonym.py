"""Pseudonymised identifier columns: ``"sha256:" + hex(SHA-256(UTF-8(value)))``, ``""`` kept.

Hashing runs in DuckDB's vectorised ``sha256`` over whole columns (Polars has no SHA-256
expression), with the row order of the input preserved.
"""

from __future__ import annotations

import duckdb
import polars as pl

__all__ = ["pseudonymise"]


def pseudonymise(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """``frame`` with every non-empty value of ``columns`` replaced by its SHA-256 pseudonym.

    ``columns`` are citelens's own column names (never caller text), quoted as identifiers.
    """
    present = [name for name in columns if name in frame.columns]
    if not present or frame.height == 0:
        return frame
    replacements = ", ".join(
        f"CASE WHEN \"{name}\" = '' THEN '' ELSE 'sha256:' || sha256(\"{name}\") END AS \"{name}\""
        for name in present
    )
    connection = duckdb.connect()
    try:
        connection.execute("SET preserve_insertion_order = true")
        connection.register("pseudonym_input", frame.to_arrow())
        table = connection.sql(
            f"SELECT * REPLACE ({replacements}) FROM pseudonym_input"
        ).to_arrow_table()
    finally:
        connection.close()
    result = pl.from_arrow(table)
    assert isinstance(result, pl.DataFrame)
    return result.select(frame.columns).cast(frame.schema)
