"""``citelens summary-citations``: the parser of the summary citation-consistency check on
files (light: the engine is imported when the command runs, by
``citelens.cli._run_summary_citations``).

Prints the Markdown report on stdout when no output file is named; writes JSON, Markdown and a
one-row Parquet summary atomically when asked. Exit codes: 0 success, 1 ``--ci`` given and
the gate failed (a failing verdict, or zero claims: ``no claims evaluated``), 2 bad input (a
fixed-category message that never echoes input values), 3 an internal error.
"""

from __future__ import annotations

import argparse
from typing import Any

from citelens.cli import add_ci_flag, command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags

__all__ = ["register"]


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def register(subparsers: Any) -> None:
    """Add the ``summary-citations`` subcommand."""
    parser = subparsers.add_parser(
        "summary-citations",
        help=COMMAND_HELP["summary-citations"],
        **command_help(
            "Summary citation consistency: does every claim cite existing evidence once?",
            "Coverage, abstention rate, duplicate citations, missing source records and "
            "unavailable spans. Matching uses only opaque identifiers and exact offsets; the "
            "report holds counts and fixed reason codes.",
            reads="--claims and --evidence: data files (.jsonl/.ndjson, .json, .csv, .parquet, "
            ".arrow/.feather/.ipc).",
            writes="the Markdown report on stdout when no output is named; else --json "
            "(indent 2), --markdown and --parquet (one-row summary), written atomically.",
            ok="report written (with --ci: the gate passed)",
            failed="--ci and the strict verdict is not pass, or there is no claim: one line "
            "on stderr, citelens: summary citation-consistency gate failed: <reasons>",
            example="citelens summary-citations --claims claims.jsonl --evidence evidence.csv --ci",
        ),
    )
    parser.add_argument(
        "--claims",
        required=True,
        metavar="FILE",
        help="claims file (.jsonl, .ndjson, .json, .csv, .parquet, .arrow, .feather, .ipc)",
    )
    parser.add_argument(
        "--evidence", required=True, metavar="FILE", help="evidence file (same formats)"
    )
    parser.add_argument("--json", metavar="OUT", help="write the JSON report (indent 2)")
    parser.add_argument("--markdown", metavar="OUT", help="write the Markdown report")
    parser.add_argument("--parquet", metavar="OUT", help="write a one-row Parquet summary")
    add_io_flags(parser)
    add_ci_flag(
        parser,
        "exit 1 when the strict verdict is not pass or there is no claim (nothing measured "
        "is not a pass); the reasons go to stderr",
        "--gate",
    )
    parser.add_argument(
        "--max-claims", type=_positive, metavar="N", help="claims bound (default 100,000)"
    )
    parser.add_argument(
        "--max-evidence", type=_positive, metavar="N", help="evidence bound (default 200,000)"
    )
    parser.add_argument(
        "--max-citations",
        type=_positive,
        metavar="N",
        help="citation-item bound (default 500,000)",
    )
    parser.set_defaults(func="citelens.cli._run_summary_citations:run")
