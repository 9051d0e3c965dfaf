"""``citelens sql``: the parser of SQL over corpus outputs (views ``documents``, ``reasons``,
``edges``, ``scorecards``), one query or an interactive shell (light: DuckDB is imported when
the command runs, by ``citelens.cli._run_sql``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from citelens.cli import command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags

__all__ = ["FORMATS", "register"]

FORMATS = ("table", "csv", "json", "parquet")


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
        help=COMMAND_HELP["sql"],
        **command_help(
            "SQL (DuckDB) over corpus outputs: one query, or an interactive shell.",
            "Views: documents (one row per document), reasons (one row per document and reason "
            "code), edges (edge-level rows, empty when edges.parquet is absent) and scorecards "
            "(the gold harness history, also named gold_history; empty when there is none). "
            "Without a QUERY (or --file), open an interactive shell when standard input is a "
            "terminal. The query runs in a sandbox: it can read only these files and write "
            "none (see --allow-external).",
            reads="OUTDIR, the output directory of `citelens corpus support` (documents.parquet, "
            "optional edges.parquet); the gold history under --results; the query from QUERY "
            "or --file.",
            writes="the result on stdout (--format table, csv or json), or to --output (any "
            "format; parquet needs --output), written atomically; a missing directory of "
            "--output is an error unless --mkdir.",
            ok="the query ran and its result was written",
            bad_input="bad input, or the query is invalid: one line on stderr; for an "
            "invalid query it carries DuckDB's own message (parser, binder or catalog error "
            "about the query text); data errors and unreadable files keep a fixed message "
            "that never repeats a value or path",
            example='citelens sql out/ "SELECT reason, sum(count) AS edges FROM reasons '
            'GROUP BY reason"',
        ),
    )


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out_dir", metavar="OUTDIR", help="corpus output directory")
    parser.add_argument("query", nargs="?", metavar="QUERY", help="SQL to run over the views")
    parser.add_argument("--file", "-f", metavar="F", help="read the SQL from file F (- for stdin)")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="result format (default: table; parquet needs --output)",
    )
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write the result to FILE (- for stdout)"
    )
    parser.add_argument(
        "--results",
        metavar="DIR",
        help="gold results directory for the scorecards view (default: $CITELENS_RESULTS, "
        "else ./results)",
    )
    parser.add_argument(
        "--allow-external",
        action="store_true",
        help="lift the sandbox: by default a query can read only the corpus outputs and the "
        "gold history (no other file, no network, no extension) and write no file (COPY, "
        "EXPORT and ATTACH are refused)",
    )
    add_io_flags(parser, stdin=False)
    parser.set_defaults(func="citelens.cli._run_sql:run")
