"""Named types of the public parameters: what a table, a collection and a path may be.

Every public function that reads a collection of records (claims, evidence, citations,
adjudications, documents) accepts the same forms, named here once:

* :data:`TableLike`: a table object, read column by column: ``pyarrow.Table``,
  ``pyarrow.RecordBatch``, ``pyarrow.RecordBatchReader``, ``pyarrow.dataset.Dataset``, Polars
  ``DataFrame`` and ``LazyFrame``, a DuckDB relation (``duckdb.DuckDBPyRelation``) and any
  object of the Arrow PyCapsule stream interface (:class:`ArrowStreamExportable`: one with an
  ``__arrow_c_stream__`` method, e.g. a pandas 3 frame, a DataFusion or Ibis result, or a
  citelens report).
* :data:`PathLike`: a data-file path (``str`` or ``os.PathLike``) whose suffix names its
  format (``.parquet``, ``.arrow``/``.feather``/``.ipc``, ``.jsonl``/``.ndjson``, ``.csv``,
  ``.json``).
* :data:`CollectionLike`: any of those, or Python records: an iterable of mappings, typed
  records or objects with ``to_dict()``, or a compact mapping (identifier → record).
* :data:`CorpusInput`: one role's input of the corpus mode (:mod:`citelens.corpus`): a table
  object or a path to a data file or to a directory of them (read lazily).

This module imports no engine (neither Polars, PyArrow nor DuckDB): the aliases are strings
that only type checkers resolve, so ``import citelens.types`` stays as light as
``import citelens``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeAlias, runtime_checkable

if TYPE_CHECKING:  # names for type checkers only; nothing is imported at run time
    import os
    from collections.abc import Iterable, Mapping
    from typing import Any

    import duckdb
    import polars as pl
    import pyarrow as pa
    import pyarrow.dataset as pa_dataset

__all__ = [
    "ArrowStreamExportable",
    "CollectionLike",
    "CorpusInput",
    "PathLike",
    "TableLike",
]


@runtime_checkable
class ArrowStreamExportable(Protocol):
    """An object of the Arrow PyCapsule stream interface: ``__arrow_c_stream__`` returns a
    PyCapsule holding an ``ArrowArrayStream`` (cast to ``requested_schema`` if it can)."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        """The ``arrow_array_stream`` PyCapsule of the object's rows."""
        ...


PathLike: TypeAlias = "str | os.PathLike[str]"
"""A data-file path; its (lower-cased) suffix names the format."""

TableLike: TypeAlias = (
    "pa.Table | pa.RecordBatch | pa.RecordBatchReader | pa_dataset.Dataset"
    " | pl.DataFrame | pl.LazyFrame | duckdb.DuckDBPyRelation | ArrowStreamExportable"
)
"""A table object: Arrow, Polars (eager or lazy), an Arrow dataset, a DuckDB relation or any
``__arrow_c_stream__`` object."""

CollectionLike: TypeAlias = (
    "TableLike | PathLike | Iterable[Mapping[str, Any]] | Iterable[Any] | Mapping[Any, Any]"
)
"""A collection of records: a table object, a data-file path, an iterable of records (mappings,
typed records, objects with ``to_dict()``) or a compact mapping of identifier → record."""

CorpusInput: TypeAlias = "TableLike | PathLike"
"""One role's input of the corpus mode: a table object, a data file or a directory of them."""
