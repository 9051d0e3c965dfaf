"""``citelens corpus MODE``: run a corpus mode (imported only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citelens._pseudonym import key_from_file_option
from citelens.cli._common import EXIT_FAILED, EXIT_OK, cli_io, fail, limits_from_args
from citelens.cli._corpus import SUPPORT_ROLES
from citelens.cli._progress import RunProgress, input_bytes, open_progress
from citelens.corpus import (
    run_minimality_corpus,
    run_summary_citations_corpus,
    write_support_corpus,
)
from citelens.errors import CitelensError, CorpusError

__all__ = ["run_minimality", "run_summary_citations", "run_support"]

# A role named by INPUT alone is INPUT/<role>/ (a directory of files) or INPUT/<role><suffix>,
# the first suffix found in this order; text formats may be gzip or zstd compressed.
_TEXT_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv")
_SUFFIXES = (
    ".parquet",
    ".arrow",
    ".feather",
    ".ipc",
    *_TEXT_SUFFIXES,
    *(text + packed for text in _TEXT_SUFFIXES for packed in (".gz", ".zst")),
)


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


@cli_io(SUPPORT_ROLES, outputs=("out",))
def run_support(args: argparse.Namespace) -> int:
    """Run ``citelens corpus support``."""
    try:
        limits = limits_from_args(args)
        key = None  # read only when the run pseudonymises
        if not args.raw_identifiers:
            key = key_from_file_option(args.pseudonym_key_file, CorpusError)
        paths = {role: _role_path(args, role) for role in SUPPORT_ROLES}
        # streamed batch by batch into the output set: memory holds one batch
        with _progress(args, paths) as display:
            summary = write_support_corpus(
                paths["claims"],
                paths["evidence"],
                paths["citations"],
                paths["adjudications"],
                out_dir=args.out,
                limits=limits,
                batch_documents=args.batch_documents,
                edges=args.edges,
                raw_identifiers=args.raw_identifiers,
                pseudonym_key=key,
                progress=display,
            )
            display.finish()
    except CitelensError as error:
        return fail(error)
    sys.stdout.write(
        f"documents: {summary['document_count']} "
        f"(evaluated {summary['evaluated_document_count']}, "
        f"failed {summary['failed_document_count']}, "
        f"passing span checks {summary['passed_document_count']})\n"
    )
    if args.ci:
        reasons = _nothing_measured(
            claims=summary["claim_count"], citations=summary["citation_count"]
        )
        if summary["failed_document_count"]:
            reasons.append("documents failed")
        if summary["passed_document_count"] != summary["evaluated_document_count"]:
            reasons.append("span checks failed")
        return _gate("corpus citation-support", reasons)
    return EXIT_OK


@cli_io(("documents", "claims", "citations"), outputs=("out",))
def run_minimality(args: argparse.Namespace) -> int:
    """Run ``citelens corpus minimality``."""
    try:
        key = None  # read only when the run pseudonymises
        if not args.raw_identifiers:
            key = key_from_file_option(args.pseudonym_key_file, CorpusError)
        paths = {role: _role_path(args, role) for role in ("documents", "claims", "citations")}
        with _progress(args, paths) as display:
            result = run_minimality_corpus(
                paths["documents"],
                paths["claims"],
                paths["citations"],
                max_excess_tokens=args.max_excess_tokens,
                batch_documents=args.batch_documents,
                raw_identifiers=args.raw_identifiers,
                pseudonym_key=key,
                progress=display,
            )
            display.phase("writing", step="files")
            result.write(args.out)
            display.finish()
    except CitelensError as error:
        return fail(error)
    totals = result.summary["totals"]
    sys.stdout.write(
        f"documents: {totals['documents']} (evaluated {totals['documents_evaluated']}, "
        f"failed {totals['documents_failed']}); citations: {totals['citations']}, "
        f"flagged {totals['flagged']}\n"
    )
    if args.ci:
        reasons = _nothing_measured(claims=None, citations=totals["citations"])
        if totals["documents_failed"]:
            reasons.append("documents failed")
        if totals["flagged"]:
            reasons.append("citations flagged")
        return _gate("corpus citation minimality", reasons)
    return EXIT_OK


@cli_io(("claims", "evidence"), outputs=("out",))
def run_summary_citations(args: argparse.Namespace) -> int:
    """Run ``citelens corpus summary-citations``."""
    try:
        limits = limits_from_args(args)
        key = None  # read only when the run pseudonymises
        if not args.raw_identifiers:
            key = key_from_file_option(args.pseudonym_key_file, CorpusError)
        paths = {role: _role_path(args, role) for role in ("claims", "evidence")}
        with _progress(args, paths) as display:
            result = run_summary_citations_corpus(
                paths["claims"],
                paths["evidence"],
                limits=limits,
                batch_documents=args.batch_documents,
                raw_identifiers=args.raw_identifiers,
                pseudonym_key=key,
                progress=display,
            )
            display.phase("writing", step="files")
            result.write(args.out)
            display.finish()
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
    if args.ci:
        reasons = _nothing_measured(claims=totals["claims"], citations=None)
        if totals["documents_failed"]:
            reasons.append("documents failed")
        if totals["documents_passing"] != totals["documents_evaluated"]:
            reasons.append("documents not passing")
        return _gate("corpus summary citation-consistency", reasons)
    return EXIT_OK


def _progress(args: argparse.Namespace, paths: dict[str, Path | None]) -> RunProgress:
    """The run's progress on stderr, as ``--progress/--no-progress`` ask (the input size is
    shown while reading)."""
    return open_progress(getattr(args, "progress", None), size=input_bytes(paths.values()))


def _nothing_measured(*, claims: int | None, citations: int | None) -> list[str]:
    """Nothing measured is not a pass (issue 10): the fixed reasons of an empty corpus."""
    reasons = []
    if claims is not None and claims == 0:
        reasons.append("no claims evaluated")
    if citations is not None and citations == 0:
        reasons.append("no citations evaluated")
    return reasons


def _gate(name: str, reasons: list[str]) -> int:
    """Exit 1 with one fixed line naming the reasons, or 0 when there is none."""
    if not reasons:
        return EXIT_OK
    sys.stderr.write(f"citelens: {name} gate failed: {', '.join(reasons)}\n")
    return EXIT_FAILED
