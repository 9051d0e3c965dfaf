"""The reader failure marker, the Python view of records (conventions §3 "Rows") and the
readers of table objects (Arrow, Polars, datasets, DuckDB relations, Arrow streams)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import polars as pl
import pyarrow as pa

__all__ = [
    "READ_CAUSES",
    "ReadFailure",
    "drop_nulls",
    "is_dataset",
    "is_duckdb_relation",
    "is_table_object",
    "polars_frame",
    "read_table_object",
    "table_object_frame",
    "table_rows",
]


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


# -- table objects (issue 11: the Arrow-native API) ------------------------------------------
#
# A table object is any in-memory or lazy table a data engineer already holds: Arrow tables,
# batches and record-batch readers, Polars frames (eager or lazy), ``pyarrow.dataset`` datasets,
# DuckDB relations, and any object of the Arrow PyCapsule stream interface
# (``__arrow_c_stream__``). Datasets and DuckDB relations are recognised by their classes as
# found in ``sys.modules``: if the caller never imported ``pyarrow.dataset`` or ``duckdb`` the
# object cannot be one of theirs, so citelens never imports either to find out.


def _loaded_class(module: str, name: str) -> type | None:
    """The class ``module.name`` if that module is already imported, else ``None``."""
    loaded = sys.modules.get(module)
    found = getattr(loaded, name, None) if loaded is not None else None
    return found if isinstance(found, type) else None


def is_dataset(value: object) -> bool:
    """True for a ``pyarrow.dataset.Dataset`` (never imports ``pyarrow.dataset``)."""
    dataset = _loaded_class("pyarrow.dataset", "Dataset")
    return dataset is not None and isinstance(value, dataset)


def is_duckdb_relation(value: object) -> bool:
    """True for a ``duckdb.DuckDBPyRelation`` (never imports ``duckdb``)."""
    relation = _loaded_class("duckdb", "DuckDBPyRelation")
    return relation is not None and isinstance(value, relation)


def _is_table_object(value: object) -> bool:
    if isinstance(value, pa.Table | pa.RecordBatch | pa.RecordBatchReader):
        return True
    if isinstance(value, pl.DataFrame | pl.LazyFrame):
        return True
    if is_dataset(value) or is_duckdb_relation(value):
        return True
    return callable(getattr(type(value), "__arrow_c_stream__", None))


def is_table_object(value: object) -> bool:
    """True for every table object (see the module notes): Arrow tables, batches and readers,
    Polars ``DataFrame``/``LazyFrame``, ``pyarrow.dataset.Dataset``, DuckDB relations and any
    ``__arrow_c_stream__`` object."""
    try:
        return _is_table_object(value)
    except Exception:  # a caller class whose attribute lookup raises is no table object
        return False


_T = TypeVar("_T")


def _callers(read: Callable[[], _T]) -> _T:
    """Run ``read``, a step that runs the caller's code (their stream, dataset, relation or
    lazy plan): whatever it raises, or a Polars panic on their plan, is the input refusing to
    be read (conventions §1.2), :class:`ReadFailure`. Only these steps are guarded: what
    citelens does with the batches they return is ours, and a failure there stays a bug."""
    from citelens.io._bounds import READER_PANICS  # _bounds imports this module

    failed = False
    try:
        return read()
    except Exception:  # the caller's object raised while read (conventions §1.2)
        failed = True
    except READER_PANICS:  # Polars refused the caller's plan or table by panicking
        failed = True
    assert failed
    raise ReadFailure()


def _bounded(reader: pa.RecordBatchReader, limit: int | None) -> pa.Table:
    """The batches of a stream until ``limit + 1`` rows have been seen (the rest is never
    consumed: conventions §2 "Limit + 1"). Each step of the caller's stream is guarded."""
    schema = _callers(lambda: reader.schema)
    batches: list[pa.RecordBatch] = []
    seen = 0
    stream = _callers(lambda: iter(reader))
    while (batch := _callers(lambda: next(stream, None))) is not None:
        if not isinstance(batch, pa.RecordBatch):  # a stream yields batches (defensive)
            raise ReadFailure()
        batches.append(batch)
        seen += batch.num_rows
        if limit is not None and seen > limit:
            break
    # batches of another schema than the stream's own are a malformed stream
    if any(not batch.schema.equals(schema) for batch in batches):
        raise ReadFailure()
    return pa.Table.from_batches(batches, schema=schema)


