"""``citelens corpus``: the parser of the corpus modes (light: the engine is imported when a
mode runs, by ``citelens.cli._run_corpus``)."""

from __future__ import annotations

import argparse
import sys

from citelens.cli._common import COMMAND_HELP, EXIT_INPUT
from citelens.cli._support import PSEUDONYM_KEY_HELP

__all__ = ["SUPPORT_ROLES", "register"]

SUPPORT_ROLES = ("claims", "evidence", "citations", "adjudications")
_RUN = "citelens.cli._run_corpus"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``corpus`` subcommand group."""
    parser = subparsers.add_parser(
        "corpus",
        help=COMMAND_HELP["corpus"],
        description=(
            "Evaluate a corpus: tables with a document_ref column, read from Parquet, Arrow "
            "IPC, JSONL or CSV files or directories of them (hive partitioning allowed). "
            "Writes documents.parquet (one row per document), summary.json and summary.md "
            "atomically into --out. The document refs that summary.json/.md name are keyed "
            "pseudonyms (HMAC-SHA-256) unless --raw-identifiers."
        ),
    )
    modes = parser.add_subparsers(dest="corpus_mode", metavar="MODE")
    support = modes.add_parser(
        "support",
        help="citation support metrics for every document",
        description=(
            "INPUT is a directory holding claims, evidence, citations and adjudications "
            "(each a file such as claims.parquet or a directory claims/ of files); any role "
            "can also be named with its own option. Every document is evaluated exactly as "
            "`citelens support` would evaluate it alone; a document that breaks the contract "
            "is reported with status 'error' and its fixed message, the others are evaluated."
        ),
        epilog=(
            "Exit codes: 0 outputs written; 1 --strict and a document failed or did not pass "
            "its span checks; 2 bad input (a fixed-category message naming the input role); "
            "3 internal error."
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
    for name in SUPPORT_ROLES:
        support.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"per-document bound on {name}"
        )
    support.add_argument("--strict", action="store_true", help="exit 1 when any document fails")
    support.set_defaults(func=f"{_RUN}:run_support")

    minimality = modes.add_parser(
        "minimality",
        help="citation minimality for every document",
        description=(
            "INPUT is a directory holding documents (document_ref, source_text), claims and "
            "citations (each with document_ref; minimality record columns), as files such as "
            "documents.parquet or directories. Writes documents.parquet, citations.parquet "
            "(one row per citation record), summary.json and summary.md."
        ),
        epilog="Exit codes: 0 outputs written; 1 --strict and any citation is flagged or any "
        "document failed; 2 bad input.",
    )
    minimality.add_argument("input", nargs="?", metavar="INPUT", help="corpus directory")
    minimality.add_argument("--out", required=True, metavar="DIR", help="output directory")
    for role in ("documents", "claims", "citations"):
        minimality.add_argument(f"--{role}", metavar="PATH", help=f"{role} file or directory")
    minimality.add_argument(
        "--max-excess-tokens", type=int, default=0, metavar="N", help="allowed excess tokens"
    )
    minimality.add_argument("--batch-documents", type=int, default=20_000, metavar="N")
    minimality.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="keep raw document refs in summary.json/.md (such files must not be published)",
    )
    minimality.add_argument("--pseudonym-key-file", metavar="F", help=PSEUDONYM_KEY_HELP)
    minimality.add_argument("--strict", action="store_true")
    minimality.set_defaults(func=f"{_RUN}:run_minimality")

    summary = modes.add_parser(
        "summary-citations",
        help="summary citation consistency for every document",
        description=(
            "INPUT is a directory holding claims and evidence (each with document_ref plus the "
            "summary-citation record columns), as files such as claims.parquet or directories "
            "claims/ of files; --claims/--evidence name a role explicitly. Every document is "
            "evaluated exactly as `citelens summary-citations` would evaluate it alone; a "
            "document that breaks the contract (e.g. a bound exceeded) is reported with status "
            "'error' and its fixed message. Writes documents.parquet, summary.json and "
            "summary.md."
        ),
        epilog="Exit codes: 0 outputs written; 1 --strict and any document failed or did not "
        "pass; 2 bad input (a fixed-category message naming the input role).",
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
    summary.add_argument(
        "--strict", action="store_true", help="exit 1 when any document fails or does not pass"
    )
    summary.set_defaults(func=f"{_RUN}:run_summary_citations")
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_INPUT
