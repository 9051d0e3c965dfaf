"""``citelens provenance``: the run (imported only when the command runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from citelens._pseudonym import key_from_file_option
from citelens.cli._common import EXIT_FAILED, EXIT_OK, cli_io, fail
from citelens.cli._progress import input_bytes, open_progress
from citelens.errors import CitelensError, ProvenanceError
from citelens.provenance import STATUSES, write_provenance_corpus

__all__ = ["gate_failures", "run"]


@cli_io((), outputs=("out",))
def run(args: argparse.Namespace) -> int:
    """Run ``citelens provenance``."""
    try:
        key = None
        if not args.raw_identifiers:
            key = key_from_file_option(args.pseudonym_key_file, ProvenanceError)
        with open_progress(args.progress, size=input_bytes([Path(args.input)])) as display:
            # checked and written batch by batch: memory follows the batch
            display.phase("evaluating", step="documents")
            summary = write_provenance_corpus(
                args.input,
                args.out,
                fuzzy_threshold=args.fuzzy_threshold,
                pseudonym_key=key,
                raw_identifiers=args.raw_identifiers,
                batch_documents=args.batch_documents,
                progress=display,
            )
            display.finish()
    except CitelensError as error:
        return fail(error)
    totals = summary["totals"]
    counts = totals["counts"]
    shown = ", ".join(f"{status} {counts[status]}" for status in STATUSES)
    sys.stdout.write(
        f"documents: {summary['document_count']}; edges: {totals['edges']} ({shown})\n"
    )
    if args.ci:
        reasons = gate_failures(summary)
        if reasons:
            sys.stderr.write(f"citelens: provenance gate failed: {', '.join(reasons)}\n")
            return EXIT_FAILED
    return EXIT_OK


def gate_failures(summary: dict[str, object]) -> list[str]:
    """Why ``--ci`` fails: ``no checkable citations`` when nothing was checked (nothing
    measured is not a pass), else every status other than ``exact`` that checkable edges
    have, in precedence order."""
    totals = summary["totals"]
    assert isinstance(totals, dict)
    if totals["checkable"] == 0:
        return ["no checkable citations"]
    counts = totals["counts"]
    return [status for status in STATUSES[1:-1] if counts[status]]
