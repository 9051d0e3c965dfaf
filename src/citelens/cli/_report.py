"""``citelens report``: a self-contained HTML page of a citelens output (light: the report
package and its charting libraries are imported when the command runs)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from citelens.cli import command_help
from citelens.cli._common import COMMAND_HELP

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``report`` subcommand."""
    parser = subparsers.add_parser(
        "report",
        help=COMMAND_HELP["report"],
        **command_help(
            "Render a citelens output as one self-contained HTML page with charts.",
            "OUT is the JSON of `citelens support --json`, `summary-citations --json` or "
            "`minimality --json`, or a `citelens corpus ...` output directory; the kind is "
            "detected from the files. The page shows reason distributions, pass/fail counts, "
            "per-document precision, recall and coverage histograms (corpus), the worst "
            "documents by keyed pseudonym and the minimality excess-token distribution, as "
            "inline SVG (no script, no network, inline CSS). It holds no identifier, claim "
            "text or source text; the same output gives the same bytes. Needs the report "
            "extra: pip install 'citelens[report]'.",
            reads="OUT: a citelens JSON report, or a corpus output directory",
            writes="--html FILE, atomically (- for standard output)",
            ok="report written",
            bad_input="OUT is not a readable citelens output, the report extra is missing or "
            "FILE cannot be written (a fixed-category message on stderr)",
            example="citelens report out/ --html report.html",
        ),
    )
    parser.add_argument("output", metavar="OUT", help="citelens output: JSON file or directory")
    parser.add_argument(
        "--html", required=True, metavar="FILE", help="the HTML page to write (- for stdout)"
    )
    parser.set_defaults(func="citelens.cli._report:run")


def run(args: argparse.Namespace) -> int:
    """Run ``citelens report``; returns the exit code."""
    from citelens.cli._common import EXIT_OK, fail
    from citelens.errors import CitelensError
    from citelens.report import render_report, write_report

    try:
        if args.html == "-":
            sys.stdout.write(render_report(args.output))
        else:
            write_report(args.output, args.html)
    except CitelensError as error:
        return fail(error)
    return EXIT_OK
