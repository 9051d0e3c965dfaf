"""SQL over corpus outputs: DuckDB views ``documents``, ``reasons``, ``edges``, ``scorecards``.

``open_views(out_dir)`` returns an in-memory DuckDB connection on which the views of
``sql/views.sql`` are defined over the files that ``citelens corpus support INPUT --out DIR``
wrote (``documents.parquet``, optional ``edges.parquet``) and over the gold harness history
(``<results>/history/*.parquet``; results directory from the argument, else ``CITELENS_RESULTS``,
else ``./results``). A missing optional file gives an empty view with the same columns.

Paths never enter SQL text: they are bound as DuckDB variables (``SET VARIABLE … = ?``), with
DuckDB's glob characters escaped, and the views read them with ``getvariable``. Errors are
:class:`citelens.errors.CorpusError` with fixed messages that never show a path or a value; an
invalid query (a parser, binder or catalog error) adds DuckDB's own first line about it.

``run_query(out_dir, query, format=...)`` runs one query (or a script whose last statement
returns the result) over the views and returns an Arrow table, rendered text, or Parquet bytes.

Sandbox: once the views are defined, DuckDB may open only the files the views read
(``allowed_paths``), external access (other files, the network, extensions) is off and the
configuration is locked, and statements that write files or attach databases (``COPY``,
``EXPORT``, ``ATTACH``, ``DETACH``, ``LOAD``, ``INSTALL``) are refused before they run. A query
can therefore read the corpus outputs and nothing else, and write nowhere.
``allow_external=True`` (``citelens sql --allow-external``) lifts all of it. Before reading,
an output set a killed run left half-published is completed (:func:`citelens._atomic.recover`).
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import decimal
import functools
import importlib.resources
import io
import math
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import duckdb
import pyarrow as pa

from citelens._atomic import WriteFailure, recover
from citelens._jsonout import canonical_json
from citelens.errors import CorpusError

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

VIEW_NAMES: tuple[str, ...] = (
    "documents",
    "reasons",
    "edges",
    "scorecards",
    "gold_history",
    "provenance",
)
"""The views defined by :func:`open_views` (``gold_history`` is an alias of ``scorecards``)."""

FORMATS: tuple[str, ...] = ("arrow", "table", "csv", "json", "parquet")
"""Result formats of :func:`run_query`."""

Format = Literal["arrow", "table", "csv", "json", "parquet"]

# Fixed messages (conventions §1.2): no path, no value, no DuckDB message; the one exception
# is ``sql query is invalid: <DuckDB's first line>`` for an error about the query text itself
# (the query is the user's own; see :func:`_query_detail`).
_NOT_A_DIRECTORY = "corpus output directory is not accessible"
_UNREADABLE = "corpus output files could not be read"
_WRONG_COLUMNS = "corpus output files do not have the expected columns"
_RESULTS = "gold results directory is not accessible"
_QUERY_TYPE = "sql query must be non-empty text"
_QUERY_INVALID = "sql query is invalid"
_QUERY_FAILED = "sql query failed"
_FORMAT = "sql output format is unsupported"
_RESULT_VALUES = "sql result cannot be rendered"
_SANDBOX = "sql query may only read the corpus outputs (see --allow-external)"

# Statements that write files, attach databases or load code: refused inside the sandbox.
_OUTSIDE = frozenset(("COPY", "EXPORT", "ATTACH", "DETACH", "LOAD", "EXTENSION", "COPY_DATABASE"))

# The most characters of DuckDB's message that ``sql query is invalid: …`` shows.
_DETAIL_MAX = 300
_GLOB_ESCAPED = re.compile(r"\[([*?\[])\]")

_HEADER = re.compile(r"^-- @view ([a-z_]+)(?: (if|unless) ([a-z_]+))?[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class _Block:
    name: str
    condition: str | None  # "if" | "unless" | None
    source: str | None
    sql: str


def _blocks(text: str) -> list[_Block]:
    """The ``-- @view`` blocks of ``views.sql`` in file order."""
    matches = list(_HEADER.finditer(text))
    out: list[_Block] = []
    for index, match in enumerate(matches):
        end = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        body = text[match.end() : end].strip()
        out.append(_Block(match.group(1), match.group(2), match.group(3), body))
    return out


@functools.cache
def views_sql() -> str:
    """The text of the package's ``views.sql`` (package data, read on first use)."""
    return importlib.resources.files("citelens.sql").joinpath("views.sql").read_text("utf-8")


