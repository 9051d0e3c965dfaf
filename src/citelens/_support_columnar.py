"""Columnar normalisation (stub)."""
from __future__ import annotations
from typing import Any
import pyarrow as pa

def python_records_table(items: list[Any]) -> pa.Table | None:
    return None
def type_csv_table(table: pa.Table) -> pa.Table | list[dict[str, Any]]:
    return table
def claims_from_table(table: pa.Table, citation_limit: int, lengths: dict[str, int], strict: bool) -> Any:
    return None
def evidence_from_table(table: pa.Table, lengths: dict[str, int], strict: bool) -> Any:
    return None
def citations_from_table(table: pa.Table) -> Any:
    return None
def adjudications_from_table(table: pa.Table, strict: bool) -> Any:
    return None
