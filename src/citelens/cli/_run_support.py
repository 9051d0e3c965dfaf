"""``citelens support``: run the command (imported only when it runs)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa

from citelens._atomic import write_outputs
from citelens._pseudonym import key_from_file_option
from citelens.cli._common import EXIT_FAILED, EXIT_OK, cli_io, fail, limits_from_args
from citelens.errors import CitationSupportError, CitelensError
from citelens.support._api import compute_citation_support_metrics
from citelens.support._gate import nothing_measured, span_failures
from citelens.support._report import CitationSupportReport

__all__ = ["run"]


@cli_io(
    ("claims", "evidence", "citations", "adjudications"),
    text_outputs=("json", "markdown"),
    outputs=("parquet", "tables"),
)
def run(args: argparse.Namespace) -> int:
    """Run ``citelens support``."""
    try:
        limits = limits_from_args(args)
        # the key is read only when the run pseudonymises (--tables without raw identifiers)
        key = None
        if args.tables and not args.raw_identifiers:
            key = key_from_file_option(args.pseudonym_key_file, CitationSupportError)
        report = compute_citation_support_metrics(
            Path(args.claims),
            Path(args.evidence) if args.evidence else (),
            Path(args.citations) if args.citations else None,
            Path(args.adjudications) if args.adjudications else None,
            limits=limits,
        )
        outputs: list[tuple[object, str | pa.Table]] = []
        if args.json:
            outputs.append((args.json, report.to_json()))
        if args.markdown:
            outputs.append((args.markdown, report.to_markdown()))
        if args.parquet:
            outputs.append((args.parquet, report.to_arrow()))
        if args.tables:
            tables = report.tables(raw_identifiers=args.raw_identifiers, pseudonym_key=key)
            assert tables is not None
            for name, table in tables._asdict().items():
                outputs.append((Path(args.tables) / f"{name}.parquet", table))
        write_outputs(
            outputs,
            CitationSupportError("citation-support report could not be written", "io"),
        )
    except CitelensError as error:
        return fail(error)
    if not (args.json or args.markdown or args.parquet or args.tables):
        sys.stdout.write(report.to_markdown())
    if args.ci:
        reasons = strict_failures(report)
        if reasons:
            sys.stderr.write(f"citelens: citation-support gate failed: {', '.join(reasons)}\n")
            return EXIT_FAILED
    return EXIT_OK


def strict_failures(report: CitationSupportReport) -> list[str]:
    """Why ``--ci`` fails, as fixed reason texts (empty when it passes): the rule of
    :mod:`citelens.support._gate`, shared with :mod:`citelens.testing`."""
    empty = nothing_measured(report)
    return [empty] if empty else [name for name, _ in span_failures(report)]