@functools.cache
def _view_blocks() -> tuple[_Block, ...]:
    return tuple(_blocks(views_sql()))


def _glob_escape(path: str) -> str:
    """Escape DuckDB's glob characters so that ``read_parquet`` reads exactly this file."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in path)


def _as_path(value: object, message: str) -> Path:
    raw: object = None
    if isinstance(value, str | os.PathLike):
        try:
            raw = os.fspath(value)
        except Exception:  # the caller's __fspath__ raised (conventions §1.2): not a path
            raw = None
    if not isinstance(raw, str) or raw == "" or "\x00" in raw:
        raise CorpusError(message, "input")
    return Path(os.path.abspath(raw))


def resolve_results_dir(results_dir: str | os.PathLike[str] | None = None) -> Path:
    """The gold results directory: ``results_dir``, else ``$CITELENS_RESULTS``, else
    ``./results`` (gold-harness.md §9.2), as an absolute path."""
    if results_dir is None:
        results_dir = os.environ.get("CITELENS_RESULTS") or "results"
    return _as_path(results_dir, _RESULTS)


@dataclass(frozen=True)
class _Sources:
    documents: Path
    edges: Path | None
    scorecards: tuple[Path, ...]
    provenance: Path | None = None


def _sources(out_dir: object, results_dir: str | os.PathLike[str] | None) -> _Sources:
    folder = _as_path(out_dir, _NOT_A_DIRECTORY)
    results = resolve_results_dir(results_dir)
    unrecovered = False
    try:
        recover(folder)  # a set a killed run left half-published is completed first
    except WriteFailure:
        unrecovered = True
    if unrecovered:
        raise CorpusError(_UNREADABLE, "io")
    failed = False
    documents = folder / "documents.parquet"
    edges: Path | None = folder / "edges.parquet"
    provenance: Path | None = folder / "provenance.parquet"
    history: tuple[Path, ...] = ()
    try:
        if not folder.is_dir() or not documents.is_file():
            failed = True
        elif edges is not None and not edges.is_file():
            edges = None
        if provenance is not None and not provenance.is_file():
            # ``citelens provenance … --out OUTDIR/provenance``: its own output set beside
            # the corpus outputs (two sets in one directory would replace each other)
            nested = folder / "provenance" / "provenance.parquet"
            provenance = nested if nested.is_file() else None
        history_dir = results / "history"
        if not failed and history_dir.is_dir():
            history = tuple(sorted(p for p in history_dir.glob("*.parquet") if p.is_file()))
    except OSError:
        failed = True
    if failed:
        raise CorpusError(_NOT_A_DIRECTORY, "input")
    return _Sources(documents, edges, history, provenance)


def _selected(sources: _Sources) -> list[_Block]:
    present = {
        "edges": sources.edges is not None,
        "scorecards": bool(sources.scorecards),
        "provenance": sources.provenance is not None,
    }
    chosen: list[_Block] = []
    for block in _view_blocks():
        available = present.get(block.source or "", False)
        if (
            block.condition is None
            or (block.condition == "if" and available)
            or (block.condition == "unless" and not available)
        ):
            chosen.append(block)
    return chosen


def _variables(sources: _Sources) -> list[tuple[str, str | list[str]]]:
    values: list[tuple[str, str | list[str]]] = [
        ("citelens_documents", _glob_escape(str(sources.documents))),
    ]
    if sources.edges is not None:
        values.append(("citelens_edges", _glob_escape(str(sources.edges))))
    if sources.provenance is not None:
        values.append(("citelens_provenance", _glob_escape(str(sources.provenance))))
    values.append(("citelens_scorecards", [_glob_escape(str(p)) for p in sources.scorecards]))
    return values


def _sandbox(con: duckdb.DuckDBPyConnection, sources: _Sources) -> None:
    """Only the files the views read may be opened; nothing else, and no setting changes."""
    files = [str(sources.documents), *([str(sources.edges)] if sources.edges else [])]
    files.extend([str(sources.provenance)] if sources.provenance else [])
    files.extend(str(p) for p in sources.scorecards)
    # DuckDB checks the path as the view names it, glob characters escaped
    paths = sorted({*files, *map(_glob_escape, files)})
    con.execute("SET allowed_paths = CAST(? AS VARCHAR[])", [paths])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def open_views(
    out_dir: str | os.PathLike[str],
    *,
    results_dir: str | os.PathLike[str] | None = None,
    allow_external: bool = False,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with the corpus views defined.

    ``out_dir`` is the output directory of ``citelens corpus support``; it must hold
    ``documents.parquet``. ``edges.parquet``, ``provenance.parquet`` (in ``out_dir`` or in
    ``out_dir/provenance/``, where ``citelens provenance`` writes its own output set) and the
    gold history under ``results_dir`` (default ``$CITELENS_RESULTS`` or ``./results``) are
    optional: without them ``edges``, ``provenance`` and ``scorecards`` are empty views with
    the documented columns. The caller closes the
    connection. Raises :class:`CorpusError` (``input`` or ``io``) with a fixed message.
    The connection is sandboxed (module docstring) unless ``allow_external``.
    """
    sources = _sources(out_dir, results_dir)
    con = duckdb.connect(":memory:")
    category = ""
    try:
        with contextlib.suppress(duckdb.Error):  # without ICU timestamps still compare
            con.execute("SET TimeZone = 'UTC'")
        for name, value in _variables(sources):
            if isinstance(value, list):
                con.execute(f"SET VARIABLE {name} = CAST(? AS VARCHAR[])", [value])
            else:
                con.execute(f"SET VARIABLE {name} = ?", [value])
        for block in _selected(sources):
            con.execute(block.sql)
        if not allow_external:
            _sandbox(con, sources)
    except (duckdb.BinderException, duckdb.CatalogException, duckdb.ConversionException):
        category = "input"
    except duckdb.Error:  # DuckDB could not read the output files; anything else is a bug
        category = "io"
    if category:
        con.close()
        raise CorpusError(_WRONG_COLUMNS if category == "input" else _UNREADABLE, category)
    return con


