"""``citelens summary-citations``: run the check (imported only when the command runs)."""

from __future__ import annotations

import argparse
import pathlib
import sys

import pyarrow as pa

from citelens._atomic import write_outputs
from citelens.cli._common import EXIT_FAILED, EXIT_OK, cli_io, fail, limits_from_args
from citelens.errors import CitelensError, SummaryCitationError
from citelens.summary_citations._api import build_summary_citation_report
from citelens.summary_citations._report import SummaryCitationReport

__all__ = ["run"]


@cli_io(("claims", "evidence"), text_outputs=("json", "markdown"), outputs=("parquet",))
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
    if args.ci:
        reasons = gate_failures(report)
        if reasons:
            text = ", ".join(reasons)
            sys.stderr.write(f"citelens: summary citation-consistency gate failed: {text}\n")
            return EXIT_FAILED
    return EXIT_OK


def gate_failures(report: SummaryCitationReport) -> list[str]:
    """Why ``--ci`` fails (empty when it passes): the report's reason codes, preceded by
    ``no claims evaluated`` when there is no claim. The report itself keeps the contract's
    verdict (zero claims with valid evidence pass, summary-citations.md §9.2); the gate does
    not, because nothing measured is not a pass (issue 10)."""
    reasons = list(report.metrics.failure_reasons)
    if report.metrics.claim_count == 0:
        reasons.insert(0, "no claims evaluated")
    return reasons
