"""``citelens summary-citations``: the summary citation-consistency check on files.

Prints the Markdown report on stdout when no output file is named; writes JSON, Markdown and a
one-row Parquet summary atomically when asked. Exit codes: 0 success, 1 ``--gate`` given and
the gate failed, 2 bad input (a fixed-category message that never echoes input values).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

import pyarrow as pa

from citelens.cli._common import EXIT_FAILED, EXIT_OK, fail, limits_from_args, write_outputs
from citelens.errors import CitelensError, SummaryCitationError
from citelens.summary_citations._api import build_summary_citation_report

__all__ = ["register", "run"]


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
        help="check that every summary claim cites existing evidence exactly once",
        description=(
            "Summary citation consistency: coverage, abstention rate, duplicate citations, "
            "missing source records and unavailable spans. Matching uses only opaque "
            "identifiers and exact offsets; the report holds counts and fixed reason codes."
        ),
        epilog="Exit codes: 0 success, 1 --gate given and the gate failed, 2 bad input.",
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
    parser.add_argument(
        "--gate", action="store_true", help="exit 1 when the strict verdict is not pass"
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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the check; returns the exit code."""
    try:
        report = build_summary_citation_report(
            pathlib.Path(args.claims), pathlib.Path(args.evidence), limits=limits_from_args(args)
        )
        outputs: list[tuple[object, str | pa.Table]] = []
        if args.json:
            outputs.append((args.json, report.to_json(indent=2) + "\n"))
        if args.markdown:
            outputs.append((args.markdown, report.to_markdown()))
        if args.parquet:
            outputs.append((args.parquet, report.to_arrow()))
        write_outputs(
            outputs, SummaryCitationError("summary citation report could not be written", "io")
        )
    except CitelensError as error:
        return fail(error)
    if not (args.json or args.markdown or args.parquet):
        sys.stdout.write(report.to_markdown())
    if args.gate and not report.passed:
        reasons = ", ".join(report.metrics.failure_reasons)
        sys.stderr.write(f"citelens: summary citation-consistency gate failed: {reasons}\n")
        return EXIT_FAILED
    return EXIT_OK
