"""``citelens minimality``: the parser of the citation minimality check of one source text
(light: the engine is imported when the command runs, by ``citelens.cli._run_minimality``).

Exit codes: 0 success, 1 ``--ci`` was given and a citation needs review or
nothing was measured (no claim or no citation), 2 bad input (a fixed message on stderr that
never echoes input values, paths or identifiers), 3 an internal error (a bug or a broken
environment; the message names the exception type only).
Without ``--json``, ``--markdown`` or ``--parquet`` the Markdown report goes to stdout.
"""

from __future__ import annotations

import argparse
from typing import Any

from citelens.cli import add_ci_flag, command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags

__all__ = ["register"]


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
        help=COMMAND_HELP["minimality"],
        **command_help(
            "Citation minimality: is each citation no broader than its claim's span?",
            "Compare each citation span with its claim's required span in one source text and "
            "report token counts, excess offsets and review statuses. Reports hold opaque ids, "
            "offsets and counts only; the source text is never printed.",
            reads="--source (UTF-8 text), --claims and --citations: .json, .jsonl, .csv, "
            ".parquet or Arrow files.",
            writes="the Markdown report on stdout when no output is named; else --json "
            "(canonical JSON), --markdown and --parquet (one row per citation record), "
            "written atomically, and a one-line count summary on stdout.",
            ok="report written (with --ci: no citation flagged)",
            failed="--ci and a citation needs review, or there is no claim or no citation: "
            "one line on stderr, citelens: citation minimality gate failed: <reasons>",
            example="citelens minimality --source source.txt --claims claims.json "
            "--citations citations.jsonl --ci",
        ),
    )
    parser.add_argument("--source", required=True, metavar="F", help="UTF-8 source text file")
    parser.add_argument(
        "--claims", required=True, metavar="F", help="claims file (claim_id + required span)"
    )
    parser.add_argument(
        "--citations", required=True, metavar="F", help="citations file (claim_id + span)"
    )
    parser.add_argument(
        "--max-excess-tokens",
        type=_non_negative,
        default=0,
        metavar="N",
        help="extra context tokens still accepted as minimal (default 0)",
    )
    parser.add_argument("--json", metavar="OUT", help="write the canonical JSON report here")
    parser.add_argument("--markdown", metavar="OUT", help="write the Markdown report here")
    parser.add_argument(
        "--parquet", metavar="OUT", help="write one row per citation record as Parquet here"
    )
    add_io_flags(parser)
    add_ci_flag(
        parser,
        "exit 1 when any citation needs review, or when there is no claim or no citation "
        "(nothing measured is not a pass); the reasons go to stderr",
        "--fail-on-flagged",
    )
    parser.set_defaults(func="citelens.cli._run_minimality:run")
