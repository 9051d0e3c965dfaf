"""``citelens corpus``: the parser of the corpus modes (light: the engine is imported when a
mode runs, by ``citelens.cli._run_corpus``)."""

from __future__ import annotations

import argparse
import sys

from citelens.cli import add_ci_flag, command_help
from citelens.cli._common import COMMAND_HELP, EXIT_INPUT, add_io_flags
from citelens.cli._progress import add_progress_argument
from citelens.cli._support import PSEUDONYM_KEY_HELP

__all__ = ["SUPPORT_ROLES", "register"]

SUPPORT_ROLES = ("claims", "evidence", "citations", "adjudications")
_RUN = "citelens.cli._run_corpus"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``corpus`` subcommand group."""
    parser = subparsers.add_parser(
        "corpus",
        help=COMMAND_HELP["corpus"],
        **command_help(
            "Evaluate many documents, keyed by document_ref, in one pass.",
            "MODE is support, summary-citations or minimality; `citelens corpus MODE --help` "
            "explains each. The document refs that summary.json/.md name are keyed pseudonyms "
            "(HMAC-SHA-256) unless --raw-identifiers.",
            reads="tables with a document_ref column, from Parquet, Arrow IPC, JSONL or CSV "
            "files or directories of them (hive partitioning allowed).",
            writes="documents.parquet (one row per document), summary.json and summary.md "
            "(and mode-specific tables) atomically into --out.",
            ok="outputs written (with --ci: every document passed)",
            failed="--ci and a document failed or did not pass: one line on stderr, "
            "citelens: corpus <check> gate failed: <reasons>",
            example="citelens corpus support corpus/ --out out/ --ci",
        ),
    )
    modes = parser.add_subparsers(
        dest="corpus_mode", metavar="MODE", help="the check to run over every document"
    )
    support = modes.add_parser(
        "support",
        help="citation support metrics for every document",
        **command_help(
            "Citation support metrics for every document of a corpus.",
            "Every document is evaluated exactly as `citelens support` would evaluate it "
            "alone; a document that breaks the contract is reported with status 'error' and "
            "its fixed message, the others are evaluated.",
            reads="INPUT, a directory holding claims, evidence, citations and adjudications "
            "(each a file such as claims.parquet or a directory claims/ of files), each with "
            "document_ref; any role can also be named with its own option.",
            writes="documents.parquet, summary.json, summary.md and with --edges "
            "edges.parquet (identifiers pseudonymised) into --out, atomically as one set; a "
            "one-line count summary on stdout.",
            ok="outputs written (with --ci: every document passed its span checks)",
            failed="--ci and a document failed or did not pass its span checks, or nothing "
            "was measured: one line on stderr, citelens: corpus citation-support gate "
            "failed: <reasons>",
            bad_input="bad input or usage: one fixed-category line on stderr naming the input "
            "role (never a value or path)",
            example="citelens corpus support corpus/ --out out/ --edges --ci",
        ),
    )
    support.add_argument("input", nargs="?", metavar="INPUT", help="corpus directory")
    support.add_argument("--out", required=True, metavar="DIR", help="output directory")
    for role in SUPPORT_ROLES:
        support.add_argument(f"--{role}", metavar="PATH", help=f"{role} file or directory")
    support.add_argument(
        "--batch-documents",
        type=int,
        default=5_000,
        metavar="N",
        help="documents per vectorised batch (bounds memory; default 5000)",
    )
    support.add_argument(
        "--edges", action="store_true", help="also write edges.parquet (identifiers pseudonymised)"
    )
    support.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="keep raw identifiers in edges.parquet and raw document refs in summary.json/.md "
        "(such files must not be published)",
    )
    support.add_argument("--pseudonym-key-file", metavar="F", help=PSEUDONYM_KEY_HELP)
    add_io_flags(support)
    for name in SUPPORT_ROLES:
        support.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"per-document bound on {name}"
        )
    add_ci_flag(
        support,
        "exit 1 when any document fails or does not pass its span checks, or nothing was "
        "measured (the reasons go to stderr)",
        "--strict",
    )
    add_progress_argument(support)
    support.set_defaults(func=f"{_RUN}:run_support")

    minimality = modes.add_parser(
        "minimality",
        help="citation minimality for every document",
        **command_help(
            "Citation minimality for every document of a corpus.",
            "Every document is evaluated exactly as `citelens minimality` would evaluate its "
            "source text alone; a document that breaks the contract is reported with status "
            "'error' and its fixed message.",
            reads="INPUT, a directory holding documents (document_ref, source_text), claims "
            "and citations (each with document_ref; minimality record columns), as files "
            "such as documents.parquet or directories; any role can also be named with its "
            "own option.",
            writes="documents.parquet, citations.parquet (one row per citation record), "
            "summary.json and summary.md into --out, atomically as one set; a one-line count "
            "summary on stdout.",
            ok="outputs written (with --ci: no citation flagged and no document failed)",
            failed="--ci and a citation is flagged, a document failed or nothing was "
            "measured: one line on stderr, citelens: corpus citation minimality gate "
            "failed: <reasons>",
            bad_input="bad input or usage: one fixed-category line on stderr naming the input "
            "role (never a value or path)",
            example="citelens corpus minimality corpus/ --out out/ --ci",
        ),
    )
    minimality.add_argument("input", nargs="?", metavar="INPUT", help="corpus directory")
    minimality.add_argument("--out", required=True, metavar="DIR", help="output directory")
    for role in ("documents", "claims", "citations"):
        minimality.add_argument(f"--{role}", metavar="PATH", help=f"{role} file or directory")
    minimality.add_argument(
        "--max-excess-tokens", type=int, default=0, metavar="N", help="allowed excess tokens"
    )
    minimality.add_argument(
        "--batch-documents",
        type=int,
        default=20_000,
        metavar="N",
        help="documents per vectorised batch (bounds memory; default 20000)",
    )
    minimality.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="keep raw document refs in summary.json/.md (such files must not be published)",
    )
    minimality.add_argument("--pseudonym-key-file", metavar="F", help=PSEUDONYM_KEY_HELP)
    add_io_flags(minimality)
    add_ci_flag(
        minimality,
        "exit 1 when any citation is flagged, any document fails, or nothing was measured "
        "(the reasons go to stderr)",
        "--strict",
    )
    add_progress_argument(minimality)
    minimality.set_defaults(func=f"{_RUN}:run_minimality")

    summary = modes.add_parser(
        "summary-citations",
        help="summary citation consistency for every document",
        **command_help(
            "Summary citation consistency for every document of a corpus.",
            "Every document is evaluated exactly as `citelens summary-citations` would "
            "evaluate it alone; a document that breaks the contract (e.g. a bound exceeded) is "
            "reported with status 'error' and its fixed message.",
            reads="INPUT, a directory holding claims and evidence (each with document_ref plus "
            "the summary-citation record columns), as files such as claims.parquet or "
            "directories claims/ of files; --claims/--evidence name a role explicitly.",
            writes="documents.parquet, summary.json and summary.md into --out, atomically as "
            "one set; a one-line count summary on stdout.",
            ok="outputs written (with --ci: every document passed)",
            failed="--ci and a document failed or did not pass, or there is no claim: one "
            "line on stderr, citelens: corpus summary citation-consistency gate failed: "
            "<reasons>",
            bad_input="bad input or usage: one fixed-category line on stderr naming the input "
            "role (never a value or path)",
            example="citelens corpus summary-citations corpus/ --out out/ --ci",
        ),
    )
    summary.add_argument("input", nargs="?", metavar="INPUT", help="corpus directory")
    summary.add_argument("--out", required=True, metavar="DIR", help="output directory")
    for role in ("claims", "evidence"):
        summary.add_argument(f"--{role}", metavar="PATH", help=f"{role} file or directory")
    summary.add_argument(
        "--batch-documents",
        type=int,
        default=20_000,
        metavar="N",
        help="documents per vectorised batch (bounds memory; default 20000)",
    )
    for name in ("claims", "evidence", "citations"):
        summary.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"per-document bound on {name}"
        )
    summary.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="keep raw document refs in summary.json/.md (such files must not be published)",
    )
    summary.add_argument("--pseudonym-key-file", metavar="F", help=PSEUDONYM_KEY_HELP)
    add_io_flags(summary)
    add_ci_flag(
        summary,
        "exit 1 when any document fails or does not pass, or there is no claim (the reasons "
        "go to stderr)",
        "--strict",
    )
    add_progress_argument(summary)
    summary.set_defaults(func=f"{_RUN}:run_summary_citations")
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_INPUT
