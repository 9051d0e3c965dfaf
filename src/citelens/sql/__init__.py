"""SQL over corpus outputs: DuckDB views ``documents``, ``reasons``, ``edges``, ``scorecards``.

``open_views(out_dir)`` returns an in-memory DuckDB connection on which the views of
``sql/views.sql`` are defined over the files that ``citelens corpus support INPUT --out DIR``
wrote (``documents.parquet``, optional ``edges.parquet``) and over the gold harness history
(``<results>/history/*.parquet``; results directory from the argument, else ``CITELENS_RESULTS``,
else ``./results``). A missing optional file gives an empty view with the same columns.

Paths never enter SQL text: they are bound as DuckDB variables (``SET VARIABLE … = ?``), with
DuckDB's glob characters escaped, and the views read them with ``getvariable``. Errors are
:class:`citelens.errors.CorpusError` with fixed messages that never show a path or the query.

``run_query(out_dir, query, format=...)`` runs one query (or a script whose last statement
returns the result) over the views and returns an Arrow table, rendered text, or Parquet bytes.
"""

from citelens.sql._api import (
    FORMATS,
    VIEW_NAMES,
    CorpusError,
    execute,
    open_views,
    render,
    resolve_results_dir,
    run_query,
    views_script,
)

__all__ = [
    "FORMATS",
    "VIEW_NAMES",
    "CorpusError",
    "execute",
    "open_views",
    "render",
    "resolve_results_dir",
    "run_query",
    "views_script",
]
