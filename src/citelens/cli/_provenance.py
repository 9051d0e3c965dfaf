"""``citelens provenance``: the parser of the verbatim provenance check of a corpus directory
(light: the engine is imported when the command runs, by ``citelens.cli._run_provenance``)."""

from __future__ import annotations

import argparse
from typing import Any

from citelens.cli import add_ci_flag, command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags
from citelens.cli._progress import add_progress_argument
from citelens.cli._support import PSEUDONYM_KEY_HELP

__all__ = ["register"]


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError("must be a number from 0 to 1")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def register(subparsers: Any) -> None:
    """Add the ``provenance`` subcommand."""
    parser = subparsers.add_parser(
        "provenance",
        help=COMMAND_HELP["provenance"],
        **command_help(
            "Verbatim provenance: is each cited quote really in the source text it cites?",
            "One status per citation edge, in this precedence: exact, offset_unit, relocated, "
            "misattributed, normalized, fuzzy, absent; not_checkable (no quote or no source "
            "text) is counted apart. Outputs hold keyed pseudonyms, statuses, offsets and "
            "scores: never a quote or a source text.",
            reads="DIR, a corpus directory as `citelens import` writes it: citations, evidence "
            "and sources (each DIR/<role>.parquet or a directory DIR/<role>/ of Parquet files).",
            writes="provenance.parquet (one row per edge), summary.json and summary.md into "
            "--out, atomically as one set; a one-line count summary on stdout.",
            ok="outputs written (with --ci: every checkable quote was found verbatim at its "
            "cited offsets)",
            failed="--ci and an edge is not exact, or nothing was checkable: one line on "
            "stderr, citelens: provenance gate failed: <reasons>",
            example="citelens provenance corpus/ --out out/ --ci",
        ),
    )
    parser.add_argument("input", metavar="DIR", help="corpus directory")
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument(
        "--fuzzy-threshold",
        type=_threshold,
        default=0.90,
        metavar="X",
        help="least similarity (0 to 1) of a fuzzy match (default 0.90)",
    )
    parser.add_argument(
        "--batch-documents",
        type=_positive,
        default=20_000,
        metavar="N",
        help="documents read and checked at a time (default 20000)",
    )
    parser.add_argument("--pseudonym-key-file", metavar="F", help=PSEUDONYM_KEY_HELP)
    parser.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="write identifiers as given instead of keyed pseudonyms (never publish such output)",
    )
    add_io_flags(parser, stdin=False)
    add_progress_argument(parser)
    add_ci_flag(
        parser,
        "exit 1 when any checkable edge is not exact, or nothing was checkable; the reasons "
        "go to stderr",
    )
    parser.set_defaults(func="citelens.cli._run_provenance:run")
