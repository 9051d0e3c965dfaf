"""``citelens sql``: SQL over corpus outputs (views ``documents``, ``reasons``, ``edges``,
``scorecards``), one query or an interactive shell."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from citelens._atomic import WriteFailure, write_bytes_atomic
from citelens.cli._common import EXIT_OK, fail
from citelens.errors import CitelensError, CorpusError

__all__ = ["register", "repl"]

_FORMATS = ("table", "csv", "json", "parquet")
_PROMPT = "citelens> "
_CONTINUE = "     ...> "
_BANNER = (
    "citelens SQL shell (DuckDB). Views: documents, reasons, edges, scorecards.\n"
    "End statements with ';'. Commands: .tables, .help, .quit\n"
)


class _IntermixedParser(argparse.ArgumentParser):
    """Options may come before, between or after OUTDIR and QUERY
    (``citelens sql OUT --format csv "SELECT …"``). Usage errors print a fixed line that
    never repeats an argument (a query may hold sensitive values)."""

    _inside = False

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        sys.stderr.write("citelens: error [input]: invalid sql command line\n")
        raise SystemExit(2)

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False
        if extras:
            self.error("unexpected arguments")
        return parsed, extras


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``sql`` subcommand."""
    previous = subparsers._parser_class
    subparsers._parser_class = _IntermixedParser
    try:
        parser = _add_parser(subparsers)
    finally:
        subparsers._parser_class = previous
    _add_arguments(parser)


def _add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    return subparsers.add_parser(
        "sql",
        help="SQL over corpus outputs: documents, reasons, edges, scorecards views",
        description=(
            "Run SQL (DuckDB) over the output directory of `citelens corpus support`. Views: "
            "documents (one row per document), reasons (one row per document and reason code), "
            "edges (edge-level rows, empty when edges.parquet is absent) and scorecards (the "
            "gold harness history, also named gold_history; empty when there is none). With a "
            "QUERY, print its result; without one, open an interactive shell when standard "
            "input is a terminal."
        ),
        epilog=(
            "Exit codes: 0 success; 2 bad input, invalid query or unreadable output files (a "
            "fixed-category message on stderr that never repeats the query or a path)."
        ),
    )


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUTDIR", help="corpus output directory")
    parser.add_argument("query", nargs="?", metavar="QUERY", help="SQL to run over the views")
    parser.add_argument("--file", "-f", metavar="F", help="read the SQL from file F")
    parser.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="result format (default: table; parquet needs --output)",
    )
    parser.add_argument("--output", "-o", metavar="FILE", help="write the result to FILE")
    parser.add_argument(
        "--results",
        metavar="DIR",
        help="gold results directory for the scorecards view (default: $CITELENS_RESULTS, "
        "else ./results)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``citelens sql``."""
    try:
        return _run(args)
    except CitelensError as error:
        return fail(error)


def _run(args: argparse.Namespace) -> int:
    from citelens.sql._api import execute, open_views, render, views_script

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
        return _shell(args, views_script, open_views)
    if args.format == "parquet" and args.output is None:
        raise CorpusError("parquet output requires an output file", "policy")
    con = open_views(args.out_dir, results_dir=args.results)
    try:
        table = execute(con, query)
    finally:
        con.close()
    rendered = render(table, args.format)
    if args.output is not None:
        data = rendered.encode("utf-8") if isinstance(rendered, str) else rendered
        _write(args.output, data)
    else:
        assert isinstance(rendered, str)
        sys.stdout.write(rendered)
    return EXIT_OK


def _read_query(path: str) -> str:
    failed = False
    text = ""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, ValueError):
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


def _shell(
    args: argparse.Namespace,
    views_script: Callable[..., str],
    open_views: Callable[..., object],
) -> int:
    """The DuckDB CLI when it is on PATH, else the built-in line-oriented shell."""
    duckdb_cli = shutil.which("duckdb")
    if duckdb_cli is not None:
        script = views_script(args.out_dir, results_dir=args.results)
        with tempfile.TemporaryDirectory(prefix="citelens-sql-") as folder:
            init = Path(folder) / "views.sql"
            init.write_text(script, encoding="utf-8")
            code = subprocess.call([duckdb_cli, "-init", os.fspath(init)])
        return EXIT_OK if code == 0 else code
    import duckdb

    con = open_views(args.out_dir, results_dir=args.results)
    assert isinstance(con, duckdb.DuckDBPyConnection)
    try:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
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
    from citelens.sql._api import VIEW_NAMES, execute, render

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
