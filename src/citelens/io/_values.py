"""The reader failure marker and the Python view of records (conventions §3 "Rows")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

__all__ = ["READ_CAUSES", "ReadFailure", "drop_nulls", "table_rows"]


# Why a read failed, as fixed codes (never a value of the input): ``unreadable`` (missing,
# malformed, not the format its suffix names), ``encoding`` (invalid UTF-8), ``depth`` (nesting
# deeper than citelens.io.MAX_DEPTH), ``size`` (a line or file beyond its byte bound),
# ``columns`` (a column name repeated). Capabilities whose contract has one message for every
# unreadable file ignore it; the code lets a contract give causes distinct messages.
READ_CAUSES: tuple[str, ...] = ("unreadable", "encoding", "depth", "size", "columns")


class ReadFailure(Exception):
    """Private marker: an input could not be read. Carries no message (``args == ()``), only
    ``cause``, one word of :data:`READ_CAUSES`; every capability turns it into its own fixed,
    unchained error."""

    cause: str

    def __init__(self, cause: str = "unreadable") -> None:
        super().__init__()
        self.cause = cause if cause in READ_CAUSES else "unreadable"

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.cause,))


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