def views_script(
    out_dir: str | os.PathLike[str],
    *,
    results_dir: str | os.PathLike[str] | None = None,
) -> str:
    """A self-contained SQL script (``SET VARIABLE`` lines with quoted literals, then the view
    statements) for a DuckDB shell. Paths are SQL string literals with quotes doubled; paths
    with control characters are refused (``input``)."""
    sources = _sources(out_dir, results_dir)
    lines = []
    for name, value in _variables(sources):
        if isinstance(value, list):
            literal = "CAST([" + ", ".join(_literal(v) for v in value) + "] AS VARCHAR[])"
        else:
            literal = _literal(value)
        lines.append(f"SET VARIABLE {name} = {literal};")
    for block in _selected(sources):
        lines.append(block.sql)
    return "\n".join(lines) + "\n"


def _literal(value: str) -> str:
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise CorpusError(_NOT_A_DIRECTORY, "input")
    return "'" + value.replace("'", "''") + "'"


def _query_detail(con: duckdb.DuckDBPyConnection, message: str) -> str:
    """DuckDB's own message about an invalid query (parser, binder or catalog errors: about
    the query text, which is the user's), for ``sql query is invalid: <detail>``; empty when
    it must not be shown.

    Only the first line is kept: the lines after it (``Candidate bindings``, ``Did you
    mean``) can list column names that ``PIVOT`` made from data values. Control characters
    become ``?`` (the text goes to a terminal), the length is bounded, and a line that names
    a file the views read is dropped: error messages never show a path."""
    line = message.split("\n", 1)[0].strip()
    line = "".join("?" if ord(c) < 32 or 127 <= ord(c) < 160 else c for c in line)
    if len(line) > _DETAIL_MAX:
        line = line[: _DETAIL_MAX - 3] + "..."
    if any(path in line for path in _view_paths(con)):
        return ""
    return line


