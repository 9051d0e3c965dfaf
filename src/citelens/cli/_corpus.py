"""``citelens corpus``: evaluate a whole corpus of documents in one pass."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citelens.cli._common import EXIT_FAILED, EXIT_OK, fail, limits_from_args
from citelens.errors import CitelensError

__all__ = ["register"]

_ROLES = ("claims", "evidence", "citations", "adjudications")
_SUFFIXES = (".parquet", ".arrow", ".feather", ".ipc", ".jsonl", ".ndjson", ".csv")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``corpus`` subcommand group."""
    parser = subparsers.add_parser(
        "corpus",
        help="evaluate many documents (keyed by document_ref) in one pass",
        description=(
            "Evaluate a corpus: tables with a document_ref column, read from Parquet, Arrow "
            "IPC, JSONL or CSV files or directories of them (hive partitioning allowed). "
            "Writes documents.parquet (one row per document), summary.json and summary.md "
            "atomically into --out."
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
            "its span checks; 2 bad input (a fixed-category message naming the input role)."
        ),
    )
    support.add_argument("input", nargs="?", metavar="INPUT", help="corpus directory")
    support.add_argument("--out", required=True, metavar="DIR", help="output directory")
    for role in _ROLES:
        support.add_argument(f"--{role}", metavar="PATH", help=f"{role} file or directory")
    support.add_argument(
        "--batch-documents",
        type=int,
        default=20_000,
        metavar="N",
        help="documents per vectorised batch (bounds memory; default 20000)",
    )
    support.add_argument(
        "--edges", action="store_true", help="also write edges.parquet (identifiers pseudonymised)"
    )
    support.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="with --edges: keep raw identifiers (such files must not be published)",
    )
    for name in _ROLES:
        support.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"per-document bound on {name}"
        )
    support.add_argument("--strict", action="store_true", help="exit 1 when any document fails")
    support.set_defaults(func=run_support)

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
    minimality.add_argument("--strict", action="store_true")
    minimality.set_defaults(func=run_minimality)

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
        "--strict", action="store_true", help="exit 1 when any document fails or does not pass"
    )
    summary.set_defaults(func=run_summary_citations)
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _role_path(args: argparse.Namespace, role: str) -> Path | None:
    explicit = getattr(args, role)
    if explicit:
        return Path(explicit)
    if not args.input:
        return None
    root = Path(args.input)
    if (root / role).is_dir():
        return root / role
    for suffix in _SUFFIXES:
        candidate = root / f"{role}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def run_support(args: argparse.Namespace) -> int:
    """Run ``citelens corpus support``."""
    from citelens.cli._common import progress_callback
    from citelens.corpus import run_support_corpus

    try:
        limits = limits_from_args(args)
        paths = {role: _role_path(args, role) for role in _ROLES}
        result = run_support_corpus(
            paths["claims"],
            paths["evidence"],
            paths["citations"],
            paths["adjudications"],
            limits=limits,
            batch_documents=args.batch_documents,
            edges=args.edges,
            raw_identifiers=args.raw_identifiers,
            progress=progress_callback("documents"),
        )
        result.write(args.out)
    except CitelensError as error:
        return fail(error)
    summary = result.summary
    sys.stdout.write(
        f"documents: {summary['document_count']} "
        f"(evaluated {summary['evaluated_document_count']}, "
        f"failed {summary['failed_document_count']}, "
        f"passing span checks {summary['passed_document_count']})\n"
    )
    if args.strict and (
        summary["failed_document_count"]
        or summary["passed_document_count"] != summary["evaluated_document_count"]
    ):
        return EXIT_FAILED
    return EXIT_OK


def run_minimality(args: argparse.Namespace) -> int:
    """Run ``citelens corpus minimality``."""
    from citelens.cli._common import progress_callback
    from citelens.corpus import run_minimality_corpus

    try:
        paths = {role: _role_path(args, role) for role in ("documents", "claims", "citations")}
        result = run_minimality_corpus(
            paths["documents"],
            paths["claims"],
            paths["citations"],
            max_excess_tokens=args.max_excess_tokens,
            batch_documents=args.batch_documents,
            progress=progress_callback("documents"),
        )
        result.write(args.out)
    except CitelensError as error:
        return fail(error)
    totals = result.summary["totals"]
    sys.stdout.write(
        f"documents: {totals['documents']} (evaluated {totals['documents_evaluated']}, "
        f"failed {totals['documents_failed']}); citations: {totals['citations']}, "
        f"flagged {totals['flagged']}\n"
    )
    if args.strict and (totals["flagged"] or totals["documents_failed"]):
        return EXIT_FAILED
    return EXIT_OK


def run_summary_citations(args: argparse.Namespace) -> int:
    """Run ``citelens corpus summary-citations``."""
    from citelens.cli._common import progress_callback
    from citelens.corpus import run_summary_citations_corpus

    try:
        limits = limits_from_args(args)
        paths = {role: _role_path(args, role) for role in ("claims", "evidence")}
        result = run_summary_citations_corpus(
            paths["claims"],
            paths["evidence"],
            limits=limits,
            batch_documents=args.batch_documents,
            progress=progress_callback("documents"),
        )
        result.write(args.out)
    except CitelensError as error:
        return fail(error)
    totals = result.summary["totals"]
    coverage = totals["micro_coverage"]
    shown = "n/a" if coverage is None else f"{coverage:.4f}"
    sys.stdout.write(
        f"documents: {totals['documents']} (evaluated {totals['documents_evaluated']}, "
        f"failed {totals['documents_failed']}, passing {totals['documents_passing']}); "
        f"claims: {totals['claims']}, coverage (micro) {shown}\n"
    )
    if args.strict and (
        totals["documents_failed"] or totals["documents_passing"] != totals["documents_evaluated"]
    ):
        return EXIT_FAILED
    return EXIT_OK
