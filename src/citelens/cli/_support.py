"""``citelens support``: claim-level citation support metrics from files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa

from citelens.cli._common import EXIT_FAILED, EXIT_OK, fail, limits_from_args, write_outputs
from citelens.errors import CitationSupportError, CitelensError

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``support`` subcommand."""
    parser = subparsers.add_parser(
        "support",
        help="citation support metrics: span checks, reason codes, precision and recall",
        description=(
            "Evaluate whether the citations attached to atomic claims point to usable evidence "
            "and, with reviewer adjudications, whether that evidence supports the claim. "
            "Inputs are data files (.parquet, .arrow/.feather/.ipc, .jsonl/.ndjson, .csv, "
            ".json). Prints the Markdown report when no output file is named. Reports hold "
            "counts, rates, fixed reason codes and SHA-256 digests only."
        ),
        epilog=(
            "Exit codes: 0 report written; 1 --strict and the deterministic span checks did "
            "not pass; 2 bad input (a fixed-category message on stderr)."
        ),
    )
    parser.add_argument("--claims", required=True, metavar="F", help="atomic claims file")
    parser.add_argument("--evidence", metavar="F", help="evidence spans file")
    parser.add_argument("--citations", metavar="F", help="explicit claim → evidence edges")
    parser.add_argument("--adjudications", metavar="F", help="reviewer labels per pair")
    parser.add_argument("--json", metavar="OUT", help="write the canonical JSON report")
    parser.add_argument("--markdown", metavar="OUT", help="write the Markdown report")
    parser.add_argument("--parquet", metavar="OUT", help="write the one-row Parquet report")
    parser.add_argument(
        "--tables",
        metavar="DIR",
        help="write the edge-level tables (claims, evidence, edges, adjudications) as Parquet, "
        "identifiers pseudonymised with SHA-256",
    )
    parser.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="with --tables: keep raw identifiers (such files must not be published)",
    )
    for name in ("claims", "evidence", "citations", "adjudications"):
        parser.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"bound on {name} (default: contract)"
        )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when the deterministic span checks do not pass",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``citelens support``."""
    from citelens.support._api import compute_citation_support_metrics

    try:
        limits = limits_from_args(args)
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
            tables = report.tables(raw_identifiers=args.raw_identifiers)
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
    if args.strict and not report.deterministic.passed:
        return EXIT_FAILED
    return EXIT_OK