def _view_paths(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The files the views read and the directories that hold them (OUTDIR; the history and
    results directories), as the ``citelens_*`` variables name them (glob characters
    escaped) and as plain paths."""
    rows: list[Any] = []
    failed = False
    try:
        rows = con.execute(
            "SELECT getvariable('citelens_documents'), getvariable('citelens_edges'), "
            "getvariable('citelens_scorecards')"
        ).fetchall()
    except duckdb.Error:  # a connection without the views: no path of ours to hide
        failed = True
    if failed or not rows:
        return []
    documents, edges, scorecards = rows[0]
    found = [(value, 1) for value in (documents, edges) if isinstance(value, str)]
    found.extend((value, 2) for value in scorecards or () if isinstance(value, str))
    paths: set[str] = set()
    for value, levels in found:
        for text in (value, _GLOB_ESCAPED.sub(r"\1", value)):
            paths.add(text)
            for _ in range(levels):
                text = os.path.dirname(text)
                paths.add(text)
    return sorted(p for p in paths if len(p) > 1)


def _sandboxed(con: duckdb.DuckDBPyConnection) -> bool:
    rows = con.execute("SELECT current_setting('enable_external_access')").fetchall()
    return bool(rows) and rows[0][0] is False


def execute(con: duckdb.DuckDBPyConnection, query: object) -> pa.Table:
    """Run ``query`` on ``con`` and return its result (last statement) as an Arrow table.
    On a sandboxed connection, statements that write or attach are refused (``policy``)."""
    if not isinstance(query, str) or not query.strip() or "\x00" in query:
        raise CorpusError(_QUERY_TYPE, "input")
    outcome = ""
    detail = ""
    table = pa.table({})
    try:
        if _sandboxed(con) and any(
            statement.type.name in _OUTSIDE for statement in con.extract_statements(query)
        ):
            outcome = "sandbox"
        else:
            relation = con.sql(query)
            if relation is not None:
                table = relation.to_arrow_table()
    except (
        duckdb.ParserException,
        duckdb.SyntaxException,
        duckdb.BinderException,
        duckdb.CatalogException,
    ) as error:
        outcome = "invalid"
        detail = _query_detail(con, str(error))
    except (duckdb.IOException, duckdb.InvalidInputException, duckdb.PermissionException):
        outcome = "io"
    except duckdb.Error:  # the query failed while running (a DuckDB error, not a bug of ours)
        outcome = "failed"
    if outcome == "sandbox":
        raise CorpusError(_SANDBOX, "policy")
    if outcome == "invalid":
        raise CorpusError(f"{_QUERY_INVALID}: {detail}" if detail else _QUERY_INVALID, "input")
    if outcome == "io":
        raise CorpusError(_UNREADABLE, "io")
    if outcome:
        raise CorpusError(_QUERY_FAILED, "input")
    return table


@overload
def run_query(
    out_dir: str | os.PathLike[str],
    query: str,
    *,
    format: Literal["arrow"] = ...,
    results_dir: str | os.PathLike[str] | None = ...,
    allow_external: bool = ...,
) -> pa.Table: ...
@overload
def run_query(
    out_dir: str | os.PathLike[str],
    query: str,
    *,
    format: Literal["table", "csv", "json"],
    results_dir: str | os.PathLike[str] | None = ...,
    allow_external: bool = ...,
) -> str: ...
@overload
def run_query(
    out_dir: str | os.PathLike[str],
    query: str,
    *,
    format: Literal["parquet"],
    results_dir: str | os.PathLike[str] | None = ...,
    allow_external: bool = ...,
) -> bytes: ...
def run_query(
    out_dir: str | os.PathLike[str],
    query: str,
    *,
    format: Format = "arrow",
    results_dir: str | os.PathLike[str] | None = None,
    allow_external: bool = False,
) -> pa.Table | str | bytes:
    """Run ``query`` over the views of ``out_dir`` (see :func:`open_views`).

    ``format``: ``"arrow"`` (a ``pyarrow.Table``), ``"table"`` (aligned text), ``"csv"``
    (header row, RFC 4180), ``"json"`` (canonical JSON array of row objects) or ``"parquet"``
    (the bytes of a Parquet file). Raises :class:`CorpusError` with a fixed message: ``policy``
    for an unknown format, ``input`` for an unusable directory or an invalid query, ``io`` for
    unreadable files, ``policy`` for a statement the sandbox refuses (``allow_external``
    lifts the sandbox, see the module docstring).
    """
    if not isinstance(format, str) or format not in FORMATS:
        raise CorpusError(_FORMAT, "policy")
    if not isinstance(query, str) or not query.strip() or "\x00" in query:
        raise CorpusError(_QUERY_TYPE, "input")
    con = open_views(out_dir, results_dir=results_dir, allow_external=allow_external)
    try:
        table = execute(con, query)
    finally:
        con.close()
    if format == "arrow":
        return table
    return render(table, format)


def render(table: pa.Table, format: str) -> str | bytes:
    """Render a result table as ``table`` / ``csv`` / ``json`` text or ``parquet`` bytes."""
    if format not in FORMATS or format == "arrow":
        raise CorpusError(_FORMAT, "policy")
    failed = False
    out: str | bytes = ""
    try:
        if format == "table":
            out = _text_table(table)
        elif format == "csv":
            out = _csv(table)
        elif format == "json":
            out = canonical_json([_row_json(row) for row in table.to_pylist()])
        else:
            out = _parquet(table)
    except CorpusError:
        raise
    except (pa.ArrowException, ValueError, OverflowError):
        # result values Arrow or JSON cannot represent (non-finite floats, dates out of range)
        failed = True
    if failed:
        raise CorpusError(_RESULT_VALUES, "input")
    return out


# -- rendering ------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | dict):
        return canonical_json(_row_json(value)).rstrip("\n")
    return str(value)


def _numeric(data_type: pa.DataType) -> bool:
    return bool(
        pa.types.is_integer(data_type)
        or pa.types.is_floating(data_type)
        or pa.types.is_decimal(data_type)
    )


def _text_table(table: pa.Table) -> str:
    names = list(table.column_names)
    if not names:
        return "(0 rows)\n" if table.num_rows == 0 else f"({table.num_rows} rows)\n"
    columns = [[_cell(v) for v in table.column(i).to_pylist()] for i in range(len(names))]
    right = [_numeric(table.schema.field(i).type) for i in range(len(names))]
    widths = [max([len(name), *(len(v) for v in column)]) for name, column in zip(names, columns)]

    def line(cells: Sequence[str], align: Sequence[bool]) -> str:
        parts = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, align, strict=True)
        ]
        return " | ".join(parts).rstrip()

    lines = [line(names, [False] * len(names)), "-+-".join("-" * w for w in widths)]
    for row in range(table.num_rows):
        lines.append(line([column[row] for column in columns], right))
    count = table.num_rows
    lines.append(f"({count} row{'' if count == 1 else 's'})")
    return "\n".join(lines) + "\n"


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    return _cell(value)


def _csv(table: pa.Table) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.column_names)
    columns = [table.column(i).to_pylist() for i in range(table.num_columns)]
    for row in range(table.num_rows):
        writer.writerow([_csv_cell(column[row]) for column in columns])
    return buffer.getvalue()


def _row_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _row_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_row_json(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return None
        if value == value.to_integral_value():
            return int(value)  # DuckDB's sum() of integers is HUGEINT, read as decimal(38, 0)
        return float(value)
    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    return str(value)


def _parquet(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    data: bytes = sink.getvalue().to_pybytes()
    return data
