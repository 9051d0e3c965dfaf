"""``citelens minimality``: check citation minimality of one source text from files.

Exit codes: 0 success, 1 ``--fail-on-flagged`` was given and a citation needs review, 2 bad
input (a fixed message on stderr that never echoes input values, paths or identifiers), 3 an
internal error (a bug or a broken environment; the message names the exception type only).
Without ``--json``, ``--markdown`` or ``--parquet`` the Markdown report goes to stdout.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from citelens._atomic import WriteFailure, write_parquet_atomic, write_text_atomic
from citelens.cli._common import EXIT_FAILED, EXIT_OK, fail
from citelens.errors import CitationMinimalityError
from citelens.minimality import CitationMinimalityReport
from citelens.minimality._check import check_with_table

__all__ = ["register"]

_WRITE_FAILED = "citation minimality report could not be written"


def _read_source(path: str) -> str:
    """The exact UTF-8 text of the source file (offsets count its code points as stored)."""
    failed = False
    text = ""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):  # a missing or non-UTF-8 source file is bad input
        failed = True
    if failed:
        raise CitationMinimalityError("source_text must be text", "input")
    return text


def _run(args: argparse.Namespace) -> int:
    report: CitationMinimalityReport | None = None
    table: Any = None
    problem: CitationMinimalityError | None = None
    try:
        source = _read_source(args.source)
        report, table = check_with_table(
            source,
            Path(args.claims),
            Path(args.citations),
            max_excess_tokens=args.max_excess_tokens,
        )
    except CitationMinimalityError as exc:  # bad input (exit 2); internal errors exit 3
        problem = CitationMinimalityError(str(exc.args[0]), exc.category)
    if problem is not None:
        return fail(problem)
    assert report is not None
    failed = False
    try:
        if args.json:
            write_text_atomic(args.json, report.to_json())
        if args.markdown:
            write_text_atomic(args.markdown, report.to_markdown())
        if args.parquet:
            write_parquet_atomic(args.parquet, table)
    except WriteFailure:
        failed = True
    if failed:
        return fail(CitationMinimalityError(_WRITE_FAILED, "io"))
    if not (args.json or args.markdown or args.parquet):
        sys.stdout.write(report.to_markdown())
    else:
        sys.stdout.write(
            f"citelens minimality: {report.citation_count} citations, "
            f"{report.flagged_count} flagged, {report.claim_count} claims\n"
        )
    if args.fail_on_flagged and report.flagged_count:
        return EXIT_FAILED
    return EXIT_OK


def _non_negative(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return value


def register(subparsers: Any) -> None:
    """Add the ``minimality`` subcommand."""
    parser = subparsers.add_parser(
        "minimality",
        help="check that each citation is no broader than its claim's required span",
        description=(
            "Compare each citation span with its claim's required span in one source text and "
            "report token counts, excess offsets and review statuses. Reports hold opaque ids, "
            "offsets and counts only; the source text is never printed. Claims and citations "
            "are .json, .jsonl, .csv, .parquet or Arrow files."
        ),
        epilog=(
            "Exit codes: 0 success, 1 flagged citations with --fail-on-flagged, 2 bad input, "
            "3 internal error (a bug or a broken environment, never bad input)."
        ),
    )
    parser.add_argument("--source", required=True, help="UTF-8 source text file")
    parser.add_argument("--claims", required=True, help="claims file (claim_id + required span)")
    parser.add_argument("--citations", required=True, help="citations file (claim_id + span)")
    parser.add_argument(
        "--max-excess-tokens",
        type=_non_negative,
        default=0,
        help="extra context tokens still accepted as minimal (default 0)",
    )
    parser.add_argument("--json", help="write the canonical JSON report here")
    parser.add_argument("--markdown", help="write the Markdown report here")
    parser.add_argument("--parquet", help="write one row per citation record as Parquet here")
    parser.add_argument(
        "--fail-on-flagged",
        action="store_true",
        help="exit 1 when any citation needs review",
    )
    parser.set_defaults(func=_run)
