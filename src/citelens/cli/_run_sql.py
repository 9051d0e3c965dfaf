"""``citelens sql``: run one query or the interactive shell (imported only when the command
runs)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb

from citelens._atomic import WriteFailure, write_bytes_atomic
from citelens.cli._common import EXIT_OK, STDIO, check_output_dirs, fail
from citelens.errors import CitelensError, CorpusError
from citelens.io import ReadFailure, read_bounded
from citelens.io._refusal import opened
from citelens.sql._api import VIEW_NAMES, execute, open_views, render, views_script

__all__ = ["repl", "run"]

_PROMPT = "citelens> "
_CONTINUE = "     ...> "
_BANNER = (
    "citelens SQL shell (DuckDB). Views: documents, reasons, edges, scorecards.\n"
    "End statements with ';'. Commands: .tables, .help, .quit\n"
)


def run(args: argparse.Namespace) -> int:
    """Run ``citelens sql``."""
    try:
        return _run(args)
    except CitelensError as error:
        return fail(error)


def _run(args: argparse.Namespace) -> int:
    if args.query is not None and args.file is not None:
        raise CorpusError("sql takes a query or --file, not both", "input")
    query = args.query
    if args.file is not None:
        query = _read_query(args.file)
    if query is None:
        if args.output is not None or args.format != "table":
            raise CorpusError("sql output options need a query", "input")
        if not sys.stdin.isatty():
            raise CorpusError("sql needs a query when standard input is not a terminal", "input")
        return _shell(args)
    # ``--output -`` is stdout, as for every command's text outputs; Parquet needs a file
    output = None if args.output == STDIO else args.output
    if args.format == "parquet" and output is None:
        raise CorpusError("parquet output requires an output file", "policy")
    # like every command: an output into a missing directory is an error unless --mkdir
    # (the atomic writer creates the directories, and removes them again if it fails)
    check_output_dirs([output], mkdir=args.mkdir)
    con = open_views(args.out_dir, results_dir=args.results, allow_external=args.allow_external)
    try:
        table = execute(con, query)
    finally:
        con.close()
    rendered = render(table, args.format)
    if output is not None:
        data = rendered.encode("utf-8") if isinstance(rendered, str) else rendered
        _write(output, data)
    else:
        assert isinstance(rendered, str)
        sys.stdout.write(rendered)
    return EXIT_OK


# The largest SQL text read from --file (a query, not data: a larger file is refused unread).
MAX_QUERY_BYTES = 16 * 1024 * 1024


def _read_query(path: str) -> str:
    """The SQL of ``--file`` (``-``: stdin), UTF-8 with an optional BOM, at most
    :data:`MAX_QUERY_BYTES`; a missing, special, oversized or non-UTF-8 file is refused."""
    failed = False
    text = ""
    try:
        if path == STDIO:
            data = sys.stdin.buffer.read(MAX_QUERY_BYTES + 1)
            if len(data) > MAX_QUERY_BYTES:
                raise ReadFailure("size")
        else:
            opened(Path(path))  # missing, a directory or a FIFO: refused before reading
            data = read_bounded(Path(path), MAX_QUERY_BYTES)
        text = data.decode("utf-8-sig")
    except (OSError, ValueError, ReadFailure):
        failed = True
    if failed:
        raise CorpusError("sql query file could not be read", "input")
    return text


def _write(path: str, data: bytes) -> None:
    failed = False
    try:
        write_bytes_atomic(path, data)
    except WriteFailure:
        failed = True
    if failed:
        raise CorpusError("sql output could not be written", "io")


def _shell(args: argparse.Namespace) -> int:
    """The DuckDB CLI when it is on PATH, else the built-in line-oriented shell."""
    duckdb_cli = shutil.which("duckdb")
    if duckdb_cli is not None:
        script = views_script(args.out_dir, results_dir=args.results)
        with tempfile.TemporaryDirectory(prefix="citelens-sql-") as folder:
            init = Path(folder) / "views.sql"
            init.write_text(script, encoding="utf-8")
            code = subprocess.call([duckdb_cli, "-init", os.fspath(init)])
        return EXIT_OK if code == 0 else code
    con = open_views(args.out_dir, results_dir=args.results, allow_external=args.allow_external)
    assert isinstance(con, duckdb.DuckDBPyConnection)
    try:
        # Line editing and history for input(), loaded only for the interactive shell: on
        # some terminals importing readline writes a control sequence to stdout.
        with contextlib.suppress(ImportError):
            importlib.import_module("readline")
        sys.stdout.write(_BANNER)
        repl(con, _input, sys.stdout.write, sys.stderr.write)
    finally:
        con.close()
    return EXIT_OK


def _input(prompt: str) -> str | None:
    try:
        return input(prompt)
    except (EOFError, KeyboardInterrupt):
        sys.stdout.write("\n")
        return None


def repl(
    con: object,
    read_line: Callable[[str], str | None],
    write: Callable[[str], object],
    write_error: Callable[[str], object],
) -> None:
    """A minimal SQL shell: statements end with ``;``; ``.quit``/``.exit`` or end of input
    leave; ``.tables`` lists the views; errors print their fixed message and the shell goes
    on."""
    pending: list[str] = []
    while True:
        line = read_line(_CONTINUE if pending else _PROMPT)
        if line is None:
            return
        stripped = line.strip()
        if not pending and stripped.startswith("."):
            command = stripped.split()[0]
            if command in (".quit", ".exit", ".q"):
                return
            if command == ".tables":
                write("  ".join(VIEW_NAMES) + "\n")
            elif command == ".help":
                write(_BANNER)
            else:
                write_error("citelens: error [input]: unknown shell command\n")
            continue
        if not stripped and not pending:
            continue
        pending.append(line)
        if not stripped.endswith(";"):
            continue
        query = "\n".join(pending)
        pending = []
        try:
            table = execute(con, query)  # type: ignore[arg-type]
            text = render(table, "table")
        except CitelensError as error:
            write_error(f"citelens: error [{error.category}]: {error.args[0]}\n")
            continue
        write(text if isinstance(text, str) else "")
