"""``citelens support``: the parser (light: the engine is imported when the command runs,
by ``citelens.cli._run_support``)."""

from __future__ import annotations

import argparse

from citelens.cli._common import COMMAND_HELP

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
        description=(
            "Evaluate whether the citations attached to atomic claims point to usable evidence "
            "and, with reviewer adjudications, whether that evidence supports the claim. "
            "Inputs are data files (.parquet, .arrow/.feather/.ipc, .jsonl/.ndjson, .csv, "
            ".json). Prints the Markdown report when no output file is named. Reports hold "
            "counts, rates, fixed reason codes and SHA-256 digests only. --tables identifiers "
            "are keyed pseudonyms: the same key file gives the same pseudonyms in every run; "
            "without one they link rows within one run only."
        ),
        epilog=(
            "Exit codes: 0 report written; 1 --strict and the deterministic span checks did "
            "not pass; 2 bad input (a fixed-category message on stderr); 3 internal error."
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
    for name in ("claims", "evidence", "citations", "adjudications"):
        parser.add_argument(
            f"--max-{name}", type=int, metavar="N", help=f"bound on {name} (default: contract)"
        )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when the deterministic span checks do not pass",
    )
    parser.set_defaults(func="citelens.cli._run_support:run")