def _relation_reader(relation: Any, limit: int | None) -> pa.RecordBatchReader:
    """A DuckDB relation as a record-batch stream; the row bound is pushed into the query."""

    def read() -> pa.RecordBatchReader:
        bounded = relation if limit is None else relation.limit(limit + 1)
        # to_arrow_reader (duckdb >= 1.4) replaces fetch_arrow_reader (the floor, 1.2.2, has
        # only the latter; fetch_record_batch is not a method there)
        method = getattr(bounded, "to_arrow_reader", None) or bounded.fetch_arrow_reader
        reader: pa.RecordBatchReader = method()
        return reader

    return _callers(read)


def _table_of(value: Any, limit: int | None) -> pa.Table:
    if isinstance(value, pa.Table):
        return value
    if isinstance(value, pa.RecordBatch):
        return pa.Table.from_batches([value])
    if isinstance(value, pl.DataFrame):
        return _callers(value.to_arrow)  # a frame Polars cannot convert panics
    if isinstance(value, pl.LazyFrame):
        # the bound is part of the plan: a lazy scan reads at most limit + 1 rows
        lazy = value if limit is None else value.head(limit + 1)
        return _callers(lambda: lazy.collect().to_arrow())
    if isinstance(value, pa.RecordBatchReader):
        return _bounded(value, limit)
    if is_dataset(value):
        return _bounded(_callers(lambda: value.scanner().to_reader()), limit)
    if is_duckdb_relation(value):
        return _bounded(_relation_reader(value, limit), limit)
    return _bounded(_callers(lambda: pa.RecordBatchReader.from_stream(value)), limit)


def read_table_object(value: object, limit: int | None = None) -> pa.Table:
    """Read a table object as one Arrow table, at most ``limit + 1`` rows of it: streams,
    datasets and relations are read only that far, a lazy frame collects only that far.

    What the caller's object raises while it is read (conventions §1.2), or a table Polars
    refuses by panicking, raises :class:`ReadFailure`; so does a schema that repeats a column
    name or nests too deep (:func:`citelens.io.check_schema`, its ``cause`` says which).
    """
    from citelens.io._bounds import check_schema  # _bounds imports this module

    table = _table_of(value, limit)
    # repeated names or too deep a nesting: refused before any engine converts the table
    check_schema(table.schema)
    if limit is not None and table.num_rows > limit + 1:
        table = table.slice(0, limit + 1)
    return table


def table_object_frame(value: object) -> pl.LazyFrame:
    """A table object as a Polars ``LazyFrame`` for the corpus mode, lazy where the object is:
    a lazy frame as it is, a dataset scanned by ``pl.scan_pyarrow_dataset`` (each batch then
    reads only its own rows), every other object read once (:func:`read_table_object`).
    Raises :class:`ReadFailure` as :func:`read_table_object` does."""
    from citelens.io._bounds import READER_PANICS, check_schema  # _bounds imports this module

    if isinstance(value, pl.LazyFrame):
        return value
    if isinstance(value, pl.DataFrame):
        return value.lazy()
    if is_dataset(value):
        schema: pa.Schema | None = None
        try:
            schema = value.schema  # type: ignore[attr-defined]
        except Exception:  # the caller's dataset raised while read (conventions §1.2)
            schema = None
        if not isinstance(schema, pa.Schema):
            raise ReadFailure()
        check_schema(schema)
        return pl.scan_pyarrow_dataset(value)
    table = read_table_object(value)  # the caller's object is read (and guarded) there
    frame: pl.DataFrame | None = None
    try:
        converted = pl.from_arrow(table)
        frame = converted if isinstance(converted, pl.DataFrame) else None
    except (pl.exceptions.PolarsError, pa.ArrowException):  # a type Polars cannot hold
        frame = None
    except READER_PANICS:  # Polars refused the table by panicking
        frame = None
    if frame is None:
        raise ReadFailure()
    return frame.lazy()


def polars_frame(table: pa.Table) -> pl.DataFrame:
    """A report's Arrow table as a Polars frame (``to_polars()`` of every report)."""
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)  # a pa.Table always becomes a DataFrame
    return frame
