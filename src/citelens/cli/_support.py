"""``citelens support``: the parser (light: the engine is imported when the command runs,
by ``citelens.cli._run_support``)."""

from __future__ import annotations

import argparse

from citelens.cli import add_ci_flag, command_help
from citelens.cli._common import COMMAND_HELP, add_io_flags

PSEUDONYM_KEY_HELP = (
    "key file for the pseudonyms (16 to 4096 bytes, used as stored; default: the file named by "
    "CITELENS_PSEUDONYM_KEY_FILE, else a random key for this run only)"
)

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``support`` subcommand."""
    parser = subparsers.add_parser(
        "support",
        help=COMMAND_HELP["support"],
        **command_help(
            "Citation support metrics: do citations point to usable, supporting evidence?",
            "Checks every claim -> evidence citation deterministically (span checks, fixed "
            "reason codes, duplicate edges, orphan claims, unused evidence) and, with reviewer "
            "adjudications, citation precision and support recall. Reports hold counts, "
            "rates, fixed reason codes and SHA-256 digests only. --tables identifiers are keyed "
            "pseudonyms: the same key file gives the same pseudonyms in every run; without one "
            "they link rows within one run only.",
            reads="--claims (required), --evidence, --citations and --adjudications: data "
            "files (.parquet, .arrow/.feather/.ipc, .jsonl/.ndjson, .csv, .json); "
            "--pseudonym-key-file with --tables.",
            writes="the Markdown report on stdout when no output is named; else --json "
            "(canonical JSON), --markdown, --parquet (one row) and --tables (edge-level "
            "Parquet tables), all written atomically as one set.",
            ok="report written (with --ci: the span checks passed)",
            failed="--ci and the deterministic span checks did not pass, or nothing was "
            "measured: one line on stderr, citelens: citation-support gate failed: <reasons>",
            example="citelens support --claims claims.jsonl --evidence evidence.csv \\\n"
            "      --citations citations.csv --json support.json --ci",
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
        "identifiers pseudonymised with HMAC-SHA-256",
    )
    parser.add_argument(
        "--raw-identifiers",
        action="store_true",
        help="with --tables: keep raw identifiers (such files must not be published)",
    )
    parser.add_argument(
        "--pseudonym-key-file",
        metavar="F",
        help=PSEUDONYM_KEY_HELP,
    )
    add_io_flags(parser)
    for name in ("claims", "evidence", "citations", "adjudications"):
        parser.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"bound on {name} (default: contract)"
        )
    add_ci_flag(
        parser,
        "exit 1 when the deterministic span checks do not pass or nothing was measured (the "
        "reasons go to stderr)",
        "--strict",
    )
    parser.set_defaults(func="citelens.cli._run_support:run")
