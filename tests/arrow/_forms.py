"""The table-object forms of issue 11 item 3, each built from the same literal rows.

Every form holds exactly the rows of ``rows`` (the plain Python form): a test that evaluates
each form and compares the canonical report JSON checks that the form changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq


class CapsuleOnly:
    """An object of the Arrow PyCapsule stream interface and nothing else (no pyarrow or
    polars class), the way a third-party library exports a table."""

    def __init__(self, table: pa.Table) -> None:
        self._table = table

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._table.__arrow_c_stream__(requested_schema)


def arrow_table(rows: list[dict[str, Any]]) -> pa.Table:
    """The rows as an Arrow table (a key a row lacks is a null cell)."""
    return pa.Table.from_pylist(rows)


def _reader(table: pa.Table) -> pa.RecordBatchReader:
    # one row per batch, so that a bounded read can stop between rows
    return pa.RecordBatchReader.from_batches(table.schema, table.to_batches(max_chunksize=1))


# The connections of the relations made here, kept open as a caller keeps theirs: duckdb 1.2
# (the floor) closes a connection that nothing references, and its relations with it.
_CONNECTIONS: list[duckdb.DuckDBPyConnection] = []


def _relation(table: pa.Table) -> duckdb.DuckDBPyRelation:
    connection = duckdb.connect()
    _CONNECTIONS.append(connection)
    return connection.from_arrow(table)


def forms(rows: list[dict[str, Any]], tmp: Path, name: str) -> dict[str, Callable[[], Any]]:
    """Builders of every form of ``rows``, by form name; a builder is called once per use
    (a reader or stream can be read only once)."""
    table = arrow_table(rows)
    parquet = tmp / f"{name}.parquet"
    pq.write_table(table, parquet)
    return {
        "records": lambda: [dict(row) for row in rows],
        "parquet": lambda: str(parquet),
        "pa.Table": lambda: table,
        "pa.RecordBatchReader": lambda: _reader(table),
        "pl.DataFrame": lambda: pl.from_arrow(table),
        "pl.LazyFrame": lambda: pl.scan_parquet(parquet),
        "pyarrow.dataset": lambda: pa_dataset.dataset(parquet),
        "duckdb": lambda: _relation(table),
        "capsule": lambda: CapsuleOnly(table),
    }


FORM_NAMES = (
    "records",
    "parquet",
    "pa.Table",
    "pa.RecordBatchReader",
    "pl.DataFrame",
    "pl.LazyFrame",
    "pyarrow.dataset",
    "duckdb",
    "capsule",
)
TABLE_FORMS = FORM_NAMES[2:]


class CountingStream:
    """An Arrow stream of one-row batches that counts how many batches were pulled."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table
        self.pulled = 0

    def _batches(self) -> Iterator[pa.RecordBatch]:
        for batch in self.table.to_batches(max_chunksize=1):
            self.pulled += 1
            yield batch

    def reader(self) -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(self.table.schema, self._batches())
