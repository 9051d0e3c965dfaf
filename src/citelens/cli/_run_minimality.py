"""``citelens minimality``: the run (the engine is imported here, not by the parser module
``citelens.cli._minimality``, so that ``--help`` loads no engine)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from citelens._atomic import WriteFailure, write_parquet_atomic, write_text_atomic
from citelens.cli._common import EXIT_FAILED, EXIT_OK, cli_io, fail
from citelens.errors import CitationMinimalityError
from citelens.io import ReadFailure, Refused, describe, read_bounded
from citelens.io._refusal import opened
from citelens.minimality import CitationMinimalityReport
from citelens.minimality._check import check_with_table

__all__ = ["run"]

_WRITE_FAILED = "citation minimality report could not be written"


def _read_source(path: str) -> str:
    """The exact UTF-8 text of the source file (offsets count its code points as stored).

    A file that cannot be read raises the contract's ``source_text must be text`` with the
    reader's detail, worded like every input's (``source file not found``, ``source file is
    not valid UTF-8``: :func:`citelens.io.describe`)."""
    refused: ReadFailure | None = None
    text = ""
    try:
        target = Path(path)
        opened(target)  # missing, a directory, a FIFO or unreadable: refused before reading
        # never more than the readers' file bound (plus one byte), whatever the file holds
        text = read_bounded(target).decode("utf-8")
    except ReadFailure as exc:  # refused by opened() or beyond the size bound
        refused = exc
    except UnicodeDecodeError:  # the bytes are not UTF-8
        refused = Refused("encoding")
    except OSError:  # opened() checked the file; it changed or failed while being read
        refused = ReadFailure("unreadable")
    if refused is not None:
        detail = describe(refused, "source")
        raise CitationMinimalityError("source_text must be text", "input", detail)
    return text


@cli_io(("source", "claims", "citations"), text_outputs=("json", "markdown"), outputs=("parquet",))
def run(args: argparse.Namespace) -> int:
    """Run ``citelens minimality`` with parsed arguments; return the exit code."""
    report: CitationMinimalityReport | None = None
    table: Any = None
    problem: CitationMinimalityError | None = None
    try:
        source = _read_source(args.source)
        report, table = check_with_table(
            source,
            Path(args.claims),
            Path(args.citations),
            max_excess_tokens=args.max_excess_tokens,
        )
    except CitationMinimalityError as exc:  # bad input (exit 2); internal errors exit 3
        problem = CitationMinimalityError(str(exc.args[0]), exc.category, exc.detail)
    if problem is not None:
        return fail(problem)
    assert report is not None
    failed = False
    try:
        if args.json:
            write_text_atomic(args.json, report.to_json())
        if args.markdown:
            write_text_atomic(args.markdown, report.to_markdown())
        if args.parquet:
            write_parquet_atomic(args.parquet, table)
    except WriteFailure:
        failed = True
    if failed:
        return fail(CitationMinimalityError(_WRITE_FAILED, "io"))
    if not (args.json or args.markdown or args.parquet):
        sys.stdout.write(report.to_markdown())
    else:
        sys.stdout.write(
            f"citelens minimality: {report.citation_count} citations, "
            f"{report.flagged_count} flagged, {report.claim_count} claims\n"
        )
    if args.ci:
        reasons = gate_failures(report)
        if reasons:
            sys.stderr.write(f"citelens: citation minimality gate failed: {', '.join(reasons)}\n")
            return EXIT_FAILED
    return EXIT_OK


def gate_failures(report: CitationMinimalityReport) -> list[str]:
    """Why ``--ci`` fails (empty when it passes): ``no claims evaluated`` or
    ``no citations evaluated`` when nothing was measured (nothing measured is not a pass,
    issue 10), else the statuses of the flagged citations, in code-point order."""
    if report.claim_count == 0:
        return ["no claims evaluated"]
    if report.citation_count == 0:
        return ["no citations evaluated"]
    flagged = {record.status.value for record in report.records if record.review_required}
    return sorted(flagged)
