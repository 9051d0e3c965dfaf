"""The reader failure marker and the Python view of records (conventions §3 "Rows")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

__all__ = ["ReadFailure", "drop_nulls", "table_rows"]


class ReadFailure(Exception):
    """Private marker: an input could not be read. Carries no message; every capability turns
    it into its own fixed, unchained error."""


def drop_nulls(value: Any) -> Any:
    """Remove ``None`` values from mappings, recursively (also inside lists)."""
    if isinstance(value, Mapping):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value]
    return value


def table_rows(table: pa.Table) -> list[dict[str, Any]]:
    """The rows of a table as dictionaries of their non-null cells (nested nulls dropped)."""
    return [drop_nulls(row) for row in table.to_pylist()]
